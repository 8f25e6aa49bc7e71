"""Collects an assignment's graded tests and runs them with a ``unittest`` result class of our own.

Of gradescope-utils, tests use only the decorators (``weight``, ``number``, ``tags``, ``visibility``,
``partial_credit``): :mod:`autograder.grading.collect` reads the attributes they set, and
:class:`GradedResult` the score ``partial_credit``'s ``set_score`` leaves on the test function
(``__score__``). The library's own runner is not used: it loses points silently (docs/architecture.md),
and mending it meant patching its private members. :class:`GradedResult` gives every test exactly one
row, skipped tests, tests whose subTests fail and tests of a class whose ``setUpClass`` raised included,
with its score clamped to its points and no score left from an earlier run; :func:`collect_tests`
refuses a suite whose tests do not add up to the config.
"""

from __future__ import annotations

import io
import math
import re
import sys
import traceback
import unittest
from collections.abc import Callable, Mapping
from dataclasses import replace
from types import TracebackType
from typing import Any, TextIO

from autograder.core.config import Assignment
from autograder.core.results import TestResult
from autograder.grading.carried_forward import HelperBridge, HelperSource, RelayedSession, pending_row, short_name
from autograder.grading.collect import TestInfo, declared_tests
from autograder.grading.contained_helpers import ContainedBridge, bridge_for
from autograder.grading.ownership import helpers_of, owners, units
from autograder.grading.testing import RULE_BROKEN_SHARE, TestContext

PRINTED = "Your code printed:"  # heads what the student's code printed, at the end of a test's output
INTERNAL_ERROR = (
    "The autograder itself failed in this test ({error}). This is not a problem with "
    "your code; the course staff can see the details in the grader log."
)
ExcInfo = tuple[type[BaseException], BaseException, TracebackType | None]


def collect_tests(
    assignment: Assignment, include_hidden: bool = True, recorded_weights: Mapping[str, float] | None = None
) -> dict[str, list[TestInfo]]:
    """Every graded test by question id, sorted by number, each with the helpers it reaches
    (:mod:`autograder.grading.collect` says what a test declares). Raises ConfigError."""
    by_question = declared_tests(assignment, include_hidden, recorded_weights)
    owner = owners(assignment.config, {q: [t.tags for t in tests] for q, tests in by_question.items()})
    unit = units(assignment.config, owner)
    for question_id, tests in by_question.items():
        question = assignment.config.question(question_id)
        tests[:] = [_with_helpers(t, helpers_of(question, t.tags, owner, unit), owner, unit) for t in tests]
        tests.sort(key=lambda t: [int(p) if p.isdigit() else p for p in re.split(r"[.]", t.number)])
    return by_question


def _with_helpers(
    info: TestInfo, helpers: tuple[str, ...], owner: Mapping[str, str], unit: Mapping[str, frozenset[str]]
) -> TestInfo:
    groups = {unit[f] & frozenset(helpers) for f in helpers}
    return replace(info, helpers=tuple((f, owner[f]) for f in helpers), units=tuple(g for g in groups if len(g) > 1))


