"""The first process of every worker. It never runs student code; its child does.

Each supervisor is forked by the fork server (:mod:`autograder.worker.forkserver`), which has already
imported everything the worker needs (numpy, the protocol, the assignment's public fixtures) while the
framework could still be read, so the child, once it has switched to the unprivileged user, needs no
access to the framework, the reference or the hidden tests. The supervisor stays trusted (and root,
when the grader is root) while its child confines itself (:mod:`autograder.worker.confine`) and
serves the grader's calls. It:

- is a child subreaper, so every process the student's code starts stays below it, whatever that code
  does (``setsid``, double fork), where :func:`processes.kill_descendants` finds it;
- keeps all of them within the question's memory and disk budgets together: it joins the worker's
  memory cgroup before it forks (:mod:`autograder.contract.memory_cgroup`), and watches what the
  kernel does not count for it (:mod:`autograder.worker.budget_watch`);
- when the child ends, kills whatever the child left running and exits the way the child did, so the
  grader can tell the student why their code stopped.

:func:`probe` runs the same steps in a probe process (:mod:`autograder.worker.boot`), to learn what
this machine allows.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import sys
import traceback
from collections.abc import Callable
from dataclasses import replace
from typing import NoReturn

from autograder.contract.launch import UNCONFINED_EXIT
from autograder.contract.memory_cgroup import join as join_cgroup
from autograder.contract.plan import Plan
from autograder.worker import confine, namespaces
from autograder.worker.budget_watch import reap_until_alone, watch

_PR_SET_CHILD_SUBREAPER = 36


def probe(plan: Plan, trusted_paths: list[str]) -> None:
    """Try ``plan`` as a worker would, in a child, and print which steps failed, as JSON."""
    folders = [path for path in sys.path if path and path not in trusted_paths and os.path.isdir(path)]
    if plan.view is not None:
        plan = replace(plan, view=replace(plan.view, runtime=namespaces.runtime_folders(trusted_paths)))

    def report(failed: dict[str, str]) -> None:
        if plan.uid is not None and "user" not in failed:
            hidden = confine.unreadable(folders)
            if hidden:
                failed["user"] = (
                    f"the user cannot read {hidden[0]}, from which this Python imports (is "
                    "a folder above it private?); grade with a Python installed outside "
                    "private folders, such as a venv made from /usr/bin/python3"
                )
        print(json.dumps(failed), flush=True)

    child, status_pipe = _start_confined(plan, (), report, probing=True)
    _worker_status(status_pipe, os.waitpid(child, 0)[1])


def supervise(plan: Plan, pipes: tuple[int, int], run_worker: Callable[[], None]) -> NoReturn:
    """Fork the child that confines itself as ``plan`` says and then runs ``run_worker`` (which talks
    to the grader over ``pipes``, the request and reply pipes); exit the way it does."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER) failed")

    def run_or_refuse(failed: dict[str, str]) -> None:
        if failed:
            print(
                "autograder: the process for your code could not be confined, so your code was "
                "not run: " + "; ".join(f"{k}: {v}" for k, v in failed.items()),
                file=sys.stderr,
            )
            os._exit(UNCONFINED_EXIT)
        run_worker()

    child, status_pipe = _start_confined(plan, pipes, run_or_refuse, probing=False)
    # Only the child talks to the grader: without our copies, the grader sees the pipes close
    # when the child's side is gone.
    for fd in pipes:
        os.close(fd)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    status, over_budget = reap_until_alone(child, watch(plan))
    if over_budget is not None:
        os.close(status_pipe)
        os._exit(over_budget)
    _exit_like(_worker_status(status_pipe, status))


def _start_confined(
    plan: Plan, pipes: tuple[int, ...], body: Callable[[dict[str, str]], None], probing: bool
) -> tuple[int, int]:
    """Fork the process that confines itself as ``plan`` says and calls ``body`` with what failed.
    With namespaces that process is the first of a new pid namespace, which builds the view and
    forks the one that calls ``body`` (:func:`_init`). Returns the child and the pipe on which it
    sends the wait status of the process that ran ``body``."""
    failed: dict[str, str] = {}
    if plan.memory_cgroup:
        try:  # before any fork: the processes below us are then in it too
            join_cgroup(plan.memory_cgroup)
        except OSError as exc:
            failed["memory cgroup"] = f"could not join {plan.memory_cgroup}: {exc.strerror or exc}"
            if not probing:
                body(failed)
    in_namespace = False
    if plan.namespaces:
        try:
            confine.enter_pid_namespace(plan)
            in_namespace = True
        except OSError as exc:
            failed["namespaces"] = exc.strerror or str(exc)
            if not probing:
                body(failed)
    status_r, status_w = os.pipe()
    child = os.fork()
    if child == 0:
        try:
            os.close(status_r)
            if in_namespace:
                _init(plan, failed, body, pipes, status_w)
            os.close(status_w)
            failed.update(confine.outside(plan, view=False))
            failed.update(confine.inside(plan))
            body(failed)
        except BaseException:
            traceback.print_exc()
            os._exit(1)
        os._exit(0)
    os.close(status_w)
    return child, status_r


def _init(
    plan: Plan,
    failed: dict[str, str],
    body: Callable[[dict[str, str]], None],
    pipes: tuple[int, ...],
    status_w: int,
) -> NoReturn:
    """The first process of the worker's pid namespace: builds the view, forks the process that
    runs ``body``, reaps whatever ends below it, and when that process ends sends its wait status
    and exits, which kills everything left in the namespace."""
    failed.update(confine.outside(plan, view=True))
    worker = os.fork()
    if worker == 0:
        os.close(status_w)
        failed.update(confine.inside(plan))
        body(failed)
        os._exit(0)
    for fd in pipes:
        os.close(fd)
    while True:
        pid, status = os.waitpid(-1, 0)
        if pid == worker:
            os.write(status_w, status.to_bytes(4, "little", signed=True))
            os._exit(0)


def _worker_status(status_pipe: int, fallback: int) -> int:
    """The wait status that the namespace's first process sent, else ``fallback`` (its own)."""
    try:
        data = os.read(status_pipe, 4)
    finally:
        os.close(status_pipe)
    return int.from_bytes(data, "little", signed=True) if len(data) == 4 else fallback


def _exit_like(status: int) -> NoReturn:
    code = os.waitstatus_to_exitcode(status)
    if code >= 0:
        os._exit(code)
    if -code not in (signal.SIGKILL, signal.SIGSTOP):  # these two have no handler to reset (OSError)
        signal.signal(-code, signal.SIG_DFL)
    os.kill(os.getpid(), -code)
    os._exit(128 - code)  # a signal whose default action is to be ignored
