"""The parser autograder, tested like a product: reference, starter, buggy submissions."""

from __future__ import annotations

import pytest

from autograder.config import load_assignment
from tests.conftest import Grader, lost_points
from tests.fixtures.parser_bugs import BUGS
from tests.test_word2vec_grading import assert_complete


@pytest.fixture(scope="module")
def parser_grader() -> Grader:
    return Grader(load_assignment("parser"))


def test_reference_gets_full_marks(parser_grader, repo):
    results = parser_grader(repo / "solutions" / "parser")
    assert_complete(results, parser_grader)
    assert lost_points(results) == [] and results.score == pytest.approx(50)


def test_starter_gets_zero_without_crashing(parser_grader, repo):
    results = parser_grader(repo / "assignment" / "parser")
    assert_complete(results, parser_grader)
    assert results.score == 0
    for test in results.tests:
        assert "not implemented yet" in test.output, (test.number, test.output)


@pytest.mark.parametrize("bug", BUGS, ids=[b.name for b in BUGS])
def test_bug_loses_points_only_where_it_is(bug, parser_grader, repo, tmp_path):
    results = parser_grader(bug.apply(repo / "solutions" / "parser", tmp_path / "submission"))
    assert_complete(results, parser_grader)
    failed = lost_points(results)
    assert failed, f"{bug.name}: no test noticed the bug"
    for test in failed:
        assert bug.function in test.tags, f"{bug.name}: lost points in {test.number} tagged {test.tags}"
        assert test.output.strip() and "autograder itself failed" not in test.output
    assert {t.number.split(".")[0] for t in failed} == bug.questions
