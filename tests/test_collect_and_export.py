"""collect-submission (the student's zip) and export-written (the TA's pages for grading by hand)."""

from __future__ import annotations

import shutil
import subprocess
import zipfile
from pathlib import Path

import nbformat
import pytest

from autograder.course.collect_submission import collect_submission
from autograder.core.config import load_assignment
from autograder.written.check_written import check_answers
from autograder.course.export_written import export_pages, gather, render
from tests.conftest import PYTHON

pytestmark = pytest.mark.smoke  # also run on Python 3.10 and the newest Python (.ci/run)

WORD2VEC = load_assignment("word2vec")


def test_collect_zips_exactly_the_expected_files_and_warns(tmp_path, repo):
    folder = tmp_path / "work"
    shutil.copytree(repo / "assignment" / "word2vec", folder)
    shutil.copy(repo / "solutions" / "word2vec" / "word2vec.py", folder / "word2vec.py")
    (folder / "sgd.py").unlink()
    (folder / "notes.txt").write_text("not for Gradescope")
    (folder / "written.md").write_text("## 2e\nNormalising keeps the direction.\n")
    collected = collect_submission(WORD2VEC, folder)
    with zipfile.ZipFile(collected.zip_path) as archive:
        assert sorted(archive.namelist()) == ["nn_basics.py", "word2vec.py", "written.md"]
    warnings = "\n".join(collected.warnings)
    assert "sgd.py is missing: every test of it will score 0" in warnings
    assert "nn_basics.py still has 5 parts not implemented: softmax, sigmoid, sigmoid_grad, " \
           "forward_backward_prop, input_gradient" in warnings
    assert not [w for w in collected.warnings if w.startswith("word2vec.py")]  # the finished file
    assert "written.md: no answer to 1c-i, 1d-i" in warnings


PARSER = load_assignment("parser")
PLACEMENT = Path(__file__).parent / "fixtures" / "written"


@pytest.mark.parametrize("assignment, answers, expected", [
    (WORD2VEC, "## 2b-ii\n$U^\\top(\\hat y - y)$\n### (b)(iii)\nThe two terms.\n",
     "line 3: the heading '(b)(iii)' is inside the answer to 2b-ii (heading on line 1) and could also mean 2b-iii"),
    (WORD2VEC, "## 2e\nDirections.\n## 2e.\nAgain.\n", "2e is answered twice (line 1 ('2e') and line 3 ('2e.'))"),
    (WORD2VEC, "## 1c-i\n$\\hat y - y\n", "1c-i (line 2): the $ before '$\\hat y - y' is never closed"),
    (WORD2VEC, "## 2e\nDirections.\n## Scratch work\nThe norm divides out.\n",
     "line 4 (under the heading 'Scratch work'): 'The norm divides out.' is not graded"),
    (WORD2VEC, "## 3a (i)\nLearning rates.\n",
     "line 1: the heading '3a (i)' names no question: there is no written question 3a-i"),
    (PARSER, "## 1b-i\nAnswer: one over one minus p\n", "1b-i (line 1 ('1b-i')): cannot read the final answer"),
    (PARSER, (PLACEMENT / "parser_course_numbering.md").read_text(),
     "line 5: '(a)(i)' under '2. Machine Learning & Neural …' (line 3) is read as 2a-i (the transition table)"),
], ids=["ambiguous", "twice", "math", "unplaced", "no question", "unreadable", "misplaced"])
def test_collect_repeats_every_problem_of_check_written_and_zips_nothing(tmp_path, repo, assignment, answers,
                                                                         expected):
    folder = tmp_path / "work"
    shutil.copytree(repo / "assignment" / assignment.name, folder)
    (folder / "written.md").write_text(answers)
    collected = collect_submission(assignment, folder)
    assert not collected.written and not collected.zip_path.exists()
    assert any(problem.startswith(expected) for problem in collected.written_problems), collected.written_problems
    anyway = collect_submission(assignment, folder, ignore_written_problems=True)
    assert anyway.written and anyway.written_problems == collected.written_problems
    with zipfile.ZipFile(anyway.zip_path) as archive:
        assert "written.md" in archive.namelist()


