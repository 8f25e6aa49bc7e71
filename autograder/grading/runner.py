"""Collects an assignment's graded tests and runs them with gradescope-utils' ``JSONTestRunner``.

gradescope-utils 0.5.0 loses points silently in several ways (docs/architecture.md): skipped tests,
tests whose subTests fail and tests of a class whose ``setUpClass`` raised never reach the results;
``set_score`` is not clamped to the weight; and ``partial_credit`` keeps the last score on the function
object, so it leaks into the next run. :class:`SafeJSONTestResult` closes each of these, and
:func:`collect_tests` refuses a suite whose tests do not add up to the config.
"""

from __future__ import annotations

import io
import json
import math
import re
import traceback
import unittest
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from gradescope_utils.autograder_utils.json_test_runner import JSONTestResult, JSONTestRunner

from autograder.core.config import Assignment
from autograder.grading.carried_forward import HelperBridge, HelperSource, RelayedSession, pending_row, short_name
from autograder.grading.collect import TestInfo, declared_tests
from autograder.grading.contained_helpers import ContainedBridge, bridge_for
from autograder.grading.ownership import helpers_of, owners, units
from autograder.grading.testing import RULE_BROKEN_SHARE

PRINTED = "Your code printed:"  # heads what the student's code printed, at the end of a test's output
INTERNAL_ERROR = (
    "The autograder itself failed in this test ({error}). This is not a problem with "
    "your code; the course staff can see the details in the grader log."
)


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


