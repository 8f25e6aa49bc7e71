"""Grades mutants as the product does: twice with every test (``grade``), once as the student's
``check`` does in the bundle (public tests, expected values from the bundle's recording).

Runs in a pool of processes; each loads the reference and detects the machine's protections once.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

from autograder.boundary.isolation import Isolation, detect_isolation
from autograder.core.config import Assignment, load_assignment
from autograder.core.results import GradescopeResults, read_results
from autograder.grading.grade import grade, module_names, question_of
from autograder.grading.ownership import owners, units
from autograder.grading.reference import load_reference
from autograder.grading.runner import collect_tests

_LOADED: dict[str, tuple[Assignment, SimpleNamespace, Isolation]] = {}


@dataclass
class Graded:
    """What grading one mutant gave: per-test scores of each run, and the test's question."""

    grades: list[dict[str, float]] = field(default_factory=list)
    check: dict[str, float] = field(default_factory=dict)
    pending: list[str] = field(default_factory=list)  # public tests check left pending
    maximum: dict[str, float] = field(default_factory=dict)
    outputs: dict[str, str] = field(default_factory=dict)  # the first grading's feedback per test
    check_outputs: dict[str, str] = field(default_factory=dict)

    def lost(self, run: int = 0) -> dict[str, float]:
        """Points lost per question in grading ``run``."""
        lost: dict[str, float] = {}
        for number, score in self.grades[run].items():
            missing = self.maximum[number] - score
            if missing > 1e-9:
                lost[question_of(number)] = lost.get(question_of(number), 0.0) + missing
        return lost


def _loaded(name: str) -> tuple[Assignment, SimpleNamespace, Isolation]:
    if name not in _LOADED:
        assignment = load_assignment(name)
        reference = load_reference(assignment.solution_dir, module_names(assignment.config))
        _LOADED[name] = assignment, reference, detect_isolation()
    return _LOADED[name]


def _scores(results: GradescopeResults) -> dict[str, float]:
    return {t.number: t.score for t in results.tests}


def grade_mutant(name: str, folder: str, bundle: str, runs: int = 2) -> Graded:
    assignment, reference, isolation = _loaded(name)
    graded = Graded()
    for run in range(runs):
        results = grade(assignment, Path(folder), reference=reference, isolation=isolation)
        graded.grades.append(_scores(results))
        if run == 0:
            graded.maximum = {t.number: t.max_score for t in results.tests}
            graded.outputs = {t.number: t.output for t in results.tests}
    checked = _bundle_check(name, Path(folder), Path(bundle))
    graded.check = {t.number: t.score for t in checked.tests if not t.number.endswith(".999")}
    graded.pending = [t.number for t in checked.tests if t.extra_data.get("pending")]
    graded.check_outputs = {t.number: t.output for t in checked.tests}
    return graded


def _bundle_check(name: str, folder: Path, bundle: Path) -> GradescopeResults:
    """The student's ``check``, run in the bundle by the bundle's own framework."""
    out = folder / "check-results.json"
    subprocess.run([sys.executable, "-m", "autograder", "check", name, str(folder), "--results", str(out)],
                   cwd=bundle, capture_output=True, timeout=900)
    return read_results(out)


def owner_map(name: str) -> tuple[dict[str, str], dict[str, set[str]]]:
    """Each student function's owner question, as the grader decides it, and the questions that own
    a function of its unit (those that share its private state: autograder.grading.ownership)."""
    assignment = load_assignment(name)
    tests = collect_tests(assignment)
    owner = owners(assignment.config, {q: [t.tags for t in found] for q, found in tests.items()})
    unit = units(assignment.config, owner)
    return owner, {f: {owner[g] for g in unit[f] if g in owner} for f in owner}
