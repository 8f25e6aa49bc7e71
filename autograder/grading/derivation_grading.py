"""The machine's verdict on the final formulas of written derivations, in a grading's results.

Every derivation question (``DERIVATIONS`` in the assignment's ``handout.py``) gets a verdict in
``results.json``'s ``extra_data["derivations"]``, which Gradescope never shows students: TAs read
it in the gradebook (a column per question) and in ``export-written``'s pages. A question the
config marks ``auto_grade: true`` also gets a test: its points when the final formulas equal the
reference, else 0 with the verdict, visible after the deadline.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from autograder.core.config import Assignment, AssignmentConfig, ConfigError, ManualQuestion
from autograder.core.results import TestResult
from autograder.written.answers import SubmittedAnswers
from autograder.written.derivations.verdict import DerivationQuestion, judge
from autograder.written.handout_data import derivation_questions

EXTRA_KEY = "derivations"
VerdictStatus = Literal["equal", "not equal", "unreadable", "unanswered"]


class FormulaVerdict(BaseModel):
    """The verdict on one question's final formulas, as ``extra_data`` keeps it."""

    model_config = ConfigDict(extra="forbid")

    status: VerdictStatus
    summary: str = ""  # what was read of each formula, and how it differs


def derivations_to_judge(assignment: Assignment) -> dict[str, DerivationQuestion]:
    """The derivation questions with their reference formulas; raises ConfigError when a question
    the config auto-grades has none."""
    questions = derivation_questions(assignment)
    missing = [q.id for q in assignment.config.manual_questions if q.auto_grade and q.id not in questions]
    if missing:
        raise ConfigError(
            f"{', '.join(missing)} {'is' if len(missing) == 1 else 'are'} auto_grade in the config but "
            "not in DERIVATIONS of the assignment's handout.py: declare the final formula to check"
        )
    return questions


def verdicts(questions: dict[str, DerivationQuestion], answers: SubmittedAnswers) -> dict[str, FormulaVerdict]:
    found = {}
    for question, derivation in questions.items():
        text = answers.sheet.text(question) if answers.sheet is not None else ""
        if not text.strip():
            found[question] = FormulaVerdict(status="unanswered")
            continue
        verdict = judge(text, derivation)
        found[question] = FormulaVerdict(status=verdict.status, summary=verdict.summary())
    return found


def auto_graded_rows(config: AssignmentConfig, found: dict[str, FormulaVerdict]) -> list[TestResult]:
    """A test per question the config auto-grades and the grading judged (the public tests judge
    none: the verdict counts after the deadline): all its points when its formulas are equal."""
    return [
        _row(question, found[question.id])
        for question in config.manual_questions
        if question.auto_grade and question.id in found
    ]


def _row(question: ManualQuestion, verdict: FormulaVerdict) -> TestResult:
    equal = verdict.status == "equal"
    said = {
        "equal": "Your final formula equals the reference's.",
        "not equal": "Your final formula does not equal the reference's.",
        "unreadable": "Your final formula could not be read, so it could not be checked.",
        "unanswered": "There is no answer to this question.",
    }[verdict.status]
    return TestResult(
        name=f"{question.title}: the final formula, checked by machine",
        number=f"{question.id}.1",
        score=question.points if equal else 0.0,
        max_score=question.points,
        status="passed" if equal else "failed",
        output=f"{said}\n{verdict.summary}".strip()
        + ("" if equal else "\nIf you think the check is wrong, ask for a regrade: a TA reads the derivation."),
        visibility="after_due_date",
        tags=[f"written.answer_{question.id.replace('-', '_')}"],
    )
