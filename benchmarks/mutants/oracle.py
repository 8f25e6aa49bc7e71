"""The differential oracle: does a mutant behave differently from the reference?

A submission folder is observed in a forked child (mutants may hang, crash or print): every scenario
of the assignment's scenario module runs on the folder's modules, and what it returns (or the
exception it raised, or that it ran out of time) is sent back. Two observations differ when any value
differs beyond a relative 1e-6: far below what any test tolerates, so a mutant the oracle calls
different but no test catches is a test to write, or an equivalent to explain. A second child runs the
files' own self-checks (``python FILE.py``), whose verdicts the grader must share.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import multiprocessing
import os
import random
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

RTOL, ATOL = 1e-6, 1e-9
SCENARIO_SECONDS = 10
_CONTEXT = multiprocessing.get_context("fork")


class _TimedOut(BaseException):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise _TimedOut


def _loader(folder: Path, names: list[str]) -> Callable[[str], ModuleType]:
    """Imports the folder's modules, never a copy left in sys.modules by an earlier import."""
    for name in list(sys.modules):
        if name.split(".")[0] in names:
            del sys.modules[name]
    sys.path.insert(0, str(folder))
    os.chdir(folder)
    return importlib.import_module


def _run(function: Callable[[], Any]) -> Any:
    random.seed(0)
    np.random.seed(0)
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(SCENARIO_SECONDS)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            with np.errstate(all="ignore"):
                return function()
    except _TimedOut:
        return ("timed out",)
    except BaseException as exc:  # a mutant may raise anything
        return ("raised", type(exc).__name__)
    finally:
        signal.alarm(0)


def _scenarios(folder: Path, names: list[str], scenarios: dict[str, Callable]) -> dict[str, Any]:
    modules = _loader(folder, names)
    return {name: _run(lambda s=scenario: s(modules)) for name, scenario in scenarios.items()}


def _child(job: Callable, folder: Path, names: list[str], scenarios: dict, connection: Any) -> None:
    try:
        connection.send(job(folder, names, scenarios))
    except BaseException as exc:  # unpicklable output: report it rather than hang the parent
        connection.send({"observation failed": f"{type(exc).__name__}: {exc}"})
    finally:
        os._exit(0)


def _in_child(job: Callable, folder: Path, names: list[str], scenarios: dict, timeout: float) -> Any:
    receiving, sending = _CONTEXT.Pipe(duplex=False)
    child = _CONTEXT.Process(target=_child, args=(job, folder, names, scenarios, sending))
    child.start()
    sending.close()
    result: Any = {"observation": ("timed out",)}
    if receiving.poll(timeout):
        try:
            result = receiving.recv()
        except EOFError:
            result = {"observation": ("crashed",)}
    child.kill()
    child.join()
    return result


def observe(folder: Path, names: list[str], scenarios: dict[str, Callable]) -> dict[str, Any]:
    """What every scenario sees of the submission in ``folder`` (``names``: its top-level modules)."""
    return _in_child(_scenarios, folder, names, scenarios, SCENARIO_SECONDS * (len(scenarios) + 1))


def difference(mine: Any, theirs: Any, path: str = "") -> str | None:
    """Where two observations first differ (a path into them), or None when they agree."""
    mine, theirs = (v.item() if isinstance(v, np.ndarray) and v.ndim == 0 else v for v in (mine, theirs))
    if isinstance(theirs, dict) or isinstance(mine, dict):
        if not (isinstance(mine, dict) and isinstance(theirs, dict)) or set(mine) != set(theirs):
            return path or "the keys"
        for key in theirs:
            found = difference(mine[key], theirs[key], f"{path}/{key}")
            if found:
                return found
        return None
    if _numeric(theirs) and _numeric(mine):
        a, b = np.asarray(mine, dtype=float), np.asarray(theirs, dtype=float)
        if a.shape != b.shape or not np.allclose(a, b, rtol=RTOL, atol=ATOL, equal_nan=True):
            return path or "the value"
        return None
    if isinstance(theirs, (list, tuple, np.ndarray)) and isinstance(mine, (list, tuple, np.ndarray)):
        if len(mine) != len(theirs):
            return path or "the length"
        for index, (a, b) in enumerate(zip(mine, theirs)):
            found = difference(a, b, f"{path}[{index}]")
            if found:
                return found
        return None
    if isinstance(theirs, np.random.Generator) or isinstance(mine, np.random.Generator):
        return None if type(mine) is type(theirs) else path or "the generator"
    return None if _plain_equal(mine, theirs) else path or "the value"


def _numeric(value: Any) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return False
    if isinstance(value, (int, float, np.integer, np.floating)):
        return True
    return isinstance(value, np.ndarray) and value.dtype.kind in "iuf"


def _plain_equal(mine: Any, theirs: Any) -> bool:
    try:
        return bool(type(mine) is type(theirs) and mine == theirs) or (
            isinstance(mine, (bool, np.bool_)) and isinstance(theirs, (bool, np.bool_)) and bool(mine) == bool(theirs)
        )
    except Exception:  # an object without a meaningful ==
        return type(mine) is type(theirs)
