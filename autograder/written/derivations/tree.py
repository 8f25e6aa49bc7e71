"""The tree a formula is read into: what :mod:`.reader` builds and :mod:`.evaluate` computes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Relation = Literal[">", "≥", "="]
# dot: \\cdot, a dot product between vectors; matmul: numpy's @, which is one between two vectors
ProductKind = Literal["product", "elementwise", "divide", "dot", "outer", "matmul"]


@dataclass(frozen=True)
class Number:
    value: float


@dataclass(frozen=True)
class Name:
    """A symbol of the notation."""

    symbol: str


@dataclass(frozen=True)
class IndexName:
    """An index: a letter bound by a sum, a named index (``o``), a case's (``w``) or a number."""

    name: str


@dataclass(frozen=True)
class IndexOf:
    """An entry of a list of indices: ``w_k``."""

    indices: str
    position: IndexName


IndexExpression = IndexName | IndexOf


@dataclass(frozen=True)
class Part:
    """A row or an entry of a family: ``u_w``, ``\\hat y_o``, ``u_{w_k}``."""

    family: str
    index: IndexExpression


@dataclass(frozen=True)
class Entry:
    """An entry of a vector or matrix: ``x_j``, ``(W_1)_{ji}``, ``(xW + b_1)_i``."""

    operand: Node
    indices: tuple[IndexExpression, ...]


@dataclass(frozen=True)
class SameIndex:
    """``\\mathbb{1}[w = o]``: 1 when the two indices are the same word, else 0 (``differ``: ``\\neq``)."""

    left: IndexExpression
    right: IndexExpression
    differ: bool = False


@dataclass(frozen=True)
class Negative:
    operand: Node


@dataclass(frozen=True)
class Sum:
    left: Node
    right: Node
    subtract: bool = False


@dataclass(frozen=True)
class Product:
    left: Node
    right: Node
    kind: ProductKind = "product"


@dataclass(frozen=True)
class Power:
    base: Node
    exponent: float


@dataclass(frozen=True)
class Transpose:
    operand: Node


@dataclass(frozen=True)
class Call:
    function: str  # one evaluate.py computes: sigma, sigma', relu, relu', exp, log, tanh, tanh', sech, softmax, diag
    argument: Node


@dataclass(frozen=True)
class Defined:
    """A function the answer defined (``\\sigma'(x) = \\sigma(x)(1 - \\sigma(x))``) applied to
    ``argument``: ``body`` computed with the symbol ``parameter`` standing for the argument's value.
    It means what the answer defined, not what the notation's function of that name is."""

    function: str
    parameter: str
    body: Node
    argument: Node


@dataclass(frozen=True)
class Indicator:
    """``\\mathbb{1}[left > right]``, entry by entry; ``relation`` ``≥`` for ``\\geq``, ``=`` for
    ``\\mathbb{1}[y_i = 1]``."""

    left: Node
    right: Node
    relation: Relation = ">"


@dataclass(frozen=True)
class Let:
    """``body`` with ``letter`` bound to ``index``: an entry the answer defined under a letter of
    its own (``\\hat y_w = \\sigma(u_w^\\top v_c)``), taken at ``index`` (``\\hat y_o``)."""

    letter: str
    index: IndexExpression
    body: Node


@dataclass(frozen=True)
class Tabulate:
    """The vector of the symbol ``like``'s shape whose entry ``letter`` is ``body``: a symbol the
    answer defined entry by entry, used whole (``U^\\top(\\hat y - y)``)."""

    letter: str
    body: Node
    like: str


@dataclass(frozen=True)
class Stack:
    """The parts of ``family`` through the list ``indices``, first to last, as the rows of a matrix
    (``[u_{w_1}; \\dots; u_{w_K}]``) or as its columns (``[u_{w_1}, \\dots, u_{w_K}]``)."""

    family: str
    indices: str
    columns: bool = False
    last: str = "K"  # as the answer names the last (only shown)


@dataclass(frozen=True)
class Summation:
    """``\\sum_{index} body``: over every value of ``index`` but ``skip``; ``upper`` names the size
    written above the sum (``K``, ``|V|``), "" when none is."""

    index: str
    body: Node
    skip: IndexExpression | None = None
    upper: str = ""
    condition: SameIndex | None = None  # \\sum_{k: w_k = w}: only the terms where it holds
    lower: int = 1  # the first value written below the sum (0 counts from 0)
    shift: int = 0  # what the upper limit adds to its size: -1 for K-1


