"""Hidden tests of the word2vec assignment: run on Gradescope, never released to students."""

from __future__ import annotations

from typing import Any

import numpy as np
from gradescope_utils.autograder_utils.decorators import partial_credit, weight

from autograder.assignments.word2vec.public_tests import NAIVE_TAGS, NEG_TAGS
from autograder.assignments.word2vec.support import (
    NETWORK_TAGS,
    LossTestsMixin,
    SgdTestsMixin,
    SkipgramTestsMixin,
    network,
    network_layout,
)
from autograder.contract.protocol import FixtureRef
from autograder.grading.testing import GradedTestCase


class SoftmaxHidden(GradedTestCase):
    question = "1a"

    def test_input_untouched(self):
        """softmax leaves its input unchanged"""
        x = np.random.default_rng(3).standard_normal((4, 5))
        case = "a (4, 5) matrix"
        result = self.call_full("nn_basics.softmax", x, return_args=True, case=case)
        self.assert_close(result.args_after[0], x, "the input x after the call", case=case, rtol=0, atol=0)
        self.assert_close(result.value, self.ref.nn_basics.softmax(x.copy()), "softmax(x)", case=case)


class SigmoidHidden(GradedTestCase):
    question = "1b"

    def test_matrix_and_extremes(self):
        """sigmoid of a matrix, including large positive and negative inputs"""
        x = np.array([[-40.0, -5.0, 0.0], [5.0, 40.0, 0.25]])
        case = "a (2, 3) matrix with entries up to +-40"
        self.assert_close(
            self.call("nn_basics.sigmoid", x, case=case), self.ref.nn_basics.sigmoid(x.copy()), "sigmoid(x)", case=case
        )


class ForwardBackwardHidden(GradedTestCase):
    question = "1c"
    functions = ("nn_basics.forward_backward_prop", *NETWORK_TAGS)

    def check_other_sizes(self, part: str) -> None:
        dims, n = [6, 8, 4], 20
        case = f"{n} examples, dimensions {dims}"
        X, labels, params = network(dims, n, 11)
        args = [X, labels, params, dims]
        cost, grad = self.unpack(
            self.call("nn_basics.forward_backward_prop", *args, case=case), 2, "forward_backward_prop", case=case
        )
        expected = self.expect("nn_basics.forward_backward_prop", *args)
        if part == "cost":
            self.assert_close(cost, expected[0], "cost", case=case)
            return
        self.assert_gradient(
            "nn_basics.forward_backward_prop",
            args,
            2,
            grad=grad,
            expected_grad=expected[1],
            loss=cost,
            expected_loss=expected[0],
            what="grad (flat, like params)",
            case=case,
            layout=network_layout(dims),
        )

    @weight(1)
    def test_other_sizes_cost(self):
        """cost of a wider network on a larger batch"""
        self.check_other_sizes("cost")

    @weight(1)
    def test_other_sizes_gradient(self):
        """gradient of a wider network's cost on a larger batch"""
        self.check_other_sizes("gradient")


class InputGradientHidden(GradedTestCase):
    question = "1d"
    functions = ("nn_basics.input_gradient", *NETWORK_TAGS)

    def test_larger(self):
        """gradient with respect to X for a larger network and batch"""
        dims, n = [7, 6, 5], 12
        case = f"{n} examples, dimensions {dims}"
        X, labels, params = network(dims, n, 21)
        got = self.call("nn_basics.input_gradient", X, labels, params, dims, case=case)
        expected = self.ref.nn_basics.input_gradient(X.copy(), labels.copy(), params.copy(), dims)
        self.assert_close(got, expected, "dJ/dX", case=case, rows=True)


class Word2vecSigmoidHidden(GradedTestCase):
    question = "2a"

    def test_matrix(self):
        """sigmoid of a matrix"""
        x = np.random.default_rng(4).standard_normal((3, 4)) * 3
        case = "a (3, 4) matrix"
        self.assert_close(
            self.call("word2vec.sigmoid", x, case=case), self.ref.word2vec.sigmoid(x.copy()), "sigmoid(x)", case=case
        )

    def test_large_inputs(self):
        """sigmoid gives finite values for large |x| (0 and 1 at x = -800 and 800, not NaN)"""
        x = np.array([-800.0, -40.0, 0.0, 40.0, 800.0])
        case = f"x = {x.tolist()}"
        with np.errstate(over="ignore"):  # the plain formula's exp(800) overflows harmlessly to inf
            expected = self.ref.word2vec.sigmoid(x.copy())
        self.assert_close(self.call("word2vec.sigmoid", x, case=case), expected, "sigmoid(x)", case=case)


class NaiveSoftmaxHidden(LossTestsMixin):
    question = "2b"
    functions = NAIVE_TAGS
    target = "word2vec.naive_softmax_loss_and_gradient"
    CASE = "12 words, d = 6, vectors scaled by 30"

    # the loss and each gradient scored apart: a bug in one costs that one
    @weight(0.5)
    def test_large_scores_loss(self):
        """naive softmax with 12 words, d = 6 and large scores (needs a stable softmax): the loss"""
        self.loss_case(12, 6, 31, "loss", self.CASE, scale=30.0, best_outside=True)

    @weight(0.5)
    def test_large_scores_center(self):
        """naive softmax with large scores: the gradient for the center vector"""
        self.loss_case(12, 6, 31, "center", self.CASE, scale=30.0, best_outside=True)

    @weight(0.5)
    def test_large_scores_outside(self):
        """naive softmax with large scores: the gradient for the outside vectors"""
        self.loss_case(12, 6, 31, "outside", self.CASE, scale=30.0, best_outside=True)


