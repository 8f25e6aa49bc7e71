"""Derivations checked by machine: reading LaTeX formulas, finding the final one in a written
answer, comparing under conventions, and the labelled set of student answers."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import pytest
import yaml

from autograder.core.config import available_assignments, load_assignment
from autograder.written.answers import read_answers
from autograder.written.derivations.catalogue import SPELLINGS
from autograder.written.derivations.evaluate import EvaluationError
from autograder.written.derivations.final import MAX_ANSWER, equations
from autograder.written.derivations.lexemes import MAX_LENGTH, ReadError, Vocabulary, tokenised, tokens
from autograder.written.derivations.notation import Convention
from autograder.written.derivations.reader import read
from autograder.written.derivations.spellings import REWRITES
from autograder.written.derivations.tree import shown
from autograder.written.derivations.verdict import describe, judge
from autograder.written.handout_data import derivation_questions, handout_data

REPO = Path(__file__).resolve().parent.parent
# Every labelled set, with the share of its right answers that must be recognised: the goal, 90 %,
# or, for a set the reader does not meet it on yet, what it reaches now (a floor, not a goal).
LABELLED = {REPO / "benchmarks" / "data" / f"derivation_answers{kind}.yaml": share
            for kind, share in (("", 0.9), ("_heldout", 0.9), ("_heldout2", 0.9), ("_blind3", 0.9), ("_blind4", 0.9),
                                ("_blind5", 0.9), ("_blind6", 0.9), ("_blind7", 0.9), ("_blind8", 0.9), ("_blind9", 0.9),
                                ("_blind10", 0.9), ("_blind11", 0.9), ("_blind12", 0.9), ("_blind13", 0.9), ("_blind14", 0.8))}


@pytest.fixture(scope="module")
def questions():
    return {name: derivation_questions(load_assignment(name)) for name in ("word2vec", "parser")}


def _verdict(questions, question: str, answer: str, assignment: str = "word2vec"):
    return judge(answer, questions[assignment][question])


# ------------------------------------------------------------------------- reading


@pytest.mark.smoke
@pytest.mark.parametrize(
    "latex",
    [
        r"\left((\hat y - y) W_2^\top \odot h \odot (1 - h)\right) W_1^\top",
        r"\Big[(\hat{y} - y)W_2^{T} \circ \sigma(xW_1 + b_1) \circ (1 - \sigma(xW_1 + b_1))\Big] W_1^{T}",
        r"((ŷ − y) W_2ᵀ ⊙ h ⊙ (1 − h)) W_1ᵀ",
        r"\big((\widehat{y} - y) W_2' * \sigma'(z_1)\big) W_1'",
        r"\left[(\hat y - y)\, W^{(2)\top} \odot h(1-h)\right] W_1^\intercal",
        r"\boxed{((\hat y - y) W_2^\top \odot \sigma'(x W_1 + b_1)) W_1^\top}",
    ],
)
def test_notations_of_one_formula_all_judged_equal(questions, latex):
    verdict = _verdict(questions, "1d-i", f"$$\\frac{{\\partial J}}{{\\partial x}} = {latex}$$")
    assert verdict.status == "equal", verdict.summary()


@pytest.mark.smoke
def test_sums_indicators_diag_and_softmax_written_out(questions):
    sums = [
        r"\sum_{w} (\hat y_w - y_w)\, u_w",
        r"\sum_{w=1}^{|V|} \hat{y}_w \boldsymbol{u}_w - u_o",
        r"-u_o + \sum_{w \in V} \hat y_w u_w",
        r"\sum_{w \neq o} \hat y_w u_w + (\hat y_o - 1) u_o",
        r"\mathbf{U}^\top \hat y - U^T y",
    ]
    for latex in sums:
        verdict = _verdict(questions, "2b-ii", f"$$\\frac{{\\partial J}}{{\\partial v_c}} = {latex}$$")
        assert verdict.status == "equal", (latex, verdict.summary())
    for latex in (
        r"\mathrm{diag}(\mathbb{1}[xW + b_1 > 0])\, W^\top",
        r"\operatorname{diag}\left(\mathbf{1}\{xW + b_1 > 0\}\right) W^T",
        r"\text{diag}(\mathrm{ReLU}'(z)) W^\top",
        r"W\, \mathrm{diag}(\mathbb 1[h > 0])",  # the Jacobian transposed, said so, as some courses write it
    ):
        said = "In denominator layout: " if latex.startswith("W") else ""
        verdict = _verdict(questions, "1c-i", f"{said}$$\\frac{{\\partial h}}{{\\partial x}} = {latex}$$", "parser")
        assert verdict.status == "equal", (latex, verdict.summary())
    softmax = r"$$\frac{\partial J}{\partial l} = \frac{e^{l}}{\sum_c e^{l_c}} - y$$"
    assert _verdict(questions, "1c-ii", softmax, "parser").status == "equal"


@pytest.mark.smoke
@pytest.mark.parametrize(
    "question, answer",
    [
        ("2b-iii", r"$$\frac{\partial J}{\partial u_w} = (\hat y_w - \delta_{wo}) v_c$$"),  # Kronecker's delta
        ("2b-iii", r"$$\frac{\partial J}{\partial u_w} = (\hat y_w - \mathbb{1}[w = o]) v_c$$"),
        ("2b-iv", r"$$\frac{\partial J}{\partial U} = (\hat y - y) \otimes v_c$$"),  # an outer product
        ("2b-ii", "Answer: U^T(y_hat - y)"),  # plain text
        ("2b-iii", r"$\frac{\partial J}{\partial u_o} = (\hat y_o - 1) v_c$ and "
                   r"$$\frac{\partial J}{\partial u_w} = \hat y_w v_c \;(w \ne o)$$"),  # a condition after it
        ("1d-i", r"$$\frac{\partial J}{\partial x} = ((\hat y - y)W_2^\top \odot h \odot (\mathbf{1} - \mathbf{h}))"
                 r" W_1^\top$$"),  # the vector of ones
        ("2b-ii", r"$$\frac{\partial J}{\partial v_c} = \Sigma_{w} \hat y_w u_w - u_o$$"),  # a capital sigma
        ("1d-i", r"Let $a = xW_1 + b_1$. $$\frac{\partial J}{\partial x} = ((\hat y - y) W_2^T \odot \sigma'(a)) W_1^T$$"),
        ("1c-i", r"$$\frac{\partial CE}{\partial \theta_j} = \hat y_j - y_j \text{ because } \sum_i y_i = 1$$"),
    ],
)
def test_notations_a_ta_met_are_read(questions, question, answer):
    verdict = _verdict(questions, question, answer)
    assert verdict.status == "equal", verdict.summary()


@pytest.mark.smoke
@pytest.mark.parametrize(
    "derivative, status",
    [
        (r"\tfrac{1}{4}\tanh'(z_1 / 2)", "equal"),  # sigma'(z) = tanh'(z / 2) / 4
        (r"\tfrac{1}{4}\mathrm{sech}^2(z_1 / 2)", "equal"),
        (r"\frac{1}{4}\operatorname{sech}^2(z_1 / 2)", "equal"),
        (r"\tfrac{1}{4}(1 - \tanh^2(z_1 / 2))", "equal"),
        (r"\tanh'(z_1)", "not equal"),  # the derivative of tanh where sigma's is asked for
        (r"\mathrm{sech}^2(z_1)", "not equal"),
    ],
)
def test_the_derivative_of_tanh_is_read_in_each_notation(questions, derivative, status):
    answer = rf"$$\frac{{\partial J}}{{\partial x}} = \big((\hat y - y) W_2^\top \odot {derivative}\big) W_1^\top$$"
    verdict = _verdict(questions, "1d-i", answer)
    assert verdict.status == status, verdict.summary()


@pytest.mark.smoke
def test_the_reader_evaluates_nothing_and_stops_on_long_or_deep_input(questions):
    vocabulary = Vocabulary(questions["word2vec"]["1d-i"].notation)
    with pytest.raises(ReadError):
        read("__import__('os').system('true')", vocabulary)
    with pytest.raises(ReadError, match="longer than"):
        read("x + " * MAX_LENGTH, vocabulary)
    with pytest.raises(ReadError, match="nests more than"):
        read("(" * 200 + "x" + ")" * 200, vocabulary)


DERIVATIVE = r"$$\frac{\partial J}{\partial v_c} = "
MADE_TO_BE_SLOW = {
    "openings that never close": "\\[" * 10000 + "\\(" * 10000,
    "cases never closed": DERIVATIVE + "\\begin{cases}" * 3000 + "$$",
    "cases nested": DERIVATIVE + "\\begin{cases}" * 1500 + "\\end{cases}$$",
    "thousands of equations": "$a_1 = b$ " * 2500,
    "hundreds of final formulas": "$\\frac{\\partial J}{\\partial v_c} = U^T(\\hat y - y)$ " * 500,
    "hundreds of definitions": "".join(f"$s_{{{i}}} = \\hat y - y$ " for i in range(800)) + DERIVATIVE + "0$$",
    "deep fractions": DERIVATIVE + "\\frac{" * 500 + "$$",
    "dollars": "$" * 20000,
    "boxes never closed": "\\boxed{" * 5000,
    "equals signs": "$$" + "=" * 19000 + "$$",
    "indicators never closed": DERIVATIVE + "1[" * 400 + "$$",
    "nested sums": DERIVATIVE + "".join(f"\\sum_{{{c}}}" for c in "abcdefghij") + " \\hat y_a \\hat y_b u_c$$",
}


def test_a_long_answer_is_read_from_its_end_with_its_math_paired():
    """Of an answer over 20,000 characters the end is read; a cut inside $...$ must not pair every
    $ after it the wrong way round (the formulas would become the text between them)."""
    formula = "$\\frac{\\partial J}{\\partial v_c} = U^T(\\hat y - y)$ "
    for shift in range(len(formula)):  # every place of the cut
        found = equations("x" * shift + formula * (MAX_ANSWER // len(formula) + 5))
        assert found and all(e.parts == ("U^T(\\hat y - y)",) for e in found)


@pytest.mark.parametrize("case", sorted(MADE_TO_BE_SLOW))
def test_answers_made_to_be_slow_get_a_verdict_quickly(questions, case):
    """Every step is linear in the answer (cut at 20,000 characters) or bounded: a verdict, never an
    exception, in well under a second (a few to a few hundred ms here). Measured in this process's
    CPU time: the suite's other workers share the cores and would make wall time a measure of them."""
    started = time.process_time()
    for question in ("2b-ii", "2c-i"):
        verdict = _verdict(questions, question, MADE_TO_BE_SLOW[case])
        assert verdict.status in ("equal", "not equal", "unreadable")
        describe(MADE_TO_BE_SLOW[case], questions["word2vec"][question])
    assert time.process_time() - started < 5


@pytest.mark.smoke
def test_unknown_symbols_are_named_in_the_reason(questions):
    verdict = _verdict(questions, "1d-i", r"$$\frac{\partial J}{\partial x} = \Delta W_1^\top$$")
    assert verdict.status == "unreadable"
    assert "Delta is not a symbol" in verdict.parts[0].note


# ------------------------------------------------------------------------- finding the final formula


@pytest.mark.smoke
def test_the_answer_line_wins_then_a_boxed_equation_then_the_last_one(questions):
    last = r"""$$\frac{\partial J}{\partial v_c} = U(\hat y - y)$$ was my first try; then
$$\frac{\partial J}{\partial v_c} = \sum_w \hat y_w u_w - u_o = U^\top(\hat y - y)$$"""
    verdict = _verdict(questions, "2b-ii", last)
    assert verdict.status == "equal" and "line 2" in verdict.parts[0].where
    boxed = r"""$$\boxed{\frac{\partial J}{\partial v_c} = U^\top(\hat y - y)}$$
Check: $\frac{\partial J}{\partial v_c} = U(y - \hat y)$ would have the wrong shape."""
    assert _verdict(questions, "2b-ii", boxed).status == "equal"
    answer_line = r"""$$\frac{\partial J}{\partial v_c} = U(\hat y - y)$$

**Answer:** $U^\top (\hat y - y)$"""
    verdict = _verdict(questions, "2b-ii", answer_line)
    assert verdict.status == "equal" and "Answer:" in verdict.parts[0].where


