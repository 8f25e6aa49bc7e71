"""Tests as tables of cases: a question's checks declared as data, not written as code.

A test file may hold, beside or instead of its test classes, a :class:`Cases` table::

    CASES = Cases(
        Compare("1", "rnn.step_forward", normal(0, x=(3, 10), prev_h=(3, 4)), item=0, name="next_h"),
        Backward("2", "rnn.step_backward", normal(1, x=(3, 10), prev_h=(3, 4)), forward="rnn.step_forward"),
        Gradient("3", "rnn.loss_and_gradient", normal(2, w=(4,), X=(6, 4), y=(6,))),
    )

Each row is one graded test, collected like a hand-written one (:mod:`autograder.grading.collect`):
its question, its points (``points=``, else an equal share), its tags (the function it calls, and
``reaches=`` for the student functions that one calls) and its name (``name=``, else one made from the
function and its inputs). Every call holds the student's function to the rules every function keeps
(its inputs left unchanged, the same result when called again): :meth:`GradedTestCase.call_full`
checks them on every call, rows included. A check that needs code stays a ``unittest`` class.
"""

from __future__ import annotations

import ast
import copy
import inspect
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from autograder.contract.target import Target
from autograder.grading import checks
from autograder.grading.testing import GradedTestCase

# -- inputs ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Inputs:
    """A call's arguments: made afresh for every call (so a function that changes them cannot change
    the next call's), with their names and a description for the feedback."""

    make: Callable[[], list[Any]]
    names: tuple[str, ...]
    description: str
    count: int | None = None  # how many values it passes, when known before they are made

    def values(self) -> list[Any]:
        return self.make()

    def name(self, position: int) -> str:
        return self.names[position] if position < len(self.names) else f"argument {position + 1}"


def normal(seed: int, *after: Any, **shapes: tuple[int, ...]) -> Inputs:
    """Arrays of standard normal entries of the given shapes, in order, from one generator seeded with
    ``seed``, then the plain values ``after`` (``normal(0, 0.5, True, x=(3, 4))`` is ``x, 0.5, True``)."""

    def make() -> list[Any]:
        rng = np.random.default_rng(seed)
        return [rng.standard_normal(shape) for shape in shapes.values()] + copy.deepcopy(list(after))

    shown = [f"{name} {tuple(shape)}" for name, shape in shapes.items()] + [repr(value) for value in after]
    return Inputs(make, tuple(shapes), ", ".join(shown), len(shapes) + len(after))


def given(*args: Any, **named: Any) -> Inputs:
    """These values as they are, positional first; ``named`` values are passed in order, by position."""
    values = list(args) + list(named.values())
    return Inputs(lambda: copy.deepcopy(values), tuple(f"argument {i + 1}" for i in range(len(args))) + tuple(named),
                  checks.describe_inputs(values, {}), len(values))  # fmt: skip


def generated(make: Callable[[], Sequence[Any]], description: str, names: Sequence[str] = ()) -> Inputs:
    """What ``make()`` returns (a function of the test file that builds seeded inputs)."""
    return Inputs(lambda: list(make()), tuple(names), description)


# -- rows -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """What every kind of row declares. ``where`` (the row's file and line) is filled in."""

    question: str
    function: str
    inputs: Inputs
    name: str = ""
    points: float | None = None
    reaches: tuple[str, ...] = ()
    rtol: float = 1e-5
    atol: float = 1e-7
    where: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not self.where:
            object.__setattr__(self, "where", _caller())
        for target in (self.function, *self.reaches, *self.also_calls()):
            if not Target.names_function(target):
                raise ValueError(f"{self.where}: {target!r} is not a student function: write it as 'module.function'")
        if self.points is not None and not self.points > 0:
            raise ValueError(f"{self.where}: points must be more than 0, got {self.points!r}")

    def also_calls(self) -> tuple[str, ...]:
        """The student functions the row calls besides ``function``."""
        return ()

    def calls(self, inputs: int) -> tuple[tuple[str, int], ...]:
        """The functions the row calls with how many positional arguments, given ``inputs`` of them."""
        return ((self.function, inputs),)

    def tags(self) -> tuple[str, ...]:
        return (self.function, *self.also_calls(), *self.reaches)

    @property
    def short(self) -> str:
        """The function's own name, as the feedback calls it: ``softmax``."""
        return Target.parse(self.function).name

    def title(self) -> str:
        return self.name or f"{self.short} on {self.inputs.description}"

    def run(self, test: GradedTestCase) -> None:
        raise NotImplementedError


