"""Which graded tests an assignment has, and what each one declares.

A graded test is a ``test_*`` method of a :class:`~autograder.grading.testing.GradedTestCase`
subclass in the assignment's ``public_tests.py`` or ``hidden_tests.py`` (either file may be absent).
A test declares only what differs from these defaults:

- its **question**: the class's ``question``, or the part of an explicit ``@number`` before its last dot;
- its **number**: ``@number``, else ``QUESTION.K``, counting the question's tests in the order they are
  written, public ones first, and skipping the numbers declared;
- its **points**: ``@weight(p)`` or ``@partial_credit(p)``, else an equal share of what the question's
  points in the config leave after the declared ones;
- its **visibility**: the file's: the question's ``visibility`` for a public test, its
  ``hidden_visibility`` for a hidden one (a declared ``@visibility`` must agree);
- its **tags**, the student functions it calls (``module.function``): ``@tags``, else the class's
  ``functions``, else every target the class's code names as text in ``self.call``, ``self.check``,
  ``self.expect`` and their kin;
- its **name**: the first line of its docstring.

A ``Cases`` table in either file (:mod:`autograder.grading.cases`) adds a test per row, after the file's
classes, each row declaring the same things as data.

In the student bundle the hidden tests are absent, so a share of points cannot be worked out there:
``release`` records the points of every public test (:meth:`autograder.grading.expected.Recording`)
and the bundle takes them from the recording.
"""

from __future__ import annotations

import ast
import inspect
import math
import textwrap
import traceback
import unittest
from collections.abc import Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from autograder.contract.target import Target
from autograder.core.config import Assignment, AssignmentConfig, ConfigError, optional_module
from autograder.grading.cases import Cases
from autograder.grading.testing import GradedTestCase

# The methods of GradedTestCase whose first argument names the student function they run.
_CALLING = {"call", "call_full", "check", "expect", "expect_full", "assert_gradient"}


@dataclass(frozen=True)
class TestInfo:
    """One graded test method and what it declares (or takes by default)."""

    cls: type[GradedTestCase]
    method: str
    question: str
    number: str
    weight: float
    tags: tuple[str, ...]
    visibility: str
    hidden: bool
    name: str
    # (function, owner question) for each function it reaches that another question owns
    helpers: tuple[tuple[str, str], ...] = ()
    # groups of those helpers replaced together or not at all (autograder.grading.ownership.units)
    units: tuple[frozenset[str], ...] = ()

    @property
    def key(self) -> str:
        """What names the test in the bundle's recording of points: ``Class.method``."""
        return key_of(self.cls, self.method)

    def instance(self) -> GradedTestCase:
        return self.cls(self.method)


@dataclass(frozen=True)
class _Method:
    """A test method found in a test file, before its defaults are worked out."""

    cls: type[GradedTestCase]
    method: str
    kind: str  # "public" or "hidden"
    question: str

    @property
    def function(self) -> Any:
        return getattr(self.cls, self.method)

    @property
    def where(self) -> str:
        return f"{self.cls.__module__}.{self.cls.__name__}.{self.method}"

    @property
    def key(self) -> str:
        return key_of(self.cls, self.method)


def key_of(cls: type, method: str) -> str:
    return f"{cls.__name__}.{method}"


def declared_tests(
    assignment: Assignment, include_hidden: bool = True, recorded_weights: Mapping[str, float] | None = None
) -> dict[str, list[TestInfo]]:
    """Every graded test by question id, in the order written, checked against the config; the
    hidden ones only with ``include_hidden``. ``recorded_weights`` (the bundle's) stand in for the
    points the hidden tests' absence leaves unknown. Raises ConfigError, listing every problem."""
    config, problems = assignment.config, list[str]()
    found = _found(assignment, config, problems)
    numbers = _numbers(found, problems)
    weights = _weights(config, found, recorded_weights, problems, totals=include_hidden)
    by_question: dict[str, list[TestInfo]] = {q.id: [] for q in config.questions}
    named: dict[type, tuple[str, ...]] = {}
    for question_id, methods in found.items():
        for m in methods:
            if m.kind == "hidden" and not include_hidden or m.key not in weights:
                continue
            visibility = _visibility(config, m, problems)
            tags = _tags(m, problems, named)
            by_question[question_id].append(
                TestInfo(m.cls, m.method, question_id, numbers[m.key], weights[m.key], tags, visibility,
                         m.kind == "hidden", _name(m))
            )  # fmt: skip
    if problems:
        raise ConfigError(
            f"the tests of {assignment.name} have {len(problems)} problem(s); nothing is graded until they are "
            "fixed:\n  " + "\n  ".join(problems)
        )
    return by_question


