"""Confines the worker process before any student code runs in it.

In order: a pid namespace (:func:`enter_pid_namespace`, in the supervisor, so that its next child is
the namespace's first process), inside a user namespace when the grader is not root; then, in that
first process, resource limits, a network namespace without interfaces and the worker's own file
system view (:func:`outside`, :mod:`autograder.worker.namespaces`); then, in the process that runs
the student's code, the unprivileged user (root) or no capabilities (user namespace), no core dumps
or ptrace by the same user, no_new_privs and the seccomp filter (:func:`inside`). Without namespaces
the same steps but the view run in one process.

The grader decides what to ask for (see :mod:`autograder.boundary.isolation`, which first tries the same
steps in a probe process), so in a worker every step that was asked for must succeed: each function
returns what failed and the worker refuses to run student code if anything did.
"""

from __future__ import annotations

import ctypes
import os
import resource
from collections.abc import Callable

from autograder.contract.plan import Plan, ResourceLimits
from autograder.worker import namespaces, seccomp
from autograder.worker.processes import count_tasks

_PR_SET_DUMPABLE = 4
_LINUX_CAPABILITY_VERSION_3 = 0x20080522


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


def _drop_capabilities() -> None:
    """Give up every capability this process holds in its user namespace, for good."""

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.capset(ctypes.byref(Header(_LINUX_CAPABILITY_VERSION_3, 0)), (Data * 2)()) != 0:
        raise OSError(ctypes.get_errno(), f"capset: {os.strerror(ctypes.get_errno())}")


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


def enter_pid_namespace(plan: Plan) -> None:
    """The namespaces the supervisor enters before it forks the worker: as root a pid namespace,
    else a user namespace with it. Raises OSError."""
    if plan.user_namespace:
        namespaces.enter_user_namespace()
    else:
        namespaces.unshare(namespaces.CLONE_NEWPID, "unshare(CLONE_NEWPID)")


def _step(failed: dict[str, str], name: str, action: Callable[[], object], context: str = "") -> None:
    try:
        action()
    except (OSError, ValueError, seccomp.SeccompUnavailable) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        failed[name] = context + reason


def outside(plan: Plan, *, view: bool) -> dict[str, str]:
    """The steps that need privileges: limits, the network namespace and (with ``view``) the file
    system view. Returns ``{step: why it failed}``."""
    failed: dict[str, str] = {}
    target_uid = plan.uid if plan.uid is not None else os.getuid()
    if plan.limits is not None:
        limits = plan.limits
        _step(failed, "limits", lambda: _set_limits(limits, target_uid), "setrlimit failed: ")
    if plan.network_namespace:
        _step(failed, "network_namespace", lambda: namespaces.unshare(namespaces.CLONE_NEWNET, "unshare(CLONE_NEWNET)"))
    if view and plan.view is not None:
        the_view, gid = plan.view, plan.gid if plan.gid is not None else os.getgid()
        _step(failed, "view", lambda: namespaces.build_view(the_view, target_uid, gid, plan.disk))
    return failed


def inside(plan: Plan) -> dict[str, str]:
    """The steps that give up privileges for good, in the process that will run the student's code."""
    failed: dict[str, str] = {}
    if plan.uid is not None and plan.gid is not None:
        uid, gid = plan.uid, plan.gid
        _step(failed, "user", lambda: _become(uid, gid), f"could not switch to uid {uid}: ")
    elif plan.user_namespace:
        _step(failed, "namespaces", _drop_capabilities)
    # Not dumpable: another process of the same user may not ptrace it or read its memory.
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        failed["dumpable"] = f"prctl(PR_SET_DUMPABLE) failed: {os.strerror(ctypes.get_errno())}"
    if plan.seccomp:
        _step(failed, "seccomp", seccomp.install)
    return failed


def unreadable(folders: list[str]) -> list[str]:
    """The ``folders`` this process cannot read. List them before switching user: afterwards a
    folder below a private one cannot even be seen to exist."""
    return [folder for folder in folders if not os.access(folder, os.R_OK | os.X_OK)]
