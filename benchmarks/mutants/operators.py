"""Mutants of a reference solution, made from its syntax tree.

Only the code students write is mutated: the statements between ``### BEGIN SOLUTION`` and
``### END SOLUTION``. Each operator is a kind of bug students really make (the catalogue in
:data:`OPERATORS`); a mutant replaces the source text of one node and keeps every other byte of the
file, so its diff against the reference is one readable line.

Written on the standard library's ``ast`` rather than mutmut or cosmic-ray: their operators are
generic (they know nothing of ``axis=``, ``keepdims``, transposes, optimiser steps or state kept at
module level), they drive a test suite rather than yield mutants to an oracle, and they mutate whole
files where only the solution blocks matter.
"""

from __future__ import annotations

import ast
import copy
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
STATE = "_MUTANT_STATE"  # the module-level dict a hoisted allocation lives in

# What each operator does, as the benchmark's report names it.
OPERATORS = {
    "arithmetic": "an arithmetic operator swapped (+ -, * /, @ *, ** *)",
    "comparison": "a comparison swapped (> >=, < <=, == !=, in / not in)",
    "negation": "a unary minus or `not` dropped",
    "constant": "a number changed by one (or 1.0 to 0.0 and 2.0), a boolean flipped",
    "index": "an index or slice bound moved by one",
    "axis": "another axis, or keepdims dropped",
    "transpose": "a transpose added or dropped",
    "arguments": "two arguments of a call swapped",
    "statement": "a statement removed (a reset, a step, an update)",
    "in place": "a copy replaced by the object itself, or x = x - y by x -= y",
    "hoisted": "a fresh array, list or dict made once and kept between calls (module or class level)",
    "default": "a hyperparameter replaced by its default, or a keyword argument dropped",
    "function": "a numpy function swapped for its sibling (sum/mean, max/min, add.at/+=)",
    "random": "a draw from the given generator taken from np.random instead",
    "variable": "another variable of the same function used in its place",
    "logic": "`and` and `or` swapped",
}


@dataclass(frozen=True)
class Mutant:
    """One mutant: where it is, what it changes, and the whole mutated file."""

    file: str  # relative to the submission folder
    function: str  # "module.function" or "module.Class.method"
    operator: str
    line: int
    before: str
    after: str
    source: str

    @property
    def key(self) -> str:
        """A name that survives unrelated edits of the reference: no line number in it."""
        return f"{self.function} | {self.operator} | {self.before} -> {self.after}"


def solution_lines(text: str) -> set[int]:
    """The 1-based numbers of the lines inside solution blocks."""
    inside, lines = False, set()
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip() == BEGIN:
            inside = True
        elif line.strip() == END:
            inside = False
        elif inside:
            lines.add(number)
    return lines


class _Source:
    """A file's text with byte offsets per line, as ``ast`` positions count them."""

    def __init__(self, text: str) -> None:
        self.data = text.encode()
        self.starts = [0]
        for line in self.data.splitlines(keepends=True):
            self.starts.append(self.starts[-1] + len(line))

    def span(self, node: ast.AST) -> tuple[int, int]:
        start = self.starts[node.lineno - 1] + node.col_offset  # type: ignore[attr-defined]
        end = self.starts[node.end_lineno - 1] + node.end_col_offset  # type: ignore[attr-defined]
        return start, end

    def segment(self, node: ast.AST) -> str:
        start, end = self.span(node)
        return self.data[start:end].decode()

    def replaced(self, node: ast.AST, text: str) -> str:
        start, end = self.span(node)
        return (self.data[:start] + text.encode() + self.data[end:]).decode()


# ---------------------------------------------------------------------------------- the operators
# Each takes a node (and its context) and yields (operator, replacement node or source text).

