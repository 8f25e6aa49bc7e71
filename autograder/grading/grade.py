"""Grades one submission: the trusted side of the trust boundary, end to end.

First one worker imports every submitted module (the import check of :mod:`autograder.grading.preflight`);
then for each question of the config, a fresh worker (with that question's time budget) runs the
student's code; the tests in this process compare its raw outputs with the reference. Every worker
is forked by one fork server per grading (:mod:`autograder.boundary.fork_client`); on the portable path (off
Linux, for the self-check: :mod:`autograder.boundary.isolation`) each is a plain subprocess instead
(:mod:`autograder.boundary.portable_session`). The assembled results always list every declared question with its
full points, whatever happened.
"""

from __future__ import annotations

import math
import re
import time
import traceback
from contextlib import ExitStack
from dataclasses import dataclass, replace
from functools import cache, partial
from pathlib import Path
from types import SimpleNamespace

from autograder.boundary.fork_client import OTHER_MEMORY_FILL, ForkServer
from autograder.boundary.isolation import Isolation, detect_isolation
from autograder.boundary.leftovers import remove_leftovers
from autograder.boundary.preload import library_imports
from autograder.boundary.session import Session, SessionFactory, WorkerSession, WorkerSpec, remove_folder
from autograder.core.config import PACKAGE_ROOT, Assignment, AssignmentConfig, ConfigError, Question
from autograder.core.results import GradescopeResults, TestResult
from autograder.core.submission import locate
from autograder.grading.derivation_grading import EXTRA_KEY, auto_graded_rows, derivations_to_judge, verdicts
from autograder.grading.expected import LiveReference, ReferenceCalls, load_fixtures
from autograder.grading.preflight import broken_imports
from autograder.grading.reference import load_reference
from autograder.grading.runner import PRINTED, collect_tests, run_tests
from autograder.grading.testing import TestContext
from autograder.written.answers import submitted_answers


@dataclass(frozen=True)
class QuestionSummary:
    id: str
    title: str
    score: float
    max_score: float
    reason: str
    pending: float = 0.0  # points of tests the bundle's check leaves pending (carried_forward.pending_row)

    @property
    def status(self) -> str:
        if self.max_score == 0:  # a question with hidden tests only, in the public check
            return "hidden"
        if self.score >= self.max_score - 1e-9:
            return "passed"
        if self.score + self.pending >= self.max_score - 1e-9:
            return "pending"
        return "partial" if self.score > 0 else "failed"


# The worker's scratch folder (sandbox.py, portable.py: mkdtemp(prefix="ag-worker-")) has a random name;
# it shows up where the student's code prints a path (warnings name the file). Cut it, as the worker
# already does in tracebacks, so that the same submission always gets the same feedback. On Windows
# (the portable path) it is C:\Users\A Student\...\Temp\ag-worker-...\, spaces and all.
_SCRATCH_PATH = re.compile(
    r"(?:(?:/[^/\s'\"]+)*/"  # POSIX
    r"|[A-Za-z]:(?:\\[^\\/:*?\"<>|\r\n]+)*\\)"  # Windows
    r"ag-worker-[A-Za-z0-9_]+[\\/]"
)


# What a failing test's feedback shows of values built on memory read before it is written: the
# worker's fill as a float64 (1.38e+306), or inf and NaN that arithmetic on it makes.
_FILLED = re.compile(r"\de\+30\d|\binf\b|\bnan\b|\bNaN\b", re.IGNORECASE)


# A warning the student's code sets off inside a probe names the probe's file and line, under the
# grader's own folder: the student reads that it was in the autograder's test code, not where that
# lives. (What the student's code prints itself is left as it is.)
_FRAMEWORK_FILE = re.compile(re.escape(str(PACKAGE_ROOT)) + r"[^\s:'\"]*\.py:\d+(?=: \w+Warning)")


def _paths_removed(output: str) -> str:
    return _FRAMEWORK_FILE.sub("(the autograder's test code)", _SCRATCH_PATH.sub("", output))


def question_of(number: str) -> str:
    return number.split(".", 1)[0]


def worker_spec(assignment: Assignment, student_files: dict[str, Path]) -> WorkerSpec:
    """The files a worker gets: the student's, plus the starter's given support files."""
    files = dict(student_files)
    for name in assignment.config.support_files:
        files[name] = assignment.starter_dir / name
        if not files[name].exists():
            raise ConfigError(
                f"the starter's given file {files[name]} is missing; generate the starter "
                f"with: python -m autograder release {assignment.name} "
                f"--out {assignment.starter_dir} --force --starter-only"
            )
    return WorkerSpec(files=files, fixtures_module=assignment.fixtures_module, limits=assignment.config.limits)


def check_ready(assignment: Assignment) -> None:
    """Raises ConfigError when the course's own files cannot grade any submission (the tests and the
    config disagree, the starter's given files are missing, an auto-graded question has no final
    formula), so that whoever runs ``grade`` reads one error saying what to do, not the same reason
    in every question of a 0."""
    collect_tests(assignment)
    worker_spec(assignment, {})
    derivations_to_judge(assignment)


