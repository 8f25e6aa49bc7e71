"""The fork server: each worker a fresh process forked from it, with nothing of it but the imports;
the server acts only on its own supervisors, and stops them all when it is closed."""

from __future__ import annotations

import os
import textwrap
import time
from pathlib import Path

import pytest

from autograder.core.config import Limits
from autograder.boundary.fork_client import ForkServer, ForkServerError
from autograder.boundary.isolation import Isolation
from autograder.boundary.session import WorkerCrashed, WorkerSession, WorkerSpec

pytestmark = pytest.mark.smoke  # also run on Python 3.10 and the newest Python (.ci/run)

MOD = '''
import os
import socket
import sys
import tempfile
import time

CALLS = []


def count():
    CALLS.append(1)
    return len(CALLS), os.getpid()


def open_files():
    targets = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            targets.append(os.readlink(f"/proc/self/fd/{fd}"))
        except FileNotFoundError:  # the one listdir itself had open
            pass
    return targets


def process():
    targets = open_files()
    return {"session_leader": os.getsid(0) == os.getppid(), "cwd": os.getcwd(),
            "home": os.environ["HOME"], "tmp": tempfile.gettempdir(), "fds": len(targets),
            "sockets": [t for t in targets if t.startswith("socket:")],
            "hash_seed": os.environ["PYTHONHASHSEED"], "hash": hash("fork")}


def leave_behind(folder):
    if os.fork() == 0:
        os.setsid()
        open(os.path.join(folder, str(os.getpid())), "w").close()
        while True:
            time.sleep(0.05)
    while not os.listdir(folder):
        time.sleep(0.01)
    return int(os.listdir(folder)[0])
'''


@pytest.fixture(scope="module")
def spec(tmp_path_factory) -> WorkerSpec:
    module = tmp_path_factory.mktemp("submission") / "mod.py"
    module.write_text(textwrap.dedent(MOD))
    return WorkerSpec({"mod.py": module}, None, Limits(processes=8))


@pytest.fixture
def forkserver(spec):
    with ForkServer(spec.isolation.python, spec.fixtures_module) as server:
        yield server


def _alive(pid: int) -> bool:
    return Path(f"/proc/{pid}").exists()


def test_each_worker_is_a_fresh_process(spec, forkserver):
    seen = []
    for _ in range(2):
        with WorkerSession(spec, 20, "1", forkserver=forkserver) as worker:
            seen.append(worker.call("mod.count").value)
            assert worker.call("mod.count").value == (2, seen[-1][1])  # state lives as long as the worker
    assert [calls for calls, _ in seen] == [1, 1]  # none of it reaches the next worker
    assert seen[0][1] != seen[1][1]


def test_a_worker_gets_what_a_new_process_would(spec, forkserver):
    with WorkerSession(spec, 20, "1", forkserver=forkserver) as worker:
        state = worker.call("mod.process").value
        scratch = os.path.realpath(worker._process.scratch)
    assert state["session_leader"]
    assert os.path.realpath(state["cwd"]) == os.path.realpath(state["home"]) == scratch
    assert os.path.realpath(state["tmp"]) == scratch  # not the fork server's temporary folder
    # stdin, stdout, stderr and its two pipes, no other file: above all not the fork server's socket
    assert state["fds"] == 5 and state["sockets"] == []
    assert state["hash_seed"] == "0"
    with WorkerSession(spec, 20, "1") as own:  # a session with a fork server of its own
        assert own.call("mod.process").value["hash"] == state["hash"]


def test_closing_the_fork_server_stops_every_worker_left(spec, tmp_path):
    drop = tmp_path / "drop"
    drop.mkdir()
    server = ForkServer(spec.isolation.python, spec.fixtures_module)
    worker = WorkerSession(spec, 20, "1", forkserver=server)
    orphan = worker.call("mod.leave_behind", str(drop)).value
    supervisor = worker._process.pid
    assert _alive(orphan) and _alive(supervisor)
    server.close()  # as when the grader dies: the fork server's channel closes
    assert not _alive(orphan) and not _alive(supervisor)
    worker._process = None  # already stopped with the fork server
    worker.close()


def test_it_acts_only_on_its_own_supervisors(spec, forkserver):
    with WorkerSession(spec, 20, "1", forkserver=forkserver) as worker:
        worker.call("mod.count")
        with pytest.raises(ForkServerError, match="not a supervisor of this fork server"):
            forkserver.stop(os.getpid())
        with pytest.raises(ForkServerError, match="not a supervisor of this fork server"):
            forkserver.exit_code(os.getppid(), timeout=0)
        assert forkserver.exit_code(worker._process.pid, timeout=0) is None  # running
        assert worker.call("mod.count").value[0] == 2  # unharmed


def test_a_fork_server_that_cannot_start_fails_the_calls_with_the_reason(spec):
    broken = WorkerSpec(spec.files, "autograder.assignments.no_such_assignment.fixtures", spec.limits)
    with WorkerSession(broken, 20, "1") as worker:
        started = time.monotonic()
        with pytest.raises(WorkerCrashed, match="could not be started.*No module named"):
            worker.call("mod.count")
        assert time.monotonic() - started < 10
    missing = WorkerSpec(spec.files, None, spec.limits, Isolation(python="/nonexistent/python"))
    with WorkerSession(missing, 20, "1") as worker:
        with pytest.raises(WorkerCrashed, match="could not be started.*/nonexistent/python"):
            worker.call("mod.count")


def test_a_session_refuses_a_fork_server_made_for_another_spec(spec, forkserver):
    other = WorkerSpec(spec.files, "autograder.assignments.word2vec.fixtures", spec.limits)
    with pytest.raises(ValueError, match="fork server made for its spec"):
        WorkerSession(other, 20, "1", forkserver=forkserver)