def test_collect_command_stops_until_the_written_problems_are_fixed(tmp_path, repo):
    folder = tmp_path / "work"
    shutil.copytree(repo / "assignment" / "word2vec", folder)
    pasted = (PLACEMENT / "word2vec_own_numbering.md").read_text()
    (folder / "written.md").write_text(pasted)

    def collect(*flags: str) -> subprocess.CompletedProcess:
        return subprocess.run([PYTHON, "-m", "autograder", "collect-submission", "word2vec", str(folder), *flags],
                              cwd=repo, capture_output=True, text=True, timeout=120)

    refused = collect()
    assert refused.returncode == 1 and not (folder / "word2vec_submission.zip").exists()
    assert "error: written.md has 3 problems to fix (as check-written reports them):\n  line 36: the heading " \
           "'(b)(i)' is inside the answer to 2b-ii" in refused.stdout
    assert "No zip written. Fix the lines above" in refused.stdout and "--ignore-written-problems" in refused.stdout
    anyway = collect("--ignore-written-problems")
    assert anyway.returncode == 0 and "warning: written.md has 3 problems to fix" in anyway.stdout
    assert (folder / "word2vec_submission.zip").exists()
    stale = collect()
    assert stale.returncode == 1 and "word2vec_submission.zip is from an earlier run: do not upload it" in stale.stdout
    for old, new in (("### (b)(i)", "### Step 1"), ("### (b)(iii)", "### Step 3"), ("#### (e)", "#### Both cases")):
        pasted = pasted.replace(old, new)
    (folder / "written.md").write_text(pasted)
    fixed = collect()
    assert fixed.returncode == 0 and "problems to fix" not in fixed.stdout and "wrote " in fixed.stdout