@dataclass(frozen=True)
class Compare(Row):
    """The student's value equals the reference's: all of it, or item ``item`` of a tuple (``item=0``
    for a forward's output without its cache, whose layout is the student's)."""

    item: int | None = None

    def run(self, test: GradedTestCase) -> None:
        args, case = self.inputs.values(), self.inputs.description
        short = self.short
        if self.item is None:
            test.check(self.function, *args, case=case, rtol=self.rtol, atol=self.atol)
            return
        value = test.call(self.function, *args, case=case)
        expected = test.expect(self.function, *args)
        mine = test.unpack(value, len(expected), f"{short}(...)", case=case)[self.item]
        checks.assert_matches(mine, expected[self.item], f"{short}(...)[{self.item}] [{case}]", rtol=self.rtol,
                              atol=self.atol)  # fmt: skip


@dataclass(frozen=True)
class Gradient(Row):
    """``function`` returns ``(loss, grad, ...)``: each gradient equals the reference's, the one after the
    loss taken with respect to argument ``wrt[0]``, the next ``wrt[1]``, and so on. When one does not,
    the feedback says whether it matches centred differences of the student's own loss."""

    wrt: tuple[int, ...] = (0,)

    def run(self, test: GradedTestCase) -> None:
        args, case = self.inputs.values(), self.inputs.description
        short = self.short
        mine = test.unpack(test.call(self.function, *args, case=case), 1 + len(self.wrt), f"{short}(...)", case=case)
        expected = test.expect(self.function, *args)
        for k, position in enumerate(self.wrt, start=1):
            what = f"the gradient with respect to {self.inputs.name(position)}"
            test.assert_gradient(self.function, args, position, grad=mine[k], expected_grad=expected[k],
                                 loss=mine[0], expected_loss=expected[0], what=what, case=case, rtol=self.rtol,
                                 atol=self.atol)  # fmt: skip


@dataclass(frozen=True)
class Backward(Row):
    """A backward function (``function``) equals the reference's, given the output gradient ``dout`` (seeded
    normal, shaped like the forward's output) and a cache of ``forward`` on the row's inputs.

    ``cache="reference"``: the reference forward's cache, so a wrong forward never costs this row's
    points; the starter must then fix the cache's layout in the forward's docstring. ``cache="student"``:
    the student's own forward's (its layout is theirs) where that forward's output is right; where it is
    wrong, the reference's, so a wrong forward costs its own question only (a bug costs points once).
    ``grads`` names the backward's outputs in the feedback (by default ``d`` + each input's name)."""

    forward: str = ""
    cache: str = "reference"
    grads: tuple[str, ...] = ()
    seed: int = 0

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.forward or self.cache not in ("reference", "student"):
            raise ValueError(f"{self.where}: a Backward row needs forward='module.function' and cache='reference' "
                             f"or 'student', got forward={self.forward!r}, cache={self.cache!r}")  # fmt: skip

    def also_calls(self) -> tuple[str, ...]:
        return (self.forward,) if self.cache == "student" and self.forward else ()

    def calls(self, inputs: int) -> tuple[tuple[str, int], ...]:
        return ((self.forward, inputs), (self.function, 2))  # backward(dout, cache)

    def run(self, test: GradedTestCase) -> None:
        args, case = self.inputs.values(), self.inputs.description
        out, reference_cache = test.expect(self.forward, *args)
        cache = reference_cache
        if self.cache == "student":
            forward = Target.parse(self.forward).name
            mine = test.unpack(test.call(self.forward, *args, case=case), 2, f"{forward}(...)", case=case)
            cache = mine[1] if _close(mine[0], out, self.rtol, self.atol) else reference_cache
        dout = np.random.default_rng(self.seed).standard_normal(np.shape(out))
        case = f"{case}; dout {np.shape(out)}"
        try:
            self._compare(test, dout, cache, reference_cache, len(args), case)
        except AssertionError as failure:
            if cache is not reference_cache:
                raise
            forward, backward = Target.parse(self.forward).name, self.short
            raise AssertionError(
                f"{failure}\n{backward} was given the cache of the course's {forward} for these inputs, in the "
                f"layout {forward}'s docstring states (so a mistake in your {forward} costs nothing here): a "
                "backward that reads another layout fails too."
            ) from None

    def _compare(
        self, test: GradedTestCase, dout: Any, cache: Any, reference_cache: Any, count: int, case: str
    ) -> None:
        value = test.call(self.function, dout, cache, case=case)
        expected = test.expect(self.function, dout, reference_cache)
        names = self.grads or tuple(f"d{self.inputs.name(i)}" for i in range(count))
        if not isinstance(expected, (tuple, list)) or len(expected) != len(names):
            checks.assert_matches(value, expected, f"{self.short}(...) [{case}]",
                                  rtol=self.rtol, atol=self.atol)  # fmt: skip
            return
        for name, mine, theirs in zip(names, test.unpack(value, len(names), "the gradients", case=case), expected):
            test.assert_close(mine, theirs, name, case=case, rtol=self.rtol, atol=self.atol)


