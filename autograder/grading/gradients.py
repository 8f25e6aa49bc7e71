"""Does a gradient match centred differences of its own loss, and if not, where not?

The question a wrong gradient raises is whether the loss or the gradient formula is to blame, so the
grader compares the student's gradient with centred differences of the student's own loss. Done one
coordinate at a time, that costs two loss evaluations per coordinate: most of the time of grading a
buggy gradient. Here the differences are taken along directions instead:

    (f(x + h d) - f(x - h d)) / 2h  ~  grad . d      for a unit vector d.

The coordinates are split into at most :data:`BLOCKS` contiguous blocks, each probed along one
random unit direction that lives on that block alone. If every block agrees, the gradient matches
its loss; otherwise the search goes on inside the block that disagrees most, and so on inside its
blocks, until one coordinate is left, whose relative error (the gradient checker's
``|a - b| / max(1, |a|, |b|)``) is reported. That is about ``2 * BLOCKS * log_BLOCKS(n)`` evaluations
instead of two per coordinate, in a few round trips to the worker. Where the right gradient is known,
its largest difference from the student's is looked at first: when the loss is right and the formula
is not, that is where the two disagree.

Random directions are Gaussian, so that errors inside a block cannot cancel (as they can with signs
of +-1), and drawn from a fixed seed, so that the same submission always gets the same feedback.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from autograder.grading import checks

H = 1e-4
TOLERANCE = 1e-5
BLOCKS = 4

# Directions (k, n) -> losses (2, k): row 0 at x + h d_j, row 1 at x - h d_j.
LossesAlong = Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class Disagreement:
    """The coordinate where the gradient disagrees with centred differences, and by how much."""

    error: float  # relative error there; inf if the loss was not a finite number
    index: tuple[int, ...]

    def describe(self, layout: checks.Layout | None = None) -> str:
        return f"relative error {self.error:.3g}{checks.at_index(self.index, layout)}"

    def __str__(self) -> str:
        return self.describe()


def relative_error(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``|a - b| / max(1, |a|, |b|)``, the gradient checker's measure; NaN (a loss that
    overflowed) counts as infinitely wrong."""
    with np.errstate(invalid="ignore", over="ignore"):
        error = np.abs(a - b) / np.maximum(1.0, np.maximum(np.abs(a), np.abs(b)))
    return np.where(np.isnan(error), np.inf, error)


def _errors(
    losses_along: LossesAlong, grad: np.ndarray, blocks: list[np.ndarray], h: float, rng: np.random.Generator
) -> np.ndarray:
    """The relative error of the gradient along one random unit direction per block (zero outside it)."""
    flat = grad.ravel()
    directions = np.zeros((len(blocks), flat.size))
    for row, block in enumerate(blocks):
        weights = rng.standard_normal(len(block)) if len(block) > 1 else np.ones(1)
        directions[row, block] = weights / np.linalg.norm(weights)
    losses = np.asarray(losses_along(directions.reshape(-1, *grad.shape)), dtype=float)
    with np.errstate(invalid="ignore", over="ignore"):
        numerical = (losses[0] - losses[1]) / (2 * h)
    return relative_error(numerical, directions @ flat)


def _at(flat_index: int, shape: tuple[int, ...], error: float) -> Disagreement:
    return Disagreement(float(error), tuple(int(i) for i in np.unravel_index(flat_index, shape)))


def find_disagreement(
    losses_along: LossesAlong,
    grad: np.ndarray,
    expected: np.ndarray | None = None,
    h: float = H,
    tolerance: float = TOLERANCE,
    seed: int = 0,
) -> Disagreement | None:
    """Where ``grad`` disagrees with centred differences of the loss ``losses_along`` evaluates;
    None if it agrees everywhere (every block within ``tolerance``).

    ``expected``, the right gradient if it is known, saves most of the work when the loss is right
    and the gradient formula is not (the usual bug): the coordinate where ``grad`` is furthest from
    it is checked first, with two evaluations, and reported if it disagrees.
    """
    grad = np.asarray(grad, dtype=float)
    if grad.size == 0:
        return None
    rng = np.random.default_rng(seed)
    if expected is not None:
        suspect = int(np.argmax(relative_error(grad.ravel(), np.asarray(expected, dtype=float).ravel())))
        error = _errors(losses_along, grad, [np.array([suspect])], h, rng)[0]
        if error > tolerance:
            return _at(suspect, grad.shape, error)
    indices = np.arange(grad.size)
    while True:
        blocks = np.array_split(indices, min(BLOCKS, len(indices)))
        errors = _errors(losses_along, grad, blocks, h, rng)
        worst = int(np.argmax(errors))
        if errors[worst] <= tolerance and len(indices) == grad.size:
            return None  # the first round decides; later ones only narrow down where
        indices = blocks[worst]
        if len(indices) == 1:
            return _at(int(indices[0]), grad.shape, errors[worst])
