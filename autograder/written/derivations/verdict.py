"""Whether a student's final formulas equal the reference's: numeric identity testing.

Both formulas are computed on random values of the notation's shapes (:data:`TRIALS` draws, the
sizes all different so that a misplaced transpose cannot fit), under each convention the question
allows; the answer is *equal* when, under one convention, it matches at every draw. A formula
that cannot be read is *unreadable*, with what stopped the reader; else *not equal*, with one way
it differs (the opposite sign, a transpose, a factor, a shape). A wrong formula cannot be equal by
chance: it would have to agree at every entry of every draw.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Container
from dataclasses import dataclass, field, fields, is_dataclass, replace
from typing import Any, Literal

import numpy as np

from autograder.written.derivations.evaluate import EvaluationError, FreeIndex, OutOfRange, Scope, ShapeError, evaluate
from autograder.written.derivations.final import (
    AnswerMath,
    Equation,
    Found,
    Renamed,
    answer_math,
    case_of,
    final_formula,
)
from autograder.written.derivations.lexemes import ReadError, Vocabulary, defined_function, defined_name, key_of
from autograder.written.derivations.notation import Convention, Notation, Target
from autograder.written.derivations.reader import read, read_side
from autograder.written.derivations.sides import Side, Words
from autograder.written.derivations.tree import (
    Call,
    Entry,
    IndexName,
    Name,
    Node,
    Number,
    Part,
    Product,
    SameIndex,
    Stack,
    Sum,
    Transpose,
    has_dot,
    kinks,
    shown,
)
from autograder.written.derivations.values import Draw, case_values, draw, kink_draw, oriented, scope_of

TRIALS = 3
_RELATIVE = 1e-9  # float64 computations of one formula agree to about 1e-14
_SHAPES = "its shapes do not fit"
Status = Literal["equal", "not equal", "unreadable"]
# What a student's text may make the checker raise (a bug of ours): the verdict says so, grading goes on.
_CHECKER_FAILED = (ArithmeticError, IndexError, KeyError, ValueError, RecursionError)
_ORDER: dict[str, int] = {"not equal": 0, "unreadable": 1, "equal": 2}
_AT_KINK = (
    "it differs only where a quantity it compares with 0 is exactly 0 (> against \\geq, or the "
    "derivative of ReLU at 0): the handout says which it is there"
)


@dataclass(frozen=True)
class PartVerdict:
    """The verdict on one formula the question asks for (one case of it)."""

    target: str  # "d/dv_c", "d/du_w (w = o)"
    status: Status
    read: str = ""  # how the formula was read, in plain notation
    note: str = ""  # where it differs, or why it cannot be read
    where: str = ""  # where in the answer it was found


@dataclass(frozen=True)
class Verdict:
    status: Status
    parts: tuple[PartVerdict, ...] = field(default_factory=tuple)

    def summary(self) -> str:
        """One line per part: what was read and the verdict, for TAs and feedback."""
        lines = []
        for part in self.parts:
            read = f" read as {part.read}" if part.read else ""
            note = f": {part.note}" if part.note else ""
            lines.append(f"{part.target}{read}: {part.status}{note}")
        return "\n".join(lines)


# ------------------------------------------------------------------------- comparing


@dataclass(frozen=True)
class Reading:
    """How a student's formula is computed: its tree, the letters of an equation for entries
    (``\\partial J / \\partial \\theta_j``), and whether ``\\cdot`` of two vectors is their dot product."""

    tree: Node
    entries: tuple[str, ...] = ()
    dot_products: bool = False
    renamed: Renamed | None = None


def compare(
    student: Node,
    reference: Node,
    notation: Notation,
    vocabulary: Vocabulary,
    conventions: tuple[Convention, ...],
    case: dict[str, str],
    entries: tuple[str, ...] = (),
    renamed: Renamed | None = None,
) -> tuple[Status, str, str]:
    """(equal or not equal, one way they differ, the convention under which they are equal), trying
    ``conventions`` in order. A ``\\cdot`` between two vectors is read both ways (a dot product, or
    entry by entry); one reading equal to the reference is the one the student meant."""
    rng = np.random.default_rng(20261125)
    batches = sorted({notation.dims[c.batch] if c.batch else 1 for c in conventions})
    draws = {batch: [draw(notation, vocabulary, rng, batch, trial) for trial in range(TRIALS)] for batch in batches}
    if at := kinks(reference):  # and one draw where 1[z > 0] and 1[z >= 0] differ
        for batch, found in draws.items():
            found.append(kink_draw(notation, vocabulary, rng, at, batch))
    readings = [Reading(student, entries, dot, renamed) for dot in ((False, True) if has_dot(student) else (False,))]
    with np.errstate(all="ignore"):  # a student's 1/0 is a value that is not finite, not a warning
        # The reference's value on each draw, once: every convention and reading compares with it.
        samples = {
            batch: [_sample(reference, notation, values, case) for values in found] for batch, found in draws.items()
        }
        problems = []
        for convention in conventions:
            for reading in readings:
                batch = notation.dims[convention.batch] if convention.batch else 1
                problem = _differs(reading, notation, convention, samples[batch])
                if problem is None:
                    return "equal", "", convention.name
                problems.append(problem)
    # Where the formula could be computed, how its values differ says more than a shape.
    return "not equal", next((p for p in problems if not p.startswith(_SHAPES)), problems[0]), ""


@dataclass(frozen=True)
class _Sample:
    """One draw, the indices its case binds, and the reference's value on it."""

    values: Draw
    bound: dict[str, int]
    want: np.ndarray


