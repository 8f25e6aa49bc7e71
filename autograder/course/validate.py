"""``validate NAME``: the checks the framework has on one assignment, run in turn, each saying what
holds or, where it does not, what to do. Otter has ``otter assign`` and nbgrader ``nbgrader
validate``; this is ours: one command that says an assignment is ready to release.

Each check is a small function of the assignment that returns what it :class:`Found`; one that fails
does not stop the others, so a TA reads every problem at once. What takes minutes (the mutation
analysis, the Gradescope zip installed in a fresh environment) is named with its command instead.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from autograder.core.config import REPO_ROOT, Assignment, ConfigError, load_assignment
from autograder.core.errors import AutograderError


@dataclass(frozen=True)
class Outcome:
    check: str
    ok: bool | None  # None: not run here (``fix`` says how to run it)
    detail: str
    fix: str = ""


@dataclass(frozen=True)
class Found:
    """What a check found: whether it holds (None: not run), what it saw, and what to do."""

    ok: bool | None
    detail: str
    fix: str = ""


Check = Callable[[Assignment], Found]


def _points(assignment: Assignment) -> Found:
    config = assignment.config
    by_hand = sum(q.points for q in config.manual_questions if not q.auto_grade)
    machine = [q for q in config.manual_questions if q.auto_grade]
    read = (
        f", {len(machine)} derivations scored by machine ({sum(q.points for q in machine):g} points)" if machine else ""
    )
    return Found(
        True,
        f"{len(config.questions)} questions scored by tests ({config.total_points:g} points){read}, "
        f"{by_hand:g} points graded by hand; results.json out of {config.graded_points:g}",
    )


def _notation(assignment: Assignment) -> Found:
    from autograder.grading.derivation_grading import derivations_to_judge

    try:
        questions = derivations_to_judge(assignment)
    except ConfigError as error:
        return Found(False, str(error), "each line says what to write instead")
    return Found(True, f"derivation questions read by machine: {len(questions)}")


def _ready(assignment: Assignment) -> Found:
    """The tests and the starter's given files against the config: check_ready's other parts, the
    derivations being the row above."""
    from autograder.grading.grade import worker_spec
    from autograder.grading.runner import collect_tests

    try:
        collect_tests(assignment)
        worker_spec(assignment, {})
    except ConfigError as error:
        return Found(False, str(error), "each line names the file and line to fix")
    return Found(True, "the tests and the starter's given files fit the config")


def _handouts(assignment: Assignment) -> Found:
    from autograder.handout.handouts import build, stale

    outdated = stale(build(assignment))
    if outdated:
        return Found(
            False,
            "out of date: " + ", ".join(p.name for p in outdated),
            f"python -m autograder handouts {assignment.name}",
        )
    return Found(True, "the notebook, answer sheet and figures match the source")


def _graded(assignment: Assignment, folder: Path) -> tuple[float, float, str | None]:
    from autograder.boundary.isolation import detect_isolation
    from autograder.grading.grade import grade_or_fallback

    results, crash = grade_or_fallback(assignment, folder, isolation=detect_isolation())
    possible = sum(t.max_score or 0 for t in results.tests)
    return results.score, possible, crash


def _reference(assignment: Assignment) -> Found:
    score, possible, crash = _graded(assignment, assignment.solution_dir)
    if crash or score < possible:
        return Found(
            False,
            f"{score:g} / {possible:g}" + (" (the grading crashed)" if crash else ""),
            f"python -m autograder grade {assignment.name} solutions/{assignment.name} -v: it says which test fails",
        )
    return Found(True, f"{score:g} / {possible:g}")


def _starter(assignment: Assignment) -> Found:
    score, possible, crash = _graded(assignment, assignment.starter_dir)
    if crash or score:
        return Found(
            False,
            f"{score:g} / {possible:g}" + (" (the grading crashed)" if crash else ""),
            "a test that the starter passes checks nothing; python -m autograder grade "
            f"{assignment.name} assignment/{assignment.name} -v",
        )
    return Found(True, f"0 / {possible:g}")


def _formulas(assignment: Assignment) -> Found:
    from autograder.written.answers import read_answers
    from autograder.written.derivations.verdict import judge
    from autograder.written.handout_data import derivation_questions

    questions = derivation_questions(assignment)
    if not questions:
        return Found(None, "no derivation read by machine")
    answers = assignment.root / "solutions" / "written" / f"{assignment.name}.md"
    sheet = read_answers(answers, assignment.config)
    wrong = [f"{q}: {v.summary()}" for q, d in questions.items() if (v := judge(sheet.text(q), d)).status != "equal"]
    if wrong:
        return Found(
            False,
            "; ".join(wrong),
            "the notation in handout.py, the formula in reference_formulas.py or the answer in the reference "
            "answers is wrong",
        )
    return Found(True, f"judged equal in {', '.join(questions)}")


def _bundle(assignment: Assignment) -> Found:
    from autograder.course.release import leaks, write_bundle

    with tempfile.TemporaryDirectory(prefix=f"validate-{assignment.name}-") as folder:
        bundle = Path(folder) / "bundle"
        write_bundle(assignment, bundle, with_data=False)
        found = leaks(assignment, bundle)
        if found:
            return Found(False, "; ".join(found), "see docs/authoring-guide.md")
        for name in assignment.config.submission_files:
            shutil.copy(assignment.solution_dir / name, bundle / name)
        checked = _run(bundle, "check", assignment.name)
    if checked.returncode != 0:
        return Found(
            False,
            checked.stdout[-400:].strip(),
            f"python -m autograder release {assignment.name} --out DIR, then check in DIR",
        )
    return Found(True, "as students run it")


def _run(folder: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "autograder", *arguments], cwd=folder, capture_output=True, text=True, timeout=600
    )


def _lint(assignment: Assignment) -> Found:
    package = assignment.root / "autograder" / "assignments" / assignment.name
    problems = [
        "\n".join(done.stdout.strip().splitlines()[:3])  # where each problem is; ruff --fix says the rest
        for command in (["check", "-q"], ["format", "--check", "-q"])
        if (
            done := subprocess.run(
                [sys.executable, "-m", "ruff", *command, str(package)], capture_output=True, text=True
            )
        ).returncode
    ]
    if problems:
        ruff = f"{sys.executable} -m ruff"
        return Found(
            False, "\n".join(problems), f"{ruff} format {package}; then {ruff} check {package} says what is left"
        )
    return Found(True, f"ruff is clean on autograder/assignments/{assignment.name}")


def _not_here(assignment: Assignment) -> Found:
    # The suite's end-to-end tier (planted bugs, the zip in the simulated Gradescope, hostile modules,
    # grade-batch, the bundle) and the index's wheels; the mutation benchmark has scenarios only for
    # the shipped assignments.
    suite = f'.venv/bin/python -m pytest -m "slow or index or not (realdata or slow or index)" -k {assignment.name}'
    mutation = "; benchmarks/mutation.py" if assignment.name in ("word2vec", "parser") else ""
    return Found(None, "minutes each: not run by validate", suite + mutation)


# The first three read the assignment's files; while one of them fails, the checks that grade or
# release would only say the same problem again (a grading that crashes on it), so they wait.
_PREREQUISITES = 3
CHECKS: tuple[tuple[str, Check, bool], ...] = (  # (title, check, whether it waits for the prerequisites)
    ("config and points", _points, False),
    ("the notation of derivations", _notation, False),
    ("the tests fit the config", _ready, False),
    ("lint and format", _lint, False),
    ("generated handouts up to date", _handouts, True),
    ("the reference answers' final formulas", _formulas, True),
    ("the reference gets full marks", _reference, True),
    ("the starter gets 0 without a crash", _starter, True),
    ("the bundle: nothing given away, its check passes the reference", _bundle, True),
    ("bugs charged to their question; the Gradescope zip installed", _not_here, False),
)


def validate(name: str) -> list[Outcome]:
    """Every check of :data:`CHECKS` on the assignment ``name``, in order; an error in one is its
    outcome, and the others still run."""
    try:
        assignment = load_assignment(name)
    except ConfigError as error:
        config = REPO_ROOT / "autograder" / "assignments" / name / "config.yaml"
        fix = f"fix {config}" if config.is_file() else f"check the name, or start one: python -m autograder new {name}"
        waiting = [Outcome(title, None, "not run: the config above must be fixed first") for title, _, _ in CHECKS[1:]]
        return [Outcome(CHECKS[0][0], False, str(error), fix), *waiting]
    outcomes: list[Outcome] = []
    for title, check, waits in CHECKS:
        if waits and any(o.ok is False for o in outcomes[:_PREREQUISITES]):
            found = Found(None, "not run: what the files above say must be fixed first")
        else:
            try:
                found = check(assignment)
            except (AutograderError, OSError, subprocess.SubprocessError) as error:
                found = Found(False, f"{type(error).__name__}: {error}")
        outcomes.append(Outcome(title, found.ok, found.detail, found.fix))
    return outcomes


_MARKS = {True: "[green]yes[/green]", False: "[red]no[/red]", None: "[yellow]not run[/yellow]"}
_TABLE_WIDTH = 120  # narrower, a table's columns would cut paths and commands mid-word: a list instead


def print_outcomes(name: str, outcomes: list[Outcome], console: Console | None = None) -> None:
    console = console or Console()
    if console.width < _TABLE_WIDTH:
        console.print(f"validate {name}")
        for outcome in outcomes:
            console.print(f"{_MARKS[outcome.ok]}: {escape(outcome.check)}", highlight=False)
            for label, text in (("found", outcome.detail), ("to do", outcome.fix)):
                if text:
                    console.print(f"    {label}: {escape(text)}", highlight=False)
    else:
        table = Table(title=f"validate {name}", title_justify="left")
        for column in ("check", "holds", "what it found", "what to do"):
            table.add_column(column, overflow="fold")
        for outcome in outcomes:
            table.add_row(outcome.check, _MARKS[outcome.ok], escape(outcome.detail), escape(outcome.fix))
        console.print(table)
    failed = [o.check for o in outcomes if o.ok is False]
    console.print(
        f"[red]{len(failed)} failed: {', '.join(failed)}[/red]" if failed else "[green]ready to release[/green]"
    )
