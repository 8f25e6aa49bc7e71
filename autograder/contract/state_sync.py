"""What both sides of a helper call keep in step (error carried forward): the arrays of an object's
state each last saw, and the random generators among a call's arguments.

The worker's stand-in (:mod:`autograder.worker.helpers`) and the grader's answer
(:mod:`autograder.grading.carried_forward`) each hold a :class:`StateSync` per object, so neither
imports the other's side.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from autograder.contract.protocol import KEPT, ProtocolError


def generators_in(value: Any, depth: int = 0) -> list[np.random.Generator]:
    """The random generators inside ``value``, in the order the Encoder meets them."""
    if isinstance(value, np.random.Generator):
        return [value]
    if depth > 64:
        return []
    if isinstance(value, (list, tuple)):
        return [g for item in value for g in generators_in(item, depth + 1)]
    if isinstance(value, dict):
        return [g for item in value.values() for g in generators_in(item, depth + 1)]
    return []


class StateSync:
    """The arrays of one object's state as both sides last saw them, so that an array that did not
    change since travels as ``KEPT``: a model's parameters then cross the wire when they change,
    not at every forward pass. Both sides record what they send and what they receive, so their
    records agree. Only large arrays are tracked; small values always travel."""

    LARGE = 1 << 16

    def __init__(self) -> None:
        self.seen: dict[tuple, np.ndarray] = {}

    def outgoing(self, value: Any, path: tuple = ()) -> Any:
        if isinstance(value, np.ndarray) and value.nbytes >= self.LARGE:
            if _unchanged(self.seen.get(path), value):
                return KEPT
            self.seen[path] = np.array(value, copy=True)
            return value
        return self._each(value, path, self.outgoing)

    def incoming(self, value: Any, path: tuple = (), materialise: bool = True) -> Any:
        """``value`` with each ``KEPT`` replaced by a copy of what was agreed (or left as ``KEPT``
        for the side whose object still holds that very value: ``materialise=False``)."""
        if value is KEPT:
            if path not in self.seen:
                raise ProtocolError(f"KEPT for a value never sent at {path}")
            return self.seen[path].copy() if materialise else KEPT
        if isinstance(value, np.ndarray) and value.nbytes >= self.LARGE:
            self.seen[path] = np.array(value, copy=True)
            return value
        return self._each(value, path, lambda v, p: self.incoming(v, p, materialise))

    @staticmethod
    def _each(value: Any, path: tuple, function: Callable[[Any, tuple], Any]) -> Any:
        if isinstance(value, dict):
            return {key: function(item, path + (key,)) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(function(item, path + (index,)) for index, item in enumerate(value))
        return value


def _unchanged(seen: np.ndarray | None, value: np.ndarray) -> bool:
    """Whether ``value`` equals what was agreed; a few entries first, as a changed array (the
    parameters after an optimizer step) usually differs everywhere."""
    if seen is None or seen.shape != value.shape or seen.dtype != value.dtype:
        return False
    nan = value.dtype.kind in "fc"
    sample = np.linspace(0, value.size - 1, num=min(value.size, 64), dtype=np.intp)
    return bool(
        np.array_equal(seen.flat[sample], value.flat[sample], equal_nan=nan)
        and np.array_equal(seen, value, equal_nan=nan)
    )