def _sample(reference: Node, notation: Notation, values: Draw, case: dict[str, str]) -> _Sample:
    bound = case_values(notation, values, case)
    return _Sample(values, bound, evaluate(reference, scope_of(notation, values, None, bound)))


def _differs(student: Reading, notation: Notation, convention: Convention, samples: list[_Sample]) -> str | None:
    problems: list[str] = []
    for sample in samples:
        want = oriented(sample.want, convention.vectors)
        want = want.T if convention.answer_transposed else want
        scope = scope_of(notation, sample.values, convention, sample.bound)
        scope.dot_products = student.dot_products
        if student.renamed is not None:
            _rename(scope, student.renamed)
        try:
            got = _computed(student, scope, want.shape)
        except ShapeError as error:
            return f"{_SHAPES} ({error}) with {convention.name}"
        except (FreeIndex, OutOfRange) as error:
            return str(error)
        problems.append(_difference(got, want))
    if not any(problems):
        return None
    if len(problems) > TRIALS and not any(problems[:TRIALS]):
        problem = _AT_KINK
    elif len(set(problems)) == 1:  # a way it differs holds for every draw ("2 times" on one only is none)
        problem = problems[0]
    else:
        problem = "its values differ from the right answer's"
    return f"{problem} (with {convention.name})"


def _rename(scope: Scope, renamed: Renamed) -> None:
    """The answer's letter takes the target's index; the target's letter is no longer bound, so a
    formula that mixes the two letters is not read as one that does not."""
    if renamed.target_letter not in scope.bound:
        return
    position, walks = scope.bound.pop(renamed.target_letter)
    if renamed.from_word:  # the first place the word was drawn
        position = int(np.flatnonzero(scope.lists[renamed.walks] == position)[0])
    scope.bound[renamed.letter] = (position, renamed.walks or walks)


def _computed(student: Reading, scope: Scope, shape: tuple[int, ...]) -> np.ndarray:
    """The student's formula computed; for an equation for entries, every entry of ``shape``, in
    order (one letter: the entries of a vector; two: row and column of a matrix)."""
    if not student.entries:
        return evaluate(student.tree, scope)
    if len(student.entries) == 1 and 1 not in shape:
        raise ShapeError("it gives one entry of a vector, but the answer is a matrix (with entries i, j)")
    positions = np.ndindex(shape) if len(student.entries) == 2 else ((i,) for i in range(max(shape)))
    entries = []
    for position in positions:
        for letter, value in zip(student.entries, position):
            scope.bound[letter] = (value, "")
        entry = evaluate(student.tree, scope)
        if entry.shape != (1, 1):
            raise ShapeError(f"its entry {position} is not a number but a {entry.shape[0]} x {entry.shape[1]} array")
        entries.append(entry[0, 0])
    return np.array(entries).reshape(shape)


def _close(got: np.ndarray, want: np.ndarray) -> bool:
    scale = max(1.0, float(np.abs(want).max(initial=0.0)))
    return bool(
        got.shape == want.shape
        and np.all(np.isfinite(got))
        and np.allclose(got, want, rtol=_RELATIVE, atol=_RELATIVE * scale)
    )


