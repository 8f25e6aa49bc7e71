"""Regrades a whole class from a Gradescope export, in parallel, and resumes where it stopped.

Each submission is graded by :func:`autograder.grading.grade.grade_or_fallback` in a pool of processes
(each loads the reference once; each grading starts its own worker processes for the student's
code). Only this process writes files, each atomically: a submission's ``results.json`` first, then
its fingerprint in the state file. A rerun skips a submission whose fingerprint is unchanged (same
submission files, same grader) and whose ``results.json`` is still there, so an interrupted batch
loses at most the submissions that were being graded.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import platform
import signal
import time
from collections import Counter, deque
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from functools import cache
from multiprocessing.synchronize import Event as EventType
from pathlib import Path
from types import SimpleNamespace

import numpy as np
from pydantic import BaseModel, ConfigDict, ValidationError
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from autograder.boundary.isolation import Isolation, detect_isolation, require_linux_worker
from autograder.boundary.leftovers import remove_leftovers
from autograder.boundary.session import remove_folder
from autograder.core.config import PACKAGE_ROOT, Assignment, ConfigError, load_assignment
from autograder.core.results import GradescopeResults, read_results, write_atomically, write_results
from autograder.core.submission import SubmissionError, locate
from autograder.course import gradebook
from autograder.course.gradescope_export import Export, ExportEntry, load_export
from autograder.course.hand_graded import Scores, read_hand_graded
from autograder.course.report import print_statistics
from autograder.grading.grade import fallback_results, grade_or_fallback, module_names
from autograder.grading.reference import load_reference

STATE_FILE = "batch_state.json"
SUBMISSIONS_DIR = "submissions"
SCORES_CSV = "scores.csv"
STATISTICS_CSV = "statistics.csv"
PLOT = "scores.png"
ERRORS_LOG = "errors.log"
# Modules of the package that present or organise scores but never decide one: changing them is no
# reason to regrade a class. Any other module counts, including new ones.
_NOT_SCORING = {
    "__main__.py",
    "course/grade_batch.py",
    "course/gradescope_export.py",
    "course/gradebook.py",
    "course/report.py",
    "course/starter.py",
}
_NOT_SCORING_PACKAGES = ("cli/",)
# How often a submission may be in a grading process that dies (killed, out of memory) before it
# gets the fallback results instead of another try.
_MAX_ATTEMPTS = 2
_GRADER_MARGIN = 60.0  # seconds for what a grading does besides running the student's code


class SubmissionRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    submission_hash: str
    grader_hash: str
    graded: bool  # False: grading could not run and the fallback was written; retried on every run


class BatchState(BaseModel):
    """``batch_state.json``: what each submission's ``results.json`` was graded from."""

    model_config = ConfigDict(extra="forbid")

    assignment: str
    submissions: dict[str, SubmissionRecord] = {}


@dataclass
class BatchOutcome:
    graded: list[str] = field(default_factory=list)  # graded in this run
    skipped: list[str] = field(default_factory=list)  # unchanged since an earlier run
    not_graded: list[str] = field(default_factory=list)  # have the fallback results (all runs)
    unlisted: list[str] = field(default_factory=list)  # folders the metadata does not mention


# ----------------------------------------------------------------------------------------------
# fingerprints


def _file_record(name: str, content: bytes | None) -> bytes:
    # Lengths first, so that no two different lists of files can give the same stream of bytes.
    size = b"missing" if content is None else str(len(content)).encode()
    return f"{len(name)}:{name}:".encode() + size + b":" + (content or b"")


def submission_fingerprint(assignment: Assignment, folder: Path) -> str:
    """Hash of the files grading uses (names and contents); a missing file or folder counts too."""
    digest = hashlib.sha256()
    try:
        found = locate(folder, assignment.config.submission_files).found
    except SubmissionError:
        found = {}
    for name in assignment.config.submission_files:
        digest.update(_file_record(name, found[name].read_bytes() if name in found else None))
    return digest.hexdigest()


def _not_scoring(relative: str) -> bool:
    return relative in _NOT_SCORING or relative.startswith(_NOT_SCORING_PACKAGES)


def _grader_files(assignment: Assignment) -> list[tuple[str, Path]]:
    framework = [
        p
        for p in PACKAGE_ROOT.rglob("*")
        if p.suffix in (".py", ".yaml") and not _not_scoring(p.relative_to(PACKAGE_ROOT).as_posix())
    ]
    other_assignments = [
        d for d in (PACKAGE_ROOT / "assignments").iterdir() if d.is_dir() and d.name != assignment.name
    ]
    files = [
        (f"autograder/{p.relative_to(PACKAGE_ROOT).as_posix()}", p)
        for p in framework
        if not any(p.is_relative_to(d) for d in other_assignments)
    ]
    given = [assignment.starter_dir / name for name in assignment.config.support_files]
    for base in (assignment.solution_dir, *given):
        paths = [base] if base.is_file() else [p for p in base.rglob("*") if p.is_file()]
        files += [(p.relative_to(assignment.root).as_posix(), p) for p in paths]
    return sorted((name, path) for name, path in files if "__pycache__" not in Path(name).parts)


