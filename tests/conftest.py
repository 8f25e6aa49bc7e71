"""Shared fixtures: the repository's paths and a grader that loads each reference only once."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from autograder.core.config import REPO_ROOT, Assignment, AssignmentConfig, load_assignment
from autograder.grading.grade import grade, module_names
from autograder.boundary.isolation import CREATE_USER, WORKER_USER, Isolation, detect_isolation
from autograder.grading.ownership import owners, units
from autograder.grading.reference import load_reference
from autograder.core.results import GradescopeResults
from autograder.grading.runner import collect_tests
from tests.fixtures.ewt import find_ewt, write_stand_in
from tests.simulated_gradescope import SimulatedGradescope

PYTHON = sys.executable

# One BLAS thread in the processes the suite starts (pytest-xdist's workers and every subprocess
# inherit this environment): xdist already keeps every core busy, and BLAS threads on top of that
# only contend. The full parser training took 20 minutes beside the rest of the suite with two BLAS
# threads, against about 6 alone.
for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")


class Grader:
    """Grades submissions of one assignment in this process, as ``python -m autograder grade``."""

    def __init__(self, assignment: Assignment, isolation: Isolation | None = None) -> None:
        self.assignment = assignment
        self.reference = load_reference(assignment.solution_dir, module_names(assignment.config))
        self.isolation = isolation or detect_isolation()
        self._bugs: dict = {}

    def __call__(self, submission: Path, include_hidden: bool = True) -> GradescopeResults:
        return grade(self.assignment, submission, include_hidden=include_hidden, reference=self.reference,
                     isolation=self.isolation)

    def graded_bug(self, bug, tmp_path: Path) -> GradescopeResults:
        """The results of the reference with ``bug`` planted, graded once per test session: several
        tests read the same grading (one that reruns training with the reference's helpers takes
        tens of seconds)."""
        cached = self._bugs.get(bug)
        if cached is None:
            cached = self._bugs[bug] = self(bug.apply(self.assignment.solution_dir, tmp_path / "submission"))
        return cached.model_copy(deep=True)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Where a run selects them, the files with the real-data tests first, the longest training
    (``realdata(minutes=N)``) first of all, then those that ask the package index: they train for
    minutes or wait on the network, and pytest-xdist, which keeps this order
    (``--no-loadscope-reorder`` in pyproject.toml), then gives them workers at the start instead of
    leaving them to run alone at the end."""
    def rank(item: pytest.Item) -> tuple[int, int]:
        if realdata := item.get_closest_marker("realdata"):
            return 0, -realdata.kwargs.get("minutes", 1)
        return (1 if item.get_closest_marker("index") else 2), 0

    items.sort(key=rank)


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def worker_user() -> str:
    """The user students' code runs as when the grader is root. Gradescope's setup.sh creates it;
    CI runs the suite as root on a throwaway machine, so the suite creates it there."""
    if os.geteuid() != 0:
        pytest.skip("students' code runs as another user only when the grader runs as root")
    if subprocess.run(["id", "-u", WORKER_USER], capture_output=True).returncode != 0:
        # Under pytest-xdist another worker may create it at the same moment: its useradd wins, ours
        # fails, and the user exists all the same.
        created = subprocess.run(CREATE_USER.split(), capture_output=True, text=True)
        exists = subprocess.run(["id", "-u", WORKER_USER], capture_output=True).returncode == 0
        assert exists, f"could not create {WORKER_USER}: {created.stderr}"
    return WORKER_USER


@pytest.fixture(scope="session")
def gradescope(worker_user: str, repo: Path) -> Iterator[SimulatedGradescope]:
    """The Gradescope layout, empty until a test installs an assignment's zip (``install``, by the zip's own
    setup.sh; the first one takes about 20 s): a session that needs only another assignment's, as the one
    tests/test_new_assignment.py runs, does not install word2vec's too. ``python`` and ``layout.source``
    exist only once a zip is installed."""
    simulated = SimulatedGradescope(repo)
    yield simulated
    simulated.remove()


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
    # Rounded as the grader rounds its totals: equal shares (thirds, fifths) sum inexactly in floats.
    return {q: (round(s, 9), round(m, 9)) for q, (s, m) in scores.items()}


def assert_complete(results: GradescopeResults, grader: Grader) -> None:
    assert_questions_complete(results, grader.assignment.config)


