"""A memory cgroup (cgroup v1) for one measured command: its peak memory, and a limit like a container's.

The cgroup is made below this process's own memory cgroup, so it counts (and, with a limit, confines)
the command and every process it starts, as a container's limit does: on Gradescope, the grader and
all its workers share the machine's 768 MB. Needs root and the v1 memory controller mounted at
/sys/fs/cgroup/memory.
"""

from __future__ import annotations

import os
from pathlib import Path

from autograder.contract import memory_cgroup

ROOT = Path("/sys/fs/cgroup/memory")


class CgroupUnavailable(Exception):
    """No memory cgroup can be made here; the message says why and what to do."""


def _own_cgroup() -> Path:
    try:
        path, version = memory_cgroup.own_cgroup()
    except OSError as exc:
        raise CgroupUnavailable(f"{exc}; run without the memory measurement (--no-cgroup)") from None
    if version != "v1":
        raise CgroupUnavailable("this process is in no cgroup v1 memory cgroup (a cgroup v2 machine?); "
                                "run without the memory measurement (--no-cgroup)")
    return path


class MemoryCgroup:
    """A fresh memory cgroup, limited to ``limit_bytes`` if given; :meth:`enter` is meant to run in
    the measured command's process before it starts (``preexec_fn``)."""

    def __init__(self, name: str, limit_bytes: int | None = None) -> None:
        if os.geteuid() != 0 or not ROOT.is_dir():
            raise CgroupUnavailable(f"a memory cgroup needs root and the cgroup v1 memory controller at "
                                    f"{ROOT}; run as root, or without the memory measurement (--no-cgroup)")
        self.path = _own_cgroup() / name
        self.path.mkdir()
        if limit_bytes is not None:
            (self.path / "memory.limit_in_bytes").write_text(str(limit_bytes))

    def enter(self) -> None:
        memory_cgroup.join(str(self.path))

    def _read(self, name: str) -> str:
        return (self.path / name).read_text()

    @property
    def peak_bytes(self) -> int:
        """The most memory its processes ever used together (resident memory and the page cache
        charged to them), as the limit counts it."""
        return int(self._read("memory.max_usage_in_bytes"))

    @property
    def oom_kills(self) -> int:
        """Processes the kernel killed for going over the limit."""
        return memory_cgroup.oom_kills(self.path)

    def remove(self, timeout: float = 10.0) -> None:
        """Delete the cgroup once its processes have ended (those of a command killed for memory
        may take a moment)."""
        if not memory_cgroup.remove(self.path, timeout):
            raise OSError(f"the cgroup {self.path} still holds processes after {timeout:g} s")