def grader_fingerprint(assignment: Assignment) -> str:
    """Hash of everything that decides a score: framework, tests, config, reference, given files."""
    digest = hashlib.sha256()
    for name, path in _grader_files(assignment):
        digest.update(_file_record(name, path.read_bytes()))
    # The same code may compute other floating-point results under another Python or numpy.
    digest.update(_file_record("versions", f"{platform.python_version()} numpy {np.__version__}".encode()))
    return digest.hexdigest()


# ----------------------------------------------------------------------------------------------
# the grading processes


@cache
def _grader(name: str, root: str) -> tuple[Assignment, SimpleNamespace]:
    # Cached per process: each grading process loads the assignment and its reference only once.
    assignment = load_assignment(name, Path(root))
    return assignment, load_reference(assignment.solution_dir, module_names(assignment.config))


# Set in each grading process by _start_grading_process: the parent's request to stop (Ctrl-C).
_stop_requested: EventType | None = None


def _start_grading_process(stop: EventType) -> None:
    global _stop_requested
    _stop_requested = stop
    # Ctrl-C reaches the whole process group; an idle grading process must not die of it (the
    # parent winds the pool down), but one that is grading stops (see _grade_in_child).
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _interrupt_once(signum: int, frame: object) -> None:
    # A second Ctrl-C must not cut short the clean-up of the first (killing the student's process).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    raise KeyboardInterrupt


def _grade_in_child(name: str, root: str, folder: str, isolation: Isolation) -> tuple[str, str | None] | None:
    """Results (as JSON) and the crash's traceback if grading could not run; None if interrupted."""
    signal.signal(signal.SIGINT, _interrupt_once)
    try:
        # Checked after the handler is in place: a stop request is either seen here or interrupts.
        if _stop_requested is not None and _stop_requested.is_set():
            return None
        assignment, reference = _grader(name, root)
        results, crash = grade_or_fallback(assignment, Path(folder), reference=reference, isolation=isolation)
        return results.model_dump_json(), crash
    except KeyboardInterrupt:  # the worker session has killed the student's process on the way out
        return None
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


# ----------------------------------------------------------------------------------------------
# the batch

_Job = tuple[ExportEntry, str]  # a submission to grade and its fingerprint
_Finished = Callable[[_Job, GradescopeResults, str | None], None]


def _deliver(job: _Job, reply: tuple[str, str | None] | None, finished: _Finished) -> None:
    if reply is not None:  # None: the grading was interrupted, nothing to keep
        finished(job, GradescopeResults.model_validate_json(reply[0]), reply[1])


