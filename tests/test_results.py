"""results.json models, the atomic writer, and the assembly that keeps every question's points."""

from __future__ import annotations

import json
import math
import os
import stat

import pytest
from pydantic import ValidationError

from autograder.grading import grade as grading
from autograder.core.config import AssignmentConfig, Question
from autograder.core import results as res
from autograder.core.results import GradescopeResults, read_results, write_results


def row(number: str = "1.1", score: float = 1.0, max_score: float = 2.0, **extra) -> dict:
    return {"name": f"test {number}", "number": number, "score": score, "max_score": max_score,
            "status": "passed" if score >= max_score else "failed", **extra}


def as_rows(*rows: dict) -> list[res.TestResult]:
    return [res.TestResult.model_validate(r) for r in rows]


def results(*rows: dict, **extra) -> GradescopeResults:
    tests = as_rows(*rows)
    return GradescopeResults(score=sum(t.score for t in tests), execution_time=1.25, tests=tests,
                             **extra)


@pytest.fixture
def config() -> AssignmentConfig:
    return AssignmentConfig(
        name="fake", title="Fake", total_points=10, submission_files=["mod.py"],
        questions=[Question(id="1", title="Loss", points=4),
                   Question(id="2a", title="Gradient", points=6, visibility="after_due_date")])


# ----------------------------------------------------------------------------------------------
# models


def test_valid_test_result_defaults():
    test = res.TestResult.model_validate(row())
    assert (test.output, test.output_format, test.visibility, test.tags) == ("", "text", "visible", [])


@pytest.mark.parametrize("score, max_score", [(2.5, 2.0), (-0.5, 2.0), (1.0, -1.0)])
def test_score_outside_zero_to_max_is_rejected(score, max_score):
    with pytest.raises(ValidationError):
        res.TestResult.model_validate(row(score=score, max_score=max_score))


@pytest.mark.parametrize("score", [math.nan, math.inf, -math.inf])
def test_non_finite_score_is_rejected(score):
    with pytest.raises(ValidationError, match="finite"):
        res.TestResult.model_validate(row(score=score))


@pytest.mark.parametrize("change", [{"status": "error"}, {"visibility": "secret"},
                                    {"output_format": "pdf"}, {"surprise": 1}])
def test_unknown_values_and_fields_are_rejected(change):
    with pytest.raises(ValidationError):
        res.TestResult.model_validate({**row(), **change})


def test_top_level_score_must_equal_the_sum_of_tests():
    tests = [res.TestResult.model_validate(row("1.1", 1, 2)), res.TestResult.model_validate(row("1.2", 2, 2))]
    assert GradescopeResults(score=3.0, execution_time=0, tests=tests).max_score == 4.0
    with pytest.raises(ValidationError, match="differs from the sum"):
        GradescopeResults(score=4.0, execution_time=0, tests=tests)
    with pytest.raises(ValidationError):
        GradescopeResults(score=3.0, execution_time=-1, tests=tests)


# ----------------------------------------------------------------------------------------------
# writing


def test_write_results_is_valid_json_and_round_trips(tmp_path):
    original = results(row("1.1", 1, 2, tags=["mod.f"], visibility="hidden", output="why"),
                       row("1.2", 0, 3), output="note")
    path = tmp_path / "deep" / "results" / "results.json"
    write_results(original, path)
    assert sorted(os.listdir(path.parent)) == ["results.json"]  # no temporary file left behind
    data = json.loads(path.read_text())
    assert data["score"] == 1.0 and data["execution_time"] == 1.25  # a number, not a string
    assert "visibility" not in data and "stdout_visibility" not in data  # None is left out
    assert [t["number"] for t in data["tests"]] == ["1.1", "1.2"]
    assert read_results(path) == original


def test_write_results_replaces_atomically_and_cleans_up_on_failure(tmp_path, monkeypatch):
    path = tmp_path / "results.json"
    write_results(results(row("1.1", 2, 2)), path)
    before = path.read_text()

    def failing_replace(src, dst):
        raise OSError("disk went away")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError, match="disk went away"):
        write_results(results(row("1.1", 0, 2)), path)
    assert path.read_text() == before  # the old file is intact, never half written
    assert os.listdir(tmp_path) == ["results.json"]