class GradedResult(unittest.TestResult):
    """What a run of graded tests gives: exactly one row per test, with a sane score and what the
    test printed; ``tests`` are the collected tests by test id."""

    def __init__(self, tests: Mapping[str, TestInfo]) -> None:
        super().__init__()
        self.tests = tests
        self.rows: dict[str, TestResult] = {}
        self.pending: dict[str, list[str]] = {}  # what each test's failing subTests said
        self.suite_errors: list[str] = []  # what setUpClass or setUpModule raised
        self.log = sys.stderr  # the grader log: while a test runs, sys.stderr is its capture
        self.current: unittest.TestCase | None = None
        self.captured = (io.StringIO(), io.StringIO())
        self.saved: tuple[TextIO, TextIO] = (sys.stdout, sys.stderr)

    def startTest(self, test: unittest.TestCase) -> None:
        super().startTest(test)
        _forget_score(self._function(test))
        self.current, self.pending[test.id()] = test, []
        # What the test prints goes into its row, as unittest's buffer=True would put it; that
        # buffer is not public, so the test's output is captured here.
        self.captured, self.saved = (io.StringIO(), io.StringIO()), (sys.stdout, sys.stderr)
        sys.stdout, sys.stderr = self.captured

    def stopTest(self, test: unittest.TestCase) -> None:
        if test.id() not in self.rows:  # failing subTests leave no outcome of their own
            reasons = self.pending.get(test.id()) or ["the test produced no outcome"]
            self._row(test, (AssertionError, AssertionError("\n".join(reasons)), None))
        sys.stdout, sys.stderr = self.saved
        self.current = None
        super().stopTest(test)

    def addSuccess(self, test: unittest.TestCase) -> None:
        self._row(test, None)

    def addFailure(self, test: unittest.TestCase, err: Any) -> None:
        self._row(test, err)

    def addError(self, test: unittest.TestCase, err: Any) -> None:
        if not isinstance(test, unittest.TestCase):  # unittest's stand-in: setUpClass or setUpModule raised
            self.suite_errors.append(f"{test}: {err[0].__name__}: {err[1]}")
            return
        print(f"[grader] internal error in {test.id()}:\n" + "".join(traceback.format_exception(*err)), file=self.log)
        self._row(test, err)

    def addSkip(self, test: unittest.TestCase, reason: str) -> None:
        if not isinstance(test, unittest.TestCase):  # setUpClass or setUpModule raised SkipTest
            self.suite_errors.append(f"{test}: skipped: {reason}")
        elif self.current is not None and test is not self.current:  # skipTest inside a subTest: the test fails
            self.pending[self.current.id()].append(f"{_subtest_of(self.current, test)}: skipped: {reason}")
        else:
            self._row(test, (unittest.SkipTest, unittest.SkipTest(f"skipped: {reason}"), None))

    def addExpectedFailure(self, test: unittest.TestCase, err: Any) -> None:
        self._row(test, err)

    def addUnexpectedSuccess(self, test: unittest.TestCase) -> None:
        self._row(test, (AssertionError, AssertionError("unexpected success"), None))

    def addSubTest(self, test: unittest.TestCase, subtest: unittest.TestCase, err: Any) -> None:
        if err is not None:
            self.pending[test.id()].append(f"{_subtest_of(test, subtest)}: {err[1]}")

    def _function(self, test: unittest.TestCase) -> Any:
        return getattr(type(test), self.tests[test.id()].method)

    def _row(self, test: unittest.TestCase, err: ExcInfo | None) -> None:
        """The row of the test's first outcome: a tearDown that fails after the test did reports twice."""
        if test.id() not in self.rows:
            self.rows[test.id()] = self._built(test, err)

    def _built(self, test: unittest.TestCase, err: ExcInfo | None) -> TestResult:
        info = self.tests[test.id()]
        weight = info.weight
        score = _score(getattr(self._function(test), "__score__", None), weight, err)
        parts = [self._printed()]
        if err is not None:
            if issubclass(err[0], (AssertionError, unittest.SkipTest)):
                parts.append(str(err[1]))
            else:
                parts.append(INTERNAL_ERROR.format(error=f"{err[0].__name__}: {err[1]}"))
        broken = list(dict.fromkeys(getattr(test, "broken_rules", ())))
        if broken:
            share = RULE_BROKEN_SHARE * weight
            if score > share:
                parts.append(
                    f"The results are right, but a rule is broken, which costs half the points ({share:g} "
                    f"of {weight:g} here):"
                )
            score = min(score, share)
            parts.extend(f"- {rule}" for rule in broken)
        printed = getattr(test, "student_output", None)
        if printed:
            parts.append(PRINTED + "\n" + "\n".join(printed))
        ran_out = sorted(set(getattr(test, "ran_out", ())))
        return TestResult(
            name=test.shortDescription() or str(test),
            score=score,
            max_score=weight,
            status="passed" if score >= weight - 1e-9 else "failed",
            output="\n".join(p.strip("\n") for p in parts if p.strip()),
            tags=list(info.tags),
            visibility=info.visibility,
            number=info.number,
            extra_data={"ran_out": ran_out} if ran_out and score < weight - 1e-9 else {},
        )

    def _printed(self) -> str:
        """What the test printed so far: its stdout, then its stderr."""
        out, err = (stream.getvalue() for stream in self.captured)
        return out + ("" if not err or out.endswith("\n") else "\n") + err


