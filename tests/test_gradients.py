"""autograder.grading.gradients: finding where a gradient disagrees with centred differences of its loss."""

from __future__ import annotations

import numpy as np
import pytest

from autograder.grading import gradients


def loss(x: np.ndarray) -> float:
    return float(np.sum(np.sin(x) * x ** 2))


def true_gradient(x: np.ndarray) -> np.ndarray:
    return np.cos(x) * x ** 2 + 2 * x * np.sin(x)


class Probe:
    """``losses_along`` for ``loss`` at ``x``, counting the evaluations."""

    def __init__(self, x: np.ndarray, function=loss) -> None:
        self.x, self.function, self.evaluations = x, function, 0

    def __call__(self, directions: np.ndarray) -> np.ndarray:
        assert directions.shape[1:] == self.x.shape
        self.evaluations += 2 * len(directions)
        return np.array([[self.function(self.x + sign * gradients.H * d) for d in directions]
                         for sign in (1.0, -1.0)])


@pytest.mark.parametrize("shape", [(1,), (3,), (7, 5), (200,), (4, 3, 2)])
def test_a_right_gradient_agrees(shape):
    x = np.random.default_rng(1).standard_normal(shape)
    assert gradients.find_disagreement(Probe(x), true_gradient(x)) is None


@pytest.mark.parametrize("shape,index", [((3,), (2,)), ((7, 5), (4, 1)), ((200,), (137,)), ((4, 3, 2), (0, 2, 1))])
def test_one_wrong_coordinate_is_found(shape, index):
    x = np.random.default_rng(2).standard_normal(shape)
    grad = true_gradient(x)
    grad[index] += 0.5
    found = gradients.find_disagreement(Probe(x), grad)
    assert found is not None and found.index == index
    expected = gradients.relative_error(np.array(true_gradient(x)[index]), np.array(grad[index]))
    assert found.error == pytest.approx(float(expected), rel=1e-4)


def test_errors_of_opposite_sign_in_one_block_do_not_cancel():
    x = np.random.default_rng(3).standard_normal(16)
    grad = true_gradient(x)
    grad[0] += 1.0
    grad[1] -= 1.0  # with directions of +-1 on both, these could add up to nothing
    found = gradients.find_disagreement(Probe(x), grad)
    assert found is not None and found.index in ((0,), (1,))


def test_a_wrong_gradient_everywhere_reports_a_coordinate_and_its_own_error():
    x = np.random.default_rng(4).standard_normal((6, 4))
    grad = 2 * true_gradient(x)  # the gradient of twice the loss
    found = gradients.find_disagreement(Probe(x), grad)
    assert found is not None
    truth = gradients.relative_error(true_gradient(x), grad)
    assert found.error == pytest.approx(float(truth[found.index]), rel=1e-4) and found.error > 1e-3


def test_an_empty_gradient_agrees():
    assert gradients.find_disagreement(Probe(np.zeros((0, 3))), np.zeros((0, 3))) is None


def test_a_loss_that_is_not_finite_disagrees():
    x = np.ones(5)
    found = gradients.find_disagreement(Probe(x, lambda v: float("nan")), true_gradient(x))
    assert found is not None and found.error == float("inf")


def test_far_fewer_evaluations_than_one_pair_per_coordinate():
    x = np.random.default_rng(5).standard_normal((50, 20))
    grad = true_gradient(x)
    right = Probe(x)
    assert gradients.find_disagreement(right, grad) is None
    assert right.evaluations == 2 * gradients.BLOCKS
    grad[31, 7] -= 0.1
    wrong = Probe(x)
    assert gradients.find_disagreement(wrong, grad).index == (31, 7)
    assert wrong.evaluations <= 2 * gradients.BLOCKS * 5  # 1000 coordinates: 250, 63, 16, 4, 1
    assert wrong.evaluations < 2 * x.size / 10


def test_the_largest_difference_from_the_right_gradient_is_looked_at_first():
    x = np.random.default_rng(7).standard_normal((30, 10))
    right = true_gradient(x)
    wrong_formula = right.copy()
    wrong_formula[12, 3] += 2.0
    wrong_formula[5, 5] += 0.1
    probe = Probe(x)
    found = gradients.find_disagreement(probe, wrong_formula, right)
    assert found.index == (12, 3) and probe.evaluations == 2
    assert str(found) == f"relative error {found.error:.3g} at index (12, 3)"
    # the gradient of a wrong loss (twice the right one) agrees with that loss: no disagreement
    doubled = Probe(x, lambda v: 2 * loss(v))
    assert gradients.find_disagreement(doubled, 2 * right, right) is None
    assert doubled.evaluations == 2 + 2 * gradients.BLOCKS


def test_the_same_gradient_gets_the_same_answer():
    x = np.random.default_rng(6).standard_normal(40)
    grad = 1.5 * true_gradient(x)
    assert gradients.find_disagreement(Probe(x), grad) == gradients.find_disagreement(Probe(x), grad)


def test_relative_error_is_the_gradient_checkers():
    np.testing.assert_allclose(gradients.relative_error(np.array([0.5, 100.0]), np.array([0.0, 101.0])),
                               [0.5, 1 / 101])
