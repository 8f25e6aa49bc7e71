"""Comparisons of student outputs with expected values, with messages a student can act on.

Every check raises ``AssertionError`` (a failed test) with a message that names what was checked,
the input case, and the largest error and where it is. Order of checks: type, shape, NaN/inf, values.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from autograder.boundary.protocol import Opaque


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


def unpack(value: Any, count: int, what: str) -> Sequence[Any]:
    """The student's return value as ``count`` items (a tuple or list), or a failure."""
    if not isinstance(value, (tuple, list)) or len(value) != count:
        raise AssertionError(f"{what}: expected {count} return values, got {describe(value)}")
    return value


def at_index(index: tuple[int, ...]) -> str:
    """`` at index i`` (one axis) or `` at index (i, j)``; nothing for a scalar."""
    return f" at index {index[0] if len(index) == 1 else index}" if index else ""


def assert_close(
    actual: Any, expected: Any, what: str, *, rtol: float = 1e-5, atol: float = 1e-7, rows: bool = False
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
            f"first{at_index(index)}); expected finite values (overflow, log(0) or 0/0?)"
        )
    error = np.abs(got - expected)
    excess = error - (atol + rtol * np.abs(expected))
    bad = excess > 0
    if not bad.any():
        return got
    worst = np.unravel_index(int(np.argmax(np.where(bad, error, -1.0))), got.shape) if got.ndim else ()
    index = tuple(int(i) for i in worst)
    message = (
        f"{what}: {int(bad.sum())} of {got.size} entries differ; largest error "
        f"{float(error[index]):.3g}{at_index(index)}: got {float(got[index]):.6g}, "
        f"expected {float(expected[index]):.6g}"
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
