"""Where pasted write-ups land: a heading that names a question opens it, deeper headings of the
student's own stay in the open answer, and text never moves to another question without a report.

The write-ups in tests/fixtures/written/ are written the way students paste theirs: the template's
headings with their own numbering below them, the course's original numbering, bold labels."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from autograder.core.config import load_assignment
from autograder.written.answers import PLACEHOLDER, AnswerSheet, read_answers, read_markdown
from autograder.written.check_written import check_answers
from autograder.written.intent import Guesser, question_words, words
from autograder.written.handout_data import handout_data
from autograder.written.labels import bold_label, could_mean, plain_label, read_label, sectioning, split_label

pytestmark = pytest.mark.smoke  # also run on Python 3.10 and the newest Python (.ci/run)

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
            if line.strip() and not line.startswith("#") and bold_label(line) is None and plain_label(line) is None
            and line.strip() not in kept and line.strip() not in front_matter(text)]


def front_matter(text: str) -> list[str]:
    """The lines of a document's metadata block (Quarto's YAML header): no answer, and dropped."""
    block = re.match(r"---\n(.*?)\n---\n", text, re.DOTALL)
    return ["---", *(line.strip() for line in block[1].splitlines())] if block else []


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


# check-written: which question a misplaced answer more likely answers, and one list of what to fix.

def fixed_course_numbering() -> str:
    """The course-numbering write-up after the student followed check-written's messages."""
    text = (FIXTURES / "parser_course_numbering.md").read_text()
    for old, new in (("## 2. Machine", "## 1. Machine"), ("## 3. Neural", "## 2. Neural"),
                     ("### (a)\n", "### 2a-i\n"), ("### (b)\n", "### 2a-ii\n")):
        text = text.replace(old, new)
    return text


def test_check_says_which_question_a_misplaced_answer_more_likely_answers(tmp_path):
    check = check_answers(FIXTURES / "parser_course_numbering.md", PARSER)
    fix = check.to_fix
    assert fix[0] == ("line 5: '(a)(i)' under '2. Machine Learning & Neural …' (line 3) is read as 2a-i (the "
                      "transition table), but it does not have the form of that answer; it reads more like 1a-i "
                      "(Adam: the rolling mean of the gradients). If it answers 1a-i, label its heading '1a-i' "
                      "(or move the text under the heading of 1a-i).")
    assert fix[1].startswith("2a-i (line 5 ('(a)(i)')): no table found")
    assert "is read as 2a-ii (the number of transitions)" in fix[2] and "more like 1a-ii" in fix[2]
    unplaced = {u.where.split(" (")[0]: u.reason for u in check.unplaced}
    assert unplaced["line 22"].endswith("it reads like an answer to 1b-i (dropout: the scale gamma)")
    assert unplaced["line 29"].endswith("it reads like an answer to 1b-ii (dropout: in training, not in evaluation)")
    assert unplaced["line 47"].endswith("it reads like an answer to 2a-i (the transition table)")
    assert unplaced["line 69"].endswith("it reads like an answer to 2a-ii (the number of transitions)")
    assert [int(re.search(r"line (\d+)", f)[1]) for f in fix] == sorted(int(re.search(r"line (\d+)", f)[1]) for f in fix)
    assert not check.clean
    path = tmp_path / "written.md"
    path.write_text(fixed_course_numbering())
    fixed = check_answers(path, PARSER)
    assert fixed.to_fix == [] and fixed.clean


def test_titles_of_the_student_s_own_do_not_raise_false_alarms(tmp_path, repo):
    """The reference answers under headings students write ("## 1a-i Momentum", "## Question 2b (ii):
    solution") are placed and checked without any report."""
    for name, titles in (("parser", {"1a-i": "Momentum", "1a-ii": "Per-parameter learning rates",
                                     "1b-ii": "Why not at test time", "2a-ii": "Counting"}),
                         ("word2vec", {"1c-i": "Jacobian of softmax", "2b-ii": "Solution", "2c-ii": "np.add.at",
                                       "2e": "Unit vectors", "2d-i": "Summing the losses"})):
        text = (repo / "solutions" / "written" / f"{name}.md").read_text()
        text = re.sub(r"^## (\S+)\. .*$", lambda m: f"## Question {m[1]}: {titles.get(m[1], '')}", text, flags=re.M)
        path = tmp_path / f"{name}.md"
        path.write_text(text)
        check = check_answers(path, load_assignment(name))
        assert check.to_fix == [] and check.clean, (name, check.to_fix)


