"""Written answers: finding them (headings, notebook cells), checking them, reading final formulas."""

from __future__ import annotations

import os
import re
import subprocess

import nbformat
import pytest

from autograder.assignments.parser.handout import ANSWER_FORMATS
from autograder.core.config import load_assignment
from autograder.grading import testing
from autograder.grading.runner import collect_tests, run_tests
from autograder.written.answer_file import MAX_ANSWER_BYTES
from autograder.written.answers import AnswerSheet, AnswersError, choose_answer_sheet, read_answers, read_markdown
from autograder.written.check_written import check_answers
from autograder.written.expressions import ExpressionError, compare, read_formula
from autograder.written.formats import AnswerFormatError, FormulaAnswer
from autograder.written.labels import Label, match_label, read_label
from autograder.written.latex import scan
from tests.conftest import PYTHON

pytestmark = pytest.mark.smoke  # also run on Python 3.10 and the newest Python (.ci/run)

PARSER = load_assignment("parser")
PARSER_IDS = [q.id for q in PARSER.config.written_questions]


@pytest.mark.parametrize("heading, expected", [
    ("2a-i. The transition table (3 points; written, auto-graded)", "2a-i"),
    ("2a (i)", "2a-i"), ("2(a)(i)", "2a-i"), ("Question 2a.i", "2a-i"), ("**2a (ii)**", "2a-ii"),
    ("Q1c-ii:", "1c-ii"), ("Problem 2a.ii the count", "2a-ii"), ("2aii", "2a-ii"),
])
def test_headings_that_name_a_question(heading, expected):
    assert match_label(read_label(heading), PARSER_IDS).question == expected


@pytest.mark.parametrize("heading", ["A note", "I think", "Derivation", "Appendix", "My notes on Adam"])
def test_ordinary_headings_are_not_labels(heading):
    assert read_label(heading) is None


@pytest.mark.parametrize("heading, question", [("(b)(i)", "1b-i"), ("b-i", "1b-i"), ("b.i", "1b-i"),
                                               ("(c)(ii)", "1c-ii")])
def test_labels_without_a_number_are_placed_when_unambiguous(heading, question):
    assert match_label(read_label(heading), PARSER_IDS).question == question


def test_an_ambiguous_label_is_reported():
    found = match_label(Label(None, "a", "i"), PARSER_IDS)  # 1a-i or 2a-i
    assert found.question is None and "1a-i or 2a-i" in found.problem


ANSWERS = """\
Name: Ada Lovelace

# Part 1
## (a)(i)
Averaging cancels the noise.
### Derivation
$m_t = (1-\\beta_1) \\sum_k \\beta_1^{t-k} g_k$
## a-ii
Rare parameters get larger steps.
## b (i)
Answer: $1/(1-p_{drop})$

# 2a
Some text under 2a itself.
## (i)
| Stack | Buffer | Transition |
## 2a.ii
Answer: 2n
## 2c (i)
A question that does not exist.
## Notes
To myself.
"""


def test_markdown_answers_are_placed_by_their_headings_and_the_rest_reported():
    sheet = AnswerSheet(source="written.md")
    read_markdown(ANSWERS, PARSER_IDS, sheet)
    assert sheet.text("1a-i").startswith("Averaging") and "### Derivation" in sheet.text("1a-i")
    assert sheet.text("1a-ii") == "Rare parameters get larger steps."
    assert sheet.text("1b-i") == "Answer: $1/(1-p_{drop})$"
    assert sheet.text("2a-i").startswith("| Stack") and sheet.text("2a-ii") == "Answer: 2n"
    assert sheet.answers["1a-i"].where == "line 4 ('(a)(i)')"
    assert [u.excerpt for u in sheet.unplaced] == ["Name: Ada Lovelace", "Some text under 2a itself.",
                                                   "A question that does not exist.", "To myself."]
    assert sheet.unplaced[-1].where == "line 22 (under the heading 'Notes')"
    assert sheet.problems == ["line 19: the heading '2c (i)' names no question: there is no written question "
                              "2c-i; is it 1c-i?"]


def test_a_question_answered_twice_keeps_the_first_and_says_so():
    sheet = AnswerSheet(source="written.md")
    read_markdown("## 1a-i\nfirst\n## 1a (i)\nsecond\n", PARSER_IDS, sheet)
    assert sheet.text("1a-i") == "first"
    assert sheet.problems == ["1a-i is answered twice (line 1 ('1a-i') and line 3 ('1a (i)')); only the "
                              "first is read: keep your answer in one place (if one only points to the other, "
                              "delete it)"]


