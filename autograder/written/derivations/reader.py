"""Reads a formula written in LaTeX (or plain text, or with unicode symbols) into a :mod:`.tree`.

What it reads (``docs/authoring-guide.md`` and the handouts state it to students):

- the notation's symbols in any declared spelling: ``\\hat{y}``, ``\\hat y``, ``ŷ``, ``W_2``, ``W_{2}``,
  ``\\mathbf{U}``, ``\\boldsymbol{v}_c``; parts of a family: ``u_w``, ``\\hat y_o``, ``u_{w_k}``;
- products written side by side or with ``\\cdot``, ``\\times``, ``*``; entry by entry with ``\\odot``,
  ``\\circ``, ``⊙`` (and side by side, for two quantities of the same shape that no matrix product
  fits: ``h(1-h)``); ``/`` and ``\\frac``; ``+ -``; powers ``^2``;
- transposes ``^\\top``, ``^T``, ``^{T}``, ``^\\intercal``, ``'``;
- ``\\sigma``, ``\\sigma'``, ``\\mathrm{ReLU}``, ``\\mathrm{ReLU}'``, ``\\exp``, ``e^{...}``, ``\\log``,
  ``\\tanh``, ``\\tanh'``, ``\\mathrm{sech}``, ``\\mathrm{softmax}``, ``\\mathrm{diag}``, ``\\max(0, ...)``,
  the indicator ``\\mathbb{1}[... > 0]`` (``\\mathbf{1}``, ``\\mathbb{I}``, ``1\\{...\\}``, ``\\mathbb{1}_{... > 0}``);
- sums ``\\sum_w``, ``\\sum_{w=1}^{|V|}``, ``\\sum_{w \\in V}``, ``\\sum_{w \\neq o}``, ``\\sum_{k=1}^{K}``;
- brackets of every kind, ``\\left( \\right)``, ``\\big``, ``\\boxed``, ``\\underbrace{...}_{...}``;
- Iverson's bracket ``[w = o]`` (and a comparison in round brackets, numpy's mask ``(z > 0)``),
  Kronecker's ``\\delta_{w, w_k}``, counts ``\\#\\{k : w_k = w\\}``, ``|\\{...\\}|``; the parts of a family
  through a list written out as a matrix, ``[u_{w_1}; \\dots; u_{w_K}]``;
- as typed without LaTeX: ``yhat``, ``vc``, ``sum_w``, ``theta``, ``u . v``; numpy's ``@`` (then ``*`` is
  entry by entry) and ``.T``; Julia's and Matlab's ``.*``, ``.-`` and ``'``; an equation editor's
  letters (``𝒚``, ``𝑾``) and combining accents.

How (``docs/architecture.md``): :mod:`.spellings` makes LaTeX of what was typed, :mod:`.lexemes` cuts
it into the terminals of ``formula.lark``, Lark's LALR parser binds them and this module builds the
tree. ``\\label{...}`` and ``\\tag{...}`` are no part of a formula.

A formula ends at ``\\in``, ``\\quad``, a top-level comma or full stop, ``\\text{...}`` that is no
function, a word that names nothing, a tick or a star (``✓``), a ``#`` comment, or a shape in brackets
(``(D_h x n)``): what follows is commentary. Nothing is evaluated by Python; the input is cut to
:data:`.lexemes.MAX_LENGTH` characters and brackets nest at most :data:`.lexemes.MAX_DEPTH` deep, so reading is linear
and quick.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import reduce
from pathlib import Path
from typing import Any

from lark import Lark, Tree
from lark import Token as LarkToken
from lark.exceptions import UnexpectedInput
from lark.lexer import Lexer as LarkLexer

from autograder.written.derivations.evaluate import FUNCTIONS
from autograder.written.derivations.lexemes import (
    CLOSING_TEXT,
    COMPARE,
    MAX_LENGTH,
    MAX_POWER,
    OPEN,
    Atom,
    Lexer,
    ReadError,
    Token,
    UnreadName,
    Vocabulary,
    not_read,
    shown_atom,
    tokens,
    transposes,
)
from autograder.written.derivations.sides import OTHERWISE, Side, Words
from autograder.written.derivations.spellings import as_latex
from autograder.written.derivations.tree import (
    Call,
    Defined,
    Entry,
    IndexExpression,
    IndexName,
    IndexOf,
    Indicator,
    Negative,
    Node,
    Number,
    Part,
    Power,
    Product,
    ProductKind,
    SameIndex,
    Stack,
    Sum,
    Summation,
    Transpose,
)

# "(w \neq o)", "(\text{for } w = o)", "(if w = o)" closing a formula: when it holds, not a factor
# (an indicator inside, as in "(1 - \mathbb{1}[y_i = 1])", makes it a factor).
_CONDITION_AT_END = re.compile(
    r"\s*\((?![^()]*(?:\\mathbb|\\mathbf|\\mathds|\[))"
    r"(?:[^()]*?(?:\\neq?\b|\\ne\b|=|\\text\s*\{\s*(?:if|for|when|where)\b|\bif\b|\bfor\b))[^()]*\)\s*[.,;]?\s*$"
)

# "(D_h x n)", "(|V| \times d)" closing a formula: its shape, said, not a factor.
_SHAPE_AT_END = re.compile(r"\s*\(\s*[\w|{}\\ ]+?\s(?:x|×|\\times)\s[\w|{}\\ ]+\)\s*[.,;]?\s*$")


def read(latex: str, vocabulary: Vocabulary) -> tuple[Node, str]:
    """The formula in ``latex``, and the commentary after it that was not read (words, ``\\in
    \\mathbb{R}^d``, a condition in brackets at the end: ``(w \\neq o)``)."""
    condition = _CONDITION_AT_END.search(latex[:MAX_LENGTH]) or _SHAPE_AT_END.search(latex[:MAX_LENGTH])
    if condition:
        latex = latex[: condition.start()]
    found = tokens(latex)
    lexer = Lexer(found, vocabulary)
    if lexer.at_end():
        raise ReadError("there is no formula in it")
    if found[0].kind == "other":
        raise ReadError(not_read(found[0]))
    if lexer.word_starts():
        if len(re.findall(r"[A-Za-z]{3,}", latex)) >= 3:  # "the number of words times two"
            raise ReadError("there is no formula in it, only words")
        word = "".join(token.text for token in lexer.together(None))
        raise ReadError(f"it starts with '{word}', which is no symbol or function of this question")
    lexemes, commentary = lexer.lexemes()
    node = _parse(lexemes, lexer, "start")  # and the commentary, in the text the tokens index
    return node, "" if commentary is None else as_latex(latex)[found[commentary].start :].strip()


def read_side(side: Side, vocabulary: Vocabulary) -> tuple[Node, str]:
    """:func:`read` for a side of an equation. Cases whose rows hold conditions read as one formula:
    each row times the indicator of its condition, ``otherwise`` times what no other row covers."""
    if isinstance(side, str):
        return read(side, vocabulary)
    if isinstance(side, Words):
        raise ReadError("words are not read, and these do not say it is what the handout's name for it means")
    terms: list[Node] = []
    taken: list[Node] = []
    for formula, condition in side.rows:
        value, _ = read(formula, vocabulary)
        if OTHERWISE.fullmatch(condition):
            rest: Node = Number(1.0)
            for indicator in taken:
                rest = Sum(rest, indicator, subtract=True)
            terms.append(Product(value, rest, "product"))
        elif condition:
            lexer = Lexer(tokens(condition), vocabulary)
            lexemes, rest_at = lexer.lexemes()
            if rest_at is not None:
                raise ReadError(f"the condition '{condition}' of its cases cannot be read")
            taken.append(_parse(lexemes, lexer, "condition"))
            terms.append(Product(value, taken[-1], "product"))
        else:
            raise ReadError(f"the row '{formula}' of its cases says for which case it holds nowhere")
    return reduce(Sum, terms), ""


class _ListLexer(LarkLexer):
    """Hands the parser the lexemes :class:`Lexer` made: the grammar's terminals are lexemes."""

    def __init__(self, conf: object) -> None:
        pass

    def lex(self, data: list[LarkToken], *_: object) -> Iterator[LarkToken]:  # type: ignore[override]
        yield from data


