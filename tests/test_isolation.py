"""Each protection of the worker on its own: the seccomp filter, the process-tree cleanup, the network
namespace, the unprivileged user with its process limit, and what a grader that is not root reports."""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import socket
import struct
import subprocess
import tempfile
import textwrap
import threading
from pathlib import Path
from typing import Callable

import pytest

from autograder.core.config import Limits
from autograder.boundary.isolation import Isolation, detect_isolation
from autograder.core.results import GradescopeResults
from autograder.boundary.session import WorkerCrashed, WorkerSession, WorkerSpec
from autograder.worker import seccomp

pytestmark = pytest.mark.smoke  # also run on Python 3.10 and the newest Python (.ci/run)

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


def _in_filtered_child(attempts: dict[str, Callable[[], object]]) -> dict[str, str]:
    """Install the filter in a throwaway process (it cannot be removed) and try each of ``attempts``:
    ``{name: "ok" or the exception's type}``."""
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:
        outcome = {}
        try:
            seccomp.install()
            for name, attempt in attempts.items():
                try:
                    attempt()
                    outcome[name] = "ok"
                except OSError as error:
                    outcome[name] = type(error).__name__
        finally:
            os.write(write_end, json.dumps(outcome).encode())
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end) as stream:
        outcome = json.loads(stream.read())
    os.waitpid(child, 0)
    return outcome


def _socket(family: int, kind: int = socket.SOCK_STREAM, protocol: int = 0) -> Callable[[], None]:
    return lambda: socket.socket(family, kind, protocol).close()


def _libc_call(name: str, *args: int) -> Callable[[], None]:
    def call() -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        if getattr(libc, name)(*args) != 0:
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return call