_SWAPS: dict[type, tuple[type, ...]] = {
    ast.Add: (ast.Sub,),
    ast.Sub: (ast.Add,),
    ast.Mult: (ast.Div,),
    ast.Div: (ast.Mult,),
    ast.MatMult: (ast.Mult,),
    ast.Pow: (ast.Mult,),
    ast.FloorDiv: (ast.Div,),
}
_COMPARISONS: dict[type, type] = {
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
_SIBLINGS = {"sum": "mean", "mean": "sum", "max": "min", "min": "max", "maximum": "minimum", "zeros": "ones",
             "zeros_like": "ones_like", "exp": "log", "log": "exp"}
_FRESH = {"zeros", "zeros_like", "empty", "empty_like", "ones", "ones_like", "array", "copy", "full", "list",
          "dict", "deque"}
_COPIES = {"copy", "array", "list", "deque", "asarray"}


Found = Iterator[tuple[str, "ast.AST | str"]]


def _binop(node: ast.AST) -> Found:
    if isinstance(node, ast.BinOp):
        for other in _SWAPS.get(type(node.op), ()):
            yield "arithmetic", ast.BinOp(node.left, other(), node.right)
    if isinstance(node, ast.AugAssign):
        for other in _SWAPS.get(type(node.op), ()):
            yield "arithmetic", ast.AugAssign(node.target, other(), node.value)


def _compare(node: ast.AST) -> Found:
    if isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            if type(op) in _COMPARISONS:
                ops = list(node.ops)
                ops[i] = _COMPARISONS[type(op)]()
                yield "comparison", ast.Compare(node.left, ops, node.comparators)


def _negation(node: ast.AST) -> Found:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.Not)):
        if not (isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant)):
            yield "negation", node.operand


def _logic(node: ast.AST) -> Found:
    if isinstance(node, ast.BoolOp):
        yield "logic", ast.BoolOp(ast.Or() if isinstance(node.op, ast.And) else ast.And(), node.values)


def _number(node: ast.AST) -> float | int | None:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        value = node.operand.value
        return -value if type(value) in (int, float) else None
    return None


def _constant(node: ast.AST, parent: ast.AST | None) -> Found:
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        yield "constant", ast.Constant(not node.value)
        return
    value = _number(node)
    if value is None or isinstance(parent, ast.UnaryOp) or _is_axis(parent, node):
        return
    operator = "index" if isinstance(parent, (ast.Subscript, ast.Slice)) else "constant"
    if isinstance(value, int):
        replacements = [value + 1, value - 1]
    elif value in (0.0, 1.0):
        replacements = [1.0 - value, 2.0] if value == 1.0 else [1.0]
    else:
        replacements = [value * 10, value / 10] if abs(value) < 1e-3 else [value + 1.0]
    for new in replacements:
        yield operator, ast.Constant(new) if new >= 0 else ast.UnaryOp(ast.USub(), ast.Constant(-new))


def _is_axis(parent: ast.AST | None, node: ast.AST) -> bool:
    return isinstance(parent, ast.keyword) and parent.arg in ("axis", "keepdims")


def _slice(node: ast.AST) -> Found:
    """A name used as a slice bound, moved by one (``a[:k]`` -> ``a[:k + 1]``)."""
    if isinstance(node, ast.Slice):
        for part in ("lower", "upper"):
            bound = getattr(node, part)
            if isinstance(bound, (ast.Name, ast.Attribute, ast.BinOp)):
                for op in (ast.Add(), ast.Sub()):
                    moved = copy.copy(node)
                    setattr(moved, part, ast.BinOp(bound, op, ast.Constant(1)))
                    yield "index", moved


def _axis(node: ast.AST) -> Found:
    if not isinstance(node, ast.Call):
        return
    for i, keyword in enumerate(node.keywords):
        if keyword.arg == "axis":
            value = _number(keyword.value)
            for other in (0, 1, -1, None):
                if other != value:
                    new = ast.Constant(other) if other is None or other >= 0 else ast.UnaryOp(ast.USub(), ast.Constant(1))
                    yield "axis", _with_keyword(node, i, new)
        if keyword.arg == "keepdims":
            yield "axis", _without_keyword(node, i)


def _with_keyword(node: ast.Call, index: int, value: ast.expr) -> ast.Call:
    keywords = list(node.keywords)
    keywords[index] = ast.keyword(keywords[index].arg, value)
    return ast.Call(node.func, node.args, keywords)


def _without_keyword(node: ast.Call, index: int) -> ast.Call:
    return ast.Call(node.func, node.args, [k for i, k in enumerate(node.keywords) if i != index])


def _transpose(node: ast.AST) -> Found:
    if isinstance(node, ast.Attribute) and node.attr == "T":
        yield "transpose", node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        for side in ("left", "right"):
            operand = getattr(node, side)
            if not (isinstance(operand, ast.Attribute) and operand.attr == "T"):
                changed = copy.copy(node)
                setattr(changed, side, ast.Attribute(operand, "T", ast.Load()))
                yield "transpose", changed


