"""The base class of every graded test, and the helpers tests use to call student code.

Tests are ``unittest`` methods of a subclass per question. Their number, points, visibility and
tags have defaults (:mod:`autograder.grading.collect`); gradescope-utils' decorators (``weight``,
``number``, ``tags``, ``visibility``, ``partial_credit``) declare what differs. They run in the
grader: inputs are built here, student code runs in the worker via :meth:`GradedTestCase.call`,
expected values come from the reference through :meth:`GradedTestCase.expect` (the same call,
answered by the reference solution or, in the student bundle, by a recording of it), and every
verdict is an assertion made here; :meth:`GradedTestCase.check` does all three. Hidden tests may also
use the reference modules directly (``self.ref``); public tests may not, as the bundle has none.
What a test reads of its run (the worker, the reference) is one :class:`TestContext`, which the
runner gives it.
"""

from __future__ import annotations

import unittest
from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, ClassVar, TypeVar

import numpy as np

from autograder.boundary.session import CallResult, Session, StudentCodeError
from autograder.contract.target import Target
from autograder.core.config import Limits
from autograder.grading import checks, gradients
from autograder.grading.carried_forward import HelperBridge, HelperSource
from autograder.grading.contained_helpers import ContainedBridge
from autograder.grading.expected import ReferenceCalls
from autograder.written.answers import SubmittedAnswers

T = TypeVar("T")


@dataclass(frozen=True)
class TestContext:
    """What a run of graded tests has, given to each test by the runner (autograder.grading.runner).
    A run leaves None what it has no use for: written tests start no worker, and runs of the public
    tests alone (the student bundle, release's recording) have no reference modules."""

    worker: Session | None = None  # runs the student's code of the question
    ref: SimpleNamespace | None = None  # the reference modules, for hidden tests
    reference: ReferenceCalls | None = None  # answers self.expect
    answers: SubmittedAnswers | None = None  # the student's written answers, for written tests
    runs: dict = field(default_factory=dict)  # what tests of the question share (see reused)
    # Error carried forward (autograder.grading.carried_forward), read by the runner: what answers
    # other questions' helpers, the questions whose helpers are vouched for, the limits of a contained
    # helper, and a session with the question's whole time for when the worker's is used up.
    helpers: HelperSource | None = None
    settled: frozenset[str] = frozenset()
    limits: Limits | None = None
    spare_worker: Callable[[], Session] | None = None
    bridge: HelperBridge | ContainedBridge | None = None  # in a rerun, what answers the helpers replaced


def required(value: T | None, what: str) -> T:
    """``value``, which the run must have: without it the test fails as the grader's error (an
    AttributeError, as reading a missing attribute gives), never the student's."""
    if value is None:
        raise AttributeError(f"this run of the tests has no {what}")
    return value


