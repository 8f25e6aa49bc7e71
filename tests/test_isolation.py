"""Each protection of the worker on its own: the seccomp filter, the process-tree cleanup, the network
namespace, the unprivileged user with its process limit, and what a grader that is not root reports."""

from __future__ import annotations

import json
import os
import shutil
import socket
import struct
import subprocess
import tempfile
import textwrap
from pathlib import Path

import pytest

from autograder.config import Limits
from autograder.isolation import Isolation, detect_isolation
from autograder.results import GradescopeResults
from autograder.sandbox import WorkerCrashed, WorkerSession, WorkerSpec
from autograder.worker import seccomp

MOD = '''
import os
import socket
import time


def leave_behind(folder):
    """A grandchild in a session of its own, which the worker does not wait for."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            open(os.path.join(folder, str(os.getpid())), "w").close()
            while True:
                time.sleep(0.05)
        os._exit(0)
    os.wait()
    while not os.listdir(folder):
        time.sleep(0.01)
    return int(os.listdir(folder)[0])


def leave_behind_and_exit(folder):
    leave_behind(folder)
    os._exit(0)


def who():
    return os.getuid(), os.getgid(), os.stat(".").st_uid


def read(path):
    try:
        return open(path).read()
    except OSError as error:
        return type(error).__name__


def connect(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            return "connected"
    except OSError as error:
        return type(error).__name__


def interfaces():
    return [name for _, name in socket.if_nameindex()]


def fork_all_you_can():
    started = 0
    while started < 1000:
        try:
            child = os.fork()
        except OSError:
            return started
        if child == 0:
            time.sleep(60)
            os._exit(0)
        started += 1
    return started
'''
LIMITS = Limits(processes=8)


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    module = tmp_path_factory.mktemp("submission") / "mod.py"
    module.write_text(textwrap.dedent(MOD))
    return {"mod.py": module}


@pytest.fixture
def drop() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="ag-isolation-"))
    os.chmod(folder, 0o777)  # the worker may run as another user
    yield folder
    shutil.rmtree(folder)


def _alive(pid: int) -> bool:
    return Path(f"/proc/{pid}").exists()


def test_seccomp_filter_refuses_internet_sockets_only():
    child = os.fork()
    if child == 0:  # the filter cannot be removed: install it in a throwaway process
        outcome = []
        try:
            seccomp.install()
            for family in (socket.AF_INET, socket.AF_INET6):
                try:
                    socket.socket(family, socket.SOCK_STREAM).close()
                    outcome.append("opened")
                except PermissionError:
                    outcome.append("refused")
            left, right = socket.socketpair()  # Unix sockets still work
            left.close()
            right.close()
            outcome.append("unix")
        finally:
            os._exit(0 if outcome == ["refused", "refused", "unix"] else 1)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def _verdict(program: list[tuple[int, int, int, int]], arch: int, nr: int, arg0: int) -> int:
    """What a classic BPF program returns for one system call; knows the instructions the filter uses."""
    data = struct.pack("<iIQ6Q", nr, arch, 0, arg0, 0, 0, 0, 0, 0)  # struct seccomp_data
    accumulator, pc = 0, 0
    while True:
        code, jump_true, jump_false, k = program[pc]
        if code == 0x20:  # load the 32-bit word at offset k
            accumulator = struct.unpack_from("<I", data, k)[0]
            pc += 1
        elif code in (0x15, 0x35):  # jump if equal, jump if greater or equal
            taken = accumulator == k if code == 0x15 else accumulator >= k
            pc += 1 + (jump_true if taken else jump_false)
        else:
            assert code == 0x06, code  # return k
            return k


@pytest.mark.parametrize("machine", sorted(seccomp._ARCHES))
def test_seccomp_program_for_each_architecture(machine):
    """The filter as the kernel would run it, also for the architecture this machine is not."""
    arch = seccomp._ARCHES[machine]
    program = seccomp.no_network_program(arch)
    allow, refuse, kill = 0x7FFF0000, 0x00050001, 0x80000000  # ERRNO | EPERM
    for family in (socket.AF_INET, socket.AF_INET6, 17):  # 17: AF_PACKET
        assert _verdict(program, arch.audit_arch, arch.nr_socket, family) == refuse
    assert _verdict(program, arch.audit_arch, arch.nr_socket, socket.AF_UNIX) == allow
    assert _verdict(program, arch.audit_arch, 0, socket.AF_INET) == allow  # another call, same argument
    assert _verdict(program, arch.audit_arch, arch.nr_io_uring_setup, 0) == refuse
    assert _verdict(program, 0x40000003, arch.nr_socket, socket.AF_INET) == kill  # a 32-bit x86 call
    assert _verdict(program, arch.audit_arch, 0x40000000 | arch.nr_socket, socket.AF_INET) == kill  # x32


