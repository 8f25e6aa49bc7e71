"""The word2vec handout's notation, and the derivation questions whose final formulas the grader
reads (:mod:`autograder.written.derivations`). Public: it says what the handout already says; the
reference formulas are in ``reference_formulas.py``, which students never receive."""

from __future__ import annotations

from dataclasses import replace

from autograder.written.derivations.notation import (
    BATCH,
    COLUMN_VECTORS,
    ROW_VECTORS,
    Convention,
    Family,
    Index,
    Notation,
    Symbol,
    Target,
)
from autograder.written.derivations.verdict import DerivationQuestion

# Part 1: one example through the network of 1c, row vectors as in the handout (or a batch of N, one
# example per row: X, Y, H, \\hat Y).
# What an answer says y is, in words, unless it names the center word: y is then what its words say
# (which is not read), not the one-hot of o ("y is the one-hot vector of the center word c").
_Y_OUTSIDE = r"^(?!.*(?:cent(?:er|re)|\bc\b|v_c|input))"

NETWORK = Notation(
    dims={"D_x": 3, "H": 4, "D_y": 5, "N": 6},
    vectors="row",
    indices=(Index("t", "D_y"),),
    symbols=(
        Symbol("x", "vector", ("D_x",), spellings=("X",), per_example=True),
        Symbol("W_1", "matrix", ("D_x", "H"), spellings=("W^{(1)}",)),
        Symbol("b_1", "vector", ("H",), spellings=("b^{(1)}",)),
        Symbol("W_2", "matrix", ("H", "D_y"), spellings=("W^{(2)}",)),
        Symbol("b_2", "vector", ("D_y",), spellings=("b^{(2)}",)),
        Symbol("y", "onehot", ("D_y",), at="t", spellings=("Y",), per_example=True),
        Symbol(
            "z_1",
            "vector",
            ("H",),
            define="x W_1 + b_1",
            spellings=("z", "z^{(1)}", "a_1", "Z_1", "Z"),
            per_example=True,
        ),
        Symbol(
            "h",
            "vector",
            ("H",),
            define="\\sigma(z_1)",
            spellings=("h_1", "h^{(1)}", "a", "a^{(1)}", "H", "H_1"),
            per_example=True,
        ),
        Symbol(
            "\\theta",
            "vector",
            ("D_y",),
            define="h W_2 + b_2",
            spellings=("z_2", "z^{(2)}", "\\Theta"),
            per_example=True,
        ),
        Symbol(
            "\\hat y",
            "vector",
            ("D_y",),
            define="\\mathrm{softmax}(\\theta)",
            spellings=("y_{hat}", "\\tilde y", "\\hat Y", "Y_{hat}"),
            per_example=True,
        ),
    ),
)

# Part 2: one (center, outside) pair; vectors are columns, U holds the outside vectors as rows.
WORD2VEC = Notation(
    dims={"V": 7, "d": 4, "K": 3},
    vectors="column",
    indices=(Index("o", "V"), Index("w", "V", length="K", avoid=("o",))),
    symbols=(
        Symbol("U", "matrix", ("V", "d")),
        Symbol("v_c", "vector", ("d",)),
        Symbol("y", "onehot", ("V",), at="o", said=_Y_OUTSIDE),
        Symbol("\\hat y", "vector", ("V",), define="\\mathrm{softmax}(U v_c)", spellings=("y_{hat}", "\\tilde y")),
    ),
    families=(
        Family("u", "U", "row"),
        Family("\\hat y", "\\hat y", "entry", spellings=("y_{hat}", "\\tilde y"), given="c"),
        Family("y", "y", "entry"),
    ),
)

# 2c-ii: the same, with the first negative sample drawn twice (w_1 = w_2) and n_w counting them.
REPEATED = replace(
    WORD2VEC,
    indices=(Index("o", "V"), Index("w", "V", length="K", avoid=("o",), repeats=True)),
    symbols=(
        *WORD2VEC.symbols,
        Symbol("n", "counts", ("V",), at="w", said=r"sampl|draw|negative|\bneg_?|pick|chos|w_k|\bw_?[1kK]\b|\bK\b"),
    ),
    families=(*WORD2VEC.families, Family("n", "n", "entry", spellings=("N", "c", "m"))),
)

# Part 2: how an answer says it writes the derivative of the loss as a row vector, the transpose of
# the gradient (the "numerator layout"): "derivatives as row vectors", "gradient as a row vector".
NUMERATOR_LAYOUT = (
    r"numerator[- ]layout|(?:derivatives?|gradients?)\b[^.\n)]{0,60}?\bas\s+(?:a\s+)?row(?:[- ]vectors?|s)\b"
    r"|row[- ]vector\s+convention\s+for\s+(?:the\s+)?(?:derivatives?|gradients?)"
)
# Column vectors, as the handout's Part 2, with the derivative written as a row where the answer says so.
AS_ROWS = Convention(
    "column vectors, derivatives as rows", "column", answer_transposed=True, stated_by=NUMERATOR_LAYOUT
)

DERIVATIONS = {
    "1c-i": DerivationQuestion(NETWORK, (Target("\\theta"),), (ROW_VECTORS, COLUMN_VECTORS, BATCH)),
    "1d-i": DerivationQuestion(NETWORK, (Target("x"),), (ROW_VECTORS, COLUMN_VECTORS, BATCH)),
    "2b-ii": DerivationQuestion(WORD2VEC, (Target("v_c"),), (COLUMN_VECTORS, ROW_VECTORS, AS_ROWS)),
    "2b-iii": DerivationQuestion(
        WORD2VEC, (Target("u_w", ({"w": "o"}, {"w": "other"})),), (COLUMN_VECTORS, ROW_VECTORS, AS_ROWS)
    ),
    "2b-iv": DerivationQuestion(WORD2VEC, (Target("U"),), (COLUMN_VECTORS, ROW_VECTORS)),
    "2c-i": DerivationQuestion(
        WORD2VEC,
        (Target("v_c"), Target("u_o"), Target("u_{w_k}", ({"k": "1"},))),
        (COLUMN_VECTORS, ROW_VECTORS, AS_ROWS),
    ),
    "2c-ii": DerivationQuestion(REPEATED, (Target("u_w", ({"w": "w_1"},)),), (COLUMN_VECTORS, ROW_VECTORS, AS_ROWS)),
}