@pytest.mark.smoke
def test_aligned_rows_continue_and_commentary_after_the_formula_is_not_read(questions):
    aligned = r"""$$\begin{aligned}\frac{\partial J}{\partial U} &= \sum_w (\hat y_w - y_w) e_w v_c^\top \\
&= (\hat y - y)\, v_c^\top \in \mathbb{R}^{|V| \times d}, \quad \text{an outer product.}\end{aligned}$$"""
    verdict = _verdict(questions, "2b-iv", aligned)
    assert verdict.status == "equal", verdict.summary()


@pytest.mark.smoke
def test_names_the_answer_defines_stand_for_their_definitions(questions):
    answer = r"""Let $\delta_2 = \hat y - y$ and $\delta_1 := \delta_2 W_2^\top \odot h \odot (1 - h)$. Then
$$\frac{\partial J}{\partial x} = \delta_1 W_1^\top.$$"""
    assert _verdict(questions, "1d-i", answer).status == "equal"
    wrong = answer.replace(r"\delta_2 W_2^\top", r"\delta_2 W_2^\top W_2 W_2^\top")
    assert _verdict(questions, "1d-i", wrong).status == "not equal"


@pytest.mark.smoke
def test_intermediate_derivatives_are_not_taken_for_the_answer(questions):
    answer = r"""$$\frac{\partial J}{\partial u_w} = (\hat y_w - y_w) v_c$$
because $\partial \theta_w / \partial u_w = v_c$."""
    verdict = _verdict(questions, "2b-iii", answer)
    assert verdict.status == "equal"
    assert all("read as (\\hat y_w - y_w) v_c" in f"read as {p.read}" for p in verdict.parts)


@pytest.mark.smoke
def test_cases_and_one_line_per_case(questions):
    cases = r"""$$\frac{\partial J}{\partial u_w} = \begin{cases} (\hat y_o - 1)\, v_c & \text{if } w = o \\
\hat y_w\, v_c & \text{otherwise} \end{cases}$$"""
    assert _verdict(questions, "2b-iii", cases).status == "equal"
    lines = r"""$\frac{\partial J}{\partial u_o} = (\hat y_o - 1) v_c$ and $\frac{\partial J}{\partial u_w} = \hat y_w v_c$ for $w \neq o$."""
    assert _verdict(questions, "2b-iii", lines).status == "equal"
    prose = (r"For $w = o$: $\frac{\partial J}{\partial u_w} = (\hat y_w - 1) v_c$, and for $w \neq o$: "
             r"$\frac{\partial J}{\partial u_w} = \hat y_w v_c$.")
    assert _verdict(questions, "2b-iii", prose).status == "equal"  # each case after its condition
    swapped = prose.replace("(\\hat y_w - 1) v_c$, and", "\\hat y_w v_c$, and").replace(
        "\\hat y_w v_c$.", "(\\hat y_w - 1) v_c$.")
    assert [p.status for p in _verdict(questions, "2b-iii", swapped).parts] == ["not equal", "not equal"]
    forgot_one_hot = r"$$\frac{\partial J}{\partial u_w} = \hat y_w v_c$$"
    verdict = _verdict(questions, "2b-iii", forgot_one_hot)
    assert [p.status for p in verdict.parts] == ["not equal", "equal"]  # wrong for w = o only



_NEG_REST = (r"$$\frac{\partial J}{\partial v_c} = (\sigma(u_o^T v_c) - 1) u_o + \sum_{k=1}^K \sigma(u_k^T v_c) u_k$$"
             "\n" r"$$\frac{\partial J}{\partial u_o} = (\sigma(u_o^T v_c) - 1) v_c$$" "\n")


@pytest.mark.smoke
@pytest.mark.parametrize(
    ("sample", "formula", "status"),
    [
        ("u_k", r"\sigma(u_k^T v_c) v_c", "equal"),  # CS224n's older notation
        ("u_{w_s}", r"\sigma(u_{w_s}^\top v_c)\, v_c", "equal"),  # and its newer one
        ("u_s", r"(1 - \sigma(-u_s^T v_c)) v_c", "equal"),
        ("u_k", r"-\sigma(u_k^T v_c) v_c", "not equal"),
        ("u_k", r"\sigma(u_o^T v_c) v_c", "not equal"),
        ("u_j", r"\sigma(u_k^T v_c) v_c", "not equal"),  # two letters for one sample: k is free
    ],
)
def test_the_sample_vector_under_a_letter_of_the_answers_own(questions, sample, formula, status):
    answer = _NEG_REST + f"$$\\frac{{\\partial J}}{{\\partial {sample}}} = {formula}$$"
    verdict = _verdict(questions, "2c-i", answer)
    assert [p.status for p in verdict.parts] == ["equal", "equal", status], verdict.summary()


@pytest.mark.smoke
def test_another_letter_for_the_word_and_the_handouts_name_first(questions):
    assert _verdict(questions, "2b-iii", r"$$\frac{\partial J}{\partial u_j} = (\hat y_j - y_j) v_c$$").status == "equal"
    mixed = r"$$\frac{\partial J}{\partial u_j} = (\hat y_w - y_w) v_c$$"  # w is no longer the word asked for
    assert _verdict(questions, "2b-iii", mixed).status == "not equal"
    others = r"$$\frac{\partial J}{\partial u_w} = 0 \quad w \notin \{o, w_1, \dots, w_K\}$$"
    right = _NEG_REST + r"$$\frac{\partial J}{\partial u_k} = \sigma(u_k^T v_c) v_c$$" + "\n" + others
    assert _verdict(questions, "2c-i", right).status == "equal"  # u_k names the sample; u_w any word
    handouts = _NEG_REST + r"$$\frac{\partial J}{\partial u_{w_k}} = \sigma(u_{w_k}^T v_c) v_c$$" + "\n"
    assert _verdict(questions, "2c-i", handouts + r"$$\frac{\partial J}{\partial u_k} = 0$$").status == "equal"

@pytest.mark.smoke
def test_equations_for_entries_are_put_together(questions):
    entry = r"$$\frac{\partial \mathrm{CE}}{\partial \theta_j} = \hat y_j - y_j$$ for every $j$."
    assert _verdict(questions, "1c-i", entry).status == "equal"
    jacobian = r"$$\frac{\partial h_i}{\partial x_j} = \mathbb{1}[(xW + b_1)_i > 0]\, W_{ji}$$"
    assert _verdict(questions, "1c-i", jacobian, "parser").status == "equal"
    matrix = r"$$\left(\frac{\partial J}{\partial U}\right)_{wj} = (\hat y_w - y_w)(v_c)_j$$"
    assert _verdict(questions, "2b-iv", matrix).status == "equal"
    swapped = r"$$\frac{\partial h_i}{\partial x_j} = \mathbb{1}[(xW + b_1)_i > 0]\, W_{ij}$$"
    assert _verdict(questions, "1c-i", swapped, "parser").status == "not equal"


@pytest.mark.smoke
def test_display_environments_without_dollars_are_math(questions):
    """A notebook cell shows \\begin{align*} without $$ (MathJax), so students leave them out."""
    answer = "\\begin{align*}\n\\frac{\\partial J}{\\partial v_c} &= U^\\top(\\hat y - y)\n\\end{align*}"
    assert _verdict(questions, "2b-ii", answer).status == "equal"


@pytest.mark.smoke
def test_unicode_written_without_dollars(questions):
    assert _verdict(questions, "1c-ii", "So ∂J/∂l = ŷ − y.", "parser").status == "equal"


def test_each_row_of_a_display_block_has_its_own_line_and_box():
    """A box on one row of an aligned block marks that row only, and each row says its own line
    (a message pointed at the block's first line before)."""
    block = "Work:\n$$\n\\begin{aligned}\na &= b \\\\\nJ_v &= \\boxed{c} \\\\\nd &= e\n\\end{aligned}\n$$"
    found = [(e.left, e.line, e.boxed) for e in equations(block)]
    assert found == [("a", 4, False), ("J_v", 5, True), ("d", 6, False)]


def test_equations_are_cut_at_separators_outside_brackets():
    found = equations(r"$\frac{\partial J}{\partial u_o} = A, \qquad \frac{\partial J}{\partial v_c} = \max(0, B)$")
    assert [(e.left, e.parts) for e in found] == [
        (r"\frac{\partial J}{\partial u_o}", ("A",)),
        (r"\frac{\partial J}{\partial v_c}", (r"\max(0, B)",)),
    ]


# ------------------------------------------------------------------------- conventions and hints


@pytest.mark.smoke
def test_the_handouts_vectors_unless_the_answer_says_the_others(questions):
    column = r"$$\frac{\partial J}{\partial v_c} = U^\top(\hat y - y)$$"
    row = r"$$\frac{\partial J}{\partial v_c} = (\hat y - y) U$$"
    assert _verdict(questions, "2b-ii", column).status == "equal"  # part 2's vectors are columns
    unsaid = _verdict(questions, "2b-ii", row)
    assert unsaid.status == "not equal"
    assert unsaid.parts[0].note.endswith("it would be equal with row vectors, which the answer does not say it uses")
    assert _verdict(questions, "2b-ii", "With row vectors: " + row).status == "equal"
    said = r"With column vectors, $$\frac{\partial J}{\partial U} = (\hat y - y)^\top v_c$$"
    assert _verdict(questions, "2b-iv", said).status == "not equal"
    assert _verdict(questions, "2b-iv", said.replace("column", "row")).status == "equal"
    # Part 1 writes examples as rows: a formula for columns counts when the answer says so.
    columns = r"$$\frac{\partial J}{\partial x} = W_1 (W_2 (\hat y - y) \odot \sigma'(z_1))$$"
    assert _verdict(questions, "1d-i", columns).status == "not equal"
    assert _verdict(questions, "1d-i", "I use column vectors. " + columns).status == "equal"


def test_a_convention_may_transpose_a_matrix_where_the_handout_allows_both(questions):
    """A course whose handout allows U as d x |V| (word vectors as columns) declares it; then U(\\hat y - y)
    is right, and only then."""
    declared = questions["word2vec"]["2b-ii"]
    columns = Convention("U as d x |V|", "column", transposed=("U",))
    answer = r"$$\frac{\partial J}{\partial v_c} = U(\hat y - y)$$"
    assert judge(answer, declared).status == "not equal"
    assert judge(answer, dataclasses.replace(declared, conventions=(*declared.conventions, columns))).status == "equal"


@pytest.mark.smoke
def test_the_formula_for_a_batch_counts_where_the_handout_writes_examples_as_rows(questions):
    batch = r"$$\frac{\partial J}{\partial X} = \big((\hat Y - Y) W_2^\top \odot H \odot (1 - H)\big) W_1^\top$$"
    assert _verdict(questions, "1d-i", batch).status == "equal"
    assert _verdict(questions, "1d-i", batch.replace(r"(\hat Y - Y)", r"(Y - \hat Y)")).status == "not equal"
    assert _verdict(questions, "1c-i", r"$$\frac{\partial J}{\partial \Theta} = \hat Y - Y$$").status == "equal"