class GradedTestCase(unittest.TestCase):
    """Subclass per question and set ``question`` to its id (``"2b"``); ``functions`` names the
    student functions its tests reach, when they are more than those its code names."""

    question: ClassVar[str] = ""
    functions: ClassVar[tuple[str, ...]] = ()

    context: TestContext  # given to every test instance by the runner before it runs

    @property
    def worker(self) -> Session:
        return required(self.context.worker, "worker")

    @property
    def ref(self) -> SimpleNamespace:
        """The reference modules, for hidden tests: a public test that reads them fails where the
        public tests run alone, as it must."""
        return required(self.context.ref, "reference modules (public tests take expected values from self.expect)")

    def setUp(self) -> None:
        self.student_output: list[str] = []
        self.broken_rules: list[str] = []  # rules every function keeps, broken on the way (see call_full)
        self.ran_out: list[str] = []  # the budgets the calls that failed said ran out (disk, memory, ...)

    # -- calling the student's code -------------------------------------------------------------

    def call_full(
        self, target: Target | str, *args: Any, case: str, repeat: bool = True, return_args: bool = False, **kwargs: Any
    ) -> CallResult:
        """Run ``target`` in the worker; a failure there fails this test with a clear message.

        Two rules hold for every function students write, whatever the test checks: a function
        changes none of the arrays and lists it is given (a right result reached that way earns
        :data:`RULE_BROKEN_SHARE` of the test's points, as the starter's module docstrings say), and
        it gives the same result when called again at once with the same inputs (else the test
        fails: it keeps something between calls, or reads memory it never wrote). ``repeat=False``
        for a call too long to make twice (a training run), whose test checks its state otherwise.
        """
        target = Target.of(target)
        student = not target.probe
        try:
            result = self.worker.call(target, *args, return_args=return_args or student, **kwargs)
        except StudentCodeError as error:
            self._keep_output(target, error.output)
            self._note_ran_out(error)
            self.fail(f"{_label(target)} [{case}]: {error}")
        self._keep_output(target, result.output)
        if student:
            self._check_inputs(target, args, result.args_after, case)
        if repeat:
            self._check_again(target, args, kwargs, result, case)
        return result

    def _check_inputs(self, target: Target, args: tuple, after: Any, case: str) -> None:
        if not isinstance(after, list) or len(after) != len(args):
            return
        for position, (given, left) in enumerate(zip(args, after), start=1):
            if _plain(given) and not checks.agree(left, given, rtol=0, atol=0):
                self.broken_rules.append(
                    f"{_label(target)} [{case}] changed its argument {position} ({checks.describe(given)}), "
                    "which no function may do unless its docstring says so: work on a copy"
                )

    def _check_again(self, target: Target, args: tuple, kwargs: dict, first: CallResult, case: str) -> None:
        try:
            again = self.worker.call(target, *args, **kwargs)
        except StudentCodeError as error:
            self._note_ran_out(error)
            self.fail(
                f"{_label(target)} [{case}]: called a second time with the same inputs, it failed: {error}\n{_AGAIN}"
            )
        if not (
            checks.agree(again.value, first.value, rtol=0, atol=0)
            and checks.agree(again.fixtures, first.fixtures, rtol=0, atol=0)
        ):
            self.fail(
                f"{_label(target)} [{case}]: called a second time with the same inputs, it gave another "
                f"result{checks.first_difference(again.value, first.value)}.\n{_AGAIN}"
            )

    def _note_ran_out(self, error: StudentCodeError) -> None:
        if error.resource:
            self.ran_out.append(error.resource)

    def call(self, target: Target | str, *args: Any, case: str, **kwargs: Any) -> Any:
        return self.call_full(target, *args, case=case, **kwargs).value

    def expect_full(self, target: Target | str, *args: Any, **kwargs: Any) -> CallResult:
        """The reference's answer to the call that ``call_full(target, *args, ...)`` makes."""
        return required(self.context.reference, "reference").call(Target.of(target), list(args), kwargs)

    def expect(self, target: Target | str, *args: Any, **kwargs: Any) -> Any:
        return self.expect_full(target, *args, **kwargs).value

    def check(
        self,
        target: Target | str,
        *args: Any,
        case: str | None = None,
        what: str | None = None,
        rows: bool = False,
        rtol: float = 1e-5,
        atol: float = 1e-7,
        **kwargs: Any,
    ) -> Any:
        """``target(*args, **kwargs)`` gives the reference's value: the call, the expected value and
        the comparison in one (numbers and arrays within the tolerances, dicts, lists and tuples
        item by item, anything else exactly: :func:`~autograder.grading.checks.assert_matches`).
        ``case`` describes the inputs in the feedback (by default their values, or their shapes
        when large); ``what`` names the value (``softmax(x)``). Returns the student's value."""
        target = Target.of(target)
        case = case if case is not None else checks.describe_inputs(args, kwargs)
        value = self.call(target, *args, case=case, **kwargs)
        expected = self.expect(target, *args, **kwargs)
        label = f"{what or target.name + '(...)'} [{case}]"
        checks.assert_matches(value, expected, label, rtol=rtol, atol=atol, rows=rows)
        return value

    def reused(self, key: str, compute: Callable[[], Any]) -> Any:
        """``compute()``, run once per question and set of helpers answered by the reference: tests
        that read one run (a training) share it, and a test's rerun with helpers carried forward
        shares the rerun of the test whose run it reads, replacing the same helpers."""
        bridge, runs = self.context.bridge, self.context.runs
        key_with = (key, tuple(bridge.targets) if bridge is not None else ())
        if key_with not in runs:
            runs[key_with] = (compute(), bridge)
        value, first = runs[key_with]
        if bridge is not None and first is not bridge:  # its feedback says what the run replaced
            bridge.uses.update(first.uses)
        return value

    def _keep_output(self, target: Target, output: str) -> None:
        # Not in a rerun with the reference's helpers: the student's code could print what they
        # answered (SECURITY.md, "Not defended").
        if output.strip() and self.context.bridge is None:
            self.student_output.append(f"--- printed by {_label(target)} ---\n{output.rstrip()}")

    # -- judging ----------------------------------------------------------------------------------

    def assert_close(
        self,
        actual: Any,
        expected: Any,
        what: str,
        *,
        case: str,
        rows: bool = False,
        rtol: float = 1e-5,
        atol: float = 1e-7,
        layout: checks.Layout | None = None,
    ) -> np.ndarray:
        return checks.assert_close(actual, expected, f"{what} [{case}]", rtol=rtol, atol=atol, rows=rows, layout=layout)

    def numbers(self, value: Any, what: str, *, case: str) -> np.ndarray:
        """What the student's code gave as a float array, or a failure saying what it gave instead."""
        return checks.as_numbers(value, f"{what} [{case}]")

    def assert_shape(self, value: Any, shape: tuple, what: str, *, case: str) -> None:
        if not isinstance(value, np.ndarray):
            self.fail(f"{what} [{case}]: expected an array of shape {tuple(shape)}, got {checks.describe(value)}")
        if value.shape != tuple(shape):
            self.fail(f"{what} [{case}]: wrong shape {value.shape}, expected {tuple(shape)}")

    def unpack(self, value: Any, count: int, what: str, *, case: str) -> Any:
        return checks.unpack(value, count, f"{what} [{case}]")

    def assert_gradient(
        self,
        target: str,
        args: list,
        wrt: int,
        *,
        grad: Any,
        expected_grad: Any,
        loss: Any,
        expected_loss: float,
        what: str,
        case: str,
        rtol: float = 1e-5,
        atol: float = 1e-7,
        rows: bool = False,
        layout: checks.Layout | None = None,
    ) -> None:
        """The student's gradient ``grad`` w.r.t. ``args[wrt]`` equals the reference's; ``layout``
        names its entries in the feedback (``b2[0, 3]`` of a flat vector of parameters).

        When it does not, the message tells the student whether the gradient at least matches
        centred differences of their own loss (then the loss is the thing to fix) or not (then
        the gradient formula is wrong), and whether their loss itself is right. It says neither
        when the shapes differ or the student's code warned of overflow: then the cause is that.
        """
        label = f"{what} [{case}]"
        # An entry near 0 of a large gradient is judged against the gradient's scale: float32
        # rounding there is not a bug (1e-6 of the largest entry still catches every real one).
        atol = max(atol, _SCALE_TOLERANCE * float(np.max(np.abs(expected_grad), initial=0.0)))
        try:
            checks.assert_close(grad, expected_grad, label, rtol=rtol, atol=atol, rows=rows, layout=layout)
            return
        except AssertionError as mismatch:
            verdict = str(mismatch)
        if np.shape(grad) != np.shape(expected_grad):
            self.fail(verdict)  # centred differences of another shape would explain nothing
        if any("RuntimeWarning" in printed for printed in self.student_output):
            self.fail(
                f"{verdict}\nYour code warned about overflow or invalid values while computing "
                "it (see what it printed): make that computation stable first; until then "
                "the gradient cannot be compared with your loss."
            )
        loss_right = checks.is_close(loss, expected_loss, rtol=rtol, atol=atol)
        try:
            shape = np.shape(np.asarray(args[wrt]))
            disagreement = gradients.find_disagreement(
                lambda directions: (
                    self.worker.call("probes:directional_losses", target, args, wrt, directions, gradients.H).value
                ),
                checks.as_numeric(grad, label).reshape(shape),
                np.reshape(expected_grad, shape),
            )
        except (StudentCodeError, AssertionError, ValueError, TypeError):
            self.fail(verdict)
        if disagreement is None:
            hint = "It does match centred differences of your own loss" + (
                ", and your loss is right here, so look at how the inputs are used."
                if loss_right
                else ", but your loss is wrong: fix the loss first."
            )
        else:
            hint = (
                f"It does not match centred differences of your own loss either ({disagreement.describe(layout)}), "
                f"so the gradient formula is wrong"
                + ("; your loss is right." if loss_right else "; your loss is wrong too.")
            )
        self.fail(f"{verdict}\n{hint}")


_SCALE_TOLERANCE = 1e-6
# What a test gives for a right result reached while breaking a rule every function keeps (it
# changed its inputs), or one its docstring states (sgd calls f once per iteration); the starter's
# docstrings state the same share.
RULE_BROKEN_SHARE = 0.5
_AGAIN = (
    "A function must give the same result whenever it gets the same inputs: yours keeps something "
    "from one call to the next (a variable at module or class level, a buffer it never resets), or "
    "reads memory it never wrote (an array from np.empty or np.empty_like used before every entry "
    "is set)."
)


def _plain(value: Any) -> bool:
    """Data a function could change in place: arrays, and lists and dicts of them or of numbers."""
    if isinstance(value, np.ndarray):
        return True
    if isinstance(value, (list, dict)):
        items = value.values() if isinstance(value, dict) else value
        return all(_plain(item) or isinstance(item, (int, float, str, bool, tuple)) for item in items)
    return False


def _label(target: Target) -> str:
    """How feedback names a call: the student's ``module.function``, or a probe by its name."""
    return target.name if target.probe else str(target)