class SafeJSONTestResult(JSONTestResult):
    """A ``JSONTestResult`` under which every test yields exactly one row, with a sane score."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rows: dict[str, dict] = {}
        self.pending: dict[str, list[str]] = {}
        self.suite_errors: list[str] = []

    def _collected(self, test: Any, field: str, decorated: Callable[[Any], Any]) -> Any:
        """What the collection gave the test, defaults included (:mod:`autograder.grading.collect`);
        for a test run without it, what its decorators say."""
        info = getattr(test, "test_info", None)
        return getattr(info, field) if info else decorated(test)

    def getWeight(self, test: Any) -> Any:
        return self._collected(test, "weight", super().getWeight)

    def getNumber(self, test: Any) -> Any:
        return self._collected(test, "number", super().getNumber)

    def getVisibility(self, test: Any) -> Any:
        return self._collected(test, "visibility", super().getVisibility)

    def getTags(self, test: Any) -> Any:
        return self._collected(test, "tags", super().getTags)

    def startTest(self, test: unittest.TestCase) -> None:
        function = getattr(type(test), test._testMethodName, None)
        # partial_credit stores the score on the function object: clear it, or it leaks into
        # the next submission graded by this process.
        for holder in (function, getattr(function, "__wrapped__", None)):
            if holder is not None and hasattr(holder, "__score__"):
                delattr(holder, "__score__")
        self.pending[test.id()] = []
        super().startTest(test)

    def addError(self, test: Any, err: Any) -> None:
        if not hasattr(test, "_testMethodName"):  # an _ErrorHolder: setUpClass/setUpModule failed
            self.suite_errors.append(f"{test.description}: {err[0].__name__}: {err[1]}")
            return
        # To the stderr the result was created under (the grader log): during a buffered test
        # sys.stderr is the test's capture buffer, which would put the traceback into the row
        # the student sees.
        print(
            f"[grader] internal error in {test.id()}:\n" + "".join(traceback.format_exception(*err)),
            file=self._original_stderr,
        )
        super().addError(test, err)

    def addSkip(self, test: unittest.TestCase, reason: str) -> None:
        super().addSkip(test, reason)
        self._mirrorOutput = False
        if not hasattr(test, "_testMethodName"):  # setUpClass/setUpModule raised SkipTest
            # unittest's _ErrorHolder, which has a description instead of a test method
            self.suite_errors.append(f"{getattr(test, 'description', test)}: skipped: {reason}")
            return
        parent = getattr(test, "test_case", None)
        if isinstance(parent, unittest.TestCase):  # skipTest inside a subTest: the parent fails
            described = test._subDescription()  # type: ignore[attr-defined]  # unittest's _SubTest
            self.pending.setdefault(parent.id(), []).append(f"{described}: skipped: {reason}")
            return
        self.processResult(test, (unittest.SkipTest, unittest.SkipTest(f"skipped: {reason}"), None))

    def addExpectedFailure(self, test: unittest.TestCase, err: Any) -> None:
        super().addExpectedFailure(test, err)
        self.processResult(test, err)

    def addUnexpectedSuccess(self, test: unittest.TestCase) -> None:
        super().addUnexpectedSuccess(test)
        self.processResult(test, (AssertionError, AssertionError("unexpected success"), None))

    def addSubTest(self, test: unittest.TestCase, subtest: Any, err: Any) -> None:
        super().addSubTest(test, subtest, err)
        if err is not None:
            self.pending.setdefault(test.id(), []).append(f"{subtest._subDescription()}: {err[1]}")

    def stopTest(self, test: unittest.TestCase) -> None:
        if test.id() not in self.rows:  # failing subTests leave no outcome of their own
            reasons = self.pending.get(test.id()) or ["the test produced no outcome"]
            self.processResult(test, (AssertionError, AssertionError("\n".join(reasons)), None))
        super().stopTest(test)

    def processResult(self, test: Any, err: Any = None) -> None:
        if test.id() in self.rows:
            return
        row = self.buildResult(test, err)
        self.rows[test.id()] = row
        self.results.append(row)

    def buildResult(self, test: Any, err: Any = None) -> dict:
        weight = float(self.getWeight(test) or 0.0)
        score = self.getScore(test)
        failed = err is not None
        if score is None:
            score = 0.0 if failed else weight
        elif failed and not issubclass(err[0], AssertionError):
            score = 0.0  # skipped, or crashed: a partial score set before that proves nothing
        try:
            score = float(score)
        except (TypeError, ValueError):  # set_score(None-like junk): no credit rather than a crash
            score = 0.0
        if not math.isfinite(score):
            score = 0.0
        score = min(max(score, 0.0), weight)
        parts = [self.getOutput() or ""]
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
        return {
            "name": self.getDescription(test),
            "score": score,
            "max_score": weight,
            "status": "passed" if score >= weight - 1e-9 else "failed",
            "output": "\n".join(p.strip("\n") for p in parts if p.strip()),
            "tags": list(self.getTags(test) or ()),
            "visibility": self.getVisibility(test),
            "number": self.getNumber(test),
            **({"extra_data": {"ran_out": ran_out}} if ran_out and score < weight - 1e-9 else {}),
        }


class SafeJSONTestRunner(JSONTestRunner):
    resultclass = SafeJSONTestResult

    def _makeResult(self) -> SafeJSONTestResult:
        self.last_result = super()._makeResult()
        return self.last_result


def run_tests(tests: list[TestInfo], context: dict[str, Any]) -> list[dict]:
    """Run ``tests`` with ``context`` (worker, ref, fixtures) attached; one row per test, in order.

    A test that loses points after reaching helpers of other questions runs again with them
    answered by ``context["helpers"]`` (the reference, or in the student bundle what ``release``
    recorded of it), and keeps the better row: error carried forward
    (:mod:`autograder.grading.carried_forward`). Only the helpers of questions not ``context["settled"]``
    are replaced: a question already graded with full marks vouches for its functions, and a
    test whose helpers are all vouched for does not run again. While ``release`` records, every
    test with helpers runs again with all of them."""
    context = {"runs": {}, **context}
    rows = _run_suite(tests, context)
    source: HelperSource | None = context.get("helpers")
    if source is None:
        return rows
    recording = getattr(source, "recorder", None) is not None
    settled = set() if recording else set(context.get("settled", ()))
    suspects = [_suspects(info, settled) for info in tests]
    rows = [
        _carried_forward(info, row, context, source, helpers)
        if helpers and (recording or row["score"] < info.weight - 1e-9)
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
    info: TestInfo, row: dict, context: dict[str, Any], source: HelperSource, suspects: list[tuple[str, str]]
) -> dict:
    worker, spare = context["worker"], context.get("spare_worker")
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
    if unanswered and again["score"] < info.weight - 1e-9:
        return pending_row(again, unanswered, dict(info.helpers))
    # The rerun's row when it scores better, or as well while a helper of the student's differed:
    # then it tells what is wrong in this question's own code, without the helper's bug.
    better = again["score"] > row["score"] + 1e-9
    if not (better or again["score"] >= row["score"] - 1e-9 and helpers.differing()):
        return row
    return _noted(again, helpers.note(dict(info.helpers)))


def _without_what_ran_out(info: TestInfo, row: dict, context: dict[str, Any], source: HelperSource) -> dict:
    """A test that failed because the question's disk, descriptors, memory or time ran out runs once
    more in a fresh worker, with every other question's function the reference's, full marks or not:
    a function can pass its own tests and still leave behind what its callers then run out of (a
    file, open descriptors, shared memory, a thread that keeps the interpreter busy). When that
    scores better, the row says whose code used it up."""
    spare = context.get("spare_worker")
    if spare is None:
        return row
    replaced = _suspects(info, set())
    again, helpers = _rerun(info, context, spare(), source, replaced, compare=False)
    if again["score"] <= row["score"] + 1e-9 or helpers.unanswered():
        return row
    budgets = " and ".join(_BUDGET_WORDS.get(name, name) for name in _ran_out(row))
    used = sorted((owner, short_name(t)) for t, owner in replaced if t in helpers.used())
    names = ", ".join(f"{name} (question {owner})" for owner, name in used)
    return _noted(
        again,
        f"With your code this test ran out of {budgets}. Graded again in a fresh process with the "
        f"course's {names} in place of yours, it scores {again['score']:g} of {info.weight:g}: the "
        f"{budgets} went to your code of those functions or of what they call, not to this question's, "
        "so this test keeps that score. Functions must not leave files, open files or memory behind.",
    )


_BUDGET_WORDS = {"disk": "disk space", "descriptors": "open files", "memory": "memory", "time": "time"}


def _ran_out(row: dict) -> list[str]:
    """The budgets (disk, descriptors, memory, time) the failed calls of a row's test said ran out."""
    return list(row.get("extra_data", {}).get("ran_out", ()))


