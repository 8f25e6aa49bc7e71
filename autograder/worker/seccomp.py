"""A seccomp filter that keeps the worker to what it needs, written as a classic BPF program.

Installed in the worker before any student code runs, it makes these system calls fail with EPERM
(Python raises PermissionError):

- ``socket()`` and ``socketpair()`` of any family but Unix sockets (:data:`ALLOWED_FAMILY`): no
  internet, raw packet, netlink, vsock or Bluetooth socket;
- ``io_uring_setup`` (io_uring can open sockets without calling ``socket()``);
- ``ptrace``, ``process_vm_readv``/``writev``, ``pidfd_getfd`` and ``kcmp``: no reading or steering
  of another process, even one of the same user;
- ``prctl(PR_SET_DUMPABLE)``: the worker stays undumpable, so other processes of its user cannot
  attach to it;
- ``memfd_create``, ``memfd_secret``, ``shmget``, ``msgget`` and ``semget``: memory that is no file
  in the worker's own tmpfs mounts and is mapped by no process (so in no resident set) cannot be
  made, which a memory budget without a cgroup, summing resident sets, would not see (blind attacks:
  4 GB in memfds, 3 GB of System V segments); no numpy or Python code the assignments need uses them;
- ``mount``, ``umount2``, ``pivot_root``, ``chroot``, the new mount API, ``unshare``, ``setns`` and a
  ``clone`` that asks for a new namespace: the worker's view of the machine stays the one it was given.
  ``clone3`` fails with ENOSYS instead, whose flags a classic filter cannot read: the C library then
  falls back to ``clone``.

It kills a process that makes system calls through another ABI (32-bit or x32 entry points, whose
call numbers the filter does not know). Every other system call is allowed: pipes, files and Unix
sockets keep working.

It needs no privileges, so it also holds on a TA's laptop and inside Docker. Only the architectures
below are supported; elsewhere :func:`install` raises :class:`SeccompUnavailable` and the grader
reports the filter as off.
"""

from __future__ import annotations

import ctypes
import platform
import socket
import sys
from dataclasses import dataclass

# <linux/filter.h>: the instructions used here
_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS: A = the 32-bit word at offset k of seccomp_data
_JEQ = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_JSET = 0x45  # BPF_JMP | BPF_JSET | BPF_K: jump if A & k
_RET = 0x06  # BPF_RET | BPF_K
# <linux/seccomp.h>
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
_RET_KILL_PROCESS = 0x80000000
_EPERM = 1
_ENOSYS = 38
_PR_SET_DUMPABLE = 4
# CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET, NEWTIME
_CLONE_NEW_ANY = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000 | 0x80
_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
# offsets in struct seccomp_data {int nr; u32 arch; u64 instruction_pointer; u64 args[6]}
_NR, _ARCH, _ARG0_LOW = 0, 4, 16  # the low half of args[0] on a little-endian machine
_X32_SYSCALL_BIT = 0x40000000

ALLOWED_FAMILY = int(socket.AF_UNIX)
# Calls numbered alike on both architectures: io_uring_setup, the new mount API (open_tree,
# move_mount, fsopen, fsconfig, fsmount, fspick, mount_setattr), pidfd_getfd and memfd_secret.
_COMMON_REFUSED = (425, 428, 429, 430, 431, 432, 433, 442, 438, 447)
_NR_CLONE3 = 435


@dataclass(frozen=True)
class _Arch:
    audit_arch: int  # AUDIT_ARCH_* of <linux/audit.h>
    nr_socket: int
    nr_socketpair: int
    nr_clone: int
    nr_prctl: int
    refused: tuple[int, ...]  # ptrace, process_vm_readv/writev, kcmp, mount, umount2, pivot_root,
    # chroot, unshare, setns, memfd_create, shmget, msgget, semget


_ARCHES = {
    "x86_64": _Arch(
        audit_arch=0xC000003E,
        nr_socket=41,
        nr_socketpair=53,
        nr_clone=56,
        nr_prctl=157,
        refused=(101, 310, 311, 312, 165, 166, 155, 161, 272, 308, 319, 29, 68, 64) + _COMMON_REFUSED,
    ),
    "aarch64": _Arch(
        audit_arch=0xC00000B7,
        nr_socket=198,
        nr_socketpair=199,
        nr_clone=220,
        nr_prctl=167,
        refused=(117, 270, 271, 272, 40, 39, 41, 51, 97, 268, 279, 194, 186, 190) + _COMMON_REFUSED,
    ),
}


