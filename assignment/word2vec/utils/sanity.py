"""Run a module's built-in sanity checks and report each one on its own line.

A student module ends with hand-written checks,

    if __name__ == "__main__":
        run_checks([("softmax", check_softmax), ...])

or with the public tests of its functions, as the grader runs them:

    if __name__ == "__main__":
        run_public_tests(__file__, "word2vec")

A check is a function with no arguments that returns nothing when all is
well and raises `AssertionError` (or `GradientCheckError`) otherwise.
Unfinished work raises `NotImplementedError`, which is reported as such
rather than as a failure, so the checks can be run at any stage.

Two rules hold for every function you write, and the checks (like the
grader) hold each one to them: a function changes none of the arrays and
lists it is given, and it gives the same result whenever it gets the same
inputs. So each check runs twice, and while the checks run, every function
of the module fails the check that calls it if it changes an argument.
"""

from __future__ import annotations

import copy
import functools
import inspect
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

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


def _attempt(check: Callable[[], None]) -> tuple[str, BaseException | None]:
    try:
        check()
    except NotImplementedError as error:
        return NOT_IMPLEMENTED, error
    except AssertionError as error:  # GradientCheckError is one too
        return FAILED, error
    except Exception as error:  # a crash in the checked code, not a crash here
        return ERROR, error
    return PASSED, None


def run_check(name: str, check: Callable[[], None]) -> str:
    """Run one check (twice, if it passes: see above), print one line about it and return its status."""
    status, error = _attempt(check)
    if status == PASSED:
        status, error = _attempt(check)
        if status != PASSED:
            print(
                f"{name}: FAILED when run a second time, after passing the first: {type(error).__name__}: "
                f"{error}\n    A function must give the same result whenever it gets the same inputs: "
                "something is kept from one call to the next (a variable at module or class level, a "
                "buffer never reset), or memory is read before it is written (np.empty)."
            )
            return FAILED
    if status == NOT_IMPLEMENTED:
        print(f"{name}: not implemented yet")
    elif status == FAILED:
        print(f"{name}: FAILED: {error}")
    elif status == ERROR:
        print(f"{name}: ERROR: {type(error).__name__}: {error}")
        location = _where(error) if error is not None else ""
        if location:
            print(f"    raised at {location}")
    else:
        print(f"{name}: passed")
    return status


def _same(before: Any, after: Any) -> bool:
    if hasattr(before, "shape") and hasattr(before, "dtype"):  # a numpy array
        import numpy as np

        try:
            return before.shape == after.shape and bool(np.array_equal(before, after, equal_nan=True))
        except TypeError:  # equal_nan on a dtype without NaN
            return before.shape == after.shape and bool(np.array_equal(before, after))
    if isinstance(before, (list, tuple)):
        return isinstance(after, type(before)) and len(before) == len(after) and all(map(_same, before, after))
    if isinstance(before, dict):
        return isinstance(after, dict) and before.keys() == after.keys() and all(_same(before[k], after[k]) for k in before)
    return True  # numbers and text cannot change in place


def _guarded(function: Callable) -> Callable:
    """``function``, failing the check that calls it if it changes one of its arguments."""

    @functools.wraps(function)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        kept = [copy.deepcopy(a) if isinstance(a, (list, dict)) or hasattr(a, "dtype") else None for a in args]
        result = function(*args, **kwargs)
        for position, (before, after) in enumerate(zip(kept, args), start=1):
            if before is not None and not _same(before, after):
                raise AssertionError(
                    f"{function.__name__} changed its argument {position} in place; no function may change "
                    "the arrays and lists it is given (unless its docstring says so): work on a copy"
                )
        return result

    return guarded


@contextmanager
def _inputs_guarded(checks: Sequence[Check]) -> Iterator[None]:
    """Every function defined in the checks' module guarded (see `_guarded`) while the block runs."""
    names = {check.__globals__.get("__name__") for _, check in checks}
    module = next((check.__globals__ for _, check in checks), {})
    chosen = {
        name: value
        for name, value in module.items()
        if inspect.isfunction(value)
        and value.__module__ in names
        and not name.startswith(("_", "check_"))
        and value not in {check for _, check in checks}
    }
    module.update({name: _guarded(value) for name, value in chosen.items()})
    try:
        yield
    finally:
        module.update(chosen)


def run_checks(checks: Sequence[Check], title: str = "") -> CheckSummary:
    """Run every check, even after a failure, and print a summary line.

    Never raises because of a check, so a script ending with this call
    exits with status 0 however many checks fail.
    """
    if title:
        print(f"== {title} ==")
    with _inputs_guarded(checks):
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


def run_public_tests(path: str, assignment: str) -> None:
    """Run the public tests of the functions in the file at ``path`` exactly as
    ``python -m autograder check ASSIGNMENT --only MODULE`` runs them (the same tests, messages and
    verdicts as Gradescope's), and exit with its status."""
    import subprocess
    import sys
    from pathlib import Path

    file = Path(path).resolve()
    command = [sys.executable, "-m", "autograder", "check", assignment, str(file.parent), "--only", file.stem]
    raise SystemExit(subprocess.call(command, cwd=file.parent))
