"""Bugs written blind: by a helper who never read the grader, as students write them.

tests/fixtures/blind_bugs.py holds 63 buggy submissions (one bug each, in every function students
write, in the reference's code or in a student's own way of writing it) and 8 correct ones written
another way. Their first run found 7 bugs that cost nothing, 6 charged outside their question and
one where the bundle's check blamed another question than the grader (benchmarks/README.md, section
10); they are kept here so that none of that comes back. Each bug must cost points, only in the
question that owns its function, in tests tagged with it; each correct alternative full marks.
"""

from __future__ import annotations

import pytest

from autograder.core.config import load_assignment
from tests.conftest import Grader, assert_complete, check_bug_is_localised, lost_points
from tests.fixtures import blind_bugs

pytestmark = pytest.mark.slow  # the end-to-end tier: -m slow (README: "Set up and test")


@pytest.fixture(scope="module")
def graders() -> dict[str, Grader]:
    return {name: Grader(load_assignment(name)) for name in ("word2vec", "parser")}


BUGS = [("word2vec", b) for b in blind_bugs.WORD2VEC] + [("parser", b) for b in blind_bugs.PARSER]
CORRECT = [("word2vec", b) for b in blind_bugs.CORRECT_WORD2VEC] + [("parser", b) for b in blind_bugs.CORRECT_PARSER]


@pytest.mark.parametrize("name, bug", BUGS, ids=[f"{n}: {b.name}" for n, b in BUGS])
def test_blind_bug_costs_points_only_where_it_is(name, bug, graders, repo, tmp_path):
    check_bug_is_localised(bug, graders[name], repo / "solutions" / name, tmp_path)


@pytest.mark.parametrize("name, variant", CORRECT, ids=[f"{n}: {b.name}" for n, b in CORRECT])
def test_blind_correct_alternative_gets_full_marks(name, variant, graders, repo, tmp_path):
    results = graders[name](variant.apply(repo / "solutions" / name, tmp_path / "submission"))
    assert_complete(results, graders[name])
    assert lost_points(results) == [], [(t.number, t.output) for t in lost_points(results)]