class SeccompUnavailable(Exception):
    """The filter cannot be installed here; the message says why."""


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


def _assemble(program: list[tuple]) -> list[tuple[int, int, int, int]]:
    """Resolve jump labels: ``("label", name)`` marks a place, jumps name their targets."""
    places: dict[str, int] = {}
    instructions: list[tuple] = []
    for item in program:
        if item[0] == "label":
            places[item[1]] = len(instructions)
        else:
            instructions.append(item)
    resolved = []
    for index, (code, k, if_true, if_false) in enumerate(instructions):
        offsets = [places[target] - index - 1 if isinstance(target, str) else target for target in (if_true, if_false)]
        resolved.append((code, offsets[0], offsets[1], k))
    return resolved


def worker_program(arch: _Arch) -> list[tuple[int, int, int, int]]:
    """The filter as ``(code, jt, jf, k)`` instructions."""
    program: list[tuple] = [
        (_LD_W_ABS, _ARCH, 0, 0),
        (_JEQ, arch.audit_arch, 0, "kill"),
        (_LD_W_ABS, _NR, 0, 0),
        (_JGE, _X32_SYSCALL_BIT, "kill", 0),
        (_JEQ, _NR_CLONE3, "no such call", 0),
        *[(_JEQ, nr, "refuse", 0) for nr in arch.refused],
        (_JEQ, arch.nr_socket, "family", 0),
        (_JEQ, arch.nr_socketpair, "family", 0),
        (_JEQ, arch.nr_clone, "clone", 0),
        (_JEQ, arch.nr_prctl, "prctl", "allow"),
        ("label", "family"),
        (_LD_W_ABS, _ARG0_LOW, 0, 0),
        (_JEQ, ALLOWED_FAMILY, "allow", "refuse"),
        ("label", "clone"),
        (_LD_W_ABS, _ARG0_LOW, 0, 0),
        (_JSET, _CLONE_NEW_ANY, "refuse", "allow"),
        ("label", "prctl"),
        (_LD_W_ABS, _ARG0_LOW, 0, 0),
        (_JEQ, _PR_SET_DUMPABLE, "refuse", "allow"),
        ("label", "allow"),
        (_RET, _RET_ALLOW, 0, 0),
        ("label", "refuse"),
        (_RET, _RET_ERRNO | _EPERM, 0, 0),
        ("label", "no such call"),
        (_RET, _RET_ERRNO | _ENOSYS, 0, 0),
        ("label", "kill"),
        (_RET, _RET_KILL_PROCESS, 0, 0),
    ]
    return _assemble(program)


def current_arch() -> _Arch:
    machine = platform.machine()
    if machine not in _ARCHES or sys.byteorder != "little":
        raise SeccompUnavailable(
            f"no filter for this architecture ({machine}, {sys.byteorder}-endian); supported: {', '.join(_ARCHES)}"
        )
    return _ARCHES[machine]


def install() -> None:
    """Set no_new_privs and install the filter on the calling thread (and the threads and processes
    it starts later). Irreversible. Raises SeccompUnavailable."""
    program = worker_program(current_arch())
    filters = (_SockFilter * len(program))(*[_SockFilter(*instruction) for instruction in program])
    fprog = _SockFprog(len(program), filters)
    libc = ctypes.CDLL(None, use_errno=True)
    prctl = libc.prctl
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong]
    if prctl(_PR_SET_NO_NEW_PRIVS, 1, None, 0, 0) != 0:
        raise SeccompUnavailable(f"prctl(PR_SET_NO_NEW_PRIVS) failed: errno {ctypes.get_errno()}")
    if prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.cast(ctypes.byref(fprog), ctypes.c_void_p), 0, 0) != 0:
        raise SeccompUnavailable(
            f"prctl(PR_SET_SECCOMP) failed: errno {ctypes.get_errno()} (a kernel without seccomp filters?)"
        )
