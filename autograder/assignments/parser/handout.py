"""The parser handout's data: the gold tree of the transition-table question (2a-i), the figure
drawn from it, the form of each automatically graded written answer, and the notation of the
derivations whose final formulas the grader reads. Public: the handout prints the same tree and
notation, and the forms reveal nothing of the answers (the reference formulas are in
``reference_formulas.py``, which students never receive)."""

from __future__ import annotations

from autograder.assignments.parser.arc_standard import DependencyTree
from autograder.assignments.parser.table_answer import TableAnswer
from autograder.assignments.parser.tree_svg import tree_svg
from autograder.written.derivations.notation import (
    COLUMN_VECTORS,
    ROW_VECTORS,
    Convention,
    Index,
    Notation,
    Symbol,
    Target,
)
from autograder.written.derivations.verdict import DerivationQuestion
from autograder.written.formats import AnswerFormat, FormulaAnswer

GOLD_TREE = DependencyTree(
    words=("I", "presented", "my", "findings", "at", "the", "NLP", "conference"), heads=(2, 0, 4, 2, 8, 8, 8, 2)
)

FIGURES = {
    "parser_gold_tree.svg": lambda: tree_svg(
        GOLD_TREE,
        "Gold dependency tree of 'I presented my findings at the NLP conference': ROOT -> "
        "presented; presented -> I, findings, conference; findings -> my; conference -> at, "
        "the, NLP",
    ),
}

ANSWER_FORMATS: dict[str, AnswerFormat] = {
    "1b-i": FormulaAnswer({"p_drop": ("p", "pdrop", "p_d", "p_dropout")}),
    "2a-i": TableAnswer(GOLD_TREE),
    "2a-ii": FormulaAnswer({"n": ()}),
}


# 1c: one example, row vectors as in the handout.
LAYER = Notation(
    dims={"n": 3, "D_h": 5, "C": 4},
    vectors="row",
    indices=(Index("t", "C"),),
    symbols=(
        Symbol("x", "vector", ("n",)),
        Symbol("W", "matrix", ("n", "D_h")),
        Symbol("b_1", "vector", ("D_h",), spellings=("b",)),
        Symbol("z", "vector", ("D_h",), define="x W + b_1", spellings=("z_1", "a")),
        Symbol("h", "vector", ("D_h",), define="\\mathrm{ReLU}(z)"),
        Symbol("l", "vector", ("C",), spellings=("\\ell", "z_2", "\\theta")),
        Symbol("y", "onehot", ("C",), at="t"),
        Symbol("\\hat y", "vector", ("C",), define="\\mathrm{softmax}(l)", spellings=("y_{hat}", "p")),
    ),
)

# How an answer says its Jacobian is the transpose: "denominator layout", "n x D_h" (as a shape),
# "transposed Jacobian", "rows indexed by j".
JACOBIAN_TRANSPOSED = (
    r"denominator[- ]layout|\bn\s*(?:\\times|×|x|\*)\s*D_?\{?h\b|transposed\s+jacobian|jacobian\s+transposed"
    r"|rows?\s+(?:are\s+)?indexed\s+by\s+\$?j"
)

DERIVATIONS = {
    # The Jacobian as the handout orders it (D_h x n), or transposed (n x D_h) as some courses do,
    # where the answer says so (the handout's 1c-i says both).
    "1c-i": DerivationQuestion(
        LAYER,
        (Target("x", of="h"),),
        (
            ROW_VECTORS,
            Convention(
                "row vectors, the Jacobian transposed",
                "row",
                answer_transposed=True,
                stated_by=JACOBIAN_TRANSPOSED,
            ),
            COLUMN_VECTORS,
        ),
    ),
    "1c-ii": DerivationQuestion(LAYER, (Target("l"),), (ROW_VECTORS, COLUMN_VECTORS)),
}
