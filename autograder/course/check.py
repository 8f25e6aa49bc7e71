"""``python -m autograder check``: the public tests on a student's own files, as Gradescope runs them.

In the student bundle the expected values come from the recording made by ``release``; in the
repository, from the reference. Either way the student's code runs in the same worker process with
the same limits, so the messages are the ones Gradescope will show (off Linux, in a plain subprocess
per question, with the same time limits and messages but without the Linux worker's protections:
:mod:`autograder.boundary.portable_session`). What this cannot check is said plainly: the points of the hidden tests,
and the written answers graded by hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from autograder.boundary.isolation import Isolation
from autograder.core.config import Assignment
from autograder.core.results import GradescopeResults
from autograder.course.report import print_table
from autograder.grading.expected import RecordedReference
from autograder.grading.grade import grade, question_of, summarize
from autograder.grading.runner import collect_tests


@dataclass(frozen=True)
class SelfCheck:
    results: GradescopeResults
    hidden: dict[str, float]  # question id -> points in hidden tests (only those with some)
    module: str = ""  # with --only: the file whose functions' tests these are

    @property
    def passed(self) -> bool:
        return all(test.status == "passed" for test in self.results.tests)

    def only(self, module: str) -> SelfCheck:
        """The tests of ``module``'s functions (those tagged ``module.*``): a file's self-check."""
        tests = [t for t in self.results.tests if any(tag.startswith(f"{module}.") for tag in t.tags)]
        questions = {question_of(t.number) for t in tests}
        results = self.results.model_copy(update={"tests": tests, "score": round(sum(t.score for t in tests), 9),
                                                  "output": ""})  # fmt: skip
        return SelfCheck(results, {q: p for q, p in self.hidden.items() if q in questions}, module)


def run_check(assignment: Assignment, folder: Path, isolation: Isolation | None = None) -> SelfCheck:
    """``isolation``: how the workers run (by default as :func:`autograder.boundary.isolation.detect_isolation`
    decides: the Linux worker, or off Linux the portable path's plain subprocesses)."""
    expected = RecordedReference(assignment.recording) if assignment.in_bundle else None
    results = grade(assignment, folder, include_hidden=False, expected=expected, isolation=isolation)
    public = collect_tests(assignment, False, expected.test_weights() if expected else None)
    hidden = {q.id: q.points - sum(t.weight for t in public[q.id]) for q in assignment.config.questions}
    return SelfCheck(results, {q: p for q, p in hidden.items() if p > 1e-9})


def _points(value: float) -> str:
    return f"{value:g}"


def print_check(assignment: Assignment, folder: Path, check: SelfCheck, console: Console | None = None) -> None:
    console = console or Console()
    shown = {question_of(t.number) for t in check.results.tests}
    print_table(
        f"Public tests of {check.module + '.py in ' if check.module else ''}{assignment.config.title}: {folder}",
        [s for s in summarize(assignment.config, check.results) if not check.module or s.id in shown],
        check.results,
        console=console,
        verbose=True,
    )
    total = sum(check.hidden.values())
    console.print()
    if total:
        listed = ", ".join(f"{q}: {_points(p)}" for q, p in check.hidden.items())
        console.print(
            f"[bold]Not checked here:[/bold] {_points(total)} more points are in hidden tests that "
            f"Gradescope runs after the deadline (by question: {listed}). Passing every public test does "
            "not mean full marks.",
            highlight=False,
        )
    config = assignment.config
    if check.module:
        return  # a file's self-check: the written questions are check-written's
    by_hand = sum(q.points for q in config.manual_questions if not q.auto_grade)
    by_machine = [q for q in config.manual_questions if q.auto_grade]
    if by_hand or by_machine:
        parts = [f"the written questions graded by hand ({_points(by_hand)} points)"] if by_hand else []
        if by_machine:
            parts.append(
                f"the {_points(sum(q.points for q in by_machine))} points of written answers checked by machine "
                f"after the deadline ({', '.join(q.id for q in by_machine)})"
            )
        console.print(
            f"Not checked either: {' and '.join(parts)}; check that your written answers can be read with: "
            f"python -m autograder check-written {assignment.name} ANSWERS",
            highlight=False,
        )
