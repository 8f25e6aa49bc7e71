"""``python -m autograder collect-submission``: the zip to upload to Gradescope.

It holds exactly the files the autograder reads: the Python files of the config and one file of
written answers (the notebook or the Markdown sheet, whichever holds the answers), flat at the top
of the zip. Anything missing or unfinished is said before the student uploads, not after. Every
problem ``check-written`` reports in the written answers (an answer that may be under the wrong
question, a heading that could name another question, a question answered twice, a final answer
that cannot be read, broken math, text under no question) stops the zip, because after the
deadline it costs points that a moved heading would have kept; ``ignore_written_problems`` zips
anyway.
"""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from autograder.core.config import Assignment
from autograder.written.answers import choose_answer_sheet
from autograder.written.check_written import check_sheet

_STUB = re.compile(r'raise NotImplementedError\("(?P<what>.+?) is not implemented yet"\)')
IGNORE_FLAG = "--ignore-written-problems"


@dataclass
class Collected:
    zip_path: Path
    files: list[str]
    warnings: list[str] = field(default_factory=list)
    # What check-written would ask to fix, each with its line; the zip is written only when this is
    # empty or the student chose to ignore it.
    written_problems: list[str] = field(default_factory=list)
    written: bool = True  # whether the zip was written
    answers: str = ""  # the answer file chosen, "" when there is none


def _code_files(assignment: Assignment, folder: Path) -> tuple[list[str], list[str]]:
    """The Python files to zip, and what is missing or unfinished in them."""
    files, warnings = [], []
    for name in assignment.config.submission_files:
        path = folder / name
        if not path.is_file():
            warnings.append(f"{name} is missing: every test of it will score 0")
            continue
        files.append(name)
        unfinished = [m["what"] for m in _STUB.finditer(path.read_text(encoding="utf-8", errors="replace"))]
        if unfinished:
            warnings.append(
                f"{name} still has {len(unfinished)} part{'s' if len(unfinished) > 1 else ''} "
                f"not implemented: {', '.join(unfinished)}"
            )
    return files, warnings


def collect_submission(
    assignment: Assignment, folder: Path, zip_path: Path | None = None, ignore_written_problems: bool = False
) -> Collected:
    folder = Path(folder)
    zip_path = Path(zip_path or folder / f"{assignment.name}_submission.zip")
    files, warnings = _code_files(assignment, folder)
    collected = Collected(zip_path, files, warnings)
    if assignment.config.answer_files:
        answers = choose_answer_sheet(folder, assignment.config)
        if answers.sheet is None:
            warnings.append(answers.note)
        else:
            collected.answers = answers.sheet.source
            files.append(answers.sheet.source)
            check = check_sheet(answers.sheet, assignment)
            collected.written_problems = check.to_fix
            if check.missing:
                command = f"python -m autograder check-written {assignment.name} {answers.sheet.source}"
                warnings.append(f"{answers.sheet.source}: no answer to {', '.join(check.missing)} ({command})")
            if answers.note:
                warnings.append(answers.note)
    collected.written = not collected.written_problems or ignore_written_problems
    if collected.written:
        with zipfile.ZipFile(zip_path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for name in files:
                archive.write(folder / name, arcname=name)
    return collected