def _score(declared: Any, weight: float, err: ExcInfo | None) -> float:
    """The test's score: what it declared with ``set_score`` (clamped to its points; none when it then
    crashed or was skipped: a partial score set before that proves nothing), else all or nothing."""
    if declared is None or err is not None and not issubclass(err[0], AssertionError):
        declared = 0.0 if err is not None else weight
    try:
        score = float(declared)
    except (TypeError, ValueError):  # set_score(None-like junk): no credit rather than a crash
        return 0.0
    return min(max(score, 0.0), weight) if math.isfinite(score) else 0.0


def _forget_score(function: Any) -> None:
    """``partial_credit`` keeps the score on the function object: clear it, on the wrapper and on what
    it wraps, or it leaks into the next submission graded by this process."""
    for holder in (function, getattr(function, "__wrapped__", None)):
        if holder is not None and hasattr(holder, "__score__"):
            delattr(holder, "__score__")


def _subtest_of(test: unittest.TestCase, subtest: unittest.TestCase) -> str:
    """How unittest describes a subTest (``[message] (i=2)``): its id after its test's."""
    return subtest.id().removeprefix(test.id()).strip()


def run_tests(tests: list[TestInfo], context: TestContext) -> list[TestResult]:
    """Run ``tests``, each given ``context`` (worker, ref, ...); one row per test, in order.

    A test that loses points after reaching helpers of other questions runs again with them
    answered by ``context.helpers`` (the reference, or in the student bundle what ``release``
    recorded of it), and keeps the better row: error carried forward
    (:mod:`autograder.grading.carried_forward`). Only the helpers of questions not ``context.settled``
    are replaced: a question already graded with full marks vouches for its functions, and a
    test whose helpers are all vouched for does not run again. While ``release`` records, every
    test with helpers runs again with all of them."""
    context = replace(context, runs={})  # what this run's tests share, their reruns included
    rows = _run_suite(tests, context)
    source = context.helpers
    if source is None:
        return rows
    recording = getattr(source, "recorder", None) is not None
    settled = set() if recording else set(context.settled)
    suspects = [_suspects(info, settled) for info in tests]
    rows = [
        _carried_forward(info, row, context, source, helpers)
        if helpers and (recording or row.score < info.weight - 1e-9)
        else row
        for info, row, helpers in zip(tests, rows, suspects)
    ]
    return [
        _without_what_ran_out(info, row, context, source) if info.helpers and _ran_out(row) else row
        for info, row in zip(tests, rows)
    ]


def _suspects(info: TestInfo, settled: set[str]) -> list[tuple[str, str]]:
    """The helpers to replace: those of questions not settled, with the rest of their units."""
    chosen = {f for f, owner in info.helpers if owner not in settled}
    for unit in info.units:
        if unit & chosen:
            chosen |= unit
    return [(f, owner) for f, owner in info.helpers if f in chosen]


def _carried_forward(
    info: TestInfo, row: TestResult, context: TestContext, source: HelperSource, suspects: list[tuple[str, str]]
) -> TestResult:
    worker, spare = context.worker, context.spare_worker
    # The student's helpers run beside the reference's (to say how they differ) only while nothing
    # of the student's has hung, killed or garbled this question's worker: such a helper would do it
    # again, in the rerun that is to grade without it. A rerun that breaks the worker so runs again
    # without them; one after a time-out gets a session of its own (the time the helper's endless
    # loop took is not this question's).
    broken, session = _broken(worker), _usable(worker, spare)
    again, helpers = _rerun(info, context, session, source, suspects, compare=not broken)
    if not broken and _broken(session):
        again, helpers = _rerun(info, context, _usable(worker, spare), source, suspects, compare=False)
    unanswered = helpers.unanswered()
    if unanswered and again.score < info.weight - 1e-9:
        return pending_row(again, unanswered, dict(info.helpers))
    # The rerun's row when it scores better, or as well while a helper of the student's differed:
    # then it tells what is wrong in this question's own code, without the helper's bug.
    better = again.score > row.score + 1e-9
    if not (better or again.score >= row.score - 1e-9 and helpers.differing()):
        return row
    return _noted(again, helpers.note(dict(info.helpers)))


