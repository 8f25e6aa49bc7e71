"""One memory budget for all the processes of a question (autograder/contract/memory_cgroup.py,
autograder/worker/budget_watch.py): five processes, each well under the per-process limit, cannot
hold five times the budget together, whether the kernel counts them (a memory cgroup, as root here)
or the worker's supervisor does (no cgroup: Gradescope's container, an ordinary user)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from autograder.boundary.isolation import detect_isolation
from autograder.boundary.leftovers import PRIVATE_PREFIX
from autograder.boundary.session import WorkerCrashed, WorkerSession, WorkerSpec
from autograder.contract import memory_cgroup
from autograder.core.config import Limits
from autograder.worker.budget_watch import resident_bytes
from tests.fixtures.sampling import Most

HOG = '''
import os
import signal
import time

import numpy as np


def hold(mb, children, seconds):
    """Touch ``mb`` MB here and in each of ``children`` forked children, and keep it ``seconds``."""
    for _ in range(children):
        if os.fork() == 0:
            block = np.ones(mb * 2**20 // 8)
            time.sleep(seconds)
            os._exit(0)
    block = np.ones(mb * 2**20 // 8)
    time.sleep(seconds)
    return float(block[0])


def die():
    os.kill(os.getpid(), signal.SIGKILL)
'''

BUDGET_MB = 400
LIMITS = Limits(memory_mb=BUDGET_MB)
OVERSHOOT_MB = 150  # what the supervisor's watch may let through between two looks


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict:
    path = tmp_path_factory.mktemp("submission") / "hog.py"
    path.write_text(textwrap.dedent(HOG))
    return {"hog.py": path}


def _modes() -> list:
    isolation = detect_isolation()
    modes = [pytest.param(replace(isolation, memory_cgroup=False), id="the supervisor's watch")]
    if isolation.memory_cgroup:
        modes.append(pytest.param(isolation, id="a memory cgroup"))
    return modes


@pytest.fixture(params=_modes(), scope="module")
def isolation(request):
    return request.param


def test_processes_under_the_per_process_limit_cannot_pass_the_budget_together(files, isolation):
    spec = WorkerSpec(files, None, LIMITS, isolation)
    with WorkerSession(spec, 30, "2") as worker:
        peak = Most(lambda: _resident_mb(worker))
        with peak, pytest.raises(WorkerCrashed) as failure:
            worker.call("hog.hold", 150, 4, 20)  # 750 MB together, each 150 MB of the 400 MB limit
    assert f"more than the question's {BUDGET_MB} MB of memory, all its processes together" in str(failure.value)
    assert peak.elapsed < 10  # stopped when it passed the budget, not at the time limit
    assert peak.most < BUDGET_MB + OVERSHOOT_MB


def test_a_worker_within_the_budget_with_children_runs(files, isolation):
    spec = WorkerSpec(files, None, LIMITS, isolation)
    with WorkerSession(spec, 30, "2") as worker:
        assert worker.call("hog.hold", 60, 2, 1).value == 1.0


def test_a_worker_killed_outright_is_reported_so(files, isolation):
    """As the kernel's out-of-memory killer does it: the supervisor, which exits the way its worker
    did, once failed to and said "exited with status 1 (sys.exit or os._exit in your code?)"."""
    with WorkerSession(WorkerSpec(files, None, LIMITS, isolation), 30, "2") as worker:
        with pytest.raises(WorkerCrashed, match="was killed by SIGKILL"):
            worker.call("hog.die")


def test_each_worker_has_its_cgroup_and_leaves_none_behind(files):
    isolation = detect_isolation()
    if not isolation.memory_cgroup:
        pytest.skip(f"no memory cgroup here: {dict(isolation.off).get('memory cgroup')}")
    parent, _ = memory_cgroup.own_cgroup()
    with WorkerSession(WorkerSpec(files, None, LIMITS, isolation), 30, "2") as worker:
        worker.call("hog.hold", 10, 0, 0)
        cgroup = worker._process.cgroup
        assert cgroup is not None and cgroup.parent == parent
        assert (cgroup / "cgroup.procs").read_text().split()  # the worker's processes
    # Gone with the worker (others may come and go meanwhile: pytest-xdist grades beside this test).
    assert not cgroup.exists()


def _resident_mb(worker: WorkerSession) -> float:
    """The resident memory of the worker's processes together, seen from the grader's side."""
    process = worker._process
    return resident_bytes(process.pid) / 2**20 if process is not None and process.pid is not None else 0.0


def test_the_report_names_the_mechanism():
    isolation = detect_isolation()
    lines = "\n".join(isolation.report(LIMITS))
    assert f"memory: {BUDGET_MB} MB for all the processes of a question together" in lines
    assert ("in a memory cgroup per worker" in lines) == isolation.memory_cgroup
    if os.geteuid() == 0 and memory_cgroup.own_cgroup()[1] == "v1":
        assert isolation.memory_cgroup, isolation.off  # CI's machine: root, the v1 memory controller


ORDINARY_USER = '''
import json, sys, textwrap
from pathlib import Path
from autograder.boundary.isolation import detect_isolation
from autograder.boundary.leftovers import PRIVATE_PREFIX
from autograder.boundary.session import WorkerSession, WorkerSpec
from autograder.core.config import Limits

folder = Path(sys.argv[1])
isolation = detect_isolation()
files = {"hog.py": folder / "hog.py", "filler.py": folder / "filler.py"}
seen = {"memory cgroup": isolation.memory_cgroup, "view": isolation.namespaces}
with WorkerSession(WorkerSpec(files, None, Limits(memory_mb=400, disk_mb=64), isolation), 30, "2") as worker:
    for name, call in (("memory", ("hog.hold", 150, 4, 20)), ("disk", ("filler.fill", 2000, 10))):
        try:
            worker.call(*call)
            seen[name] = "no error"
        except Exception as exc:
            seen[name] = str(exc)
print(json.dumps(seen))
'''


def test_both_budgets_hold_for_an_ordinary_user(gradescope, worker_user):
    """The grader run by an ordinary user (a TA's laptop, simulated): no cgroup, so the supervisor
    sums the memory; the view through a user namespace, so the folder is a tmpfs."""
    gradescope.install("word2vec")  # its source, which this user can read once copied
    root = Path(tempfile.mkdtemp(prefix="ag-ordinary-"))  # pytest's folders are root's alone
    try:
        _both_budgets_as(worker_user, gradescope, root)
    finally:
        shutil.rmtree(root)


def _both_budgets_as(worker_user: str, gradescope, root: Path) -> None:
    from tests.test_disk_budget import FILLER

    shutil.copytree(gradescope.layout.source, root / "source", symlinks=True)
    (root / "student").mkdir()
    (root / "student" / "hog.py").write_text(textwrap.dedent(HOG))
    (root / "student" / "filler.py").write_text(textwrap.dedent(FILLER))
    for path in [root, *root.rglob("*")]:
        shutil.chown(path, worker_user, worker_user)
    root.chmod(0o755)
    run = subprocess.run(["setpriv", f"--reuid={worker_user}", f"--regid={worker_user}", "--clear-groups", "--",
                          gradescope.python, "-c", ORDINARY_USER, str(root / "student")],
                         cwd=root / "source", capture_output=True, text=True, timeout=300,
                         env={"PATH": os.environ["PATH"], "PYTHONDONTWRITEBYTECODE": "1"})
    assert run.returncode == 0, run.stdout + run.stderr
    seen = json.loads(run.stdout.splitlines()[-1])
    assert seen["memory cgroup"] is False
    assert f"more than the question's {BUDGET_MB} MB of memory, all its processes together" in seen["memory"]
    if seen["view"]:
        assert "No space left on device" in seen["disk"]
    else:
        assert "keeping more than the question's 64 MB" in seen["disk"]


def test_a_sweep_leaves_a_cgroup_just_made_and_removes_an_old_leftover(monkeypatch):
    """A grading whose TMPDIR is another shares the parent cgroup but not the folder a sweep looks
    for: its cgroup, made and not yet joined, once vanished under the sweep of a grading beside it
    ("could not join ...: No such file or directory")."""
    if not detect_isolation().memory_cgroup:
        pytest.skip("no memory cgroup here")
    made = memory_cgroup.make(f"{PRIVATE_PREFIX}sweep-{os.getpid()}", 64 * 2**20)
    try:
        memory_cgroup.remove_leftovers(PRIVATE_PREFIX, lambda name: False)
        assert made.exists()  # young: perhaps another grading's, about to be joined
        monkeypatch.setattr(memory_cgroup, "LEFTOVER_AGE", 0.0)
        memory_cgroup.remove_leftovers(PRIVATE_PREFIX, lambda name: name == made.name)
        assert made.exists()  # in use
        memory_cgroup.remove_leftovers(PRIVATE_PREFIX, lambda name: False)
        assert not made.exists()
    finally:
        memory_cgroup.remove(made, timeout=0)
