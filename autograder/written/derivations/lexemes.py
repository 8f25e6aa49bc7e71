"""The lexemes of a formula: what the grammar (``formula.lark``) is written over.

A formula's LaTeX (after :mod:`.spellings`) is cut into tokens, and the tokens into lexemes: a name
(a letter with its accent, font, subscript and a superscript that is part of it, ``\\hat{y}_w``,
``W^{(2)}``; a name of the notation written together, ``vc``; a name of several letters the answer
defined), a function (``\\sigma``, ``sigmoid``, ``\\mathrm{softmax}``, one the answer defined, with
its primes and its power), a number, a script, a sum with its range (``\\sum_{k: w_k = w}``), a
count, an operator or a bracket. Which letters make one name depends on the question's notation (a
:class:`Vocabulary`). Where the formula ends and commentary starts (``\\in``, ``\\quad``, a word that
names nothing) is decided here too, outside every bracket.

The :class:`Vocabulary` is what names may mean: the notation's, and the names the answer defined
(one vocabulary per answer, copied when a definition is added). :meth:`Lexer.resolve` says what a
name means: the answer's own definitions first, then the notation's symbols, parts of families,
entries. The two depend on each other (a symbol's spellings are read as names), so they share this
module.
"""

from __future__ import annotations

import copy
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import takewhile

from lark import Token as LarkToken

from autograder.written.derivations.notation import Notation
from autograder.written.derivations.sides import Side
from autograder.written.derivations.spellings import GREEK, as_latex
from autograder.written.derivations.tree import (
    Entry,
    IndexExpression,
    IndexName,
    IndexOf,
    Let,
    Name,
    Node,
    Number,
    Part,
    Relation,
    SameIndex,
    Summation,
    Tabulate,
)

MAX_LENGTH = 1000  # characters of one formula
MAX_DEPTH = 60  # nested brackets, products and sums
MAX_POWER = 8  # the largest exponent read (a larger one is no formula of these assignments)

_TOKEN = re.compile(
    r"(?P<skip>\s+|\\[,;:! ]|~|&|\\\\)|(?P<number>\d+(?:\.\d+)?)|(?P<command>\\[A-Za-z]+|\\[{}|#])"
    r"|(?P<letter>[A-Za-z])|(?P<symbol>[-+*/^_'()\[\]{}|,=<>.:!;@])"
)

_DROPPED = {
    "\\" + name
    for name in "left right big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr Biggl Biggr middle "
    "displaystyle textstyle limits nolimits nonumber notag".split()
}

_SAME = {"\\Sigma": "\\sum", "\\cdotp": "\\cdot", "\\div": "/"}  # commands read as others

ACCENTS = {
    "\\hat": "hat",
    "\\widehat": "hat",
    "\\tilde": "tilde",
    "\\widetilde": "tilde",
    "\\bar": "bar",
    "\\overline": "bar",
}

FONTS = {"\\mathbf", "\\boldsymbol", "\\bm", "\\vec", "\\mathit", "\\mathbfit", "\\pmb", "\\mathnormal"}

_WORDS = {"\\mathrm", "\\operatorname", "\\text", "\\textrm", "\\textit", "\\mathsf", "\\rm", "\\mbox"}

FUNCTION_WORDS = {
    "sigma": "sigma",
    "sigmoid": "sigma",
    "relu": "relu",
    "exp": "exp",
    "log": "log",
    "ln": "log",
    "tanh": "tanh",
    "sech": "sech",  # \mathrm{sech}^2(z), the derivative of tanh
    "softmax": "softmax",
    "diag": "diag",
    "sig": "sigma",
    "sum": "sum",  # sum(exp(l)): of the entries ("sum_w" is a sum over w, read before)
    "max": "max",
}

_INDICATORS = {"\\mathbb", "\\mathbf", "\\mathds", "\\mathbbm", "\\boldsymbol"}

OPEN = {"(": ")", "[": "]", "{": "}", "\\{": "\\}"}

_TRANSPOSE = {"\\top", "T", "\\intercal", "t", "\\prime", "'"}  # as _flat writes them: \\mathsf{T} is T

COMPARE: dict[str, Relation] = {">": ">", "\\gt": ">", "\\geq": "≥", "\\ge": "≥", ">=": "≥"}

# After a formula, these start commentary: "\in R^{d}", ", \quad (w \neq o)", "\text{for } w = o".
_STOPS = {"\\in", "\\quad", "\\qquad", ",", ".", ";", ":", "\\forall", "\\text", "\\mbox", "\\textrm", "\\textit"}
_STOPS |= {"\\iff", "\\implies", "\\Rightarrow", "\\to", "\\approx", "\\mid", "|"}


class ReadError(ValueError):
    """The formula cannot be read; the message says what stopped the reader."""


class UnknownName(ReadError):
    """A name that is no symbol of the notation and that the answer did not define."""


class UnreadName(ReadError):
    """A name the answer defined in a way that cannot be read, which then means nothing else; the
    reader says what its definition misses."""

    def __init__(self, atom: Atom) -> None:
        super().__init__(f"{shown_atom(atom)} is defined in a way that cannot be read")
        self.atom = atom


@dataclass(frozen=True)
class Token:
    kind: str  # number, letter, command, symbol
    text: str
    start: int
    end: int


def tokens(latex: str) -> list[Token]:
    """The tokens of ``latex`` once :mod:`.spellings` made it LaTeX, sizing commands dropped."""
    if len(latex) > MAX_LENGTH:
        raise ReadError(f"the formula is longer than {MAX_LENGTH} characters")
    return tokenised(as_latex(latex))


def tokenised(text: str) -> list[Token]:
    """The tokens of LaTeX ``text``, as it is written."""
    found: list[Token] = []
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None and unicodedata.category(text[position]) == "So":  # a tick, a star: it ends a formula
            found.append(Token("other", text[position], position, position + 1))
            position += 1
            continue
        if match is None:
            raise ReadError(f"it contains {text[position]!r}, which is no part of a formula")
        kind = match.lastgroup or ""
        position = match.end()
        if kind == "skip" or match[0] in _DROPPED:
            if match[0] in ("\\left", "\\right") and text[position : position + 1] == ".":
                position += 1  # \left. : no bracket at all
            continue
        found.append(Token(kind, _SAME.get(match[0], match[0]), match.start(), match.end()))
    return found


