"""Public tests of the word2vec assignment: students can run these themselves."""

from __future__ import annotations

import numpy as np
from gradescope_utils.autograder_utils.decorators import partial_credit, tags, weight

from autograder.assignments.word2vec.support import (
    NETWORK_TAGS,
    LossTestsMixin,
    SgdTestsMixin,
    SkipgramTestsMixin,
    network,
    network_layout,
)
from autograder.grading.testing import GradedTestCase

NEG_TAGS = ("word2vec.neg_sampling_loss_and_gradient", "word2vec.sigmoid", "word2vec.get_negative_samples")
NAIVE_TAGS = ("word2vec.naive_softmax_loss_and_gradient", "nn_basics.softmax")


class Softmax(GradedTestCase):
    question = "1a"

    def test_vectors(self):
        """softmax of 1-D vectors"""
        for x in ([1.0, 2.0, 3.0], [0.0, 0.0], np.random.default_rng(1).standard_normal(7)):
            x = np.asarray(x, dtype=float)
            case = f"x = {np.round(x, 3).tolist()}"
            self.check("nn_basics.softmax", x, case=case, what="softmax(x)")

    def test_rows(self):
        """softmax of a matrix is taken row by row"""
        x = np.random.default_rng(2).standard_normal((3, 4))
        case = "a (3, 4) matrix"
        self.check("nn_basics.softmax", x, case=case, what="softmax(x)", rows=True)

    def test_large_inputs(self):
        """softmax is numerically stable for large inputs"""
        for x in (np.array([1001.0, 1002.0]), np.array([[-1001.0, -1002.0], [3.0, 4.0]]), np.array([[1e4, 0.0, -1e4]])):
            self.check("nn_basics.softmax", x, case=f"x = {x.tolist()}", what="softmax(x)", rows=x.ndim == 2)


class Sigmoid(GradedTestCase):
    question = "1b"

    @tags("nn_basics.sigmoid")
    def test_sigmoid(self):
        """sigmoid of a scalar and of a vector"""
        for x in (0.5, np.array([-3.0, -0.5, 0.0, 2.0, 10.0])):
            case = f"x = {np.round(x, 3).tolist()}"
            self.check("nn_basics.sigmoid", x, case=case, what="sigmoid(x)")

    @tags("nn_basics.sigmoid_grad")
    def test_sigmoid_grad(self):
        """sigmoid_grad takes the sigmoid's output s"""
        s = 1.0 / (1.0 + np.exp(-np.array([[-2.0, 0.0, 1.0], [3.0, -0.3, 0.7]])))
        case = "s = sigmoid(x) for a (2, 3) x"
        self.check("nn_basics.sigmoid_grad", s, case=case, what="sigmoid_grad(s)")


class ForwardBackward(GradedTestCase):
    question = "1c"
    functions = ("nn_basics.forward_backward_prop", *NETWORK_TAGS)

    def check_network(self, dims: list[int], n: int, seed: int, part: str) -> None:
        case = f"{n} examples, dimensions {dims}"
        X, labels, params = network(dims, n, seed)
        args = [X, labels, params, dims]
        cost, grad = self.unpack(
            self.call("nn_basics.forward_backward_prop", *args, case=case), 2, "forward_backward_prop", case=case
        )
        expected = self.expect("nn_basics.forward_backward_prop", *args)
        if part == "cost":
            self.assert_close(cost, expected[0], "cost", case=case)
        else:
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

    @weight(2)
    def test_cost(self):
        """cost of a small network, summed over the batch"""
        self.check_network([4, 5, 3], 6, 10, "cost")

    @weight(2)
    def test_gradient(self):
        """gradient of a small network's cost for every parameter"""
        self.check_network([4, 5, 3], 6, 10, "grad")


class InputGradient(GradedTestCase):
    question = "1d"
    functions = ("nn_basics.input_gradient", *NETWORK_TAGS)

    def check_input_gradient(self, dims: list[int], n: int, seed: int) -> None:
        case = f"{n} examples, dimensions {dims}"
        X, labels, params = network(dims, n, seed)
        got = self.call("nn_basics.input_gradient", X, labels, params, dims, case=case)
        expected = self.expect("nn_basics.input_gradient", X, labels, params, dims)
        self.assert_close(got, expected, "dJ/dX", case=case, rows=True)

    def test_input_gradient(self):
        """gradient of the cost with respect to the inputs X"""
        self.check_input_gradient([3, 4, 2], 5, 20)


