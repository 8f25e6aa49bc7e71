"""A world of its own for each worker, built from Linux namespaces without Docker or a helper binary.

What the student's code then sees (:func:`build_view`):

- its processes only: a new pid namespace whose first process (the worker's init) is the only way in,
  and whose end kills every process left in it;
- a file system of its own: a tmpfs root holding its scratch folder (read-write), the Python runtime
  and the system's libraries (read-only, at their usual paths), a fresh ``/tmp``, ``/var/tmp`` and
  ``/dev/shm`` of bounded size, a few device nodes and a ``/proc`` of its own pid namespace. No home
  folder, no checkout, no reference, no hidden tests, no other grading's files: what is not bound
  in is not there, whatever its permissions;
- no network interfaces and no System V IPC shared with anyone (net and ipc namespaces).

As root these are plain ``unshare`` calls. As an ordinary user they come inside a user namespace that
maps only that user's uid and gid (:func:`enter_user_namespace`), which kernels allow unless
unprivileged user namespaces are switched off. Calls go straight to the C library: a sandbox program
such as bubblewrap would have to start a new Python for every worker, losing the fork server's
imports (a quarter of a second to a second per worker), and it is not on every machine.

Every step raises OSError with the step in its message; :mod:`autograder.worker.confine` turns that
into the report the grader reads.
"""

from __future__ import annotations

import ctypes
import functools
import os
import platform
import shutil
import sys

from autograder.contract.plan import DiskBudget, View

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000

_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 0x1, 0x2, 0x4, 0x8
_MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 0x20, 0x1000, 0x4000, 0x40000
_MNT_DETACH = 0x2
_ST_TO_MS = {os.ST_NOSUID: _MS_NOSUID, os.ST_NODEV: _MS_NODEV, os.ST_NOEXEC: _MS_NOEXEC}
_SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}

# The system's programs and libraries, seen read-only: what a C extension loaded later links against.
SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# Host files copied into the view's /etc: the dynamic loader's cache (libraries in multiarch
# folders), and the time zone. Fontconfig's folder is shown read-only: without it, the library
# prints "Cannot load default config file" into the student's feedback when matplotlib draws text.
_ETC_FILES = ("ld.so.cache", "localtime")
_ETC_FOLDERS = ("/etc/fonts",)
_DEVICES = ("null", "zero", "full", "random", "urandom")


def runtime_folders(trusted_paths: list[str]) -> tuple[str, ...]:
    """What this Python imports from (its installation, the venv, ``sys.path``), without the
    framework's own folders ``trusted_paths`` (the checkout) or any folder that holds one of them;
    a venv inside the checkout is shown, the rest of the checkout not."""
    trusted = [os.path.realpath(path) for path in trusted_paths]
    candidates = [sys.base_prefix, sys.base_exec_prefix, sys.prefix, sys.exec_prefix, *sys.path]
    folders: list[str] = []
    for path in candidates:
        if not path or not os.path.isdir(path) or path in folders:
            continue
        real = os.path.realpath(path)
        if any(_covered(folder, [real]) for folder in trusted):  # the checkout, or a folder above it
            continue
        folders.append(path)
    return tuple(folders)


@functools.cache
def _libc() -> ctypes.CDLL:
    """The C library with the prototypes used here, made once: every worker's view takes some twenty
    mounts, and forked workers inherit it from the fork server."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
    libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
    libc.syscall.argtypes = [ctypes.c_long, ctypes.c_char_p, ctypes.c_char_p]
    return libc


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def unshare(flags: int, what: str = "unshare") -> None:
    _check(_libc().unshare(flags), what)


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    def encode(text: str | None) -> bytes | None:
        return text.encode() if text is not None else None

    _check(
        _libc().mount(encode(source), encode(target), encode(fstype), flags, encode(data)),
        f"mount {source or fstype} on {target}",
    )


def enter_user_namespace() -> None:
    """Move this process into a new user namespace (and the pid namespace its next child starts),
    where it keeps its own uid and gid and holds the capabilities it needs to build the view."""
    uid, gid = os.geteuid(), os.getegid()
    unshare(CLONE_NEWUSER | CLONE_NEWPID, "unshare(CLONE_NEWUSER | CLONE_NEWPID)")
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
        with open(f"/proc/self/{name}", "w") as stream:
            stream.write(text)


def _inherited_flags(path: str) -> int:
    """Mount flags of ``path``'s mount that a user namespace may not drop when remounting it."""
    flags = os.statvfs(path).f_flag
    return sum(ms for st, ms in _ST_TO_MS.items() if flags & st)


def _bind(source: str, target: str, *, writable: bool = False, device: bool = False) -> None:
    _mount(source, target, None, _MS_BIND | _MS_REC)
    flags = _MS_REMOUNT | _MS_BIND | _MS_NOSUID | _inherited_flags(source)
    flags |= 0 if device else _MS_NODEV
    _mount(None, target, None, flags | (0 if writable else _MS_RDONLY))


def _tmpfs(target: str, size_mb: int, mode: str = "1777", files: int = 4096) -> None:
    _mount("tmpfs", target, "tmpfs", _MS_NOSUID | _MS_NODEV, f"mode={mode},size={size_mb}m,nr_inodes={files}")