@dataclass(frozen=True)
class Atom:
    """A letter with what is attached to it: ``\\hat{y}_w`` is base "hat y", subscript "w"."""

    base: str
    subscript: tuple[Token, ...] = ()
    superscript: str = ""  # a part of the name: W^{(2)}
    transposed: bool = False  # W^{(2)\\top}

    @property
    def key(self) -> str:
        return self.base + (f"_{_flat(self.subscript)}" if self.subscript else "") + self.superscript

    @property
    def stem(self) -> str:
        return self.base + self.superscript

    def named_entry(self) -> tuple[Atom, tuple[Token, ...]] | None:
        """``v_{c,i}`` as the name ``v_c`` and the entry ``i``: the subscript split at its last comma."""
        cut = max((n for n, token in enumerate(self.subscript) if token.text == ","), default=-1)
        if cut < 0:
            return None
        return Atom(self.base, self.subscript[:cut], self.superscript), self.subscript[cut + 1 :]


def _flat(group: tuple[Token, ...]) -> str:
    """A subscript as one key: ``{drop}``, ``\\text{drop}`` and ``{\\rm drop}`` are all ``drop``."""
    return "".join(token.text for token in group if token.text not in "{}" and token.text not in _WORDS)


class Vocabulary:
    """What names may mean: the notation's, and the answer's own (``\\delta_2 = \\hat y - y``)."""

    def __init__(self, notation: Notation) -> None:
        self.symbols = {key_of(spelling): s.latex for s in notation.symbols for spelling in (s.latex, *s.spellings)}
        self.families = {key_of(spelling): f.base for f in notation.families for spelling in (f.base, *f.spellings)}
        self.entries_of = {f.base: key_of(f.of) for f in notation.families if f.part == "entry"}
        self.entry_symbol = {f.base: f.of for f in notation.families if f.part == "entry"}
        self.rows_of = {f.of: f.base for f in notation.families if f.part == "row"}  # U: u (u_w is its row w)
        self.given = {f.given: f.base for f in notation.families if f.given}  # P(w | c): entry w
        self.index_lists = {index.name for index in notation.indices if index.length}
        self.named_indices = {index.name for index in notation.indices if not index.length}
        self.sizes = set(notation.dims) - set(self.symbols)
        self.counts = {s.latex: s.at for s in notation.symbols if s.kind == "counts"}  # n: w (n_w counts w)
        self.onehots = {s.latex for s in notation.symbols if s.kind == "onehot"}
        self.vectors = {s.latex for s in notation.symbols if s.kind in ("vector", "onehot")}
        self.said = {s.latex: s.said for s in notation.symbols if s.said}
        self.defined_as = {s.latex: s.define for s in notation.symbols if s.define}  # h: \sigma(z_1)
        self.definitions: dict[str, Node] = {}
        self.entry_definitions: dict[str, tuple[str, Node]] = {}  # symbol -> (letter, its entry)
        self.unread_definitions: dict[str, Side] = {}  # the answer's own names it defined unreadably
        self.functions: dict[str, tuple[str, Node | None]] = {}  # sigma' -> (parameter, body; None: unread)

    def defines(self, key: str) -> bool:
        """Whether an answer may define ``key``: any name but a part of a family (``u_w``), which
        stands for a row or entry of a symbol it may define instead; under a number (``a_2``,
        ``h_3``) it is a name of the answer's own. A definition of a handout's name
        (``a = x W_1 + b_1`` where ``a`` also spells ``h``) is the answer's meaning of it."""
        stem, _, index = key.partition("_")
        return not (index and stem in self.families) or index.isdigit()

    def _with(self, **changes: object) -> Vocabulary:
        """A copy with ``changes``: the notation's names shared, the answer's own replaced."""
        changed = copy.copy(self)
        changed.__dict__.update(changes)
        return changed

    def with_definition(self, key: str, node: Node) -> Vocabulary:
        return self._with(definitions={**self.definitions, key: node})

    def with_function(self, function: str, parameter: str, body: Node | None) -> Vocabulary:
        """``function`` (``sigma'``) defined by the answer as ``body`` of ``parameter`` (a symbol),
        or, with ``body`` None, defined in a way that cannot be read: then it means nothing else."""
        return self._with(functions={**self.functions, function: (parameter, body)})

    def with_parameter(self, letter: str) -> tuple[Vocabulary, str]:
        """The vocabulary in which ``letter`` is a function's parameter, and the symbol it reads as:
        the notation's own (``x``, ``z`` for ``z_1``) or, for another letter, itself."""
        key = key_of(letter)
        if key in self.symbols:
            return self, self.symbols[key]
        return self._with(symbols={**self.symbols, key: letter}), letter

    def own_name(self, key: str) -> bool:
        """Whether ``key`` is a name only the answer gives a meaning: no symbol of the notation, no
        part of a family under a letter (``u_w``); ``a_2`` is one, though ``a`` spells ``h``."""
        stem, _, index = key.partition("_")
        kronecker = stem == "delta" and len(index) == 2 and index.isalpha()  # \delta_{wo}
        entry = index.isalpha() and self.symbols.get(stem) in self.vectors  # p_k, an entry of p
        return key not in self.symbols and key not in self.sizes and not kronecker and not entry and self.defines(key)

    def meaning_given(self, key: str) -> bool:
        r"""Whether the notation gives ``key`` a meaning of its own (``u_w``, ``\delta_{wo}``), which
        it keeps when the answer's definition of it cannot be read; a symbol's is not one."""
        return not self.own_name(key) and key not in self.symbols

    def with_unread_definitions(self, definitions: dict[str, Side]) -> Vocabulary:
        """The answer's own names defined as ``definitions`` (LaTeX) that are not read yet: until
        they are, or when they cannot be, they mean nothing else (``a_2`` is no entry of ``a``)."""
        return self._with(unread_definitions={**self.unread_definitions, **definitions})

    def listed(self, key: str) -> str:
        """``key`` with a family's index written ``wk`` for ``w_k`` (``u_wk``, typed ``duwk``) spelled out."""
        stem, _, index = key.partition("_")
        if stem in self.families and len(index) == 2 and index[0] in self.index_lists and index[1].isalpha():
            return f"{stem}_{index[0]}_{index[1]}"
        return key

    def symbol_named(self, key: str) -> str:
        """The symbol ``key`` names, or of which it names a part (``c_w``: ``n``); "" for none."""
        if key in self.symbols:
            return self.symbols[key]
        stem, _, index = key.partition("_")
        return self.entry_symbol.get(self.families.get(stem, ""), "") if index else ""

    def restated(self, key: str) -> Vocabulary:
        """``key`` keeps the notation's meaning: the answer's definition of it says the same."""
        return self._with(unread_definitions={k: v for k, v in self.unread_definitions.items() if k != key})

    def entry_defined(self, key: str) -> tuple[str, str] | None:
        """(the symbol, the letter) when ``key`` is an entry under a letter of the answer's own
        (``\\hat y_w``, not ``\\hat y_o``), which defines every entry of the symbol; else None."""
        stem, _, letter = key.partition("_")
        if len(letter) != 1 or not letter.isalpha() or letter in self.named_indices:
            return None
        family = self.families.get(stem, "")
        if family in self.entry_symbol:
            return self.entry_symbol[family], letter
        symbol = self.symbols.get(stem, "")  # a vector with no family of entries: p_k for \hat y
        return (symbol, letter) if symbol in self.vectors else None

    def with_entry_definition(self, symbol: str, letter: str, node: Node) -> Vocabulary:
        return self._with(entry_definitions={**self.entry_definitions, symbol: (letter, node)})