@pytest.mark.smoke
@pytest.mark.parametrize(
    "question, latex, hint",
    [
        ("2b-ii", r"U^\top(y - \hat y)", "opposite sign"),
        ("2b-iv", r"v_c (\hat y - y)^\top", "transpose of the right answer"),
        ("2b-ii", r"U (\hat y - y)", "shapes do not fit"),
        ("2b-ii", r"2 U^\top(\hat y - y)", "2 times the right answer"),
        ("2b-ii", r"\sum_w \hat y_w u_w", "values differ"),
    ],
)
def test_not_equal_says_one_way_it_differs(questions, question, latex, hint):
    wrt = "v_c" if question == "2b-ii" else "U"
    verdict = _verdict(questions, question, f"$$\\frac{{\\partial J}}{{\\partial {wrt}}} = {latex}$$")
    assert verdict.status == "not equal" and hint in verdict.parts[0].note, verdict.summary()


@pytest.mark.smoke
def test_a_dropped_sum_is_not_equal_and_said(questions):
    answer = r"""$\frac{\partial J}{\partial v_c} = (\sigma(u_o^\top v_c) - 1) u_o + \sigma(u_{w_k}^\top v_c) u_{w_k}$,
$\frac{\partial J}{\partial u_o} = (\sigma(u_o^\top v_c) - 1) v_c$, $\frac{\partial J}{\partial u_{w_k}} = \sigma(u_{w_k}^\top v_c) v_c$"""
    verdict = _verdict(questions, "2c-i", answer)
    assert verdict.status == "not equal"
    assert "dropped sum" in verdict.parts[0].note and [p.status for p in verdict.parts[1:]] == ["equal", "equal"]


@pytest.mark.smoke
def test_repeated_samples_count_with_n_w_or_a_conditional_sum(questions):
    for latex in (
        r"n_w \sigma(u_w^\top v_c) v_c",
        r"\sum_{k: w_k = w} \sigma(u_w^\top v_c) v_c",
        r"\sum_{k=1}^{K} \mathbb{1}[w_k = w]\, \sigma(u_w^\top v_c)\, v_c",
    ):
        verdict = _verdict(questions, "2c-ii", f"$$\\frac{{\\partial J}}{{\\partial u_w}} = {latex}$$")
        assert verdict.status == "equal", (latex, verdict.summary())
    forgot = r"$$\frac{\partial J}{\partial u_w} = \sigma(u_w^\top v_c) v_c$$"
    assert _verdict(questions, "2c-ii", forgot).status == "not equal"


def test_evaluation_has_a_step_budget(questions):
    vocabulary = Vocabulary(questions["word2vec"]["2b-ii"].notation)
    nested = r"\sum_{a} \sum_{b} \sum_{e} \sum_{f} \sum_{g} \hat y_a \hat y_b \hat y_e \hat y_f \hat y_g u_o"
    node, _ = read(nested, vocabulary)
    assert "sum_a" in shown(node)
    verdict = _verdict(questions, "2b-ii", f"$$\\frac{{\\partial J}}{{\\partial v_c}} = {nested}$$")
    assert verdict.status == "unreadable" and "steps" in verdict.parts[0].note
    assert issubclass(type(EvaluationError("x")), ValueError)


# ------------------------------------------------------------------------- wrong answers a TA found judged equal


TAIL_2C = (r"$$\frac{\partial J}{\partial u_o} = (\sigma(u_o^\top v_c)-1)v_c$$"
           r"$$\frac{\partial J}{\partial u_{w_k}} = \sigma(u_{w_k}^\top v_c) v_c$$")


@pytest.mark.smoke
@pytest.mark.parametrize(
    "question, answer",
    [
        # The limits of a sum count.
        ("2c-i", r"$$\frac{\partial J}{\partial v_c} = (\sigma(u_o^\top v_c) - 1) u_o + \sum_{k=2}^{K} "
                 r"\sigma(u_{w_k}^\top v_c) u_{w_k}$$" + TAIL_2C),
        ("2c-i", r"$$\frac{\partial J}{\partial v_c} = (\sigma(u_o^\top v_c) - 1) u_o + \sum_{k=1}^{K-1} "
                 r"\sigma(u_{w_k}^\top v_c) u_{w_k}$$" + TAIL_2C),
        ("2c-i", r"$$\frac{\partial J}{\partial v_c} = (\sigma(u_o^\top v_c) - 1) u_o + \sum_{k=0}^{K} "
                 r"\sigma(u_{w_k}^\top v_c) u_{w_k}$$" + TAIL_2C),
        ("2b-ii", r"$$\frac{\partial J}{\partial v_c} = \sum_{w=2}^{|V|} \hat y_w u_w - u_o$$"),
        # The goal restated inline is not the final formula; the derivation's last displayed one is.
        ("1c-i", r"We want to show that $\frac{\partial CE}{\partial \theta} = \hat y - y$. Then "
                 r"$$\frac{\partial CE}{\partial \theta_j} = -y_j + \hat y_j \sum_i y_i = y_j - \hat y_j$$"),
        # The last part of a chain is the final formula, read or not: no earlier part stands in.
        ("2b-ii", r"$$\frac{\partial J}{\partial v_c} = -u_o + \sum_{w} \hat y_w u_w = "
                  r"\mathbb{E}_{w \sim \hat y}[u_w] + u_o$$"),
        # An Answer: line that is a sentence is no final formula.
        ("2b-ii", r"$$\frac{\partial J}{\partial v_c} = U^\top \hat y$$" "\n\n"
                  r"Answer: it is zero when $U^\top (\hat y - y)$ vanishes."),
        # A pasted image does not push the final formula out of what is read.
        ("2b-ii", r"From lecture, $\frac{\partial J}{\partial v_c} = U^\top(\hat y - y)$. "
                  "![plot](data:image/png;base64," + "iVBORw0KGgo" * 3000 + ")\n\n"
                  r"$$\frac{\partial J}{\partial v_c} = U^\top(y - \hat y)$$"),
        # A constant is no count: the repeated sample is drawn twice, then three times.
        ("2c-ii", r"$\frac{\partial J}{\partial u_w} = 2\,\sigma(u_w^\top v_c)\, v_c$"),
        # The answer's own meaning of a name wins over the handout's spellings of it (a also spells h).
        ("1d-i", r"Let $a = xW_1 + b_1$ and $h = \sigma(a)$. "
                 r"$$\frac{\partial J}{\partial x} = \left((\hat y - y) W_2^T \odot a \odot (1-a)\right) W_1^T$$"),
        # A one-line answer for another derivative is no answer to this one.
        ("2b-ii", r"$\frac{\partial J}{\partial U} = U^\top(\hat y - y)$"),
        # A tiny extra term is still an extra term.
        ("2b-ii", r"$$\frac{\partial J}{\partial v_c} = U^\top(\hat y - y) + 0.00000001 u_o$$"),
    ],
)
def test_wrong_answers_found_by_a_ta_are_not_equal(questions, question, answer):
    assert _verdict(questions, question, answer).status != "equal"


# ------------------------------------------------------------------------- what a third trial as a user found


@pytest.mark.smoke
@pytest.mark.parametrize(
    "assignment, question, answer",
    [
        # The handout takes ReLU' at 0 to be 0: >= differs from > where x W + b_1 is exactly 0.
        ("parser", "1c-i", r"$$\frac{\partial h}{\partial x} = \mathrm{diag}(\mathbb{1}[xW + b_1 \geq 0])\, W^\top$$"),
        ("parser", "1c-i", r"$$\frac{\partial h_i}{\partial x_j} = \begin{cases} W_{ji} & z_i \ge 0 \\ 0 & "
                           r"\text{otherwise}\end{cases}$$"),
        # The answer's own definition of a handout's name is what the answer means by it.
        ("word2vec", "2b-ii", r"let $\hat y = \sigma(U v_c)$. $$\frac{\partial J}{\partial v_c} = U^\top(\hat y - y)$$"),
        ("word2vec", "2b-ii", r"Let $\hat y = \sigma(U v_c)$. "
                              r"$$\frac{\partial J}{\partial v_c} = \sum_w (\hat y_w - y_w) u_w$$"),
        # A wrong definition of P(x | c), or of hat y below the formula (after \quad \text{where}).
        ("word2vec", "2b-ii", r"Using $P(x|c) = \sigma(u_x^\top v_c)$, "
                              r"$$\frac{\partial J}{\partial v_c} = -u_o + \sum_{x} P(x|c)\,u_x$$"),
        ("word2vec", "2b-ii", r"\begin{align*}\frac{\partial J}{\partial v_c} = U^\top(\hat y - y),\quad "
                              r"\text{where } \hat y = \sigma(U v_c)\end{align*}"),
        ("word2vec", "2b-iii", r"$$\frac{\partial J}{\partial u_w} = (\hat y_w - y_w) v_c$$ where "
                               r"$\hat y_w = \sigma(u_w^\top v_c)$"),
        # (hat y - y)^T v_c is the outer product with row vectors only, and the answer does not say rows.
        ("word2vec", "2b-iv", r"Row $w$: $(\hat y_w - y_w)v_c^T$. As one matrix: "
                              r"$\frac{\partial J}{\partial U} = (\hat y - y)^T v_c$"),
        # The transpose on the left, and a row vector on the right: the transpose of the answer.
        ("word2vec", "1d-i", r"$$\left(\frac{\partial J}{\partial x}\right)^{T} = "
                             r"((\hat y - y) W_2^T \odot h \odot (1 - h)) W_1^T$$"),
        # One answer, one way of writing vectors: u_{w_k} v_c^T is a matrix beside u_o^T v_c.
        ("word2vec", "2c-i", _NEG_REST + r"$$\frac{\partial J}{\partial u_{w_k}} = \sigma(u_{w_k} v_c^\top) v_c$$"),
    ],
)
def test_wrong_answers_a_third_trial_found_are_not_equal(questions, assignment, question, answer):
    assert _verdict(questions, question, answer, assignment).status == "not equal"


@pytest.mark.smoke
def test_a_kink_met_exactly_is_said(questions):
    answer = r"$$\frac{\partial h}{\partial x} = \mathrm{diag}(\mathrm{ReLU}'(z)) W^\top$$"
    assert _verdict(questions, "1c-i", answer, "parser").status == "equal"
    wrong = _verdict(questions, "1c-i", answer.replace(r"\mathrm{ReLU}'(z)", r"\mathbb{1}[z \geq 0]"), "parser")
    assert "only where a quantity it compares with 0 is exactly 0" in wrong.parts[0].note
    assert wrong.parts[0].target == "dh/dx"