def _found(assignment: Assignment, config: AssignmentConfig, problems: list[str]) -> dict[str, list[_Method]]:
    """The test methods of each question, in the order they are written, public ones first."""
    found: dict[str, list[_Method]] = {q.id: [] for q in config.questions}
    ids = ", ".join(found)
    for kind, module_name in assignment.test_modules.items():
        module = _test_module(module_name, problems)
        for table in [value for value in vars(module).values() if isinstance(value, Cases)] if module else []:
            problems += table.call_problems(assignment.solution_dir)
        for cls in _test_classes(module) if module else []:
            for method in _methods_in_order(cls):
                question = cls.question or str(getattr(getattr(cls, method), "__number__", "")).rpartition(".")[0]
                if question in found:
                    found[question].append(_Method(cls, method, kind, question))
                    continue
                why = f"question {question!r} is not in the config ({ids})" if question else "it names no question"
                problem = f'{_where(cls)}: class {cls.__name__}: {why}; set `question = "ID"` to one of its ids'
                if problem not in problems:  # once per class, not once per test
                    problems.append(problem)
    return found


def _test_module(name: str, problems: list[str]) -> ModuleType | None:
    """The test module ``name`` (None when there is none); one that cannot be imported is a problem
    at its file and line, not a traceback."""
    try:
        return optional_module(name)
    except SyntaxError as error:
        problems.append(f"{error.filename}:{error.lineno}: {error.msg}: {(error.text or '').strip()}")
    except Exception as error:  # noqa: BLE001 - whatever the file raises while it is imported is its problem
        frame = next(
            (f for f in reversed(traceback.extract_tb(error.__traceback__)) if "assignments" in f.filename), None
        )
        where = f"{frame.filename}:{frame.lineno}" if frame else name
        problems.append(f"{where}: {type(error).__name__}: {error} (while {name} is imported)")
    return None


def _where(cls: type) -> str:
    """``file:line`` of a class's source (a table's: its first row's), or its module's name for a class with none."""
    if written_at := getattr(cls, "written_at", None):
        return str(written_at)
    try:
        return f"{inspect.getsourcefile(cls)}:{inspect.getsourcelines(cls)[1]}"
    except (OSError, TypeError):
        return cls.__module__


def _test_classes(module: ModuleType) -> list[type[GradedTestCase]]:
    """Its test classes in the order written, then those of its tables of cases."""
    classes = [
        obj
        for _, obj in inspect.getmembers(module, inspect.isclass)
        if issubclass(obj, GradedTestCase) and obj.__module__ == module.__name__
    ]
    tables = [value for value in vars(module).values() if isinstance(value, Cases)]
    return sorted(classes, key=_class_line) + [c for table in tables for c in table.test_classes(module.__name__)]


def _class_line(cls: type) -> int:
    """Where the class is written: the first line of its first own function (a class built at run
    time, as tests make them, has no source to ask)."""
    lines = [_first_line(value) for value in vars(cls).values() if callable(value)]
    return min([line for line in lines if line] or [0])


def _methods_in_order(cls: type) -> list[str]:
    """Its test methods, in the order written (a mixin's in the mixin's order, after the class's own)."""
    names = unittest.TestLoader().getTestCaseNames(cls)
    return sorted(names, key=lambda n: (n not in vars(cls), _first_line(getattr(cls, n)), n))


def _first_line(function: Any) -> int:
    return getattr(getattr(inspect.unwrap(function), "__code__", None), "co_firstlineno", 0)


def _numbers(found: dict[str, list[_Method]], problems: list[str]) -> dict[str, str]:
    """Each test's number: the declared one, else the question's next free ``QUESTION.K``."""
    numbers: dict[str, str] = {}
    for question, methods in found.items():
        for m in methods:
            declared = getattr(m.function, "__number__", None)
            if declared is None:
                continue
            numbers[m.key] = str(declared)
            if not str(declared).startswith(question + "."):
                problems.append(f"{m.where}: @number must start with '{question}.', got {declared!r}")
        taken, count = set(numbers.values()), 0
        for m in methods:
            if m.key in numbers:
                continue
            count += 1
            while f"{question}.{count}" in taken:
                count += 1
            numbers[m.key] = f"{question}.{count}"
    used = list(numbers.values())
    problems.extend(f"test number {n} is used more than once" for n in sorted({n for n in used if used.count(n) > 1}))
    return numbers