def test_collect_command_alias(tmp_path, repo):
    folder = tmp_path / "work"
    shutil.copytree(repo / "assignment" / "word2vec", folder)
    run = subprocess.run([PYTHON, "-m", "autograder", "collect_submission", "word2vec", str(folder),
                          "--out", str(tmp_path / "upload.zip")], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and (tmp_path / "upload.zip").is_file()
    assert "warning: No written answers found" in run.stdout


def test_markdown_rendering_typesets_math_and_escapes_html():
    html = render("Loss $a*b*c$ and $$\\sum_i x_i * y_i$$ <script>alert(1)</script> **bold**")
    assert '<math display="inline"><mrow><mi>a</mi><mo>*</mo>' in html and '<math display="block">' in html
    assert "<script>" not in html and "&lt;script&gt;" in html and "<strong>bold</strong>" in html
    assert "$" not in html  # Markdown never saw the math: no * became italics
    # Math outside $ as notebooks show it: Markdown would eat the backslashes of \[ and of rows \\.
    html = render("\\[ x_1 * y_2 \\] and \\begin{align*} a &= b \\\\ c &= d \\end{align*}, \\(z_i\\)")
    assert html.count("<math") == 3 and "<mtable" in html and "\\" not in html
    # A formula in unicode without $, as the derivation reader takes it: its _ are no italics.
    html = render("So\n\n∂J/∂v_c = ∑_{k=1}^{K} σ(u_{w_k}ᵀ v_c) u_{w_k}\n\nand *this* is _it_.")
    assert "∑_{k=1}^{K} σ(u_{w_k}ᵀ v_c) u_{w_k}" in html and "<em>this</em> is <em>it</em>" in html


@pytest.mark.parametrize(
    "latex",
    ["\\text{<script>alert(1)</script>}", "\\href{javascript:alert(1)}{x}", "\\style{color:red}{x}", "\\notacommand{x}"],
)
def test_math_that_cannot_be_typeset_safely_and_whole_is_shown_as_code(latex):
    html = render(f"Then ${latex}$ holds.")
    assert "<math" not in html and "<script" not in html and "href=" not in html and "style=" not in html
    assert '<code class="latex">$' in html


def make_export(root, repo):
    """A Gradescope export of three submissions: Markdown, notebook, and none."""
    root.mkdir()
    (root / "submission_metadata.yml").write_text(
        "submission_1:\n  :submitters:\n  - :name: Ada Lovelace\n    :sid: '1'\n"
        "submission_2:\n  :submitters:\n  - :name: Alan Turing\n"
        "submission_3:\n  :submitters:\n  - :name: Grace Hopper\n")
    (root / "submission_1").mkdir()
    (root / "submission_1" / "written.md").write_text(
        "## 2b (ii)\nThe gradient is $U^\\top(\\hat y - y)$, i.e. $a*b*c$.\n<script>alert('x')</script>\n"
        "## 2e\nKeeps the direction.\n# Scratch\nnotes to myself\n")
    (root / "submission_2").mkdir()
    notebook = nbformat.read(repo / "handouts" / "word2vec.ipynb", as_version=4)
    next(c for c in notebook.cells if c.get("id") == "answer-2e").source = "Directions survive."
    nbformat.write(notebook, root / "submission_2" / "word2vec.ipynb")
    (root / "submission_3").mkdir()
    (root / "submission_3" / "word2vec.py").write_text("# code only\n")


def test_export_writes_one_page_per_question_graded_by_hand(tmp_path, repo):
    make_export(tmp_path / "export", repo)
    students = gather(WORD2VEC, [tmp_path / "export"])
    assert [s.name for s in students] == ["Ada Lovelace", "Alan Turing", "Grace Hopper"]
    pages = export_pages(WORD2VEC, students, tmp_path / "pages")
    assert sorted(p.stem for p in pages) == sorted(q.id for q in WORD2VEC.config.manual_questions)
    page = (tmp_path / "pages" / "2e.html").read_text()
    assert "Answers: 2 of 3 students" in page
    assert "Keeps the direction." in page and "Directions survive." in page
    assert "No written answers found" in page  # Grace Hopper submitted no answer sheet
    assert "<summary>Reference answer</summary>" in page and "Dividing a vector by its length" in page
    assert "Suppose you classify short phrases" in page  # the question, from the handout
    gradient = (tmp_path / "pages" / "2b-ii.html").read_text()
    assert "<mi>a</mi><mo>*</mo><mi>b</mi>" in gradient and "&lt;script&gt;" in gradient
    assert gradient.count("<script") == 1  # the page's own, never the student's
    index = (tmp_path / "pages" / "index.html").read_text()
    assert 'href="2b-ii.html"' in index and "notes to myself" in index


def test_export_command_takes_answer_files(tmp_path, repo):
    (tmp_path / "alice").mkdir()
    (tmp_path / "alice" / "written.md").write_text("## 1c-i\n$\\hat y - y$\n")
    sources = [str(tmp_path / "alice" / "written.md"), str(repo / "solutions" / "written" / "word2vec.md")]
    run = subprocess.run([PYTHON, "-m", "autograder", "export-written", "word2vec", *sources,
                          "--out", str(tmp_path / "pages")],
                         cwd=repo, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "wrote 10 question pages for 2 students" in run.stdout
    page = (tmp_path / "pages" / "1c-i.html").read_text()
    assert "<h3>alice</h3>" in page and "Answers: 2 of 2 students" in page


def test_a_name_above_every_answer_is_only_a_note(tmp_path, repo):
    """A student's name or a title above the first answer is no answer: check-written notes it,
    and collect-submission still makes the zip."""
    folder = tmp_path / "work"
    shutil.copytree(repo / "assignment" / "word2vec", folder)
    (folder / "written.md").write_text("Ada Lovelace, student 1815\n\n## 2e\nDirections.\n")
    collected = collect_submission(WORD2VEC, folder)
    assert collected.written and collected.zip_path.exists() and collected.written_problems == []
    check = check_answers(folder / "written.md", WORD2VEC)
    assert check.notes == ["line 1: 'Ada Lovelace, student 1815' is above every answer and not graded "
                           "(fine for a name or a title)"]


def test_how_the_machine_read_a_formula_shows_symbols_not_latex_names():
    from autograder.course.mathml import in_symbols

    assert in_symbols("d/d\\theta read as U^T (\\hat y - y)") == "d/dθ read as U^T (ŷ - y)"
    assert in_symbols("\\hat{x}_j \\odot \\sigma(z)") == "x̂_j ⊙ σ(z)"
    assert in_symbols("\\unknown{a}") == "\\unknown{a}"  # a name it does not know stays as written


def test_a_verdict_shows_the_latex_it_quotes_typeset():
    from autograder.course.export_written import _verdict_line

    line = _verdict_line("d/du_w: unreadable: '\\frac{n_w}{K} v_c': K is a size of this notation")
    assert line.startswith("d/du_w: unreadable: “<math") and "<mfrac>" in line and "\\frac" not in line
    assert _verdict_line("d/d\\theta read as \\hat y - y: equal") == "d/dθ read as ŷ - y: equal"


def test_an_answers_images_and_links_are_shown_as_text():
    """A tracking pixel or a file of the TA's disk would be fetched when the page is opened."""
    html = render("![me](https://i.example.net/p.gif) ![disk](/etc/hostname) [notes](http://x.example) <http://y.example>")
    assert "<img" not in html and "<a " not in html and "![me](https://i.example.net/p.gif)" in html
