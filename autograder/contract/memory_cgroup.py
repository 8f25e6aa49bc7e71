"""One memory budget for all the processes of a question: a memory cgroup per worker.

``RLIMIT_AS`` limits each process; a worker that forks may hold that much in every child. Where the
grader may make cgroups (root, with the memory controller writable, as in CI; a delegated cgroup
v2 subtree), each worker's supervisor joins a cgroup of its own before it forks the process that
runs student code, so the kernel counts that process and everything it starts together, and kills
one of them when they reach ``limits.memory_mb`` together. The grader makes the cgroup before the
worker starts, named as the worker's private folder, and removes it once the worker has ended; a
grading killed outright leaves an empty cgroup, removed by the next grading's sweep once the folder
is gone (:mod:`autograder.boundary.leftovers`).

Where it cannot (Gradescope's container mounts the cgroup file system read-only; an ordinary user
without delegation), the supervisor sums its processes' memory itself
(:mod:`autograder.worker.budget_watch`). Both sides import this module: the supervisor only joins.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

_V1 = Path("/sys/fs/cgroup/memory")
_V2 = Path("/sys/fs/cgroup")


class CgroupUnavailable(OSError):
    """No memory cgroup can be made here; the message says why."""


def own_cgroup() -> tuple[Path, str]:
    """The folder of this process's own memory cgroup and its version ("v1" or "v2")."""
    lines = Path("/proc/self/cgroup").read_text().splitlines()
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if "memory" in controllers.split(",") and _V1.is_dir():
            return _V1 / path.lstrip("/"), "v1"
    for line in lines:
        hierarchy, controllers, path = line.split(":", 2)
        if hierarchy == "0" and not controllers and (_V2 / "cgroup.controllers").is_file():
            return _V2 / path.lstrip("/"), "v2"
    raise CgroupUnavailable("no memory cgroup: neither the v1 memory controller nor cgroup v2 is mounted")


def make(name: str, limit_bytes: int) -> Path:
    """A new memory cgroup ``name`` below this process's own, limited to ``limit_bytes`` (swap included)."""
    parent, version = own_cgroup()
    if version == "v2" and "memory" not in _read(parent / "cgroup.subtree_control").split():
        raise CgroupUnavailable(f"the memory controller is not delegated below {parent}")
    path = parent / name
    try:
        path.mkdir()
    except OSError as exc:
        raise CgroupUnavailable(f"cannot make a cgroup in {parent}: {exc.strerror}") from None
    try:
        limits = ("memory.limit_in_bytes", "memory.memsw.limit_in_bytes") if version == "v1" else ("memory.max",)
        for name in limits:
            if (path / name).exists():
                (path / name).write_text(str(limit_bytes))
        if version == "v2" and (path / "memory.swap.max").exists():
            (path / "memory.swap.max").write_text("0")
        if version == "v2" and (path / "memory.oom.group").exists():
            (path / "memory.oom.group").write_text("1")  # all its processes at once, as the watch does
    except OSError as exc:
        remove(path)
        raise CgroupUnavailable(f"cannot limit a cgroup in {parent}: {exc.strerror}") from None
    return path


def join(path: str) -> None:
    """Move this process into the cgroup ``path``; the processes it forks from then on are in it too."""
    with open(os.path.join(path, "cgroup.procs"), "w") as procs:
        procs.write(str(os.getpid()))


def remove(path: Path, timeout: float = 2.0) -> bool:
    """Remove the cgroup once its processes have gone (a killed worker's take a moment); False if
    it still has some after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            path.rmdir()
            return True
        except FileNotFoundError:
            return True
        except OSError:  # EBUSY: processes still in it
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)


# A cgroup is empty from when it is made until its worker's supervisor joins it (milliseconds): a
# sweep leaves the younger ones alone, as it cannot tell them from leftovers by their name alone.
LEFTOVER_AGE = 60.0


def remove_leftovers(prefix: str, in_use: Callable[[str], bool]) -> None:
    """Remove the cgroups named ``prefix...`` below this process's own that are not ``in_use`` (by
    name) and were made more than :data:`LEFTOVER_AGE` seconds ago: those a grading killed outright
    left, empty once its processes were killed. A grading whose temporary folder is another
    (``TMPDIR``) shares the parent cgroup but not the folder ``in_use`` looks in: its cgroup, just
    made, must survive this sweep until its supervisor is in it (and then cannot be removed)."""
    try:
        parent, _ = own_cgroup()
    except OSError:
        return
    for path in parent.glob(f"{prefix}*"):
        try:
            young = time.time() - path.stat().st_ctime < LEFTOVER_AGE
        except OSError:  # removed meanwhile
            continue
        if not young and not in_use(path.name):
            remove(path, timeout=0)


def oom_kills(path: Path) -> int:
    """How many of the cgroup's processes the kernel killed for its limit."""
    for name in ("memory.oom_control", "memory.events"):
        for line in _read(path / name).splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill":
                return int(value)
    return 0


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""
