"""Comparisons of student outputs with expected values, with messages a student can act on.

Every check raises ``AssertionError`` (a failed test) with a message that names what was checked,
the input case, and the largest error and where it is. Order of checks: type, shape, NaN/inf, values.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from autograder.contract.protocol import Opaque

_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def describe(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    if isinstance(value, Opaque):
        return f"a {value.type_name} ({value.text})"
    if isinstance(value, (tuple, list)):
        return f"a {type(value).__name__} of {len(value)} items"
    return f"a {type(value).__name__} ({value!r})"


def describe_inputs(args: Sequence[Any], kwargs: dict[str, Any]) -> str:
    """A call's inputs for the feedback: small values as they are (rounded), others by shape."""
    shown = [_shown(value) for value in args] + [f"{key}={_shown(value)}" for key, value in kwargs.items()]
    return ", ".join(shown) or "no arguments"


def _shown(value: Any) -> str:
    if isinstance(value, (bool, int, str, type(None))) or _short_plain(value):
        return repr(value)
    if isinstance(value, (float, list, tuple, np.ndarray, np.generic)) and np.size(value) <= 6:
        try:
            array = np.asarray(value)
        except ValueError:  # a ragged list
            array = np.asarray(None)
        if array.dtype.kind in "biuf":
            return str(np.round(array, 3).tolist())
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape}"
    return f"a {type(value).__name__}"


def _short_plain(value: Any) -> bool:
    """A short list, tuple or dict of text, numbers and booleans, shown as written."""
    if not isinstance(value, (list, tuple, dict)):
        return False
    items = list(value.items()) if isinstance(value, dict) else list(value)
    flat = [x for item in items for x in (item if isinstance(item, tuple) else (item,))]
    return all(isinstance(x, (str, int, float, bool)) for x in flat) and len(repr(value)) <= 60


def as_numeric(value: Any, what: str) -> np.ndarray:
    """``value`` as a float array, or a failure saying what the student returned instead."""
    if isinstance(value, (bool, np.bool_)):
        raise AssertionError(f"{what}: expected a number or an array, got {describe(value)}")
    if isinstance(value, (int, float, np.ndarray)):
        array = np.asarray(value)
        if array.dtype.kind in "biuf":
            return array.astype(float)
    raise AssertionError(f"{what}: expected a number or an array, got {describe(value)}")


def as_numbers(value: Any, what: str) -> np.ndarray:
    """What a probe reports of the student's code (an array, or a list of arrays or numbers) as a
    float array, or a failure saying what it was instead: never an error of the grader's own."""
    try:
        array = np.asarray(value)
    except (ValueError, TypeError):  # ragged lists
        array = np.asarray(None)
    if array.dtype.kind not in "biuf":
        raise AssertionError(f"{what}: expected numbers, got {describe(value)}")
    return array.astype(float)


def unpack(value: Any, count: int, what: str) -> Sequence[Any]:
    """The student's return value as ``count`` items (a tuple or list), or a failure."""
    if not isinstance(value, (tuple, list)) or len(value) != count:
        raise AssertionError(f"{what}: expected {count} return values, got {describe(value)}")
    return value


# An entry's index -> its name, for a result whose entries have names of their own: the flat
# gradient of a network's parameters names (42,) as b2[0, 3] (see flat_layout).
Layout = Callable[[tuple[int, ...]], str]


def flat_layout(parts: Sequence[tuple[str, tuple[int, ...]]]) -> Layout:
    """The layout of a flat vector that joins arrays of these names and shapes, each row by row."""

    def name(index: tuple[int, ...]) -> str:
        offset = index[0]
        for part, shape in parts:
            size = int(np.prod(shape))
            if offset < size:
                inner = ", ".join(str(int(i)) for i in np.unravel_index(offset, shape))
                return f"{part}[{inner}]"
            offset -= size
        return f"index {index[0]}"

    return name


def at_index(index: tuple[int, ...], layout: Layout | None = None) -> str:
    """`` at index i`` (one axis) or `` at index (i, j)``, or `` at b2[0, 3]`` with a ``layout``;
    nothing for a scalar."""
    if layout is not None and index:
        return f" at {layout(index)}"
    return f" at index {index[0] if len(index) == 1 else index}" if index else ""