def _difference(got: np.ndarray, want: np.ndarray) -> str:
    """ "" when equal, else one way ``got`` differs from ``want``."""
    if _close(got, want):
        return ""
    if not np.all(np.isfinite(got)):
        return "it has no finite value (a log of a negative number, or a division by zero)"
    if _close(-got, want):
        return "it has the opposite sign"
    if _close(got.T, want):
        return "it is the transpose of the right answer"
    if got.shape != want.shape:
        return f"it has shape {got.shape[0]} x {got.shape[1]}, the answer {want.shape[0]} x {want.shape[1]}"
    flat_got, flat_want = got.ravel(), want.ravel()
    ratio = float(flat_got @ flat_want) / float(flat_want @ flat_want or 1.0)
    simple = [k for k in (2, 3, 4, 0.5, 1 / 3, 0.25, -2, -0.5) if abs(ratio - k) < 1e-6]
    if simple and _close(got / simple[0], want):
        return f"it is {simple[0]:.3g} times the right answer"
    return "its values differ from the right answer's"


# ------------------------------------------------------------------------- the whole answer


@dataclass(frozen=True)
class DerivationQuestion:
    """A derivation question: its notation, what it asks for, the conventions it accepts, and (for
    staff only) the reference formula of each target, keyed by the target's ``wrt``."""

    notation: Notation
    targets: tuple[Target, ...]
    conventions: tuple[Convention, ...]
    references: dict[str, str] = field(default_factory=dict)

    def with_references(self, references: dict[str, str]) -> DerivationQuestion:
        return replace(self, references=references)


def notation_problems(notation: Notation) -> list[str]:
    """What the reader cannot read in ``notation``, each with its fix: a spelling that is not one
    symbol (``'Wx'``: ``W_x``, or ``W`` and ``x`` apart), or a definition it cannot read."""
    problems = []
    spellings = [(f"a spelling of {s.latex}", (s.latex, *s.spellings)) for s in notation.symbols]
    spellings += [(f"a spelling of the family {f.base}", (f.base, *f.spellings)) for f in notation.families]
    for what, spelled in spellings:
        for spelling in spelled:
            try:
                key_of(spelling)
            except ReadError:
                problems.append(
                    f"'{spelling}' ({what}) is not one symbol: write a letter or a command with its accent, font "
                    f"and subscript ('W_x', '\\hat y', 'h_{{prev}}')"
                )
    if problems:
        return problems  # the definitions are read with the spellings
    vocabulary = Vocabulary(notation)
    for symbol in notation.symbols:
        try:
            read(symbol.define, vocabulary) if symbol.define else None
        except ReadError as error:
            problems.append(f"'{symbol.define}' (the definition of {symbol.latex}) cannot be read: {error}")
    return problems


def judge(answer: str, question: DerivationQuestion) -> Verdict:
    """The verdict on ``answer``, every target's final formula read and compared: a student's text
    may make a formula unreadable, never the grading fail."""
    vocabulary = Vocabulary(question.notation)
    conventions = _stated(answer, question.conventions)
    parts = []
    math: AnswerMath | None = None
    for target in question.targets:
        reference, _ = read(question.references[target.wrt], vocabulary)
        for case in target.cases:
            try:
                math = math or answer_math(answer)  # found once, for every formula asked for
                parts.append(_judge_case(math, conventions, question, target, case, reference, vocabulary))
            except _CHECKER_FAILED as error:
                note = f"the checker could not read it ({type(error).__name__}: {error}); tell the course staff"
                parts.append(PartVerdict(_derivative(target, case), "unreadable", note=note))
    status = min((p.status for p in parts), key=lambda s: _ORDER[s])
    return Verdict(status, tuple(parts))


def read_final(
    math: AnswerMath, question: DerivationQuestion, target: Target, case: dict[str, str], vocabulary: Vocabulary
) -> tuple[Found | None, Node | None, str]:
    """The final formula for one case of ``target``: where it was found, its tree (None when it
    cannot be read) and what stopped the reader."""
    case_key = _case_key(target, case)
    found = final_formula(math, target, case_key, vocabulary, len(question.targets) == 1, case)
    if found is None:
        return None, None, f"no equation for {_derivative(target, case, for_students=True)} found"
    vocabulary = _said(math, vocabulary)
    vocabulary = defined_names(found.after, defined_names(found.before, vocabulary), later=True)
    side = case_of(found.latex, case)
    if side is None:
        return found, None, f"its cases have no row for {_condition(case)}"
    try:
        node, _ = read_side(side, vocabulary)
    except ReadError as error:
        return found, None, f"'{_shown_side(side)}': {error}"
    return replace(found, latex=side), Transpose(node) if found.transposed else node, ""