Node = (
    Number
    | Name
    | Part
    | Entry
    | SameIndex
    | Negative
    | Sum
    | Product
    | Power
    | Transpose
    | Call
    | Defined
    | Indicator
    | Summation
    | Let
    | Tabulate
    | Stack
)


def children(node: Node) -> tuple[Node, ...]:
    if isinstance(node, (Sum, Product, Indicator)):
        return (node.left, node.right)
    if isinstance(node, (Negative, Transpose, Entry)):
        return (node.operand,)
    if isinstance(node, Power):
        return (node.base,)
    if isinstance(node, (Call, Defined)):  # a defined function's body is in terms of its parameter
        return (node.argument,)
    if isinstance(node, (Summation, Let, Tabulate)):
        return (node.body,)
    return ()


def kinks(node: Node) -> list[Node]:
    """What ``node`` compares with 0 where its value jumps: ``z`` of ``\\mathbb{1}[z > 0]`` (as
    ``left - right``) and of ``\\mathrm{ReLU}'(z)``, so that a draw can put one of them at exactly 0."""
    found = [child for child in children(node) for child in kinks(child)]
    if isinstance(node, Indicator) and node.relation != "=":
        found.append(Sum(node.left, node.right, subtract=True))
    if isinstance(node, Call) and node.function in ("relu", "relu'"):
        found.append(node.argument)
    return found


def has_dot(node: Node) -> bool:
    """Whether ``node`` has a ``\\cdot``, which between two vectors may be a dot product."""
    return (isinstance(node, Product) and node.kind == "dot") or any(has_dot(child) for child in children(node))


_OPERATORS = {"product": " ", "elementwise": " ⊙ ", "divide": " / ", "dot": " · ", "outer": " ⊗ ", "matmul": " @ "}


def shown(node: Node) -> str:
    """The tree written back in plain notation, for feedback: how the formula was read."""
    if isinstance(node, Number):
        return f"{node.value:.12g}"
    if isinstance(node, Name):
        return node.symbol
    if isinstance(node, Part):
        return f"{node.family}_{_index(node.index)}"
    if isinstance(node, Entry):
        return f"{_grouped(node.operand)}_{''.join(_index(i) for i in node.indices)}"
    if isinstance(node, SameIndex):
        return f"1[{_index(node.left)} {'≠' if node.differ else '='} {_index(node.right)}]"
    if isinstance(node, Negative):
        return f"-{_grouped(node.operand)}"
    if isinstance(node, Sum):
        return f"{shown(node.left)} {'-' if node.subtract else '+'} {_grouped(node.right)}"
    if isinstance(node, Product):
        operator = _OPERATORS[node.kind]
        chained = isinstance(node.left, Product) and node.left.kind == node.kind in ("product", "elementwise")
        return f"{shown(node.left) if chained else _grouped(node.left)}{operator}{_grouped(node.right)}"
    if isinstance(node, Power):
        return f"{_grouped(node.base)}^{node.exponent:g}"
    if isinstance(node, Transpose):
        return f"{_grouped(node.operand)}^T"
    if isinstance(node, Call):
        return f"{node.function}({shown(node.argument)})"
    if isinstance(node, Defined):
        return f"{node.function}({shown(node.argument)}) as defined, {shown(node.body)}"
    if isinstance(node, Indicator):
        return f"1[{shown(node.left)} {node.relation} {shown(node.right)}]"
    if isinstance(node, Let):
        at = _index(node.index)
        return _grouped(node.body) + ("" if at == node.letter else f" at {node.letter} = {at}")
    if isinstance(node, Tabulate):
        return f"[{shown(node.body)}]_{node.letter}"
    if isinstance(node, Stack):
        separator = ", " if node.columns else "; "
        return f"[{node.family}_{node.indices}_1{separator}...{separator}{node.family}_{node.indices}_{node.last}]"
    skip = f" ≠ {_index(node.skip)}" if node.skip is not None else ""
    condition = f": {shown(node.condition)[2:-1]}" if node.condition is not None else ""
    lower = f"={node.lower}" if node.lower != 1 or node.upper else ""
    upper = f"^{node.upper}{node.shift:+d}" if node.shift else f"^{node.upper}" if node.upper else ""
    return f"sum_{node.index}{lower}{skip}{condition}{upper} {_grouped(node.body)}"


def _index(index: IndexExpression) -> str:
    return index.name if isinstance(index, IndexName) else f"{index.indices}_{index.position.name}"


def _grouped(node: Node) -> str:
    simple = isinstance(node, (Number, Name, Part, Call, Indicator, Transpose, Power, Entry, SameIndex, Stack))
    return shown(node) if simple else f"({shown(node)})"
