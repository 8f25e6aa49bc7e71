"""What a derivation question's formulas may use, declared by the assignment (its ``handout.py``).

A :class:`Notation` is the handout's notation: sizes (``Dim``), the symbols with their kinds and
shapes, those defined by others (``h`` is ``\\sigma(x W_1 + b_1)``, so that a student who writes
``\\sigma(x W_1 + b_1)`` instead of ``h`` is read right), families of entries or rows (``u_w`` is row
``w`` of ``U``, ``\\hat y_w`` entry ``w`` of ``\\hat y``) and the indices they take (``o``, the
negative samples ``w_k``). Everything is written in one orientation of vectors, ``Notation.vectors``;
a :class:`Convention` says what else a question accepts as equally right.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Orientation = Literal["row", "column"]
Kind = Literal["scalar", "vector", "matrix", "onehot", "counts"]


@dataclass(frozen=True)
class Symbol:
    """A quantity of the handout: ``latex`` is how the handout writes it, ``spellings`` the other
    ways students do (``\\hat y``: ``\\hat{y}``, ``\\widehat{y}``, ``y_{hat}``); ``dims`` names its
    sizes (a vector has one, a matrix two); ``define`` writes it with other symbols (a derived
    quantity, computed from those); a ``onehot`` vector is one at the index ``at``; ``counts``, a
    vector whose entry i counts the i in the index list ``at`` (``n_w``: how often w was drawn)."""

    latex: str
    kind: Kind
    dims: tuple[str, ...] = ()
    spellings: tuple[str, ...] = ()
    define: str = ""
    at: str = ""
    positive: bool = False  # a count: drawn from 1 to 4
    # A regular expression (case-insensitive) for words that say what it is: a name of it that an
    # answer defines in words that do not match means what the words say, which is not read.
    said: str = ""
    per_example: bool = False  # one row per example in a batch (x, y, h), not shared (W, b)


@dataclass(frozen=True)
class Family:
    """``base_SUB`` names a part of ``of``: its rows (``u_w`` of ``U``) or its entries (``\\hat y_w``).
    Entries that are probabilities given an index (``given="c"``) are also written ``P(w | c)``,
    ``p(w \\mid c)`` or ``P(O = w | C = c)``."""

    base: str
    of: str
    part: Literal["row", "entry"]
    spellings: tuple[str, ...] = ()
    given: str = ""


@dataclass(frozen=True)
class Index:
    """An index into ``dim`` with a name of its own (``o``, the observed word), or a list of
    ``length`` of them (the negative samples ``w_1 ... w_K``, written ``w_k``), distinct but for
    the first drawn twice when it ``repeats``, and none equal to the indices in ``avoid``."""

    name: str
    dim: str
    length: str = ""
    avoid: tuple[str, ...] = ()
    repeats: bool = False  # a list whose first index is drawn twice (w_1 = w_2)


@dataclass(frozen=True)
class Notation:
    dims: dict[str, int]  # distinct sizes, so that a formula of the wrong shape fails
    symbols: tuple[Symbol, ...]
    vectors: Orientation = "column"
    families: tuple[Family, ...] = ()
    indices: tuple[Index, ...] = ()


@dataclass(frozen=True)
class Convention:
    """A way of writing the answer that is equally right: vectors as rows or columns, some matrices
    transposed (``U`` as ``d x |V|`` when the handout allows it), and with it the answer transposed
    (a gradient written as the transpose of the handout's); or the formula for a ``batch`` of
    examples, one per row (``X``, ``\\hat Y``: the spellings of the symbols ``per_example``)."""

    name: str
    vectors: Orientation
    transposed: tuple[str, ...] = ()
    answer_transposed: bool = False
    batch: str = ""  # the size of a batch (a dim): the formula for a batch, one example per row
    # A regular expression (case-insensitive) for the words with which an answer says it uses this
    # convention; when set, the convention holds only for an answer that says so, as the handout says.
    stated_by: str = ""


@dataclass(frozen=True)
class Target:
    """One formula a question asks for: the derivative with respect to ``wrt`` (``v_c``,
    ``u_w``, ``x``). ``cases`` gives values to the indices the answer may leave free (``w`` of
    ``u_w``: the observed word ``o`` and any ``other`` word), each checked on its own; a student may
    answer a case on its own line (``\\partial J / \\partial u_o``). An equation counts when what it
    differentiates is ``of``, or (without ``of``) no symbol of the notation: the loss, whatever its
    name, and not ``\\partial z_1 / \\partial x`` on the way."""

    wrt: str
    cases: tuple[dict[str, str], ...] = field(default_factory=lambda: ({},))
    of: str = ""  # what is differentiated when it is a symbol of the notation (h of dh/dx); else the loss


# The conventions most questions accept: the same formulas with vectors as rows, or as columns; and
# where the handout writes examples as rows, the formula for a batch of them (its size named N).
ROW_VECTORS = Convention("row vectors", "row")
COLUMN_VECTORS = Convention("column vectors", "column")
BATCH = Convention("a batch, one example per row", "row", batch="N")
