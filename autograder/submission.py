"""Finds the student's files in a submission folder as Gradescope delivers it.

Gradescope puts the uploaded files flat in ``/autograder/submission``; students who zip a folder
produce one nested level instead, which is tolerated.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

_IGNORED_DIRS = {"__MACOSX", "__pycache__"}


class SubmissionError(Exception):
    """The submission folder cannot be graded at all (it does not exist)."""


@dataclass(frozen=True)
class Submission:
    folder: Path
    found: dict[str, Path]
    missing: list[str]

    @property
    def note(self) -> str:
        return (f"Missing from your submission: {', '.join(self.missing)}. Tests of those files "
                "score 0." if self.missing else "")


def locate(folder: Path, expected: list[str]) -> Submission:
    folder = Path(folder)
    if not folder.is_dir():
        raise SubmissionError(f"submission folder {folder} does not exist or is not a folder")
    base = folder
    if not any((folder / name).is_file() for name in expected):
        nested = [p for p in folder.iterdir()
                  if p.is_dir() and p.name not in _IGNORED_DIRS and not p.name.startswith(".")]
        if len(nested) == 1 and any((nested[0] / name).is_file() for name in expected):
            base = nested[0]
    found = {name: base / name for name in expected if (base / name).is_file()}
    return Submission(folder=base, found=found, missing=[n for n in expected if n not in found])
