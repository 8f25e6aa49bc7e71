"""``python -m autograder build``: the zip a TA uploads to Gradescope as one assignment's autograder.

Gradescope unpacks the zip into ``ROOT/source`` (ROOT is ``/autograder``), runs its ``setup.sh``
once when it builds the image, and runs ``run_autograder`` for every submission. The zip holds:

- ``setup.sh`` and ``run_autograder`` (from ``autograder/course/gradescope_files/``, named for the assignment);
- ``requirements.txt``: the lock of the Gradescope image the zip is built for (``--image``): every
  package pinned for that image's Python (:mod:`autograder.course.dependencies`); ``setup.sh`` refuses
  another Python, so a TA who picked another image in Gradescope learns it when the image is built;
- ``autograder/``: the framework, with no assignment but this one under ``autograder/assignments/``;
- ``solutions/NAME/``: the reference (symbolic links followed);
- ``assignment/NAME/...``: the starter's given files that the student's code imports.

So the unpacked ``source/`` has the repository's layout and ``load_assignment`` finds everything where
it always does. The zip is the same, byte for byte, when nothing in it changed.

The zip holds the reference and the hidden tests, so it is readable by its owner only (0600). It is
written into a private temporary file beside ``out`` and renamed onto it: a file planted at ``out``
is replaced, never written through, and a symbolic link there is refused.
"""

from __future__ import annotations

import os
import stat
import tempfile
import zipfile
from pathlib import Path

from autograder.core.config import PACKAGE_ROOT, Assignment
from autograder.core.errors import AutograderError
from autograder.core.safe_files import mode_at
from autograder.course.dependencies import DEFAULT_IMAGE, IMAGES, Image
from autograder.course.templates import fill
from autograder.grading.grade import check_ready

_SCRIPTS = ("setup.sh", "run_autograder")
_TEMPLATES = Path(__file__).resolve().parent / "gradescope_files"
_SKIPPED = {"__pycache__", ".pytest_cache"}
_FIXED_TIME = (1980, 1, 1, 0, 0, 0)  # zip timestamps, so that the same input gives the same zip
_ELSEWHERE = "choose another --out, e.g. in a folder made by mktemp -d"


class BuildError(AutograderError):
    """The zip cannot be built; the message says what to do."""


def _files(folder: Path) -> list[Path]:
    return sorted(
        path
        for path in folder.rglob("*")
        if path.is_file() and not _SKIPPED.intersection(path.relative_to(folder).parts) and path.suffix != ".pyc"
    )


def contents(assignment: Assignment) -> dict[str, Path]:
    """Name in the zip -> file on disk, for everything but the generated files."""
    name = assignment.name
    others = {p.name for p in (PACKAGE_ROOT / "assignments").iterdir() if p.is_dir() and p.name != name}
    entries: dict[str, Path] = {}
    for path in _files(PACKAGE_ROOT):
        relative = path.relative_to(PACKAGE_ROOT)
        templates = relative.parts[:2] in (("course", _TEMPLATES.name), ("course", "new_files"))
        if templates or (
            relative.parts[0] == "assignments" and len(relative.parts) > 2 and relative.parts[1] in others
        ):
            continue
        entries[f"autograder/{relative.as_posix()}"] = path
    if not assignment.solution_dir.is_dir():
        raise BuildError(f"no reference solution at {assignment.solution_dir}")
    for path in _files(assignment.solution_dir):
        entries[f"solutions/{name}/{path.relative_to(assignment.solution_dir).as_posix()}"] = path
    for support in assignment.config.support_files:
        source = assignment.starter_dir / support
        if not source.exists():
            raise BuildError(
                f"the starter's given file {source} is missing; generate the starter with: "
                f"python -m autograder release {name} --out {assignment.starter_dir} --force --starter-only"
            )
        for path in _files(source) if source.is_dir() else [source]:
            entries[f"assignment/{name}/{path.relative_to(assignment.starter_dir).as_posix()}"] = path
    return entries


def _add(archive: zipfile.ZipFile, name: str, data: bytes, executable: bool = False) -> None:
    info = zipfile.ZipInfo(name, date_time=_FIXED_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = (0o100755 if executable else 0o100644) << 16
    archive.writestr(info, data)


def _check_destination(out: Path) -> None:
    """Refuse an ``out`` that is a link (it could lead to any file) or not a regular file."""
    mode = mode_at(out)
    if mode is None:
        return
    if stat.S_ISLNK(mode):
        raise BuildError(f"{out} is a symbolic link; remove it or {_ELSEWHERE}")
    if not stat.S_ISREG(mode):
        raise BuildError(f"{out} exists and is not a regular file; remove it or {_ELSEWHERE}")


def _private_file_beside(out: Path) -> tuple[int, Path]:
    """A new file in ``out``'s folder that only its owner can read (mkstemp makes it 0600), so that
    no one can open the zip while it is written, and the final rename stays in one file system."""
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".part", dir=out.parent)
    except OSError as exc:
        raise BuildError(f"cannot write in {out.parent}: {exc.strerror}; {_ELSEWHERE}") from None
    return handle, Path(name)


def _owner(path: Path) -> int | None:
    try:
        return os.lstat(path).st_uid
    except FileNotFoundError:
        return None


def _replace(temporary: Path, out: Path) -> None:
    """Rename the finished zip onto ``out``: a link planted there since the check is replaced itself,
    never what it points to."""
    try:
        os.replace(temporary, out)
    except OSError as exc:
        # In a sticky folder such as /tmp only the owner may replace a file: another user's file
        # at a fixed name there may have been planted to be written through.
        if isinstance(exc, PermissionError) and _owner(out) not in (None, os.geteuid()):
            raise BuildError(f"{out} is owned by someone else; {_ELSEWHERE}") from None
        raise BuildError(f"cannot replace {out}: {exc.strerror}; {_ELSEWHERE}") from None


def _script(name: str, assignment: Assignment, image: Image) -> bytes:
    values = {"ASSIGNMENT": assignment.name, "IMAGE": image.title, "PYTHON": image.python, "IMAGES": ", ".join(IMAGES)}
    return fill(_TEMPLATES / name, values).encode()


def build(assignment: Assignment, out: Path, image: Image | None = None) -> list[str]:
    """Write the Gradescope zip of ``assignment`` for ``image`` (default: Gradescope's default image)
    to ``out`` (mode 0600); returns the names it holds. An assignment that cannot grade (its tests
    and config disagree, an auto-graded question has no final formula) is refused first: on
    Gradescope every submission would get the fallback's 0."""
    check_ready(assignment)
    image = image or IMAGES[DEFAULT_IMAGE]
    out = Path(out)
    _check_destination(out)
    generated = {"requirements.txt": image.lock().encode()}
    for script in _SCRIPTS:
        generated[script] = _script(script, assignment, image)
    files = contents(assignment)
    handle, temporary = _private_file_beside(out)
    try:
        with os.fdopen(handle, "wb") as stream, zipfile.ZipFile(stream, "w") as archive:
            for name, data in generated.items():
                _add(archive, name, data, executable=name in _SCRIPTS)
            for name, path in files.items():
                _add(archive, name, path.read_bytes())
        _replace(temporary, out)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return list(generated) + list(files)
