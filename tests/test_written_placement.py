"""Where pasted write-ups land: a heading that names a question opens it, deeper headings of the
student's own stay in the open answer, and text never moves to another question without a report.

The write-ups in tests/fixtures/written/ are written the way students paste theirs: the template's
headings with their own numbering below them, the course's original numbering, bold labels."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from autograder.config import load_assignment
from autograder.written.answers import AnswerSheet, read_answers, read_markdown
from autograder.written.labels import bold_label, could_mean, read_label, split_label

FIXTURES = Path(__file__).parent / "fixtures" / "written"
WORD2VEC = load_assignment("word2vec")
PARSER = load_assignment("parser")
WORD2VEC_IDS = [q.id for q in WORD2VEC.config.written_questions]
PARSER_IDS = [q.id for q in PARSER.config.written_questions]


def placed(text: str, ids: list[str]) -> AnswerSheet:
    sheet = AnswerSheet(source="written.md")
    read_markdown(text, ids, sheet)
    return sheet


def accounted_for(sheet: AnswerSheet, text: str) -> list[str]:
    """The lines of ``text`` that are in no answer and in no report of text under no question:
    what was dropped silently (headings and bold labels themselves excepted)."""
    kept = "\n".join([a.text for a in sheet.answers.values()] + [u.text for u in sheet.unplaced])
    return [line for line in text.splitlines()
            if line.strip() and not line.startswith("#") and bold_label(line) is None
            and line.strip() not in kept]


@pytest.mark.parametrize("line, expected", [
    ("**(b)(ii)** We have", ("(b)(ii)", 11)), ("__2b-iii.__ Both cases", ("2b-iii.", 11)),
    ("**Question 2a (i):** the table", ("Question 2a (i):", 20)),
    ("**Answer:** $2n$", None), ("**Note** this", None), ("- **(a)** an item", None), ("x **(a)**", None),
])
def test_bold_labels_start_a_line(line, expected):
    assert bold_label(line) == expected


def test_a_heading_splits_into_its_label_and_its_own_title():
    assert split_label("2. Machine Learning & Neural Networks") == (read_label("2"), "machine learning & neural networks")
    assert split_label("(a)(i)")[1] == "" and split_label("Answer:") == (None, "answer:")


@pytest.mark.parametrize("inner, inside, expected", [
    ("(b)(i)", "2b-ii", "2b-i"), ("(b)(iii)", "2b-ii", "2b-iii"), ("(iii)", "2b-ii", "2b-iii"),
    ("(e)", "2b-iii", "2e"), ("(e)", "1d-i", "2e"), ("(b)(ii)", "2b-ii", "2b-ii"),
    ("(a)", "2b-i", None), ("(f)", "2c-i", None), ("(i)", "2e", None),
])
def test_what_a_label_inside_an_answer_could_mean(inner, inside, expected):
    assert could_mean(read_label(inner), read_label(inside), WORD2VEC_IDS) == expected


def test_own_sub_headings_stay_in_the_template_question_and_the_ambiguous_ones_are_reported():
    """The issue's write-up: the course's newer numbering pasted under our headings. (b)(i), (b)(iii)
    and (e) used to move text to 2b-i, 2b-iii and 2e; now they stay, each reported on its line."""
    text = (FIXTURES / "word2vec_own_numbering.md").read_text()
    sheet = placed(text, WORD2VEC_IDS)
    headings = {q: int(re.match(r"line (\d+)", a.where)[1]) for q, a in sheet.answers.items()}
    template = {q: i + 1 for i, line in enumerate(text.splitlines()) for q in WORD2VEC_IDS
                if line.startswith(f"## {q}. ")}
    assert headings == template  # every answer under its own template heading
    assert all(sheet.answered(q) for q in WORD2VEC_IDS) and sheet.unplaced == []
    assert sheet.text("2e").startswith("Normalising")
    assert "$$\\frac{\\partial J}{\\partial U} = (\\hat y - y) v_c^\\top .$$" in sheet.text("2b-iv")  # under Answer:
    assert "Both cases at once" in sheet.text("2b-iii") and "pushes $v_c$ away" in sheet.text("2b-ii")
    assert [p.split(":")[0] for p in sheet.problems] == ["line 36", "line 50", "line 63"]
    assert sheet.problems[0] == (
        "line 36: the heading '(b)(i)' is inside the answer to 2b-ii (heading on line 34) and could also "
        "mean 2b-i; its text stays in 2b-ii. If it answers 2b-i, move it under the heading of 2b-i; if it "
        "belongs to 2b-ii, reword it so that it names no question (for example '### Step 1').")
    assert "could also mean 2b-iii" in sheet.problems[1] and "could also mean 2e" in sheet.problems[2]
    assert accounted_for(sheet, text) == []


def test_the_reworded_write_up_is_placed_without_problems():
    text = (FIXTURES / "word2vec_own_numbering.md").read_text()
    for old, new in (("### (b)(i)", "### Step 1: the gradient"), ("### (b)(iii)", "### Step 3: the two terms"),
                     ("#### (e)", "#### Both cases")):
        text = text.replace(old, new)
    sheet = placed(text, WORD2VEC_IDS)
    assert sheet.problems == [] and sheet.unplaced == [] and all(sheet.answered(q) for q in WORD2VEC_IDS)


def test_a_deeper_heading_that_names_another_question_in_full_opens_it():
    sheet = placed("## 2b-ii\ncentre\n### 2b-iii\noutside\n#### (e)\nstill 2b-iii\n", WORD2VEC_IDS)
    assert sheet.text("2b-ii") == "centre"
    assert sheet.text("2b-iii") == "outside\n#### (e)\nstill 2b-iii"
    assert [p[:40] for p in sheet.problems] == ["line 5: the heading '(e)' is inside the "]


def test_question_and_answer_sub_headings_belong_to_the_answer():
    sheet = placed("## 2b-iv. The gradient for all outside vectors\n### (d)\n##### Question:\nWrite dJ/dU.\n"
                   "##### Answer:\n$$(\\hat y - y) v_c^\\top$$\n", WORD2VEC_IDS)
    assert sheet.text("2b-iv").endswith("##### Answer:\n$$(\\hat y - y) v_c^\\top$$")
    assert sheet.problems == [] and sheet.unplaced == []


def test_a_heading_at_the_level_of_the_question_ends_its_answer_and_says_how_to_keep_the_text():
    sheet = placed("## 2b-iv\n## Answer:\n$(\\hat y - y) v_c^\\top$\n", WORD2VEC_IDS)
    assert not sheet.answered("2b-iv")
    assert sheet.unplaced[0].where == "line 3 (under the heading 'Answer:')"
    assert sheet.unplaced[0].reason == ("the heading 'Answer:' is at the level of the heading of 2b-iv above "
                                        "it, so it ends that answer; if the text belongs to 2b-iv, make the "
                                        "heading deeper ('### Answer:')")


def test_bold_labels_instead_of_headings():
    text = (FIXTURES / "parser_bold_labels.md").read_text()
    sheet = read_answers(FIXTURES / "parser_bold_labels.md", PARSER.config)
    assert sheet.problems == [] and sheet.unplaced == []
    assert [sheet.answers[q].where for q in ("1a-i", "2a-i")] == ["line 5 ('**(a)(i)**')", "line 31 ('**(a)(i)**')"]
    assert sheet.text("1a-i").startswith("Adam's $m$ is a running average")  # without its label
    assert sheet.text("2a-i").startswith("| Stack | Buffer |") and sheet.text("2a-ii").endswith("Answer: $2n$")
    assert accounted_for(sheet, text) == []


def test_bold_labels_inside_a_heading_s_answer_stay_there_and_are_reported():
    sheet = placed("## 2b-ii. The gradient for the center vector\n**(b)(i)** the gradient\n\n"
                   "**(b)(ii)** zero when\n**(b)(iii)** the two terms\n", WORD2VEC_IDS)
    assert sheet.text("2b-ii").count("**(b)") == 3 and not sheet.answered("2b-i") and not sheet.answered("2b-iii")
    assert [p.split(" is inside")[0] for p in sheet.problems] == ["line 2: the bold label '**(b)(i)**'",
                                                                  "line 5: the bold label '**(b)(iii)**'"]
    assert "(for example '**Step 1**')" in sheet.problems[0]


def test_the_course_numbering_leaves_every_answer_in_a_question_or_reported():
    """'## 2. Machine Learning' then '(a)(i)' for Adam: the heading still decides (2a-i), and what
    names no question here (2b-i, 3a) is kept out and reported with the question it is likely to be."""
    text = (FIXTURES / "parser_course_numbering.md").read_text()
    sheet = placed(text, PARSER_IDS)
    assert [q for q in PARSER_IDS if sheet.answered(q)] == ["2a-i", "2a-ii"]
    assert sheet.text("2a-i").startswith("With momentum")
    assert sheet.problems == [f"line {n}: the heading '({x})({y})' names no question: there is no written "
                              f"question 2{x}-{y}; is it 1{x}-{y}?"
                              for n, x, y in ((20, "b", "i"), (27, "b", "ii"), (33, "c", "i"), (38, "c", "ii"))]
    assert [u.where for u in sheet.unplaced][-2:] == ["line 47 (under the heading '(a)')",
                                                      "line 69 (under the heading '(b)')"]
    assert accounted_for(sheet, text) == []


def test_the_unplaced_text_is_reported_from_its_first_line_with_text():
    sheet = placed("# Notes\n\n<!-- a comment\nover lines -->\n\nleft over\n", PARSER_IDS)
    assert [(u.where, u.excerpt) for u in sheet.unplaced] == [("line 6 (under the heading 'Notes')", "left over")]


def test_a_notebook_answer_cell_keeps_its_text_and_reports_what_names_other_questions():
    """``opened``: the cell decides; headings inside it are only reported."""
    sheet = AnswerSheet(source="parser.ipynb")
    read_markdown("Adam averages.\n### 1a-ii\nRare parameters.\n**(b)(i)** gamma\n", PARSER_IDS, sheet,
                  where="cell 9", file="cell 9", opened="1a-i")
    assert sheet.text("1a-i").endswith("**(b)(i)** gamma") and not sheet.answered("1a-ii")
    assert [p.split(", so")[0] for p in sheet.problems] == [
        "cell 9, line 2: the heading '1a-ii' is in the answer cell of 1a-i",
        "cell 9, line 4: the bold label '**(b)(i)**' is in the answer cell of 1a-i"]
    assert "but it names 1a-ii. If it answers 1a-ii, move it to the answer cell of 1a-ii" in sheet.problems[0]
    assert "but it could mean 1b-i" in sheet.problems[1]