class Word2vecSigmoid(GradedTestCase):
    question = "2a"

    @weight(0.5)
    def test_values(self):
        """sigmoid of a scalar and of a vector"""
        for x in (0.0, np.array([-2.0, 0.5, 4.0])):
            case = f"x = {np.round(x, 3).tolist()}"
            self.check("word2vec.sigmoid", x, case=case, what="sigmoid(x)")


class NaiveSoftmax(LossTestsMixin):
    question = "2b"
    functions = NAIVE_TAGS
    target = "word2vec.naive_softmax_loss_and_gradient"

    @weight(1.5)
    def test_loss(self):
        """naive-softmax loss"""
        self.loss_case(5, 3, 30, "loss", "5 words, d = 3")

    @weight(1.5)
    def test_grad_center(self):
        """naive-softmax gradient for the center vector"""
        self.loss_case(5, 3, 30, "center", "5 words, d = 3")

    @weight(1.5)
    def test_grad_outside(self):
        """naive-softmax gradient for the outside vectors"""
        self.loss_case(5, 3, 30, "outside", "5 words, d = 3")


# The outside word (index 2 for seed 40) appears in the script, so it must be redrawn; 1 repeats.
NEG_SCRIPT = [1, 2, 4, 1, 0, 3, 1, 2, 4, 0, 3, 4]


class NegativeSampling(LossTestsMixin):
    question = "2c"
    functions = NEG_TAGS
    target = "word2vec.neg_sampling_loss_and_gradient"

    @weight(1.5)
    def test_loss(self):
        """negative-sampling loss"""
        self.loss_case(5, 3, 40, "loss", "5 words, d = 3, K = 10", samples=NEG_SCRIPT)

    @weight(1.5)
    def test_grad_center(self):
        """negative-sampling gradient for the center vector"""
        self.loss_case(5, 3, 40, "center", "5 words, d = 3, K = 10", samples=NEG_SCRIPT)

    @weight(1.5)
    def test_grad_outside(self):
        """negative-sampling gradient for the outside vectors (repeated negatives count twice)"""
        self.loss_case(5, 3, 40, "outside", "5 words, d = 3, K = 10", samples=NEG_SCRIPT)


class Skipgram(SkipgramTestsMixin):
    question = "2d"

    def test_sums(self):
        """skip-gram sums the loss and gradients over the outside words"""
        self.check_skipgram_values(5, 3, "c", ["a", "b", "d", "e"], 50, case="center 'c', outside a b d e")

    @weight(1)
    def test_calls(self):
        """skip-gram calls the loss once per outside word, with the center word's vector"""
        case = "center 'b', outside a c d"
        _, _, log, expected_log, center_vec = self.skipgram_case(5, 3, "b", ["a", "c", "d"], 51, case=case)
        if sorted(log["outside"]) != sorted(expected_log["outside"]):
            self.fail(
                f"skipgram [{case}]: called the loss for outside indices {log['outside']}, "
                f"expected each of {expected_log['outside']} once"
            )
        for passed in log["centers"]:
            self.assert_close(passed, center_vec, "center_word_vec passed to the loss", case=case)


class Sgd(SgdTestsMixin):
    question = "3"

    @partial_credit(1)
    def test_scalar(self, set_score=None):
        """sgd minimises a quadratic of a Python float (f called once per iteration)"""
        self.sgd_case(1, set_score, 1.5, 0.5, 0.1, 60, case="f(x) = (x - 1.5)^2 from x0 = 0.5, step 0.1")

    @partial_credit(1)
    def test_array(self, set_score=None):
        """sgd minimises a quadratic of an array (f called once per iteration, x0 unchanged)"""
        self.sgd_case(
            1,
            set_score,
            [1.0, -2.0, 0.5],
            np.array([0.0, 0.0, 3.0]),
            0.05,
            80,
            case="f(x) = |x - (1, -2, 0.5)|^2 from (0, 0, 3), step 0.05",
        )
