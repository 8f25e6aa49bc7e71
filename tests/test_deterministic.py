"""Grading is deterministic: the same submission graded twice gives the same results.json, apart from
``execution_time`` (a regrade of a class must not move anybody's score or feedback)."""

from __future__ import annotations

import pytest

from tests.fixtures.word2vec_bugs import BUGS

# Its overflow warnings print the path of the student's file, which lives in a scratch folder with a
# random name: the case that made feedback differ between two gradings.
OVERFLOW = next(b for b in BUGS if b.name == "softmax overflows on large inputs")


@pytest.mark.parametrize("kind", ["reference", "starter", "buggy"])
def test_grading_twice_gives_identical_results(kind, word2vec_grader, repo, tmp_path):
    submission = {"reference": repo / "solutions" / "word2vec", "starter": repo / "assignment" / "word2vec",
                  "buggy": tmp_path / "buggy"}[kind]
    if kind == "buggy":
        OVERFLOW.apply(repo / "solutions" / "word2vec", submission)
    first, second = (word2vec_grader(submission).model_dump_json(exclude={"execution_time"}, indent=1)
                     for _ in range(2))
    assert first == second
    if kind == "buggy":
        assert "nn_basics.py:" in first and "RuntimeWarning" in first  # the path is there, but stable
        assert "ag-worker-" not in first