def notebook_with(tmp_path, repo, name: str, cells: dict[str, str]) -> Path:
    notebook = nbformat.read(repo / "handouts" / f"{name}.ipynb", as_version=4)
    for cell in notebook.cells:
        if cell.get("id", "").removeprefix("answer-") in cells:
            cell.source = cells[cell.id.removeprefix("answer-")]
    path = tmp_path / f"{name}.ipynb"
    nbformat.write(notebook, path)
    return path


def test_answers_in_the_notebook_with_their_own_labels_are_reported_by_cell_and_line(tmp_path, repo):
    path = notebook_with(tmp_path, repo, "word2vec", {
        "2b-i": "**(a)** Only the term of $o$ is left.",
        "2b-ii": "**(b)(i)** $U^\\top(\\hat y - y)$\n\n**(b)(ii)** zero when $\\hat y = y$\n\n"
                 "**(b)(iii)** $-u_o$ pulls, the expectation pushes.",
    })
    check = check_answers(path, WORD2VEC)
    cell = next(i for i, c in enumerate(nbformat.read(path, as_version=4).cells, 1) if c.get("id") == "answer-2b-ii")
    assert [p.split(" is in the")[0] for p in check.to_fix] == [
        f"cell {cell}, line 1: the bold label '**(b)(i)**'", f"cell {cell}, line 5: the bold label '**(b)(iii)**'"]
    assert "could mean 2b-iii. If it answers 2b-iii, move it to the answer cell of 2b-iii" in check.to_fix[1]
    assert {q.id: q.where for q in check.questions}["2b-ii"] == f"cell {cell}"  # still 2b-ii's answer


def test_an_answer_in_the_wrong_notebook_cell_is_reported(tmp_path, repo):
    adam = (FIXTURES / "parser_course_numbering.md").read_text().split("### (a)(i)\n")[1].split("###")[0]
    path = notebook_with(tmp_path, repo, "parser", {"2a-i": adam})
    fix = check_answers(path, PARSER).to_fix
    assert fix[0] == ("cell 26: the answer in the cell of 2a-i (the transition table) does not have the form "
                      "of that answer; it reads more like 1a-i (Adam: the rolling mean of the gradients). If it "
                      "answers 1a-i, move it to the answer cell of 1a-i.")
    assert fix[1].startswith("2a-i (cell 26): no table found")


def test_check_written_is_clean_for_answers_that_follow_the_rule(tmp_path):
    check = check_answers(FIXTURES / "parser_bold_labels.md", PARSER)
    assert check.clean and check.to_fix == []


def test_a_section_title_that_disagrees_with_the_handout_is_enough_for_a_question_graded_by_hand(tmp_path):
    """1a-ii is graded by hand, so no form can be wrong: the title '1. Neural Transition-Based
    Dependency Parsing' (the handout's Part 1 is optimisation) and the words decide."""
    path = tmp_path / "written.md"
    path.write_text("## 1. Neural Transition-Based Dependency Parsing\n### (a)(ii)\nEvery word is shifted onto "
                    "the stack once and leaves it by exactly one arc, so there are $n$ shifts and $n$ arcs.\n\n"
                    "Answer: $2n$\n")
    fix = check_answers(path, PARSER).to_fix
    assert fix == ["line 2: '(a)(ii)' under '1. Neural Transition-Based De…' (line 1) is read as 1a-ii (Adam: "
                   "dividing by the square root of v), but the title of '1. Neural Transition-Based De…' does not "
                   "match that question; it reads more like 2a-ii (the number of transitions). If it answers "
                   "2a-ii, label its heading '2a-ii' (or move the text under the heading of 2a-ii)."]


