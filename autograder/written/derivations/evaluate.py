"""Computes a formula's tree on values of the notation's symbols, with numpy.

Every value is a 2-D array: a scalar is 1 x 1, a vector 1 x n or n x 1 as the convention writes it.
A product side by side is the matrix product when the inner sizes agree, a scaling when one side
is a scalar, and entry by entry when both have the same shape and no matrix product fits
(``h(1-h)``); anything else is a :class:`ShapeError`, which the verdict reports. A formula computes
at most :data:`MAX_STEPS` nodes (sums included), so no formula runs long.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from autograder.written.derivations.tree import (
    Call,
    Defined,
    Entry,
    IndexExpression,
    IndexName,
    IndexOf,
    Indicator,
    Let,
    Name,
    Negative,
    Node,
    Number,
    Part,
    Power,
    Product,
    SameIndex,
    Stack,
    Sum,
    Summation,
    Tabulate,
    Transpose,
    children,
)

MAX_STEPS = 20_000


class EvaluationError(ValueError):
    """The formula cannot be computed: its shapes do not fit, or an index is unknown."""


class ShapeError(EvaluationError):
    """Two shapes that no operation of the formula fits together."""


class OutOfRange(EvaluationError):
    """A sum whose limits reach values its index cannot take (``k = 0`` to ``K`` over K samples)."""


class FreeIndex(EvaluationError):
    """An index that no sum binds and the question does not name: a dropped sum."""


@dataclass
class Scope:
    """The values a formula is computed on; an index is bound as ``(position, list)``: a position in
    an index list such as the samples ``w``, or in ``""`` for a plain index."""

    symbols: dict[str, np.ndarray]
    parts: dict[str, Callable[[int], np.ndarray]]
    part_counts: dict[str, int]
    dims: dict[str, int]
    lists: dict[str, np.ndarray]
    list_lengths: dict[str, str]  # index list -> the name of its length ("w" -> "K")
    bound: dict[str, tuple[int, str]] = field(default_factory=dict)
    steps: int = 0
    # A vector defined entry by entry, once computed for these bindings: an entry of it is read in
    # every term of a sum, and computing it each time is what takes the steps.
    tabulated: dict[tuple[int, tuple[tuple[str, tuple[int, str]], ...]], np.ndarray] = field(default_factory=dict)
    dot_products: bool = False  # how "u \\cdot v" of two vectors of one shape is read: dot product or entry by entry


def evaluate(node: Node, scope: Scope) -> np.ndarray:
    scope.steps += 1
    if scope.steps > MAX_STEPS:
        raise EvaluationError(f"it takes more than {MAX_STEPS} steps to compute")
    if isinstance(node, Number):
        return np.array([[node.value]])
    if isinstance(node, Name):
        return scope.symbols[node.symbol]
    if isinstance(node, Part):
        index = index_value(node.index, scope)
        if not 0 <= index < scope.part_counts[node.family]:
            raise EvaluationError(f"{node.family} has no part {index + 1}")
        return scope.parts[node.family](index)
    if isinstance(node, Entry):
        return entry(evaluate(node.operand, scope), [index_value(i, scope) for i in node.indices])
    if isinstance(node, SameIndex):
        same = index_value(node.left, scope) == index_value(node.right, scope)
        return np.array([[float(same != node.differ)]])
    if isinstance(node, Negative):
        return -evaluate(node.operand, scope)
    if isinstance(node, (Sum, Product, Indicator)):
        left, right = evaluate(node.left, scope), evaluate(node.right, scope)
        if isinstance(node, Sum):
            return _combine(left, right, np.subtract if node.subtract else np.add, "add")
        if isinstance(node, Indicator):
            return _combine(left, right, _RELATIONS[node.relation], "compare").astype(float)
        if node.kind == "matmul" and (_is_scalar(left) or _is_scalar(right)) and left.shape != right.shape:
            raise ShapeError("numpy's @ takes no scalar")
        dot = node.kind == "matmul" or (node.kind == "dot" and scope.dot_products)
        if dot and left.shape == right.shape and 1 in left.shape:
            return np.array([[float(left.ravel() @ right.ravel())]])
        return _product(left, right, node.kind)
    if isinstance(node, Power):
        return _power(evaluate(node.base, scope), node.exponent)
    if isinstance(node, Transpose):
        return evaluate(node.operand, scope).T
    if isinstance(node, Call):
        return _call(node.function, evaluate(node.argument, scope))
    if isinstance(node, Defined):
        return _applied(node, evaluate(node.argument, scope), scope)
    if isinstance(node, Let):
        return _with(node.letter, (index_value(node.index, scope), ""), node.body, scope)
    if isinstance(node, Tabulate):
        return _tabulate(node, scope)
    if isinstance(node, Stack):
        rows = [scope.parts[node.family](int(index)).reshape(1, -1) for index in scope.lists[node.indices]]
        return np.vstack(rows).T if node.columns else np.vstack(rows)
    return _summation(node, scope)


def entry(value: np.ndarray, indices: list[int]) -> np.ndarray:
    """Entry ``indices`` of ``value``: one index for a vector, two (row, column) for a matrix."""
    if len(indices) == 1 and 1 in value.shape and 0 <= indices[0] < value.size:
        return value.reshape(-1)[indices[0] : indices[0] + 1].reshape(1, 1)
    if len(indices) == 2 and all(0 <= i < n for i, n in zip(indices, value.shape)):
        return value[indices[0] : indices[0] + 1, indices[1] : indices[1] + 1]
    raise ShapeError(f"it takes entry {tuple(i + 1 for i in indices)} of a {_shape(value)}")


def index_value(index: IndexExpression, scope: Scope) -> int:
    """The position in its dimension that ``index`` names (numbers count from 1)."""
    if isinstance(index, IndexOf):
        position, _ = _binding(index.position.name, scope)
        return int(scope.lists[index.indices][position])
    if index.name.isdigit():
        return int(index.name) - 1
    return _at(*_binding(index.name, scope), scope)


def _at(position: int, through: str, scope: Scope) -> int:
    """The index a bound letter names: its position, or the entry there of the list it walks."""
    return int(scope.lists[through][position]) if through else position


def _binding(name: str, scope: Scope) -> tuple[int, str]:
    if name not in scope.bound:
        raise FreeIndex(
            f"it uses the index {name}, which no sum runs over and the question does not name (a dropped sum?)"
        )
    return scope.bound[name]


def _applied(node: Defined, argument: np.ndarray, scope: Scope) -> np.ndarray:
    """A function the answer defined, its parameter standing for ``argument``."""
    scope.tabulated.clear()  # computed with the parameter's other value, or without it
    try:
        return _with(node.parameter, argument, node.body, scope, scope.symbols)
    finally:
        scope.tabulated.clear()


def _with(name: str, value: Any, node: Node, scope: Scope, values: dict[str, Any] | None = None) -> np.ndarray:
    """``node`` computed with ``name`` bound to ``value`` in ``values`` (the indices bound), restored after."""
    values = scope.bound if values is None else values
    saved = values.get(name)
    values[name] = value
    try:
        return evaluate(node, scope)
    finally:
        if saved is None:
            values.pop(name, None)
        else:
            values[name] = saved


def _tabulate(node: Tabulate, scope: Scope) -> np.ndarray:
    key = (id(node), tuple(sorted((k, v) for k, v in scope.bound.items() if k != node.letter)))
    if key in scope.tabulated:
        return scope.tabulated[key]
    like = scope.symbols[node.like]
    if 1 not in like.shape:
        raise ShapeError(f"{node.like} is defined entry by entry, but here it is a {_shape(like)}")
    entries = [_with(node.letter, (position, ""), node.body, scope) for position in range(like.size)]
    if any(value.shape != (1, 1) for value in entries):
        raise ShapeError(f"the entries of {node.like} it defines are not numbers")
    scope.tabulated[key] = np.array([value[0, 0] for value in entries]).reshape(like.shape)
    return scope.tabulated[key]


def _summation(node: Summation, scope: Scope) -> np.ndarray:
    skip = index_value(node.skip, scope) if node.skip is not None else None
    total: np.ndarray | None = None
    positions, through = _positions(node, scope)
    for position in positions:
        if skip is not None and _at(position, through, scope) == skip:
            continue
        binding = (position, through)
        if node.condition is not None and _with(node.index, binding, node.condition, scope)[0, 0] == 0:
            continue
        term = _with(node.index, binding, node.body, scope)
        total = term if total is None else _combine(total, term, np.add, "add")
    if total is None and node.condition is not None and len(positions):  # no k with w_k = o: 0
        return np.zeros_like(_with(node.index, (positions[0], through), node.body, scope))
    if total is None:
        raise EvaluationError(f"the sum over {node.index} has no terms")
    return total


def _positions(node: Summation, scope: Scope) -> tuple[range, str]:
    """The positions the sum's index takes, from 0 (``k=1`` to ``K`` and ``k=0`` to ``K-1``: all K),
    and the index list it walks. Limits past the values that exist (``k=0`` to ``K``) are an error."""
    count, through = _range(node, scope)
    base = 0 if node.lower == 0 else 1  # a sum from 0 counts from 0
    if node.upper.isdigit():  # right only when the number is the size here, by chance
        raise EvaluationError(f"its sum over {node.index} stops at {node.upper}: write the size it runs to (K, |V|)")
    top = count + node.shift if node.upper else count - 1 + base  # the size written above is the count (_range)
    first, last = node.lower - base, top - base
    if first < 0 or last >= count:
        limit = node.upper + (f"{node.shift:+d}" if node.shift else "")
        raise OutOfRange(
            f"its sum over {node.index} runs from {node.lower} to {limit or top}, past the {count} values it can take"
        )
    return range(first, last + 1), through


def _range(node: Summation, scope: Scope) -> tuple[int, str]:
    """How many values the sum's index can take, and the list it walks: the size written above the
    sum decides (``K``: the samples, even in ``u_k``), else what the index picks out in the sum."""
    for name, length in scope.list_lengths.items():
        if node.upper == length:
            return len(scope.lists[name]), name
    if node.upper in scope.dims:
        return scope.dims[node.upper], ""
    if node.upper and not node.upper.isdigit():
        raise EvaluationError(f"the sum's upper limit {node.upper} is no size of the notation")
    found = _uses(node.body, node.index, scope)
    if found is None and node.condition is not None:  # \sum_{k: w_k = w}: k runs over the samples
        found = _list_position(index=node.index, indices=(node.condition.left, node.condition.right), scope=scope)
    if found is None:
        raise EvaluationError(f"the sum over {node.index} does not say what {node.index} runs over")
    return found


def _uses(node: Node, index: str, scope: Scope) -> tuple[int, str] | None:
    """The range of ``index`` from the first part or entry it picks out in ``node``."""
    if isinstance(node, Part):
        if node.index == IndexName(index):
            return scope.part_counts[node.family], ""
        return _list_position(index, (node.index,), scope)
    if isinstance(node, Entry):
        found = _list_position(index, node.indices, scope)
        if found is not None:
            return found
        if IndexName(index) in node.indices and (value := _value_without(node.operand, scope)) is not None:
            axis = node.indices.index(IndexName(index))  # x_k, \exp(\theta)_k: k runs over its entries
            return (value.size if len(node.indices) == 1 else value.shape[axis]), ""
    if isinstance(node, SameIndex):  # \mathbb{1}[w_k = w]: k runs over the samples
        return _list_position(index, (node.left, node.right), scope)
    if isinstance(node, Summation) and node.index == index:
        return None  # an inner sum over the same letter hides it
    for child in children(node):
        found = _uses(child, index, scope)
        if found is not None:
            return found
    return None


def _value_without(node: Node, scope: Scope) -> np.ndarray | None:
    """``node``'s value where it needs no index bound by a sum around it, else None."""
    try:
        return evaluate(node, scope)
    except EvaluationError:
        return None


