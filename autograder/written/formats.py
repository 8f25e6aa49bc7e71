"""The forms an automatically graded written answer can take, and how to read each one.

An assignment lists them in ``autograder/assignments/<name>/handout.py`` as ``ANSWER_FORMATS``
(question id -> format): a :class:`FormulaAnswer`, or a form of its own that does what
:class:`AnswerFormat` says. The hidden tests grade with them; ``check-written`` uses them to tell a
student, before the deadline and without revealing anything, whether the answer can be read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from autograder.written.expressions import ExpressionError, FinalAnswer, Formula, final_answer, read_formula
from autograder.written.finders import Finder, FormulaFinder


class AnswerFormatError(ValueError):
    """The answer cannot be read in its expected form; the message says what to write."""


class NotAnsweredYet(AnswerFormatError):
    """The answer is still the handout's template."""


@dataclass(frozen=True)
class FormulaAnswer:
    """A formula on a line of its own starting with "Answer:" (or where else
    :func:`~autograder.written.expressions.final_answer` finds it); ``variables`` maps each
    variable to the other spellings students may use for it."""

    variables: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def final(self, text: str) -> tuple[FinalAnswer, Formula]:
        """The final answer in ``text``, as written and as read."""
        final = final_answer(text)
        if final is None:
            raise AnswerFormatError("no final answer found; put it on a line of its own that starts with 'Answer:'")
        try:
            return final, read_formula(final.text, self.variables)
        except ExpressionError as error:
            if not final.on_answer_line:
                raise AnswerFormatError(
                    f"no line starts with 'Answer:', and the whole answer is not a formula ({error}); "
                    "put the final answer on a line of its own that starts with 'Answer:'"
                ) from None
            where = f" ({final.where})" if final.where else ""
            raise AnswerFormatError(
                f"cannot read the final answer {final.text!r}{where}: {error}. {self.how_to_write()}"
            ) from None

    def describe(self, text: str) -> str:
        """How the final answer was read, and where it was taken from when there was a choice."""
        final, formula = self.final(text)
        return f"final answer read as {formula.text}{found_at(final, formula)}"

    def how_to_write(self) -> str:
        names = ", ".join(self.variables)
        example = f"\\frac{{{next(iter(self.variables), 'x')} + 1}}{{2}}"
        # Examples that answer no question: 3 times a variable, a half of one more than it.
        return (
            f"Write it with numbers, {names}, + - * / ^ and brackets (\\frac{{a}}{{b}}, \\cdot and "
            f"products without a sign such as 3{next(iter(self.variables), 'x')} work too), for example "
            f"'Answer: ${example}$'"
        )

    def template(self) -> str:
        return ""

    def finder(self, reference_answer: str) -> Finder:
        return FormulaFinder(self.final(reference_answer)[1], self.variables)


def found_at(final: FinalAnswer, formula: Formula) -> str:
    """Where the final answer was taken from and what was left out, in brackets; "" when the
    answer line held just this formula."""
    notes = [f"taken from {final.where}: {final.text!r}"] if final.where else []
    if formula.ignored:
        notes.append(f"the words after it are not read: {formula.ignored[:40]!r}")
    return f" ({'; '.join(notes)})" if notes else ""


class AnswerFormat(Protocol):
    """What a form of automatically graded written answer provides; an assignment may bring its own
    (the parser's transition table: :mod:`autograder.assignments.parser.table_answer`)."""

    def describe(self, text: str) -> str:
        """How the answer in ``text`` was read, for check-written; raises :class:`AnswerFormatError`
        (:class:`NotAnsweredYet` for the handout's template) when it cannot be read."""

    def template(self) -> str:
        """What the answer cell starts with ("" for nothing)."""

    def finder(self, reference_answer: str) -> Finder:
        """What finds this question's answer in any text: nothing students receive may hold it."""
