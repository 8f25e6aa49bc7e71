"""``check-written``: what a student should fix in their written answers before submitting.

For every written question it says where the answer was found (or that it is missing), for the
automatically graded ones whether the answer can be read in the form the grader expects (never
whether it is right), and it lists broken math, any text that could not be placed, headings that
could name another question than the one they are in, and answers that seem to be under the wrong
question (:mod:`autograder.written.intent`). ``collect-submission`` repeats all of it
(:attr:`WrittenCheck.to_fix`) and zips nothing until it is fixed.
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from autograder.core.config import Assignment, ManualQuestion, Question
from autograder.written.answers import Answer, AnswerSheet, Unplaced, read_answers, read_markdown
from autograder.written.derivations.verdict import DerivationQuestion, describe
from autograder.written.formats import AnswerFormat, AnswerFormatError, NotAnsweredYet
from autograder.written.handout_data import declared_derivations, handout_data
from autograder.written.intent import Guesser
from autograder.written.labels import read_label, sort_key, split_label
from autograder.written.latex import scan


class QuestionStatus(BaseModel):
    id: str
    title: str
    points: float
    graded: str  # "automatically" or "by hand"
    where: str = ""  # where the answer was found; "" when it is missing
    note: str = ""  # what was read of an automatically graded answer, or why it cannot be
    readable: bool = True
    # A final formula the machine cannot read, in an answer graded by hand: advice, not a problem.
    formula_unread: bool = False


class WrittenCheck(BaseModel):
    source: str
    questions: list[QuestionStatus]
    unplaced: list[Unplaced]
    problems: list[str]

    @property
    def missing(self) -> list[str]:
        return [q.id for q in self.questions if not q.where]

    @property
    def to_fix(self) -> list[str]:
        """Everything to fix before submitting, each saying on which line: the problems, the
        answers that cannot be read as the grader expects, and text under no question that may be
        an answer (see :attr:`notes` for the rest)."""
        unreadable = [f"{q.id} ({q.where}): {q.note}" for q in self.questions if not q.readable]
        unplaced = [
            f"{u.where}: '{u.excerpt}' is not graded: {u.reason}. Put it under its "
            "question's heading (or a label starting a line: **(b)(ii)**, Q2b(ii):), or delete it if it is not "
            "an answer"
            for u in self.unplaced
            if not self._preamble(u)
        ]
        return sorted(self.problems + unreadable + unplaced, key=_line_order)

    @property
    def notes(self) -> list[str]:
        """Text above every answer that reads like no answer (a name, a title), and final formulas of
        answers graded by hand that the machine cannot read: no reason to refuse a submission."""
        formulas = [
            f"{q.id} ({q.where}): {q.note} (a TA grades it by hand either way; a final formula the "
            "machine can read is checked for them)"
            for q in self.questions
            if q.formula_unread
        ]
        return formulas + [
            f"{u.where}: '{u.excerpt}' is above every answer and not graded (fine for a name or a title)"
            for u in self.unplaced
            if self._preamble(u)
        ]

    def _preamble(self, item: Unplaced) -> bool:
        if "reads like an answer to" in item.reason:
            return False
        first = min((_line_order(q.where) for q in self.questions if q.where), default=None)
        return first is not None and _line_order(item.where) < first

    @property
    def clean(self) -> bool:
        return not self.missing and not self.to_fix


def check_answers(path: Path, assignment: Assignment) -> WrittenCheck:
    """Raises :class:`~autograder.written.answers.AnswersError` when the file cannot be read."""
    return check_sheet(read_answers(path, assignment.config), assignment)


def check_sheet(sheet: AnswerSheet, assignment: Assignment) -> WrittenCheck:
    """What to fix in the answers of ``sheet``."""
    config = assignment.config
    formats = handout_data(assignment).answer_formats
    statuses, problems = [], list(sheet.problems)
    derivations = declared_derivations(assignment)
    for question in sorted(config.written_questions, key=lambda q: sort_key(q.id)):
        statuses.append(_status(question, sheet, formats.get(question.id), derivations.get(question.id)))
        text = sheet.text(question.id)
        problems += [
            f"{question.id} ({sheet.answers[question.id].position(line)}): {message}"
            for line, message in (scan(text)[1] if text.strip() else [])
        ]
    guesser = Guesser.of(assignment)
    written_ids = [q.id for q in config.written_questions]
    for status in statuses:
        if status.where:
            problems += _headings_inside_cell(sheet.answers[status.id], written_ids)
            problems += _misplaced(sheet.answers[status.id], status, guesser)
    unplaced = [_with_guess(item, guesser) for item in sheet.unplaced]
    return WrittenCheck(source=sheet.source, questions=statuses, unplaced=unplaced, problems=problems)


def _status(
    question: Question | ManualQuestion,
    sheet: AnswerSheet,
    form: AnswerFormat | None,
    derivation: DerivationQuestion | None = None,
) -> QuestionStatus:
    """Where the answer to ``question`` is and, when it is graded automatically or ends in a final
    formula the machine checks, what was read of it (never whether it is right)."""
    by_hand = isinstance(question, ManualQuestion) and not question.auto_grade
    machine = "automatically" if isinstance(question, Question) else "by machine (its final formula)"
    status = QuestionStatus(
        id=question.id, title=question.title, points=question.points, graded="by hand" if by_hand else machine
    )
    text = sheet.text(question.id)
    if not text.strip():
        return status
    status.where = sheet.answers[question.id].where
    if derivation is not None:
        readable, status.note = describe(text, derivation, sheet.answers[question.id].position)
        if by_hand:
            status.formula_unread = not readable
        else:
            status.readable = readable
    if form is not None:
        try:
            status.note = form.describe(text)
        except NotAnsweredYet as error:
            status.where, status.note = "", str(error)
        except AnswerFormatError as error:
            status.note, status.readable = str(error), False
    return status


def _headings_inside_cell(answer: Answer, written_ids: list[str]) -> list[str]:
    """Headings inside a notebook answer cell that name or could name another question: the cell
    decides where its text goes, so they are reported as read_markdown reports them in a file."""
    if answer.headings or not answer.text:
        return []  # placed by headings: already checked while reading
    scratch = AnswerSheet(source="")
    text = "\n" * (answer.first_line - 1) + answer.text  # blank lines in front keep the cell's line numbers
    read_markdown(text, written_ids, scratch, where=answer.file, file=answer.file, opened=answer.question)
    return scratch.problems


def _misplaced(answer: Answer, status: QuestionStatus, guesser: Guesser) -> list[str]:
    """The question an answer more likely answers, when its form or a heading's title does not fit
    its own (the cases :mod:`autograder.written.intent` describes) and another fits clearly better."""
    question, headings = answer.question, answer.headings
    titles = [split_label(heading.title)[1] for heading in headings]
    disagree = [h for h, title in zip(headings, titles) if guesser.titles_disagree(title, question)]
    if status.readable and not disagree:
        return []
    label = read_label(headings[-1].title) if headings else None
    other = guesser.likelier(" ".join([answer.text, *titles]), question, label)
    if other is None:
        return []
    why = (
        "it does not have the form of that answer"
        if not status.readable
        else f"the title of {_short(disagree[0].title)!r} does not match that question"
    )
    likelier = f"it reads more like {other} ({guesser.title(other)})"
    if not headings:  # a notebook answer cell: only its form can disagree
        return [
            f"{answer.where}: the answer in the cell of {question} ({guesser.title(question)}) does not "
            f"have the form of that answer; {likelier}. If it answers {other}, move it to the answer "
            f"cell of {other}."
        ]
    own, *around = reversed(headings)
    under = "".join(f" under {_short(h.title)!r} (line {h.line})" for h in around)
    return [
        f"line {own.line}: {_short(own.title)!r}{under} is read as {question} "
        f"({guesser.title(question)}), but {why}; {likelier}. If it answers {other}, label its heading "
        f"'{other}' (or move the text under the heading of {other})."
    ]


def _with_guess(item: Unplaced, guesser: Guesser) -> Unplaced:
    """Text under no question, with the question it reads like when one fits clearly."""
    other = guesser.likelier(item.text, None, read_label(item.heading) if item.heading else None)
    if other is None:
        return item
    return item.model_copy(
        update={"reason": f"{item.reason}; it reads like an answer to {other} ({guesser.title(other)})"}
    )


def _line_order(message: str) -> tuple[int, int]:
    """Messages in the order of the file, so that a student can fix them top to bottom: each says
    where it is ("line 12", "cell 4, line 2", "2a-i (line 5 ...)"); those that do not come last."""
    found = re.search(r"(?:cell (\d+), )?line (\d+)", message)
    return (int(found[1] or 0), int(found[2])) if found else (10**9, 0)


def _short(title: str) -> str:
    return title if len(title) <= 30 else title[:29] + "…"


def print_check(check: WrittenCheck, console: Console | None = None) -> None:
    console = console or Console()
    table = Table(title=f"Written answers in {check.source}", title_justify="left")
    # Where the answer is and how it was read is the column a student reads: the title gives it room.
    for column in ("Q", "Question", "Points", "Graded", "Found at"):
        table.add_column(column, overflow="fold", max_width=24 if column == "Question" else None)
    for status in check.questions:
        found = escape(status.where) if status.where else "[red]not answered[/red]"
        if not status.readable:
            found += "\n[red]cannot be read as the grader expects: see 'To fix' below[/red]"
        elif status.formula_unread:
            found += "\n[yellow]a final formula of it is not read by machine: see the note below[/yellow]"
        elif status.note:
            found += f"\n[green]{escape(status.note)}[/green]"
        table.add_row(status.id, escape(status.title), f"{status.points:g}", status.graded, found)
    console.print(table)
    if check.to_fix:
        console.print("[bold]To fix:[/bold]")
        for problem in check.to_fix:
            console.print(f"  {escape(problem)}", highlight=False)
    for note in check.notes:
        console.print(f"Note: {escape(note)}", highlight=False)
    answered = len(check.questions) - len(check.missing)
    summary = f"{answered} of {len(check.questions)} written questions answered"
    unreadable = [q.id for q in check.questions if not q.readable]
    if unreadable:
        summary += f"; cannot be read as the grader expects: {', '.join(unreadable)}"
    if check.to_fix:
        summary += f"; {len(check.to_fix)} problem{'s' if len(check.to_fix) > 1 else ''} to fix"
    console.print(("[green]" if check.clean else "[yellow]") + escape(summary) + ".")
    if check.missing and not check.to_fix:  # why the exit status is 1 while nothing is to fix
        console.print(
            f"The exit status is 1 until every question has an answer (not yet: {', '.join(check.missing)}).",
            highlight=False,
        )