def _without_what_ran_out(info: TestInfo, row: TestResult, context: TestContext, source: HelperSource) -> TestResult:
    """A test that failed because the question's disk, descriptors, memory or time ran out runs once
    more in a fresh worker, with every other question's function the reference's, full marks or not:
    a function can pass its own tests and still leave behind what its callers then run out of (a
    file, open descriptors, shared memory, a thread that keeps the interpreter busy). When that
    scores better, the row says whose code used it up."""
    spare = context.spare_worker
    if spare is None:
        return row
    replaced = _suspects(info, set())
    again, helpers = _rerun(info, context, spare(), source, replaced, compare=False)
    if again.score <= row.score + 1e-9 or helpers.unanswered():
        return row
    budgets = " and ".join(_BUDGET_WORDS.get(name, name) for name in _ran_out(row))
    used = sorted((owner, short_name(t)) for t, owner in replaced if t in helpers.used())
    names = ", ".join(f"{name} (question {owner})" for owner, name in used)
    return _noted(
        again,
        f"With your code this test ran out of {budgets}. Graded again in a fresh process with the "
        f"course's {names} in place of yours, it scores {again.score:g} of {info.weight:g}: the "
        f"{budgets} went to your code of those functions or of what they call, not to this question's, "
        "so this test keeps that score. Functions must not leave files, open files or memory behind.",
    )


_BUDGET_WORDS = {"disk": "disk space", "descriptors": "open files", "memory": "memory", "time": "time"}


def _ran_out(row: TestResult) -> list[str]:
    """The budgets (disk, descriptors, memory, time) the failed calls of a row's test said ran out."""
    return list(row.extra_data.get("ran_out", ()))


def _rerun(
    info: TestInfo, context: TestContext, worker: Any, source: HelperSource, suspects: list, *, compare: bool
) -> tuple[TestResult, HelperBridge | ContainedBridge]:
    """The test's row when run on ``worker`` with its ``suspects`` answered by ``source``."""
    assert context.limits is not None  # grade() gives them with the helpers
    helpers = bridge_for(source, [f for f, _ in suspects], context.limits, compare=compare)
    try:
        (again,) = _run_suite([info], replace(context, worker=RelayedSession(worker, helpers), bridge=helpers))
    finally:
        helpers.close()
    return again, helpers


def _broken(worker: Any) -> int:
    """How many of the session's calls hung, killed or garbled its worker."""
    return getattr(worker, "broken", 0)


def _usable(worker: Any, spare: Callable[[], Any] | None) -> Any:
    """``worker``, or once its time is used up, the question's spare session."""
    if getattr(worker, "timed_out_on", None) is not None and spare is not None:
        return spare()
    return worker


def _noted(row: TestResult, *notes: str) -> TestResult:
    return row.model_copy(update={"output": "\n".join(part for part in (row.output, *notes) if part).strip()})


def _run_suite(tests: list[TestInfo], context: TestContext) -> list[TestResult]:
    instances = [info.instance() for info in tests]
    for test in instances:
        test.context = context
    result = GradedResult({test.id(): info for test, info in zip(instances, tests)})
    unittest.TestSuite(instances).run(result)
    return [result.rows.get(test.id()) or _not_run(info, result.suite_errors) for test, info in zip(instances, tests)]


def _not_run(info: TestInfo, suite_errors: list[str]) -> TestResult:
    """The row of a test that never started: its class's or module's set-up failed."""
    reason = "; ".join(suite_errors) or "the test did not run"
    return TestResult(
        name=info.name,
        score=0.0,
        max_score=info.weight,
        status="failed",
        output=INTERNAL_ERROR.format(error=reason),
        tags=list(info.tags),
        visibility=info.visibility,
        number=info.number,
    )