def _shown_side(side: Side) -> str:
    """A formula as the student wrote it, for a message: on one line, cut at 120 characters."""
    text = " ".join((side if isinstance(side, str) else side.shown()).split())
    return text if len(text) <= 120 else text[:117] + "..."


def defined_names(equations: tuple[Equation, ...], vocabulary: Vocabulary, later: bool = False) -> Vocabulary:
    """``vocabulary`` with the names ``equations`` define, each as the last part of its definition
    that reads (``\\hat y = \\sigma(U v_c)`` is what that answer means by ``\\hat y``); a handout's name
    set to a name or a number is a condition (``\\hat y = y``), not a definition. Definitions are read
    in the order their names need (backprop written top down is read bottom up); one that cannot be
    read never falls back to another meaning (``a_2`` as entry 2 of ``a``): a formula that uses it is
    unreadable, and says why. ``later``: equations below the final formula, which define only what
    the answer above did not. A handout's name the answer defines anew means its definition in every
    other definition, one written above it too (``g = \\hat y - y`` before ``\\hat y = \\sigma(U v_c)``)."""
    defined = _in_order(equations, vocabulary, later)
    again = vocabulary
    for key, node in defined.definitions.items():
        if key in vocabulary.symbols and key not in vocabulary.definitions:
            again = again.with_definition(key, node)
    for symbol, (letter, node) in defined.entry_definitions.items():
        if symbol not in vocabulary.entry_definitions:
            again = again.with_entry_definition(symbol, letter, node)
    # The second reading keeps the first's meaning of the handout's names (as ``later`` does).
    return defined if again is vocabulary else _in_order(equations, again, later=True)


def _in_order(equations: tuple[Equation, ...], vocabulary: Vocabulary, later: bool) -> Vocabulary:
    pending = list(equations)
    declared = {key: e.parts[-1] for e in pending if e.left and (key := defined_name(e.left, vocabulary)) is not None}
    # A name of the answer's own means nothing until its definition is read: one that uses it waits for it.
    own = {
        key: latex for key, latex in declared.items() if vocabulary.own_name(key) and key not in vocabulary.definitions
    }
    vocabulary = vocabulary.with_unread_definitions(own)
    while pending:  # each round defines at least one more name, or ends
        unread = []
        for equation in pending:
            defined = _defined(equation, vocabulary, later)
            if defined is None:
                unread.append(equation)
            else:
                vocabulary = _with_whole(defined_name(equation.left, defined) or "", defined, declared)
        if len(unread) == len(pending):
            break
        pending = unread
    # Code that cannot be read (y = torch.zeros(6); y[c] = 1) builds what the handout's names mean: its
    # definitions are no meaning of theirs; one of the answer's own names stays unread all the same.
    unreadable = {
        key: e.parts[-1]
        for e in pending
        if (key := defined_name(e.left, vocabulary)) is not None and not (e.in_code and key in vocabulary.symbols)
    }
    # A name read once (in words, or in another equation: "UK = [u_{w_1}; ...]" and "UK = U[idx]") keeps that meaning.
    return vocabulary.with_unread_definitions(
        {
            key: latex
            for key, latex in unreadable.items()
            if not vocabulary.meaning_given(key) and key not in vocabulary.definitions
        }
    )