@pytest.mark.smoke
@pytest.mark.parametrize(
    "assignment, question, answer",
    [
        # Saying when the gradient vanishes does not replace it.
        ("word2vec", "2b-iv", r"$$\frac{\partial J}{\partial U} = (\hat y - y) v_c^\top$$ It is zero when "
                              r"the prediction is perfect: $$\frac{\partial J}{\partial U} = \mathbf{0}.$$"),
        ("word2vec", "2b-ii", r"$$\frac{\partial J}{\partial v_c} = U^\top(\hat y - y)$$ "
                              r"$$\frac{\partial J}{\partial v_c} = 0 \iff U^\top \hat y = u_o$$"),
        # A restated definition, and a condition that only looks like one.
        ("word2vec", "2b-ii", r"Let $\hat y = \mathrm{softmax}(U v_c)$; it vanishes when $\hat y = y$. "
                              r"$$\frac{\partial J}{\partial v_c} = \sum_w (\hat y_w - y_w) u_w$$"),
        # Unicode written without $: subscripts, definitions on a line of their own, two derivatives on one.
        ("word2vec", "1d-i", "δ₂ = ŷ − y, δ₁ = δ₂ W₂ᵀ ⊙ h ⊙ (1 − h)\n\n∂J/∂x = δ₁ W₁ᵀ"),
        ("parser", "1c-i", "∂hᵢ/∂xⱼ = 𝟙[zᵢ > 0] Wⱼᵢ"),
        ("word2vec", "1c-i", "∂ŷ_i/∂θ_j = ŷ_i(δ_ij − ŷ_j), so ∂CE/∂θ = ŷ − y"),
        # An upright d, and d/dθ written as an operator.
        ("word2vec", "1c-i", r"$\frac{\mathrm{d}J}{\mathrm{d}\theta} = \hat y - y$"),
        ("word2vec", "1c-i", r"$\frac{{\rm d}J}{{\rm d}\theta} = \hat y - y$"),
        ("word2vec", "1c-i", r"$\frac{d}{d\theta} \mathrm{CE} = \hat y - y$"),
        # Names defined below the formula.
        ("word2vec", "1d-i", r"$$\frac{\partial J}{\partial x} = \delta_1 W_1^\top,$$ where "
                             r"$\delta_1 = (\hat y - y)W_2^\top \odot h \odot (1-h)$."),
        ("word2vec", "2c-i", r"$$\frac{\partial J}{\partial v_c} = (s_o - 1) u_o + \sum_{k=1}^K s_k u_{w_k}$$ "
                             r"$$\frac{\partial J}{\partial u_o} = (s_o - 1) v_c$$ "
                             r"$$\frac{\partial J}{\partial u_{w_k}} = s_k v_c$$ "
                             r"where $s_o = \sigma(u_o^\top v_c)$ and $s_k = \sigma(u_{w_k}^\top v_c)$."),
        # Cases by the value of the one-hot vector, and a factor in brackets that holds an indicator.
        ("parser", "1c-ii", r"$$\frac{\partial J}{\partial l_i} = \begin{cases} \hat y_i - 1 & \text{if } y_i = 1 "
                            r"\\ \hat y_i & \text{otherwise}\end{cases}$$"),
        ("parser", "1c-ii", r"$$\frac{\partial J}{\partial l_i} = \hat y_i (1 - \mathbb{1}[y_i = 1]) + "
                            r"(\hat y_i - 1)\mathbb{1}[y_i = 1]$$"),
        # What the blind labelled set wrote: CS224n's P(w | c) for \hat y_w, also defined by the answer,
        # a count as the size of a set, a chain of maths each starting with =, a row break \\[2pt],
        # unicode limits of a sum, the transpose of the derivative on the left.
        ("word2vec", "2b-ii", r"$$\frac{\partial J}{\partial v_c} = -u_o + \sum_{w=1}^{V} P(O=w|C=c)\, u_w$$"),
        ("word2vec", "2b-iii", r"$$\frac{\partial J}{\partial u_o} = (P(o|c)-1)\,v_c$$ and for $w \neq o$: "
                               r"$$\frac{\partial J}{\partial u_w} = p(w \mid c)\,v_c$$"),
        ("word2vec", "2b-ii", r"Using $p(x|c) = \frac{\exp(u_x^\top v_c)}{\sum_{w}\exp(u_w^\top v_c)}$,"
                              "\n\n" r"$\frac{\partial}{\partial v_c}\left(-u_o^\top v_c + \log\sum_{w}\exp(u_w^\top v_c)\right)$"
                              "\n\n" r"$= -u_o + \sum_{x} p(x|c)\,u_x$"),
        ("word2vec", "2c-ii", r"$$\frac{\partial J}{\partial u_w} = \#\{k : w_k = w\}\,\sigma(u_w^\top v_c)\,v_c$$"),
        ("word2vec", "2c-ii", "∂J/∂u_w = ∑ₖ₌₁ᴷ 𝟙[w_k = w] σ(u_wᵀv_c) v_c"),
        ("word2vec", "2b-iii", r"\begin{align*}\frac{\partial J}{\partial u_w} = \begin{cases}(\hat y_o - 1)\,v_c, & w = o"
                               r"\\[2pt] \hat y_w\,v_c, & w\neq o\end{cases}\end{align*}"),
        ("word2vec", "1d-i", r"$$\left(\frac{\partial J}{\partial x}\right)^{\!\top} = "
                             r"W_1\Big(\big(h\odot(1-h)\big)^\top\odot W_2(\hat y-y)^\top\Big)$$"),
        # Backprop written top down: a definition that uses a name defined after it, below or above.
        ("word2vec", "1d-i", r"$$\frac{\partial J}{\partial x} = \delta_1 W_1^T$$ where "
                             r"$\delta_1 = \delta_2 W_2^T \circ \sigma'(z_1)$ and $\delta_2 = \hat y - y$."),
        ("word2vec", "1d-i", r"$\delta_1 = \delta_2 W_2^T \odot \sigma'(z_1)$ and $\delta_2 = \hat y - y$, so "
                             r"$$\frac{\partial J}{\partial x} = \delta_1 W_1^T$$"),
        # 2c-ii in CS224n's notation: the repeated sample named u_{w_s}.
        ("word2vec", "2c-ii", r"$$\frac{\partial J}{\partial u_{w_s}} = \sum_{k: w_k = w_s} "
                              r"\sigma(u_{w_k}^\top v_c)\, v_c$$"),
    ],
)
def test_right_answers_a_third_trial_found_are_equal(questions, assignment, question, answer):
    verdict = _verdict(questions, question, answer, assignment)
    assert verdict.status == "equal", verdict.summary()


@pytest.mark.smoke
def test_messages_name_sizes_and_the_derivative_asked_for(questions):
    times_k = _verdict(questions, "2c-ii", r"$$\frac{\partial J}{\partial u_w} = K \sigma(u_w^\top v_c) v_c$$")
    assert "K is a size of this question's notation" in times_k.parts[0].note
    ok, message = describe("nothing", questions["parser"]["1c-i"])
    assert not ok and r"\frac{\partial h}{\partial x}" in message and "dh/dx" in message
    ok, message = describe(r"$$\frac{\partial h}{\partial x} = \mathbb{E}[x]$$", questions["parser"]["1c-i"])
    assert "'\\mathbb'" in message  # as written, not doubled by repr
    bare = _verdict(questions, "2c-ii", r"$$\frac{\partial J}{\partial u_w} = n\,\sigma(u_w^T v_c)\,v_c$$")
    assert "n counts every word; write n_w" in bare.parts[0].note and bare.status == "unreadable"

def test_definitions_are_read_in_the_order_they_need_at_any_depth(questions):
    """Backprop written top down, five deep: each name is defined with the next, defined later."""
    chain = (r"$$\frac{\partial J}{\partial x} = a_1 W_1^T$$ where $a_1 = a_2 \odot a_3$, "
             r"$a_3 = \sigma'(z_1)$, $a_2 = a_4 W_2^T$, $a_4 = a_5$ and $a_5 = \hat y - y$.")
    verdict = _verdict(questions, "1d-i", chain)
    assert verdict.status == "equal", verdict.summary()


def test_a_function_the_answer_defines_means_what_it_defines(questions):
    """sigma' defined wrongly (sigma(x) sigma(1-x), a real student's error) and then used: not the
    true derivative; defined rightly: equal; ReLU' defined by cases in words: not read, so unreadable."""
    use = (r"$$\frac{\partial J}{\partial x} = \big((\hat y - y) W_2^\top \odot \sigma'(z_1)\big) W_1^\top$$")
    wrong = _verdict(questions, "1d-i", r"We have $\sigma'(x) = \sigma(x)\,\sigma(1-x)$, so" + "\n\n" + use)
    assert wrong.status == "not equal", wrong.summary()
    right = _verdict(questions, "1d-i", r"We have $\sigma'(t) = \sigma(t)(1-\sigma(t))$, so" + "\n\n" + use)
    assert right.status == "equal", right.summary()
    jacobian = r"$$\frac{\partial h}{\partial x} = \mathrm{diag}(\mathrm{ReLU}'(xW + b_1)) W^\top$$"
    words = _verdict(questions, "1c-i", r"Define $\mathrm{ReLU}'(z) = 1$ if $z > 0$ and $0$ otherwise. " + jacobian,
                     "parser")
    assert words.status == "equal", words.summary()
    constant = _verdict(questions, "1c-i", r"Define $\mathrm{ReLU}'(z) = 1$. " + jacobian, "parser")
    assert constant.status == "unreadable" and "relu' is defined in the answer" in constant.parts[0].note
    table = _verdict(questions, "1c-i", r"Define $\mathrm{ReLU}'(z) = \begin{cases} 1 & z > 0 \\ 0 & "
                     r"\text{otherwise}\end{cases}$. $$\frac{\partial h}{\partial x} = "
                     r"\mathrm{diag}(\mathrm{ReLU}'(xW + b_1)) W^\top$$", "parser")
    assert table.status == "equal", table.summary()


def test_the_transposed_jacobian_is_right_only_where_the_answer_says_so(questions):
    """The parser's 1c-i accepts the n x D_h layout when the answer states it, as its handout says."""
    formula = r"$$\frac{\partial h}{\partial x} = W \operatorname{diag}(\mathbb{1}[xW + b_1 > 0])$$"
    unstated = _verdict(questions, "1c-i", formula, "parser")
    assert unstated.status == "not equal", unstated.summary()
    stated = _verdict(questions, "1c-i", "In denominator layout (n x D_h):\n\n" + formula, "parser")
    assert stated.status == "equal", stated.summary()


@pytest.mark.parametrize("words, status", [
    ("and $y_i = 0$ otherwise", "equal"), ("and $0$ otherwise", "equal"), (", $0$ if $i \\neq o$", "equal"),
    ("and 0 otherwise", "equal"),
])
def test_a_definition_by_cases_in_words_is_read(questions, words, status):
    """y defined entry by entry in words: for the outside word o it is the handout's y; for the
    center word c (a blind set's wrong answer, once judged equal) it is another vector."""
    for word, expected in (("o", status), ("c", "not equal")):
        answer = (r"$$\frac{\partial J}{\partial v_c} = U^\top(\hat y - y)$$ where $y_i = 1$ if "
                  rf"$i = {word}$ " + words.replace("i \\neq o", f"i \\neq {word}"))
        verdict = _verdict(questions, "2b-ii", answer)
        assert verdict.status == expected, (word, verdict.summary())


@pytest.mark.parametrize("words, status", [
    ("the number of times the word $w$ occurs in the context window around $c$", "unreadable"),
    ("the number of negative samples equal to $w$", "equal"),
    ("the number of $k$ with $w_k = w$", "equal"),
])
def test_a_count_defined_in_words_means_what_the_words_say(questions, words, status):
    """c_w spells the count of w among the samples; an answer that defines it in words as another
    count (blind set 3, once judged equal) means that, which is not read."""
    answer = (r"$$\frac{\partial J}{\partial u_w} = c_w\,\sigma(u_w^\top v_c)\,v_c$$ where $c_w$ is " + words + ".")
    verdict = _verdict(questions, "2c-ii", answer)
    assert verdict.status == status, verdict.summary()


@pytest.mark.parametrize("answer, status", [
    ("Let $m$ be the number of $k$ with $w_k = w$. $$\\frac{\\partial J}{\\partial u_w} = m\\,\\sigma(u_w^\\top v_c)\\,v_c$$",
     "equal"),
    ("If $w$ is drawn $r$ times, $$\\frac{\\partial J}{\\partial u_w} = r\\,\\sigma(u_w^\\top v_c)\\,v_c$$", "equal"),
    ("$$\\frac{\\partial J}{\\partial u_w} = n\\,\\sigma(u_w^\\top v_c)\\,v_c$$ ($n$ = number of samples equal to $w$)",
     "equal"),
    ("If $w$ is drawn $r$ times, $$\\frac{\\partial J}{\\partial u_w} = r\\,\\sigma(-u_w^\\top v_c)\\,v_c$$", "not equal"),
    ("Let $m$ be the number of words in the window. $$\\frac{\\partial J}{\\partial u_w} = m\\,\\sigma(u_w^\\top v_c)\\,v_c$$",
     "unreadable"),
])
def test_a_bare_name_said_to_count_the_samples_is_that_count(questions, answer, status):
    """A name of the answer's own (or the bare n) said in words to count how often w was drawn is
    n_w; words that count something else leave it unread."""
    verdict = _verdict(questions, "2c-ii", answer)
    assert verdict.status == status, verdict.summary()


