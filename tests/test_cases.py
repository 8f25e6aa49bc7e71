"""Tables of cases (autograder.grading.cases): each kind of row run alone, on functions called in this
process in place of the worker and the reference, and a table's test classes as collect sees them."""

from __future__ import annotations

import copy
import unittest

import numpy as np
import pytest

from autograder.boundary.session import CallResult
from autograder.grading.cases import Backward, Cases, Compare, Gradient, given, normal
from autograder.grading import testing


def _step_forward(x, h, W):
    out = np.tanh(x @ W + h)
    return out, (x, h, W, out)


def _step_backward(dout, cache):
    x, h, W, out = cache
    dz = dout * (1 - out**2)
    return dz @ W.T, dz, x.T @ dz


def _loss(w, X):
    return float(np.sum((X @ w) ** 2)), 2 * X.T @ (X @ w)


REFERENCE = {"m.step_forward": _step_forward, "m.step_backward": _step_backward, "m.loss": _loss, "m.add": np.add}


class _Calls:
    """Calls ``functions[target]`` here, as the worker (``student``) or the reference would."""

    def __init__(self, functions):
        self.functions = functions

    def call(self, target, *args, return_args=False, **kwargs):
        target = str(target)  # the tests' Target, as this table names it
        if target == "probes:directional_losses":
            _, function, call_args, wrt, directions, h = args
            return CallResult(self._directional(function, call_args, wrt, directions, h))
        copies = copy.deepcopy(list(args))  # as the worker gets them: its own copies
        value = self.functions[target](*copies, **kwargs)
        return CallResult(value, args_after=copies if return_args else None)

    def _directional(self, function, args, wrt, directions, h):
        def loss(shift):
            moved = list(args)
            moved[wrt] = args[wrt] + shift
            return self.functions[function](*moved)[0]

        return [(loss(h * d) - loss(-h * d)) / (2 * h) for d in directions]


class _Reference(_Calls):
    def call(self, target, args, kwargs):  # the reference's signature: (target, args, kwargs)
        return CallResult(self.functions[str(target)](*args, **kwargs))


def _instance(row, student):
    [cls] = Cases(row).test_classes("tests.fake_tests")
    [name] = unittest.TestLoader().getTestCaseNames(cls)
    test = cls(name)
    test.context = testing.TestContext(worker=_Calls({**REFERENCE, **(student or {})}), reference=_Reference(REFERENCE))
    return test


def run(row, student=None):
    """The row's one test, run against ``student`` (the reference's functions with these replaced):
    the last line of its failure, or None when it passes."""
    test = _instance(row, student)
    result = unittest.TestResult()
    test.run(result)
    failures = result.failures + result.errors
    return failures[0][1].strip().split("AssertionError: ", 1)[-1] if failures else None


STEP = normal(0, x=(3, 5), h=(3, 4), W=(5, 4))


def test_compare_passes_the_reference_and_fails_a_wrong_value_with_its_inputs():
    assert run(Compare("1", "m.add", given(np.ones(2), np.arange(2.0)))) is None
    message = run(Compare("1", "m.add", given(np.ones(2), np.arange(2.0))), {"m.add": np.subtract})
    assert "add(...) [[1.0, 1.0], [0.0, 1.0]]" in message and "differ" in message


def test_compare_of_one_item_ignores_the_students_cache():
    row = Compare("1", "m.step_forward", STEP, item=0)
    assert run(row, {"m.step_forward": lambda x, h, W: (_step_forward(x, h, W)[0], "my own cache")}) is None
    assert "[0]" in run(row, {"m.step_forward": lambda x, h, W: (x @ W + h, None)})


def test_gradient_names_the_argument_and_says_whether_the_loss_agrees():
    row = Gradient("1", "m.loss", normal(1, w=(3,), X=(4, 3)))
    assert run(row) is None
    wrong = run(row, {"m.loss": lambda w, X: (_loss(w, X)[0], X.T @ (X @ w))})
    assert "the gradient with respect to w" in wrong


def test_backward_on_the_reference_cache_needs_no_right_forward():
    row = Backward("2", "m.step_backward", STEP, forward="m.step_forward")
    assert row.tags() == ("m.step_backward",)
    assert run(row, {"m.step_forward": lambda x, h, W: (None, None)}) is None
    message = run(row, {"m.step_backward": lambda dout, cache: _step_backward(2 * dout, cache)})
    assert "dx [x (3, 5), h (3, 4), W (5, 4); dout (3, 4)]: 15 of 15 entries differ" in message.splitlines()[0]
    assert "given the cache of the course's step_forward" in message