NO_NOTATION = Vocabulary(Notation({}, ()))  # a formula read alone, as a symbol's spelling is


def key_of(latex: str) -> str:
    """The key of the atom ``latex`` (a symbol's spelling), as :meth:`Atom.key` of a formula."""
    reader = Lexer(tokens(latex))
    atom = reader.atom()
    if atom is None or not reader.at_end():
        raise ReadError(f"{latex!r} is not one symbol")
    return atom.key


def atom_at(found: list[Token], index: int, *, subscript: bool = False, plain: bool = False) -> Atom | None:
    """The atom at ``found[index]`` (in the group there, with ``subscript``), None when none is.
    ``plain``: letters and digits run together after a letter are its subscript (``dvc`` of
    ``dJ/dvc``, as typed without LaTeX)."""
    reader = Lexer(found[index:])
    try:
        if subscript:
            reader = Lexer(list(reader.group()))
        atom = reader.atom()
    except ReadError:
        return None
    if plain and atom is not None and not atom.subscript and len(atom.base) == 1:
        run = reader.together(found[index], ("letter", "number"))
        if 0 < len(run) <= 2:
            return Atom(atom.base, run, atom.superscript, atom.transposed)
    if plain and atom is not None and atom.base.islower() and len(atom.subscript) == 1:
        run = reader.together(atom.subscript[0], ("letter", "number"))
        if len(run) == 1:  # du_wk typed for du_{w_k}: the k-th of the list w, as the reader takes u_wk
            return Atom(atom.base, (atom.subscript[0], Token("symbol", "_", run[0].start, run[0].start), *run))
    if atom is not None and atom.base.islower() and len(atom.subscript) == 1 and reader.peek().text == "_":
        if atom.subscript[0].kind == "letter":  # du_w_k, du_wₖ: u_{w_k}, as the reader takes it
            try:
                return Atom(atom.base, (*atom.subscript, reader.take(), *reader.group()), atom.superscript)
            except ReadError:  # du_w_ or du_w_{ at the end: the atom without it
                return atom
    return atom


def transposes(group: tuple[Token, ...]) -> bool:
    """Whether a superscript (``\\top``, ``T``, ``\\mathsf{T}``, ``{\\mathsf T}``, ``'``) is a transpose."""
    return _flat(group) in _TRANSPOSE


def superscript_transposes(found: list[Token]) -> bool:
    """Whether ``found`` is one superscript that transposes, and nothing after it (``^{\\top}``)."""
    if not found or found[0].text != "^":
        return False
    reader = Lexer(found[1:])
    try:
        group = reader.group()
    except ReadError:
        return False
    return reader.at_end() and transposes(group)


def defined_name(left: str, vocabulary: Vocabulary = NO_NOTATION) -> str | None:
    """The key of the one name a left side defines (``\\delta_2``, ``s_o :``; with a
    ``vocabulary``, ``P(x | c)`` as the entry ``\\hat y_x``), None if it is more."""
    try:
        found = [t for t in tokens(left) if t.text != ":"]
        reader = Lexer(found, vocabulary)
        if (part := reader.probability()) is not None:
            if isinstance(part, Part) and isinstance(part.index, IndexName) and reader.at_end():
                return f"{key_of(part.family)}_{part.index.name}"
            return None
        atom = reader.atom()
    except ReadError:
        return None
    if atom is not None and reader.at_end():
        return atom.key
    return _word(found)


def _word(found: list[Token]) -> str | None:
    """A name of several letters written together (``probs``), as plain text defines one; None when
    ``found`` is something else or a function's name."""
    found = [token for token in found if token.text not in _WORDS and token.text not in "{}"]  # \mathrm{err}
    word = "".join(letter.text for letter in Lexer(found).together(None))
    return word if len(word) == len(found) >= 2 and word.lower() not in FUNCTION_WORDS else None


def defined_function(left: str, vocabulary: Vocabulary) -> tuple[str, str] | None:
    """(the function, its parameter's letter) when a left side defines a function of one letter:
    one of ours (``\\sigma'(x)``, ``\\mathrm{ReLU}'(z)``) or one named by a letter that is no symbol
    of the notation (``g(z)``, ``f'(t)``); else None."""
    try:
        reader = Lexer(tokens(left))
        function = reader.function_name()
        if not function and reader.peek().kind == "letter" and reader.peek().text not in vocabulary.symbols:
            function = reader.take().text
        function += "'" if function and reader.primes() else ""
        opening, parameter, closing = reader.take(), reader.take(), reader.take()
        if not function or OPEN.get(opening.text) != closing.text or parameter.kind != "letter" or not reader.at_end():
            return None
    except ReadError:
        return None
    return function, parameter.text