def test_a_line_of_an_answer_continued_in_an_added_cell_is_named_by_its_cell():
    """check-written names the cell a line is in, as Jupyter shows it, not a line of the whole answer."""
    sheet = AnswerSheet(source="w.ipynb")
    sheet.add("1c-ii", "first line\nsecond", "cell 20", file="cell 20")
    sheet.extend("1c-ii", "\nmore\nthe formula", "cell 21", file="cell 21")
    answer = sheet.answers["1c-ii"]
    assert answer.text.splitlines()[4] == "the formula"
    assert (answer.position(2), answer.position(5)) == ("cell 20, line 2", "cell 21, line 3")


def test_notebook_answers_come_from_tagged_cells_and_added_cells(tmp_path, repo):
    notebook = nbformat.read(repo / "handouts" / "parser.ipynb", as_version=4)
    cell = next(c for c in notebook.cells if c.get("id") == "answer-1b-ii")
    cell.source = "Dropout regularises training."
    notebook.cells.append(nbformat.v4.new_markdown_cell("## 2a-ii\nAnswer: $2n$", id="mine"))
    notebook.cells.append(nbformat.v4.new_markdown_cell("## Scratch\nscratch notes", id="scratch"))
    path = tmp_path / "parser.ipynb"
    nbformat.write(notebook, path)
    sheet = read_answers(path, PARSER.config)
    assert sheet.text("1b-ii") == "Dropout regularises training."
    assert sheet.answers["1b-ii"].where.startswith("cell ")
    assert sheet.text("2a-ii") == "Answer: $2n$"
    assert sheet.text("2a-i") == ""  # the handout's template table alone is no answer
    assert [u.excerpt for u in sheet.unplaced] == ["scratch notes"]


def _notebook_answers(repo, tmp_path, edit) -> AnswerSheet:
    notebook = nbformat.read(repo / "handouts" / "parser.ipynb", as_version=4)
    edit(notebook)
    path = tmp_path / "parser.ipynb"
    nbformat.write(notebook, path)
    return read_answers(path, PARSER.config)


def test_a_cell_added_below_an_answer_cell_continues_that_answer(tmp_path, repo):
    def edit(notebook):
        index = next(i for i, c in enumerate(notebook.cells) if c.get("id") == "answer-1b-i")
        notebook.cells.insert(index + 1, nbformat.v4.new_markdown_cell(
            "Kept units must make up for the dropped ones.\n\nAnswer: $\\frac{1}{1-p_{drop}}$", id="mine"))

    sheet = _notebook_answers(repo, tmp_path, edit)
    assert sheet.text("1b-i").endswith("Answer: $\\frac{1}{1-p_{drop}}$") and sheet.unplaced == []


@pytest.mark.parametrize("added", [
    "Worked out in code:\n\n```python\n# the scale that keeps the mean\ngamma = 1 / (1 - p_drop)\n```",
    "A note\n\n    # indented code, not a heading",
])
def test_a_hash_in_code_of_an_added_cell_is_no_heading(tmp_path, repo, added):
    """A ``#`` comment in a code block of a cell added below an answer: the cell continues the answer."""
    def edit(notebook):
        index = next(i for i, c in enumerate(notebook.cells) if c.get("id") == "answer-1b-i")
        notebook.cells.insert(index + 1, nbformat.v4.new_markdown_cell(added, id="mine"))

    sheet = _notebook_answers(repo, tmp_path, edit)
    assert added.splitlines()[-2].strip() in sheet.text("1b-i") and sheet.unplaced == []


def test_a_notebook_whose_tags_were_lost_reads_by_the_handout_s_headings(tmp_path, repo):
    """Copying cells into a new notebook drops their metadata: the handout's question headings
    then open the answers, and each answer cell below continues its question."""
    def edit(notebook):
        for cell in notebook.cells:
            cell.metadata = {}
            if cell.get("id") == "answer-1b-i":
                cell.source = "Answer: $\\frac{1}{1-p_{drop}}$"

    sheet = _notebook_answers(repo, tmp_path, edit)
    assert sheet.text("1b-i").endswith("Answer: $\\frac{1}{1-p_{drop}}$")
    assert ANSWER_FORMATS["1b-i"].describe(sheet.text("1b-i")).startswith("final answer read as 1 / (1 - p_drop)")


