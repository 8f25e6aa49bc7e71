"""The processes below a worker's supervisor: finding every one of them, and killing them all.

Student code can leave its process group and session (``setsid``) and fork as fast as signals can
follow, so killing a process group is not enough. The supervisor is a child subreaper, so every
process started below it stays below it whatever happens to its parent; a walk of ``/proc`` from the
supervisor therefore finds them all, and the walk repeats until none is left alive.
"""

from __future__ import annotations

import os
import signal


def _stat(pid: int) -> tuple[int, str] | None:
    """(parent pid, state letter) of a process; None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stream:
            data = stream.read()
    except OSError:
        return None
    # the command name in parentheses may itself hold spaces and parentheses
    fields = data[data.rindex(b")") + 2 :].split()
    return int(fields[1]), fields[0].decode()


def process_table() -> dict[int, tuple[int, str]]:
    """Every process on the machine: pid -> (parent pid, state letter)."""
    table = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            entry = _stat(int(name))
            if entry is not None:
                table[int(name)] = entry
    return table


def descendants(root: int, table: dict[int, tuple[int, str]]) -> set[int]:
    children: dict[int, list[int]] = {}
    for pid, (parent, _) in table.items():
        children.setdefault(parent, []).append(pid)
    found: set[int] = set()
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _kill_if_still_below(pid: int, parents: set[int]) -> None:
    """SIGKILL ``pid`` unless it is no longer the process the table listed (its pid was reused)."""
    try:
        handle = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    except OSError:  # a kernel before 5.3: check, then signal by pid
        entry = _stat(pid)
        if entry is not None and entry[0] in parents:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return
    try:
        # The handle pins the process: if it is still below us now, the signal reaches it.
        entry = _stat(pid)
        if entry is not None and entry[0] in parents:
            signal.pidfd_send_signal(handle, signal.SIGKILL)
    except ProcessLookupError:
        pass
    finally:
        os.close(handle)


def kill_descendants(root: int, passes: int = 1000) -> bool:
    """SIGKILL every live process below ``root`` until none is left; False if some survived."""
    for _ in range(passes):
        table = process_table()
        below = descendants(root, table)
        alive = [pid for pid in below if table[pid][1] != "Z"]
        if not alive:
            return True
        for pid in alive:
            _kill_if_still_below(pid, below | {root})
    return False


def count_tasks(uid: int) -> int:
    """Processes and threads whose real user is ``uid``: what RLIMIT_NPROC counts."""
    count = 0
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            # /proc/PID is owned by root when the process is not dumpable (it changed user), so
            # the real uid comes from the status file rather than from stat()
            with open(f"/proc/{name}/status") as stream:
                real_uid = next(int(line.split()[1]) for line in stream if line.startswith("Uid:"))
            if real_uid == uid:
                count += len(os.listdir(f"/proc/{name}/task"))
        except (OSError, StopIteration, ValueError, IndexError):
            continue
    return count
