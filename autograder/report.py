"""The per-question table printed after grading."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from autograder.grading import QuestionSummary
from autograder.results import GradescopeResults

_STYLE = {"passed": "green", "partial": "yellow", "failed": "red"}


def _points(value: float) -> str:
    return f"{value:g}" if value == int(value) else f"{value:.2f}"


def print_table(title: str, summaries: list[QuestionSummary], results: GradescopeResults,
                console: Console | None = None, verbose: bool = False) -> None:
    console = console or Console()
    table = Table(title=title, title_justify="left", show_lines=False)
    for column, justify in (("Q", "left"), ("Question", "left"), ("Score", "right"),
                            ("Status", "left"), ("Reason", "left")):
        table.add_column(column, justify=justify, overflow="fold")
    for summary in summaries:
        style = _STYLE[summary.status]
        table.add_row(summary.id, escape(summary.title),
                      f"{_points(summary.score)} / {_points(summary.max_score)}",
                      f"[{style}]{summary.status}[/{style}]", escape(summary.reason[:160]))
    console.print(table)
    console.print(f"[bold]Total: {_points(results.score)} / {_points(results.max_score)}[/bold]"
                  f"  ({results.execution_time:.1f} s)")
    if results.output:
        console.print(results.output, markup=False, highlight=False)
    if verbose:
        for test in results.tests:
            if test.status == "failed":
                console.print(f"\n[bold]{test.number} {escape(test.name)}[/bold] "
                              f"({_points(test.score)}/{_points(test.max_score)})", highlight=False)
                console.print(test.output, markup=False, highlight=False)