class Lexer:
    """Cuts a formula's tokens into the lexemes of formula.lark, and resolves names in its vocabulary."""

    def __init__(self, found: list[Token], vocabulary: Vocabulary = NO_NOTATION) -> None:
        self.found, self.position, self.vocabulary = found, 0, vocabulary

    # ------------------------------------------------------------------ tokens

    def at_end(self) -> bool:
        return self.position >= len(self.found)

    def peek(self, ahead: int = 0) -> Token:
        index = self.position + ahead
        return self.found[index] if index < len(self.found) else Token("end", "", 0, 0)

    def take(self) -> Token:
        token = self.peek()
        if token.kind == "end":
            raise ReadError(not_read(token))
        self.position += 1
        return token

    def group(self) -> tuple[Token, ...]:
        """A LaTeX argument: ``{...}`` (without its braces) or one token; a word's or a font's
        command with its own argument is one (``p_\\text{drop}``)."""
        if self.peek().text in (_WORDS | FONTS) and self.peek(1).text == "{":
            command = self.take()
            return (command, *self.group())
        if self.peek().text != "{":
            return (self.take(),)
        self.take()
        start, depth = self.position, 1
        while depth:
            token = self.take()
            depth += {"{": 1, "}": -1}.get(token.text, 0)
        return tuple(self.found[start : self.position - 1])

    def argument(self) -> tuple[Token, ...]:
        """The group after the command or script mark here, both taken."""
        self.take()
        return self.group()

    def sub_reader(self, group: tuple[Token, ...]) -> Lexer:
        return Lexer(list(group), self.vocabulary)

    def word_ahead(self) -> str:
        """The word of ``\\mathrm{word}`` at the current position."""
        if self.peek(1).text != "{":
            return self.peek(1).text
        return "".join(takewhile(lambda text: text not in ("}", ""), (self.peek(n).text for n in range(2, 40))))

    # ------------------------------------------------------------------ functions

    def function_name(self) -> str:
        """The function starting here (taken), or "" when none does."""
        token, name, width = self.peek(), "", 1
        if token.kind == "command" and token.text[1:].lower() in FUNCTION_WORDS:
            name = FUNCTION_WORDS[token.text[1:].lower()]
        elif token.text in _WORDS and (word := self.word_ahead().lower()) in FUNCTION_WORDS:
            self.argument()
            return FUNCTION_WORDS[word]
        elif token.kind == "letter" and self.own_function(token.text):
            name = token.text
        elif token.kind == "letter":  # the longest run of letters written together that is a function's name
            run = "".join(letter.text for letter in self.together(None))
            width = max((n for n in range(2, len(run) + 1) if run[:n].lower() in FUNCTION_WORDS), default=0)
            name = FUNCTION_WORDS[run[:width].lower()] if width and run[:width] not in self.vocabulary.symbols else ""
        self.position += width if name else 0
        return name

    def own_function(self, letter: str) -> bool:
        """Whether ``letter`` is a function the answer defined (``g(z) = ...``), applied here."""
        applied = self.peek(1).text in OPEN or self.peek(1).text in ("'", "^")
        return applied and (letter in self.vocabulary.functions or f"{letter}'" in self.vocabulary.functions)

    def together(self, after: Token | None, kinds: tuple[str, ...] = ("letter",)) -> tuple[Token, ...]:
        """The tokens of ``kinds`` from here written together (right after ``after``, when given)."""
        run: list[Token] = []
        while self.peek(len(run)).kind in kinds and (after is None or self.peek(len(run)).start == after.end):
            after = self.peek(len(run))
            run.append(after)
        return tuple(run)

    def primes(self) -> bool:
        """Whether a derivative's mark follows (``'``, ``^\\prime``, several), consumed."""
        start = self.position
        while self.peek().text == "'" or (self.peek().text == "^" and self.peek(1).text in ("'", "\\prime")):
            self.position += 1 if self.peek().text == "'" else 2
        return self.position > start

    def function_power(self) -> float:
        """The power on a function's name (``\\tanh^2(z)`` is ``(\\tanh z)^2``), taken; else 0."""
        start = self.position
        if self.peek().text == "^":  # ^' and ^\prime are the primes, taken before
            group = self.argument()
            if len(group) == 1 and group[0].kind == "number" and self.peek().text in OPEN:
                if float(group[0].text) > MAX_POWER:
                    raise ReadError(f"it raises to a power above {MAX_POWER}")
                return float(group[0].text)
        self.position = start
        return 0

    def same_index(self) -> SameIndex | None:
        """``w = o``, ``w_k \\neq w``, ``w_{k} = w``, all that is left: indices compared, else None
        (``y_i = 1`` compares values)."""
        rest = self.found[self.position :]
        at = next((n for n in range(1, 6) if self.peek(n).text in ("=", "\\neq", "\\ne")), 0)
        try:  # with no comparison, the left side is empty: no index
            left, right = self.index_expression(tuple(rest[:at])), self.index_expression(tuple(rest[at + 1 :]))
        except ReadError:
            return None
        self.position = len(self.found)
        return SameIndex(left, right, rest[at].text != "=")

    # ------------------------------------------------------------------ sums

    def probability(self) -> Node | None:
        """``P(w | c)``, ``p(w \\mid c)``, ``P(O = w | C = c)``: the entry ``w`` of the family the
        notation gives as probabilities given ``c``; None (nothing taken) when it is no such thing."""
        if self.peek().text not in ("P", "p") or self.peek(1).text != "(":
            return None
        end = next((n for n in range(2, 16) if self.peek(n).text in (")", "") or self.peek(n).kind == "end"), 0)
        inside = [t for t in self.found[self.position + 2 : self.position + end] if t.text not in "{}"]
        texts = [t.text for t in inside]
        bar = next((n for n, text in enumerate(texts) if text in ("|", "\\mid")), -1)
        if self.peek(end).text != ")" or bar == -1:
            return None
        event, given = inside[:bar], texts[bar + 1 :]
        event = event[2:] if [t.text for t in event[:2]] == ["O", "="] else event
        given = given[2:] if given[:2] == ["C", "="] else given
        if len(given) != 1 or given[0] not in self.vocabulary.given or not event:
            return None
        try:
            index = self.index_expression(tuple(event))
        except ReadError:
            return None
        self.position += end + 1
        return self.part(self.vocabulary.given[given[0]], index)

    def counts_here(self) -> bool:
        """Whether a count starts here: ``\\#\\{...\\}``, ``|\\{...\\}|``, or as typed without LaTeX
        ``#{k : w_k = w}``, ``|{k : w_k = w}|`` (a brace after a bar only with a set's condition)."""
        token, opening = self.peek().text, self.peek(1).text
        if token not in ("\\#", *_BARS) or opening not in ("{", "\\{"):
            return False
        return opening == "\\{" or token == "\\#" or self.peek(3).text in _CONDITION_MARKS

    def count(self) -> Node:
        """``\\#\\{k : w_k = w\\}``, ``|\\{k : w_k = w\\}|``: a sum of ones over the set's range."""
        bar = self.take().text != "\\#"
        opening = self.take().text  # \{, or { as typed without LaTeX: #{k : w_k = w}
        closing = OPEN[opening]
        start, depth = self.position, 1
        while depth:
            if self.at_end():
                raise ReadError(f"the set of a count is not closed with {closing}")
            depth += {opening: 1, closing: -1}.get(self.take().text, 0)
        written = self.sub_reader(tuple(self.found[start : self.position - 1])).sum_range()
        if bar and self.take().text not in _BARS:
            raise ReadError("the count |\\{...\\}| is not closed with |")
        return Summation(written.index, Number(1.0), written.skip, "", written.condition, written.lower)

    def sum_range(self) -> _Range:
        """What is written below a sum: ``w``, ``w=1``, ``k=1..K``, ``w \\in V``, ``k \\in \\{1, \\dots, K\\}``,
        ``w \\neq o``, ``k: w_k = w``."""
        token = self.take()
        if token.kind != "letter":
            raise ReadError(f"a sum's index must be a letter, not '{token.text}'")
        if self.peek().text in ("\\neq", "\\ne"):
            self.take()
            return _Range(token.text, skip=self.index_expression(tuple(self.found[self.position :])))
        lower, upper = 1, tuple[Token, ...]()
        first = 2 if [self.peek().text, self.peek(1).text] == ["\\in", "\\{"] else int(self.peek().text == "=")
        if first and self.peek(first).kind == "number":  # k=1..K, k \in \{1, \dots, K\}
            closing = "\\}" if first == 2 else ""
            self.position += first
            lower, marks = int(float(self.take().text)), self.position
            while self.peek().text in _RANGE_MARKS:
                self.take()
            start = self.position  # the upper limit, when marks (.., \dots, :) say one follows
            while start > marks and not self.at_end() and self.peek().text not in (closing, *_CONDITION_MARKS):
                self.take()
            upper = tuple(self.found[start : self.position])
            if closing and (found := self.take()).text != closing:
                raise ReadError(f"expected '{closing}' but found '{found.text}' (are the brackets balanced?)")
        elif self.peek().text == "\\in":  # a set by name (V): the range is that of what the index picks out
            while not self.at_end() and self.peek().text not in _CONDITION_MARKS:
                self.take()
        if self.at_end():
            return _Range(token.text, lower=lower, upper=upper)
        if self.take().text in _CONDITION_MARKS and (condition := self.same_index()) is not None:
            return _Range(token.text, condition=condition, lower=lower, upper=upper)
        raise ReadError(
            f"the sum's range '{_flat(tuple(self.found))}' is not read; write \\sum_{{w}} or \\sum_{{k=1}}^{{K}}"
        )

    # ------------------------------------------------------------------ names

    def atom(self) -> Atom | None:
        """A letter with its accent, font and subscript, or None when none starts here."""
        token = self.peek()
        if token.text in ACCENTS:
            inner = self.sub_reader(self.argument()).atom()
            if inner is None:
                raise ReadError(f"{token.text} must be put on a letter")
            base = f"{ACCENTS[token.text]} {inner.base}"
            return self.attached(Atom(base, inner.subscript, inner.superscript))
        if token.text in FONTS or (token.text in _WORDS and self.peek(1).text == "{"):
            group = self.argument()
            reader = self.sub_reader(group)
            inner = reader.atom()
            if inner is None or not reader.at_end():  # \mathrm{err}: a name of several letters, if defined
                word = _word(list(group)) or ""
                return self.attached(Atom(word)) if word and self.is_defined(word) else None
            return self.attached(inner)
        word = "".join(letter.text for letter in self.together(None))  # probs: a name the answer defined
        after = len(word)
        applied = f"{word}({self.peek(after + 1).text})"  # count(w), defined with its argument
        if self.peek(after).text == "(" and self.peek(after + 2).text == ")" and applied in self.vocabulary.definitions:
            self.position += after + 3
            return Atom(applied)
        if len(word) >= 2 and self.is_defined(word):
            self.position += len(word)
            return self.attached(Atom(word))
        if token.kind == "letter" or token.text == "\\ell" or token.text[1:].lower() in GREEK:  # \Theta too
            self.take()
            name = token.text.lstrip("\\")
            if token.kind == "letter" and (joined := self.run_together(token)):
                return self.attached(Atom(name, joined))
            return self.attached(Atom("l" if name == "ell" else name))
        return None

    def is_defined(self, name: str) -> bool:  # read or not
        return name in self.vocabulary.definitions or name in self.vocabulary.unread_definitions

    def run_together(self, letter: Token) -> tuple[Token, ...]:
        """The letters and digits written right after ``letter`` (consumed) when with them it is a
        name of the notation written without its underscore, as in plain text: ``vc`` for
        ``v_c``, ``W1`` for ``W_1``, ``uo`` for ``u_o`` (``u`` alone being no symbol), ``yhat``
        for a spelling ``y_{hat}``; else nothing. All of the run or none: ``vcx`` is no name."""
        vocabulary = self.vocabulary
        if self.peek().text == "_":
            return ()
        run = self.together(letter, ("letter", "number"))
        if not run or len(run) > 4:
            return ()
        key = f"{letter.text}_{''.join(t.text for t in run)}"
        alone = letter.text in vocabulary.symbols
        if (
            key in vocabulary.symbols
            and (not alone or len(run) >= 3)
            or (not alone and letter.text in vocabulary.families and len(run) <= 2)
        ):
            self.position += len(run)
            return tuple(run)
        return ()

    def attached(self, atom: Atom) -> Atom:
        """``atom`` with the subscript and the name's superscript (``W^{(2)}``) that follow it."""
        subscript, superscript = atom.subscript, atom.superscript
        for _ in range(2):
            if self.peek().text == "_" and not subscript:
                subscript = self.argument()
                subscript += self.word_of(atom.base, subscript)
                if self.peek().text == "_" and self.lists(atom.base, subscript):  # u_w_k typed for u_{w_k}
                    subscript += (self.take(), *self.group())
            elif self.peek().text == "^" and self.peek(1).text == "{" and self.peek(2).text == "(":
                group = self.argument()
                closing = next((i for i, t in enumerate(group) if t.text == ")"), len(group) - 1)
                superscript = "^(" + _flat(group[1:closing]) + ")"
                transposed = transposes(group[closing + 1 :])
                return Atom(atom.base, subscript, superscript, transposed or atom.transposed)
        return Atom(atom.base, subscript, superscript, atom.transposed)

    def lists(self, base: str, subscript: tuple[Token, ...]) -> bool:
        """Whether ``subscript`` of a family's part is a list of indices alone (``w`` of ``u_w``), so
        that a subscript on it picks one of the list (``u_w_k``)."""
        listed = len(subscript) == 1 and subscript[0].text in self.vocabulary.index_lists
        return listed and base in self.vocabulary.families

    def word_of(self, base: str, subscript: tuple[Token, ...]) -> tuple[Token, ...]:
        """The letters that follow a one-letter subscript without a space, when with them it is a
        declared spelling (``y_hat`` in plain text for ``y_{hat}``), or one letter after a list of
        indices (``u_wk`` for ``u_{w_k}``); consumed."""
        if len(subscript) != 1 or subscript[0].kind != "letter":
            return ()
        run = len(self.together(subscript[0]))
        following = self.peek().text
        if (
            run == 1
            and self.lists(base, subscript)
            and following not in self.vocabulary.families
            and not any(key.startswith(following) for key in self.vocabulary.symbols)
        ):
            letter = self.take()  # u_wk typed for u_{w_k}: the k-th of the list w
            return (Token("symbol", "_", letter.start, letter.start), letter)
        for length in range(run, 0, -1):
            word = subscript[0].text + "".join(self.peek(n).text for n in range(length))
            if f"{base}_{word}" in self.vocabulary.symbols:
                taken = tuple(self.found[self.position : self.position + length])
                self.position += length
                return taken
        return ()

    def resolve(self, atom: Atom) -> Node:
        vocabulary = self.vocabulary
        if atom.key in vocabulary.definitions:  # the answer's own meaning of a name comes first
            return vocabulary.definitions[atom.key]
        if atom.key in vocabulary.unread_definitions:  # a name of its own has no other meaning
            raise UnreadName(atom)
        if atom.key in vocabulary.symbols:
            symbol = vocabulary.symbols[atom.key]
            if symbol in vocabulary.entry_definitions:  # defined entry by entry: \hat y_w = ...
                return Tabulate(*vocabulary.entry_definitions[symbol], like=symbol)
            if symbol in vocabulary.counts:  # "n, the number of times w was drawn", said in words
                raise ReadError(f"{atom.key} counts every word; write {atom.key}_w for how often w was drawn")
            return Name(symbol)
        if atom.base == "delta" and (same := self.kronecker(atom.subscript)) is not None:
            return same
        if atom.subscript and atom.stem in vocabulary.definitions:  # an entry of a name of the answer's own
            return Entry(vocabulary.definitions[atom.stem], self.entry_indices(atom.subscript))
        if atom.subscript and atom.stem in vocabulary.families:  # u_{w,j}: entry j of u_w
            return self.entry_of_named(atom) or self.part(
                vocabulary.families[atom.stem], self.index_expression(atom.subscript)
            )
        if atom.subscript and atom.stem in vocabulary.symbols:
            symbol = vocabulary.symbols[atom.stem]
            entries = vocabulary.entry_definitions.get(symbol)  # y_i, where the answer defined y_k = ...
            whole = Name(symbol) if entries is None else Tabulate(*entries, like=symbol)
            indices = self.entry_indices(atom.subscript)
            if symbol in vocabulary.rows_of and entries is None and len(indices) == 1:  # U_w, numpy's U[w]: u_w
                return self.part(vocabulary.rows_of[symbol], indices[0])
            return Entry(whole, indices)
        if (head := self.entry_of_named(atom)) is not None:  # v_{c,i}: entry i of v_c
            return head
        if atom.key in vocabulary.sizes:  # K, N: how many, not a quantity
            raise ReadError(
                f"{atom.key} is a size of this question's notation, which a formula uses only as a sum's limit"
            )
        raise UnknownName(f"{shown_atom(atom)} is not a symbol of this question's notation")

    def entry_of_named(self, atom: Atom) -> Node | None:
        """``v_{c,i}``: the entries after the last comma of a symbol named by what comes before it."""
        split = atom.named_entry()
        if split is None:
            return None
        try:
            named = self.resolve(split[0])  # a symbol or a part of a family: v_c, u_w
        except ReadError:
            return None
        return Entry(named, self.entry_indices(split[1]))

    def kronecker(self, subscript: tuple[Token, ...]) -> SameIndex | None:
        """Kronecker's delta of two indices: ``\\delta_{wo}``, ``\\delta_{w,o}``, ``\\delta_{w, w_k}``."""
        inside = tuple(token for token in subscript if token.text not in "{}")
        commas = [n for n, token in enumerate(inside) if token.text == ","]
        if len(commas) == 1:
            left, right = inside[: commas[0]], inside[commas[0] + 1 :]
        elif len(inside) == 2 and all(token.kind == "letter" for token in inside):
            left, right = inside[:1], inside[1:]
        else:
            return None
        try:
            return SameIndex(self.index_expression(left), self.index_expression(right))
        except ReadError:
            return None

    def part(self, family: str, index: IndexExpression) -> Node:
        """A part of ``family``, or of what the answer defined in its place."""
        vocabulary = self.vocabulary
        whole = vocabulary.definitions.get(vocabulary.entries_of.get(family, ""))
        if whole is not None:  # an entry of what the answer defined (\hat y = \sigma(U v_c))
            return Entry(whole, (index,))
        if (entries := vocabulary.entry_definitions.get(vocabulary.entry_symbol.get(family, ""))) is not None:
            return Let(entries[0], index, entries[1])
        return Part(family, index)

    def entry_indices(self, group: tuple[Token, ...]) -> tuple[IndexExpression, ...]:
        """``j`` (an entry of a vector), ``ji`` or ``j,i`` (of a matrix), ``w_k``."""
        texts = [token for token in group if token.text not in "{},"]
        if len(texts) == 2 and all(token.kind == "letter" for token in texts):
            return (IndexName(texts[0].text), IndexName(texts[1].text))
        return (self.index_expression(group),)

    def index_expression(self, group: tuple[Token, ...]) -> IndexExpression:
        texts = [token.text for token in group if token.text not in "{}"]
        if len(texts) == 1 and (group[0].kind in ("letter", "number") or group[-1].kind in ("letter", "number")):
            return IndexName(texts[0])
        if len(texts) == 3 and texts[1] == "_" and texts[0] in self.vocabulary.index_lists:
            return IndexOf(texts[0], IndexName(texts[2]))
        if len(texts) == 2 and texts[0] in self.vocabulary.index_lists and texts[1].isalpha():  # uwk: u_{w_k}
            return IndexOf(texts[0], IndexName(texts[1]))
        lists = sorted(self.vocabulary.index_lists)
        listed = f" or an entry of the list {lists[0]} ({lists[0]}_k)" if lists else ""
        raise ReadError(f"the index '{''.join(texts)}' is not read; use a letter{listed}")

    # ------------------------------------------------------------------ lexemes

    def lexemes(self, inside: bool = False) -> tuple[list[LarkToken], int | None]:
        """The formula's lexemes, and the index of the token where its commentary starts (None for none).
        ``inside``: the tokens are a group's (``e^{...}``), where nothing is commentary."""
        made: list[LarkToken] = []
        depth = 1 if inside else 0
        while not self.at_end():
            if depth == 0 and self.commentary_starts(made):
                return made, self.position
            depth += self.lexeme(made)
            if depth > MAX_DEPTH:
                raise ReadError(f"it nests more than {MAX_DEPTH} levels deep")
        return made, None

    def commentary_starts(self, made: list[LarkToken]) -> bool:
        """Whether the formula ends here and what follows is commentary (``\\in \\mathbb{R}^d``,
        ``, where``, ``\\text{for } w = o``, ``3k steps``)."""
        token = self.peek()
        if token.text in _WORDS:
            named = self.word_ahead().lower() in FUNCTION_WORDS or self.is_defined(self.word_ahead())
            return token.text in _STOPS and _operand_ended(made) and not named
        if self.counts_here():
            return False  # a count: |\{k : w_k = w\}|
        if token.kind == "other" or (token.text == "\\#" and self.peek(1).text not in ("{", "\\{")):
            return True  # "ŷ - y ✔", a comment in code: "sigmoid(uo @ vc) # scalar"
        return token.text in _STOPS or (_operand_ended(made) and self.word_starts())

    def word_starts(self) -> bool:
        """Whether a word that names nothing starts here (``steps`` of ``3k steps``): it ends the formula."""
        glued = self.position > 0 and self.found[self.position - 1].end == self.peek().start
        bracket = self.peek().text == "(" and self.peek(1).kind == "letter"  # "(1 - h) (elementwise)"
        start = self.position
        self.position += bracket
        try:
            run = len(self.together(None))
            if self.peek().kind != "letter" or glued or run < 3 or (bracket and self.peek(run).text != ")"):
                return False
            made: list[LarkToken] = []  # the operand that starts here, a function's bracket included
            depth = self.lexeme(made)
            while made[-1].type in ("FUNCTION", "MAX") or depth > 0:
                depth += self.lexeme(made)
            for lexeme in made:
                if lexeme.type == "NAME":
                    self.resolve(lexeme.value.payload)
        except ReadError:
            return True
        finally:
            self.position = start
        return False

    def lexeme(self, made: list[LarkToken]) -> int:
        """The lexeme (or the few) that starts here, taken and added to ``made``; the brackets it opens."""
        token, start = self.peek(), len(made)

        def add(kind: str, payload: object = None, text: str = token.text) -> None:
            made.append(LarkToken(kind, _Lexeme(text, payload)))

        if token.text in ("\\frac", "\\dfrac", "\\tfrac", "\\cfrac"):
            self.take()
            add("FRAC")
            if self.peek().kind == "number" and len(self.peek().text) == 2:  # \frac12
                digits = self.take().text
                add("NUMBER", text=digits[0])
                add("NUMBER", text=digits[1])
        elif token.text == "\\sum":
            add("SUM", self.summed())
        elif self.counts_here():
            add("NODE", self.count())
        elif token.text == "\\boxed":
            self.take()  # what it boxes is a group, read as a bracket
        elif token.text in ("\\underbrace", "\\overbrace"):
            self.grouped(made, self.argument(), "LBRACE", "RBRACE")
            if self.peek().text in ("_", "^"):
                self.argument()  # the brace's label
        elif function := self.function_name():
            self.function(made, function, token.text)
        elif self.lexes_indicator(made):
            pass
        elif token.text == "e" and self.peek(1).text == "^" and "e" not in self.vocabulary.symbols:
            self.position += 2
            add("FUNCTION", ("exp", False, 0.0))
            self.grouped(made, self.group(), "LBRACE", "RBRACE")
        elif (probability := self.probability()) is not None:
            add("NODE", probability)
        elif token.text == "\\begin":
            raise ReadError("it writes out an array entry by entry (\\begin{...}), which is not read")
        else:
            self.single(made, add)
        return sum(_DEPTH.get(lexeme.type, 0) for lexeme in made[start:])

    def single(self, made: list[LarkToken], add: Callable[..., None]) -> None:
        token = self.peek()
        if token.kind == "number":
            add("NUMBER", self.take().text)
        elif token.text in ("^", "_"):
            group = self.argument()
            if token.text == "^" and group[0].text == "-" and self.peek().kind == "number":  # x^-1, as typed
                group += (self.take(),)
            add("SUPERSCRIPT" if token.text == "^" else "SUBSCRIPT", group)
        elif token.text == ">" and self.peek(1).text == "=":
            self.position += 2
            add("RELATION", text=">=")
        elif token.text in KINDS:
            add(KINDS[self.take().text])
        else:
            word = self.word_ahead() if token.text in _WORDS else ""  # \mathrm{foo}: "foo" is unknown
            atom = self.atom()
            if atom is None and word:
                raise ReadError(f"it uses '{word}', which is no symbol or function of this question")
            if atom is None:
                raise ReadError(not_read(token))
            add("NAME", atom)
            if self.indexed_in_brackets(atom):  # Matlab's and R's yhat(w): entry w
                add("SUBSCRIPT", (self.found[self.position + 1],))
                self.position += 3

    def indexed_in_brackets(self, atom: Atom) -> bool:
        """Whether ``(w)`` follows a vector of the notation, ``w`` a letter that names no quantity:
        an index, as Matlab and R write an entry (no product could take an index as a factor)."""
        vocabulary, letter = self.vocabulary, self.peek(1)
        vector = vocabulary.symbols.get(atom.key) in vocabulary.vectors and not atom.transposed
        index = (
            letter.kind == "letter" and letter.text not in vocabulary.symbols and letter.text not in vocabulary.sizes
        )
        return vector and index and self.peek().text == "(" and self.peek(2).text == ")"

    def grouped(self, made: list[LarkToken], group: tuple[Token, ...], opening: str, closing: str) -> None:
        inner, _ = self.sub_reader(group).lexemes(inside=True)
        made += [LarkToken(opening, _Lexeme("{")), *inner, LarkToken(closing, _Lexeme("}"))]

    def function(self, made: list[LarkToken], function: str, text: str) -> None:
        """A function with its primes and power: called on a bracket, or ``\\exp x``, ``\\log x``."""
        derivative = self.primes()
        power = self.function_power()
        opens = self.peek().text in OPEN
        if function == "max" and self.peek().text != "(":
            raise ReadError("max needs its arguments in brackets: \\max(0, z)")
        if not opens and function not in ("exp", "log"):
            raise ReadError(f"{function} needs its argument in brackets")
        kind = "MAX" if function == "max" else "FUNCTION" if opens else "PREFIX"
        made.append(LarkToken(kind, _Lexeme(text, (function, derivative, power))))

    def lexes_indicator(self, made: list[LarkToken]) -> bool:
        """``\\mathbb{1}``, ``\\mathbb{I}``, ``\\mathbf{1}`` (taken, with a condition written below
        it: ``\\mathbb{1}_{w = o}``), or False with nothing taken."""
        token = self.peek()
        ahead = [self.peek(n).text for n in (1, 2, 3)]
        if token.text not in _INDICATORS or not (ahead[0] in ("1", "I") or ahead in (["{", "1", "}"], ["{", "I", "}"])):
            return False
        inside = "".join(t.text for t in self.argument())
        made.append(LarkToken("INDICATOR", _Lexeme(f"{token.text}{{{inside}}}", inside)))
        if self.peek().text == "_" and self.compares():  # \mathbf{1}_n is the ones of size n
            self.grouped(made, self.argument(), "LSQB", "RSQB")
        return True

    def compares(self) -> bool:
        """Whether the group after the ``_`` here holds a comparison (``\\mathbb{1}_{w = o}``)."""
        for token in self.found[self.position + 2 :]:
            if token.text == "}" or KINDS.get(token.text) in ("RELATION", "EQUALS", "NEQ"):
                return token.text != "}"
        return False

    def summed(self) -> _Range:
        """``\\sum`` with what is written below and above it (taken)."""
        self.take()
        written, upper, shift = _Range(""), "", 0
        for _ in range(2):
            if self.peek().text == "_":
                written = self.sub_reader(self.argument()).sum_range()
                if written.upper:
                    upper, shift = _upper_limit(written.upper)
            elif self.peek().text == "^":
                upper, shift = _upper_limit(self.argument())
        if not written.index:
            raise ReadError("a sum needs its index below it: \\sum_{w}")
        return replace(written, limit=upper, shift=shift)


