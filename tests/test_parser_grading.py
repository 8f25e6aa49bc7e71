"""The parser autograder, tested like a product: reference, starter, buggy submissions."""

from __future__ import annotations

import pytest

from autograder.config import load_assignment
from tests.conftest import Grader, assert_complete, check_bug_is_localised, check_starter_scores_zero, lost_points
from tests.fixtures.parser_bugs import BUGS


@pytest.fixture(scope="module")
def parser_grader() -> Grader:
    return Grader(load_assignment("parser"))


def test_reference_gets_full_marks(parser_grader, repo):
    results = parser_grader(repo / "solutions" / "parser")
    assert_complete(results, parser_grader)
    assert lost_points(results) == [] and results.score == pytest.approx(55)  # 50 code, 5 written


def test_starter_gets_zero_without_crashing(parser_grader, repo):
    check_starter_scores_zero(parser_grader, repo / "assignment" / "parser")


@pytest.mark.parametrize("bug", BUGS, ids=[b.name for b in BUGS])
def test_bug_loses_points_only_where_it_is(bug, parser_grader, repo, tmp_path):
    check_bug_is_localised(bug, parser_grader, repo / "solutions" / "parser", tmp_path)
