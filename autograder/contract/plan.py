"""What the grader asks the worker's side to apply before student code runs: the confinement plan.

The grader builds a :class:`Plan` (:meth:`autograder.boundary.isolation.Isolation.plan`, with the
limits and the view each worker gets in :mod:`autograder.boundary.session`) and sends it as JSON
(:meth:`Plan.to_json`); the worker reads it back with :meth:`Plan.from_json` and applies it
(:mod:`autograder.worker.confine`, :mod:`autograder.worker.namespaces`). Both sides import this module.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class View:
    """The file system a worker sees; sent by the grader as JSON (the field names are the keys)."""

    root: str  # an empty folder of the grader's, private to it, where the view is built
    scratch: str  # the worker's folder: read-write, at the same path
    tmp_mb: int  # the size of each private /tmp, /var/tmp and /dev/shm
    # folders seen read-only at the same path: the Python and its packages (:func:`runtime_folders`)
    runtime: tuple[str, ...] = ()

    @classmethod
    def from_json(cls, data: dict) -> View:
        return cls(
            root=str(data["root"]),
            scratch=str(data["scratch"]),
            tmp_mb=int(data["tmp_mb"]),
            runtime=tuple(str(path) for path in data.get("runtime", ())),
        )


@dataclass(frozen=True)
class DiskBudget:
    """What the worker may keep in its scratch folder: megabytes, and files and folders."""

    megabytes: int
    files: int


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
    namespaces: bool = False  # a pid namespace, and the view when one is given
    user_namespace: bool = False  # enter the namespaces through a user namespace (not root)
    view: View | None = None
    # One memory budget for all the worker's processes: the cgroup its supervisor joins (made by the
    # grader, :mod:`autograder.contract.memory_cgroup`), else the bytes the supervisor watches
    # (:mod:`autograder.worker.budget_watch`); neither: only each process's RLIMIT_AS.
    memory_cgroup: str | None = None
    watched_memory_bytes: int | None = None
    # The scratch folder's budget: a tmpfs of its size with a view, else watched by the supervisor.
    disk: DiskBudget | None = None

    @classmethod
    def from_json(cls, data: dict) -> Plan:
        limits, view = data.get("limits"), data.get("view")
        return cls(
            limits=ResourceLimits(**limits) if limits else None,
            uid=data.get("uid"),
            gid=data.get("gid"),
            network_namespace=bool(data.get("network_namespace")),
            seccomp=bool(data.get("seccomp")),
            namespaces=bool(data.get("namespaces")),
            user_namespace=bool(data.get("user_namespace")),
            view=View.from_json(view) if view else None,
            memory_cgroup=data.get("memory_cgroup"),
            watched_memory_bytes=data.get("watched_memory_bytes"),
            disk=DiskBudget(**data["disk"]) if data.get("disk") else None,
        )

    def to_json(self) -> dict:
        return asdict(self)