def test_math_problems_are_found_with_their_line():
    spans, problems = scan("fine $a*b$ and `$not math$`\n\n$\\frac12 never closed\n\nnext\n$$\x0crac{1}{2}$$")
    assert len(spans) == 2
    assert problems[0] == (3, "the $ before '$\\frac12 never closed' is never closed")
    assert problems[1][0] == 6 and "U+000C" in problems[1][1] and "\\frac" in problems[1][1]


@pytest.mark.parametrize("answer", ["1/(1-p_drop)", "$\\gamma = \\frac{1}{1-p_{\\text{drop}}}$",
                                    "$\\frac{1}{1 - p}$", "$(1-p_{drop})^{-1}$", "γ = 1 / (1 − p_drop)",
                                    "**$\\dfrac{1}{1-p_\\mathrm{drop}}$**"])
def test_formulas_for_gamma_in_many_notations(answer):
    formula = read_formula(answer, {"p_drop": ("p",)})
    assert compare(formula, lambda v: 1 / (1 - v["p_drop"]), [{"p_drop": p} for p in (0.1, 0.5, 0.8)]) is None


@pytest.mark.parametrize("answer", ["2n", "2 n", "n + n", "$2n$ transitions", "2 \\cdot n", "2×n"])
def test_formulas_for_the_number_of_transitions(answer):
    formula = read_formula(answer, {"n": ()})
    assert compare(formula, lambda v: 2 * v["n"], [{"n": n} for n in (1, 2, 7)]) is None


def test_a_wrong_formula_says_where_it_differs():
    formula = read_formula("1/p_drop", {"p_drop": ()})
    assert compare(formula, lambda v: 1 / (1 - v["p_drop"]), [{"p_drop": 0.1}]) == \
        "at p_drop = 0.1 it gives 10, but the right value is 1.11111"


@pytest.mark.parametrize("answer, message", [("__import__('os').system('x')", "cannot be read from '_' on"),
                                             ("q + 1", "q is not a symbol of this question's notation (its variables: n)"),
                                             ("\\sqrt{n}", "it uses '\\sqrt', which this reader does not know"),
                                             ("(2n", "it ends too soon")])
def test_what_is_not_a_formula_is_refused_without_running_it(answer, message):
    with pytest.raises(ExpressionError, match=re.escape(message)):
        read_formula(answer, {"n": ()})


GAMMA = (FormulaAnswer({"p_drop": ("p", "pdrop", "p_d", "p_dropout")}), lambda v: 1 / (1 - v["p_drop"]),
         [{"p_drop": p} for p in (0.1, 0.5, 0.8)])
COUNT = (FormulaAnswer({"n": ()}), lambda v: 2 * v["n"], [{"n": n} for n in (1, 2, 7)])


@pytest.mark.parametrize("form, answer, where", [
    (GAMMA, "Answer: $\\gamma = \\frac{1}{1-p_{drop}}$, e.g. $\\gamma = 2$ for $p_{drop} = 0.5$",
     "the first of 3 formulas on the line starting with 'Answer:'"),
    (COUNT, "Answer: $2n$, since there are $n$ shifts and $n$ arcs",
     "the first of 3 formulas on the line starting with 'Answer:'"),
    (COUNT, "Answer: 2n, since there are n shifts and n arcs",
     "the text before the first comma of the line starting with 'Answer:'"),
    (GAMMA, "We need E[h_drop] = h.\n\n**Answer:**\n\n$$\n\\gamma = \\frac{1}{1 - p_{\\text{drop}}}\n$$\n",
     "the display math below 'Answer:'"),
    (COUNT, "One shift and one arc per word.\n##### Answer:\n\\[ 2n \\]", "the display math below 'Answer:'"),
    (COUNT, "**Answer:**\n2 n", "the line below 'Answer:'"),
    (COUNT, "Each word is shifted once and gets its head once, so $\\boxed{2n}$.", "the boxed formula"),
    (GAMMA, "$$\\boxed{\\gamma = \\tfrac{1}{1-p_\\text{drop}}}$$", "the boxed formula"),
    (COUNT, "Answer: $n$\nWait, arcs too.\nAnswer: $2n$", "the last of 2 lines starting with 'Answer:'"),
    (COUNT, "> **Answer**: $2 \\cdot n$", ""),
    (GAMMA, "Final answer = $\\left( 1 - p \\right)^{-1}$", ""),
])
def test_the_final_answer_is_found_where_people_put_it(form, answer, where):
    reader, expected, points = form
    final, formula = reader.final(answer)
    assert final.where == where
    assert compare(formula, expected, points) is None, formula.text
    assert (where in reader.describe(answer)) and reader.describe(answer).startswith("final answer read as ")


