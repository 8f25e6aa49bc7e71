"""What keeps the student's code away from the rest of the machine, decided once per grading.

The grader asks for every protection this machine allows (SECURITY.md says why each one exists):

- namespaces: each worker gets a pid namespace, a file system view of its own that shows only its
  scratch folder, the Python runtime and fresh temporary folders, and a network namespace with no
  interfaces (:mod:`autograder.worker.namespaces`); as root directly, as an ordinary user through a
  user namespace;
- when it runs as root, the worker switches to the unprivileged user :data:`WORKER_USER` (created by
  the Gradescope ``setup.sh``);
- always, a seccomp filter lets ``socket()`` make Unix sockets only and refuses ptrace, mounts and
  new namespaces.

Whether the machine allows them is found out, not assumed: a probe process runs the very steps the
worker will run (:mod:`autograder.worker.confine`) and reports which failed. Those are off, with the
reason, for the staff to read; the worker is only ever asked for steps that worked in the probe, and
refuses to run student code if one of them then fails.

None of that exists but on Linux. Elsewhere (Windows, macOS), or when asked for (``check --portable``,
:data:`PORTABLE_ENV`), the decision is the portable path: each worker is a plain subprocess
(:mod:`autograder.boundary.portable_session`) with the time limits and nothing else. Only the students' self-check may
take it; the staff's commands refuse it (:func:`require_linux_worker`).
"""

from __future__ import annotations

import getpass
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

from autograder.contract import memory_cgroup
from autograder.contract.launch import linux_command
from autograder.contract.plan import Plan, View
from autograder.core.config import PACKAGE_ROOT, Limits
from autograder.core.errors import AutograderError

WORKER_USER = "ag-worker"
PROBE_PREFIX = "ag-probe-"
CREATE_USER = f"useradd --system --user-group --no-create-home --shell /usr/sbin/nologin {WORKER_USER}"
PORTABLE_ENV = "AUTOGRADER_PORTABLE"  # set to 1: the portable path even on Linux (to try it there)
# What the portable path does without, in the words the student reads.
PORTABLE_OFF = (
    "memory and process limits",
    "a private view of the files",
    "the network block",
    "a separate user",
    "the system-call filter (seccomp)",
)


class NeedsLinux(AutograderError):
    """A staff command was asked to grade where the Linux worker cannot run; the message says so."""


@dataclass(frozen=True)
class WorkerUser:
    name: str
    uid: int
    gid: int