def _arguments(node: ast.AST) -> Found:
    if isinstance(node, ast.Call) and len(node.args) >= 2 and not any(isinstance(a, ast.Starred) for a in node.args):
        for i in range(len(node.args) - 1):
            args = list(node.args)
            if ast.dump(args[i]) != ast.dump(args[i + 1]):
                args[i], args[i + 1] = args[i + 1], args[i]
                yield "arguments", ast.Call(node.func, args, node.keywords)
    if isinstance(node, ast.Tuple) and isinstance(getattr(node, "_parent", None), ast.Return):
        for i in range(len(node.elts) - 1):
            elts = list(node.elts)
            elts[i], elts[i + 1] = elts[i + 1], elts[i]
            yield "arguments", ast.Tuple(elts, ast.Load())


def _callee(node: ast.Call) -> str:
    return node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")


def _function(node: ast.AST) -> Found:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _SIBLINGS:
        yield "function", ast.Call(ast.Attribute(node.func.value, _SIBLINGS[node.func.attr], ast.Load()),
                                   node.args, node.keywords)
    if isinstance(node, ast.Call) and _callee(node) == "at" and len(node.args) == 3:
        array, index, value = node.args
        target = ast.Subscript(array, index, ast.Store())
        yield "function", ast.AugAssign(target, ast.Add(), value)


def _in_place(node: ast.AST) -> Found:
    if isinstance(node, ast.Call) and _callee(node) in _COPIES:
        if _callee(node) == "copy" and isinstance(node.func, ast.Attribute) and not node.args:
            yield "in place", node.func.value
        elif node.args and not isinstance(node.func, ast.Attribute) or _callee(node) in ("array", "asarray"):
            if node.args:
                yield "in place", node.args[0]
    if isinstance(node, ast.ListComp) and len(node.generators) == 1 and node.generators[0].ifs:
        yield "in place", node.generators[0].iter
    if (
        isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.value, ast.BinOp)
        and ast.dump(node.targets[0]) == ast.dump(node.value.left)
    ):
        yield "in place", ast.AugAssign(node.targets[0], node.value.op, node.value.right)


def _fresh(value: ast.AST) -> bool:
    if isinstance(value, (ast.List, ast.Dict, ast.ListComp, ast.DictComp)):
        return True
    return isinstance(value, ast.Call) and _callee(value) in _FRESH


def _hoisted(node: ast.AST, site: str) -> Found:
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and _fresh(node.value):
        kept = ast.Call(
            ast.Attribute(ast.Name(STATE, ast.Load()), "setdefault", ast.Load()),
            [ast.Constant(site), node.value],
            [],
        )
        yield "hoisted", ast.Assign(node.targets, kept)
    if isinstance(node, ast.AnnAssign) and node.value is not None and _fresh(node.value):
        kept = ast.Call(
            ast.Attribute(ast.Name(STATE, ast.Load()), "setdefault", ast.Load()),
            [ast.Constant(site), node.value],
            [],
        )
        yield "hoisted", ast.Assign([node.target], kept)


def _random(node: ast.AST) -> Found:
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and "rng" in ast.unparse(node.func.value)
        and node.func.attr in ("random", "uniform", "standard_normal", "integers", "binomial")
    ):
        attribute = "randint" if node.func.attr == "integers" else node.func.attr
        np_random = ast.Attribute(ast.Attribute(ast.Name("np", ast.Load()), "random", ast.Load()), attribute,
                                  ast.Load())
        yield "random", ast.Call(np_random, node.args, node.keywords)


def _statement(node: ast.AST) -> Found:
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return)):
        if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):  # a docstring
            yield "statement", "pass"


@dataclass
class _Context:
    """What the operators that need more than the node know of the function it is in."""

    defaults: dict[str, ast.expr]  # parameter -> its default (constants only)
    init_defaults: dict[str, ast.expr]  # for a method: the class __init__'s parameters with defaults
    locals_before: Callable[[int], list[str]]  # names assigned (or parameters) before a line


def _default(node: ast.AST, parent: ast.AST | None, context: _Context) -> Found:
    if isinstance(node, ast.Call):
        for i, keyword in enumerate(node.keywords):
            if keyword.arg and keyword.arg not in ("axis", "keepdims", "dtype", "size", "out"):
                yield "default", _without_keyword(node, i)
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in context.defaults:
        yield "default", context.defaults[node.id]
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Load)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
        and node.attr in context.init_defaults
    ):
        yield "default", context.init_defaults[node.attr]


_NOT_VARIABLES = {"self", "np", "numpy", "random", "math", "True", "False", "None"}


def _variable(node: ast.AST, parent: ast.AST | None, context: _Context) -> Found:
    if not (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)) or node.id in _NOT_VARIABLES:
        return
    if isinstance(parent, ast.Call) and parent.func is node:
        return
    candidates = [n for n in context.locals_before(node.lineno) if n != node.id]
    for name in candidates[-2:]:  # the two assigned most recently: the likeliest mix-up
        yield "variable", ast.Name(name, ast.Load())


