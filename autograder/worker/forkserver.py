"""The fork server: a trusted process that has imported what every worker needs, and forks each
worker's supervisor from itself.

Starting a Python and importing numpy, the protocol and the assignment's fixtures takes about a
quarter of a second, more than most questions' own work. So the grader starts this process once per
grading (:class:`autograder.boundary.fork_client.ForkServer`) and every worker's supervisor is a fork of it: still
a fresh process per worker, and from there on the same steps as ever (:func:`supervisor.supervise`).
It also imports the libraries the reference imports (:mod:`autograder.boundary.preload`), which a worker
would otherwise import again: matplotlib alone takes most of a second.

It never runs student code and nothing reaches it from there: a supervisor closes the fork server's
channel before it does anything else, and keeps no file descriptor but the worker's own. It takes
requests from the grader alone, on the socket it inherited, and answers each, echoing its ``id``:

- ``start``: fork a supervisor in ``cwd`` with ``env``, ``plan`` and ``blocked``, given the worker's
  request pipe, reply pipe and output file as file descriptors; answers its ``pid``;
- ``exit_code``: the supervisor's exit code once it has ended (waiting up to ``timeout`` seconds),
  else null;
- ``stop``: kill every process below the supervisor, then the supervisor if it is still there,
  reap it and answer its exit code.

It is the parent of every supervisor and reaps one only when told to stop it, so the pid of a
supervisor the grader has not stopped is never another process's. When the grader closes the channel
(or dies), it stops every supervisor it still has and exits.

Its messages with the grader are :mod:`autograder.contract.fork_messages`.
"""

from __future__ import annotations

import importlib
import os
import select
import signal
import socket
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from autograder.contract.fork_messages import KILL_ROUNDS, ForkCommand, receive, send
from autograder.contract.plan import Plan


def serve(config: dict) -> None:
    """The fork server's life: import, say ready (or why not), then answer the grader until it leaves."""
    from autograder.worker import namespaces

    channel = socket.socket(fileno=config["control_fd"])
    try:
        from autograder.worker.calls import serve as serve_worker

        name = config.get("fixtures_module")
        fixtures = importlib.import_module(name) if name else None
    except BaseException as exc:
        traceback.print_exc()  # on the grader's stderr, for the staff
        send(channel, {"error": f"{type(exc).__name__}: {exc}"})
        return
    for library in config.get("preload", []):
        try:
            importlib.import_module(library)
        except Exception:  # then each worker imports it, as it would have anyway, and reports the error
            pass

    def run_worker(request_fd: int, reply_fd: int, blocked: dict[str, str]) -> None:
        serve_worker(request_fd, reply_fd, fixtures, config["trusted_paths"], blocked)

    _Server(channel, run_worker, namespaces.runtime_folders(config["trusted_paths"])).run()


WorkerMain = Callable[[int, int, dict[str, str]], None]  # (request fd, reply fd, blocked modules)


class _Server:
    def __init__(self, channel: socket.socket, run_worker: WorkerMain, runtime: tuple[str, ...]) -> None:
        self.channel = channel
        self.run_worker = run_worker
        self.runtime = runtime  # what a worker's view shows of this Python
        self.running: set[int] = set()  # supervisors not stopped yet

    def run(self) -> None:
        try:
            self._serve()
        except (BrokenPipeError, ConnectionResetError):  # the grader stopped first (it refused the grading)
            pass
        for pid in list(self.running):
            _stop(pid)

    def _serve(self) -> None:
        send(self.channel, {"ready": True})
        while True:
            message, fds = receive(self.channel)
            if message is None:
                break
            try:
                reply = self._answer(message, fds)
            except OSError as exc:  # fork() itself can fail: out of memory or processes
                reply = {"error": f"{type(exc).__name__}: {exc}"}
            finally:
                for fd in fds:  # a supervisor has its own copies
                    os.close(fd)
            send(self.channel, {"id": message.get("id"), **reply})

    def _answer(self, message: dict, fds: list[int]) -> dict[str, Any]:
        try:
            command = ForkCommand(message.get("command"))
        except ValueError:
            return {"error": f"unknown command {message.get('command')!r}"}
        if command is ForkCommand.START:
            pid = self._fork_supervisor(message, fds)
            self.running.add(pid)
            return {"pid": pid}
        pid = int(message["pid"])
        if pid not in self.running:
            return {"error": f"pid {pid} is not a supervisor of this fork server"}
        if command is ForkCommand.STOP:
            self.running.discard(pid)
            return {"exit_code": _stop(pid)}
        return {"exit_code": _exit_code(pid, float(message["timeout"]))}

    def _fork_supervisor(self, message: dict, fds: list[int]) -> int:
        from autograder.worker import supervisor

        request_fd, reply_fd, output_fd = fds
        pid = os.fork()
        if pid != 0:
            return pid
        try:
            # First of all: through this channel, code below us could have processes started as us.
            self.channel.close()
            _become_worker_process(message["cwd"], message["env"], output_fd, keep=(request_fd, reply_fd))
            plan = Plan.from_json(message["plan"])
            if plan.view is not None:
                plan = replace(plan, view=replace(plan.view, runtime=self.runtime))
            supervisor.supervise(
                plan,
                (request_fd, reply_fd),
                lambda: self.run_worker(request_fd, reply_fd, message.get("blocked") or {}),
            )
        except BaseException:
            traceback.print_exc()
        os._exit(1)


def _become_worker_process(cwd: str, env: dict[str, str], output_fd: int, keep: tuple[int, ...]) -> None:
    """What starting a new process for the worker would have given: a session of its own, its folder
    and environment, stdin from /dev/null, stdout and stderr into the output file, no other files."""
    os.setsid()
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    # tempfile keeps the folder it found first; here that would be the fork server's, not the worker's
    tempfile.tempdir = None
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(output_fd, 1)
    os.dup2(output_fd, 2)
    low = 3
    for fd in sorted(keep):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, os.sysconf("SC_OPEN_MAX"))


def _exit_code(pid: int, timeout: float) -> int | None:
    """The exit code of ``pid`` (negative: the signal that ended it) once it has ended, without
    reaping it; None if it is still running after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    try:
        # readable when the process ends; our own child, not reaped, so the pid is still its
        handle = os.pidfd_open(pid)
    except OSError:  # a kernel before 5.3: poll below
        handle = -1
    try:
        delay = 0.001
        while True:
            ended = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            if ended is not None:
                return ended.si_status if ended.si_code == os.CLD_EXITED else -ended.si_status
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            if handle >= 0:
                select.select([handle], [], [], remaining)
            else:
                time.sleep(min(delay, remaining))
                delay = min(2 * delay, 0.05)
    finally:
        if handle >= 0:
            os.close(handle)


def _stop(pid: int) -> int:
    from autograder.worker.processes import kill_descendants

    # Everything below the supervisor first: it then exits by itself. Killing it first would hand
    # what is left below it to init, out of reach.
    for _ in range(KILL_ROUNDS):
        kill_descendants(pid)
        if _exit_code(pid, 1.0) is not None:
            break
    else:
        os.kill(pid, signal.SIGKILL)  # not reaped yet, so this pid is still the supervisor's
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)
