"""Confines the worker process before any student code runs in it.

In order: resource limits; a new, empty network namespace (root only); the unprivileged user
(root only); then no_new_privs and the seccomp filter. The grader decides what to ask for (see
:mod:`autograder.isolation`, which first tries the same steps in a probe process), so in a worker
every step that was asked for must succeed: :func:`apply` returns what failed and the worker refuses
to run student code if anything did.
"""

from __future__ import annotations

import ctypes
import os
import resource
from dataclasses import dataclass

from autograder.worker import seccomp
from autograder.worker.processes import count_tasks

_CLONE_NEWNET = 0x40000000


@dataclass(frozen=True)
class ResourceLimits:
    memory_bytes: int
    file_size_bytes: int
    open_files: int
    processes: int  # besides those the user already runs
    cpu_seconds: int


@dataclass(frozen=True)
class Plan:
    """What to apply; sent by the grader as JSON (the field names are the keys)."""

    limits: ResourceLimits | None = None
    uid: int | None = None
    gid: int | None = None
    network_namespace: bool = False
    seccomp: bool = False

    @classmethod
    def from_json(cls, data: dict) -> "Plan":
        limits = data.get("limits")
        return cls(limits=ResourceLimits(**limits) if limits else None, uid=data.get("uid"),
                   gid=data.get("gid"), network_namespace=bool(data.get("network_namespace")),
                   seccomp=bool(data.get("seccomp")))


def _set_limits(limits: ResourceLimits, uid: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes,) * 2)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_size_bytes,) * 2)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_NOFILE, (limits.open_files,) * 2)
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 1))
    if uid != 0:  # the kernel never applies RLIMIT_NPROC to root
        # It counts every process of the user, not only ours: allow as many more as configured.
        nproc = count_tasks(uid) + limits.processes
        resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))


def _new_network_namespace() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(_CLONE_NEWNET) != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))


def _become(uid: int, gid: int) -> None:
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
    if os.getuid() != uid or os.geteuid() != uid or os.getegid() != gid:
        raise OSError(f"still running as uid {os.geteuid()}, gid {os.getegid()}")
    try:
        os.setuid(0)
    except PermissionError:
        return
    raise OSError("could switch back to root")


def apply(plan: Plan) -> dict[str, str]:
    """Apply ``plan`` to this process; returns ``{step: why it failed}`` for the steps that did."""
    failed: dict[str, str] = {}
    target_uid = plan.uid if plan.uid is not None else os.getuid()
    if plan.limits is not None:
        try:
            _set_limits(plan.limits, target_uid)
        except (OSError, ValueError) as exc:
            failed["limits"] = f"setrlimit failed: {exc}"
    if plan.network_namespace:
        try:
            _new_network_namespace()
        except OSError as exc:
            failed["network_namespace"] = f"unshare(CLONE_NEWNET) failed: {exc.strerror or exc}"
    if plan.uid is not None and plan.gid is not None:
        try:
            _become(plan.uid, plan.gid)
        except OSError as exc:
            failed["user"] = f"could not switch to uid {plan.uid}: {exc}"
    if plan.seccomp:
        try:
            seccomp.install()
        except seccomp.SeccompUnavailable as exc:
            failed["seccomp"] = str(exc)
    return failed


def unreadable(folders: list[str]) -> list[str]:
    """The ``folders`` this process cannot read. List them before switching user: afterwards a
    folder below a private one cannot even be seen to exist."""
    return [folder for folder in folders if not os.access(folder, os.R_OK | os.X_OK)]