@dataclass(frozen=True)
class _Range:  # what is written below a sum (or in a count's set)
    index: str
    skip: IndexExpression | None = None
    condition: SameIndex | None = None
    lower: int = 1
    upper: tuple[Token, ...] = ()  # the upper limit, when written below the sum (k=1..K)
    limit: str = ""  # the upper limit read: a size (K, |V|) or a number
    shift: int = 0  # what the upper limit adds to the size: -1 for K-1


_RANGE_MARKS = {".", ",", "\\dots", "\\ldots", "\\cdots", ":"}  # k=1..K, \{1, \dots, K\}
_CONDITION_MARKS = (":", "\\colon", "|", "\\mid", ",")

_BARS = ("|", "\\lvert", "\\rvert", "\\vert")


def not_read(token: Token) -> str:
    if token.kind == "end":
        return "it ends too soon (an operator or a bracket without what follows it)"
    if token.kind == "command":
        return f"it uses '{token.text}', which this reader does not know"
    if token.kind == "other":
        return f"it contains {token.text!r}, which is no part of a formula"
    return f"it cannot be read from '{token.text}' on"


def _upper_limit(group: tuple[Token, ...]) -> tuple[str, int]:
    """The upper limit of a sum: a size (``K``, ``|V|``, ``D_y``) and what is added to it
    (``K-1``: ("K", -1)), or a number (("5", 0))."""
    texts = [token.text for token in group if token.text not in ("|", "{", "}", "\\lvert", "\\rvert", "\\vert", "\\|")]
    for cut in range(1, len(texts) + 1):  # the name, then "- 1" or "+ 1"
        name, rest = "".join(texts[:cut]), texts[cut:]
        if not rest:
            return name, 0
        if len(rest) == 2 and rest[0] in "+-" and rest[1].isdigit():
            return name, int(rest[1]) * (1 if rest[0] == "+" else -1)
    raise ReadError(f"the sum's upper limit '{''.join(texts)}' is not read; write a size such as K or |V|")


