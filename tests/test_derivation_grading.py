"""Where the machine's verdict on final formulas shows: export-written's pages, results.json and the
gradebook, a question the config auto-grades, and check-written (which never says right or wrong)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from autograder.core.config import ConfigError, load_assignment
from autograder.course.export_written import export_pages, gather
from autograder.grading.derivation_grading import EXTRA_KEY, derivations_to_judge
from autograder.grading.grade import check_ready, grade, summarize
from autograder.written.check_written import check_answers

REPO = Path(__file__).resolve().parent.parent
REFERENCE = (REPO / "solutions" / "written" / "word2vec.md").read_text()
OPPOSITE = "\n\nAnswer: $U^\\top (y - \\hat y)$\n"  # the final formula of 2b-ii, with the wrong sign


def _with_wrong_2b_ii(text: str) -> str:
    """The reference answers with an Answer: line of the wrong sign at the end of 2b-ii."""
    return text.replace("## 2b-iii.", OPPOSITE + "\n## 2b-iii.", 1)


def _auto_graded(ids: tuple[str, ...]):
    assignment = load_assignment("word2vec")
    manual = [q.model_copy(update={"auto_grade": q.id in ids}) for q in assignment.config.manual_questions]
    return dataclasses.replace(assignment, config=assignment.config.model_copy(update={"manual_questions": manual}))


@pytest.mark.smoke
def test_export_pages_show_verdicts_and_group_answers_by_them(tmp_path):
    (tmp_path / "zoe.md").write_text(_with_wrong_2b_ii(REFERENCE))
    (tmp_path / "adam.md").write_text(REFERENCE)
    assignment = load_assignment("word2vec")
    export_pages(assignment, gather(assignment, [tmp_path / "zoe.md", tmp_path / "adam.md"]), tmp_path / "pages")
    page = (tmp_path / "pages" / "2b-ii.html").read_text()
    assert "The machine's check of the final formula: 1 equal · 1 not equal." in page
    # Equal answers first, whatever the names' order; the other says how it differs.
    assert page.index("<h3>adam</h3>") < page.index("<h3>zoe</h3>")
    assert page.count('class="verdict equal"') == 1 and page.count('class="verdict not-equal"') == 1
    assert "it has the opposite sign" in page
    index = (tmp_path / "pages" / "index.html").read_text()
    assert "Final formula, checked by machine" in index and "1 equal · 1 not equal" in index
    assert "2 equal" in (tmp_path / "pages" / "1d-i.html").read_text()
    assert "checked by machine" not in (tmp_path / "pages" / "2e.html").read_text()  # no formula asked


def test_results_keep_verdicts_and_auto_graded_questions_score(tmp_path):
    submission = tmp_path / "submission"
    submission.mkdir()
    for name in ("nn_basics.py", "word2vec.py", "sgd.py"):
        (submission / name).write_text((REPO / "solutions" / "word2vec" / name).read_text())
    (submission / "written.md").write_text(_with_wrong_2b_ii(REFERENCE))
    kept = grade(load_assignment("word2vec"), submission)
    assert kept.score == 40 and kept.extra_data[EXTRA_KEY]["2b-ii"]["status"] == "not equal"
    assert kept.extra_data[EXTRA_KEY]["1d-i"]["status"] == "equal"
    assignment = _auto_graded(("2b-ii", "1d-i"))
    results = grade(assignment, submission)
    rows = {t.number: t for t in results.tests if t.number.endswith(".1") and "-" in t.number}
    assert rows["1d-i.1"].score == 3 and rows["1d-i.1"].status == "passed"
    assert rows["2b-ii.1"].score == 0 and "opposite sign" in rows["2b-ii.1"].output
    assert rows["2b-ii.1"].visibility == "after_due_date"
    assert results.score == 43 and assignment.config.graded_points == 46
    summary = {s.id: (s.score, s.max_score) for s in summarize(assignment.config, results)}
    assert summary["2b-ii"] == (0, 3) and summary["1d-i"] == (3, 3)


def test_a_question_auto_graded_without_a_final_formula_is_refused():
    assignment = _auto_graded(("2e",))
    with pytest.raises(ConfigError, match="2e is auto_grade in the config but not in DERIVATIONS"):
        derivations_to_judge(assignment)
    with pytest.raises(ConfigError, match="DERIVATIONS"):
        check_ready(assignment)


@pytest.mark.smoke
def test_check_written_says_what_it_read_never_whether_it_is_right(tmp_path):
    path = tmp_path / "written.md"
    path.write_text(_with_wrong_2b_ii(REFERENCE))
    check = check_answers(path, load_assignment("word2vec"))
    status = {q.id: q for q in check.questions}
    assert "read as U^T (y - \\hat y)" in status["2b-ii"].note and status["2b-ii"].readable
    assert not any("equal" in q.note for q in check.questions)  # nothing compared
    path.write_text("## 2b-ii\n\n$$\\frac{\\partial J}{\\partial v_c} = \\Delta (\\hat y - y)$$\n")
    check = check_answers(path, load_assignment("word2vec"))
    assert not check.to_fix  # graded by hand: advice, no reason to refuse the submission
    assert any("2b-ii" in n and "Delta is not a symbol" in n and "handout's symbols" in n for n in check.notes)
    check = check_answers(path, _auto_graded(("2b-ii",)))
    assert any("2b-ii" in p and "cannot be read" in p for p in check.to_fix)  # auto-graded: it costs points


def test_no_note_on_written_scores_where_results_json_scores_no_written_answer():
    """word2vec's written questions are graded by hand: reading its answers for the verdicts must not
    tell a student who sent none that "the written questions score 0"; auto-graded, it must."""
    starter = REPO / "assignment" / "word2vec"
    results = grade(load_assignment("word2vec"), starter)
    assert "No written answers found" not in results.output
    assert {v["status"] for v in results.extra_data[EXTRA_KEY].values()} == {"unanswered"}
    assert "No written answers found" in grade(_auto_graded(("2b-ii",)), starter).output
