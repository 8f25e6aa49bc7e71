"""``check-written``: what a student should fix in their written answers before submitting.

For every written question it says where the answer was found (or that it is missing), for the
automatically graded ones whether the answer can be read in the form the grader expects (never
whether it is right), and it lists broken math and any text that could not be placed.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from autograder.config import Assignment, Question
from autograder.handout.data import handout_data
from autograder.written.answers import AnswerSheet, Unplaced, read_answers
from autograder.written.formats import AnswerFormatError, NotAnsweredYet
from autograder.written.labels import sort_key
from autograder.written.latex import scan


class QuestionStatus(BaseModel):
    id: str
    title: str
    points: float
    graded: str  # "automatically" or "by hand"
    where: str  # where the answer was found; "" when it is missing
    note: str = ""  # what was read of an automatically graded answer, or why it cannot be
    readable: bool = True


class WrittenCheck(BaseModel):
    source: str
    questions: list[QuestionStatus]
    unplaced: list[Unplaced]
    problems: list[str]

    @property
    def missing(self) -> list[str]:
        return [q.id for q in self.questions if not q.where]

    @property
    def clean(self) -> bool:
        return not self.missing and not self.problems and all(q.readable for q in self.questions)


def _location(sheet: AnswerSheet, question: str, line: int) -> str:
    answer = sheet.answers[question]
    absolute = answer.first_line + line - 1
    return f"{answer.file}, line {absolute}" if answer.file else f"line {absolute}"


def check_answers(path: Path, assignment: Assignment) -> WrittenCheck:
    """Raises :class:`~autograder.written.answers.AnswersError` when the file cannot be read."""
    config = assignment.config
    sheet = read_answers(path, config)
    formats = handout_data(assignment).answer_formats
    statuses, problems = [], list(sheet.problems)
    for question in sorted(config.written_questions, key=lambda q: sort_key(q.id)):
        automatic = isinstance(question, Question)
        status = QuestionStatus(id=question.id, title=question.title, points=question.points,
                                graded="automatically" if automatic else "by hand", where="")
        text = sheet.text(question.id)
        if text.strip():
            status.where = sheet.answers[question.id].where
            for line, message in scan(text)[1]:
                problems.append(f"{question.id} ({_location(sheet, question.id, line)}): {message}")
            form = formats.get(question.id)
            if form is not None:
                try:
                    status.note = form.describe(text)
                except NotAnsweredYet as error:
                    status.where, status.note = "", str(error)
                except AnswerFormatError as error:
                    status.note, status.readable = str(error), False
        statuses.append(status)
    return WrittenCheck(source=sheet.source, questions=statuses, unplaced=sheet.unplaced, problems=problems)


def print_check(check: WrittenCheck, console: Console | None = None) -> None:
    console = console or Console()
    table = Table(title=f"Written answers in {check.source}", title_justify="left")
    for column in ("Q", "Question", "Points", "Graded", "Found at"):
        table.add_column(column, overflow="fold")
    for status in check.questions:
        found = escape(status.where) if status.where else "[red]not answered[/red]"
        if status.note:
            style = "red" if not status.readable else ("green" if status.where else "yellow")
            found += f"\n[{style}]{escape(status.note)}[/{style}]"
        table.add_row(status.id, escape(status.title), f"{status.points:g}", status.graded, found)
    console.print(table)
    if check.problems:
        console.print("[bold]To fix:[/bold]")
        for problem in check.problems:
            console.print(f"  {escape(problem)}", highlight=False)
    if check.unplaced:
        console.print("[bold]Not placed under any question (not graded):[/bold]")
        for item in check.unplaced:
            console.print(f"  {escape(item.where)}: {escape(item.excerpt)}", highlight=False)
    answered = len(check.questions) - len(check.missing)
    summary = f"{answered} of {len(check.questions)} written questions answered"
    unreadable = [q.id for q in check.questions if not q.readable]
    if unreadable:
        summary += f"; cannot be read as the grader expects: {', '.join(unreadable)}"
    if check.problems:
        summary += f"; {len(check.problems)} problem{'s' if len(check.problems) > 1 else ''} to fix"
    console.print(("[green]" if check.clean else "[yellow]") + escape(summary) + ".")