@pytest.mark.parametrize("answer, status", [
    ("tally = np.count_nonzero(samples == w)  # how many times w was drawn\ndJ/du_w = tally * sigmoid(u_w @ vc) * vc",
     "equal"),
    ("Let r = (samples == w).sum(), the number of times w was sampled.\ndJ/du_w = r * sigmoid(u_w . vc) * vc", "equal"),
    ("dJ/du_w = times(w) * sigmoid(u_w^T vc) * vc, where times(w) = how many of w_1..w_K equal w", "equal"),
    ("dJ/du_w = times(w) * sigmoid(-u_w^T vc) * vc, where times(w) = how many of w_1..w_K equal w", "not equal"),
    ("dJ/du_w = times(w) * sigmoid(u_w^T vc) * vc, where times(w) = how many words of the window equal w",
     "unreadable"),    ("hits = np.sum(neg_ids == w)\ndJ/du_w = hits * sigmoid(U[w] @ vc) * vc", "equal"),
    ("hits = (sampled == w).sum()\ndJ/du_w = hits * sigmoid(U[w] @ vc) * vc", "equal"),
    ("hits = np.sum(window == w)\ndJ/du_w = hits * sigmoid(U[w] @ vc) * vc", "unreadable"),
    ("hits = np.sum(neg_ids == w)\ndJ/du_w = hits * sigmoid(U[w] @ vc) @ vc", "not equal"),
])
def test_a_count_defined_by_code_or_with_its_argument_is_read(questions, answer, status):
    """Blind sets 4 to 12 each had one: a count given as numpy code with its words after ``#`` or a
    comma, or alone when the list's name says it holds the samples (``np.sum(neg_ids == w)``), or a
    count of several letters written with its argument, ``times(w)``; numpy's ``U[w]`` is u_w."""
    verdict = _verdict(questions, "2c-ii", answer)
    assert verdict.status == status, verdict.summary()


_SAMPLED_ROWS = (
    "dJ/dv_c = (sigma(u_o^T v_c) - 1) u_o + {M}^T sigma({S}{M} v_c)\n"
    "dJ/du_o = (sigma(u_o^T v_c) - 1) v_c\ndJ/du_{{w_k}} = sigma(u_{{w_k}}^T v_c) v_c"
)


@pytest.mark.parametrize("said, name, sign, status", [
    ("Let $N_s$ be the $K \\times d$ matrix whose rows are $u_{w_1}^\\top, \\dots, u_{w_K}^\\top$.", "N_s", "", "equal"),
    ("Us = U[picked]   # K x d, one sampled vector per row", "Us", "", "equal"),
    ("Row $k$ of $Q_{neg}$ is $u_{w_k}^\\top$.", "Q_{neg}", "", "equal"),
    ("Row $k$ of $Q_{neg}$ is $u_{w_k}^\\top$.", "Q_{neg}", "-", "not equal"),
    ("Let $N_s$ be the matrix whose rows are $u_o^\\top, u_{w_1}^\\top, \\dots, u_{w_K}^\\top$.", "N_s", "", "unreadable"),
])
def test_a_matrix_whose_rows_words_say_are_the_samples_stacks_them(questions, said, name, sign, status):
    """Six sets had a matrix of the sampled vectors under a name of the student's own (``U_K``,
    ``U_neg``, ``UK = U[neg_idx]``), said in words or in a comment to hold them as rows; with
    ``u_o`` among its rows it is no stack of the samples, and is not read."""
    answer = said + "\n\n" + _SAMPLED_ROWS.format(M=name, S=sign)
    verdict = _verdict(questions, "2c-i", answer)
    assert verdict.status == status, verdict.summary()


@pytest.mark.parametrize("answer, status", [
    ("dJ/dvc = (sigmoid(uo @ vc) - 1) * uo + sum_k sigmoid(uwk @ vc) * uwk\ndJ/duo = (sigmoid(uo @ vc) - 1) * vc\n"
     "dJ/duwk = sigmoid(uwk @ vc) * vc", "equal"),
    ("dJ/dvc = (sigmoid(uo @ vc) - 1) * uo + sum_k sigmoid(uwk @ vc) * uwk\ndJ/duo = (sigmoid(uo @ vc) - 1) * vc\n"
     "dJ/duwk = sigmoid(-uwk @ vc) * vc", "not equal"),
])
def test_numpy_at_of_two_vectors_is_their_dot_product(questions, answer, status):
    """``uo @ vc`` of two 1-D arrays is numpy's dot product; ``uwk`` is ``u_{w_k}`` typed."""
    verdict = _verdict(questions, "2c-i", answer)
    assert verdict.status == status, verdict.summary()


@pytest.mark.parametrize("said, formula, status", [
    ("Derivatives of the loss are written as row vectors (numerator layout).", "(\\hat y - y)^\\top U", "equal"),
    ("I give gradients as rows.", "(\\hat y - y)^\\top U", "equal"),
    ("", "(\\hat y - y)^\\top U", "not equal"),
    ("Derivatives of the loss are written as row vectors (numerator layout).", "U^\\top (\\hat y - y)", "not equal"),
    ("Derivatives of the loss are written as row vectors (numerator layout).", "(y - \\hat y)^\\top U", "not equal"),
    ("All vectors (gradients too) are row vectors here.", "(\\hat y - y) U", "equal"),
])
def test_a_derivative_as_a_row_counts_where_the_answer_says_so(questions, said, formula, status):
    """Part 2's vectors are columns; a student taught the numerator layout writes the derivative as
    a row, the gradient's transpose, which the handout accepts where the answer says so (blind set 6)."""
    answer = f"{said}\n\n$$\\frac{{\\partial J}}{{\\partial v_c}} = {formula}$$"
    verdict = _verdict(questions, "2b-ii", answer)
    assert verdict.status == status, verdict.summary()


@pytest.mark.parametrize("mask, status", [
    ("$g = \\mathrm{diag}(m)$, where $m_k = 1$ if $a_k > 0$ and $m_k = 0$ otherwise", "equal"),
    ("$g = \\mathrm{diag}(m_1, \\ldots, m_{D_h})$ with $m_k = \\mathbb{1}[a_k > 0]$", "equal"),
    ("$g$ is diagonal, with $g_{kk} = 1$ if $a_k > 0$ and $0$ otherwise", "equal"),
    ("$g = \\mathrm{diag}(m)$, where $m_k = 1$ if $a_k \\geq 0$ and $m_k = 0$ otherwise", "not equal"),
    ("$g = \\mathrm{diag}(m)$, where $m_k = 0$ if $a_k > 0$ and $m_k = 1$ otherwise", "not equal"),
    ("$g = \\mathrm{diag}(m)$, where $m_k = k$ if $a_k > 0$ and $m_k = 0$ otherwise", "unreadable"),
])
def test_a_vector_of_the_answers_own_defined_entry_by_entry(questions, mask, status):
    """The ReLU's mask as a vector (or a diagonal matrix) defined by its entries, often by cases in
    words, then used whole (``\\mathrm{diag}(d)``): three held-out and blind sets had one."""
    answer = f"Let $a = xW + b_1$. $$\\frac{{\\partial h}}{{\\partial x}} = g\\,W^\\top$$ {mask}."
    verdict = _verdict(questions, "1c-i", answer, "parser")
    assert verdict.status == status, verdict.summary()


@pytest.mark.parametrize("question, answer, status", [
    ("2b-ii", "$ (partial J)/(partial v_c) = U^T (hat(y) - y) $", "equal"),
    ("2b-ii", "$ nabla_(v_c) J = sum_(w in V) hat(y)_w u_w - u_o $", "equal"),
    ("2b-ii", "$ (partial J)/(partial v_c) = U^T (y - hat(y)) $", "not equal"),
    ("1d-i", "$ (partial J)/(partial x) = ((hat(y) - y) W_2^T dot.circle h dot.circle (1 - h)) W_1^T $", "equal"),
    ("2c-i", "`(del J)/(del v_c) = (sigma(u_o^T v_c) - 1) u_o + sum_(k=1)^K sigma(u_(w_k)^T v_c) u_(w_k)`\n\n"
             "`(del J)/(del u_o) = (sigma(u_o^T v_c) - 1) v_c`\n\n`(del J)/(del u_(w_k)) = sigma(u_(w_k)^T v_c) v_c`",
     "equal"),
    ("2b-iii", "`(del J)/(del u_w) = {((hat y_o - 1) v_c, \"if \" w = o), (hat y_w v_c, \"if \" w != o):}`", "equal"),
    ("2b-iii", "`(del J)/(del u_w) = {((hat y_o - 1) v_c, \"if \" w = o), (-hat y_w v_c, \"if \" w != o):}`", "not equal"),
    ("2b-iv", "`(del J)/(del U) = (hat y - bb 1) v_c^T`, with `bb 1` the vector of ones", "not equal"),
    ("2b-iii", "{partial J} over {partial u_w} = left lbrace stack{ ( hat y_o - 1 ) v_c \" for \" w = o # "
               "hat y_w v_c \" for \" w <> o } right none", "equal"),
    ("2b-iii", "{partial J} over {partial u_w} = left lbrace stack{ hat y_o v_c \" for \" w = o # "
               "hat y_w v_c \" for \" w <> o } right none", "not equal"),
    ("2b-ii", "$$\\nabla_{v_c} J = \\mathbb{E}_{w \\sim \\hat y}[u_w] - u_o$$", "equal"),
    ("2b-ii", "∇_{v_c} J = 𝔼_{w∼ŷ}[u_w] + u_o", "not equal"),
    ("2b-iv", "**dJ/dU = (ŷ − y) v\\_cᵀ**, with v\\_c\\[i\\] the entries", "equal"),
])
def test_typst_and_asciimath_are_read_as_their_latex(questions, question, answer, status):
    """Blind set 12 wrote 18 answers in Typst and AsciiMath (a course forum's backticks) and two in
    LibreOffice Math: 11 right ones were unreadable on its first run. Each language is a table of
    spellings into LaTeX; an expectation over ŷ is its sum."""
    verdict = _verdict(questions, question, answer)
    assert verdict.status == status, verdict.summary()


@pytest.mark.parametrize("question, answer, status", [
    ("1c-i", "I write q for the softmax output ŷ and e for the one-hot y. Hence dCE/dθ = q - e.", "equal"),
    ("1c-i", "I write q for the softmax output ŷ and e for the one-hot y. Hence dCE/dθ = e - q.", "not equal"),
    ("2c-i", "Let me write a = u_oᵀv_c and b_k = u_{w_k}ᵀv_c.\n\n  ∂J/∂u_o = (σ(a) − 1) v_c\n  ∂J/∂v_c = (σ(a) − 1) u_o "
             "+ Σ_{k=1}^{K} σ(b_k) u_{w_k}\n  ∂J/∂u_{w_k} = σ(b_k) v_c\n\nCheck: with K = 1 and u_{w_1} = −u_o, "
             "∂J/∂v_c = (σ(a) − 1) u_o − σ(−a) u_o = −2σ(−a) u_o.", "equal"),
    ("2b-iv", "```python\nU_grad = torch.outer(yhat - y, vc)\n```\ndJ/dU = torch.outer(yhat - y, vc)", "equal"),
    ("1c-i", "```python\ny = torch.zeros(6); y[c] = 1\n```\nSo dCE/dtheta = yhat - y", "equal"),
])
def test_names_in_plain_words_special_cases_and_code(questions, question, answer, status):
    """Blind set 12's plain-text letters of the student's own ("I write q for ŷ", "let me write a =
    ..."), a check with values set after the results (no final formula), torch's outer product, and
    code that builds y (torch.zeros), which is no definition of the handout's y."""
    verdict = _verdict(questions, question, answer)
    assert verdict.status == status, verdict.summary()