def _defined(equation: Equation, vocabulary: Vocabulary, later: bool) -> Vocabulary | None:
    """``vocabulary`` with what ``equation`` defines (itself when it defines nothing), or None for a
    definition none of whose parts can be read with it yet."""
    function = defined_function(equation.left, vocabulary) if equation.left else None
    if function is not None:
        # \sigma'(x) = \sigma(x)\sigma(1-x) means that, not the true derivative; unread, or by cases in words
        # ("1 if z > 0, 0 otherwise": a number), it means nothing, not the notation's function of that name.
        inside, parameter = vocabulary.with_parameter(function[1])
        body = _last_read(equation, inside)
        return vocabulary.with_function(function[0], parameter, None if isinstance(body, Number) else body)
    key = defined_name(equation.left, vocabulary) if equation.left else None
    entry = vocabulary.entry_defined(key) if key else None  # \hat y_w = ...: every entry of \hat y
    if key is None or not (entry or vocabulary.defines(key)):
        return vocabulary
    if later and (key in vocabulary.definitions or (entry and entry[0] in vocabulary.entry_definitions)):
        return vocabulary
    node = _last_read(equation, vocabulary)
    if node is None:
        return None
    if (entry or key in vocabulary.symbols or key in vocabulary.sizes) and isinstance(
        node, (Name, Number, Part, Entry)
    ):
        return vocabulary  # a condition ("when \hat y = y", "for K = 1"), not a definition
    if _own_class(key, node, vocabulary):
        return vocabulary.restated(key)  # the handout's one-hot, its index under a name of the answer's own
    if key in vocabulary.symbols and _the_handouts(vocabulary.symbols[key], node, vocabulary):
        return vocabulary  # the handout's own definition restated: its name reads better in feedback
    return vocabulary.with_entry_definition(*entry, node) if entry else vocabulary.with_definition(key, node)


def _with_whole(key: str, vocabulary: Vocabulary, declared: Container[str]) -> Vocabulary:
    """``vocabulary`` with, where ``key`` was defined as an entry of a vector or a diagonal of the
    answer's own that it does not define whole (``d_i = 1`` if ``z_i > 0``, ``D_{ii} = ...``), that
    vector (``1[z > 0]``) or its diagonal matrix."""
    stem, _, letters = key.partition("_")
    node = vocabulary.definitions.get(key)
    diagonal = len(letters) == 2 and letters[0] == letters[1]
    letter = letters[:1]
    if not (len(letters) == 1 or diagonal) or not letter.isalpha() or letter in vocabulary.named_indices:
        return vocabulary
    if node is None or stem in declared or not vocabulary.own_name(stem) or stem in vocabulary.definitions:
        return vocabulary
    if (whole := _whole(node, letter)) is None:
        return vocabulary
    return vocabulary.with_definition(stem, Call("diag", whole) if diagonal else whole)


def _whole(node: Node, letter: str) -> Node | None:
    """``node``, a formula for the entry ``letter`` of a vector (``1[z_i > 0]``), for the whole vector
    (``1[z > 0]``): each entry ``X_{letter}`` is ``X``; None where the letter is used in another way."""
    if isinstance(node, Entry) and node.indices == (IndexName(letter),):
        return node.operand
    if node == IndexName(letter):
        return None
    changes: dict[str, Any] = {}
    for part in fields(node) if is_dataclass(node) else ():
        value = getattr(node, part.name)
        items = value if isinstance(value, tuple) else (value,)
        nodes = [item for item in items if not isinstance(item, (str, float, int, type(None)))]
        found = {id(item): _whole(item, letter) for item in nodes}
        if None in found.values():
            return None
        wholes = tuple(found.get(id(item), item) for item in items)
        changes[part.name] = wholes if isinstance(value, tuple) else wholes[0]
    return replace(node, **changes) if changes else node


def _last_read(equation: Equation, vocabulary: Vocabulary) -> Node | None:
    """The last part of ``equation`` that ``vocabulary`` reads, as the student wrote it."""
    for part in reversed(equation.parts):
        try:
            return read_side(part, vocabulary)[0]
        except ReadError:
            continue
    return None


def _said(math: AnswerMath, vocabulary: Vocabulary) -> Vocabulary:
    """``vocabulary`` with the names the answer defines in words: a count or a matrix of the samples
    the words say, or, for words that do not say what the notation means by a name (``$c_w$ is the
    number of times w is in the window``), those words, which are not read."""
    for name, words in math.rows_said:
        key = defined_name(name)
        if key and key not in vocabulary.definitions and (rows := _rows_said(key, words, vocabulary)):
            vocabulary = vocabulary.with_definition(key, rows)
    for name, words in math.in_words:
        key = name if _APPLIED.fullmatch(name) else defined_name(name)
        pattern = vocabulary.said.get(vocabulary.symbol_named(key)) if key else None
        if key and pattern and not re.search(pattern, words, re.IGNORECASE):
            vocabulary = vocabulary.with_unread_definitions({key: Words(words)})
        elif key and key not in vocabulary.definitions and (count := _count_said(key, words, vocabulary)) is not None:
            vocabulary = vocabulary.with_definition(key, count)
    return vocabulary