@pytest.mark.parametrize("answer", ["2n", "2 n", "2*n", "2 \\cdot n", "2 \\times n", "2·n", "2×n", "n 2",
                                    "(n)(2)", "n + n", "\\frac{4n}{2}", "\\dfrac{4 n}{2}", "\\frac42 n",
                                    "\\left(2\\right) n", "2n − 0", "4n/2", "\\frac{n}{\\frac12}", "${2}n$"])
def test_formulas_as_people_write_them(answer):
    reader, expected, points = COUNT
    assert compare(read_formula(answer, reader.variables), expected, points) is None


@pytest.mark.parametrize("answer", ["1/(1-p_drop)", "1/(1-p_{drop})", "1/(1-p_\\text{drop})", "1/(1-p_{\\text{drop}})",
                                    "1/(1-p_{\\rm drop})", "\\frac{1}{1-p}", "(1 − pdrop)^{-1}", "1/(1-p_d)",
                                    "γ = 1/(1-p)", "\\Gamma = 1/(1-p)", "\\tfrac{1}{1-p}", "1/(1 - p_\\mathrm{drop})"])
def test_the_variable_in_its_spellings(answer):
    reader, expected, points = GAMMA
    assert compare(read_formula(answer, reader.variables), expected, points) is None


@pytest.mark.parametrize("answer", ["kV", "k V", "k \\cdot V", "Vk", "k(V)", "(k)(V)", "k*V"])
def test_products_without_a_sign_of_declared_variables(answer):
    formula = read_formula(answer, {"k": (), "V": ()})
    assert compare(formula, lambda v: v["k"] * v["V"], [{"k": 3, "V": 7}, {"k": 0.5, "V": 11}]) is None


def test_words_after_the_formula_are_not_read_and_check_written_says_so():
    reader, _, _ = COUNT
    assert reader.describe("Answer: 2n transitions") == \
        "final answer read as 2 n (the words after it are not read: 'transitions')"
    assert read_formula("2 times n", reader.variables).text == "2"  # and the student is told:
    assert "'times n'" in reader.describe("Answer: 2 times n")


@pytest.mark.parametrize("answer, problem", [
    ("Answer: $\\sqrt{n}$", "it uses '\\sqrt', which this reader does not know"),
    ("Answer: $2n +$", "it ends too soon (an operator or a bracket without what follows it)"),
    ("Answer: $2m$", "m is not a symbol of this question's notation (its variables: n)"),
    ("Answer: 2n % 3", "it contains '%', which is no part of a formula"),
])
def test_an_unreadable_final_answer_shows_what_was_read_and_how_to_write_it(answer, problem):
    reader, _, _ = COUNT
    with pytest.raises(AnswerFormatError) as raised:
        reader.describe(answer)
    message = str(raised.value)
    assert message.startswith("cannot read the final answer ") and problem in message
    assert "Write it with numbers, n, + - * / ^ and brackets" in message and "Answer: $\\frac{n + 1}{2}$" in message


def test_the_final_answer_is_found_in_linear_time_on_long_lines():
    reader, _, _ = COUNT
    assert reader.describe("Answer: " + "$2n$ " * 200_000).startswith("final answer read as 2 n")
    with pytest.raises(AnswerFormatError, match="it starts with 'Answer', which is no symbol"):
        reader.describe("Answer" + " " * 1_000_000 + "x")


def test_check_written_says_which_formula_it_took(tmp_path):
    path = tmp_path / "written.md"
    path.write_text("## 2a-ii\nAnswer: $2n$, since there are $n$ shifts and $n$ arcs\n"
                    "## 1b-i\n**Answer:**\n\n$$\\gamma = \\frac{1}{1-p_{drop}}$$\n")
    status = {q.id: q for q in check_answers(path, PARSER).questions}
    assert status["2a-ii"].note == ("final answer read as 2 n (taken from the first of 3 formulas on the line "
                                    "starting with 'Answer:': '2n')")
    assert status["1b-i"].note == ("final answer read as 1 / (1 - p_drop) (taken from the display math below "
                                   "'Answer:': '\\\\gamma = \\\\frac{1}{1-p_{drop}}')")


