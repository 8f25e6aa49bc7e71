"""``new NAME``: a complete, working example assignment to start a new one from.

It copies the files of ``new_files/`` (an assignment called ``@NAME@``: reference with solution
markers, config, public and hidden tests, handout, reference answers) with the name filled in, links
what every assignment shares, and then generates what is generated: the handout notebook and answer
sheet (``handouts``) and the starter (``release --starter-only``). Right after it, the reference
gets full marks and the starter 0, and ``release``, ``build``, ``check`` and ``check-written`` work;
docs/authoring-guide.md says what to change next.
"""

from __future__ import annotations

import keyword
import os
import re
import shutil
import sys
from pathlib import Path

from autograder.core.config import PACKAGE_ROOT, REPO_ROOT, ConfigError, load_assignment
from autograder.course.starter import release
from autograder.course.templates import fill
from autograder.handout.handouts import build

TEMPLATES = Path(__file__).parent / "new_files"
_NAME = re.compile(r"^[a-z][a-z0-9_]{1,30}$")
# Modules and folders a NAME.py would hide, besides the standard library's: what the starter and
# the grader import, and the folders of the repository and the bundle.
_TAKEN = {"utils", "autograder", "solutions", "assignment", "handouts", "tests", "written", "data", "run",
          "numpy", "pytest", "yaml", "pydantic"}  # fmt: skip


class NewAssignmentError(ConfigError):
    """The name cannot be used; the message says why and what would do."""


def check_name(name: str, root: Path = REPO_ROOT) -> None:
    """Refuses a name that is not a lowercase Python name, that a module students import already
    has, or that an assignment here already uses."""
    if not _NAME.match(name) or keyword.iskeyword(name):
        raise NewAssignmentError(
            f"{name!r} cannot name an assignment: use 2 to 31 lowercase letters, digits and _, starting with a "
            "letter (it becomes the package autograder.assignments.NAME and the student's module NAME.py), "
            "for example: bigrams"
        )
    if name in sys.stdlib_module_names or name in _TAKEN:
        raise NewAssignmentError(
            f"{name!r} is already the name of a module the student's code or the grader imports, which "
            f"{name}.py would hide; choose another, for example {name}_hw"
        )
    existing = [p for p in _places(name, root) if p.exists() or p.is_symlink()]
    if existing:
        raise NewAssignmentError(
            f"an assignment called {name!r} exists already ({', '.join(str(p) for p in existing)}); "
            "choose another name, or remove those files first"
        )


def _places(name: str, root: Path) -> list[Path]:
    return [
        PACKAGE_ROOT / "assignments" / name,
        root / "solutions" / name,
        root / "assignment" / name,
        root / "handouts" / f"{name}.md",
    ]


def create(name: str, title: str | None = None, root: Path = REPO_ROOT) -> list[Path]:
    """Write the assignment ``name`` (checked with :func:`check_name` first) and generate its
    handout and starter; returns the files written."""
    values = {"NAME": name, "TITLE": title or f"{name}: the squared error and its gradient"}
    written = [_copy(template, name, values, root) for template in sorted(TEMPLATES.rglob("*.tmpl"))]
    written += _links(name, root)
    assignment = load_assignment(name, root)
    for path, data in build(assignment).items():
        path.write_bytes(data)
        written.append(path)
    return written + release(assignment, assignment.starter_dir)


def _copy(template: Path, name: str, values: dict[str, str], root: Path) -> Path:
    """One template, filled in, where it goes: ``assignments/`` into the package, the rest into the repository."""
    relative = Path(str(template.relative_to(TEMPLATES)).replace("@NAME@", name).removesuffix(".tmpl"))
    base = PACKAGE_ROOT if relative.parts[0] == "assignments" else root
    target = base / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(fill(template, values), encoding="utf-8")
    return target


def _links(name: str, root: Path) -> list[Path]:
    """The links every assignment has: its reference answers where the handout tests look for
    them, and the helpers every assignment's students get (solutions/shared/)."""
    links = {
        root / "solutions" / "written" / f"{name}.md": Path("..") / name / "written.md",
        root / "solutions" / name / "utils" / "gradcheck.py": Path("../../shared/gradcheck.py"),
        root / "solutions" / name / "utils" / "sanity.py": Path("../../shared/sanity.py"),
    }
    (PACKAGE_ROOT / "assignments" / name / "__init__.py").touch()
    (root / "solutions" / name / "utils").mkdir(parents=True, exist_ok=True)
    (root / "solutions" / name / "utils" / "__init__.py").touch()
    for link, target in links.items():
        link.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, link)
    return list(links)


def remove(name: str, root: Path = REPO_ROOT) -> None:
    """Undo a ``create`` that failed half-way, so that the name can be tried again."""
    generated = [root / "handouts" / f"{name}.ipynb", root / "handouts" / f"{name}_answers.md"]
    for path in [*_places(name, root), root / "solutions" / "written" / f"{name}.md", *generated]:
        if path.is_symlink() or path.is_file():
            path.unlink()
        elif path.is_dir():
            shutil.rmtree(path)
