"""A seccomp filter that takes the network away from the worker, written as a classic BPF program.

Installed in the worker before any student code runs, it makes ``socket()`` for IPv4, IPv6 and raw
packets fail with EPERM (Python raises PermissionError), refuses ``io_uring_setup`` (io_uring can
open sockets without calling ``socket()``), and kills a process that makes system calls through
another ABI (32-bit or x32 entry points, whose call numbers the filter does not know). Every other
system call is allowed: Unix sockets, pipes and files keep working.

Unlike a network namespace this needs no privileges, so it also holds on a TA's laptop and inside
Docker. Only the architectures below are supported; elsewhere :func:`install` raises
:class:`SeccompUnavailable` and the grader reports the filter as off.
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
_RET = 0x06  # BPF_RET | BPF_K
# <linux/seccomp.h>
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
_RET_KILL_PROCESS = 0x80000000
_EPERM = 1
_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
# offsets in struct seccomp_data {int nr; u32 arch; u64 instruction_pointer; u64 args[6]}
_NR, _ARCH, _ARG0_LOW = 0, 4, 16  # the low half of args[0] on a little-endian machine
_X32_SYSCALL_BIT = 0x40000000

BLOCKED_FAMILIES = {"AF_INET": int(socket.AF_INET), "AF_INET6": int(socket.AF_INET6), "AF_PACKET": 17}


@dataclass(frozen=True)
class _Arch:
    audit_arch: int  # AUDIT_ARCH_* of <linux/audit.h>
    nr_socket: int
    nr_io_uring_setup: int


_ARCHES = {
    "x86_64": _Arch(audit_arch=0xC000003E, nr_socket=41, nr_io_uring_setup=425),
    "aarch64": _Arch(audit_arch=0xC00000B7, nr_socket=198, nr_io_uring_setup=425),
}


class SeccompUnavailable(Exception):
    """The filter cannot be installed here; the message says why."""


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte),
                ("k", ctypes.c_uint)]


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
        offsets = [places[target] - index - 1 if isinstance(target, str) else target
                   for target in (if_true, if_false)]
        resolved.append((code, offsets[0], offsets[1], k))
    return resolved


def no_network_program(arch: _Arch) -> list[tuple[int, int, int, int]]:
    """The filter as ``(code, jt, jf, k)`` instructions."""
    program: list[tuple] = [
        (_LD_W_ABS, _ARCH, 0, 0),
        (_JEQ, arch.audit_arch, 0, "kill"),
        (_LD_W_ABS, _NR, 0, 0),
        (_JGE, _X32_SYSCALL_BIT, "kill", 0),
        (_JEQ, arch.nr_io_uring_setup, "refuse", 0),
        (_JEQ, arch.nr_socket, 0, "allow"),
        (_LD_W_ABS, _ARG0_LOW, 0, 0),
    ]
    families = list(BLOCKED_FAMILIES.values())
    for family in families[:-1]:
        program.append((_JEQ, family, "refuse", 0))
    program += [(_JEQ, families[-1], "refuse", "allow"),
                ("label", "allow"), (_RET, _RET_ALLOW, 0, 0),
                ("label", "refuse"), (_RET, _RET_ERRNO | _EPERM, 0, 0),
                ("label", "kill"), (_RET, _RET_KILL_PROCESS, 0, 0)]
    return _assemble(program)


def current_arch() -> _Arch:
    machine = platform.machine()
    if machine not in _ARCHES or sys.byteorder != "little":
        raise SeccompUnavailable(f"no filter for this architecture ({machine}, {sys.byteorder}-endian); "
                                 f"supported: {', '.join(_ARCHES)}")
    return _ARCHES[machine]


def install() -> None:
    """Set no_new_privs and install the filter on the calling thread (and the threads and processes
    it starts later). Irreversible. Raises SeccompUnavailable."""
    program = no_network_program(current_arch())
    filters = (_SockFilter * len(program))(*[_SockFilter(*instruction) for instruction in program])
    fprog = _SockFprog(len(program), filters)
    libc = ctypes.CDLL(None, use_errno=True)
    prctl = libc.prctl
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong]
    if prctl(_PR_SET_NO_NEW_PRIVS, 1, None, 0, 0) != 0:
        raise SeccompUnavailable(f"prctl(PR_SET_NO_NEW_PRIVS) failed: errno {ctypes.get_errno()}")
    if prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.cast(ctypes.byref(fprog), ctypes.c_void_p),
             0, 0) != 0:
        raise SeccompUnavailable(f"prctl(PR_SET_SECCOMP) failed: errno {ctypes.get_errno()} "
                                 "(a kernel without seccomp filters?)")
