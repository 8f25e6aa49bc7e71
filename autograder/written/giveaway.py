"""Finds the answer of an automatically graded written question in any text, in the spellings
people use for it, so that nothing students receive gives such an answer away: a self-check that
parses the handout's own sentence holds the whole transition table, and a docstring that states
the formula a question asks for answers it, both easy to write without noticing.

:func:`bundle.leaks` searches every file of the student bundle with the finder that each form of
answer brings (:mod:`autograder.written.formats`; a formula's finds any formula equal to the
reference answer, the parser's table the gold transitions or arcs in any spelling), and the tests
run them on the reference answers, where they must find every answer. No finder sees an answer in
words ("one shift and one arc per word"): the test of the bundle cannot replace reading it.
"""

from __future__ import annotations

import json
from pathlib import Path

from autograder.core.config import Assignment, ConfigError
from autograder.written.answers import AnswersError, read_answers
from autograder.written.finders import Finder
from autograder.written.formats import AnswerFormat, AnswerFormatError
from autograder.written.handout_data import handout_data


def answer_finders(assignment: Assignment) -> dict[str, Finder]:
    """A finder for every written question that tests grade (``kind: written``), from the reference
    answers (``solutions/NAME/written.md``, so in the repository only); one without a form of answer is an error."""
    questions = [q.id for q in assignment.config.questions if q.kind == "written"]
    if not questions:
        return {}
    formats = handout_data(assignment).answer_formats
    try:
        reference = read_answers(assignment.solution_dir / "written.md", assignment.config)
    except AnswersError as error:
        raise ConfigError(f"the reference answers are needed to search for them: {error}") from None
    return {question: _finder(question, formats.get(question), reference.text(question)) for question in questions}


def _finder(question: str, form: AnswerFormat | None, reference_answer: str) -> Finder:
    if form is None:
        raise ConfigError(
            f"written question {question} is graded by tests but has no form of answer: add it to ANSWER_FORMATS "
            "in the assignment's handout.py (docs/authoring-guide.md, 'Written answers')"
        )
    try:
        return form.finder(reference_answer)
    except AnswerFormatError as error:
        raise ConfigError(f"written question {question}: the reference answer cannot be read: {error}") from None


def readable_text(path: Path) -> str | None:
    """The text a person reads in ``path``: a notebook's cell sources, a text file's content; None
    for a file that is not UTF-8 text."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return None
    if path.suffix == ".ipynb":
        try:
            cells = json.loads(text).get("cells", [])
            return "\n".join(
                "".join(c.get("source", "")) if isinstance(c.get("source"), list) else str(c.get("source", ""))
                for c in cells
            )
        except (ValueError, AttributeError):
            return text
    return text