def test_the_grader_says_which_formula_it_took_when_it_is_wrong(tmp_path):
    (tmp_path / "written.md").write_text("## 2a-ii\nAnswer: $n$ shifts and $n$ arcs, so $2n$\n")
    tests = collect_tests(PARSER)
    (row,) = run_tests(tests["2a-ii"], testing.TestContext(answers=choose_answer_sheet(tmp_path, PARSER.config)))
    assert row.score == 0
    assert row.output.startswith("2a-ii: your final answer reads as n (taken from the first of 3 formulas on "
                                    "the line starting with 'Answer:': 'n'), which is not right")


def test_a_formula_test_given_a_form_that_is_no_formula_blames_the_grader(tmp_path, monkeypatch):
    """A course that maps a formula question to another form (here the table's) gets an internal
    error naming the mistake, not an AttributeError from deep in the reader."""
    monkeypatch.setitem(ANSWER_FORMATS, "2a-ii", ANSWER_FORMATS["2a-i"])
    (tmp_path / "written.md").write_text("## 2a-ii\nAnswer: $2n$\n")
    tests = collect_tests(PARSER)
    (row,) = run_tests(tests["2a-ii"], testing.TestContext(answers=choose_answer_sheet(tmp_path, PARSER.config)))
    assert row.score == 0
    assert "TypeError: 2a-ii: check_formula needs a FormulaAnswer, got TableAnswer" in row.output

def test_check_written_reports_placement_format_and_math(tmp_path):
    path = tmp_path / "written.md"
    path.write_text(ANSWERS.replace("Answer: 2n", "Answer: two n") + "\n## 1c-i\n$\\x08eta + 1\n")
    check = check_answers(path, PARSER)
    status = {q.id: q for q in check.questions}
    assert status["1b-i"].note == "final answer read as 1 / (1 - p_drop)" and status["1b-i"].readable
    assert not status["2a-ii"].readable and "cannot read the final answer 'two n'" in status["2a-ii"].note
    assert not status["2a-i"].readable and "no column for" in status["2a-i"].note
    assert check.missing == ["1b-ii", "1c-ii"]
    assert any("1c-i (line 25): the $ before" in p for p in check.problems)
    assert not check.clean


def test_check_written_command(repo):
    wide = {**os.environ, "COLUMNS": "200"}  # one line per table row
    run = subprocess.run([PYTHON, "-m", "autograder", "check-written", "parser",
                          str(repo / "solutions" / "written" / "parser.md")],
                         cwd=repo, capture_output=True, text=True, timeout=120, env=wide)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "8 of 8 written questions answered." in run.stdout
    assert "table read: 16 transitions" in run.stdout and "final answer read as 2 n" in run.stdout
    empty = subprocess.run([PYTHON, "-m", "autograder", "check-written", "parser",
                            str(repo / "handouts" / "parser.ipynb")],
                           cwd=repo, capture_output=True, text=True, timeout=120, env=wide)
    assert empty.returncode == 1 and "0 of 8 written questions answered." in empty.stdout


def test_an_oversized_answer_file_is_not_read(tmp_path):
    path = tmp_path / "written.md"
    path.write_text("## 1a-i\n" + "x" * MAX_ANSWER_BYTES)
    with pytest.raises(AnswersError, match="larger than 8 MB"):
        read_answers(path, PARSER.config)


def test_a_linked_answer_sheet_is_not_read(tmp_path, repo):
    """The grader reads the answer sheet itself: a link to the reference answers must not count."""
    config = load_assignment("parser").config
    (tmp_path / "written.md").symlink_to(repo / "solutions" / "written" / "parser.md")
    found = choose_answer_sheet(tmp_path, config)
    assert found.sheet is None and "No written answers found" in found.note
    (tmp_path / "written.md").unlink()
    (tmp_path / "written.md").write_text((repo / "solutions" / "written" / "parser.md").read_text())
    assert choose_answer_sheet(tmp_path, config).sheet is not None


def test_a_boxed_formula_on_the_answer_line_is_unwrapped():
    gamma = ANSWER_FORMATS["1b-i"]
    for line in (r"Answer: $\boxed{\gamma = \frac{1}{1-p_{drop}}}$",
                 r"Answer: $\boxed{\frac{1}{1 - p}}$, since kept units must be scaled up"):
        assert gamma.describe(line).startswith("final answer read as 1 / (1 - p_drop)"), line
