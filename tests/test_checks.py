"""The comparisons behind every verdict, and the messages students read."""

from __future__ import annotations

import numpy as np
import pytest

from autograder.grading import checks
from autograder.contract.protocol import Opaque


def message(actual, expected, **kwargs) -> str:
    with pytest.raises(AssertionError) as failure:
        checks.assert_close(actual, expected, "grad [case 1]", **kwargs)
    return str(failure.value)


def test_equal_within_tolerance_passes():
    got = checks.assert_close(np.array([1.0, 2.0 + 1e-9]), [1.0, 2.0], "x")
    assert got.dtype == float


def test_wrong_shape_is_named():
    assert "wrong shape (3,), expected (3, 1)" in message(np.zeros(3), np.zeros((3, 1)))


def test_size_one_array_is_accepted_for_a_scalar():
    checks.assert_close(np.array([2.5]), 2.5, "loss")


def test_nan_and_inf_are_reported_with_their_position():
    text = message(np.array([1.0, np.nan, 3.0]), [1.0, 2.0, 3.0])
    assert "contains NaN" in text and "at index 1" in text
    assert "contains inf" in message(np.array([np.inf]), [1.0])


def test_largest_error_and_wrong_rows():
    expected = np.zeros((4, 2))
    got = expected.copy()
    got[1, 0], got[3, 1] = 0.5, 2.0
    text = message(got, expected, rows=True)
    assert text.startswith("grad [case 1]: 2 of 8 entries differ")
    assert "largest error 2 at index (3, 1): got 2, expected 0" in text
    assert text.endswith("wrong rows: 1, 3")


@pytest.mark.parametrize("value, shown", [("text", "a str"), (True, "a bool"), (None, "a NoneType"),
                                          (Opaque("Foo", "<Foo>"), "a Foo"),
                                          (np.array(["a"]), "expected a number or an array")])
def test_non_numeric_values_are_described(value, shown):
    assert shown in message(value, 1.0)


def test_a_non_finite_expected_value_is_a_test_bug_not_a_pass():
    with pytest.raises(ValueError, match="not finite"):
        checks.assert_close(np.array([5.0]), [np.inf], "loss")


def test_unpack_counts_return_values():
    assert checks.unpack((1, 2), 2, "f") == (1, 2)
    with pytest.raises(AssertionError, match="expected 3 return values, got a tuple of 2 items"):
        checks.unpack((1, 2), 3, "f")
    with pytest.raises(AssertionError, match="got an array of shape"):
        checks.unpack(np.zeros(3), 3, "f")