def test_without_the_handout_notebook_the_guess_uses_the_config_s_titles(tmp_path):
    """A student who deleted the notebook from the bundle: check-written still runs."""
    bare = load_assignment("parser", root=tmp_path)
    profiles = question_words(bare)
    assert profiles["1b-i"].titles == words("dropout: the scale gamma dropout")
    assert Guesser.of(bare).likelier("The scale gamma of dropout:\nAnswer: $1/(1-p_{drop})$", "2a-i") == "1b-i"
    path = tmp_path / "written.md"
    path.write_text((FIXTURES / "parser_bold_labels.md").read_text())
    assert check_answers(path, bare).clean


def test_a_form_feed_in_an_answer_moves_no_line():
    """'\\frac' pasted with its backslash eaten is a form feed, a line break for str.splitlines but
    not for Markdown: the lines after it must stay where their headings put them."""
    sheet = placed("## 1b-i\nAnswer: $\x0crac{1}{1-p}$\n## 1b-ii\nIn training only.\n", PARSER_IDS)
    assert sheet.text("1b-i") == "Answer: $\x0crac{1}{1-p}$"
    assert sheet.text("1b-ii") == "In training only."


BLIND_WRITE_UPS = [Path(__file__).resolve().parents[1] / "benchmarks" / "data" / f"writeups_blind{n}" for n in (3, 4, 5, 7, 9, 10, 11, 12, 13)]