@dataclass(frozen=True)
class Isolation:
    """How workers run. The default is what any user gets: only the resource limits."""

    python: str = sys.executable
    user: WorkerUser | None = None
    network_namespace: bool = False
    seccomp: bool = False
    namespaces: bool = False  # a pid namespace and a file system view of its own per worker
    user_namespace: bool = False  # entered through a user namespace (the grader is not root)
    off: tuple[tuple[str, str], ...] = ()  # (protection, why it is off)
    # a memory cgroup per worker (autograder.contract.memory_cgroup); else the supervisor's watch
    memory_cgroup: bool = False
    portable: bool = False  # plain subprocesses, not the Linux worker (autograder.boundary.portable_session)

    def plan(self) -> Plan:
        """The confinement steps (the limits and the view, which names each worker's folders, are
        added per worker: :mod:`autograder.boundary.session`)."""
        return Plan(
            uid=self.user.uid if self.user else None,
            gid=self.user.gid if self.user else None,
            network_namespace=self.network_namespace,
            seccomp=self.seccomp,
            namespaces=self.namespaces,
            user_namespace=self.user_namespace,
        )

    def report(self, limits: Limits) -> list[str]:
        """One line per protection, on or off, for the staff (never for the student)."""
        if self.portable:
            off = [f"off: {name}: {why}" for name, why in self.off]
            return ["on:  a plain subprocess per question, with its time limit"] + off
        on = []
        if self.namespaces:
            how = "a user namespace (not root)" if self.user_namespace else "root"
            on.append(
                f"namespaces, through {how}: each worker sees only its own processes, its scratch "
                "folder, the Python runtime read-only and a fresh /tmp and /dev/shm; no home "
                "folder, checkout, reference, hidden tests or other grading"
            )
        if self.user:
            on.append(f"student code runs as the user {self.user.name} (uid {self.user.uid}), not as root")
        if self.network_namespace:
            on.append("network: each worker has a network namespace of its own, without interfaces")
        if self.seccomp:
            on.append(
                "seccomp: sockets of the Unix family only; no ptrace, mounts, new namespaces, memfds or "
                "System V shared memory"
            )
        how = (
            "the kernel counts them, in a memory cgroup per worker"
            if self.memory_cgroup
            else "the worker's supervisor sums their resident memory every 0.05 s, as no memory cgroup can be made here"
        )
        on.append(f"memory: {limits.memory_mb} MB for all the processes of a question together ({how})")
        where = (
            "its folder is a tmpfs of that size in its view, where writes past it fail"
            if self.namespaces
            else "the worker's supervisor adds up its folder every 0.1 s, as the worker has no view of its own"
        )
        on.append(f"disk: {limits.disk_mb} MB and {limits.disk_files} files per question ({where})")
        on.append(
            f"limits: a time limit per question, {limits.memory_mb} MB of address space per process, files up to "
            f"{limits.file_size_mb} MB, {limits.open_files} open files, replies up to "
            f"{limits.reply_mb} MB ({limits.reply_json_mb} MB outside numpy arrays), printed output kept up "
            f"to {limits.output_kb} KB per call"
        )
        if self.user or not _is_root():
            on.append(f"limits: at most {limits.processes} more processes")
        on.append(
            "cleanup: every process the student's code starts is killed when its worker ends, "
            "even one that left its session"
        )
        return [f"on:  {line}" for line in on] + [f"off: {name}: {why}" for name, why in self.off]

    def notice(self) -> list[str]:
        """On the portable path, what the student is told once, before the results: what is off, and why."""
        if not self.portable:
            return []
        why = self.off[0][1] if self.off else "it was asked for"
        return [
            f"Note: your code runs in a plain separate process here, because {why}.",
            f"Off here, unlike on Gradescope: {', '.join(name for name, _ in self.off)}. "
            "The tests, time limits and messages are the same.",
        ]


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0  # Windows has no euid, and no root


def _system() -> str:
    return {"win32": "Windows", "darwin": "macOS"}.get(sys.platform, sys.platform)


def portable_reason(forced: bool = False) -> str | None:
    """Why workers take the portable path here (for the student), or None where the Linux worker runs."""
    if not sys.platform.startswith("linux"):
        return f"this computer runs {_system()}, and Gradescope's sandbox needs Linux"
    if forced:
        return "--portable was given"
    if os.environ.get(PORTABLE_ENV, "").strip() not in ("", "0"):
        return f"{PORTABLE_ENV} is set"
    return None


def portable_isolation(why: str, python: str | None = None) -> Isolation:
    """The portable path's decision: everything of the Linux worker off, for the reason ``why``."""
    return Isolation(python=python or sys.executable, portable=True, off=tuple((name, why) for name in PORTABLE_OFF))


def require_linux_worker(command: str) -> None:
    """The staff's commands grade with the Linux worker only, never on the portable path: they call
    this first, before they change or probe anything."""
    why = portable_reason()
    if why is not None:
        unset = f" with {PORTABLE_ENV} unset" if PORTABLE_ENV in why else ""
        raise NeedsLinux(
            f"'{command}' grades only with the Linux worker (namespaces, seccomp, resource "
            f"limits, a separate user), which cannot be used here: {why}. Run it on Linux"
            f"{unset}; the portable path is for the students' self-check only."
        )


