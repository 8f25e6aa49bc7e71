"""Worker folders that outlive their grading, and their removal when the next grading starts.

A worker's two folders (its scratch folder, and the grader's private folder beside it) are removed
when its session ends, on Ctrl-C and SIGTERM too. A grader killed outright (SIGKILL, the kernel out
of memory, a Gradescope time-out) leaves them in the temporary folder. So each private folder holds
a claim, a file its grader keeps locked (``flock``) while it lives, naming the scratch folder; the
kernel drops the lock with the last process that had it, and the next grading removes the folders
whose claim nobody holds, and the folders of this user that hold no claim, that no live claim
names and that are over a minute old (a grader killed between making a folder and claiming it, or
from before claims). Only folders of the grader's own user are taken: the worker's user may
write in the temporary folder too, and must not be able to name a folder for the grader to remove.

The same sweep removes the worker's memory cgroup (:mod:`autograder.contract.memory_cgroup`), named
as its private folder, once the folder is gone and the cgroup is a minute old (a grading with
another temporary folder keeps its folders where this sweep does not look).

POSIX only (Windows has no ``flock``): there a killed check leaves its folders, as before.
"""

from __future__ import annotations

import glob
import os
import stat
import tempfile
import time
from collections.abc import Callable

from autograder.contract import memory_cgroup

CLAIM = "in-use"
SCRATCH_PREFIX, PRIVATE_PREFIX = "ag-worker-", "ag-grader-"


def claim(private: str, scratch: str) -> int | None:
    """Claim the folders ``private`` and ``scratch`` for this process; the returned descriptor holds
    the claim until it is closed (None where there is no ``flock``)."""
    try:
        import fcntl
    except ImportError:
        return None
    path = os.path.join(private, f".{CLAIM}")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.write(fd, scratch.encode())
    # Named only once locked: a sweep that finds the claim never takes it for one whose grader died.
    os.rename(path, os.path.join(private, CLAIM))
    return fd


def remove_leftovers(remove: Callable[[str], None]) -> list[str]:
    """Remove (with ``remove``) the folders of every worker whose grader is gone; their paths."""
    try:
        import fcntl
    except ImportError:
        return []
    removed: list[str] = []
    named: set[str] = set()  # the scratch folders that live claims name
    for private in glob.glob(os.path.join(tempfile.gettempdir(), f"{PRIVATE_PREFIX}*")):
        fd = _unclaimed(private, fcntl)
        if fd is None:
            named.add(_named(private))
            continue
        try:  # the claim stays locked until both are gone: another sweep leaves them alone meanwhile
            scratch = os.read(fd, 4096).decode(errors="replace")
            ours = os.path.dirname(scratch) == os.path.dirname(private)
            for folder in ([scratch] if ours and os.path.basename(scratch).startswith(SCRATCH_PREFIX) else []) + [
                private
            ]:
                remove(folder)
                removed.append(folder)
        finally:
            os.close(fd)
    removed += _remove_unclaimed(remove, named)
    # Then the memory cgroups named after private folders that are gone (empty: their processes died
    # with the grader's fork server); one whose folder is being made is left alone.
    folder_of = tempfile.gettempdir()
    memory_cgroup.remove_leftovers(PRIVATE_PREFIX, lambda name: os.path.exists(os.path.join(folder_of, name)))
    return removed


def _named(private: str) -> str:
    """The scratch folder a claim names ("" when it cannot be read)."""
    try:
        with open(os.path.join(private, CLAIM), "rb") as held:
            return held.read(4096).decode(errors="replace")
    except OSError:
        return ""


def _remove_unclaimed(remove: Callable[[str], None], named: set[str]) -> list[str]:
    """This user's worker folders that hold no claim and that no live claim names, once older than
    :data:`~autograder.contract.memory_cgroup.LEFTOVER_AGE`: a grader claims its folders
    milliseconds after making them, so these were left by one killed in between, or by a version
    from before claims."""
    now, found = time.time(), []
    for prefix in (PRIVATE_PREFIX, SCRATCH_PREFIX):
        for folder in glob.glob(os.path.join(tempfile.gettempdir(), f"{prefix}*")):
            try:
                info = os.lstat(folder)
            except OSError:  # removed meanwhile
                continue
            claimed = any(os.path.lexists(os.path.join(folder, name)) for name in (CLAIM, f".{CLAIM}"))
            if (
                stat.S_ISDIR(info.st_mode)
                and info.st_uid == os.geteuid()
                and now - info.st_mtime > memory_cgroup.LEFTOVER_AGE
                and not claimed
                and folder not in named
            ):
                remove(folder)
                found.append(folder)
    return found


def _unclaimed(private: str, fcntl) -> int | None:
    """The locked claim of ``private`` if it is this user's and no other process held it; None
    otherwise."""
    try:
        info = os.lstat(private)
        fd = os.open(os.path.join(private, CLAIM), os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:  # not a claimed folder (old, being made, or another user's)
        return None
    try:
        if stat.S_ISDIR(info.st_mode) and info.st_uid == os.fstat(fd).st_uid == os.geteuid():
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
    except OSError:  # its grader still runs
        pass
    os.close(fd)
    return None
