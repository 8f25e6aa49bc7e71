"""One memory budget for all the processes of a question, watched by the worker's supervisor.

``RLIMIT_AS`` limits each process, so a worker that forks four children could hold five times the
budget. The supervisor, which waits for its child anyway, looks every :data:`INTERVAL` seconds and
kills all the processes below it when they are over the budget together. In a memory cgroup
(:mod:`autograder.boundary.memory_cgroup`) the kernel keeps the count and kills one process at the
limit; the supervisor then stops the rest. Without one (Gradescope's container, an ordinary user),
it sums their resident memory itself; between two looks they can overshoot by what they touch in
that time (page faults run at a few GB/s on one core: about 100 MB), and pages a forked child still
shares with its parent count twice (on the strict side).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from autograder.boundary.memory_cgroup import oom_kills
from autograder.boundary.plan import Plan
from autograder.worker.processes import descendants, kill_descendants, process_table

INTERVAL = 0.05
_PAGE = os.sysconf("SC_PAGE_SIZE")


def watch(plan: Plan) -> Callable[[], bool] | None:
    """What says the worker's processes are over the question's memory budget: in a memory cgroup,
    the kernel killed one of them (it kills one, not all; the rest are stopped with it, so the call
    fails the same way whichever it was); else their resident memory together is over the budget."""
    me = os.getpid()
    if plan.memory_cgroup:
        cgroup = Path(plan.memory_cgroup)
        return lambda: oom_kills(cgroup) > 0
    budget = plan.watched_memory_bytes
    if budget is None:
        return None
    return lambda: resident_bytes(me) > budget


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


def reap_until_alone(child: int, over_budget: Callable[[], bool] | None) -> int | None:
    """Reap every process that ends below this one; once ``child`` has ended, kill the rest. With
    ``over_budget``, ask it between reaps, and kill them all when it says so: then None rather than
    ``child``'s wait status."""
    status = 1 << 8  # exit status 1, should the child's status be lost
    over = False
    me = os.getpid()
    while True:
        watching = over_budget is not None and not over
        try:
            pid, wait_status = os.waitpid(-1, os.WNOHANG if watching else 0)
        except ChildProcessError:
            return None if over else status
        if pid == 0:  # none ended: look at the memory, then wait a moment
            if over_budget is not None and over_budget():
                over = True
                kill_descendants(me)
            else:
                time.sleep(INTERVAL)
        elif pid == child:
            status = wait_status
            kill_descendants(me)