def _ipc_get(name: str, *size: int) -> Callable[[], None]:
    """A System V ``shmget``/``msgget``/``semget`` of a private object, removed again if made."""
    def call() -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        ident = getattr(libc, name)(0, *size, 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600
        if ident < 0:
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
        getattr(libc, name.replace("get", "ctl"))(ident, *([0] if name == "semget" else []), 0, None)  # IPC_RMID
    return call


def test_seccomp_filter_allows_unix_sockets_only_and_no_ptrace_mounts_or_namespaces():
    outcome = _in_filtered_child({
        "inet": _socket(socket.AF_INET), "inet6": _socket(socket.AF_INET6),
        "packet": _socket(17, socket.SOCK_RAW), "netlink": _socket(16, socket.SOCK_RAW),
        "vsock": _socket(40), "unix": _socket(socket.AF_UNIX),
        "socketpair": lambda: [end.close() for end in socket.socketpair()],
        "ptrace": _libc_call("ptrace", 16, os.getppid(), 0, 0),  # PTRACE_ATTACH to the test process
        "unshare": _libc_call("unshare", 0x10000000),  # CLONE_NEWUSER
        "dumpable": _libc_call("prctl", 4, 1, 0, 0, 0),  # PR_SET_DUMPABLE
        "memfd": lambda: os.close(os.memfd_create("hidden")),
        "sysv shm": _ipc_get("shmget", 1 << 20),
        "sysv msg": _ipc_get("msgget"),
        "sysv sem": _ipc_get("semget", 1),
        "tmp file": lambda: tempfile.TemporaryFile().close(),
        "fork": lambda: os.waitpid(os.fork() or os._exit(0), 0),  # plain processes still start
        "thread": lambda: (thread := threading.Thread(target=print)).start() or thread.join(),
    })
    refused = {name for name, result in outcome.items() if result == "PermissionError"}
    assert refused == {"inet", "inet6", "packet", "netlink", "vsock", "ptrace", "unshare", "dumpable", "memfd",
                       "sysv shm", "sysv msg", "sysv sem"}, outcome
    assert {outcome[name] for name in ("unix", "socketpair", "fork", "thread", "tmp file")} == {"ok"}


def _verdict(program: list[tuple[int, int, int, int]], arch: int, nr: int, arg0: int) -> int:
    """What a classic BPF program returns for one system call; knows the instructions the filter uses."""
    data = struct.pack("<iIQ6Q", nr, arch, 0, arg0, 0, 0, 0, 0, 0)  # struct seccomp_data
    accumulator, pc = 0, 0
    while True:
        code, jump_true, jump_false, k = program[pc]
        if code == 0x20:  # load the 32-bit word at offset k
            accumulator = struct.unpack_from("<I", data, k)[0]
            pc += 1
        elif code in (0x15, 0x35, 0x45):  # jump if equal, if greater or equal, if any bit of k is set
            taken = {0x15: accumulator == k, 0x35: accumulator >= k, 0x45: bool(accumulator & k)}[code]
            pc += 1 + (jump_true if taken else jump_false)
        else:
            assert code == 0x06, code  # return k
            return k


@pytest.mark.parametrize("machine", sorted(seccomp._ARCHES))
def test_seccomp_program_for_each_architecture(machine):
    """The filter as the kernel would run it, also for the architecture this machine is not."""
    arch = seccomp._ARCHES[machine]
    program = seccomp.worker_program(arch)
    allow, refuse, enosys, kill = 0x7FFF0000, 0x00050001, 0x00050026, 0x80000000  # ERRNO | EPERM, ENOSYS
    for family in (socket.AF_INET, socket.AF_INET6, 16, 17, 40):  # netlink, packet, vsock
        assert _verdict(program, arch.audit_arch, arch.nr_socket, family) == refuse
        assert _verdict(program, arch.audit_arch, arch.nr_socketpair, family) == refuse
    assert _verdict(program, arch.audit_arch, arch.nr_socket, socket.AF_UNIX) == allow
    assert _verdict(program, arch.audit_arch, arch.nr_socketpair, socket.AF_UNIX) == allow
    assert _verdict(program, arch.audit_arch, 0, socket.AF_INET) == allow  # another call, same argument
    for nr in arch.refused:
        assert _verdict(program, arch.audit_arch, nr, 0) == refuse
    assert _verdict(program, arch.audit_arch, 425, 0) == refuse  # io_uring_setup
    assert _verdict(program, arch.audit_arch, 435, 0) == enosys  # clone3: the C library falls back to clone
    assert _verdict(program, arch.audit_arch, arch.nr_clone, 0x01200011) == allow  # fork's flags
    assert _verdict(program, arch.audit_arch, arch.nr_clone, 0x00010000 | 0x20000000) == refuse  # + NEWPID
    assert _verdict(program, arch.audit_arch, arch.nr_prctl, 4) == refuse  # PR_SET_DUMPABLE
    assert _verdict(program, arch.audit_arch, arch.nr_prctl, 15) == allow  # PR_SET_NAME
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


@pytest.mark.main_python
def test_worker_runs_as_the_unprivileged_user_within_its_process_limit(files, gradescope, tmp_path):
    gradescope.install("word2vec")  # its venv's Python, as on Gradescope
    isolation = detect_isolation(gradescope.python)
    assert isolation.user is not None, isolation.off
    secret = tmp_path / "secret.txt"
    secret.write_text("reference")
    with WorkerSession(WorkerSpec(files, None, LIMITS, isolation), 20, "1") as worker:
        user = isolation.user
        assert worker.call("mod.who").value == (user.uid, user.gid, user.uid)  # it owns its scratch folder
        # with namespaces the grader's files are not even there; without, its permissions refuse them
        hidden = "FileNotFoundError" if isolation.namespaces else "PermissionError"
        assert worker.call("mod.read", str(secret)).value == hidden
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
        assert "on:  namespaces, through a user namespace (not root)" in run.stdout
        assert "on:  seccomp: sockets of the Unix family only" in run.stdout
        assert "on:  limits: at most 16 more processes" in run.stdout
        written = (root / "results" / "results.json").read_text()
        results = GradescopeResults.model_validate(json.loads(written))
        assert results.score == results.max_score == 40
        assert "not running as root" not in written
    finally:
        shutil.rmtree(root)