_GRAMMAR = Lark(
    (Path(__file__).parent / "formula.lark").read_text(encoding="utf-8"),
    parser="lalr",
    lexer=_ListLexer,
    start=["start", "condition"],
    maybe_placeholders=False,
)


def _parse(lexemes: list[LarkToken], lexer: Lexer, start: str) -> Node:
    """The formula (or, with ``start`` "condition", the condition) the lexemes make, by the grammar."""
    try:
        tree = _GRAMMAR.parse(lexemes, start=start)
    except UnexpectedInput as error:
        raise ReadError(_unexpected(error)) from None
    try:
        return _Builder(lexer).build(tree)
    except UnreadName as error:
        raise ReadError(_unread_definition(error.atom, lexer.vocabulary)) from None


def _unexpected(error: UnexpectedInput) -> str:
    """What the grammar found where it expected something else, in the student's words."""
    token = getattr(error, "token", None)
    if token is None or token.type == "$END":
        return "it ends too soon (an operator or a bracket without what follows it)"
    text = token.value.text
    closing = sorted(CLOSING_TEXT[kind] for kind in getattr(error, "expected", ()) if kind in CLOSING_TEXT)
    if closing and token.type in CLOSING_TEXT:
        return f"expected '{closing[0]}' but found '{text}' (are the brackets balanced?)"
    return f"it cannot be read from '{text}' on"