class _Batch:
    """One run of grade-batch: decides what to grade, grades it, records every finished submission."""

    def __init__(
        self,
        assignment: Assignment,
        export: Export,
        out: Path,
        console: Console,
        time_limit: float | None = None,
        hand: Scores | None = None,
    ) -> None:
        self.assignment = assignment
        self.hand = hand  # points given by hand, merged into the gradebook
        self.time_limit = time_limit or default_time_limit(assignment)
        needed = question_time(assignment)
        if self.time_limit < needed:
            console.print(
                f"warning: --time-limit {self.time_limit:g} s is less than the {needed:g} s its questions and "
                "imports may take: a slow submission that is right may get 0 for every question; "
                f"the default is {default_time_limit(assignment):g} s",
                style="yellow",
            )
        self.export = export
        self.out = out
        self.console = console
        self.grader_hash = grader_fingerprint(assignment)
        self.state = self._load_state()
        self.results: dict[str, GradescopeResults] = {}
        self.outcome = BatchOutcome(unlisted=export.unlisted)

    def results_path(self, entry: ExportEntry) -> Path:
        return self.out / SUBMISSIONS_DIR / entry.name / "results.json"

    def _load_state(self) -> BatchState:
        path = self.out / STATE_FILE
        if not path.exists():
            return BatchState(assignment=self.assignment.name)
        try:
            state = BatchState.model_validate_json(path.read_text())
        except (OSError, ValidationError) as exc:
            self.console.print(
                f"[yellow]{path} is unreadable ({type(exc).__name__}); every submission is graded again[/yellow]"
            )
            return BatchState(assignment=self.assignment.name)
        if state.assignment != self.assignment.name:
            raise ConfigError(
                f"{self.out} holds results of assignment {state.assignment!r}, not "
                f"{self.assignment.name!r}; choose another --out folder"
            )
        return state

    def to_grade(self, force: bool) -> list[_Job]:
        """The entries to grade now, with their fingerprints; loads the results of the others."""
        todo = []
        for entry in self.export.entries:
            fingerprint = submission_fingerprint(self.assignment, entry.folder)
            unchanged = SubmissionRecord(submission_hash=fingerprint, grader_hash=self.grader_hash, graded=True)
            if not force and self.state.submissions.get(entry.name) == unchanged:
                try:
                    self.results[entry.name] = read_results(self.results_path(entry))
                    self.outcome.skipped.append(entry.name)
                    continue
                except (OSError, ValueError):  # deleted or damaged since: grade it again
                    pass
            todo.append((entry, fingerprint))
        return todo

    def record(self, entry: ExportEntry, fingerprint: str, results: GradescopeResults, crash: str | None) -> None:
        write_results(results, self.results_path(entry))
        self.results[entry.name] = results
        self.state.submissions[entry.name] = SubmissionRecord(
            submission_hash=fingerprint, grader_hash=self.grader_hash, graded=crash is None
        )
        write_atomically(self.out / STATE_FILE, self.state.model_dump_json(indent=2) + "\n")
        self.outcome.graded.append(entry.name)
        if crash:  # the reason is in its results.json; the traceback is for whoever maintains the grader
            with open(self.out / ERRORS_LOG, "a") as log:
                log.write(f"--- {entry.name}\n{crash.rstrip()}\n")
            last_line = crash.strip().splitlines()[-1]
            self.console.print(
                f"[red]{entry.name} could not be graded[/red]: {escape(last_line)} "
                f"({'traceback' if 'Traceback' in crash else 'also'} in {self.out / ERRORS_LOG})",
                highlight=False,
            )

    def grade(self, todo: list[_Job], jobs: int, without_isolation: bool = False) -> None:
        # Probed once, not for every submission; the staff should know what is off.
        require_linux_worker("grade-batch")  # --without-isolation or not
        isolation = detect_isolation()
        if not isolation.namespaces and not without_isolation:
            why = dict(isolation.off).get("namespaces", "")
            raise ConfigError(
                f"the students' code cannot be isolated on this machine ({why}), so each submission "
                "could read what this user may read, and signal the others; grade the class on "
                "Gradescope, as root on a machine that allows namespaces, or in a throwaway VM, or "
                "accept the risk with --without-isolation"
            )
        for line in isolation.report(self.assignment.config.limits):
            if line.startswith("off:"):
                self.console.print(f"[yellow]{escape(line)}[/yellow]", highlight=False)
        columns = (
            TextColumn("[progress.description]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("left"),
            TimeRemainingColumn(),
        )
        with Progress(*columns, console=self.console) as progress:
            task = progress.add_task("grading", total=len(todo))

            def finished(job: _Job, results: GradescopeResults, crash: str | None) -> None:
                self.record(*job, results, crash)
                progress.update(
                    task,
                    advance=1,
                    description=f"{job[0].name}: {results.score:g} / {self.assignment.config.graded_points:g}",
                )

            self._run_pool(todo, jobs, isolation, finished)

    def _run_pool(self, todo: list[_Job], jobs: int, isolation: Isolation, finished: _Finished) -> None:
        queue = deque(todo)
        attempts: Counter[str] = Counter()
        while queue:
            # A grading process died: each job that was running is a suspect. Retry it in a new
            # pool; one that was there every time gets the fallback results instead.
            for job in self._run_until_broken(queue, jobs, isolation, finished) or []:
                attempts[job[0].name] += 1
                if attempts[job[0].name] < _MAX_ATTEMPTS:
                    queue.appendleft(job)
                else:
                    reason = (
                        "the grading process stopped unexpectedly (killed, or out of memory?) "
                        f"each of the {_MAX_ATTEMPTS} times it graded this submission"
                    )
                    finished(job, fallback_results(self.assignment.config, reason), reason)

    def _run_until_broken(
        self, queue: deque[_Job], jobs: int, isolation: Isolation, finished: _Finished
    ) -> list[_Job] | None:
        """Grade from ``queue`` until it is empty or the pool breaks; returns the jobs it broke
        under. A grading over the time limit gets the fallback results, and the pool is killed: the
        others that were running go back to the queue (None is returned), none of them a suspect."""
        workers = min(jobs, len(queue))
        context = multiprocessing.get_context("spawn")  # no fork of a process with threads (rich's)
        stop = context.Event()
        pool = ProcessPoolExecutor(
            max_workers=workers, mp_context=context, initializer=_start_grading_process, initargs=(stop,)
        )
        running: dict[Future, _Job] = {}
        deadlines: dict[Future, float] = {}
        try:
            while queue or running:
                # Only as many jobs as processes: when the pool dies, only these are suspects.
                while queue and len(running) < workers:
                    job = queue.popleft()
                    future = pool.submit(
                        _grade_in_child, self.assignment.name, str(self.assignment.root), str(job[0].folder), isolation
                    )
                    running[future] = job
                    deadlines[future] = time.monotonic() + self.time_limit
                first = min(deadlines[future] for future in running)
                done, _ = wait(running, timeout=max(0.0, first - time.monotonic()), return_when=FIRST_COMPLETED)
                if not done and time.monotonic() >= first:
                    self._stop_overdue(running, deadlines, queue, finished)
                    return None
                if any(isinstance(future.exception(), BrokenProcessPool) for future in done):
                    return list(running.values())
                for future in done:
                    _deliver(running.pop(future), future.result(), finished)
            return []
        except KeyboardInterrupt:
            # Stop the gradings (Ctrl-C in a terminal has reached them already, a signal sent to
            # this process alone has not) and keep any that finished anyway.
            stop.set()
            for child in multiprocessing.active_children():  # the pool's processes
                try:
                    if child.pid is not None:
                        os.kill(child.pid, signal.SIGINT)
                except ProcessLookupError:
                    pass
            for future, job in running.items():
                if not future.cancel() and future.exception() is None:
                    _deliver(job, future.result(), finished)
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def _stop_overdue(
        self, running: dict[Future, _Job], deadlines: dict[Future, float], queue: deque[_Job], finished: _Finished
    ) -> None:
        """Kills the pool's processes (a pool cannot stop one task): the gradings over the limit get
        the fallback results, the others start again."""
        children = multiprocessing.active_children()  # the pool's processes
        for child in children:
            child.kill()
        for child in children:
            child.join()
        # Their workers ended with them (the fork servers stop theirs); their folders are left.
        remove_leftovers(remove_folder)
        now = time.monotonic()
        for future, job in running.items():
            if deadlines[future] <= now:
                reason = (
                    f"the grading of this submission took longer than {self.time_limit:g} s, the limit for "
                    "one submission, and was stopped"
                )
                finished(job, fallback_results(self.assignment.config, reason, self.time_limit), reason)
            else:
                queue.appendleft(job)

    def write_gradebook(self) -> None:
        config = self.assignment.config
        graded = [
            gradebook.GradedEntry(entry, self.results[entry.name], self.state.submissions[entry.name].graded)
            for entry in self.export.entries
        ]
        self.outcome.not_graded = [g.entry.name for g in graded if not g.graded]
        stats = gradebook.statistics(config, graded, self.hand)
        write_atomically(self.out / SCORES_CSV, gradebook.scores_csv(config, graded, self.hand))
        write_atomically(self.out / STATISTICS_CSV, gradebook.statistics_csv(stats))
        write_atomically(self.out / PLOT, gradebook.distribution_png(config, graded, stats, self.hand))
        print_statistics(f"{config.title}: {len(graded)} submissions", stats, self.console)


def question_time(assignment: Assignment) -> float:
    """Seconds the time limits of the assignment's questions and of its imports add up to."""
    return assignment.config.limits.import_time_limit + sum(q.time_limit for q in assignment.config.questions)


def default_time_limit(assignment: Assignment) -> float:
    """Seconds one submission's grading may take: twice what its questions and imports may take
    (error carried forward runs a question again), and a margin for the grader's own work."""
    return 2 * question_time(assignment) + _GRADER_MARGIN


def run_batch(
    assignment: Assignment,
    export_dir: Path,
    out: Path,
    *,
    jobs: int = 1,
    force: bool = False,
    console: Console | None = None,
    without_isolation: bool = False,
    time_limit: float | None = None,
    hand_graded: Path | None = None,
) -> BatchOutcome:
    """Grade every submission of the export that needs it, then write the gradebook to ``out``, with
    the points given by hand in ``hand_graded`` (:mod:`.hand_graded`) when it is given.

    Raises ExportError for a folder that is not an export and ConfigError for an ``out`` folder
    that belongs to another assignment, or for a machine where workers get no namespaces unless
    ``without_isolation``; KeyboardInterrupt leaves every finished result in place.
    """
    if jobs < 1:
        raise ConfigError(f"--jobs must be at least 1, got {jobs}")
    console = console or Console()
    hand = read_hand_graded(hand_graded, assignment.config) if hand_graded is not None else None  # before grading
    batch = _Batch(assignment, load_export(export_dir), Path(out), console, time_limit, hand)
    todo = batch.to_grade(force)
    if batch.outcome.skipped:
        console.print(
            f"{len(batch.outcome.skipped)} submissions are unchanged since they were graded "
            f"(same files, same grader): skipped{'' if todo else ', nothing to grade'}"
        )
    if todo:
        batch.grade(todo, jobs, without_isolation)
    batch.write_gradebook()
    return batch.outcome
