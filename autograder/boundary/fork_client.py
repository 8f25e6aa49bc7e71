"""The grader's handle on the fork server, the trusted process every worker's supervisor is forked from.

One :class:`ForkServer` serves one grading: the import check and every question. Its process
(:mod:`autograder.worker.forkserver`) starts with the first worker, imports numpy, the protocol, the
assignment's fixtures and the libraries the reference uses once, and from then on each worker costs
a fork instead of a new Python and those imports.
The grader hands it each worker's pipes and output file as file descriptors, over a socket only the
two of them hold. All of it is Linux; the module imports anywhere (grading imports it), and what
only Linux has is imported when a fork server starts.
"""

from __future__ import annotations

import os
import select
import socket
import subprocess
import time

from autograder.contract.fork_messages import KILL_ROUNDS, ForkCommand, receive, send
from autograder.contract.launch import linux_command
from autograder.contract.protocol import ReadTimeout
from autograder.core.config import PACKAGE_ROOT

# The fork server stops a supervisor in rounds of at most a second; allow for all of them.
_STOP_SECONDS = 3.0 * KILL_ROUNDS


class ForkServerError(OSError):
    """The fork server could not start or do what was asked; the message says why. An OSError, as
    when a process cannot be started: a worker that cannot be had fails its calls with the reason."""


# What memory the student's code reads before writing it holds (autograder.worker.memory): glibc
# fills malloc's blocks with the complement of MALLOC_PERTURB_. 0x80 makes a float64 about 1.4e306,
# so that results built on such memory are far off; the other fill gives zeros, to tell when a result
# depends on it.
MEMORY_FILL = 0x80
OTHER_MEMORY_FILL = 0xFF


def worker_env(home: str, memory_fill: int = MEMORY_FILL) -> dict[str, str]:
    """The environment of the fork server and of every worker, whose scratch folder is ``home``."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": home,
        "TMPDIR": home,
        "LANG": "C.UTF-8",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "MPLBACKEND": "Agg",
        "PYTHONUNBUFFERED": "1",
        "TQDM_DISABLE": "1",
    }
    # One BLAS thread: the grader is sized for one core, results must not depend on threading, and
    # the fork server must not have threads when it forks.
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[name] = "1"
    # A fresh process's C library hands every array over 128 KB back to the kernel when numpy frees
    # it, and pays for new pages when the next one is made: a third of the time of training the
    # parser in a worker. Keep such memory in the heap, as run.py's keep_freed_memory does; glibc
    # reads these when the fork server starts, and the workers forked from it inherit them.
    env["MALLOC_MMAP_THRESHOLD_"] = str(32 << 20)
    env["MALLOC_TRIM_THRESHOLD_"] = str(1 << 30)
    # Without its per-thread cache, glibc fills every block it hands out (MALLOC_PERTURB_): memory read
    # before it is written then holds the same bytes in every grading.
    env["GLIBC_TUNABLES"] = "glibc.malloc.tcache_count=0"
    env["MALLOC_PERTURB_"] = str(memory_fill)
    return env


class ForkServer:
    """Forks workers' supervisors for one grading; ``python`` runs it, ``fixtures_module`` and the
    libraries in ``preload`` (:mod:`autograder.boundary.preload`) are imported in it. Its process starts when
    the ``with`` block is entered (so that its imports run while the grader gets ready), or else with
    the first :meth:`start`; :meth:`close` stops it and every supervisor still running."""

    def __init__(self, python: str, fixtures_module: str | None, preload: list[str] | None = None) -> None:
        self.python = python
        self.fixtures_module = fixtures_module
        self.preload = preload or []
        self._process: subprocess.Popen | None = None
        self._channel: socket.socket | None = None
        self._ready = False
        self._requests = 0

    def start(
        self, config: dict, cwd: str, fds: tuple[int, int, int], deadline: float, memory_fill: int = MEMORY_FILL
    ) -> int:
        """Fork a supervisor for a worker running in ``cwd`` with the worker ``config`` (plan, blocked
        modules); ``fds``: its request pipe, reply pipe and output file. Returns its pid."""
        if self._process is None:
            self._launch()
        while not self._ready:
            message = self._receive(deadline)
            if "error" in message:
                raise ForkServerError(f"the fork server could not start: {message['error']}")
            self._ready = bool(message.get("ready"))
        env = worker_env(cwd, memory_fill)
        reply = self._ask({"command": ForkCommand.START, "cwd": cwd, "env": env, **config}, fds, deadline)
        return int(reply["pid"])

    def exit_code(self, pid: int, timeout: float) -> int | None:
        """The supervisor's exit code (negative: the signal that ended it), or None if it is still
        running after ``timeout`` seconds."""
        reply = self._ask(
            {"command": ForkCommand.EXIT_CODE, "pid": pid, "timeout": timeout},
            (),
            time.monotonic() + timeout + _STOP_SECONDS,
        )
        return reply["exit_code"]

    def stop(self, pid: int) -> int:
        """Kill every process below the supervisor ``pid``, then it; returns its exit code."""
        return self._ask({"command": ForkCommand.STOP, "pid": pid}, (), time.monotonic() + _STOP_SECONDS)["exit_code"]

    def close(self) -> None:
        if self._channel is not None:
            self._channel.close()  # the fork server stops what is left and exits
            self._channel = None
            self._ready = False
        if self._process is not None:
            try:
                self._process.wait(timeout=_STOP_SECONDS)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
            self._process = None

    def __enter__(self) -> ForkServer:
        if self._process is None:
            self._launch()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _launch(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        # The grader's home, where the libraries it imports find the caches they keep (matplotlib's
        # font list, a quarter of a second to rebuild); each worker gets a home of its own.
        env = worker_env(os.environ.get("HOME", "/"))
        config = {
            "mode": "forkserver",
            "trusted_paths": [str(PACKAGE_ROOT.parent)],
            "fixtures_module": self.fixtures_module,
            "preload": self.preload,
            "control_fd": theirs.fileno(),
        }
        try:
            # Its stderr stays the grader's: only trusted code writes there, supervisors send their
            # own output into each worker's output file from the start.
            self._process = subprocess.Popen(
                linux_command(self.python, config),
                cwd="/",
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                pass_fds=(theirs.fileno(),),
                start_new_session=True,
            )
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        self._channel = ours

    def _ask(self, request: dict, fds: tuple[int, ...], deadline: float) -> dict:
        if self._channel is None:
            raise ForkServerError("the fork server is not running")
        self._requests += 1
        try:
            send(self._channel, {"id": self._requests, **request}, fds)
        except OSError:
            raise ForkServerError(f"the fork server stopped unexpectedly{self._exit_status()}") from None
        while True:
            reply = self._receive(deadline)
            # Replies to earlier requests, which ran out of time, are skipped: their workers were
            # given up, and the fork server stops them when it is closed.
            if reply.get("id") != self._requests:
                continue
            if "error" in reply:
                raise ForkServerError(f"the fork server failed: {reply['error']}")
            return reply

    def _receive(self, deadline: float) -> dict:
        assert self._channel is not None
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([self._channel], [], [], remaining)[0]:
            raise ReadTimeout("the fork server did not answer in time")
        message, fds = receive(self._channel)
        for fd in fds:
            os.close(fd)
        if message is None:
            raise ForkServerError(f"the fork server stopped unexpectedly{self._exit_status()}")
        return message

    def _exit_status(self) -> str:
        try:
            return f" (exit status {self._process.wait(timeout=2)})" if self._process else ""
        except subprocess.TimeoutExpired:
            return ""