@pytest.mark.parametrize("question, answer, status, assignment", [
    ("1c-i", "Check:\n\n    t = np.random.randn(5); y = np.eye(5)[1]\n\ndCE/dtheta = yhat - y", "equal", "word2vec"),
    ("1d-i", "% Octave, a batch of rows\ndX = ((Yhat - Y) * W2' .* H .* (1 - H)) * W1';", "equal", "word2vec"),
    ("1d-i", "% Octave, a batch of rows\ndX = ((Yhat - Y) * W2' .* H) * W1';", "not equal", "word2vec"),
    ("2b-ii", "In R: dJ/dvc = t(U) %*% (yhat - y)", "equal", "word2vec"),
    ("2b-ii", "In R: dJ/dvc = t(U) %*% (y - yhat)", "not equal", "word2vec"),
    ("2b-iii", "dJ/du_w = (yhat[w] - (w == o)) * vc", "equal", "word2vec"),
    ("2b-iii", "dJ/du_w = (yhat[w] - (w != o)) * vc", "not equal", "word2vec"),
    ("2c-i", "**∂J/∂v_c**\n= (σ(u_oᵀv_c) − 1) u_o + Σₖ₌₁ᴷ σ(u_{w_k}ᵀv_c) u_{w_k}\n\n**∂J/∂u_o** = (σ(u_oᵀv_c) − 1) v_c\n\n"
             "**∂J/∂u_{w_k}** = σ(u_{w_k}ᵀv_c) v_c", "equal", "word2vec"),
    ("2c-ii", "∂J/∂uw = q · σ(uwᵀvc) · vc, where q is the number of times w appears among w1, …, wK.", "equal", "word2vec"),
    ("1c-i", "Let S(t) = 1 for t > 0 and S(t) = 0 for t ≤ 0. Then dh/dx = diag(S(xW + b1)) W^T", "equal", "parser"),
    ("1c-i", "Let S(t) = 1 for t ≥ 0 and S(t) = 0 for t < 0. Then dh/dx = diag(S(xW + b1)) W^T", "not equal", "parser"),
    ("1c-i", "**∂h/∂x = diag(𝟙[xW + b₁ > 0]) Wᵀ** (Dₕ × n) ✅", "equal", "parser"),
    ("2b-ii", "% Matlab\ndJ/dvc = sum_w yhat(w) u_w - u_o", "equal", "word2vec"),
    ("2b-ii", "In R:\n\n    g <- t(U) %*% (yhat - y)\n\ngrad_vc <- t(U) %*% (yhat - y)", "equal", "word2vec"),
    ("1d-i", "1. δ₂ = ∂J/∂θ = ŷ − y\n2. δ₁ = ∂J/∂z₁ = (δ₂W₂ᵀ) ⊙ h ⊙ (1 − h)\n\nSo ∂J/∂x = δ₁W₁ᵀ ∈ ℝ^{1×Dₓ}.", "equal",
     "word2vec"),
    ("1d-i", "1. δ₂ = ∂J/∂θ = ŷ − y\n2. δ₁ = ∂J/∂z₁ = (δ₂W₂ᵀ) ⊙ h\n\nSo ∂J/∂x = δ₁W₁ᵀ.", "not equal", "word2vec"),
    ("1d-i", "```python\ndelta2 = Yhat - Y\ndelta1 = (delta2 @ W2.T) * H * (1 - H)\ndX = delta1 @ W1.T\n```", "equal",
     "word2vec"),
    ("1c-i", "∂h/∂x = D Wᵀ, where D = diag(𝟙[xW + b₁ > 0]) is the D_h × D_h diagonal matrix.", "equal", "parser"),
    ("2b-iv", "∂J/∂U = (ŷ − y) v_cᵀ ∈ ℝ^{|V|×d} ✔️ (same shape as U)", "equal", "word2vec"),
    ("2b-ii", "$$\\frac{\\partial J}{\\partial v_c} = U^\\top(p - y)$$ I write $p$ for $\\hat y = \\mathrm{softmax}(Uv_c)$.",
     "equal", "word2vec"),
    ("2b-iii", "% Matlab\ndJ/du_w = (yhat(w) + y(w)) * vc", "not equal", "word2vec"),
])
def test_code_of_other_languages_and_plain_text_layouts(questions, question, answer, status, assignment):
    """Blind set 13's first run: an indented code block that builds y, Octave's CS231n-style `dX`,
    R's `t(U) %*% ...`, Python's `(w == o)` as a number, a bold derivative alone with its value on
    "= ..." lines, subscripts flattened by Google Docs (`w1, …, wK`), and a step function given by
    two cases in a sentence."""
    verdict = _verdict(questions, question, answer, assignment)
    assert verdict.status == status, verdict.summary()


@pytest.mark.parametrize("definition, status", [
    ("$y_i = 1$ if $i = c$ and $y_i = 0$ otherwise", "equal"),
    ("$y_i = 1$ if $i = k$ and $0$ otherwise", "equal"),
    ("$y_i = \\mathbb{1}[i = k]$", "equal"),
    ("$y_i = 0$ if $i = c$ and $1$ otherwise", "not equal"),
    ("$y_i = \\mathbb{1}[i \\neq k]$", "not equal"),
])
def test_a_one_hot_defined_with_a_name_of_the_answer_s_own_for_its_class(questions, definition, status):
    """Part 1 names no class of y: "y_i = 1 if i = c" (issue 25's seed, once read as ŷ_i - 1, then as
    using an index no sum binds) restates the handout's one-hot under the student's own letter."""
    answer = r"$$\frac{\partial CE}{\partial \theta_i} = \hat y_i - y_i$$ where " + definition
    verdict = _verdict(questions, "1c-i", answer)
    assert verdict.status == status, verdict.summary()


@pytest.mark.parametrize("question, answer", [
    ("2b-ii", "So dJ/dvc = U^T (yhat - y)."),
    ("2b-ii", "dJ/dv_c = U^T(y_hat - y)"),
    ("2b-iv", "dJ/dU = (yhat - y) vc^T"),
    ("1c-i", "Hence dCE/dtheta = yhat - y"),
    ("2c-i", "dJ/duo = (sigma(uo^T vc) - 1) vc"),
    ("2b-iv", "∂J/∂U = (ŷ − y) v_cᵀ ∈ ℝ^{|V|×d}"),
    ("1c-i", "So dJ/dθ = yhat - y"),
    ("2b-ii", "dJ/dvc = -uo + sum_w yhat_w uw"),
    ("2b-iii", "for w = o: dJ/duw = (yhat_o - 1) vc\nfor w != o: dJ/duw = yhat_w vc"),
    ("2b-iii", "For w = o:\ndJ/duw = (ŷ_o − 1) v_c\n\nFor w ≠ o:\ndJ/duw = ŷ_w v_c"),
    ("2b-iii", "$$\\frac{\\partial J}{\\partial \\boldsymbol{u}_{w}}=\\left\\{\\begin{array}{ll}\n"
               "\\left(\\hat{y}_{o}-1\\right) \\boldsymbol{v}_{c} & w=o \\\\\n"
               "\\hat{y}_{w} \\boldsymbol{v}_{c} & w \\neq o\n\\end{array}\\right.$$"),
])
def test_plain_text_unicode_and_ocr_formulas_are_read(questions, question, answer):
    """Plain text, as typed without LaTeX: names run together (vc, uo, yhat) and ASCII derivatives;
    unicode with a trailing shape; Mathpix's cases (an array in a left brace)."""
    verdict = _verdict(questions, question, answer)
    assert verdict.status == "equal" or question == "2c-i" and verdict.parts[1].status == "equal", verdict.summary()