@pytest.mark.parametrize("labels", sorted(p for folder in BLIND_WRITE_UPS for p in folder.glob("*.labels.yaml")),
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_blind_write_up_s_answers_land_under_their_questions_or_are_reported_naming_them(labels):
    """Issue 25's write-ups, written blind with where each answer starts: pasted below the sheet
    ("## Problem 1 (c)", "**Problem 2 (b)**" then "**(i)**", "\\subsection*{(b)(i)}"), in LaTeX
    sectioning only (a roman enumerate for parts), in the student's own numbering, and blind set 7's
    ("### 2(c)" after bold "(b)(iv)", an answer under "### Skip-gram"). Every answer is under its
    question, or a report names it."""
    import yaml

    expected = yaml.safe_load(labels.read_text())
    path = labels.parent / expected["file"]
    assignment = PARSER if expected.get("assignment") == "parser" or expected["file"].startswith("parser") else WORD2VEC
    sheet = read_answers(path, assignment.config)  # Markdown, or a notebook (blind set 5)
    check = check_answers(path, assignment)  # what the student is told, with its guesses of questions
    reports = "\n".join(sheet.problems + [u.reason + " " + u.text for u in sheet.unplaced] + check.to_fix)
    for answer in expected["answers"]:
        question = answer["question"]
        start = re.sub(r"^(?:\\(?:paragraph|item)(?:\{[^}]*\})?|\*\*[^*]+\*\*)\s*", "", answer["first_words"].strip())
        landed = " ".join(start.split())[:25] in " ".join(sheet.text(question).split())
        assert landed or re.search(rf"\b{re.escape(question)}\b", reports), (question, sheet.text(question)[:80])
    if path.suffix == ".ipynb":
        return  # its other cells are the handout's
    text = path.read_text()
    templates = "\n".join(form.template() for form in handout_data(assignment).answer_formats.values())
    instructions = re.sub(r"<!--.*?-->", "", text, flags=re.DOTALL)  # the sheet's, not answers
    twice = [a["first_words"] for a in expected["answers"] if f"{a['question']} is answered twice" in reports]
    kept = "\n".join(a.text for a in sheet.answers.values())
    dropped = [line for line in accounted_for(sheet, instructions)
               if sectioning(line) is None and not line.startswith(tuple(twice))  # reported as a second answer
               and line.strip() not in (PLACEHOLDER, "---")  # the sheet's, and a rule below it
               and line.strip() not in templates  # the sheet's template of an answer, left as it was
               and not (line.lstrip().startswith("\\item") and line.lstrip()[5:].strip() in kept)]  # a part's label
    assert dropped == []


def test_parts_below_a_bold_label_and_in_a_roman_list_are_its_questions():
    bold = ("## Problem 1 (d)\n\nThe input gradient.\n\n**Problem 2 (b)**\n\n**(i)** one\n\n**(ii)** two\n\n"
            "## Problem 1 (c)\n\nthree\n\n## 2e\n\n*Write your answer here.*\n\n---\n\n# My notes\n")
    sheet = placed(bold, WORD2VEC_IDS)
    assert [sheet.text(q) for q in ("1d-i", "2b-i", "2b-ii", "1c-i")] == ["The input gradient.", "one", "two", "three"]
    assert not sheet.answered("2e") and sheet.problems == []  # the placeholder and a rule are no answer
    latex = ("\\subsection*{2(b) Naive softmax}\n\\begin{enumerate}[label=(\\roman*)]\n\\item first\n\n"
             "\\item second\n\\item[(iv)] fourth\n\\end{enumerate}\n")
    sheet = placed(latex, WORD2VEC_IDS)
    assert [sheet.text(q).split("\n")[0] for q in ("2b-i", "2b-ii", "2b-iv")] == ["first", "second", "fourth"]
    counted = ("\\subsection*{2(b)}\n\\begin{enumerate}[label=(\\roman*)]\n\\setcounter{enumi}{1}\n"
               "\\item second\n\\item third\n\\end{enumerate}\n\\subsection*{2(c)}\n\\begin{enumerate}\n"
               "\\item[(ii)] twice\n\\end{enumerate}\n")
    sheet = placed(counted, WORD2VEC_IDS)
    assert [sheet.text(q).split("\n")[0] for q in ("2b-ii", "2b-iii", "2c-ii")] == ["second", "third", "twice"]
    assert not sheet.answered("2b-i")


def test_quarto_headings_callouts_and_front_matter_place_their_answers():
    """Blind set 13's Quarto write-up, first run: numbered headings with attributes ("## 1.3 (c)(i)
    ... {#sec-1ci}") were read as part 1 alone, a callout's title heading ended its answer, and the
    YAML header's closing "---" made it a heading. All ten answers went unplaced."""
    text = ("---\ntitle: \"My answers\"\nformat:\n  html:\n    toc: true\n---\n\n# Part 1 {#sec-p1}\n\n"
            "## 1.3 (c)(i) Softmax {#sec-1ci}\n\nfirst\n\n::: {.callout-tip}\n## Why\ninside\n:::\n\nafter\n\n"
            "## 2.5 (b)(iv) All outside vectors {#sec-2biv}\n\nsecond\n")
    sheet = placed(text, WORD2VEC_IDS)
    assert sheet.text("1c-i").startswith("first") and sheet.text("1c-i").endswith("inside\n:::\n\nafter")
    assert sheet.text("2b-iv") == "second" and sheet.unplaced == [] and sheet.problems == []


@pytest.mark.parametrize("line, expected", [
    ("Q1c(ii): See above", ("Q1c(ii)", 8)), ("Question 2a-i: the table", ("Question 2a-i", 14)),
    ("w = o: then", None), ("Q: why?", None), ("Note 1: this", None),
])
def test_plain_labels_start_a_line_with_their_keyword_and_a_colon(line, expected):
    assert plain_label(line) == expected


def test_an_e_mail_of_plain_labels_places_each_answer():
    """Blind set 13's parser write-up: a plain-text e-mail, each answer after "Q1b(i):" and a line of
    dashes; its greeting is reported, not taken for an answer."""
    text = "Hi all,\n\nhere are my answers.\n\n-----\n\nQ1b(i):\ngamma = 1/(1 - p)\n\n-----\n\nQ2a(ii): 2n\n"
    sheet = placed(text, PARSER_IDS)
    assert sheet.text("1b-i").startswith("gamma = 1/(1 - p)") and sheet.text("2a-ii") == "2n"
    assert [u.text.split("\n")[0] for u in sheet.unplaced] == ["Hi all,"]
