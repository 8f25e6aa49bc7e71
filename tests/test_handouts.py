"""Handouts: the generated files match their sources, every written question is asked and answered."""

from __future__ import annotations

import re
import base64
import shutil

import nbformat
import pytest

from autograder.assignments.parser.handout import GOLD_TREE
from autograder.core.config import Assignment, available_assignments, load_assignment
from autograder.handout.handouts import build, stale
from autograder.written.handout_source import HandoutError, load_handout
from autograder.written.answers import METADATA_KEY, read_answers
from autograder.assignments.parser.arc_standard import Configuration

pytestmark = pytest.mark.smoke  # also run on Python 3.10 and the newest Python (.ci/run)

# The written questions the course's two assignments ask (issue "Handouts, written answers..."), by our ids;
# any other assignment is checked against its own config.
LISTED = {
    "word2vec": {"1c-i": "yhat - y", "1d-i": "gradient for the input x", "2b-i": "naive softmax = CE",
                 "2b-ii": "dJ/dv_c", "2b-iii": "dJ/du_w", "2b-iv": "dJ/dU", "2c-i": "negative sampling",
                 "2c-ii": "repeated negatives", "2d-i": "skip-gram sum", "2e": "normalisation"},
    "parser": {"1a-i": "Adam mean", "1a-ii": "Adam sqrt(v)", "1b-i": "gamma", "1b-ii": "train vs eval",
               "1c-i": "dh/dx", "1c-ii": "dCE/dl", "2a-i": "transition table", "2a-ii": "2n"},
}


REFERENCE_LENGTH = 150


@pytest.mark.parametrize("name", available_assignments())
def test_generated_files_equal_the_committed_ones(name):
    """Notebook, answer sheet and figures regenerate byte for byte (else: python -m autograder handouts)."""
    assert stale(build(load_assignment(name))) == []


@pytest.mark.parametrize("name", available_assignments())
def test_every_listed_question_is_asked_and_has_a_reference_answer(name, repo):
    assignment = load_assignment(name)
    written = {q.id for q in assignment.config.written_questions}
    assert set(LISTED.get(name, written)) == written
    assert {q.id for q in load_handout(assignment).written} == written, "the handout asks other written questions"
    reference = read_answers(repo / "solutions" / "written" / f"{name}.md", assignment.config)
    short = {q: len(reference.text(q).strip()) for q in written if len(reference.text(q).strip()) <= REFERENCE_LENGTH}
    assert not short, (
        f"reference answers must be over {REFERENCE_LENGTH} characters (a model answer with its reasoning, which the "
        f"export pages show the TAs); in solutions/written/{name}.md these are not: {short}"
    )
    assert reference.problems == []


@pytest.mark.parametrize("name", available_assignments())
def test_notebook_cells(name, repo):
    assignment = load_assignment(name)
    notebook = nbformat.read(repo / "handouts" / f"{name}.ipynb", as_version=4)
    nbformat.validate(notebook)
    answers = [c.metadata[METADATA_KEY]["question"] for c in notebook.cells
               if c.metadata[METADATA_KEY]["role"] == "answer"]
    assert sorted(answers) == sorted(q.id for q in assignment.config.written_questions)
    code = "\n".join(c.source for c in notebook.cells if c.cell_type == "code")
    for command in (f"-m autograder check {name}", f"-m autograder check-written {name}",
                    f"-m autograder collect-submission {name}"):
        assert command in code
    prompts = "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
    for question in assignment.config.written_questions:
        points = f"({question.points:g} point{'s' if question.points != 1 else ''};"
        assert f"{question.id}. " in prompts and points in prompts, question.id


def test_gold_tree_picture(repo):
    svg = (repo / "handouts" / "figures" / "parser_gold_tree.svg").read_text()
    arcs = [line for line in svg.splitlines() if "<path d=\"M" in line and " C" in line]
    assert len(arcs) == len(GOLD_TREE.words)  # one arc per word
    for word in ("ROOT", *GOLD_TREE.words):
        assert f">{word}</text>" in svg
    notebook = nbformat.read(repo / "handouts" / "parser.ipynb", as_version=4)
    embedded = [cell.attachments["parser_gold_tree.svg"]["image/svg+xml"] for cell in notebook.cells
                if "attachments" in cell]
    assert [base64.b64decode(data).decode() for data in embedded] == [svg]


def test_gold_tree_oracle_builds_exactly_its_arcs():
    state, found = Configuration.initial(GOLD_TREE.words), set()
    for transition in GOLD_TREE.oracle():
        assert state.why_illegal(transition) is None
        state, arc = state.apply(transition)
        found |= {arc} if arc else set()
    assert found == GOLD_TREE.arcs and state == Configuration(("ROOT",), ())


def test_a_handout_that_disagrees_with_the_config_is_refused(tmp_path, repo):
    shutil.copytree(repo / "handouts", tmp_path / "handouts")
    source = tmp_path / "handouts" / "parser.md"
    text = source.read_text()
    text = text.replace("#### 1a-ii. Dividing by the square root of v (2 points; written)",
                        "#### 1a-ii. Dividing by the square root of v (3 points; written)")
    text = text.replace("(1 point; written, auto-graded)", "(1 point; written)", 1)
    source.write_text(text.replace("### 3c. The backward pass (6 points; code)", "### 3c. The backward pass"))
    with pytest.raises(HandoutError) as error:
        load_handout(Assignment(load_assignment("parser").config, tmp_path))
    message = str(error.value)
    assert "1a-ii says 3 points, the config 2" in message
    assert "1b-i says 'written', the config makes it 'written, auto-graded'" in message
    assert "question 3c of the config has no heading in the handout" in message


def test_the_notation_table_answers_no_question(repo):
    """The catalogue's examples are right answers: the handouts show the notations only."""
    from autograder.written.derivations.catalogue import SPELLINGS

    notebooks = " ".join((repo / "handouts" / f"{name}.ipynb").read_text() for name in ("word2vec", "parser"))
    flat = " ".join(notebooks.replace("\\\\", "\\").split())
    for spelling in SPELLINGS:
        for formula in re.findall(r"\$\$(.+?)\$\$", spelling.example, flags=re.DOTALL):
            assert " ".join(formula.split()) not in flat, formula
