"""Numerical gradient checking with centred finite differences.

The idea: for a scalar function J(x) and a tiny step h,

    dJ/dx_i  ~  (J(x + h e_i) - J(x - h e_i)) / (2 h)

where e_i is the i-th unit vector. The error of this centred estimate
shrinks like h**2, so with h = 1e-4 it agrees with a correct analytical
gradient to roughly eight significant digits. A disagreement beyond the
tolerance almost always means a bug in the analytical gradient.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

STEP = 1e-4
TOLERANCE = 1e-5

LossAndGradient = Callable[[np.ndarray], tuple[float, np.ndarray]]


class GradientCheckError(AssertionError):
    """The analytical gradient disagrees with the numerical estimate."""


@dataclass(frozen=True)
class GradientCheckResult:
    """Outcome of `gradcheck_naive`.

    `worst_index` is the coordinate with the largest relative error and
    `numerical`, `analytical` are the two partial derivatives found there.
    """

    passed: bool
    worst_index: tuple[int, ...] | None
    numerical: float
    analytical: float
    relative_error: float
    message: str


def relative_error(numerical: float, analytical: float) -> float:
    """|num - ana| / max(1, |num|, |ana|).

    Dividing by the larger magnitude makes big derivatives comparable to
    small ones; the floor of 1 stops tiny derivatives from blowing the
    ratio up, so for them this is simply the absolute error.
    """
    scale = max(1.0, abs(numerical), abs(analytical))
    error = abs(numerical - analytical) / scale
    return error if np.isfinite(error) else float("inf")


def gradcheck_naive(
    f: LossAndGradient, x: np.ndarray, gradient_text: str = ""
) -> GradientCheckResult:
    """Compare the gradient returned by `f` with centred differences.

    Args:
        f: takes an array shaped like `x` and returns `(loss, gradient)`,
            a scalar and an array of the same shape as `x`.
        x: the point at which to check. It is copied: the caller's array
            is never perturbed.
        gradient_text: names the gradient in the result message.

    Returns:
        A `GradientCheckResult`; it does not raise on a mismatch (use
        `assert_gradient` for that).

    Both `random` and `np.random` are reset to the states they had on entry
    before *every* call of `f`. A loss that draws random samples (for
    example negative samples) therefore sees the same draws at x + h and
    x - h, so its numerical derivative is meaningful.

    Caveat: a check can only catch inconsistencies. A function that
    returns zero loss and a zero gradient everywhere passes trivially.
    """
    label = f" for {gradient_text}" if gradient_text else ""
    point = np.array(x, dtype=float)  # private copy that we perturb
    python_state, numpy_state = random.getstate(), np.random.get_state()

    def evaluate(at: np.ndarray) -> tuple[float, np.ndarray]:
        random.setstate(python_state)
        np.random.set_state(numpy_state)
        # Hand `f` its own copy so that even a careless `f` cannot
        # change the point we are differentiating around.
        return f(at.copy())

    _, gradient = evaluate(point)
    gradient = np.asarray(gradient, dtype=float)
    if gradient.shape != point.shape:
        message = (
            f"Gradient check failed{label}: the gradient has shape "
            f"{gradient.shape} but the input has shape {point.shape}."
        )
        return GradientCheckResult(False, None, float("nan"), float("nan"), float("inf"), message)

    worst_index, worst_error = None, -1.0
    worst_numerical = worst_analytical = float("nan")
    for index in np.ndindex(point.shape):
        original = point[index]
        point[index] = original + STEP
        loss_plus = float(evaluate(point)[0])
        point[index] = original - STEP
        loss_minus = float(evaluate(point)[0])
        point[index] = original

        numerical = (loss_plus - loss_minus) / (2 * STEP)
        analytical = float(gradient[index])
        error = relative_error(numerical, analytical)
        if error > worst_error:
            worst_index, worst_error = index, error
            worst_numerical, worst_analytical = numerical, analytical

    passed = worst_error <= TOLERANCE
    if passed:
        message = f"Gradient check passed{label} (worst relative error {worst_error:.1e})."
    else:
        message = (
            f"Gradient check failed{label} at index {worst_index}: "
            f"numerical {worst_numerical:.8g}, analytical {worst_analytical:.8g}, "
            f"relative error {worst_error:.2e} > {TOLERANCE:.0e}."
        )
    return GradientCheckResult(
        passed, worst_index, worst_numerical, worst_analytical, worst_error, message
    )


def assert_gradient(
    f: LossAndGradient, x: np.ndarray, gradient_text: str = ""
) -> GradientCheckResult:
    """Like `gradcheck_naive`, but raise `GradientCheckError` on a mismatch."""
    result = gradcheck_naive(f, x, gradient_text)
    if not result.passed:
        raise GradientCheckError(result.message)
    return result