def shown_apart(mine: float, theirs: float) -> tuple[str, str]:
    """Two numbers with as many significant digits as it takes to see them differ (6 at least)."""
    for digits in range(6, 18):
        shown = f"{mine:.{digits}g}", f"{theirs:.{digits}g}"
        if shown[0] != shown[1]:
            return shown
    return shown


def assert_close(
    actual: Any,
    expected: Any,
    what: str,
    *,
    rtol: float = 1e-5,
    atol: float = 1e-7,
    rows: bool = False,
    layout: Layout | None = None,
) -> np.ndarray:
    """``actual`` equals ``expected`` within ``atol + rtol * |expected|`` element-wise.

    ``rows=True`` also lists which rows of a 2-D result are wrong, as gradients of word vectors
    are easiest to fix row by row.
    """
    expected = np.asarray(expected, dtype=float)
    if not np.isfinite(expected).all():
        # A test whose expected value overflowed checks nothing; that is a bug in the test.
        raise ValueError(f"{what}: the expected value is not finite; fix the test's inputs")
    got = as_numeric(actual, what)
    if got.shape != expected.shape:
        if expected.shape == () and got.size == 1:
            got = got.reshape(())
        else:
            transposed = got.ndim == 2 and got.shape == expected.shape[::-1]
            raise AssertionError(
                f"{what}: wrong shape {got.shape}, expected {expected.shape}" + (" (transposed?)" if transposed else "")
            )
    broken = ~np.isfinite(got)
    if broken.any():
        index = tuple(int(i) for i in np.argwhere(broken)[0])
        kind = "NaN" if np.isnan(got[index]) else "inf"
        raise AssertionError(
            f"{what}: contains {kind} ({int(broken.sum())} of {got.size} entries, "
            f"first{at_index(index, layout)}); expected finite values (overflow, log(0) or 0/0?)"
        )
    error = np.abs(got - expected)
    excess = error - (atol + rtol * np.abs(expected))
    bad = excess > 0
    if not bad.any():
        return got
    worst = np.unravel_index(int(np.argmax(np.where(bad, error, -1.0))), got.shape) if got.ndim else ()
    index = tuple(int(i) for i in worst)
    mine, theirs = shown_apart(float(got[index]) + 0.0, float(expected[index]) + 0.0)  # + 0.0: no "-0"
    scale = abs(float(expected[index]))
    # the relative error, where the relative tolerance is what decides (not for an expected value near 0)
    relative = f"relative error {float(error[index]) / scale:.2g}; " if scale > atol else ""
    message = (
        f"{what}: {int(bad.sum())} of {got.size} entries differ; largest error "
        f"{float(error[index]):.3g}{at_index(index, layout)}: got {mine}, expected {theirs} ({relative}allowed: "
        f"{rtol:.3g} relative, {atol:.3g} absolute)"
    )
    if rows and got.ndim == 2:
        wrong = np.flatnonzero(bad.any(axis=1))
        listed = ", ".join(str(r) for r in wrong[:10]) + (" ..." if wrong.size > 10 else "")
        message += f"; wrong rows: {listed}"
    raise AssertionError(message)


def assert_matches(
    actual: Any, expected: Any, what: str, *, rtol: float = 1e-5, atol: float = 1e-7, rows: bool = False
) -> None:
    """``actual`` is ``expected``: numbers and arrays within the tolerances (:func:`assert_close`), a
    dict key by key, a list or tuple item by item, anything else (text, booleans, None) exactly."""
    if _numeric(expected):
        assert_close(actual, expected, what, rtol=rtol, atol=atol, rows=rows)
    elif isinstance(expected, dict):
        if not isinstance(actual, dict):
            raise AssertionError(f"{what}: expected a dict, got {describe(actual)}")
        missing, extra = [k for k in expected if k not in actual], [k for k in actual if k not in expected]
        if missing or extra:
            raise AssertionError(f"{what}: the keys differ: missing {missing[:5]}, unexpected {extra[:5]}")
        for key, value in expected.items():
            assert_matches(actual[key], value, f"{what}[{key!r}]", rtol=rtol, atol=atol)
    elif isinstance(expected, (list, tuple)):
        unpack(actual, len(expected), what)
        for index, (mine, theirs) in enumerate(zip(actual, expected)):
            assert_matches(mine, theirs, f"{what}[{index}]", rtol=rtol, atol=atol)
    elif not _same_plain(actual, expected):
        raise AssertionError(f"{what}: got {describe(actual)}, expected {expected!r}")