_APPLIED = re.compile(r"[A-Za-z]\w+\(\w\)")  # count(w): a name of several letters with its argument


def _count_said(key: str, words: str, vocabulary: Vocabulary) -> Node | None:
    """The count of the notation that words say a bare name is ("$m$ is the number of $k$ with
    $w_k = w$", "$w$ is drawn $N$ times", "$n$ = number of samples equal to $w$"): ``n_w``."""
    if not (vocabulary.own_name(key) or vocabulary.symbols.get(key) in vocabulary.counts):
        return None
    said = [(s, at) for s, at in vocabulary.counts.items() if re.search(vocabulary.said.get(s, "^$"), words, re.I)]
    return read(f"{said[0][0]}_{{{said[0][1]}}}", vocabulary)[0] if len(said) == 1 else None


def _rows_said(key: str, words: str, vocabulary: Vocabulary) -> Stack | None:
    """The matrix a capital name of the answer's own is when words say its rows are a family's parts
    through a list ("$U_K$ has rows $u_{w_1}^\\top, \\dots, u_{w_K}^\\top$", "row $k$ is $u_{w_k}$") or
    the samples ("the K sampled rows of U", "one sample per row") where one family has rows."""
    if not (key[:1].isupper() and vocabulary.own_name(key)):
        return None
    parts = re.findall(r"\b([a-z])_\{?([a-z])(_?\{?[1kK]\b)?", words)
    named = {
        (vocabulary.families[letter], listed)
        for letter, listed, position in parts
        if letter in vocabulary.families and listed in vocabulary.index_lists and position
    }
    if any(letter in vocabulary.families and not position for letter, _, position in parts):
        return None  # "rows u_o, u_{w_1}, ...": another part too, which no stack of the list has
    rows = {family for family in vocabulary.families.values() if family not in vocabulary.entry_symbol}
    if not named and len(rows) == 1 and len(vocabulary.index_lists) == 1 and re.search(r"\bsampl", words, re.I):
        named = {(rows.pop(), next(iter(vocabulary.index_lists)))}
    return Stack(*named.pop()) if len(named) == 1 else None


def _own_class(key: str, node: Node, vocabulary: Vocabulary) -> bool:
    r"""Whether ``key`` is an entry of a one-hot vector (``y_i``) and ``node`` is 1 where its letter
    equals an index the notation does not name, 0 elsewhere (``y_i = 1`` if ``i = c``, ``0``
    otherwise; ``\mathbb{1}[i = c]``): the student's own name for the one-hot's index."""
    stem, _, letter = key.partition("_")
    if vocabulary.symbols.get(stem) not in vocabulary.onehots or not (len(letter) == 1 and letter.isalpha()):
        return False
    if isinstance(node, Sum) and isinstance(node.left, Product) and isinstance(node.right, Product):
        if not node.subtract and node.left.left == Number(1.0) and node.right.left == Number(0.0):
            node = node.left.right  # 1 1[i = c] + 0 (1 - 1[i = c]): cases read as indicators
    if not isinstance(node, SameIndex) or node.differ:
        return False
    other = {node.left, node.right} - {IndexName(letter)}
    if len(other) != 1 or {node.left, node.right} == other:
        return False
    (name,) = other
    taken = vocabulary.named_indices | {symbol.partition("_")[2] for symbol in vocabulary.symbols}  # o; c of v_c
    return isinstance(name, IndexName) and name.name.isalpha() and name.name not in taken


def _the_handouts(symbol: str, node: Node, vocabulary: Vocabulary) -> bool:
    """Whether ``node`` is, as written, the handout's definition of ``symbol``."""
    define = vocabulary.defined_as.get(symbol, "")
    try:
        return bool(define) and read(define, vocabulary)[0] == node
    except ReadError:
        return False


_VECTORS_SAID = re.compile(r"\b(row|column)[- ]vectors?\b")
# "(with the handout's row vectors this is the transpose)": the handout's vectors named, not chosen.
_HANDOUTS_OWN = re.compile(r"handout|course|original|assignment")