def _unread_definition(atom: Atom, vocabulary: Vocabulary) -> str:
    """Why a name the answer defined cannot be read: what its definition needs that is missing."""
    side = vocabulary.unread_definitions[atom.key]
    shown = " ".join((side if isinstance(side, str) else side.shown()).split())
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    try:  # read with the other unread names missing: the error names what is really missing
        read_side(side, vocabulary.restated(atom.key))
    except ReadError as error:
        return f"{shown_atom(atom)} is defined as '{shown}', which cannot be read: {error}"
    return f"{shown_atom(atom)} is defined as '{shown}', which cannot be read"


_PRODUCTS: dict[str, ProductKind] = {
    "entrywise": "elementwise",
    "outer": "outer",
    "side_by_side": "product",
    "times": "product",
    "dot": "dot",
    "matmul": "matmul",
    "divide": "divide",
}

_POSTFIX = {"transpose", "superscript", "entry"}

_SUMS = {"add", "subtract"}


def _token(child: Tree | LarkToken) -> LarkToken:
    assert isinstance(child, LarkToken), child  # formula.lark puts a terminal here
    return child


def _payload(child: Tree | LarkToken) -> Any:
    return _token(child).value.payload


def _text(child: Tree | LarkToken) -> str:
    return str(_token(child).value.text)