# ---------------------------------------------------------------------------------- the walk


def _function_context(function: ast.FunctionDef, owner: ast.ClassDef | None) -> _Context:
    def constants(args: ast.arguments) -> dict[str, ast.expr]:
        positional = args.posonlyargs + args.args
        pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
        pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
        return {a.arg: d for a, d in pairs if isinstance(d, ast.Constant) and d.value is not None}

    init = next((n for n in (owner.body if owner else []) if isinstance(n, ast.FunctionDef) and n.name == "__init__"),
                None)
    assigned: list[tuple[int, str]] = [(function.lineno, a.arg) for a in function.args.args if a.arg != "self"]
    for node in ast.walk(function):
        targets: list[ast.AST] = []
        if isinstance(node, (ast.Assign,)):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For)):
            targets = [node.target]
        for target in targets:
            for name in ast.walk(target):
                if isinstance(name, ast.Name):
                    assigned.append((node.lineno, name.id))

    def before(line: int) -> list[str]:
        names: list[str] = []
        for at, name in sorted(assigned):
            if at < line and name not in names:
                names.append(name)
            elif at < line:
                names.remove(name)
                names.append(name)
        return names

    return _Context(constants(function.args), constants(init.args) if init else {}, before)


def _operators(node: ast.AST, parent: ast.AST | None, context: _Context, site: str) -> Found:
    yield from _binop(node)
    yield from _compare(node)
    yield from _negation(node)
    yield from _logic(node)
    yield from _constant(node, parent)
    yield from _slice(node)
    yield from _axis(node)
    yield from _transpose(node)
    yield from _arguments(node)
    yield from _function(node)
    yield from _in_place(node)
    yield from _hoisted(node, site)
    yield from _random(node)
    yield from _statement(node)
    yield from _default(node, parent, context)
    yield from _variable(node, parent, context)


def _functions(tree: ast.Module, module: str) -> Iterator[tuple[str, ast.FunctionDef, ast.ClassDef | None]]:
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            yield f"{module}.{node.name}", node, None
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    yield f"{module}.{node.name}.{item.name}", item, node


def _children(node: ast.AST) -> Iterator[tuple[ast.AST, ast.AST]]:
    for child in ast.iter_child_nodes(node):
        child._parent = node  # type: ignore[attr-defined]
        yield child, node
        yield from _children(child)


def _state_line(tree: ast.Module) -> int:
    """The line before which the hoisted state's dict is defined: the first top-level def or class."""
    first = next(n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef)))
    return min([first.lineno, *(d.lineno for d in first.decorator_list)])


def _with_state(text: str, line: int) -> str:
    lines = text.splitlines(keepends=True)
    return "".join(lines[: line - 1] + [f"{STATE}: dict = {{}}\n\n\n"] + lines[line - 1:])


# Replacements that need brackets wherever they go (a slice or a statement never does).
_LOOSE = (ast.BinOp, ast.BoolOp, ast.Compare, ast.UnaryOp, ast.IfExp, ast.Tuple)


def _shown(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def mutants_of(path: Path, relative: str) -> Iterator[Mutant]:
    """Every mutant of one file's solution blocks, in the order of the file."""
    text = path.read_text()
    lines = solution_lines(text)
    tree = ast.parse(text)
    source = _Source(text)
    module = relative.removesuffix(".py").replace("/", ".")
    state_line = _state_line(tree)
    for qualname, function, owner in _functions(tree, module):
        context = _function_context(function, owner)
        for number, (node, parent) in enumerate(_children(function)):
            if not hasattr(node, "lineno") or not (node.lineno in lines and node.end_lineno in lines):
                continue
            if isinstance(node, ast.JoinedStr) or isinstance(parent, ast.JoinedStr):
                continue
            site = f"{qualname}#{number}"  # names the place without its line, which edits elsewhere move
            before = source.segment(node)
            for operator, replacement in _operators(node, parent, context, site):
                after = replacement if isinstance(replacement, str) else ast.unparse(ast.fix_missing_locations(replacement))
                if isinstance(replacement, _LOOSE):
                    after = f"({after})"
                if _shown(after) == _shown(before):
                    continue
                mutated = source.replaced(node, after)
                if operator == "hoisted":
                    mutated = _with_state(mutated, state_line)
                try:
                    compile(mutated, relative, "exec")
                except SyntaxError:
                    continue
                yield Mutant(relative, qualname, operator, node.lineno, _shown(before), _shown(after), mutated)