def grade(
    assignment: Assignment,
    submission_dir: Path,
    *,
    include_hidden: bool = True,
    reference: SimpleNamespace | None = None,
    isolation: Isolation | None = None,
    expected: ReferenceCalls | None = None,
    sessions: SessionFactory | None = None,
) -> GradescopeResults:
    """``isolation``: how workers run; by default every protection this machine allows (off Linux,
    the portable path's plain subprocesses, which only the self-check may take).
    ``expected``: what answers the public tests' ``self.expect``; by default the reference solution
    (the student bundle, which has none, passes its recording).
    ``sessions``: for benchmarks only, which time the same grading with the student's code run in
    this process (benchmarks/in_process.py) to measure what the workers cost. Nothing else may set
    it: without workers, the student's code runs with every right of the grader."""
    started = time.monotonic()
    config = assignment.config
    submission = locate(submission_dir, config.submission_files)
    isolation = isolation or detect_isolation()
    remove_leftovers(remove_folder)  # the worker folders of a grading that was killed outright
    with ExitStack() as stack:
        if sessions is None and isolation.portable:
            from autograder.boundary.portable_session import PortableSession  # the self-check off Linux only

            sessions = PortableSession
        elif sessions is None:
            # Entered first: the fork server's imports then run while this process loads the tests,
            # the reference and the answers below. One for the import check and every question.
            forkserver = stack.enter_context(
                ForkServer(isolation.python, assignment.fixtures_module, _preload(assignment))
            )
            sessions = partial(WorkerSession, forkserver=forkserver)
        tests = collect_tests(assignment, include_hidden, expected.test_weights() if expected else None)
        if reference is None and (include_hidden or expected is None):
            reference = load_reference(assignment.solution_dir, module_names(config))
        fixtures = load_fixtures(assignment)
        if expected is None:
            assert reference is not None  # loaded above
            expected = LiveReference(reference, fixtures)
        derivations = derivations_to_judge(assignment) if include_hidden else {}
        answers = submitted_answers(submission.folder, config, derivations=bool(derivations))
        spec = replace(worker_spec(assignment, submission.found), isolation=isolation)
        submitted = [name for name in module_names(config) if f"{name}.py" in submission.found]
        spec = replace(spec, blocked_modules=broken_imports(spec, submitted, config.limits.import_time_limit, sessions))
        rows: list[TestResult] = []
        settled: set[str] = set()  # questions graded so far with full marks (error carried forward)
        helpers = expected.helper_source()  # once: in the bundle it decodes the whole recording
        for question in config.questions:
            context = TestContext(
                ref=reference,
                reference=expected,
                answers=answers,
                settled=frozenset(settled),
                helpers=helpers,
                limits=config.limits,
            )
            mine = _graded_question(question, tests[question.id], context, spec, sessions)
            if all(row.score >= row.max_score - 1e-9 for row in mine):
                settled.add(question.id)
            rows += mine
    found = verdicts(derivations, answers)
    rows += auto_graded_rows(config, found)
    output = "\n".join(note for note in (submission.note, answers.note) if note)
    results = assemble(config, rows, output=output, seconds=time.monotonic() - started, include_hidden=include_hidden)
    if found:
        results.extra_data[EXTRA_KEY] = {question: verdict.model_dump() for question, verdict in found.items()}
    return results


def _graded_question(
    question: Question, tests: list, context: TestContext, spec: WorkerSpec, sessions: SessionFactory
) -> list[TestResult]:
    """The rows of one question's tests. When a test lost points with values that look like the
    bytes memory read before it is written holds (autograder.worker.memory: about 1.4e306, or what
    arithmetic on it gives, inf and NaN), the question runs once more with zeros there; a test whose
    score or verdict changes with them says so, and keeps the first grading's score."""
    with ExitStack() as stack:
        worker = stack.enter_context(sessions(spec, question.time_limit, question.id))

        @cache
        def spare() -> Session:
            """A second session with the question's whole time limit, for the reruns with other
            questions' helpers once the first ran out: a helper's endless loop (a bug of another
            question) must not use up this question's time."""
            return stack.enter_context(sessions(spec, question.time_limit, question.id))

        rows = run_tests(tests, replace(context, worker=worker, spare_worker=spare))
        timed_out = getattr(worker, "timed_out_on", None) is not None
    suspect = [row for row in rows if row.score < row.max_score - 1e-9 and _FILLED.search(row.output)]
    if timed_out or not suspect:
        return rows
    with sessions(replace(spec, memory_fill=OTHER_MEMORY_FILL), question.time_limit, question.id) as worker:
        again = run_tests(tests, replace(context, worker=worker))
    return [_memory_note(row, other) for row, other in zip(rows, again)]


