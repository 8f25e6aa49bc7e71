"""The tables printed after grading: one submission's questions, or a whole class's statistics."""

from __future__ import annotations

from typing import cast

from rich.console import Console, JustifyMethod
from rich.markup import escape
from rich.table import Table

from autograder.core.results import GradescopeResults
from autograder.course.gradebook import QuestionStats
from autograder.grading.grade import QuestionSummary

_STYLE = {"passed": "green", "partial": "yellow", "failed": "red", "hidden": "dim", "pending": "cyan"}


def _points(value: float) -> str:
    return f"{value:g}" if value == int(value) else f"{value:.2f}"


def print_table(
    title: str,
    summaries: list[QuestionSummary],
    results: GradescopeResults,
    console: Console | None = None,
    verbose: bool = False,
) -> None:
    console = console or Console()
    table = Table(title=title, title_justify="left", show_lines=False)
    for column, justify in (
        ("Q", "left"),
        ("Question", "left"),
        ("Score", "right"),
        ("Status", "left"),
        ("Reason", "left"),
    ):
        table.add_column(column, justify=cast(JustifyMethod, justify), overflow="fold")
    for summary in summaries:
        style = _STYLE[summary.status]
        table.add_row(
            summary.id,
            escape(summary.title),
            f"{_points(summary.score)} / {_points(summary.max_score)}",
            f"[{style}]{summary.status}[/{style}]",
            escape(summary.reason[:160]),
        )
    console.print(table)
    pending = sum(summary.pending for summary in summaries)
    console.print(
        f"[bold]Total: {_points(results.score)} / {_points(results.max_score)}[/bold]  ({results.execution_time:.1f} s)"
        + (
            f"\n{_points(pending)} more points are pending: those tests wait for a function of another "
            "question to be fixed (see them below)"
            if pending
            else ""
        )
    )
    if results.output:
        console.print(results.output, markup=False, highlight=False)
    if verbose:
        for test in results.tests:
            # a passed test that says something (graded with the reference's helper) is shown too
            if test.status == "failed" or test.output.strip():
                console.print(
                    f"\n[bold]{test.number} {escape(test.name)}[/bold] "
                    f"({_points(test.score)}/{_points(test.max_score)})",
                    highlight=False,
                )
                console.print(test.output, markup=False, highlight=False)


def print_statistics(title: str, stats: list[QuestionStats], console: Console | None = None) -> None:
    """Mean, median, spread and full-mark share per question, the total last."""
    console = console or Console()
    table = Table(title=title, title_justify="left")
    table.add_column("Q")
    table.add_column("Question", overflow="fold")
    for column in ("Points", "Mean", "Median", "Std", "Min", "Max", "Full marks"):
        table.add_column(column, justify="right", no_wrap=True)  # the title folds instead
    for line in stats:
        style = "bold" if line.question == "total" else ""
        table.add_row(
            line.question,
            escape(line.title),
            _points(line.points),
            f"{line.mean:.2f}",
            _points(line.median),
            f"{line.std:.2f}",
            _points(line.min),
            _points(line.max),
            f"{line.full_marks:.0%}",
            style=style,
            end_section=line is stats[-2],
        )
    console.print(table)