READ_AS_MEANT = [
    # --- classes of notation blind set 5's first run found unread (examples of our own)
    # an equation's number or name is not part of it
    ("2b-ii", r"\begin{equation} \frac{\partial J}{\partial v_c} = U^\top(\hat y - y) \label{eq:vc} \tag{3} \end{equation}"),
    # a transpose in a font, braced or not
    ("2b-iv", r"$$\frac{\partial J}{\partial U} = (\hat y - y) v_c^{\mathsf T}$$"),
    ("2b-iv", r"$$\frac{\partial J}{\partial U} = (\hat y - y) v_c^{\mathrm{T}}$$"),
    # numpy's notation: @ the matrix product, * entry by entry, .T
    ("1d-i", "dJ/dx = ((yhat - y) @ W2.T * h * (1 - h)) @ W1.T"),
    # the outer product as a symbol
    ("2b-iv", "∂J/∂U = (ŷ − y) ⊗ v_c"),
    # Iverson's bracket without a 1 before it; an index with braces
    ("2b-iii", r"$$\frac{\partial J}{\partial u_w} = (\hat y_w - [w = o])\, v_c$$"),
    ("2c-ii", r"$$\frac{\partial J}{\partial u_w} = \sum_{k=1}^{K} [w_{k} = w]\, \sigma(u_w^\top v_c) v_c$$"),
    # a dot typed between vectors; a range written below the sum
    ("2c-i", "dJ/dv_c = (sigma(u_o . v_c) - 1) u_o + sum_{k=1..K} sigma(u_{w_k} . v_c) u_{w_k}"),
    ("2c-ii", r"$$\frac{\partial J}{\partial u_w} = \sum_{k \in \{1, \dots, K\}: w_k = w} \sigma(u_w^\top v_c) v_c$$"),
    # a count with bars, its set's range written out
    ("2c-ii", r"$$\frac{\partial J}{\partial u_w} = \left|\{k \in \{1, \ldots, K\} : w_k = w\}\right| "
              r"\sigma(u_w^\top v_c) v_c$$"),
    # Kronecker's delta of a sample
    ("2c-ii", r"$$\frac{\partial J}{\partial u_w} = \sum_{k=1}^K \delta_{w, w_k} \sigma(u_w^\top v_c) v_c$$"),
    # a function the answer names with a letter of its own
    ("1d-i", r"With $f(t) = \sigma(t)(1 - \sigma(t))$: $$\frac{\partial J}{\partial x} = "
             r"\big((\hat y - y) W_2^\top \odot f(x W_1 + b_1)\big) W_1^\top$$"),
    # --- formulas blind set 5 wrote where they were not found
    # LaTeX typed without $, spaced as an OCR of handwriting gives it
    ("2b-ii", "theta = U v_c\n\ni.e. \\frac { \\partial J } { \\partial v _ { c } } = U ^ { T } ( \\hat { y } - y )   ( done )"),
    # the loss's derivative written J'(v_c), after an update rule that uses it
    ("2b-ii", "J'(v_c) = U^T (yhat - y)\nso v_c <- v_c - lr * J'(v_c) = v_c - lr * U^T (yhat - y)"),
    # GitHub's math block
    ("2b-iv", "As one matrix:\n\n```math\n\\frac{\\partial J}{\\partial U} = (\\hat y - y) v_c^\\top\n```\n"),
    # a definition in a sentence, and a name of several letters defined in plain text
    ("1d-i", "Let q(t) = σ(t)(1 − σ(t)) denote σ′.\n\n∂J/∂x = [(ŷ − y)W₂ᵀ ⊙ q(xW₁ + b₁)] W₁ᵀ"),
    ("1c-i", "scores = exp(theta) / sum(exp(theta))\n\nso dCE/dtheta = scores - y"),
    # --- what a student trial typed
    # the next sentence is no part of the formula (once read as "= y", the end of "... iff yhat = y")
    ("2b-ii", "dJ/dvc = U^T (yhat - y). This is zero iff yhat = y."),
    ("2b-ii", "dJ/dvc = U.T @ (yhat - y) . It is zero when yhat = y."),
    # a dot typed between names written together
    ("2c-i", "dJ/dvc = (sigma(uo . vc) - 1) uo + sum_{k=1}^K sigma(u_{w_k} . vc) u_{w_k}\n"
             "dJ/duo = (sigma(uo . vc) - 1) vc\ndJ/du_{w_k} = sigma(u_{w_k} . vc) vc"),
    # a word in brackets after a definition is commentary
    ("1d-i", "Let delta = (yhat - y) W2^T ⊙ h ⊙ (1 - h) (elementwise).\n\ndJ/dx = delta W1^T"),
    # --- what blind set 6's first run found unread
    # an equation editor's letters, and a hat typed as a combining mark
    ("1c-i", "∂CE/∂𝜽 = 𝒚\u0302 − 𝒚"),
    # other operators of gradients
    ("1d-i", r"$$D_x J = \big((\hat y - y) W_2^\top \odot h \odot (1 - h)\big) W_1^\top$$"),
    ("2b-ii", r"$$\operatorname{grad}_{v_c} J = U^\top (\hat y - y)$$"),
    ("2b-ii", "grad_vc = U'*(yhat - y)"),
    # phone-typed: lower case, a case at a line's start
    ("1c-i", "answer: dce/dtheta=yhat-y"),
    ("2b-iii", "w=o: dj/duw=(yhat_o-1)vc\nw!=o: dj/duw=yhat_w vc"),
    # Julia's and Matlab's operators entry by entry
    ("1d-i", "dJ/dx = ((yhat .- y)*W2' .* h .* (1 .- h))*W1'"),
    # a count typed with #, a shape said after the formula, an implication in unicode
    ("2c-ii", "dJ/duw = #{k : w_k = w} σ(u_wᵀv_c) v_c"),
    ("1c-i", "∂CE/∂θ = ŷ − y   (D_y x 1)"),
    ("2b-ii", "∂J/∂v_c = U^T(ŷ − y)\n\n∂J/∂v_c = 0 ⟺ U^T ŷ = u_o"),
    # a name of the answer's own in \mathrm
    ("2b-ii", r"Let $\mathrm{err} = \hat y - y$. Then $$\frac{\partial J}{\partial v_c} = U^\top \mathrm{err}$$"),
    # --- what blind set 7's first run found unread: Word's linear format (examples of our own)
    ("2b-ii", "(∂J)/(∂v_c )=U^T (y ̂-y)"),
    ("2b-ii", "(∂J)/∂v_c=-u_o+∑_w▒〖y ̂_w u_w 〗"),
    # the samples' vectors as the rows or the columns of a matrix of the answer's own
    ("2c-i", r"Let $U_K = [u_{w_1}, \ldots, u_{w_K}] \in \mathbb{R}^{d \times K}$. $$\frac{\partial J}{\partial v_c} = "
             r"(\sigma(u_o^\top v_c) - 1)u_o + U_K \sigma(U_K^\top v_c)$$"),
    # --- what blind set 8's first run found unread (examples of our own)
    # Mathpix's cases with its spaces and each cell in braces
    ("2b-iii", r"\frac { \partial J } { \partial u _ { w } } = \left\{ \begin{array} { c l } { \hat { y } _ { w } v _ { c } } & "
               r"{ w \neq o } \\ { ( \hat { y } _ { o } - 1 ) v _ { c } } & { w = o } \end{array} \right."),
    # numpy's outer product; the k-th sample typed u_wk; helpers defined with a typed dot
    ("2b-iv", "dJ/dU = np.outer(yhat - y, vc)"),
    ("2c-i", "Let so = sigma(uo . vc) and sk = sigma(u_wk . vc).\n\ndJ/dvc = (so - 1) uo + sum_{k=1}^K sk u_wk\n"
             "dJ/duo = (so - 1) vc\ndJ/du_wk = sk vc"),
    # a count said in words whose range is typed with two dots
    ("2c-ii", "dJ/du_w = r * sigma(u_w^T v_c) * v_c\n\nwhere r is the count of w among w_1..w_K."),
    # a power written on a function's name: \sigma^2(z) is (\sigma(z))^2
    ("1d-i", r"$$\frac{\partial J}{\partial x} = \big((\hat y - y) W_2^\top \odot (\sigma(z_1) - \sigma^2(z_1))\big) W_1^\top$$"),
    # handout vectors defined entry by entry, nested, each entry read in every term of two sums
    ("1d-i", r"With $z_i = \sum_j x_j (W_1)_{ji} + (b_1)_i$ and $h_i = \sigma(z_i)$: $$\frac{\partial J}{\partial x_j} = "
             r"\sum_{i}\sum_{k}(\hat y_k - y_k)(W_2)_{ik}\,h_i(1-h_i)\,(W_1)_{ji}$$"),
    # --- what blind set 9's first run found unread (examples of our own)
    # a tick after the formula; a comment after code
    ("2b-ii", "∂J/∂v_c = Uᵀ(ŷ − y) ✓"),
    ("2b-ii", "dJ/dvc = U.T @ (yhat - y) # a d-vector"),
    # an entry of a family's part by index notation, inside a sum over the entries
    ("2c-ii", r"$$\frac{\partial J}{\partial u_{w,i}} = \#\{k : w_k = w\}\,"
              r"\sigma\Big(\sum_{j=1}^{d} u_{w,j} v_{c,j}\Big) v_{c,i}$$"),
    # a sum whose range is the length of what it picks an entry of
    ("1c-i", r"$$\frac{\partial CE}{\partial \theta_i} = \frac{\exp(\theta)_i}{\sum_k \exp(\theta)_k} - y_i$$"),
    # a case said on its own line, a blank line, then its display
    ("2b-iii", "If $w = o$:\n\n$$\\frac{\\partial J}{\\partial u_w} = (\\hat y_o - 1) v_c$$\n\n"
               "If $w \\neq o$:\n\n$$\\frac{\\partial J}{\\partial u_w} = \\hat y_w v_c$$"),
    # the k-th sample typed u_w_k, in LaTeX and with a unicode subscript
    ("2c-i", r"$$\frac{\partial J}{\partial u_{w_k}} = \sigma(u_w_k^\top v_c)\,v_c$$ and "
             r"$$\frac{\partial J}{\partial v_c} = (\sigma(u_o^\top v_c) - 1) u_o + \sum_k \sigma(u_w_k^\top v_c) u_w_k$$"),
    ("2c-i", "∂J/∂v_c = (σ(u_oᵀv_c) − 1) u_o + Σₖ σ(u_wₖᵀv_c) u_wₖ\n∂J/∂u_o = (σ(u_oᵀv_c) − 1) v_c\n"
             "∂J/∂u_wₖ = σ(u_wₖᵀv_c) v_c"),
    # --- what blind set 10's first run found unread (examples of our own)
    # letters of the answer's own, said in words: "I write q for y-hat"
    ("1c-i", r"I write $q$ for $\hat y$ and $t$ for the one-hot $y$. $$\frac{\partial CE}{\partial \theta} = q - t$$"),
    ("2b-ii", "Let g denote ŷ − y.\n\n∂J/∂v_c = Uᵀ g"),
    # a bold label before a formula typed without $
    ("2b-ii", "**Final:** ∂J/∂v_c = Uᵀ(ŷ − y)"),
    ("1c-i", "**Result.** dCE/dtheta = yhat - y"),
    # numpy's index brackets
    ("2b-iii", "for w = o:\n  dJ/du_o = (yhat[o] - 1) * vc\nfor w != o:\n  dJ/du_w = yhat[w] * vc"),
    # a line of code with a comment, continued on the next line
    ("2b-ii", "grad_vc = U.T @ (yhat - y)   # a d-vector, like vc\n        = sum_w yhat[w]*u_w - u_o"),
    # Word's cases: a matrix in a brace
    ("2b-iii", r"\frac{\partial J}{\partial u_w}=\left\{\begin{matrix}\hat{y}_{w}v_{c}, & w\neq o\\"
               r"\left(\hat{y}_{o}-1\right)v_{c}, & w=o\\\end{matrix}\right."),
    # --- what blind set 11's first run found unread (examples of our own)
    # bold around a formula typed without $, an emoji before a bold label
    ("2b-iv", "Stacking the rows:\n\n**∂J/∂U = (ŷ − y) v_cᵀ**\n\nShape ✔️ |V| × d, like U."),
    ("2b-ii", "✨ **Gradient:** ∂J/∂v_c = Uᵀ(ŷ − y)"),
    # a module's name before a function in code with @
    ("1d-i", "h = torch.sigmoid(x @ W1 + b1)\n\ndJ/dx = ((yhat - y) @ W2.T * h * (1 - h)) @ W1.T"),
    # a definition of a letter of the student's own that is longer than the letter
    ("1c-i", r"I write $q = \mathrm{softmax}(\theta)$ for the handout's $\hat y$ and $t$ for the one-hot label $y$."
             r" $$\frac{\partial CE}{\partial \theta} = q - t$$"),
    # LaTeX typed without $ (a transcription), a name defined by a chain through a derivative
    ("1d-i", "\\delta _ { 2 } = \\frac { \\partial J } { \\partial \\theta } = \\hat { y } - y\n\n"
             "\\delta _ { 1 } = \\frac { \\partial J } { \\partial z _ { 1 } } = \\delta _ { 2 } W _ { 2 } ^ { T } "
             "\\circ h \\circ ( 1 - h )\n\n\\frac { \\partial J } { \\partial x } = \\delta _ { 1 } W _ { 1 } ^ { T }"),
    # names defined in a Markdown table
    ("2c-i", "| name | value |\n| --- | --- |\n| $p$ | $\\sigma(u_o^\\top v_c) - 1$ |\n"
             "| $q_k$ | $\\sigma(u_{w_k}^\\top v_c)$ |\n\n"
             "$$\\frac{\\partial J}{\\partial v_c} = p\\, u_o + \\sum_{k=1}^K q_k\\, u_{w_k}$$"),
    # a count named with several letters in plain text, said in words below the formula
    ("2c-ii", "dJ/du_w = num * sigma(u_w^T v_c) * v_c\n\nnum = how many of the K samples are w"),
    # a derivative alone on an aligned block's first row, its value on the next
    ("2b-ii", r"$$\begin{aligned}\frac{\partial J}{\partial v_c} \\ &= U^\top(\hat y - y)\end{aligned}$$"),
    # a count with plain braces, and a word after its definition
    ("2c-ii", "With r = |{k : w_k = w}| draws of w:\n\n∂J/∂u_w = r · σ(u_wᵀv_c) · v_c"),
]


@pytest.mark.parametrize("question, answer", READ_AS_MEANT)
def test_formulas_students_write_are_read_as_meant(questions, question, answer):
    """Each is a right answer and judged equal (a 2c-i answer may give only the derivative for v_c)."""
    verdict = _verdict(questions, question, answer)
    assert verdict.status == "equal" or question == "2c-i" and verdict.parts[0].status == "equal", verdict.summary()


