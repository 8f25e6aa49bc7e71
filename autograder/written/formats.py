"""The forms an automatically graded written answer can take, and how to read each one.

An assignment lists them in ``autograder/assignments/<name>/handout.py`` as ``ANSWER_FORMATS``
(question id -> format). The hidden tests grade with them; ``check-written`` uses them to tell a
student, before the deadline and without revealing anything, whether the answer can be read.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from autograder.written.arc_standard import NAMES, DependencyTree
from autograder.written.expressions import (ExpressionError, Formula, final_answer, has_answer_line,
                                            read_formula)
from autograder.written.transition_table import TableError, read_table, reference_table


class AnswerFormatError(ValueError):
    """The answer cannot be read in its expected form; the message says what to write."""


class NotAnsweredYet(AnswerFormatError):
    """The answer is still the handout's template."""


@dataclass(frozen=True)
class FormulaAnswer:
    """A formula on a line of its own starting with "Answer:"; ``variables`` maps each variable to
    the other spellings students may use for it."""

    variables: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def read(self, text: str) -> Formula:
        final = final_answer(text)
        if final is None:
            raise AnswerFormatError("no final answer found; put it on a line of its own that starts "
                                    "with 'Answer:'")
        try:
            return read_formula(final, self.variables)
        except ExpressionError as error:
            if not has_answer_line(text):
                raise AnswerFormatError(f"no line starts with 'Answer:', and the whole answer is not a "
                                        f"formula ({error}); put the final answer on a line of its own "
                                        "that starts with 'Answer:'") from None
            raise AnswerFormatError(f"cannot read the final answer {final!r}: {error}") from None

    def describe(self, text: str) -> str:
        return f"final answer read as {self.read(text).text}"

    def template(self) -> str:
        return ""


@dataclass(frozen=True)
class TableAnswer:
    """A Markdown transition table for the sentence of ``tree``."""

    tree: DependencyTree

    def template(self) -> str:
        """What the student starts from: the header and the initial configuration."""
        return "\n".join(reference_table(self.tree).splitlines()[:3])

    def describe(self, text: str) -> str:
        try:
            rows = read_table(text, self.tree)
        except TableError as error:
            raise AnswerFormatError(str(error)) from None
        transitions = [row for row in rows if row.transition in NAMES]
        unreadable = [f"row {row.number}: " + "; ".join(row.problems) for row in rows if row.problems]
        if unreadable:
            raise AnswerFormatError("some cells cannot be read: " + " | ".join(unreadable[:3])
                                    + (" ..." if len(unreadable) > 3 else ""))
        if not transitions:
            raise NotAnsweredYet("the table has no transitions yet: add one row per transition")
        return f"table read: {len(transitions)} transition{'s' if len(transitions) != 1 else ''}"


AnswerFormat = FormulaAnswer | TableAnswer
