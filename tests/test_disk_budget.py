"""A disk budget per question (autograder/worker/namespaces.py, autograder/worker/budget_watch.py):
with a view of its own, the worker's scratch folder is a tmpfs of the budget's size and files, where a
write past it fails in the student's code and nothing reaches the host's disk; without one, the
supervisor stops the question once the folder holds more than the budget."""

from __future__ import annotations

import os
import shutil
import textwrap
from dataclasses import replace

import pytest

from autograder.boundary.isolation import detect_isolation
from autograder.boundary.session import StudentRaised, WorkerCrashed, WorkerSession, WorkerSpec
from autograder.contract.plan import DiskBudget
from autograder.core.config import Limits
from autograder.worker.budget_watch import over_disk
from tests.fixtures.sampling import Most

FILLER = '''
import os


def fill(megabytes, files):
    """Write ``megabytes`` MB spread over ``files`` files into the working folder."""
    chunk = b"x" * (1 << 20)
    for i in range(files):
        with open(f"filler-{i}", "wb") as out:
            for _ in range(max(1, megabytes // files)):
                out.write(chunk)
    return files


def listing():
    return sorted(os.listdir("."))
'''

LIMITS = Limits(disk_mb=64, disk_files=200)
OVERSHOOT_MB = 400  # what a fast writer adds between two of the supervisor's looks, at most


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict:
    path = tmp_path_factory.mktemp("submission") / "filler.py"
    path.write_text(textwrap.dedent(FILLER))
    return {"filler.py": path}


@pytest.fixture(scope="module")
def isolation():
    return detect_isolation()


def test_a_worker_with_a_view_writes_into_a_tmpfs_of_the_budget(files, isolation):
    if not isolation.namespaces:
        pytest.skip(f"no view here: {dict(isolation.off).get('namespaces')}")
    free = shutil.disk_usage(os.environ.get("TMPDIR", "/tmp")).free
    with WorkerSession(WorkerSpec(files, None, LIMITS, isolation), 30, "2") as worker:
        assert worker.call("filler.fill", 10, 5).value == 5  # within the budget: it works
        with pytest.raises(StudentRaised, match="No space left on device"):
            worker.call("filler.fill", 2000, 10)  # 2 GB
        with pytest.raises(StudentRaised, match="No space left on device"):
            worker.call("filler.fill", 1, 60000)  # 60,000 files
        assert worker.call("filler.listing").value[0] == "filler-0"
        host_scratch = worker._process.scratch
        assert sorted(os.listdir(host_scratch)) == ["filler.py"]  # the host's folder got nothing
    assert shutil.disk_usage(os.environ.get("TMPDIR", "/tmp")).free > free - 50 * 2**20


def test_without_a_view_the_supervisor_stops_a_question_over_the_budget(files, isolation):
    isolation = replace(isolation, namespaces=False, user_namespace=False)
    with WorkerSession(WorkerSpec(files, None, LIMITS, isolation), 30, "2") as worker:
        assert worker.call("filler.fill", 10, 5).value == 5
        scratch = worker._process.scratch
        most = Most(lambda: _megabytes(scratch))
        with most, pytest.raises(WorkerCrashed, match="keeping more than the question's 64 MB or 200 files in its folder"):
            worker.call("filler.fill", 2000, 10)
        assert most.elapsed < 10 and most.most < 64 + OVERSHOOT_MB, most.most
    with WorkerSession(WorkerSpec(files, None, LIMITS, isolation), 30, "2") as worker:
        with pytest.raises(WorkerCrashed, match="keeping more than the question's 64 MB or 200 files"):
            worker.call("filler.fill", 1, 60000)


def test_the_walk_stops_at_the_budget(tmp_path):
    for i in range(300):
        (tmp_path / f"f{i}").write_bytes(b"")
    assert over_disk(str(tmp_path), DiskBudget(megabytes=1, files=200))
    assert not over_disk(str(tmp_path), DiskBudget(megabytes=1, files=400))
    (tmp_path / "big").write_bytes(b"x" * (2 << 20))
    assert over_disk(str(tmp_path), DiskBudget(megabytes=1, files=400))
    sparse = tmp_path / "sparse"
    with open(sparse, "wb") as out:
        out.truncate(10 << 30)  # 10 GB long, nothing allocated
    (tmp_path / "big").unlink()
    assert not over_disk(str(tmp_path), DiskBudget(megabytes=1, files=400))


def _megabytes(folder: str) -> float:
    total = 0
    for base, _, names in os.walk(folder):
        for name in names:
            try:
                total += os.lstat(os.path.join(base, name)).st_blocks * 512
            except OSError:  # removed meanwhile
                pass
    return total / 2**20


def test_the_report_names_the_disk_budget_and_how_it_holds(isolation):
    lines = "\n".join(isolation.report(LIMITS))
    assert "disk: 64 MB and 200 files per question" in lines
    assert ("its folder is a tmpfs of that size" in lines) == isolation.namespaces
    lines = "\n".join(replace(isolation, namespaces=False).report(LIMITS))
    assert "the worker's supervisor adds up its folder every 0.1 s" in lines


FLOOD = '''
import sys


def flood(megabytes):
    """Print ``megabytes`` MB, then say how many."""
    line = "y" * 1023 + "\\n"
    for _ in range(megabytes * 1024):
        sys.stdout.write(line)
    return megabytes
'''


def test_printed_output_never_reaches_the_host_s_disk(tmp_path, isolation):
    (tmp_path / "flood.py").write_text(textwrap.dedent(FLOOD))
    files = {"flood.py": tmp_path / "flood.py"}
    with WorkerSession(WorkerSpec(files, None, LIMITS, isolation), 60, "4") as worker:
        worker.call("flood.flood", 1)
        private = worker._process.private
        most = Most(lambda: _megabytes(private))
        with most:
            result = worker.call("flood.flood", 200)
        assert result.value == 200 and len(result.output) < 2 * LIMITS.output_kb * 1024
        assert most.most < 1, f"the grader's folder held {most.most:.0f} MB of printed output"