def _stated(answer: str, conventions: tuple[Convention, ...]) -> tuple[Convention, ...]:
    """The conventions of the vectors the answer says it uses ("with column vectors"; "the handout's
    row vectors" names no choice), else those of the handout's own vectors: a formula right only under
    vectors the answer did not choose is not right. A convention with :attr:`Convention.stated_by`
    holds only where the answer states it, and there it is the only one."""
    text = answer.lower()
    conventions = tuple(c for c in conventions if not c.stated_by or re.search(c.stated_by, answer, re.IGNORECASE))
    conventions = tuple(c for c in conventions if c.stated_by) or conventions  # a layout it says it uses
    said = {
        m[1] for m in _VECTORS_SAID.finditer(text) if not _HANDOUTS_OWN.search(text, max(0, m.start() - 25), m.start())
    }
    chosen = tuple(c for c in conventions if c.vectors in said)
    if len(said) == 1 and chosen:
        return chosen
    return tuple(c for c in conventions if c.vectors == conventions[0].vectors)


def describe(
    answer: str, question: DerivationQuestion, position: Callable[[int], str] = lambda line: f"line {line}"
) -> tuple[bool, str]:
    """What ``check-written`` tells a student: how each final formula was read, or why it cannot be
    read or computed, and how to write it. Never whether it is right: nothing here looks at the
    reference. ``position``: where a line of the answer is in the student's file (or cell)."""
    vocabulary = Vocabulary(question.notation)
    math = answer_math(answer)
    notes: list[str] = []
    unread: list[Target] = []
    equation_found = False  # an equation for some derivative was found, but is not read
    for target in question.targets:
        for case in target.cases:
            found, node, problem = read_final(math, question, target, case, vocabulary)
            name = _derivative(target, case, for_students=True)
            problem = problem or (_uncomputable(node, question, vocabulary, case) if node is not None else "")
            if found is not None and node is not None and not problem:
                where = f"{found.where}, {position(found.line)}"
                note = f"the final formula for {name} read as {shown(node)} (from {where})"
            else:
                unread.append(target)
                equation_found = equation_found or found is not None
                note = f"the final formula for {name} cannot be read: {problem}"
            if note not in notes:
                notes.append(note)
    if unread:
        notes.append(how_to_write(question, unread[0], equation_found))
    return not unread, "; ".join(notes)


def _uncomputable(node: Node, question: DerivationQuestion, vocabulary: Vocabulary, case: dict[str, str]) -> str:
    """Why a formula that reads cannot be computed (too many steps, a sum's limit that is no size),
    or "". Shapes that do not fit, a dropped sum, limits past the end are not said: they are wrong,
    and a student learns that from the staff, not from check-written."""
    rng = np.random.default_rng(0)
    values = draw(question.notation, vocabulary, rng)
    convention = question.conventions[0]
    scope = scope_of(question.notation, values, convention, case_values(question.notation, values, case))
    try:
        with np.errstate(all="ignore"):
            evaluate(node, scope)
    except (ShapeError, FreeIndex, OutOfRange):
        return ""
    except EvaluationError as error:
        return str(error)
    return ""


def symbols_of(notation: Notation) -> list[str]:
    """The notation's names as a student reads them: ``$U$``, ``$u_w$ (row w of $U$, as a column)``."""
    symbols = [f"${s.latex}$" for s in notation.symbols if s.kind != "counts"]
    counts = {s.latex for s in notation.symbols if s.kind == "counts"}  # what the answer may count: not said
    as_column = ", as a column" if notation.vectors == "column" else ""
    symbols += [
        f"${f.base}_w$" if f.part == "entry" else f"${f.base}_w$ (row w of ${f.of}${as_column})"
        for f in notation.families
        if f.of not in counts
    ]
    symbols += [f"${i.name}_k$ (the samples)" for i in notation.indices if i.length]
    return list(dict.fromkeys(symbols))