def test_processes_that_leave_the_session_are_killed_with_the_worker(files, drop):
    with WorkerSession(WorkerSpec(files, None, LIMITS), 20, "1") as worker:
        orphan = worker.call("mod.leave_behind", str(drop)).value
        assert _alive(orphan)
    assert not _alive(orphan)


def test_processes_left_by_a_worker_that_exits_are_killed_at_once(files, drop):
    with WorkerSession(WorkerSpec(files, None, LIMITS), 20, "1") as worker:
        with pytest.raises(WorkerCrashed, match="exited with status 0"):
            worker.call("mod.leave_behind_and_exit", str(drop))
        orphan = int(next(drop.iterdir()).name)
        assert not _alive(orphan)  # the supervisor killed it before it exited itself


def test_a_probe_that_cannot_run_turns_everything_off():
    isolation = detect_isolation("/nonexistent/python")
    assert isolation.user is None and not isolation.seccomp and not isolation.network_namespace
    assert any("probe process failed" in why for _, why in isolation.off)


@pytest.mark.skipif(os.geteuid() != 0, reason="a network namespace needs root")
def test_network_namespace_has_no_way_out(files):
    isolation = Isolation(network_namespace=True)  # without the seccomp filter: the namespace alone
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.setblocking(False)
        with WorkerSession(WorkerSpec(files, None, LIMITS, isolation), 20, "1") as worker:
            assert worker.call("mod.interfaces").value == ["lo"]
            assert worker.call("mod.connect", server.getsockname()[1]).value == "OSError"
        with pytest.raises(BlockingIOError):
            server.accept()


def test_worker_runs_as_the_unprivileged_user_within_its_process_limit(files, gradescope, tmp_path):
    isolation = detect_isolation(gradescope.python)
    assert isolation.user is not None, isolation.off
    secret = tmp_path / "secret.txt"
    secret.write_text("reference")
    with WorkerSession(WorkerSpec(files, None, LIMITS, isolation), 20, "1") as worker:
        user = isolation.user
        assert worker.call("mod.who").value == (user.uid, user.gid, user.uid)  # it owns its scratch folder
        assert worker.call("mod.read", str(secret)).value == "PermissionError"
        started = worker.call("mod.fork_all_you_can").value
    assert 0 < started <= LIMITS.processes


def test_not_root_grades_with_what_it_can_and_says_what_is_off(gradescope, worker_user, repo):
    """The grader itself as the unprivileged user: a TA's laptop, simulated."""
    root = Path(tempfile.mkdtemp(prefix="ag-laptop-"))
    try:
        # The zip's source, as the TA would unpack it: the repository itself may sit in a private
        # folder (a fresh clone under mktemp -d) that this user could not read.
        gradescope.install("word2vec")
        shutil.copytree(gradescope.layout.source, root / "source", symlinks=True)
        shutil.copytree(repo / "solutions" / "word2vec", root / "submission")
        shutil.chown(root, worker_user, worker_user)
        for path in root.rglob("*"):
            shutil.chown(path, worker_user, worker_user)
        run = subprocess.run(["setpriv", f"--reuid={worker_user}", f"--regid={worker_user}", "--clear-groups",
                              "--", gradescope.python, "-m", "autograder", "gradescope", "word2vec",
                              "--root", str(root)], cwd=root / "source", capture_output=True, text=True,
                             timeout=600,
                             env={"PATH": os.environ["PATH"], "PYTHONDONTWRITEBYTECODE": "1"})
        assert run.returncode == 0, run.stdout + run.stderr
        assert "off: private files: not running as root" in run.stdout
        assert "off: separate user: not running as root" in run.stdout
        assert "on:  network: a seccomp filter refuses" in run.stdout
        assert "on:  limits: at most 16 more processes" in run.stdout
        written = (root / "results" / "results.json").read_text()
        results = GradescopeResults.model_validate(json.loads(written))
        assert results.score == results.max_score == 40
        assert "not running as root" not in written
    finally:
        shutil.rmtree(root)