class NegativeSamplingHidden(LossTestsMixin):
    question = "2c"
    functions = NEG_TAGS
    target = "word2vec.neg_sampling_loss_and_gradient"
    CASE = "8 words, d = 4, K = 6, word 3 drawn 5 times"
    SCRIPT = [3, 3, 0, 3, 3, 7, 3, 5]  # the outside word for seed 41 is never 3

    @weight(0.5)
    def test_many_repeats_loss(self):
        """negative sampling when one negative is drawn many times, K = 6: the loss"""
        self.loss_case(8, 4, 41, "loss", self.CASE, samples=self.SCRIPT, K=6)

    @weight(0.5)
    def test_many_repeats_center(self):
        """negative sampling with repeated negatives: the gradient for the center vector"""
        self.loss_case(8, 4, 41, "center", self.CASE, samples=self.SCRIPT, K=6)

    @weight(0.5)
    def test_many_repeats_outside(self):
        """negative sampling with repeated negatives: the gradient for the outside vectors"""
        self.loss_case(8, 4, 41, "outside", self.CASE, samples=self.SCRIPT, K=6)


class SkipgramHidden(SkipgramTestsMixin):
    question = "2d"

    def test_repeats_and_center(self):
        """skip-gram when outside words repeat and include the center word itself"""
        self.check_skipgram_values(
            6, 4, "d", ["a", "d", "b", "a", "f", "d"], 52, case="center 'd', outside a d b a f d"
        )

    @weight(1)
    def test_larger_vocabulary(self):
        """skip-gram with 12 words and d = 5"""
        self.check_skipgram_values(12, 5, "k", ["h", "i", "j", "l"], 53, case="12 words, center 'k'")


class SgdHidden(SgdTestsMixin):
    question = "3"

    @partial_credit(1.5)
    def test_steep(self, set_score=None):
        """sgd follows the exact trajectory on a steep quadratic (f called once per iteration)"""
        self.sgd_case(
            1.5, set_score, -1.0, 2.0, 0.2, 7, scale=2.0, case="f(x) = 2 (x + 1)^2 from x0 = 2, step 0.2, 7 steps"
        )

    def test_postprocessing(self):
        """sgd applies postprocessing to x after every update"""
        case = "f(x) = |x - (3, 0, 4)|^2 from (0, 1, 0), step 0.1, postprocessing x / max(1, |x|)"
        args = [FixtureRef("Quadratic", ([3.0, 0.0, 4.0],)), np.array([0.0, 1.0, 0.0]), 0.1, 40]
        kwargs: dict[str, Any] = {"postprocessing": FixtureRef("UnitBall", id="post"), "print_every": None}
        expected = self.expect_full("sgd.sgd", *args, **kwargs)
        result = self.call_full("sgd.sgd", *args, case=case, **kwargs)
        calls, expected_calls = result.fixtures["post"]["calls"], expected.fixtures["post"]["calls"]
        try:
            self.assert_close(result.value, expected.value, "final x", case=case, rtol=1e-7, atol=1e-10)
        except AssertionError as wrong:
            if calls == expected_calls:
                raise
            self.fail(
                f"{wrong}\nsgd called postprocessing {calls} times in {expected_calls} iterations; "
                "the given code applies it to x after every update"
            )

    def test_annealing(self):
        """sgd halves the step every ANNEAL_EVERY iterations"""
        self.check_step_sizes(resume_after=0, case="f(x) = x from x0 = 0, step 1, 10 iterations, ANNEAL_EVERY = 4")

    def test_resume(self):
        """sgd with use_saved=True goes on from the newest checkpoint"""
        self.check_step_sizes(
            resume_after=7,
            case="f(x) = x from x0 = 0, step 1, 7 iterations, then "
            "resumed to 10 (ANNEAL_EVERY = 4, SAVE_PARAMS_EVERY = 3)",
        )

    def check_step_sizes(self, resume_after: int, case: str) -> None:
        """sgd on f(x) = x, whose constant gradient makes every step show in the points f sees."""
        args = [0.0, 1.0, 10, 4, 3, resume_after]
        expected = self.expect("fixtures:sgd_short_periods", *args)
        got = self.call("fixtures:sgd_short_periods", *args, case=case)
        try:
            self.assert_close(got[-1]["x"], expected[-1]["x"], "final x", case=case, rtol=1e-9, atol=1e-12)
        except AssertionError as wrong:
            self.fail(f"{wrong}\nSteps taken: {_steps(got)}\nexpected:    {_steps(expected)}")


def _steps(runs: list[dict]) -> str:
    """The step of every iteration of each call of sgd, read off the points a slope of 1 was asked
    about and the final x. Points repeated in a row are one iteration: an sgd that calls f more
    than once per iteration asks about the same x again, which costs points elsewhere."""
    parts = []
    for index, run in enumerate(runs):
        try:
            path = [float(x) for x in [*run["points"], run["x"]]]
        except (TypeError, ValueError, KeyError):
            return "(unknown: x is not a index)"
        path = [x for i, x in enumerate(path) if i == 0 or x != path[i - 1]]
        steps = " ".join(f"{a - b:g}" for a, b in zip(path, path[1:]))
        parts.append(steps if index == 0 else f"then, resumed from x = {path[0]:g}: {steps}")
    return "; ".join(parts)