def _rerun(
    info: TestInfo, context: dict[str, Any], worker: Any, source: HelperSource, suspects: list, *, compare: bool
) -> tuple[dict, HelperBridge | ContainedBridge]:
    """The test's row when run on ``worker`` with its ``suspects`` answered by ``source``."""
    helpers = bridge_for(source, [f for f, _ in suspects], context["limits"], compare=compare)
    try:
        (again,) = _run_suite([info], {**context, "worker": RelayedSession(worker, helpers), "relayed": True})
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


def _noted(row: dict, *notes: str) -> dict:
    return {**row, "output": "\n".join(part for part in (row["output"], *notes) if part).strip()}


def _run_suite(tests: list[TestInfo], context: dict[str, Any]) -> list[dict]:
    suite = unittest.TestSuite()
    instances = []
    for info in tests:
        test = info.instance()
        for key, value in context.items():
            setattr(test, key, value)
        test.test_info = info  # type: ignore[attr-defined]  # read by SafeJSONTestResult
        suite.addTest(test)
        instances.append((info, test))
    runner = SafeJSONTestRunner(stream=io.StringIO(), buffer=True, failure_prefix="")
    runner.run(suite)
    result = runner.last_result
    rows = []
    for info, test in instances:
        row = result.rows.get(test.id())
        if row is None:  # never started: an error in class or module set-up
            reason = "; ".join(result.suite_errors) or "the test did not run"
            row = {
                "name": info.name,
                "score": 0.0,
                "max_score": info.weight,
                "status": "failed",
                "output": INTERNAL_ERROR.format(error=reason),
                "tags": list(info.tags),
                "visibility": info.visibility,
                "number": info.number,
            }
        rows.append(row)
    json.loads(runner.stream.getvalue())  # the runner's own report must at least be valid JSON
    return rows
