"""The parser handout's data: the gold tree of the transition-table question (2a-i), the figure
drawn from it, and the form of each automatically graded written answer. Public: the handout
prints the same tree, and the forms reveal nothing of the answers."""

from __future__ import annotations

from autograder.assignments.parser.arc_standard import DependencyTree
from autograder.assignments.parser.table_answer import TableAnswer
from autograder.assignments.parser.tree_svg import tree_svg
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