def _list_position(index: str, indices: tuple[IndexExpression, ...], scope: Scope) -> tuple[int, str] | None:
    """The range of ``index`` when one of ``indices`` is an entry of a list it runs over (``w_k``)."""
    for entry_index in indices:
        if isinstance(entry_index, IndexOf) and entry_index.position == IndexName(index):
            return len(scope.lists[entry_index.indices]), ""
    return None


def _is_scalar(value: np.ndarray) -> bool:
    return value.shape == (1, 1)


def _product(left: np.ndarray, right: np.ndarray, kind: str) -> np.ndarray:
    if kind == "divide":
        if _is_scalar(right) or left.shape == right.shape:
            with np.errstate(all="ignore"):
                return left / right
        raise ShapeError(f"it divides a {_shape(left)} by a {_shape(right)}")
    if kind == "elementwise":
        return _combine(left, right, np.multiply, "multiply entry by entry")
    if kind == "outer":
        if 1 in left.shape and 1 in right.shape:
            return np.outer(left.ravel(), right.ravel())
        raise ShapeError(f"it takes the outer product of a {_shape(left)} and a {_shape(right)}")
    if _is_scalar(left) or _is_scalar(right):
        return left * right
    if left.shape[1] == right.shape[0]:
        return left @ right
    if left.shape == right.shape:
        return left * right
    raise ShapeError(f"it multiplies a {_shape(left)} by a {_shape(right)}")


