"""The hostile catalogue (tests/fixtures/hostile.py), graded as root with the students' code running as
the worker's user, against the unpacked Gradescope layout: source/ (reference, hidden tests) private.

For every attack: a valid results.json with every question at its declared maximum, the questions the
attack does not touch at full credit, the stolen or forged thing not happening, and grading within
the sum of the time limits. Most attacks go through the same grade() run_autograder uses, with the
question under attack given a short time limit; theft, forged results and network go through the
real run_autograder of the built zip.
"""

from __future__ import annotations

import re
import shutil
import socket
from pathlib import Path

import pytest

from autograder.core.config import Assignment, AssignmentConfig, available_assignments, load_assignment
from autograder.course.gradescope import harden
from autograder.boundary.isolation import detect_isolation
from autograder.core.results import GradescopeResults
from autograder.core.submission import locate
from tests.conftest import Grader, assert_questions_complete, lost_points
from tests.fixtures.hostile import (ATTACKS, CANARY, FORGED_RESULTS, FORK_BOMB, SMUGGLE, THEFT, ProcessWatch,
                                    network)

pytestmark = pytest.mark.slow  # the end-to-end tier: -m slow (README: "Set up and test")


def _quick(config: AssignmentConfig) -> AssignmentConfig:
    """Question 3 (sgd, under attack) and the import check with short limits; the rest as they are."""
    questions = [q.model_copy(update={"time_limit": 5.0}) if q.id == "3" else q for q in config.questions]
    limits = config.limits.model_copy(update={"import_time_limit": 5.0})
    return config.model_copy(update={"questions": questions, "limits": limits})


@pytest.fixture(scope="module")
def hostile_grader(gradescope) -> Grader:
    gradescope.install("word2vec")
    harden(gradescope.layout)
    config = _quick(load_assignment("word2vec").config)
    assignment = Assignment(config=config, root=gradescope.layout.source)
    return Grader(assignment, detect_isolation(gradescope.python))


def _time_limits(config: AssignmentConfig) -> float:
    return sum(q.time_limit for q in config.questions) + config.limits.import_time_limit


def _check_contained(results: GradescopeResults, config: AssignmentConfig, questions: frozenset[str]) -> None:
    assert_questions_complete(results, config)
    assert {t.number.split(".")[0] for t in lost_points(results)} == questions
    for test in lost_points(results):
        assert test.output.strip() and "autograder itself failed" not in test.output, test.output
    assert results.execution_time <= _time_limits(config)


@pytest.mark.parametrize("attack", ATTACKS, ids=[a.name for a in ATTACKS])
def test_attack_is_contained(attack, hostile_grader, repo, tmp_path):
    with ProcessWatch() as watch:
        results = hostile_grader(attack.apply(repo / "solutions" / "word2vec", tmp_path / "submission"))
    config = hostile_grader.assignment.config
    _check_contained(results, config, attack.questions)
    if attack.name == "infinite loop at import":
        assert all("did not finish within the 5 s" in t.output for t in lost_points(results))
    if attack.name == "30 MB printed":
        assert all("output truncated" in t.output for t in results.tests if t.number.startswith("3."))
        assert len(results.model_dump_json()) < 1_000_000
    if attack is FORK_BOMB:
        assert watch.seen and watch.alive() == set()
    if attack.name == "holds memory in five processes":  # stopped as it passes the budget (then, 5 s used up)
        said = [t.output for t in lost_points(results)]
        assert "all its processes together" in said[0] and all("processes together" in o or "time limit" in o for o in said)
    if attack.name == "fills its folder":
        assert all("No space left on device" in t.output or "in its folder" in t.output for t in lost_points(results))
    if attack.name == "deletes the files in its working folder":
        assert (hostile_grader.assignment.solution_dir / "sgd.py").is_file()


def test_files_left_in_tmp_never_reach_another_question(hostile_grader, repo, tmp_path):
    results = hostile_grader(SMUGGLE.apply(repo / "solutions" / "word2vec", tmp_path / "submission"))
    printed = "\n".join(test.output for test in results.tests)
    assert results.score == 40
    assert printed.count("planted in /tmp") >= 4  # 2a-2d and 3 each import word2vec.py in a worker
    assert "planted in /dev/shm" in printed
    assert "smuggled in" not in printed


def _plant_canaries(source: Path) -> list[Path]:
    """Mark the reference and the hidden tests, so that any copy of them can be recognised."""
    secrets = [source / "solutions" / "word2vec" / "sgd.py",
               source / "autograder" / "assignments" / "word2vec" / "hidden_tests.py"]
    for secret in secrets:
        if CANARY not in secret.read_text():
            secret.write_text(secret.read_text() + f"\n# {CANARY}\n")
    (source / "solutions" / "word2vec" / f"{CANARY}.txt").write_text(CANARY)
    return secrets