def _memory_note(row: TestResult, other: TestResult) -> TestResult:
    verdict, other_verdict = (r.output.split(PRINTED, 1)[0] for r in (row, other))
    if abs(row.score - other.score) <= 1e-9 and verdict == other_verdict:
        return row
    note = (
        f"Your result depends on memory your code reads before it writes it: graded again with other "
        f"bytes there (zeros), this test scored {other.score:g} instead of {row.score:g}. "
        "np.empty and np.empty_like give whatever bytes lie in memory; use np.zeros, or set every "
        "entry before reading it. The grade is the first one, the same in every grading."
    )
    return row.model_copy(update={"output": f"{row.output}\n{note}".strip()})


def _preload(assignment: Assignment) -> list[str]:
    """The libraries the fork server imports for every worker (see :mod:`autograder.boundary.preload`)."""
    if assignment.in_bundle:  # its starter folder holds the student's own files
        return []
    return library_imports([assignment.solution_dir, assignment.starter_dir], module_names(assignment.config))


def grade_or_fallback(
    assignment: Assignment,
    submission_dir: Path,
    *,
    include_hidden: bool = True,
    reference: SimpleNamespace | None = None,
    isolation: Isolation | None = None,
) -> tuple[GradescopeResults, str | None]:
    """:func:`grade`, or when it raises, the fallback results and the traceback for the grader's log."""
    started = time.monotonic()
    try:
        return grade(
            assignment, submission_dir, include_hidden=include_hidden, reference=reference, isolation=isolation
        ), None
    except Exception as exc:  # whatever went wrong, there are still valid results to write
        reason = f"{type(exc).__name__}: {exc}"
        return fallback_results(assignment.config, reason, time.monotonic() - started), traceback.format_exc()


def stopped_results(config: AssignmentConfig, stop: KeyboardInterrupt, seconds: float) -> GradescopeResults:
    """What a grading stopped from outside (Ctrl-C, SIGTERM) writes: the fallback, saying so."""
    return fallback_results(
        config, f"the grading was stopped before it finished ({str(stop) or 'Ctrl-C'}); grade it again", seconds
    )


def module_names(config: AssignmentConfig) -> list[str]:
    return [Path(name).stem for name in config.submission_files if name.endswith(".py")]


def assemble(
    config: AssignmentConfig,
    rows: list[TestResult],
    *,
    output: str = "",
    seconds: float = 0.0,
    include_hidden: bool = True,
) -> GradescopeResults:
    """Validated results in which every question carries exactly its declared points."""
    tests = [row.model_copy(update={"output": _paths_removed(row.output)}) for row in rows]
    for question in config.questions:
        mine = [t for t in tests if question_of(t.number) == question.id]
        declared = sum(t.max_score for t in mine)
        if declared > question.points + 1e-9:
            raise AssertionError(
                f"question {question.id}: tests are worth {declared:g} points, more than its {question.points:g}"
            )
        if include_hidden and declared < question.points - 1e-9:
            tests.append(
                TestResult(
                    name=f"{question.title}: tests that did not run",
                    number=f"{question.id}.999",
                    score=0.0,
                    max_score=question.points - declared,
                    status="failed",
                    output="These points could not be graded (a test did not report a result).",
                    visibility=question.visibility,
                )
            )
    return GradescopeResults(
        score=round(math.fsum(t.score for t in tests), 9), execution_time=round(seconds, 3), output=output, tests=tests
    )


def fallback_results(config: AssignmentConfig, reason: str, seconds: float = 0.0) -> GradescopeResults:
    """What is written when grading could not run at all: every question, zero, and why."""
    tests = [
        TestResult(
            name=f"{q.title}",
            number=f"{q.id}.0",
            score=0.0,
            max_score=q.points,
            status="failed",
            output=reason,
            visibility=q.visibility,
        )
        for q in config.questions
    ]
    return GradescopeResults(
        score=0.0,
        execution_time=round(seconds, 3),
        output="The autograder could not grade this submission:\n" + reason,
        tests=tests,
    )


def summarize(config: AssignmentConfig, results: GradescopeResults) -> list[QuestionSummary]:
    """Per question results.json scores (the config's, then written ones auto-graded): its points and
    why it lost some."""
    summaries = []
    for question in config.scored_questions:
        mine = [t for t in results.tests if question_of(t.number) == question.id]
        failing = [t for t in mine if t.status == "failed"]
        failing.sort(key=lambda t: bool(t.extra_data.get("pending")))  # a test's own failure first
        reason = ""
        if failing:
            first_line = next((line for line in failing[0].output.splitlines() if line.strip()), "")
            reason = first_line.strip()
        score = round(math.fsum(t.score for t in mine), 9)  # weights in thirds and fifths sum inexactly
        if not mine:
            written = not isinstance(question, Question) or question.kind == "written"
            reason = "graded by hidden tests after the deadline" + (
                "; check-written says whether your answer can be read" if written else ""
            )
        pending = math.fsum(t.max_score - t.score for t in mine if t.extra_data.get("pending"))
        summaries.append(
            QuestionSummary(
                question.id, question.title, score, round(math.fsum(t.max_score for t in mine), 9), reason, pending
            )
        )
    return summaries
