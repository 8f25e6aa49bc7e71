"""Removing a folder that untrusted code may still be changing, without ever following its links.

The grader (root on Gradescope) removes each worker's scratch folder, which the student's code could
write into, and a process of the student's (a leftover one, or a worker of a concurrent grading that
runs as the same user) may be changing it at that very moment: for example swapping a sub-folder for
a symbolic link to ``/dev`` between two steps of the removal. :func:`remove_tree` guarantees, whatever
such a process does meanwhile:

- **no link is followed.** Each folder is opened relative to its parent's file descriptor with
  ``O_DIRECTORY | O_NOFOLLOW``, and each entry is removed (``unlinkat``, ``rmdir`` with ``dir_fd``)
  relative to the descriptor of the folder it was listed in, by a name of one component. A folder
  swapped for a link is therefore either the folder we hold, or a link that is removed as a link.
- **nothing but folders is opened** (never a device or a pipe), and **the mode of a file is never
  changed** (a hard link to someone else's file is just a name to remove).
- **a folder's mode is changed only through a descriptor of that very folder**, and only when the
  permission bits stop the removal (``EACCES``: a grader that is not root meeting a folder its
  student's code made ``0o000`` or read-only). Root never needs it.
- **only what is below ``path``'s parent is touched**: that parent is trusted and never changed.

What a process keeps re-adding cannot be removed for good; after :data:`_ATTEMPTS` tries at one
name the removal stops with an ``OSError`` naming it.

:func:`mode_at` serves the grader's writes by rename (results.json, the Gradescope zip): a rename
replaces whatever stands at the destination, a device such as ``/dev/null`` or a link included, so
the callers look first, without following a link.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Callable
from typing import TypeVar

# Linux's flags, 0 where a system lacks one (Windows has none of them, macOS no O_PATH), so that
# this module imports anywhere: mode_at serves results.json on every system, remove_tree the
# Linux worker only (the portable path of autograder.boundary.portable_session removes its folders itself).
_DIRECTORY, _NOFOLLOW, _CLOEXEC, _PATH = (
    getattr(os, f"O_{name}", 0) for name in ("DIRECTORY", "NOFOLLOW", "CLOEXEC", "PATH")
)
_FOLDER = os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC
# Opens a folder without read permission on it, to change that permission (see _allow_folder).
_FOLDER_HANDLE = _PATH | _DIRECTORY | _NOFOLLOW | _CLOEXEC
# Opening with O_DIRECTORY | O_NOFOLLOW fails with these for anything but a folder (a link: either).
_NOT_A_FOLDER = frozenset({errno.ENOTDIR, errno.ELOOP})
# What a step meets when the entry changed kind or gained entries since it was looked at: try again.
_CHANGED = frozenset({errno.EISDIR, errno.ENOTDIR, errno.ELOOP, errno.ENOTEMPTY, errno.EEXIST})
_ATTEMPTS = 100
# Folders open at once along one branch. Deeper folders are moved up into the top folder and removed
# from there, so neither descriptors nor recursion grow with the depth the student's code chose.
_MAX_DEPTH = 64

_T = TypeVar("_T")


def mode_at(path: str | os.PathLike) -> int | None:
    """The ``st_mode`` of what stands at ``path`` itself (a link is not followed), None if nothing
    does (a missing folder on the way counts as nothing: the callers make it)."""
    try:
        return os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None


def remove_tree(path: str | os.PathLike) -> None:
    """Remove ``path`` and everything below it, never following a link (see the module's docstring).
    A ``path`` that does not exist is fine; one that is a link is removed as a link."""
    parent, name = os.path.split(os.path.abspath(path))
    parent_fd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        _Removal(parent_fd).remove(parent_fd, name, depth=0)
    finally:
        os.close(parent_fd)


class _Removal:
    """One :func:`remove_tree`: the trusted parent's descriptor, and the top folder's, into which
    folders deeper than :data:`_MAX_DEPTH` are moved (``pending``: names still to remove there)."""

    def __init__(self, trusted_fd: int) -> None:
        self.trusted_fd = trusted_fd
        self.top_fd = -1
        self.pending: list[str] = []

    def remove(self, parent_fd: int, name: str, depth: int) -> None:
        """Remove the entry ``name`` of the folder ``parent_fd``, whatever it is or becomes."""
        if depth > _MAX_DEPTH:
            self._move_up(parent_fd, name)
            return
        for _ in range(_ATTEMPTS):
            try:
                self._remove_once(parent_fd, name, depth)
                return
            except FileNotFoundError:  # someone else removed it (or moved it away) meanwhile
                return
            except OSError as exc:
                if exc.errno not in _CHANGED:
                    raise
        raise OSError(
            errno.EBUSY,
            f"{name!r} kept changing while it was being removed (a process is "
            "still writing there); stop it and remove the folder by hand",
        )

    def _remove_once(self, parent_fd: int, name: str, depth: int) -> None:
        fd = self._open_folder(parent_fd, name)
        if fd is None:
            self._permitted(lambda: os.unlink(name, dir_fd=parent_fd), parent_fd, name)
            return
        try:
            self._empty(fd, depth)
        finally:
            os.close(fd)
        self._permitted(lambda: os.rmdir(name, dir_fd=parent_fd), parent_fd, name)

    def _open_folder(self, parent_fd: int, name: str) -> int | None:
        """A descriptor of the folder ``name``; None when it is anything else (a link, a file)."""
        try:
            return self._permitted(lambda: os.open(name, _FOLDER, dir_fd=parent_fd), parent_fd, name)
        except OSError as exc:
            if exc.errno in _NOT_A_FOLDER:
                return None
            raise

    def _empty(self, fd: int, depth: int) -> None:
        names = os.listdir(fd)
        if depth == 0:  # the top folder: what _move_up puts here is removed in this same loop
            self.top_fd, self.pending = fd, names
        while names:
            self.remove(fd, names.pop(), depth + 1)

    def _move_up(self, parent_fd: int, name: str) -> None:
        new_name = f".ag-removing-{secrets.token_hex(8)}"  # no name the student's code could foresee
        try:
            self._permitted(
                lambda: os.rename(name, new_name, src_dir_fd=parent_fd, dst_dir_fd=self.top_fd), parent_fd, name
            )
        except FileNotFoundError:
            return
        self.pending.append(new_name)

    def _permitted(self, step: Callable[[], _T], parent_fd: int, name: str) -> _T:
        """``step`` (a change of ``name`` in the folder ``parent_fd``), done again once with the
        owner's permissions restored when the permission bits refused it."""
        try:
            return step()
        except PermissionError as exc:
            if exc.errno != errno.EACCES:  # EPERM: not a matter of permission bits
                raise
        if parent_fd != self.trusted_fd:
            os.fchmod(parent_fd, stat.S_IRWXU)
        _allow_folder(parent_fd, name)
        return step()


def _allow_folder(parent_fd: int, name: str) -> None:
    """Give the owner every permission on the folder ``name`` of ``parent_fd``, if it is a folder."""
    try:
        fd = os.open(name, _FOLDER_HANDLE, dir_fd=parent_fd)
    except OSError as exc:
        if exc.errno in _NOT_A_FOLDER or exc.errno == errno.ENOENT:
            return  # a file or link: its own mode does not stop its removal
        raise
    try:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            # Only an O_PATH descriptor can be had on a folder we may not read, and fchmod refuses
            # those (EBADF). /proc/self/fd/N is not a path anyone else can change: the kernel
            # resolves it to the very folder this descriptor holds, whatever happened to its name.
            os.chmod(f"/proc/self/fd/{fd}", stat.S_IRWXU)
    finally:
        os.close(fd)
