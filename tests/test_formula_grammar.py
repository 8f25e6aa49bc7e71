"""The grammar of formulas (autograder/written/derivations/formula.lark): how a formula binds, what
ends it, and that the grammar and the lexer that feeds it name the same terminals. Each test reads a
formula as a student writes it and as it binds, with brackets; both must make the same tree."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from autograder.core.config import load_assignment
from autograder.written.derivations import lexemes
from autograder.written.derivations.lexemes import ReadError, Vocabulary
from autograder.written.derivations.reader import read
from autograder.written.derivations.tree import Indicator, Negative, SameIndex, Summation, Transpose
from autograder.written.handout_data import derivation_questions

GRAMMAR = Path(lexemes.__file__).with_name("formula.lark")


@pytest.fixture(scope="module")
def skipgram() -> Vocabulary:
    return Vocabulary(derivation_questions(load_assignment("word2vec"))["2b-ii"].notation)


@pytest.fixture(scope="module")
def layer() -> Vocabulary:
    return Vocabulary(derivation_questions(load_assignment("parser"))["1c-i"].notation)


@pytest.mark.smoke
@pytest.mark.parametrize(
    "written, binds_as",
    [
        # A sum's body runs as far as a product does: to the next + or -.
        (r"\sum_w \hat y_w u_w + v_c", r"(\sum_w (\hat y_w u_w)) + v_c"),
        (r"v_c - \sum_{w} \hat y_w u_w", r"v_c - (\sum_{w} (\hat y_w u_w))"),
        # Side by side, \cdot, \times, * and / are products of one level, left to right.
        (r"U^\top \hat y / 2 v_c^\top v_c", r"(((U^\top \hat y) / 2) v_c^\top) v_c"),
        # Entry by entry binds looser than a product: a \odot b c is a \odot (b c).
        (r"\hat y \odot U v_c", r"\hat y \odot (U v_c)"),
        # Scripts and primes bind tightest.
        (r"U^\top v_c", r"(U^\top) v_c"),
        (r"(\hat y - y)^\top U", r"((\hat y - y)^\top) U"),
        # A sign takes the whole product after it.
        (r"-U^\top y + U^\top \hat y", r"(-(U^\top y)) + (U^\top \hat y)"),
        # Fractions with and without braces; \frac12 as LaTeX allows.
        (r"\frac{1}{2} v_c", r"(1 / 2) v_c"),
        (r"\frac12 v_c", r"(1/2) v_c"),
        # A function's power and prime are written on its name.
        (r"\exp^2(v_c)", r"(\exp(v_c))^2"),
        # \exp and \log take the one operand after them without brackets, with its scripts.
        (r"\exp u_o^\top v_c", r"(\exp(u_o^\top)) v_c"),
        # e^{...} is \exp(...), when e is no symbol of the notation.
        (r"e^{u_o^\top v_c}", r"\exp(u_o^\top v_c)"),
    ],
)
def test_a_formula_binds_as_the_grammar_says(skipgram, written, binds_as):
    assert read(written, skipgram) == read(binds_as, skipgram)


@pytest.mark.smoke
def test_a_bracket_holding_a_comparison_is_its_indicator(skipgram, layer):
    assert read(r"[w = o]", skipgram)[0] == read(r"\mathbb{1}[w = o]", skipgram)[0]
    assert isinstance(read(r"[w = o]", skipgram)[0], SameIndex)
    assert isinstance(read(r"\delta_{wo}", skipgram)[0], SameIndex)
    mask, _ = read(r"(x W + b_1 > 0)", layer)  # numpy's mask
    assert isinstance(mask, Indicator) and mask == read(r"\mathbb{1}[x W + b_1 > 0]", layer)[0]
    assert read(r"1[x W + b_1 > 0]", layer)[0] == mask  # the indicator written with its 1
    assert read(r"\mathbb{1}_{x W + b_1 > 0}", layer)[0] == mask  # with the condition below it
    less = read(r"\mathbb{1}[0 < x W + b_1]", layer)[0]
    assert less == mask  # a < b is b > a


@pytest.mark.smoke
def test_a_list_written_out_is_the_parts_it_lists(skipgram):
    rows, _ = read(r"[u_{w_1}; \dots; u_{w_K}]", skipgram)
    columns, _ = read(r"[u_{w_1}, \dots, u_{w_K}]", skipgram)
    assert (rows.columns, columns.columns) == (False, True)
    with pytest.raises(ReadError, match=r"expected '\]' but found ';'"):
        read(r"[u_{w_1}; \dots; v_c]", skipgram)


@pytest.mark.smoke
@pytest.mark.parametrize(
    "written, formula, commentary",
    [
        (r"\hat y - y \in \mathbb{R}^{|V|}", r"\hat y - y", r"\in \mathbb{R}^{|V|}"),
        (r"U^\top(\hat y - y), \quad \text{the gradient}", r"U^\top(\hat y - y)", r", \quad \text{the gradient}"),
        (r"U^T (yhat - y) for every c", r"U^T (yhat - y)", "for every c"),
        ("\\hat y - y \u2714", r"\hat y - y", "\u2714"),  # a tick after the formula
    ],
)
def test_a_formula_ends_where_commentary_starts(skipgram, written, formula, commentary):
    node, rest = read(written, skipgram)
    assert node == read(formula, skipgram)[0] and rest == commentary


@pytest.mark.smoke
@pytest.mark.parametrize(
    "written, message",
    [
        (r"U^\top (\hat y - y", "it ends too soon"),
        (r"U^\top (\hat y - y]", r"expected '\)' but found '\]' \(are the brackets balanced\?\)"),
        (r"\hat y + ", "it ends too soon"),
        (r"\hat y = y", "it cannot be read from '=' on"),
        (r"\sqrt{v_c}", r"it uses '\\sqrt', which this reader does not know"),
        (r"\sigma v_c", "sigma needs its argument in brackets"),
        (r"\sum v_c", "a sum needs its index below it"),
        ("(\\hat y - y) % 2", "it contains '%', which is no part of a formula"),
    ],
)
def test_what_the_grammar_cannot_read_is_said_where(skipgram, written, message):
    with pytest.raises(ReadError, match=message):
        read(written, skipgram)


@pytest.mark.smoke
def test_nothing_is_read_past_the_sum_s_product(skipgram):
    node, _ = read(r"\sum_w \hat y_w u_w \odot v_c - y", skipgram)
    assert isinstance(node.left, Summation)  # the sum holds the \odot too; - ends it
    assert isinstance(read(r"-\hat y", skipgram)[0], Negative)
    assert isinstance(read(r"\hat y'", skipgram)[0], Transpose)


def test_the_grammar_and_the_lexer_name_the_same_terminals():
    """Every terminal formula.lark declares is one the lexer makes, and the other way round, so
    a rule can never wait for a lexeme that never comes."""
    grammar = GRAMMAR.read_text(encoding="utf-8")
    declared = {name for line in re.findall(r"^%declare (.+)$", grammar, re.MULTILINE) for name in line.split()}
    made_alone = set(lexemes.KINDS.values())
    made_by_rules = {"NUMBER", "NAME", "NODE", "FUNCTION", "PREFIX", "MAX", "FRAC", "SUM", "INDICATOR"}
    made_by_rules |= {"SUPERSCRIPT", "SUBSCRIPT"}
    assert declared == made_alone | made_by_rules
    source = Path(lexemes.__file__).read_text(encoding="utf-8")
    for kind in made_by_rules:
        assert f'"{kind}"' in source, f"the lexer makes no {kind}"


def test_every_function_the_lexer_names_is_one_the_evaluator_computes():
    """A function word with nothing to compute it would be read and then fail every verdict
    (``max`` is read as the ReLU, ``max(0, z)``)."""
    from autograder.written.derivations.evaluate import FUNCTIONS

    named = set(lexemes.FUNCTION_WORDS.values()) - {"max"}
    assert named <= set(FUNCTIONS), named - set(FUNCTIONS)


def test_an_indicator_s_script_mark_at_the_end_is_a_reader_message(layer):
    """``\\mathbb{1}_`` with nothing after it: the reader says what is missing, not a Python error."""
    with pytest.raises(ReadError, match="ends too soon"):
        read(r"\mathbb{1}_", layer)


@pytest.mark.parametrize("typed", ["du_w_", "du_w_{"])
def test_an_atom_cut_short_after_its_list_index_is_the_atom_before_it(typed):
    """atom_at never raises: ``du_w_`` at the end of a left side is ``u_w``."""
    assert lexemes.atom_at(lexemes.tokens(typed), 1, plain=True).key == "u_w"
