"""``python -m autograder collect-submission``: the zip to upload to Gradescope.

It holds exactly the files the autograder reads: the Python files of the config and one file of
written answers (the notebook or the Markdown sheet, whichever holds the answers), flat at the top
of the zip. Anything missing or unfinished is said before the student uploads, not after.
"""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from autograder.config import Assignment
from autograder.written.answers import choose_answer_sheet

_STUB = re.compile(r'raise NotImplementedError\("(?P<what>.+?) is not implemented yet"\)')


@dataclass
class Collected:
    zip_path: Path
    files: list[str]
    warnings: list[str] = field(default_factory=list)


def collect_submission(assignment: Assignment, folder: Path, zip_path: Path | None = None) -> Collected:
    config = assignment.config
    folder = Path(folder)
    zip_path = Path(zip_path or folder / f"{assignment.name}_submission.zip")
    files, warnings = [], []
    for name in config.submission_files:
        path = folder / name
        if not path.is_file():
            warnings.append(f"{name} is missing: every test of it will score 0")
            continue
        files.append(name)
        unfinished = [m["what"] for m in _STUB.finditer(path.read_text(encoding="utf-8", errors="replace"))]
        if unfinished:
            warnings.append(f"{name} still has {len(unfinished)} part{'s' if len(unfinished) > 1 else ''} "
                            f"not implemented: {', '.join(unfinished)}")
    if config.answer_files:
        answers = choose_answer_sheet(folder, config)
        if answers.sheet is None:
            warnings.append(answers.note)
        else:
            files.append(answers.sheet.source)
            missing = [q for q in answers.sheet.answers if not answers.sheet.answered(q)]
            if missing:
                check = f"python -m autograder check-written {assignment.name} {answers.sheet.source}"
                warnings.append(f"{answers.sheet.source}: no answer to {', '.join(missing)} ({check})")
            if answers.note:
                warnings.append(answers.note)
    with zipfile.ZipFile(zip_path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name in files:
            archive.write(folder / name, arcname=name)
    return Collected(zip_path, files, warnings)
