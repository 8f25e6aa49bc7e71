"""A grading stopped from outside: SIGTERM and Ctrl-C still write results.json and leave no worker
folder behind; a grader killed outright leaves them, and the next grading removes them
(autograder/boundary/leftovers.py)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from autograder.boundary.leftovers import claim, remove_leftovers
from tests.conftest import PYTHON

SPINS = "\n\ndef sigmoid(x):  # a student's infinite loop: the grading is stopped during it\n    while True:\n        pass\n"


def _worker_folders(tmp: Path) -> list[Path]:
    return sorted(p for p in tmp.iterdir() if p.name.startswith(("ag-worker-", "ag-grader-")))


def _start_grading(repo: Path, tmp_path: Path, command: str = "grade") -> tuple[subprocess.Popen, Path, Path]:
    """``command`` (``grade``, or ``gradescope`` in a layout of its own) on a word2vec submission
    whose sigmoid spins, with its own temporary folder, once its first worker runs."""
    submission = tmp_path / "submission"
    shutil.copytree(repo / "solutions" / "word2vec", submission)
    with (submission / "nn_basics.py").open("a") as source:
        source.write(SPINS)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    results = tmp_path / ("results/results.json" if command == "gradescope" else "results.json")
    where = ["--root", str(tmp_path)] if command == "gradescope" else [str(submission), "--results", str(results)]
    grading = subprocess.Popen(
        [PYTHON, "-m", "autograder", command, "word2vec", *where],
        cwd=repo, env={**os.environ, "TMPDIR": str(tmp)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
        # SIGINT back to its default: a suite started in the background of a script inherits it
        # ignored, and Python keeps an ignored SIGINT ignored.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    while not _worker_folders(tmp):
        assert grading.poll() is None and time.monotonic() < deadline, grading.communicate()
        time.sleep(0.05)
    time.sleep(0.5)  # into the call that spins
    return grading, tmp, results


@pytest.mark.parametrize(("command", "stop"), [("grade", signal.SIGTERM), ("grade", signal.SIGINT),
                                               ("gradescope", signal.SIGTERM)],
                         ids=["grade-SIGTERM", "grade-Ctrl-C", "gradescope-SIGTERM"])
def test_a_stopped_grading_writes_results_and_removes_its_folders(repo, tmp_path, command, stop):
    grading, tmp, results = _start_grading(repo, tmp_path, command)
    grading.send_signal(stop)
    out, err = grading.communicate(timeout=60)
    assert grading.returncode == 1, out + err
    written = json.loads(results.read_text())
    assert written["score"] == 0
    reason = "SIGTERM" if stop == signal.SIGTERM else "Ctrl-C"
    assert f"the grading was stopped before it finished ({reason}); grade it again" in written["output"]
    assert _worker_folders(tmp) == []


def test_the_folders_of_a_grader_killed_outright_go_at_the_next_grading(repo, tmp_path):
    grading, tmp, _ = _start_grading(repo, tmp_path)
    grading.kill()
    grading.communicate(timeout=60)
    left = _worker_folders(tmp)
    assert left, "SIGKILL leaves the folders: nothing runs in the grader to remove them"
    reference = subprocess.run(
        [PYTHON, "-m", "autograder", "grade", "word2vec", str(repo / "solutions" / "word2vec"),
         "--results", str(tmp_path / "again.json")],
        cwd=repo, env={**os.environ, "TMPDIR": str(tmp)}, capture_output=True, text=True, timeout=300)
    assert reference.returncode == 0, reference.stdout + reference.stderr
    assert not any(folder.exists() for folder in left)


@pytest.fixture
def tmp(tmp_path, monkeypatch) -> Path:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path


def test_a_claim_keeps_its_folders_while_it_is_held(tmp):
    scratch, private = tempfile.mkdtemp(prefix="ag-worker-"), tempfile.mkdtemp(prefix="ag-grader-")
    held = claim(private, scratch)
    assert held is not None
    assert remove_leftovers(shutil.rmtree) == [] and Path(scratch).exists()
    os.close(held)  # as the kernel does when its grader dies
    assert remove_leftovers(shutil.rmtree) == [scratch, private]
    assert _worker_folders(tmp) == []


def test_a_sweep_leaves_unclaimed_folders_and_removes_nothing_a_claim_names_elsewhere(tmp, tmp_path_factory):
    starting = tempfile.mkdtemp(prefix="ag-grader-")  # a grader between mkdtemp and its claim
    outside = tmp_path_factory.mktemp("precious")
    private = tempfile.mkdtemp(prefix="ag-grader-")
    os.close(claim(private, str(outside)))  # a claim that names a folder not of a worker
    assert remove_leftovers(shutil.rmtree) == [private]
    assert Path(starting).exists() and outside.exists()


def test_old_folders_without_a_claim_go_and_young_or_named_ones_stay(tmp):
    old = time.time() - 3600
    stale = [tempfile.mkdtemp(prefix="ag-grader-"), tempfile.mkdtemp(prefix="ag-worker-")]  # from before claims
    starting = tempfile.mkdtemp(prefix="ag-grader-")  # a grader between mkdtemp and its claim
    live_scratch, live_private = tempfile.mkdtemp(prefix="ag-worker-"), tempfile.mkdtemp(prefix="ag-grader-")
    held = claim(live_private, live_scratch)
    for folder in stale + [live_scratch, live_private]:
        os.utime(folder, (old, old))
    try:
        assert sorted(remove_leftovers(shutil.rmtree)) == sorted(stale)
        assert Path(starting).exists() and Path(live_scratch).exists() and Path(live_private).exists()
    finally:
        os.close(held)