# -- the table ------------------------------------------------------------------------------------


class Cases:
    """The rows of a test file, as the test classes the grader collects: one per question, a test per row."""

    def __init__(self, *rows: Row) -> None:
        self.rows = rows
        self._classes: dict[str, list[type[GradedTestCase]]] = {}

    def call_problems(self, solution: Path) -> list[str]:
        """Each row whose call does not fit the reference's parameters in ``solution`` (read as source,
        never run): ``normal(0, 0.5, x=...)`` passes 0.5 as one more argument, not as a scale."""
        problems = []
        for row in self.rows:
            for function, count in row.calls(row.inputs.count) if row.inputs.count is not None else ():
                fits = _fits(solution, function, count)
                if fits:
                    problems.append(f"{row.where}: {row.title()} calls {function} with {count} argument(s); {fits}")
        return problems

    def test_classes(self, module: str) -> list[type[GradedTestCase]]:
        """Built once per module, so a test's class is the same object every time it is collected."""
        if module not in self._classes:
            by_question: dict[str, list[Row]] = {}
            for row in self.rows:
                by_question.setdefault(row.question, []).append(row)
            self._classes[module] = [_test_class(module, q, rows) for q, rows in by_question.items()]
        return self._classes[module]


def _close(mine: Any, expected: Any, rtol: float, atol: float) -> bool:
    """Whether a forward's output is the reference's (then its cache is taken as right too)."""
    try:
        checks.assert_matches(mine, expected, "the forward's output", rtol=rtol, atol=atol)
    except AssertionError:
        return False
    return True


def _fits(solution: Path, function: str, count: int) -> str:
    """Why ``count`` positional arguments do not fit ``function``'s parameters in the reference, or ""
    (also when its source cannot be found: the grader's own error then says so)."""
    target = Target.parse(function)
    path = solution / Path(*target.module.split(".")).with_suffix(".py")
    try:
        tree = ast.parse(path.read_text())
    except (OSError, SyntaxError, ValueError):
        return ""
    found = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) and node.name == target.name]
    if len(found) != 1:
        return ""
    arguments = found[0].args
    names = [a.arg for a in (*arguments.posonlyargs, *arguments.args)]
    needed = len(names) - len(arguments.defaults)
    if needed <= count and (count <= len(names) or arguments.vararg):
        return ""
    return f"the reference's takes ({', '.join(names)}): make the inputs fit it"


def _test_class(module: str, question: str, rows: list[Row]) -> type[GradedTestCase]:
    prefix = "".join(part.title() for part in module.rsplit(".", 1)[-1].split("_"))
    name = f"{prefix}Cases_{re.sub(r'[^A-Za-z0-9]', '_', question)}"
    methods = {_method_name(k, row): _test_method(row) for k, row in enumerate(rows, start=1)}
    attributes = {"question": question, "__module__": module, "written_at": rows[0].where, **methods}
    return type(name, (GradedTestCase,), attributes)


def _method_name(k: int, row: Row) -> str:
    return f"test_{k:02d}_{row.short}"


def _test_method(row: Row) -> Callable[[GradedTestCase], None]:
    def test(self: GradedTestCase) -> None:
        row.run(self)

    test.__doc__ = row.title()
    test.__tags__ = row.tags()  # type: ignore[attr-defined]  # read as gradescope-utils' @tags
    if row.points is not None:
        test.__weight__ = row.points  # type: ignore[attr-defined]  # read as gradescope-utils' @weight
    return test


def _caller() -> str:
    """``file:line`` of the test file's line that made the row (the first frame outside this module)."""
    frame = inspect.currentframe()
    # dataclasses' __init__ is compiled from text, so its frame's file is "<string>"
    while frame is not None and (frame.f_code.co_filename == __file__ or frame.f_code.co_filename.startswith("<")):
        frame = frame.f_back
    return f"{frame.f_code.co_filename}:{frame.f_lineno}" if frame else "?"