def test_theft_of_solutions_hidden_tests_and_names_fails(gradescope, repo, tmp_path):
    gradescope.install("word2vec")
    _plant_canaries(gradescope.layout.source)
    metadata = {"users": [{"email": f"{CANARY}@example.edu", "name": CANARY}]}
    results, _ = gradescope.grade("word2vec", THEFT.apply(repo / "solutions" / "word2vec", tmp_path / "s"),
                                  metadata=metadata)
    _check_contained(results, load_assignment("word2vec").config, THEFT.questions)
    stolen = gradescope.layout.results.read_text()
    assert CANARY not in stolen
    # it looked where Gradescope keeps them, and found nothing there (a view of its own), or was
    # refused (file permissions only)
    assert re.search(r"/autograder/source/solutions/word2vec/sgd.py: (FileNotFound|Permission)Error", stolen)
    assert re.search(r"/autograder/submission_metadata.json: (FileNotFound|Permission)Error", stolen)


def test_forged_results_do_not_survive(gradescope, repo, tmp_path):
    with ProcessWatch() as watch:
        results, _ = gradescope.grade("word2vec", FORGED_RESULTS.apply(repo / "solutions" / "word2vec",
                                                                       tmp_path / "s"))
    _check_contained(results, load_assignment("word2vec").config, FORGED_RESULTS.questions)
    assert "forged" not in {t.name for t in results.tests}
    # only its own scratch folder took the forged file; the processes left to retry are gone
    printed = {line for test in results.tests for line in test.output.splitlines() if line.startswith("written")}
    assert printed == {"written: ['results.json']"}
    assert watch.seen and watch.alive() == set()


def test_network_is_unreachable(gradescope, repo, tmp_path):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.setblocking(False)
        attack = network(server.getsockname()[1])
        results, _ = gradescope.grade("word2vec", attack.apply(repo / "solutions" / "word2vec", tmp_path / "s"))
        with pytest.raises(BlockingIOError):
            server.accept()  # nobody connected
    _check_contained(results, load_assignment("word2vec").config, attack.questions)
    tried = {line for test in results.tests for line in test.output.splitlines()}
    assert "AF_INET: PermissionError" in tried and "AF_INET6: PermissionError" in tried
    assert "dns: resolved" not in tried


def test_links_to_the_reference_are_not_followed(gradescope, repo, tmp_path):
    """The grader (root) copies the student's files for the worker: it must not copy a link's target."""
    gradescope.install("word2vec")
    reference_sgd, hidden_tests = _plant_canaries(gradescope.layout.source)
    submission = tmp_path / "s"
    shutil.copytree(repo / "solutions" / "word2vec", submission)
    (submission / "sgd.py").unlink()
    (submission / "sgd.py").symlink_to(reference_sgd)
    results, _ = gradescope.grade("word2vec", submission, symlinks=True)
    _check_contained(results, load_assignment("word2vec").config, frozenset({"3"}))
    assert "Missing from your submission: sgd.py" in results.output
    assert CANARY not in gradescope.layout.results.read_text()


def test_a_linked_folder_is_not_taken_for_the_upload(tmp_path, repo):
    (tmp_path / "upload").mkdir()
    (tmp_path / "upload" / "my_work").symlink_to(repo / "solutions" / "word2vec")
    found = locate(tmp_path / "upload", load_assignment("word2vec").config.submission_files)
    assert found.found == {} and found.missing == ["nn_basics.py", "word2vec.py", "sgd.py"]


# Every assignment, whatever its files: a submitted module that never finishes importing, or ends the
# process while it imports, costs the questions that need it and nothing else, within the time limits.
IMPORT_ATTACKS = {"hangs at import": "while True:\n    pass\n", "ends the process at import": "import os\nos._exit(0)\n"}


def _with_attack(assignment: Assignment, code: str, folder: Path) -> Path:
    """The reference submission with ``code`` run first thing when its first module is imported."""
    folder.mkdir()
    for name in [*assignment.config.submission_files, "written.md"]:
        shutil.copy(assignment.solution_dir / name, folder / name)
    first = folder / next(f for f in assignment.config.submission_files if f.endswith(".py"))
    lines = first.read_text().splitlines(keepends=True)
    after = max((i + 1 for i, line in enumerate(lines) if line.startswith("from __future__")), default=0)
    first.write_text("".join(lines[:after]) + code + "".join(lines[after:]))
    return first


@pytest.mark.parametrize("attack", IMPORT_ATTACKS)
@pytest.mark.parametrize("name", available_assignments())
def test_a_module_that_hangs_or_exits_at_import_is_contained_in_every_assignment(name, attack, tmp_path):
    assignment = load_assignment(name)
    limits = assignment.config.limits.model_copy(update={"import_time_limit": 3.0})
    config = assignment.config.model_copy(update={"limits": limits})
    quick = Assignment(config=config, root=assignment.root)
    attacked = _with_attack(assignment, IMPORT_ATTACKS[attack], tmp_path / "submission")
    results = Grader(quick)(attacked.parent)
    assert_questions_complete(results, config)
    lost = lost_points(results)
    assert lost, "the attack cost nothing"
    assert {t.number.rsplit(".", 1)[0] for t in lost} <= {q.id for q in config.questions if q.kind == "code"}
    for test in lost:
        assert "import" in test.output and "autograder itself failed" not in test.output, test.output
    assert results.execution_time <= _time_limits(config)
