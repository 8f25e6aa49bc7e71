"""A question's memory and disk budgets, watched by the worker's supervisor.

The supervisor, which waits for its child anyway, looks every :data:`INTERVAL` seconds and stops all
the processes below it when they are over a budget together, exiting with the budget's code
(:data:`autograder.contract.launch.MEMORY_EXIT`, ``DISK_EXIT``), which the grader turns into the message.

Memory: ``RLIMIT_AS`` limits each process, so a worker that forks four children could hold five
times the budget. In a memory cgroup (:mod:`autograder.contract.memory_cgroup`) the kernel keeps the
count and kills one process at the limit; the supervisor then stops the rest. Without one (a
read-only cgroup file system, an ordinary user), it sums their resident memory itself; between two
looks they can overshoot by what they touch in that time (page faults run at a few GB/s on one core:
about 100 MB), and pages a forked child still shares with its parent count twice (on the strict side).

Disk: with a view of its own, the worker's scratch folder is a tmpfs of the budget's size and number
of files (:mod:`autograder.worker.namespaces`), where a write past it fails in the student's code.
Without one, the scratch folder is on the host's disk, and the supervisor adds up what is in it
every :data:`DISK_EVERY` looks (a walk stops at the budget, so a folder of 60,000 files costs no more
than one of 2,000); between two, a fast writer can add a few hundred MB.
"""

from __future__ import annotations

import itertools
import os
import signal
from collections.abc import Callable
from pathlib import Path

from autograder.contract.launch import DISK_EXIT, MEMORY_EXIT
from autograder.contract.memory_cgroup import oom_kills
from autograder.contract.plan import DiskBudget, Plan
from autograder.worker.processes import descendants, kill_descendants, process_table

INTERVAL = 0.05
DISK_EVERY = 2  # looks: the scratch folder is walked every 0.1 s (a walk stops at the budget)
_PAGE = os.sysconf("SC_PAGE_SIZE")

Check = Callable[[], "int | None"]  # the exit code of the budget that is used up, or None


def watch(plan: Plan) -> Check | None:
    """What tells whether the worker's processes are over one of the question's budgets, or None
    when nothing is to be watched here."""
    checks = [check for check in (_memory(plan), _disk(plan)) if check is not None]
    if not checks:
        return None
    return lambda: next((code for code in (check() for check in checks) if code is not None), None)


def _memory(plan: Plan) -> Check | None:
    """In a memory cgroup, whether the kernel killed one of them (it kills one, not all; the rest
    are stopped with it, so the call fails the same way whichever it was); else whether their
    resident memory together is over the budget."""
    me = os.getpid()
    if plan.memory_cgroup:
        cgroup = Path(plan.memory_cgroup)
        return lambda: MEMORY_EXIT if oom_kills(cgroup) > 0 else None
    budget = plan.watched_memory_bytes
    if budget is None:
        return None
    return lambda: MEMORY_EXIT if resident_bytes(me) > budget else None


def _disk(plan: Plan) -> Check | None:
    """Without a view (whose scratch folder is a tmpfs of the budget's size), whether the scratch
    folder (this process's working folder) holds more than the budget."""
    if plan.disk is None or plan.view is not None:
        return None
    scratch, disk, looks = os.getcwd(), plan.disk, itertools.count()
    return lambda: DISK_EXIT if next(looks) % DISK_EVERY == 0 and over_disk(scratch, disk) else None


def over_disk(folder: str, disk: DiskBudget) -> bool:
    """Whether ``folder`` holds more bytes (as allocated: a sparse file counts what it uses) or
    more files and folders than ``disk`` allows; it stops counting once over."""
    room, files = disk.megabytes << 20, disk.files
    todo = [folder]
    while todo:
        try:
            entries = list(os.scandir(todo.pop()))
        except OSError:  # removed meanwhile
            continue
        for entry in entries:
            files -= 1
            try:
                room -= entry.stat(follow_symlinks=False).st_blocks * 512
                if entry.is_dir(follow_symlinks=False):
                    todo.append(entry.path)
            except OSError:
                continue
            if room < 0 or files < 0:
                return True
    return False


def resident_bytes(root: int) -> int:
    """The resident memory of every live process below ``root`` together (threads share theirs)."""
    total = 0
    for pid in _below(root):
        try:
            with open(f"/proc/{pid}/statm", "rb") as statm:
                total += int(statm.read().split()[1]) * _PAGE
        except (OSError, IndexError, ValueError):  # gone meanwhile
            continue
    return total


def _below(root: int) -> set[int]:
    """The processes below ``root``, from each thread's list of children: a few small files, where
    a walk of all of /proc (:func:`descendants`) reads one per process on the machine; that walk
    where the kernel keeps no such lists (CONFIG_PROC_CHILDREN)."""
    if not os.path.exists(f"/proc/{root}/task/{root}/children"):
        table = process_table()
        return {pid for pid in descendants(root, table) if table[pid][1] != "Z"}
    found: set[int] = set()
    todo = [root]
    while todo:
        for child in _children(todo.pop()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _children(pid: int) -> list[int]:
    children: list[int] = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as listed:
                children += map(int, listed.read().split())
    except OSError:  # it ended meanwhile
        pass
    return children


def reap_until_alone(child: int, over_budget: Check | None) -> tuple[int, int | None]:
    """Reap every process that ends below this one; once ``child`` has ended, kill the rest. With
    ``over_budget``, ask it between reaps, and kill them all when it names a budget. Returns
    ``child``'s wait status, and the exit code of the budget that was used up (or None)."""
    status = 1 << 8  # exit status 1, should the child's status be lost
    over: int | None = None
    me = os.getpid()
    if over_budget is not None:  # kept pending for sigtimedwait below: an ending child wakes us at once
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
    while True:
        watching = over_budget is not None and over is None
        try:
            pid, wait_status = os.waitpid(-1, os.WNOHANG if watching else 0)
        except ChildProcessError:
            return status, over
        if pid == 0:  # none ended: look at the budgets, then wait a moment
            over = over_budget() if over_budget is not None else None
            if over is not None:
                kill_descendants(me)
            else:
                signal.sigtimedwait({signal.SIGCHLD}, INTERVAL)
        elif pid == child:
            status = wait_status
            kill_descendants(me)
