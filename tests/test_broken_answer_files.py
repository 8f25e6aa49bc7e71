"""A broken answer file costs only the written questions: the code beside it is graded as usual, and
grade, check-written, export-written and grade-batch each say what is wrong with the file."""

from __future__ import annotations

import html
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from autograder.course.grade_batch import run_batch
from autograder.core.config import load_assignment
from autograder.written.answer_file import MAX_ANSWER_BYTES
from autograder.written.answers import AnswersError, choose_answer_sheet, read_answers, submitted_answers
from autograder.course.export_written import export_pages, gather
from tests.conftest import PYTHON, Grader, question_scores
from tests.fixtures.export import write_export

pytestmark = pytest.mark.slow  # the end-to-end tier: -m slow (README: "Set up and test")

PARSER = load_assignment("parser")
WRITTEN = {q.id for q in PARSER.config.questions if q.kind == "written"}


def _notebook(cells: object, version: object = 4) -> str:
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": version, "nbformat_minor": 5})


# (answer file, its content, what the message must say)
BROKEN = {
    "schema-invalid": ("parser.ipynb", _notebook([{"cell_type": "markdown"}]),
                       "cell 1 has a 'source' that is missing"),
    "nbformat 99": ("parser.ipynb", _notebook([], version=99), "version 99 ('nbformat')"),
    "cells not objects": ("parser.ipynb", _notebook([1, "two"]), "cell 1 is a number, not an object"),
    "integer source": ("parser.ipynb", _notebook([{"cell_type": "markdown", "source": 5, "metadata": {}}]),
                       "cell 1 has a 'source' that is a number"),
    "deep nesting": ("parser.ipynb", "[" * 100_000 + "]" * 100_000, "nested too deeply"),
    "invalid JSON": ("parser.ipynb", '{"cells": [', "it is not valid JSON"),
    "a list": ("parser.ipynb", "[]", "it holds a list, not an object with 'cells'"),
    "not UTF-8": ("written.md", b"## 2a-ii\nAnswer: \xff\xfe 2n\n", "is not UTF-8 text"),
    "too large": ("written.md", "## 1b-ii\n" + "x" * MAX_ANSWER_BYTES, "larger than 8 MB, so it was not read; remove what"),
    "too many lines": ("written.md", "## 1b-ii\n" + "x\n" * 30_000, "lines of Markdown, more than the 20,000"),
}


def _write(folder: Path, name: str, content: str | bytes) -> Path:
    path = folder / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    return path


def _reference_with(folder: Path, name: str, content: str | bytes) -> Path:
    """The parser reference's code beside the broken answer file, and no other answer file."""
    folder.mkdir(parents=True)
    for file in PARSER.config.submission_files:
        if file not in PARSER.config.answer_files and (PARSER.solution_dir / file).is_file():
            shutil.copy(PARSER.solution_dir / file, folder / file)
    _write(folder, name, content)
    return folder


@pytest.fixture(scope="module")
def parser_grader() -> Grader:
    return Grader(PARSER)


@pytest.mark.parametrize("case", BROKEN)
def test_a_broken_answer_file_is_refused_with_what_is_wrong(case, tmp_path):
    name, content, message = BROKEN[case]
    with pytest.raises(AnswersError, match=message.replace("(", r"\(").replace(")", r"\)")):
        read_answers(_write(tmp_path, name, content), PARSER.config)
    found = submitted_answers(tmp_path, PARSER.config)
    assert found.sheet is None and message in found.note


# Every broken notebook, and one broken Markdown file (the others fail the same way, as shown above).
@pytest.mark.parametrize("case", [case for case, (name, _, _) in BROKEN.items() if name.endswith(".ipynb")]
                         + ["not UTF-8"])
def test_correct_code_beside_a_broken_answer_file_gets_every_code_point(case, parser_grader, tmp_path):
    name, content, message = BROKEN[case]
    results = parser_grader(_reference_with(tmp_path / "submission", name, content))
    scores = question_scores(results)
    for question in PARSER.config.questions:
        expected = 0.0 if question.id in WRITTEN else question.points
        assert scores[question.id] == (pytest.approx(expected), question.points), question.id
    written = [t for t in results.tests if t.number.split(".")[0] in WRITTEN]
    assert written and all(message in t.output for t in written)
    assert message in results.output  # the note of the whole submission says it too


def test_a_linked_answer_file_is_named_and_not_read(tmp_path, repo):
    (tmp_path / "written.md").symlink_to(repo / "solutions" / "parser" / "written.md")
    found = choose_answer_sheet(tmp_path, PARSER.config)
    assert found.sheet is None
    assert "written.md is a link, which the grader does not follow: submit the file itself" in found.note
    with pytest.raises(AnswersError, match="is a symbolic link"):
        read_answers(tmp_path / "written.md", PARSER.config, follow_links=False)
    assert read_answers(tmp_path / "written.md", PARSER.config).answered("2a-ii")  # named by hand: read


def test_a_fifo_or_folder_in_place_of_the_answer_file_is_refused(tmp_path):
    os.mkfifo(tmp_path / "written.md")  # opening it must not wait for a writer
    with pytest.raises(AnswersError, match="not a regular file"):
        read_answers(tmp_path / "written.md", PARSER.config)
    (tmp_path / "parser.ipynb").mkdir()
    with pytest.raises(AnswersError, match="is a folder"):
        read_answers(tmp_path / "parser.ipynb", PARSER.config)


def test_check_written_says_what_is_wrong_with_the_file(tmp_path, repo):
    name, content, message = BROKEN["integer source"]
    run = subprocess.run([PYTHON, "-m", "autograder", "check-written", "parser", str(_write(tmp_path, name, content))],
                         cwd=repo, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and message in run.stderr, run.stdout + run.stderr


def test_export_written_lists_the_broken_file_and_shows_the_others(tmp_path, repo):
    broken, good = tmp_path / "bob", tmp_path / "alice"
    broken.mkdir()
    good.mkdir()
    _write(broken, "parser.ipynb", BROKEN["nbformat 99"][1])
    shutil.copy(repo / "solutions" / "parser" / "written.md", good / "written.md")
    students = gather(PARSER, [broken, good])
    assert [s.name for s in students] == ["alice", "bob"]
    assert students[0].sheet is not None and students[1].sheet is None
    assert BROKEN["nbformat 99"][2] in students[1].note
    export_pages(PARSER, students, tmp_path / "pages")
    assert html.escape(BROKEN["nbformat 99"][2]) in (tmp_path / "pages" / "index.html").read_text()


def test_grade_batch_grades_the_code_beside_broken_answer_files(tmp_path):
    planted = write_export(tmp_path / "export", PARSER, ["reference", "reference"])
    cases = ["deep nesting", "not UTF-8"]
    for entry, case in zip(planted, cases):
        name, content, _ = BROKEN[case]
        folder = tmp_path / "export" / "assignment_4242_export" / entry.name
        for answers in PARSER.config.answer_files:
            (folder / answers).unlink(missing_ok=True)
        _write(folder, name, content)
    outcome = run_batch(PARSER, tmp_path / "export", tmp_path / "out")
    assert sorted(outcome.graded) == sorted(entry.name for entry in planted) and not outcome.not_graded
    code_points = PARSER.config.total_points - sum(q.points for q in PARSER.config.questions if q.id in WRITTEN)
    for entry, case in zip(planted, cases):
        results = json.loads((tmp_path / "out" / "submissions" / entry.name / "results.json").read_text())
        assert results["score"] == pytest.approx(code_points)
        assert BROKEN[case][2] in results["output"]