def test_backward_on_the_students_cache_reaches_their_forward():
    row = Backward("2", "m.step_backward", STEP, forward="m.step_forward", cache="student")
    assert row.tags() == ("m.step_backward", "m.step_forward")
    flipped = {
        "m.step_forward": lambda x, h, W: (_step_forward(x, h, W)[0], _step_forward(x, h, W)[1][::-1]),
        "m.step_backward": lambda dout, cache: _step_backward(dout, cache[::-1]),
    }
    assert run(row, flipped) is None  # a cache in the student's own layout


def test_a_function_that_changes_its_input_breaks_the_rule_every_function_keeps():
    def changing(x, h, W):
        x[0, 0] = 5.0
        return _step_forward(x, h, W)

    test = _instance(Compare("1", "m.step_forward", STEP, item=0), {"m.step_forward": changing})
    test.run(unittest.TestResult())
    assert any("changed its argument 1" in rule for rule in test.broken_rules)


def test_a_table_makes_one_class_per_question_with_names_points_and_tags():
    table = Cases(
        Compare("1", "m.add", given(1, 2), name="adds two numbers", points=2),
        Compare("1", "m.add", given(3, 4)),
        Gradient("2", "m.loss", normal(1, w=(3,), X=(4, 3)), reaches=("m.add",)),
    )
    first, second = table.test_classes("tests.public_tests")
    assert (first.__name__, first.question, second.question) == ("PublicTestsCases_1", "1", "2")
    assert table.test_classes("tests.public_tests")[0] is first  # the same class every time
    one, two = (getattr(first, n) for n in unittest.TestLoader().getTestCaseNames(first))
    assert (one.__doc__, one.__weight__, one.__tags__) == ("adds two numbers", 2, ("m.add",))
    assert two.__doc__ == "add on 3, 4" and not hasattr(two, "__weight__")
    assert first.written_at.endswith(f"test_cases.py:{_line_of('adds two numbers')}")


def _line_of(text: str) -> int:
    lines = open(__file__, encoding="utf-8").read().splitlines()
    return next(i for i, line in enumerate(lines, start=1) if text in line and "Compare(" in line)


@pytest.mark.parametrize(
    "make, said",
    [
        (lambda: Compare("1", "add", given(1)), "'add' is not a student function"),
        (lambda: Compare("1", "m.add", given(1), points=0), "points must be more than 0"),
        (lambda: Backward("1", "m.step_backward", STEP), "needs forward="),
        (lambda: Backward("1", "m.b", STEP, forward="m.f", cache="mine"), "cache='reference'"),
    ],
)
def test_a_wrong_row_is_refused_at_its_line(make, said):
    with pytest.raises(ValueError) as refused:
        make()
    assert said in str(refused.value) and str(refused.value).startswith(f"{__file__}:")


def test_inputs_are_made_afresh_for_every_call():
    inputs = normal(3, 0.5, x=(2,))
    first, again = inputs.values(), inputs.values()
    assert first[0] is not again[0] and np.array_equal(first[0], again[0]) and first[1] == 0.5
    assert inputs.description == "x (2,), 0.5" and inputs.name(0) == "x" and inputs.name(1) == "argument 2"


def test_a_wrong_forward_costs_nothing_in_a_backward_row_on_the_students_cache():
    """The RNN trial (issue 26): with cache="student" a forward missing its bias also failed the
    backward's row, a bug charged twice. Where the forward's output is wrong, the row gives the
    backward the reference's cache, and a backward that is right passes."""
    row = Backward("2", "m.step_backward", STEP, forward="m.step_forward", cache="student")
    no_bias = {"m.step_forward": lambda x, h, W: _step_forward(x, 0 * h, W)}
    assert run(row, no_bias) is None
    wrong_too = {**no_bias, "m.step_backward": lambda dout, cache: _step_backward(2 * dout, cache)}
    assert "given the cache of the course's step_forward" in run(row, wrong_too)


def test_a_row_whose_arguments_do_not_fit_the_reference_is_refused(tmp_path):
    """`normal(0, 0.5, x=...)` passes 0.5 as an argument: a TA who meant a scale got 12 internal
    errors from the reference; the row is refused with its file and line, read from the source."""
    (tmp_path / "m.py").write_text("def step_forward(x, h, W):\n    pass\n\ndef step_backward(dout, cache):\n    pass\n")
    fits = Cases(Compare("1", "m.step_forward", STEP, item=0), Backward("2", "m.step_backward", STEP, forward="m.step_forward"))
    assert fits.call_problems(tmp_path) == []
    extra = Compare("1", "m.step_forward", normal(0, 0.5, x=(3, 5), h=(3, 4), W=(5, 4)), item=0)
    [problem] = Cases(extra).call_problems(tmp_path)
    assert problem.startswith(f"{__file__}:") and "with 4 argument(s)" in problem and "(x, h, W)" in problem
    assert Cases(Compare("1", "m.missing", given(1))).call_problems(tmp_path) == []  # the grader says that one
