"""The first process of every worker. It never runs student code; its child does.

Each supervisor is forked by the fork server (:mod:`autograder.worker.forkserver`), which has already
imported everything the worker needs (numpy, the protocol, the assignment's public fixtures) while the
framework could still be read, so the child, once it has switched to the unprivileged user, needs no
access to the framework, the reference or the hidden tests. The supervisor stays trusted (and root,
when the grader is root) while its child confines itself (:mod:`autograder.worker.confine`) and
serves the grader's calls. It:

- is a child subreaper, so every process the student's code starts stays below it, whatever that code
  does (``setsid``, double fork), where :func:`processes.kill_descendants` finds it;
- when the child ends, kills whatever the child left running and exits the way the child did, so the
  grader can tell the student why their code stopped.

This module is also how the grader starts a trusted process (:data:`BOOT`): the fork server
(``mode: forkserver``), or a probe (``mode: probe``) that tries the confinement steps in itself and
prints which ones failed, as JSON: that is how the grader learns what this machine allows.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import signal
import sys
import traceback
from typing import Callable, NoReturn

from autograder.worker import confine
from autograder.worker.processes import kill_descendants

# Run with ``python -s -c BOOT CONFIG_JSON``. ``-s`` rather than ``-I``: ``-I`` implies ``-E``, which
# would drop PYTHONHASHSEED and PYTHONUNBUFFERED from the worker's environment (built from scratch
# anyway). The '' entry that ``-c`` puts first goes before any import, so no student file in the
# working folder can shadow a module imported here.
BOOT = (
    "import sys; sys.path[:] = [p for p in sys.path if p]; "
    "import json; config = json.loads(sys.argv[1]); sys.path[:0] = config['trusted_paths']; "
    "from autograder.worker.supervisor import main; main(config)"
)
UNCONFINED_EXIT = 70  # the child could not apply its plan and did not run student code
_PR_SET_CHILD_SUBREAPER = 36


def command(python: str, config: dict) -> list[str]:
    return [python, "-s", "-c", BOOT, json.dumps(config)]


def main(config: dict) -> None:
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # mirroring a crash must not dump our memory
    if config["mode"] == "probe":
        _probe(confine.Plan.from_json(config["plan"]), config["trusted_paths"])
    else:
        from autograder.worker import forkserver  # which forks supervisors: it imports this module

        forkserver.serve(config)


def _probe(plan: confine.Plan, trusted_paths: list[str]) -> None:
    folders = [path for path in sys.path if path and path not in trusted_paths and os.path.isdir(path)]
    failed = confine.apply(plan)
    if plan.uid is not None and "user" not in failed:
        hidden = confine.unreadable(folders)
        if hidden:
            failed["user"] = (f"the user cannot read {hidden[0]}, from which this Python imports (is "
                              "a folder above it private?); grade with a Python installed outside "
                              "private folders, such as a venv made from /usr/bin/python3")
    print(json.dumps(failed))


def supervise(plan: confine.Plan, pipes: tuple[int, int], run_worker: Callable[[], None]) -> NoReturn:
    """Fork the child that confines itself as ``plan`` says and then runs ``run_worker`` (which talks
    to the grader over ``pipes``, the request and reply pipes); exit the way it does."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER) failed")
    child = os.fork()
    if child == 0:
        try:
            failed = confine.apply(plan)
            if failed:
                print("autograder: the process for your code could not be confined, so your code was "
                      "not run: " + "; ".join(f"{k}: {v}" for k, v in failed.items()), file=sys.stderr)
                os._exit(UNCONFINED_EXIT)
            run_worker()
        except BaseException:
            traceback.print_exc()
            os._exit(1)
        os._exit(0)
    # Only the child talks to the grader: without our copies, the grader sees the pipes close
    # when the child's side is gone.
    for fd in pipes:
        os.close(fd)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    _exit_like(_reap_until_alone(child))


def _reap_until_alone(child: int) -> int:
    """Reap every process that ends below us; once ``child`` has ended, kill the rest."""
    status = 1 << 8  # exit status 1, should the child's status be lost
    while True:
        try:
            pid, wait_status = os.waitpid(-1, 0)
        except ChildProcessError:
            return status
        if pid == child:
            status = wait_status
            kill_descendants(os.getpid())


def _exit_like(status: int) -> None:
    code = os.waitstatus_to_exitcode(status)
    if code >= 0:
        os._exit(code)
    signal.signal(-code, signal.SIG_DFL)
    os.kill(os.getpid(), -code)
    os._exit(128 - code)  # a signal whose default action is to be ignored