def _numeric(value: Any) -> bool:
    """A number, an array of numbers, or a (nested) list or tuple of numbers."""
    if isinstance(value, (list, tuple)):
        return _all_numbers(value)
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "biuf"
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)


def _same_plain(actual: Any, expected: Any) -> bool:
    """Text, a boolean (numpy's or Python's), None: equal and of the same kind."""
    if isinstance(expected, (bool, np.bool_)):
        return isinstance(actual, (bool, np.bool_)) and bool(actual) == bool(expected)
    return type(actual) is type(expected) and actual == expected


def _all_numbers(value: Any) -> bool:
    if isinstance(value, (list, tuple)):
        return len(value) > 0 and all(_all_numbers(v) for v in value)
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)


def is_close(actual: Any, expected: Any, *, rtol: float = 1e-5, atol: float = 1e-7) -> bool:
    try:
        assert_close(actual, expected, "value", rtol=rtol, atol=atol)
    except AssertionError:
        return False
    return True


def agree(mine: Any, theirs: Any, depth: int = 0, *, rtol: float = 1e-6, atol: float = 1e-9) -> bool:
    """Whether two decoded values agree: numbers and arrays within the tolerances (``rtol=atol=0``:
    exactly, NaN where NaN was), an object that could not travel by its description, the rest exactly."""
    if depth > 64:
        return False
    if isinstance(theirs, (tuple, list)):
        return (
            isinstance(mine, (tuple, list))
            and len(mine) == len(theirs)
            and all(agree(a, b, depth + 1, rtol=rtol, atol=atol) for a, b in zip(mine, theirs))
        )
    if isinstance(theirs, dict):
        return (
            isinstance(mine, dict)
            and set(mine) == set(theirs)
            and all(agree(mine[k], theirs[k], depth + 1, rtol=rtol, atol=atol) for k in theirs)
        )
    if isinstance(theirs, int) and isinstance(mine, int) or isinstance(theirs, (bool, str, type(None))):
        return type(mine) is type(theirs) and mine == theirs
    if isinstance(theirs, (np.ndarray, float, int, np.generic)):
        try:
            a, b = np.asarray(mine), np.asarray(theirs)
            if a.dtype.kind not in "biuf" or b.dtype.kind not in "biuf":
                return a.shape == b.shape and bool(np.array_equal(a, b))
            return a.shape == b.shape and bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))
        except (TypeError, ValueError):
            return False
    if isinstance(theirs, np.random.Generator):
        return isinstance(mine, np.random.Generator) and agree(
            mine.bit_generator.state, theirs.bit_generator.state, depth + 1
        )
    if isinstance(theirs, Opaque):  # an object's repr: the same but for where it lies in memory
        return isinstance(mine, Opaque) and (mine.type_name, _ADDRESS.sub("", mine.text)) == (
            theirs.type_name,
            _ADDRESS.sub("", theirs.text),
        )
    return False  # nothing else comes out of the wire: a stranger never agrees


def first_difference(mine: Any, theirs: Any, where: str = "") -> str:
    """Where two results that do not agree exactly first differ, for a message: `` (in [1]: largest
    difference 0.5 at index (2, 0))``; empty where it cannot be said more simply than by the values."""
    if isinstance(theirs, (list, tuple)) and isinstance(mine, (list, tuple)) and len(mine) == len(theirs):
        for index, (a, b) in enumerate(zip(mine, theirs)):
            if not agree(a, b, rtol=0, atol=0):
                return first_difference(a, b, f"{where}[{index}]")
    if isinstance(theirs, dict) and isinstance(mine, dict) and set(mine) == set(theirs):
        for key in theirs:
            if not agree(mine[key], theirs[key], rtol=0, atol=0):
                return first_difference(mine[key], theirs[key], f"{where}[{key!r}]")
    place = f"in {where}: " if where else ""
    if _numeric(theirs) and _numeric(mine) and np.shape(mine) == np.shape(theirs):
        a, b = np.asarray(mine, dtype=float), np.asarray(theirs, dtype=float)
        with np.errstate(invalid="ignore"):
            gap = np.where(np.isnan(a) != np.isnan(b), np.inf, np.nan_to_num(np.abs(a - b), nan=0.0))
        worst = tuple(int(i) for i in np.unravel_index(int(np.argmax(gap)), gap.shape))
        return f" ({place}largest difference {float(gap[worst]):.3g}{at_index(worst)})"
    return f" ({place[:-2]})" if where else ""