@pytest.mark.parametrize("assignment, question, answer, status", [
    # the handout's name p (for y-hat) defined entry by entry, wrongly: its definition, not y-hat
    ("parser", "1c-ii", r"$$\frac{\partial J}{\partial l} = p - y$$ where $p_k = \frac{e^{l_k}}{\sum_{c \neq k} e^{l_c}}$",
     "not equal"),
    ("parser", "1c-ii", r"$$\frac{\partial J}{\partial l} = p - y$$ where $p_k = \frac{e^{l_k}}{\sum_{c} e^{l_c}}$", "equal"),
    # a layout the answer says it uses is the one it is judged in (blind set 9's one false equal)
    ("parser", "1c-i", r"In denominator layout: $$\frac{\partial h}{\partial x} = \mathrm{diag}(\mathbb{1}[xW + b_1 > 0]) W^\top$$",
     "not equal"),
    ("parser", "1c-i", r"In denominator layout: $$\frac{\partial h}{\partial x} = W \mathrm{diag}(\mathbb{1}[xW + b_1 > 0])$$",
     "equal"),
    # the one-hot said in words to be another word's: not the handout's y
    ("word2vec", "2b-iv", "∂J/∂U = (ŷ − y) v_cᵀ\n\nHere y is the one-hot vector of the center word c.", "unreadable"),
    ("word2vec", "2b-iv", "∂J/∂U = (ŷ − y) v_cᵀ\n\nHere y is the one-hot vector of the outside word o.", "equal"),
    # a size set to a number in a sanity check is a special case, not a definition (blind set 11's false
    # equal read 1/K as 1/1); a size as a value is not read
    ("word2vec", "2c-i", r"$$\boxed{\frac{\partial J}{\partial v_c} = (\sigma(u_o^\top v_c) - 1) u_o + \frac1K"
                         r"\sum_{k=1}^K \sigma(u_{w_k}^\top v_c) u_{w_k}}$$ $$\boxed{\frac{\partial J}{\partial u_o} = "
                         r"(\sigma(u_o^\top v_c) - 1) v_c}$$ $$\boxed{\frac{\partial J}{\partial u_{w_k}} = \frac1K "
                         r"\sigma(u_{w_k}^\top v_c) v_c}$$" "\n\n" r"For $K = 1$ it is logistic regression, and "
                         r"the gradient becomes $\frac{\partial J}{\partial v_c} = (\sigma(u_o^\top v_c)-1)u_o + "
                         r"\sigma(u_{w_1}^\top v_c)u_{w_1}$.", "unreadable"),
    # a handout's name defined below a helper that uses it: the helper means the answer's y-hat (blind set 10)
    ("word2vec", "2b-ii", r"$$\frac{\partial J}{\partial v_c} = U^\top g$$ where $g = \hat y - y$ and "
                          r"$\hat y = \sigma(U v_c)$.", "not equal"),
    ("word2vec", "2b-ii", r"$$\frac{\partial J}{\partial v_c} = U^\top g$$ where $g = \hat y - y$ and "
                          r"$\hat y = \mathrm{softmax}(U v_c)$.", "equal"),
])
def test_a_handout_name_the_answer_defines_otherwise_means_its_definition(questions, assignment, question, answer,
                                                                         status):
    """Blind set 7's two false "equal": a name of the handout defined entry by entry, or in words,
    as something else."""
    verdict = _verdict(questions, question, answer, assignment)
    assert verdict.status == status, verdict.summary()


@pytest.mark.parametrize("answer, status", [
    ("Answer: dh/dx = (x @ W + b1 > 0).T * W.T", "equal"),
    ("Answer: dh/dx = (x @ W + b1 >= 0).T * W.T", "not equal"),
    # numpy's index brackets on a matrix (blind set 10)
    ("z = x @ W + b1\n\nAnswer: dh_i/dx_j = (z_i > 0) * W[j, i]", "equal"),
])
def test_a_numpy_mask_is_an_indicator(questions, answer, status):
    """A comparison in brackets, as numpy writes a mask, is 1 where it holds (blind set 8)."""
    verdict = _verdict(questions, "1c-i", answer, "parser")
    assert verdict.status == status, verdict.summary()


def test_a_formula_that_starts_with_an_unknown_word_says_so(questions):
    verdict = _verdict(questions, "2c-ii", "dJ/duw = count(w) * sigma(uw . vc) vc")
    assert "it starts with 'count', which is no symbol or function" in verdict.summary()


@pytest.mark.parametrize("question, answer, status", [
    ("2b-iv", r"$$\frac{\partial J}{\partial U_{w,i}} = (\hat y_w - y_w)\, v_{c,i}$$", "equal"),
    ("2b-iv", r"$$\frac{\partial J}{\partial U_{wi}} = (\hat y_w - y_w)\, (v_c)_i$$", "equal"),
    ("2b-ii", r"$$\frac{\partial J}{\partial v_{c,i}} = \sum_w (\hat y_w - y_w) U_{w,i}$$", "equal"),
    ("2b-iv", r"$$\frac{\partial J}{\partial U_{w,i}} = (y_w - \hat y_w)\, v_{c,i}$$", "not equal"),
    ("2b-ii", r"$$\frac{\partial J}{\partial v_{c,i}} = \sum_w (\hat y_w - y_w) U_{i,w}$$", "not equal"),
])
def test_an_entry_of_a_matrix_or_of_a_named_vector_with_commas(questions, question, answer, status):
    """Index notation as handwriting has it: U_{w,i} and v_{c,i} (entry i of v_c)."""
    verdict = _verdict(questions, question, answer)
    assert verdict.status == status, verdict.summary()


def test_a_formula_in_code_below_an_answer_is_not_its_final_formula(questions):
    """Code that implements the answer (grad_v_c = ... in a fenced block) does not replace the
    formula written above it; alone, it is read."""
    formula = r"$$\frac{\partial J}{\partial v_c} = U^\top(\hat y - y)$$"
    code = "\n\n```python\ngrad_vc = U[o] @ (yhat - y)\n```\n"
    assert _verdict(questions, "2b-ii", formula + code).status == "equal"
    assert _verdict(questions, "2b-ii", "```python\ngrad_vc = U.T @ (yhat - y)\n```").status == "equal"


def test_a_word_glued_to_a_symbol_is_no_commentary(questions):
    """'probs' in the parser is no ŷ (its spelling p) followed by the word 'robs'."""
    verdict = _verdict(questions, "1c-ii", "dJ/dl = probs - y", "parser")
    assert verdict.status == "unreadable", verdict.summary()


def test_a_function_of_the_answer_s_own_means_what_it_defines(questions):
    """g(z) defined wrongly is read as defined; defined in words, it is unreadable and says so."""
    wrong = (r"Let $g(z) = \sigma(z)\sigma(1 - z)$. $$\frac{\partial J}{\partial x} = "
             r"\big((\hat y - y) W_2^\top \odot g(x W_1 + b_1)\big) W_1^\top$$")
    assert _verdict(questions, "1d-i", wrong).status == "not equal"
    words = (r"Let $r(t) = 1$ if $t > 0$ and $0$ otherwise. $$\frac{\partial h}{\partial x} = "
             r"\operatorname{diag}(r(xW + b_1)) W^\top$$")
    verdict = _verdict(questions, "1c-i", words, "parser")
    assert verdict.status in ("equal", "unreadable"), verdict.summary()


@pytest.mark.parametrize("rewrite", REWRITES, ids=[r.meaning for r in REWRITES])
def test_every_spelling_becomes_the_latex_its_row_says(rewrite):
    """Each row's example of the spellings' table is read as the LaTeX the row says."""
    assert [t.text for t in tokens(rewrite.written)] == [t.text for t in tokenised(rewrite.latex)]


@pytest.mark.parametrize("spelling", SPELLINGS, ids=[s.written[:40] for s in SPELLINGS])
def test_every_notation_the_handouts_list_is_read(questions, spelling):
    """The catalogue the handouts' notation table is written from: each row's example is equal."""
    verdict = _verdict(questions, spelling.question, spelling.example, spelling.assignment)
    assert verdict.status == "equal", verdict.summary()


def test_a_name_whose_definition_cannot_be_read_means_nothing_else(questions):
    """a_2 is the answer's own name; with its definition unreadable it must not become entry 2 of h
    (a, a spelling of h, with a subscript), and the message says what is missing."""
    missing = (r"$$\frac{\partial J}{\partial x} = a_1 W_1^T$$ where $a_1 = a_2 \odot \sigma'(z_1)$ and "
               r"$a_2 = g W_2^T$.")
    verdict = _verdict(questions, "1d-i", missing)
    assert verdict.status == "unreadable", verdict.summary()
    assert "a_{2} is defined as 'g W_2^T', which cannot be read: g is not a symbol" in verdict.parts[0].note
    circular = (r"$$\frac{\partial J}{\partial x} = \delta_1 W_1^T$$ where $\delta_1 = \delta_2 \odot "
                r"\sigma'(z_1)$ and $\delta_2 = \delta_1 W_2^T$.")
    verdict = _verdict(questions, "1d-i", circular)
    assert verdict.status == "unreadable" and "delta_{1} is defined as" in verdict.parts[0].note, verdict.summary()


# ------------------------------------------------------------------------- the reference and the labelled set


@pytest.mark.smoke
@pytest.mark.parametrize("name", [name for name in available_assignments() if handout_data(name).derivations])
def test_reference_answers_are_read_and_judged_equal(name):
    """For every assignment here with derivations (a new one too): its reference answers' final
    formulas are judged equal to its reference formulas."""
    assignment = load_assignment(name)
    sheet = read_answers(REPO / "solutions" / "written" / f"{name}.md", assignment.config)
    for question, derivation in derivation_questions(assignment).items():
        verdict = judge(sheet.text(question), derivation)
        assert verdict.status == "equal", f"{question}: {verdict.summary()}"


@pytest.mark.parametrize("path", LABELLED, ids=lambda path: path.stem)
def test_labelled_answers_never_false_equal_and_mostly_recognised(questions, path):
    """The benchmark's goals (benchmarks/derivations.py), on the set at hand while the reader was
    written and on the one held out: no wrong answer judged equal, at least 90 % of the right ones
    recognised (set 6, written as students far from the handout's notation write: 79 % for now)."""
    labelled = yaml.safe_load(path.read_text())
    assert len({(item["assignment"], item["question"]) for item in labelled}) == 9 and len(labelled) >= 90
    false_equal, right, recognised = [], 0, 0
    for item in labelled:
        verdict = judge(item["answer"], questions[item["assignment"]][item["question"]])
        if item["label"] == "wrong" and verdict.status == "equal":
            false_equal.append(item["id"])
        if item["label"] == "right":
            right += 1
            recognised += verdict.status == "equal"
    assert false_equal == []
    assert recognised >= LABELLED[path] * right, f"{recognised} of {right} right answers recognised"


def test_a_notation_the_reader_cannot_read_is_refused_with_every_problem_located(tmp_path, monkeypatch):
    """Issue 26's RNN trial: a spelling in handout.py that is no one symbol ('Wx', then
    'dh_{next}', one per run) zeroed every code question of the reference with a traceback. Every
    problem is now said at once, with the file and line, before anything is graded."""
    import types

    from autograder.core.config import ConfigError
    from autograder.written import handout_data as module_under_test
    from autograder.written.derivations.notation import Notation, Symbol
    from autograder.written.derivations.verdict import DerivationQuestion

    source = tmp_path / "handout.py"
    source.write_text('LAYER = Notation(\n    symbols=(\n        Symbol("Wx", "matrix"),\n'
                      '        Symbol("dh_{next}", "vector"),\n        Symbol("h", "vector", define="x W +"),\n    ),\n)\n')
    notation = Notation(dims={"n": 2}, vectors="row", symbols=(
        Symbol("x", "vector", ("n",)), Symbol("W", "matrix", ("n", "n")), Symbol("Wx", "matrix", ("n", "n")),
        Symbol("dh_{next}", "vector", ("n",)), Symbol("h", "vector", ("n",), define="x W +")))
    fake = types.SimpleNamespace(__file__=str(source), DERIVATIONS={"1a": DerivationQuestion(notation, (), ())})
    monkeypatch.setattr(module_under_test, "optional_module", lambda name: fake)
    with pytest.raises(ConfigError) as refused:
        module_under_test.declared_derivations("rnncell")
    message = str(refused.value)
    assert "has 2 problem(s)" in message
    assert f"{source}:3: 'Wx' (a spelling of Wx) is not one symbol: write" in message
    assert f"{source}:4: 'dh_{{next}}' (a spelling of dh_{{next}}) is not one symbol" in message
    fixed = Notation(dims={"n": 2}, vectors="row", symbols=(
        Symbol("x", "vector", ("n",)), Symbol("W", "matrix", ("n", "n")), Symbol("h", "vector", ("n",), define="x W +")))
    fake.DERIVATIONS = {"1a": DerivationQuestion(fixed, (), ())}
    with pytest.raises(ConfigError, match=r"handout.py:5: 'x W \+' \(the definition of h\) cannot be read: it ends too soon"):
        module_under_test.declared_derivations("rnncell")
