"""Finds the student's files in a submission folder as Gradescope delivers it.

Gradescope puts the uploaded files flat in ``/autograder/submission``; students who zip a folder
produce one nested level instead, which is tolerated. Symbolic links are not followed: the grader
copies the files for the worker, and a link to the reference or the hidden tests would otherwise
hand their content to the student's code.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from autograder.core.errors import AutograderError

_IGNORED_DIRS = {"__MACOSX", "__pycache__"}


class SubmissionError(AutograderError):
    """The submission folder cannot be graded at all (it does not exist)."""


@dataclass(frozen=True)
class Submission:
    folder: Path
    found: dict[str, Path]
    missing: list[str]

    @property
    def note(self) -> str:
        return (
            f"Missing from your submission: {', '.join(self.missing)}. Tests of those files score 0."
            if self.missing
            else ""
        )


def is_submitted_file(path: Path) -> bool:
    """A regular file, not a link: the only kind of file the grader reads from a submission."""
    return path.is_file() and not path.is_symlink()


def locate(folder: Path, expected: list[str]) -> Submission:
    folder = Path(folder)
    if not folder.is_dir():
        raise SubmissionError(f"submission folder {folder} does not exist or is not a folder")
    base = folder
    if not any(is_submitted_file(folder / name) for name in expected):
        nested = [
            p
            for p in folder.iterdir()
            if p.is_dir() and not p.is_symlink() and p.name not in _IGNORED_DIRS and not p.name.startswith(".")
        ]
        if len(nested) == 1 and any(is_submitted_file(nested[0] / name) for name in expected):
            base = nested[0]
    found = {name: base / name for name in expected if is_submitted_file(base / name)}
    return Submission(folder=base, found=found, missing=[n for n in expected if n not in found])