def shown_atom(atom: Atom) -> str:
    return atom.base.replace("hat ", "\\hat ") + (f"_{{{_flat(atom.subscript)}}}" if atom.subscript else "")


@dataclass(frozen=True)
class _Lexeme:
    """A lexeme's text as written (for messages) and what it carries (an Atom, a script, a node)."""

    text: str
    payload: object = None

    def __str__(self) -> str:
        return self.text


KINDS = {  # a token that is a lexeme by itself, and its terminal in formula.lark
    "+": "PLUS",
    "-": "MINUS",
    **dict.fromkeys(("\\odot", "\\circ"), "ODOT"),
    "\\otimes": "OTIMES",
    **dict.fromkeys(("\\times", "*", "\\ast", "\\bullet"), "TIMES"),
    "\\cdot": "CDOT",
    "@": "MATMUL",
    "/": "SLASH",
    "'": "PRIME",
    "(": "LPAR",
    ")": "RPAR",
    "[": "LSQB",
    "]": "RSQB",
    "{": "LBRACE",
    "}": "RBRACE",
    "\\{": "LSET",
    "\\}": "RSET",
    ",": "COMMA",
    ";": "SEPARATOR",
    "=": "EQUALS",
    **dict.fromkeys(("\\neq", "\\ne"), "NEQ"),
    **dict.fromkeys(("\\dots", "\\ldots", "\\cdots", "\\vdots"), "DOTS"),
    **dict.fromkeys((*COMPARE, "<", "\\lt", "\\leq", "\\le"), "RELATION"),
}

_DEPTH = {"LPAR": 1, "LSQB": 1, "LBRACE": 1, "LSET": 1, "RPAR": -1, "RSQB": -1, "RBRACE": -1, "RSET": -1}

CLOSING_TEXT = {"RPAR": ")", "RSQB": "]", "RBRACE": "}", "RSET": "\\}"}

_ENDS_OPERAND = {"NAME", "NUMBER", "NODE", "PRIME", "SUPERSCRIPT", "SUBSCRIPT", "INDICATOR", *CLOSING_TEXT}


def _operand_ended(made: list[LarkToken]) -> bool:
    return bool(made) and made[-1].type in _ENDS_OPERAND