def final_formulas(questions: dict[str, DerivationQuestion], scored: frozenset[str] = frozenset()) -> str:
    """The handout's paragraph on the final formulas the grader reads, written by ``handouts``
    where the handout says ``<!-- final formulas -->``; ``scored``: the questions the machine's verdict
    scores (``auto_grade``), whose points then follow the final formula alone."""
    symbols = list(dict.fromkeys(s for question in questions.values() for s in symbols_of(question.notation)))
    first = next((t for question in questions.values() for t in question.targets), None)
    of, wrt = (first.of or "J", first.wrt) if first else ("J", "x")
    example = f"\\frac{{\\partial {of}}}{{\\partial {wrt}}}"
    by_hand = [q for q in questions if q not in scored]
    graded = "a TA grades the derivation either way"
    if scored:
        graded = f"a TA grades the derivation of {', '.join(by_hand)} either way; " if by_hand else ""
        graded += f"in {', '.join(sorted(scored))} the points follow the final formula alone: all of them when it is "
        graded += "the course's, else none"
    return textwrap.fill(
        f"**Final formulas, read by machine.** In {', '.join(questions)}, the grader also reads the final formula "
        f"of your derivation ({graded}). It reads the equation with the derivative "
        f"on its left (${example} = ...$): the one on a line that starts with `Answer:`, "
        f"else a boxed one, else the last one. Write it with the handout's symbols ({', '.join(symbols)}) and "
        "the notations below; a name you define yourself, above or below it, means what you define. "
        "`check-written` tells you how it read each final formula, or why it could not, and never whether it "
        "is right.",
        width=100,
        break_long_words=False,
        break_on_hyphens=False,
    )


def how_to_write(question: DerivationQuestion, target: Target, equation_found: bool = False) -> str:
    """How to write a final formula the machine reads: where (when no equation for the derivative
    was found), or with which names (when one was, and a name or a notation in it is not read)."""
    names = (
        f"the handout's symbols ({', '.join(symbols_of(question.notation))}), \\sigma, \\mathbb{{1}}[...] and the "
        "notation the handout lists"
    )
    if equation_found:
        return f"write it with {names}, or define each name of your own with a formula in the answer ($S = ...$)"
    return (
        f"write the final formula with the derivative on its left, as "
        f"$$\\frac{{\\partial {target.of or 'J'}}}{{\\partial {target.wrt}}} = ...$$ "
        f"(or on a line of its own starting with 'Answer:'), with {names}"
    )


def _judge_case(
    math: AnswerMath,
    conventions: tuple[Convention, ...],
    question: DerivationQuestion,
    target: Target,
    case: dict[str, str],
    reference: Node,
    vocabulary: Vocabulary,
) -> PartVerdict:
    """The verdict on one case of ``target``, under the ``conventions`` the answer allows."""
    name = _derivative(target, case)
    found, node, problem = read_final(math, question, target, case, vocabulary)
    where = f"{found.where}, line {found.line} of the answer" if found else ""
    if node is None:
        return PartVerdict(name, "unreadable", note=problem, where=where)
    assert found is not None  # a tree is only read from a formula found
    notation = question.notation
    try:
        letters = (found.entries, found.renamed)
        status, note, _ = compare(node, reference, notation, vocabulary, conventions, case, *letters)
        untried = tuple(c for c in question.conventions if c not in conventions)
        if status == "not equal" and untried:
            unsaid, _, other = compare(node, reference, notation, vocabulary, untried, case, *letters)
            if unsaid == "equal":
                note += f"; it would be equal with {other}, which the answer does not say it uses"
    except EvaluationError as error:
        return PartVerdict(name, "unreadable", shown(node), str(error), where)
    return PartVerdict(name, status, shown(node), note, where)


def _case_key(target: Target, case: dict[str, str]) -> str:
    """How a student writes the variable of one case: ``u_o`` for the case w = o."""
    latex = target.wrt
    for letter, value in case.items():
        if value.isalpha() and value != "other":  # a named index (o), not a position or a list's entry
            latex = latex.replace(f"_{letter}", f"_{value}").replace(f"_{{{letter}}}", f"_{{{value}}}")
    return key_of(latex)


def _derivative(target: Target, case: dict[str, str], for_students: bool = False) -> str:
    """``d/du_w (w = o)``: the target and its case; for students, only what the question says (not
    which sample or repeated word the check picks)."""
    condition = _condition(case, for_students)
    derivative = f"d{target.of}/d{target.wrt}".replace("{", "").replace("}", "")  # dh/dx when h is asked for
    return derivative + (f" ({condition})" if condition else "")


def _condition(case: dict[str, str], for_students: bool = False) -> str:
    said = {letter: value for letter, value in case.items() if not for_students or value.isalpha()}
    return ", ".join(f"{letter} ≠ o" if value == "other" else f"{letter} = {value}" for letter, value in said.items())