def _weights(
    config: AssignmentConfig,
    found: dict[str, list[_Method]],
    recorded: Mapping[str, float] | None,
    problems: list[str],
    *,
    totals: bool,
) -> dict[str, float]:
    """Each test's points: declared, recorded (in the bundle), or an equal share of what is left;
    with ``totals``, the question's tests must add up to its points."""
    weights: dict[str, float] = {}
    for question in config.questions:
        methods = found[question.id]
        open_ = []
        for m in methods:
            declared = getattr(m.function, "__weight__", None)
            if declared is None:
                open_.append(m)
            elif isinstance(declared, (int, float)) and declared > 0:
                weights[m.key] = float(declared)
            else:
                problems.append(f"{m.where}: @weight and @partial_credit need points > 0, got {declared!r}")
        if recorded is not None:
            _recorded_shares(open_, recorded, weights, problems)
            continue
        left = question.points - sum(weights.get(m.key, 0.0) for m in methods)
        if open_ and left <= 1e-9:
            names = ", ".join(m.method for m in open_)
            problems.append(
                f"question {question.id}: its tests declare all its {question.points:g} points with @weight, "
                f"which leaves none for {names}; declare their points too, or drop a @weight"
            )
        for m in open_ if left > 1e-9 else []:
            weights[m.key] = left / len(open_)
        total = sum(weights.get(m.key, 0.0) for m in methods)
        if totals and not math.isclose(total, question.points, abs_tol=1e-9):
            problems.append(f"question {question.id}: tests weigh {total:g} points, config says {question.points:g}")
    return weights


def _recorded_shares(
    open_: list[_Method], recorded: Mapping[str, float], weights: dict[str, float], problems: list[str]
) -> None:
    for m in open_:
        if m.key in recorded:
            weights[m.key] = float(recorded[m.key])
        else:
            problems.append(f"{m.where}: its points are not in the bundle's recording; download the bundle again")


def _visibility(config: AssignmentConfig, m: _Method, problems: list[str]) -> str:
    question = config.question(m.question)
    expected = question.hidden_visibility if m.kind == "hidden" else question.visibility
    declared = getattr(m.function, "__visibility__", None)
    if declared is not None and declared != expected:
        problems.append(
            f"{m.where}: @visibility must be {expected!r} for a {m.kind} test of question {m.question}, "
            f"got {declared!r} (or leave it out: the file decides)"
        )
    return expected


def _tags(m: _Method, problems: list[str], named: dict[type, tuple[str, ...]]) -> tuple[str, ...]:
    """``named``: the targets each class's code names, read once per class (it parses the source)."""
    tags = tuple(getattr(m.function, "__tags__", None) or ()) or tuple(m.cls.functions)
    if not tags:
        if m.cls not in named:
            named[m.cls] = _named_targets(m.cls)
        tags = named[m.cls]
    if not tags or not all(Target.names_function(t) for t in tags):
        problems.append(
            f"{m.where}: name the student functions it calls as 'module.function', with @tags or the "
            f"class's `functions` (none were found in its self.call/self.check); got {tags!r}"
        )
    return tags


def _named_targets(cls: type) -> tuple[str, ...]:
    """The student functions the class's code (and its mixins') passes as text to self.call & co."""
    found: list[str] = []
    for klass in cls.__mro__:
        if klass.__module__.startswith(("autograder.grading.", "unittest", "builtins")):
            continue  # the framework's own classes name no student function
        for value in vars(klass).values():
            for node in _calls_in(value):
                first = node.args[0] if node.args else None
                if (
                    isinstance(node.func, ast.Attribute)
                    and node.func.attr in _CALLING
                    and isinstance(first, ast.Constant)
                    and isinstance(first.value, str)
                    and Target.names_function(first.value)
                    and first.value not in found
                ):
                    found.append(first.value)
    return tuple(found)


def _calls_in(function: Any) -> list[ast.Call]:
    """The calls in a function's source; none when it has no source to read."""
    if not inspect.isfunction(inspect.unwrap(function)):
        return []
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(inspect.unwrap(function))))
    except (OSError, TypeError, SyntaxError):
        return []
    return [node for node in ast.walk(tree) if isinstance(node, ast.Call)]


def _name(m: _Method) -> str:
    doc = (inspect.getdoc(m.function) or "").strip().splitlines()
    return doc[0] if doc else m.method