def _probe(python: str, plan: Plan) -> dict[str, str]:
    """Runs the confinement ``plan`` in a throwaway process: ``{step: why it failed}``."""

    with tempfile.TemporaryDirectory(prefix="ag-probe-") as folder:
        scratch, root = os.path.join(folder, "scratch"), os.path.join(folder, "root")
        os.mkdir(scratch)
        os.mkdir(root)
        if plan.uid is not None and plan.gid is not None:
            os.chown(scratch, plan.uid, plan.gid)
        if plan.namespaces:
            plan = replace(plan, view=View(root=root, scratch=scratch, tmp_mb=1))
        config = {"mode": "probe", "trusted_paths": [str(PACKAGE_ROOT.parent)], "plan": plan.to_json()}
        try:
            run = subprocess.run(
                linux_command(python, config),
                cwd=scratch,
                capture_output=True,
                text=True,
                timeout=60,
                env={
                    "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                    "LANG": "C.UTF-8",
                    "PYTHONDONTWRITEBYTECODE": "1",
                },
            )
            failed = json.loads(run.stdout.strip().splitlines()[-1])
            if not isinstance(failed, dict):
                raise ValueError("not a JSON object")
            return {str(k): str(v) for k, v in failed.items()}
        except (OSError, subprocess.SubprocessError, ValueError, IndexError) as exc:
            reason = f"the probe process failed ({type(exc).__name__}: {exc})"
            return {step: reason for step in ("namespaces", "user", "network_namespace", "seccomp")}


def _worker_user(user_name: str, off: list[tuple[str, str]]) -> WorkerUser | None:
    import pwd  # POSIX only; asked for as root on Linux only

    try:
        entry = pwd.getpwnam(user_name)
    except KeyError:
        off.append(
            (
                "separate user",
                f"the user {user_name} does not exist; create it with: {CREATE_USER.replace(WORKER_USER, user_name)}",
            )
        )
        return None
    return WorkerUser(user_name, entry.pw_uid, entry.pw_gid)


def detect_isolation(
    python: str | None = None, user_name: str = WORKER_USER, *, force_portable: bool = False
) -> Isolation:
    """Every protection this machine allows, for workers started with ``python``; the portable path
    off Linux, or when ``force_portable`` or :data:`PORTABLE_ENV` asks for it."""
    python = python or sys.executable
    why = portable_reason(force_portable)
    if why is not None:
        return portable_isolation(why, python)
    off: list[tuple[str, str]] = []
    root = os.geteuid() == 0
    user = _worker_user(user_name, off) if root else None
    if not root:
        off.append(
            (
                "separate user",
                f"not running as root, so the student's code runs as "
                f"{getpass.getuser()} (confined by the namespaces, where they are on)",
            )
        )
    wanted = Isolation(
        python=python, user=user, network_namespace=True, seccomp=True, namespaces=True, user_namespace=not root
    )
    cgroup = _probe_cgroup(off)
    try:
        failed = _probe(python, replace(wanted.plan(), memory_cgroup=str(cgroup) if cgroup else None))
    finally:
        if cgroup is not None:
            memory_cgroup.remove(cgroup)
    if cgroup is not None and "memory cgroup" in failed:
        off.append(("memory cgroup", f"{failed['memory cgroup']}; the worker's supervisor sums the memory instead"))
    namespaces = "namespaces" not in failed and "view" not in failed
    if not namespaces:
        why = failed.get("namespaces") or failed.get("view", "")
        off.append(
            (
                "namespaces",
                f"{why}; the student's code can see every file its user may read"
                + ("" if root else ", which is everything this user may read"),
            )
        )
        failed = _probe(python, replace(wanted, namespaces=False, user_namespace=False, network_namespace=root).plan())
    if user and "user" in failed:
        off.append(("separate user", f"switching to {user_name} failed: {failed['user']}"))
        user = None
    network = (namespaces or root) and "network_namespace" not in failed
    if not network:
        off.append(("network namespace", failed.get("network_namespace", "needs root or a user namespace")))
    if "seccomp" in failed:
        off.append(("seccomp filter", failed["seccomp"]))
    if root and user is None:
        off.append(("process limit", "root is exempt from RLIMIT_NPROC, so only the time limit stops a fork bomb"))
    return Isolation(
        python=python,
        user=user,
        network_namespace=network,
        seccomp="seccomp" not in failed,
        namespaces=namespaces,
        user_namespace=namespaces and not root,
        off=tuple(off),
        memory_cgroup=cgroup is not None and "memory cgroup" not in failed,
    )


def _probe_cgroup(off: list[tuple[str, str]]) -> Path | None:
    """A memory cgroup for the probe to join, or None (and why, in ``off``) where none can be made."""
    try:
        return memory_cgroup.make(f"{PROBE_PREFIX}{os.getpid()}", 64 << 20)
    except OSError as exc:
        off.append(("memory cgroup", f"{exc}; the worker's supervisor sums the memory of its processes instead"))
        return None