class _Builder:
    """The tree of a formula from the grammar's parse: each rule of formula.lark as a node of
    :mod:`.tree`, names resolved in the lexer's vocabulary."""

    def __init__(self, names: Lexer) -> None:
        self.names = names

    def build(self, tree: Tree | LarkToken) -> Node:
        spine = []  # sums, products and scripts nest to the left: built in a loop, not by recursion
        while isinstance(tree, Tree) and (tree.data in _PRODUCTS or tree.data in _POSTFIX or tree.data in _SUMS):
            spine.append(tree)
            tree = tree.children[0]
        node = self.primary(tree)
        for step in reversed(spine):
            node = self.combined(step, node)
        return node

    def combined(self, tree: Tree, left: Node) -> Node:
        last = tree.children[-1]
        if tree.data == "transpose":
            return Transpose(left)
        if tree.data == "superscript":
            return _superscript(left, _payload(last))
        if tree.data == "entry":
            return Entry(left, self.names.entry_indices(_payload(last)))
        if tree.data in _SUMS:
            return Sum(left, self.build(last), tree.data == "subtract")
        right = self.build(last)
        if tree.data == "side_by_side" and left == Number(1.0) and isinstance(right, (Indicator, SameIndex)):
            return right  # 1[w = o], 1\{z > 0\}: the indicator, written with its 1
        return Product(left, right, _PRODUCTS[tree.data])

    def primary(self, tree: Tree | LarkToken) -> Node:
        assert isinstance(tree, Tree), tree  # every terminal of formula.lark sits in a rule
        children = tree.children
        if tree.data == "number":
            return Number(float(_text(children[0])))
        if tree.data == "node":
            return _payload(children[0])
        if tree.data == "name":
            atom = _payload(children[0])
            node = self.names.resolve(atom)
            return Transpose(node) if atom.transposed else node
        if tree.data in ("signed", "negative"):
            operand = self.build(children[1])
            return Negative(operand) if tree.data == "negative" else operand
        if tree.data in ("bracket", "argument") and isinstance(children[1], Tree) and children[1].data == "stack":
            return self.stack(children[1], children[0])
        if tree.data in ("bracket", "argument"):  # a formula or a condition (Iverson's bracket, numpy's mask)
            return self.build(children[1])
        if tree.data == "fraction":
            return Product(self.build(children[1]), self.build(children[2]), "divide")
        if tree.data == "summation":
            over, body = _payload(children[0]), self.build(children[1])
            return Summation(over.index, body, over.skip, over.limit, over.condition, over.lower, over.shift)
        if tree.data == "call":
            return self.call(_payload(children[0]), self.build(children[1]))
        if tree.data == "maximum":
            return _maximum(self.build(children[2]), self.build(children[4]))
        if tree.data == "indicator":
            return self.indicator(children[0], children[1] if len(children) > 1 else None)
        if tree.data == "condition":
            return self.condition(tree)
        raise ReadError(f"the reader has no rule for {tree.data}")

    def stack(self, tree: Tree, opening: Tree | LarkToken) -> Node:
        """The parts of a family written out (``[u_{w_1}; \\dots; u_{w_K}]``)."""
        first, separator, _, again, last = tree.children
        ends = [self.build(end) for end in (first, last)]
        first_part, last_part = (node.operand if isinstance(node, Transpose) else node for node in ends)
        mark = _token(separator.children[0])
        listed = last_part.index if isinstance(last_part, Part) else None  # u_{w_K}: the list w
        if (
            isinstance(last_part, Part)
            and isinstance(listed, IndexOf)
            and first_part == Part(last_part.family, IndexOf(listed.indices, IndexName("1")))
            and _token(again.children[0]).type == mark.type
        ):
            return Stack(last_part.family, listed.indices, mark.type == "COMMA", listed.position.name)
        closing = OPEN.get(_text(opening), ")")
        raise ReadError(f"expected '{closing}' but found '{mark.value.text}' (are the brackets balanced?)")

    def call(self, function: tuple[str, bool, float], argument: Node) -> Node:
        name, derivative, power = function
        name += "'" if derivative else ""
        vocabulary = self.names.vocabulary
        if name in vocabulary.functions:
            parameter, body = vocabulary.functions[name]
            if body is None:
                raise ReadError(
                    f"{name} is defined in the answer in a way that cannot be read (a constant, or cases "
                    "in words?); define it as a formula, with \\begin{cases} for cases, or use the notation's"
                )
            return Defined(name, parameter, body, argument)
        if derivative and name not in FUNCTIONS:
            read = ", ".join(sorted(function for function in FUNCTIONS if function.endswith("'")))
            raise ReadError(f"it uses the derivative of {name[:-1]}; only {read} are read")
        return Power(Call(name, argument), power) if power else Call(name, argument)

    def indicator(self, symbol: Tree | LarkToken, bracket: Tree | LarkToken | None) -> Node:
        """``\\mathbb{1}[...]``, ``\\mathbb{I}\\{...\\}``, ``\\mathbf{1}_{...}``; ``\\mathbf{1}`` alone
        is the vector of ones, which a number stands for in ``1 - h``."""
        inside = bracket.children[1] if isinstance(bracket, Tree) else None
        if isinstance(inside, Tree) and inside.data == "condition":
            return self.condition(inside)
        if _payload(symbol) != "1":
            raise ReadError(f"it uses {_text(symbol)} without a condition in brackets after it")
        return Number(1.0) if bracket is None else Product(Number(1.0), self.primary(bracket), "product")

    def condition(self, tree: Tree) -> Node:
        left, right = tree.children[0], tree.children[2]
        operator = _token(tree.children[1])
        if operator.type in ("EQUALS", "NEQ"):
            indices = self.index_of(left), self.index_of(right)
            if indices[0] is not None and indices[1] is not None:
                return SameIndex(indices[0], indices[1], operator.type == "NEQ")
        text = operator.value.text
        if operator.type == "NEQ":
            raise ReadError(f"the indicator's condition uses '{text}'; write it with > or \\geq")
        sides = self.build(left), self.build(right)
        if operator.type == "EQUALS":
            return Indicator(*sides, "=")
        if text in COMPARE:
            return Indicator(*sides, COMPARE[text])
        return Indicator(sides[1], sides[0], ">" if text in ("<", "\\lt") else "≥")

    def index_of(self, tree: Tree | LarkToken) -> IndexExpression | None:
        """The index a side of ``w = o`` or ``w_k \\neq w`` names, None when it is a value; read as a
        sum's range reads one (:meth:`Lexer.index_expression`)."""
        if not isinstance(tree, Tree) or tree.data not in ("name", "number"):
            return None
        if tree.data == "number":
            written: tuple[Token, ...] = (Token("number", _text(tree.children[0]), 0, 0),)
        else:
            atom = _payload(tree.children[0])
            if atom.superscript or atom.transposed or len(atom.base) != 1 or not atom.base.isalpha():
                return None
            below = (Token("symbol", "_", 0, 0), *atom.subscript) if atom.subscript else ()
            written = (Token("letter", atom.base, 0, 0), *below)
        try:
            return self.names.index_expression(written)
        except ReadError:
            return None  # values compared: y_i = 1


def _superscript(node: Node, group: tuple[Token, ...]) -> Node:
    text = "".join(token.text for token in group)
    if transposes(group):
        return Transpose(node)
    if text == "-T":
        raise ReadError("it uses an inverse (^{-T}), which this reader does not compute")
    try:
        exponent = float(text)
    except ValueError:
        raise ReadError(f"it raises to the power '{text}'; only numbers and transposes are read") from None
    if abs(exponent) > MAX_POWER:
        raise ReadError(f"it raises to a power above {MAX_POWER}")
    return Power(node, exponent)


def _maximum(first: Node, second: Node) -> Node:
    if first == Number(0.0):
        return Call("relu", second)
    if second == Number(0.0):
        return Call("relu", first)
    raise ReadError("only max(0, z), the ReLU, is read")