def assert_questions_complete(results: GradescopeResults, config: AssignmentConfig) -> None:
    """Every declared question is present with exactly its declared points."""
    scores = question_scores(results)
    # What results.json scores: the questions, and written ones graded by machine (auto_grade: true).
    assert sorted(scores) == sorted(q.id for q in config.scored_questions)
    for question in config.scored_questions:
        assert scores[question.id][1] == pytest.approx(question.points), question.id
    assert results.max_score == pytest.approx(config.graded_points)


def check_starter_scores_zero(grader: Grader, starter: Path) -> None:
    """The generated starter: graded without a crash, every question present, nothing earned."""
    results = grader(starter)
    assert_complete(results, grader)
    assert results.score == 0
    for test in results.tests:
        # The starter has no written answers: the tests of written questions say so instead.
        assert "not implemented yet" in test.output or "No written answers found" in test.output, \
            (test.number, test.output)
        assert "autograder itself failed" not in test.output


def check_bug_is_localised(bug, grader: Grader, reference: Path, tmp_path: Path) -> GradescopeResults:
    """A planted bug loses points only in the question that owns its function (error carried
    forward), or in one that owns a function of its unit (which shares its private state), in tests
    tagged with it."""
    config = grader.assignment.config
    tests = collect_tests(grader.assignment)
    owned = owners(config, {q: [t.tags for t in found] for q, found in tests.items()})
    owner = owned[bug.function]
    sharing = {owned[f] for f in units(config, owned)[bug.function] if f in owned}
    assert owner in bug.questions and bug.questions <= {owner} | sharing, (
        f"{bug.name}: the fixture expects {sorted(bug.questions)}, but {bug.function} belongs to {owner}")
    assert reference == grader.assignment.solution_dir
    results = grader.graded_bug(bug, tmp_path)
    assert_complete(results, grader)
    failed = lost_points(results)
    assert failed, f"{bug.name}: no test noticed the bug"
    for test in failed:
        assert bug.function in test.tags, f"{bug.name}: lost points in {test.number} tagged {test.tags}"
        assert test.output.strip() and "autograder itself failed" not in test.output
    assert {t.number.split(".")[0] for t in failed} == bug.questions
    return results


@pytest.fixture(scope="session")
def ewt_stand_in(tmp_path_factory) -> Path:
    """A tiny folder in UD English-EWT's layout, for bundles released without the real data."""
    return write_stand_in(tmp_path_factory.mktemp("ewt-stand-in"))


@pytest.fixture(scope="session")
def ewt() -> Path:
    """UD English-EWT, for the tests marked ``realdata``: asked for and missing, they fail, not skip."""
    found = find_ewt()
    where = "set UD_EWT_DIR to the folder that holds en_ewt-ud-{train,dev,test}.conllu"
    if found is None:
        pytest.fail(f"UD English-EWT was not found (the real-data tests need it): {where}")
    if not found.is_dir():
        pytest.fail(f"UD_EWT_DIR is {found}, which is not a folder: {where}")
    return found


def call_within(seconds: float, call):
    """``call()``'s outcome, or a failure (not a hung test run) if it is still waiting after ``seconds``."""
    outcome: list = []
    thread = threading.Thread(target=lambda: outcome.append(_outcome(call)), daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still waiting after {seconds} s: the grader hangs"
    return outcome[0]


def _outcome(call):
    try:
        return call()
    except Exception as exc:  # what the test then looks at
        return exc


def check_a_stopped_worker_times_out(sessions, spec) -> None:
    """A worker (from ``sessions``, the Linux or the portable kind) that SIGSTOPs itself while the
    grader writes it more than the pipe holds: the write has the question's deadline too, the stopped
    worker is killed at it (RLIMIT_CPU never fires for it), and the next question runs."""
    import numpy as np

    from autograder.boundary.session import WorkerTimeout

    with sessions(spec, 2.0, "3b") as worker:
        worker.call("mod.stop_soon")
        time.sleep(0.6)
        started = time.monotonic()
        outcome = call_within(30, lambda: worker.call("mod.value", np.zeros(3 * 2**20 // 8)))
        assert isinstance(outcome, WorkerTimeout), outcome
        assert "2 s time limit of question 3b" in str(outcome)
        assert time.monotonic() - started < 4
    with sessions(spec, 5.0, "3c") as fresh:
        assert fresh.call("mod.value", 1).value["sum"] == 2
