"""The search for written answers (autograder.written.giveaway): it finds each answer in the
spellings people use, and not the texts that merely talk about the question."""

from __future__ import annotations

import json

import pytest

from autograder.assignments.parser.handout import GOLD_TREE
from autograder.core.config import ConfigError, load_assignment
from autograder.assignments.parser.arc_standard import DependencyTree
from autograder.assignments.parser.table_answer import TransitionTableFinder
from autograder.written.giveaway import answer_finders, readable_text
from autograder.assignments.parser.transition_table import reference_table

pytestmark = pytest.mark.smoke  # also run on Python 3.10 and the newest Python (.ci/run)


@pytest.fixture(scope="module")
def finders() -> dict:
    return answer_finders(load_assignment("parser"))


def _spellings_of_the_sequence() -> list[str]:
    sequence = GOLD_TREE.oracle()
    long = {"S": "SHIFT", "LA": "LEFT-ARC", "RA": "RIGHT-ARC"}
    return [repr(sequence), " ".join(sequence), ", ".join(long[t] for t in sequence),
            "\n".join(f"step {i}: {long[t].lower()}" for i, t in enumerate(sequence, start=1)),
            reference_table(GOLD_TREE)]


def _spellings_of_the_arcs() -> list[str]:
    arcs = TransitionTableFinder(GOLD_TREE).arcs_in_order
    return [repr(arcs), repr([list(a) for a in arcs]), "\n".join(f"{h} -> {d}" for h, d in arcs),
            "; ".join(f"{d} ← {h}" for h, d in arcs), " ".join(f"({h}, {d})" for h, d in arcs)]


@pytest.mark.parametrize("text", _spellings_of_the_sequence() + _spellings_of_the_arcs())
def test_the_transition_table_is_found_in_any_spelling(finders, text):
    assert finders["2a-i"]("Worked out by hand:\n" + text + "\n")


@pytest.mark.parametrize("question, text", [
    ("1b-i", "scale = keep / (1.0 - p_drop)  # so that 1.0 / (1.0 - p_drop) is the scale"),
    ("1b-i", "$\\gamma = \\frac{1}{1-p_{\\text{drop}}}$"),
    ("1b-i", '"""kept entries are multiplied by ``\\\\frac{1}{1 - p_{drop}}``"""'),
    ("1b-i", "gamma = (1 - p)**-1"),
    ("2a-ii", "A sentence of n words takes 2n transitions."),
    ("2a-ii", "exactly 2 * n steps"),
    ("2a-ii", "$n + n$ transitions"),
    ("2a-ii", "2 \\cdot n"),
])
def test_a_formula_is_found_in_any_spelling(finders, question, text):
    assert finders[question](text)


@pytest.mark.parametrize("question, text", [
    # The handout's own words: the question, the gold arcs in the tree's order, the format examples.
    ("2a-i", "Its gold tree has the arcs ROOT → presented, presented → I, presented → findings, findings → "
             "my, presented → conference, conference → at, conference → the and conference → NLP"),
    ("2a-i", "SHIFT (S) moves a word; LEFT-ARC (LA) and RIGHT-ARC (RA) add arcs. " * 3),
    ("2a-i", repr(GOLD_TREE.oracle()[:-1])),  # a sequence that stops short of the end
    ("1b-i", "each entry is kept with probability 1 - p_drop; Answer: $\\gamma = 1 + p_{\\text{drop}}$"),
    ("1b-i", "out = x * scale / (1 - p_drop) * 2"),
    ("2a-ii", "for example `Answer: $n^2 + 1$`, a wrong value that shows the format"),
    ("2a-ii", "for n in range(2): print(n)"),
])
def test_talking_about_a_question_is_no_answer(finders, question, text):
    assert finders[question](text) == []


def test_another_sentence_is_no_answer(finders):
    other = DependencyTree(words=("We", "watched", "a", "movie", "about", "whales"), heads=(2, 0, 4, 2, 6, 4))
    assert finders["2a-i"](reference_table(other)) == []
    assert TransitionTableFinder(other)(reference_table(other))


def test_each_finder_finds_the_reference_answer(repo, finders):
    """The reference answers hold every answer: the search that finds nothing in the bundle works."""
    reference = (repo / "solutions" / "parser" / "written.md").read_text()
    assert sorted(finders) == ["1b-i", "2a-i", "2a-ii"]
    for question, find in finders.items():
        assert find(reference), question


def test_a_notebook_is_searched_in_its_cells(tmp_path, finders):
    notebook = tmp_path / "answers.ipynb"
    notebook.write_text(json.dumps({"cells": [{"cell_type": "markdown", "source": ["It takes\n", "2n steps"]}]}))
    assert finders["2a-ii"](readable_text(notebook))


def test_a_question_without_a_form_of_answer_is_refused():
    from autograder.written import giveaway

    with pytest.raises(ConfigError, match="9z-i is graded by tests but has no form of answer: add it to ANSWER_FORMATS"):
        giveaway._finder("9z-i", None, "")


def test_an_assignments_own_form_of_answer_brings_its_finder():
    """The framework knows no form by name: any object with describe, template and finder will do."""
    from autograder.written import giveaway

    class Keyword:
        def describe(self, text: str) -> str:
            return "read"

        def template(self) -> str:
            return ""

        def finder(self, reference_answer: str):
            return lambda text: [f"line 1: {reference_answer}"] if reference_answer in text else []

    find = giveaway._finder("9z-i", Keyword(), "perplexity")
    assert find("low perplexity") == ["line 1: perplexity"] and find("entropy") == []


@pytest.mark.parametrize("text, found", [
    ("d/dw (wx - y)^2 = 2x(wx - y)", True),           # variables side by side, as the reader takes them
    ("the derivative is 2 * x * (w * x - y)", True),
    ("$2 x (w x - y)$", True),
    ("the derivative is 2x(wx + y)", False),          # another formula
    ("wxyz and xx are words here", False),
])
def test_a_formula_with_variables_side_by_side_is_found(text, found):
    from autograder.written.expressions import read_formula
    from autograder.written.finders import FormulaFinder

    variables = {"w": (), "x": (), "y": ()}
    find = FormulaFinder(read_formula("2x(wx - y)", variables), variables)
    assert bool(find(text)) is found, find(text)
