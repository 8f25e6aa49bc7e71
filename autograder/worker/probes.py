"""Probes every assignment can use: small scripted interactions run next to the student's code.

A probe receives the student's modules (:class:`autograder.worker.calls.StudentModules`) and returns
raw outputs for the grader to judge. Probes never decide whether anything is right.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np


def _first_number(result: Any) -> float:
    value = result[0] if isinstance(result, (tuple, list)) else result
    return float(value)


def directional_losses(
    student, target: str, args: list, wrt: int, directions, h: float = 1e-4, seed: int = 0
) -> np.ndarray:
    """Losses of ``target`` at ``args[wrt] + h d`` (row 0) and ``args[wrt] - h d`` (row 1), for
    each direction ``d`` in ``directions`` (an array of shape ``(k, *args[wrt].shape)``).

    Before each evaluation the global random state is reseeded and every fixture with a
    ``reset()`` method is reset, so that randomness (negative samples) is the same on both sides
    of each difference. Every call gets fresh copies of the array arguments, in case the student's
    code modifies its inputs.
    """
    function = student.attr(target)
    base = np.array(args[wrt], dtype=float)
    directions = np.asarray(directions, dtype=float).reshape(-1, *base.shape)
    losses = np.empty((2, len(directions)))
    for k, direction in enumerate(directions):
        for row, sign in enumerate((1.0, -1.0)):
            call_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
            call_args[wrt] = base + sign * h * direction
            for arg in args:
                if hasattr(arg, "reset") and not isinstance(arg, np.ndarray):
                    arg.reset()
            random.seed(seed)
            np.random.seed(seed)
            losses[row, k] = _first_number(function(*call_args))
    return losses


def import_module(student, name: str) -> bool:
    """Imports one of the student's modules: the import check of :mod:`autograder.grading.preflight`."""
    student.module(name)
    return True
