"""Shared fixtures: the repository's paths and a grader that loads each reference only once."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from autograder.config import REPO_ROOT, Assignment, load_assignment
from autograder.grading import grade, module_names
from autograder.reference import load_reference
from autograder.results import GradescopeResults

PYTHON = sys.executable


class Grader:
    """Grades submissions of one assignment in this process, as ``python -m autograder grade``."""

    def __init__(self, assignment: Assignment) -> None:
        self.assignment = assignment
        self.reference = load_reference(assignment.solution_dir, module_names(assignment.config))

    def __call__(self, submission: Path, include_hidden: bool = True) -> GradescopeResults:
        return grade(self.assignment, submission, include_hidden=include_hidden, reference=self.reference)


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def word2vec_grader() -> Grader:
    return Grader(load_assignment("word2vec"))


def lost_points(results: GradescopeResults) -> list:
    return [t for t in results.tests if t.score < t.max_score - 1e-9]


def question_scores(results: GradescopeResults) -> dict[str, tuple[float, float]]:
    scores: dict[str, list[float]] = {}
    for test in results.tests:
        entry = scores.setdefault(test.number.split(".")[0], [0.0, 0.0])
        entry[0] += test.score
        entry[1] += test.max_score
    return {q: (s, m) for q, (s, m) in scores.items()}