def _power(base: np.ndarray, exponent: float) -> np.ndarray:
    """Entry by entry (``h^2``); a negative power only of a scalar, where it is no matrix inverse."""
    if exponent < 0 and not _is_scalar(base):
        raise ShapeError(f"it raises a {_shape(base)} to a negative power; no inverse of a vector or matrix is read")
    with np.errstate(all="ignore"):
        return np.power(base, exponent)


def _combine(left: np.ndarray, right: np.ndarray, operation, what: str) -> np.ndarray:
    """``operation`` entry by entry; a scalar, a row or a column is repeated to fit (numpy's rule)."""
    try:
        shape: tuple[int, ...] | None = np.broadcast_shapes(left.shape, right.shape)
    except ValueError:
        shape = None
    if shape not in (left.shape, right.shape) and not (_is_scalar(left) or _is_scalar(right)):
        raise ShapeError(f"it tries to {what} a {_shape(left)} and a {_shape(right)}")
    with np.errstate(all="ignore"):
        return operation(left, right)


def _shape(value: np.ndarray) -> str:
    return "scalar" if _is_scalar(value) else f"{value.shape[0]} x {value.shape[1]} array"


def sigmoid(value: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-value))


def _softmax(value: np.ndarray) -> np.ndarray:
    axis = None if 1 in value.shape else 1  # a vector whole; a batch row by row
    shifted = np.exp(value - value.max(axis=axis, keepdims=True))
    return shifted / shifted.sum(axis=axis, keepdims=True)


def _diag(value: np.ndarray) -> np.ndarray:
    if 1 not in value.shape:
        raise ShapeError(f"diag of a {_shape(value)}: only a vector makes a diagonal matrix")
    return np.diag(value.ravel())


# What the reader's functions compute; a derivative (a name with ') is read only where it is here.
FUNCTIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "sigma": sigmoid,
    "sigma'": lambda z: sigmoid(z) * (1 - sigmoid(z)),
    "relu": lambda z: np.maximum(z, 0.0),
    "relu'": lambda z: (z > 0).astype(float),
    "exp": np.exp,
    "log": np.log,
    "tanh": np.tanh,
    "tanh'": lambda z: 1 - np.tanh(z) ** 2,
    "sech": lambda z: 1 / np.cosh(z),
    "softmax": _softmax,
    "diag": _diag,
    "sum": lambda value: np.array([[value.sum()]]),
}


_RELATIONS = {">": np.greater, "≥": np.greater_equal, "=": np.equal}


def _call(function: str, value: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return FUNCTIONS[function](value)
