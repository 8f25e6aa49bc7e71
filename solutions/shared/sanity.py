"""Run a module's built-in sanity checks and report each one on its own line.

Every student module ends with

    if __name__ == "__main__":
        run_checks([("softmax", check_softmax), ...])

A check is a function with no arguments that returns nothing when all is
well and raises `AssertionError` (or `GradientCheckError`) otherwise.
Unfinished work raises `NotImplementedError`, which is reported as such
rather than as a failure, so the checks can be run at any stage.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass

Check = tuple[str, Callable[[], None]]

PASSED = "passed"
FAILED = "failed"
ERROR = "error"
NOT_IMPLEMENTED = "not implemented"


@dataclass(frozen=True)
class CheckSummary:
    passed: int
    failed: int
    errors: int
    not_implemented: int

    @property
    def total(self) -> int:
        return self.passed + self.failed + self.errors + self.not_implemented


def _where(error: BaseException) -> str:
    """File, line and function where `error` was raised (its innermost frame)."""
    frames = traceback.extract_tb(error.__traceback__)
    if not frames:
        return ""
    frame = frames[-1]
    return f"{frame.filename}, line {frame.lineno}, in {frame.name}"


def run_check(name: str, check: Callable[[], None]) -> str:
    """Run one check, print one line about it and return its status."""
    try:
        check()
    except NotImplementedError:
        print(f"{name}: not implemented yet")
        return NOT_IMPLEMENTED
    except AssertionError as error:  # GradientCheckError is one too
        print(f"{name}: FAILED: {error}")
        return FAILED
    except Exception as error:  # a crash in the checked code, not a crash here
        print(f"{name}: ERROR: {type(error).__name__}: {error}")
        location = _where(error)
        if location:
            print(f"    raised at {location}")
        return ERROR
    print(f"{name}: passed")
    return PASSED


def run_checks(checks: Sequence[Check], title: str = "") -> CheckSummary:
    """Run every check, even after a failure, and print a summary line.

    Never raises because of a check, so a script ending with this call
    exits with status 0 however many checks fail.
    """
    if title:
        print(f"== {title} ==")
    statuses = [run_check(name, check) for name, check in checks]
    summary = CheckSummary(
        passed=statuses.count(PASSED),
        failed=statuses.count(FAILED),
        errors=statuses.count(ERROR),
        not_implemented=statuses.count(NOT_IMPLEMENTED),
    )
    print(
        f"Summary: {summary.passed}/{summary.total} checks passed, "
        f"{summary.failed} failed, {summary.errors} errors, "
        f"{summary.not_implemented} not implemented yet."
    )
    if summary.failed + summary.errors > 1:
        # These checks run your own helpers; the grader does not (see the handout).
        print(
            "Several checks failed: a later one may fail only because it calls a function "
            "that failed earlier, so fix them in order. The grader charges each function's "
            "bug in its own question only."
        )
    return summary
