"""Small numerical helpers shared by the assignment."""

from __future__ import annotations

import numpy as np


def normalize_rows(x: np.ndarray) -> np.ndarray:
    """Return a new array in which every row of `x` has unit L2 norm.

    Args:
        x: array of shape (N, D); it is not modified.

    Returns:
        Array of shape (N, D). An all-zero row stays all zero instead of
        becoming NaN.
    """
    x = np.asarray(x, dtype=float)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.where(norms > 0.0, norms, 1.0)