def _scratch_on_tmpfs(source: str, target: str, disk: DiskBudget, uid: int, gid: int) -> None:
    """The scratch folder as a tmpfs of the disk budget's size and number of files, holding a copy of
    what the grader put in ``source``: a write past the budget fails in the student's code (ENOSPC),
    and nothing the code writes reaches the host's disk."""
    _tmpfs(target, disk.megabytes, mode="0700", files=disk.files)
    shutil.copytree(source, target, symlinks=True, dirs_exist_ok=True)
    for base, folders, files in os.walk(target):
        for name in folders + files:
            os.chown(os.path.join(base, name), uid, gid, follow_symlinks=False)
    os.chown(target, uid, gid)


def _inside(root: str, path: str) -> str:
    return os.path.join(root, os.path.abspath(path).lstrip("/"))


def _covered(path: str, folders: list[str]) -> bool:
    return any(path == folder or path.startswith(folder.rstrip("/") + "/") for folder in folders)


def _mirror(root: str, path: str, bound: list[str]) -> None:
    """Show ``path`` read-only at the same place in the view: a link as the same link, a folder bound."""
    if _covered(path, bound) or not os.path.lexists(path):
        return
    target = _inside(root, path)
    if os.path.islink(path) and os.path.dirname(path) == "/":
        os.symlink(os.readlink(path), target)  # /lib -> usr/lib on a merged /usr
        return
    if os.path.isdir(path):
        os.makedirs(target, exist_ok=True)
        _bind(os.path.realpath(path), target)
        bound.append(path)


def _etc(root: str, uid: int, gid: int, home: str) -> None:
    os.makedirs(_inside(root, "/etc"), exist_ok=True)
    for name in _ETC_FILES:
        source = os.path.join("/etc", name)
        if os.path.isfile(source):
            shutil.copyfile(source, _inside(root, source))
    # Who the worker is, for getpass and ``~`` (its home is the scratch folder): nobody else's name.
    with open(_inside(root, "/etc/passwd"), "w") as stream:
        stream.write(f"root:x:0:0:root:/:/usr/sbin/nologin\nstudent:x:{uid}:{gid}:student:{home}:/usr/sbin/nologin\n")
    with open(_inside(root, "/etc/group"), "w") as stream:
        stream.write(f"root:x:0:\nstudent:x:{gid}:\n")


def _dev(root: str, tmp_mb: int) -> None:
    dev = _inside(root, "/dev")
    os.makedirs(dev)
    _tmpfs(dev, 1, mode="0755")
    for name in _DEVICES:
        open(os.path.join(dev, name), "w").close()
        _bind(f"/dev/{name}", os.path.join(dev, name), writable=True, device=True)
    for name, target in (
        ("fd", "/proc/self/fd"),
        ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"),
    ):
        os.symlink(target, os.path.join(dev, name))
    os.makedirs(os.path.join(dev, "shm"))
    _tmpfs(os.path.join(dev, "shm"), tmp_mb)


def _proc(root: str) -> str | None:
    """A /proc of the worker's own pid namespace; None, or why it could not be had."""
    target = _inside(root, "/proc")
    os.makedirs(target)
    try:
        _mount("proc", target, "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC)
    except OSError as exc:  # Docker masks parts of /proc, and then the kernel refuses a new one
        return str(exc)
    return None


def _pivot(root: str) -> None:
    """Make ``root`` the process's ``/`` and let go of the old one entirely."""
    syscall = _SYS_PIVOT_ROOT.get(platform.machine())
    if syscall is None:
        raise OSError(f"pivot_root: not supported on {platform.machine()}")
    os.chdir(root)
    os.mkdir(".old")
    _check(_libc().syscall(syscall, b".", b".old"), "pivot_root")
    os.chdir("/")
    _check(_libc().umount2(b"/.old", _MNT_DETACH), "umount the old root")
    os.rmdir("/.old")


def build_view(view: View, uid: int, gid: int, disk: DiskBudget | None = None) -> str | None:
    """Replace this process's file system by ``view``, in a new mount namespace; the student's code
    will run as ``uid``:``gid``, its scratch folder a tmpfs of ``disk``'s size holding a copy of the
    grader's (else the grader's folder itself). Must run as the first process of the worker's pid
    namespace (its /proc shows that namespace). Returns None, or why the view has no /proc."""
    unshare(CLONE_NEWNS | CLONE_NEWIPC, "unshare(CLONE_NEWNS | CLONE_NEWIPC)")
    # Nothing mounted from here on may reach the grader's own view.
    _mount(None, "/", None, _MS_REC | _MS_PRIVATE)
    root = view.root
    os.umask(0o022)  # the folders made here must be passable by the worker's user
    _tmpfs(root, 1, mode="0755")
    # The temporary folders first: a runtime or scratch folder below /tmp is then bound on top.
    for folder in ("/tmp", "/var/tmp"):
        os.makedirs(_inside(root, folder))
        _tmpfs(_inside(root, folder), view.tmp_mb)
    bound: list[str] = []
    for path in SYSTEM_FOLDERS + _ETC_FOLDERS + view.runtime:
        _mirror(root, path, bound)
    _etc(root, uid, gid, view.scratch)
    _dev(root, view.tmp_mb)
    no_proc = _proc(root)
    scratch = _inside(root, view.scratch)
    os.makedirs(scratch, exist_ok=True)
    if disk is None:
        _bind(view.scratch, scratch, writable=True)
    else:
        _scratch_on_tmpfs(view.scratch, scratch, disk, uid, gid)
    _pivot(root)
    _mount(None, "/", None, _MS_REMOUNT | _MS_RDONLY | _MS_NOSUID | _MS_NODEV)
    os.chdir(view.scratch)
    return no_proc
