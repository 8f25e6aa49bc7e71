"""Points of the written questions graded by hand, brought into the gradebook.

Two sources, each a CSV with a row per student:

- the template ``export-written`` writes beside its pages (``hand_graded.csv``: submission, name,
  and a column per question graded by hand, named by its id), which a TA fills in;
- Gradescope's score export of the written assignment, whose question columns name our ids
  ("2: 2b-ii gradient for v_c (3.0 pts)"); its students are found by SID, email or name.

A score that is no number, or outside 0 and the question's points, is refused with every such
cell listed, row and column, before anything is written.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from autograder.core.config import AssignmentConfig, ConfigError, ManualQuestion

TEMPLATE = "hand_graded.csv"
_KEYS = ("submission", "sid", "email", "name")  # how a row names its student, the surest first
_HEADERS = {"sid": ("sid", "student id"), "email": ("email",), "name": ("name",), "submission": ("submission",)}

Scores = dict[str, dict[str, float]]  # "sid:123" (or "email:…", "name:…", "submission:…") -> question -> points


def hand_questions(config: AssignmentConfig) -> list[ManualQuestion]:
    """The questions whose points only a TA gives: graded by hand and not scored by the machine."""
    return [q for q in config.manual_questions if not q.auto_grade]


def template_csv(config: AssignmentConfig, students: list[tuple[str, str]]) -> str:
    """The CSV a TA fills in: a row per (submission, name), an empty cell per question graded by hand."""
    stream = io.StringIO()
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow(["submission", "name", *(q.id for q in hand_questions(config))])
    writer.writerows([submission, name, *("" for _ in hand_questions(config))] for submission, name in students)
    return stream.getvalue()


def read_hand_graded(path: Path, config: AssignmentConfig) -> Scores:
    """The points in ``path`` (the template filled in, or Gradescope's score export), by student."""
    rows = list(csv.DictReader(io.StringIO(Path(path).read_text(encoding="utf-8-sig"))))
    header = list(rows[0]) if rows else []
    columns = _question_columns(header, hand_questions(config))
    if not columns:
        names = ", ".join(q.id for q in hand_questions(config))
        raise ConfigError(f"{path}: no column names a question graded by hand ({names}); its header: {header}")
    keys = {key: column for key in _KEYS if (column := _column(header, key))}
    scores: Scores = {}
    problems: list[str] = []
    for number, row in enumerate(rows, start=2):  # line 1 is the header
        points = {q.id: _points(row[column], q, f"{path}:{number}, column {column!r}", problems)
                  for q, column in columns}  # fmt: skip
        given = {question: value for question, value in points.items() if value is not None}
        for key, column in keys.items():
            if row.get(column, "").strip():
                scores[f"{key}:{row[column].strip().lower()}"] = given
    if problems:
        raise ConfigError(f"{len(problems)} hand-graded score(s) cannot be read:\n  " + "\n  ".join(problems))
    return scores


def scores_of(scores: Scores, submission: str, sid: str, email: str, name: str) -> dict[str, float] | None:
    """A student's hand-graded points, found by the surest of their names that ``scores`` has."""
    for key, value in zip(_KEYS, (submission, sid, email, name)):
        if value and f"{key}:{value.strip().lower()}" in scores:
            return scores[f"{key}:{value.strip().lower()}"]
    return None


def _question_columns(header: list[str], questions: list[ManualQuestion]) -> list[tuple[ManualQuestion, str]]:
    """Each question with the column that names it: its id alone, or inside Gradescope's title."""
    found = []
    for question in questions:
        named = re.compile(rf"(?<![\w-]){re.escape(question.id)}(?![\w-])")
        column = next((c for c in header if c.strip() == question.id), None) or next(
            (c for c in header if named.search(c)), None
        )
        if column is not None:
            found.append((question, column))
    return found


def _column(header: list[str], key: str) -> str | None:
    return next((c for c in header if c.strip().lower() in _HEADERS[key]), None)


def _points(cell: str, question: ManualQuestion, where: str, problems: list[str]) -> float | None:
    """The points in ``cell`` (None when it is empty: not graded yet); a problem is noted."""
    if not cell.strip():
        return None
    try:
        value = float(cell)
    except ValueError:
        problems.append(f"{where}: {cell!r} is no number of points")
        return None
    if not 0 <= value <= question.points:
        problems.append(f"{where}: {value:g} is outside 0 to {question.points:g}, the points of {question.id}")
        return None
    return value
