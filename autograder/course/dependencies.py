"""Which packages the framework installs, for which Python and platform.

Three sets, from one list (``pyproject.toml``'s dependencies):

- the project and the student bundle (``requirements()``): exact pins, chosen per Python with
  environment markers where one version cannot serve every supported Python (numpy drops Python
  versions as fast as new ones come), so that Python 3.10 to 3.14 on Linux, macOS and Windows
  install from wheels; ``tests/test_wheels.py`` resolves them for every :data:`PYTHONS` and
  :data:`PLATFORMS`;
- the notebook extra of the bundle (``requirements-notebook.txt``), for students who open the
  handout in Jupyter;
- the Gradescope zip: the *lock* of the base image the TA chooses (:data:`IMAGES`), every package
  pinned, those that ours pull in included, for the image's Python and C library, so that every
  grading on Gradescope installs the same numerics. The locks are files beside this module, written
  by ``python -m autograder.course.dependencies`` (which asks the package index, through uv) and checked by
  the tests; ``build --image`` puts one in the zip.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from autograder.core.errors import AutograderError

DISTRIBUTION = "nlp-autograder"
PYTHONS = ("3.10", "3.11", "3.12", "3.13", "3.14")
# Platforms students install on, as uv names them: Linux x86_64 with glibc 2.28 or newer (numpy's
# newest wheels need it; Ubuntu 20.04 and Debian 10 have it), macOS on Apple silicon (from macOS 11,
# see MACOS_TARGET) and 64-bit Windows.
PLATFORMS = ("x86_64-manylinux_2_28", "aarch64-apple-darwin", "x86_64-pc-windows-msvc")
MACOS_TARGET = "11.0"
NOTEBOOK = "notebook==7.6.5"  # for students who open the handout in Jupyter rather than VS Code
_LOCKS = Path(__file__).resolve().parent / "gradescope_files" / "locks"
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)$")


class DependencyError(AutograderError):
    """The dependencies cannot be listed or resolved; the message says what to do."""


@dataclass(frozen=True)
class Image:
    """A Gradescope base image: its Python (the one ``/usr/bin/python3`` runs) and its glibc."""

    name: str
    title: str
    python: str
    glibc: str

    @property
    def lock_path(self) -> Path:
        return _LOCKS / f"{self.name}.txt"

    @property
    def platform(self) -> str:
        """The image's platform as uv names it (manylinux up to its glibc)."""
        return f"x86_64-manylinux_{self.glibc.replace('.', '_')}"

    def pip_platforms(self) -> list[str]:
        """The wheel platform tags the image's pip accepts: pip expands none of them itself."""
        newest = int(self.glibc.split(".")[1])
        return ["manylinux2014_x86_64"] + [f"manylinux_2_{minor}_x86_64" for minor in range(17, newest + 1)]

    def lock(self) -> str:
        return self.lock_path.read_text(encoding="utf-8")


IMAGES = {
    image.name: image
    for image in (
        Image("ubuntu-22.04", "Ubuntu 22.04", python="3.10", glibc="2.35"),
        Image("ubuntu-24.04", "Ubuntu 24.04", python="3.12", glibc="2.39"),
    )
}
DEFAULT_IMAGE = "ubuntu-22.04"  # Gradescope's default base image


def image(name: str) -> Image:
    try:
        return IMAGES[name]
    except KeyError:
        raise DependencyError(f"no Gradescope image {name!r}; choose one of {', '.join(IMAGES)}") from None


def requirements() -> str:
    """The pinned dependencies of the installed framework, one per line with their markers, without
    optional extras: the student bundle's ``requirements.txt``."""
    try:
        required = importlib.metadata.requires(DISTRIBUTION) or []
    except importlib.metadata.PackageNotFoundError:
        raise DependencyError(
            f"the {DISTRIBUTION} package is not installed, so its pinned requirements are unknown; run ./setup.sh first"
        ) from None
    pinned = [line for line in required if "extra ==" not in line]
    loose = [line for line in pinned if "==" not in line]
    if loose:
        raise DependencyError(f"unpinned requirements in pyproject.toml: {', '.join(loose)}; pin them (==)")
    return "".join(line + "\n" for line in pinned)


def notebook_requirements() -> str:
    """The bundle's ``requirements-notebook.txt``: the self-check's packages and Jupyter's notebook."""
    return f"-r requirements.txt\n{NOTEBOOK}\n"


def pins(text: str) -> dict[str, str]:
    """``name -> version`` of the ``name==version`` lines of a lock (names normalised as pip does)."""
    found = {}
    for line in text.splitlines():
        match = _PIN.match(line.split("#", 1)[0].strip())
        if match:
            found[re.sub(r"[-_.]+", "-", match[1]).lower()] = match[2]
    return found


def _uv() -> str:
    # The venv's own uv first: its version is the pinned one.
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    found = shutil.which("uv", path=path)
    if found is None:
        raise DependencyError("uv is not installed; run ./setup.sh (it installs the test tools)")
    return found


def resolve(requirements_file: Path, python: str, platform: str) -> str:
    """Every package ``requirements_file`` needs on ``python`` and ``platform``, pinned, from wheels
    only (uv evaluates environment markers for the target, which pip's --python-version does not).
    Raises :class:`DependencyError` with uv's explanation when some package has no wheel there."""
    # uv resolves with the running Python for any target; left alone, it would first try to
    # download an interpreter of the target's version, from a host the package index is not.
    command = [
        _uv(),
        "pip",
        "compile",
        str(requirements_file),
        "--quiet",
        "--no-header",
        "--no-annotate",
        "--no-python-downloads",
        "--python",
        sys.executable,
        "--only-binary",
        ":all:",
        "--python-version",
        python,
        "--python-platform",
        platform,
    ]
    run = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "MACOSX_DEPLOYMENT_TARGET": MACOS_TARGET},
    )
    if run.returncode != 0:
        raise DependencyError(f"no wheels for Python {python} on {platform}:\n{run.stderr.strip()}")
    return run.stdout


def write_lock(target: Image, folder: Path) -> Path:
    """Resolve the framework's requirements for ``target`` and write its lock."""
    source = folder / "requirements.txt"
    source.write_text(requirements(), encoding="utf-8")
    body = resolve(source, target.python, target.platform)
    header = (
        f"# Gradescope's {target.title} image: Python {target.python}, x86_64, glibc {target.glibc}.\n"
        "# Every package the autograder installs there, from pyproject.toml's dependencies; written by\n"
        "#   python -m autograder.course.dependencies\n"
    )
    target.lock_path.parent.mkdir(parents=True, exist_ok=True)
    target.lock_path.write_text(header + body, encoding="utf-8")
    return target.lock_path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m autograder.course.dependencies",
        description="Write the lock of each Gradescope image (autograder/course/gradescope_files/locks/) from "
        "pyproject.toml's dependencies, resolved from wheels on the package index. Run it "
        "after changing a dependency in pyproject.toml and running ./setup.sh; then run the "
        "tests that use the index: pytest -m index.",
        epilog="example: .venv/bin/python -m autograder.course.dependencies --image ubuntu-24.04",
    )
    parser.add_argument(
        "--image", choices=sorted(IMAGES), action="append", help="only this image (repeatable; default: all)"
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        for name in args.image or IMAGES:
            try:
                print(f"wrote {write_lock(IMAGES[name], Path(folder))}")
            except DependencyError as exc:
                print(f"error: {exc}", file=sys.stderr)
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
