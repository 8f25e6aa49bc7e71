"""The base class of tests that grade a written answer.

They run in the grader like every other test, but read the student's answer sheet (in the runner's
``self.context.answers``) instead of calling code; no worker is ever started for them.
"""

from __future__ import annotations

from collections.abc import Callable

from autograder.grading.testing import GradedTestCase, required
from autograder.written.expressions import compare
from autograder.written.formats import AnswerFormat, AnswerFormatError, FormulaAnswer, found_at


class WrittenTestCase(GradedTestCase):
    """Subclass per written question; its tests are tagged ``written.answer_<question>`` unless
    they say otherwise, as they call no student function."""

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        if cls.question and "functions" not in vars(cls):
            cls.functions = (f"written.answer_{cls.question.replace('-', '_')}",)

    def answer(self) -> str:
        """The student's answer to this test's question, or a failure saying why there is none."""
        answers = required(self.context.answers, "answer sheets")
        sheet = answers.sheet
        if sheet is None:
            self.fail(answers.note)
        text = sheet.text(self.question)
        if not text.strip():
            self.fail(
                f"{self.question} is not answered in {sheet.source}: no text under a heading that "
                f"names {self.question} (or in its answer cell of the notebook)"
            )
        return text

    def check_formula(
        self, form: AnswerFormat, expected: Callable[[dict[str, float]], float], points: list[dict[str, float]]
    ) -> None:
        """The final answer (the line starting with "Answer:") equals ``expected`` at ``points``.
        ``form`` is the question's entry in ``ANSWER_FORMATS``, which must be a formula."""
        if not isinstance(form, FormulaAnswer):  # the course's mistake: the row blames the grader
            raise TypeError(f"{self.question}: check_formula needs a FormulaAnswer, got {type(form).__name__}")
        try:
            final, formula = form.final(self.answer())
        except AnswerFormatError as error:
            self.fail(f"{self.question}: {error}")
        problem = compare(formula, expected, points)
        if problem:
            self.fail(
                f"{self.question}: your final answer reads as {formula.text}{found_at(final, formula)}, "
                f"which is not right: {problem}"
            )
