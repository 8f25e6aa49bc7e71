"""Random values for identity testing: every symbol of a notation drawn (the defined ones computed
from the others), and the scope a formula is computed in under a convention: vectors turned to its
orientation, the matrices it transposes transposed, the indices of a case bound."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from autograder.written.derivations.evaluate import EvaluationError, Scope, entry, evaluate
from autograder.written.derivations.lexemes import Vocabulary
from autograder.written.derivations.notation import Convention, Notation
from autograder.written.derivations.reader import read
from autograder.written.derivations.tree import Node


@dataclass(frozen=True)
class Draw:
    """One draw of random values: every symbol (in the notation's orientation) and index."""

    symbols: dict[str, np.ndarray]
    named: dict[str, int]  # o -> its index
    lists: dict[str, np.ndarray]  # w -> the samples


KINK_TRIES = 50  # draws of small integers tried for one that puts a kink at exactly 0


def draw(
    notation: Notation,
    vocabulary: Vocabulary,
    rng: np.random.Generator,
    batch: int = 1,
    trial: int = 0,
    small: bool = False,
) -> Draw:
    """Random values of every symbol, the defined ones computed from the others. With a ``batch``, a
    ``per_example`` symbol holds one row per example (a one-hot each its own), the others are shared.
    A list that ``repeats`` its first index holds it 2, 3, ... times as ``trial`` grows, so that no
    constant passes for a count. ``small``: entries -1, 0 or 1, whose sums are exact in any order, so
    that ``x W + b_1`` can be exactly 0."""
    normal: Callable[..., Any] = partial(rng.integers, -1, 2) if small else rng.normal
    named: dict[str, int] = {}
    lists: dict[str, np.ndarray] = {}
    for index in notation.indices:
        taken = {named[name] for name in index.avoid if name in named}
        free = np.array([i for i in range(notation.dims[index.dim]) if i not in taken])
        if index.length:
            length = notation.dims[index.length]
            copies = 2 + trial % (length - 1) if index.repeats else 1
            drawn = rng.choice(free, size=length - copies + 1, replace=False)
            lists[index.name] = np.concatenate([np.repeat(drawn[:1], copies), drawn[1:]])
        else:
            named[index.name] = int(rng.choice(free))
    symbols: dict[str, np.ndarray] = {}
    for symbol in notation.symbols:
        if symbol.define:
            scope = scope_of(notation, Draw(symbols, named, lists), None, {})
            symbols[symbol.latex] = evaluate(read(symbol.define, vocabulary)[0], scope)
            continue
        sizes = [notation.dims[d] for d in symbol.dims]
        if symbol.kind == "scalar":
            value = np.array([[rng.integers(1, 5) if symbol.positive else normal()]], dtype=float)
        elif symbol.kind == "matrix":
            value = normal(size=sizes).astype(float)
        elif symbol.kind == "counts":
            counted = np.bincount(lists[symbol.at], minlength=sizes[0]).astype(float).reshape(1, -1)
            value = counted if notation.vectors == "row" else counted.T
        else:
            rows = batch if symbol.per_example else 1
            value = (
                np.zeros((rows, sizes[0])) if symbol.kind == "onehot" else normal(size=(rows, sizes[0])).astype(float)
            )
            if symbol.kind == "onehot":
                hot = [named[symbol.at]] if rows == 1 else rng.integers(0, sizes[0], size=rows)
                value[np.arange(rows), hot] = 1.0
            value = value if notation.vectors == "row" or rows > 1 else value.T
        symbols[symbol.latex] = value
    return Draw(symbols, named, lists)


def kink_draw(
    notation: Notation, vocabulary: Vocabulary, rng: np.random.Generator, kinks: list[Node], batch: int = 1
) -> Draw:
    """A draw of small integers in which one of the reference's ``kinks`` (``x W + b_1`` of
    ``\\mathbb{1}[x W + b_1 > 0]``) is exactly 0 in some entry and not in all: there ``>`` and
    ``\\geq`` differ, as does a ReLU' that is not 0 at 0."""
    values = draw(notation, vocabulary, rng, batch, small=True)
    for _ in range(KINK_TRIES):
        scope = scope_of(notation, values, None, {})
        if any(_partly_zero(kink, scope) for kink in kinks):
            break
        values = draw(notation, vocabulary, rng, batch, small=True)
    return values


def _partly_zero(node: Node, scope: Scope) -> bool:
    try:
        zero = evaluate(node, scope) == 0
    except EvaluationError:  # inside a sum, with its index: not one value here
        return False
    return bool(zero.any() and not zero.all())


def oriented(value: np.ndarray, vectors: str) -> np.ndarray:
    """A vector as a row or a column; anything else as it is."""
    if not (value.ndim == 2 and 1 in value.shape and value.size > 1):
        return value
    return value.reshape(1, -1) if vectors == "row" else value.reshape(-1, 1)


def scope_of(notation: Notation, values: Draw, convention: Convention | None, bound: dict[str, int]) -> Scope:
    """The values a formula is computed on under ``convention`` (None: the notation's own)."""
    vectors = convention.vectors if convention else notation.vectors
    transposed = convention.transposed if convention else ()
    symbols = {}
    for name, value in values.symbols.items():
        value = oriented(value, vectors)
        symbols[name] = value.T if name in transposed else value
    parts: dict[str, Callable[[int], np.ndarray]] = {}
    counts: dict[str, int] = {}
    for family in notation.families:
        if family.of not in values.symbols:
            continue  # while the defined symbols are computed, those to come
        whole = values.symbols[family.of]
        parts[family.base] = partial(_row, whole, vectors) if family.part == "row" else partial(_entry_of, whole)
        counts[family.base] = whole.shape[0] if family.part == "row" else whole.size
    lengths = {index.name: index.length for index in notation.indices if index.length}
    indices = {name: (value, "") for name, value in {**values.named, **bound}.items()}
    return Scope(symbols, parts, counts, dict(notation.dims), dict(values.lists), lengths, indices)


def _row(matrix: np.ndarray, vectors: str, index: int) -> np.ndarray:
    return oriented(matrix[index : index + 1, :], vectors)


def _entry_of(vector: np.ndarray, index: int) -> np.ndarray:
    return entry(vector, [index])


def case_values(notation: Notation, values: Draw, case: dict[str, str]) -> dict[str, int]:
    """The indices a case names: ``o``, ``other`` (a word that is none of the named ones), a number."""
    bound = {}
    used = set(values.named.values()) | {int(i) for v in values.lists.values() for i in v}
    for letter, value in case.items():
        if value in values.named:
            bound[letter] = values.named[value]
        elif "_" in value:  # w_1: the first of the list w
            name, position = value.split("_")
            bound[letter] = int(values.lists[name][int(position) - 1])
        elif value == "other":
            dim = next((i.dim for i in notation.indices if i.name == letter or not i.length), "")
            bound[letter] = next(i for i in range(notation.dims[dim]) if i not in used)
        else:
            bound[letter] = int(value)
    return bound