def _null_device(path) -> None:
    """A character device like /dev/null (1, 3), in a folder of the test's own."""
    if os.geteuid() != 0:
        pytest.skip("making a device node needs root")
    os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))


@pytest.mark.parametrize("plant", [
    _null_device, os.mkfifo, os.mkdir, lambda path: os.symlink(path.parent / "elsewhere.json", path),
], ids=["device like /dev/null", "fifo", "folder", "link"])
def test_write_results_refuses_to_replace_anything_but_a_regular_file(plant, tmp_path):
    path = tmp_path / "results.json"
    plant(path)
    before = os.lstat(path)
    with pytest.raises(res.UnsafeDestination, match="is not a regular file .* choose another path"):
        write_results(results(row("1.1", 2, 2)), path)
    after = os.lstat(path)  # the very same thing is still there: as root, --results /dev/null
    assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)  # must not replace it
    assert os.listdir(tmp_path) == ["results.json"]


def test_write_results_revalidates_and_writes_nothing_when_invalid(tmp_path):
    bad = GradescopeResults.model_construct(score=99.0, execution_time=0.0, output="",
                                            output_format="text", visibility=None,
                                            stdout_visibility=None, extra_data={},
                                            tests=[res.TestResult.model_validate(row("1.1", 1, 2))])
    with pytest.raises(ValidationError):
        write_results(bad, tmp_path / "results.json")
    assert os.listdir(tmp_path) == []


# ----------------------------------------------------------------------------------------------
# grading.assemble / fallback_results


def test_assemble_adds_a_failing_row_for_a_question_without_tests(config):
    rows = as_rows(row("1.1", 1, 1), row("1.2", 0, 3))
    assembled = grading.assemble(config, rows, output="found mod.py", seconds=2.3456)
    assert [t.number for t in assembled.tests] == ["1.1", "1.2", "2a.999"]
    filler = assembled.tests[-1]
    assert (filler.score, filler.max_score, filler.status) == (0.0, 6.0, "failed")
    assert filler.visibility == "after_due_date" and "could not be graded" in filler.output
    assert assembled.max_score == config.total_points and assembled.score == 1.0
    assert assembled.execution_time == 2.346 and assembled.output == "found mod.py"


def test_assemble_tops_up_a_question_whose_tests_are_partly_missing(config):
    assembled = grading.assemble(config, as_rows(row("1.1", 1, 1), row("2a.1", 2, 2)))
    fillers = {t.number: t.max_score for t in assembled.tests if t.number.endswith(".999")}
    assert fillers == {"1.999": 3.0, "2a.999": 4.0}
    assert assembled.max_score == 10.0 and assembled.score == 3.0


def test_assemble_public_only_adds_no_filler(config):
    assembled = grading.assemble(config, as_rows(row("1.1", 1, 1)), include_hidden=False)
    assert [t.number for t in assembled.tests] == ["1.1"]


def test_assemble_refuses_tests_worth_more_than_the_question(config):
    with pytest.raises(AssertionError, match="question 1: tests are worth 5 points, more than its 4"):
        grading.assemble(config, as_rows(row("1.1", 0, 5)))


def test_fallback_results_list_every_question_with_full_points(config):
    fallback = grading.fallback_results(config, "submission has no mod.py", seconds=0.5)
    assert [(t.number, t.score, t.max_score, t.status) for t in fallback.tests] == [
        ("1.0", 0.0, 4.0, "failed"), ("2a.0", 0.0, 6.0, "failed")]
    assert all(t.output == "submission has no mod.py" for t in fallback.tests)
    assert [t.visibility for t in fallback.tests] == ["visible", "after_due_date"]
    assert fallback.score == 0.0 and fallback.max_score == config.total_points
    assert "could not grade" in fallback.output


def test_summarize_reports_per_question(config):
    assembled = grading.assemble(config, as_rows(row("1.1", 1, 1), row("1.2", 0, 3, output="\nwrong shape\n")))
    summary = {s.id: s for s in grading.summarize(config, assembled)}
    assert (summary["1"].score, summary["1"].max_score, summary["1"].status) == (1.0, 4.0, "partial")
    assert summary["1"].reason == "wrong shape"
    assert summary["2a"].status == "failed" and summary["2a"].max_score == 6.0
