"""The messages between the grader and the fork server: JSON documents, each with the file descriptors
it hands over, on a Unix socket that only the two of them hold. Both sides import this module.

Each request names its :class:`ForkCommand` and carries an ``id``; the reply repeats the id and holds
``pid`` (start), ``exit_code`` (exit_code, stop) or ``error``."""

from __future__ import annotations

import json
import os
import socket
from enum import Enum

MAX_MESSAGE_BYTES = 1 << 20
KILL_ROUNDS = 10


def send(channel: socket.socket, message: dict, fds: tuple[int, ...] = ()) -> None:
    data = json.dumps(message).encode()
    if len(data) > MAX_MESSAGE_BYTES:
        raise ValueError(f"fork server message of {len(data)} bytes, over {MAX_MESSAGE_BYTES}")
    socket.send_fds(channel, [data], list(fds))


def receive(channel: socket.socket) -> tuple[dict | None, list[int]]:
    """The next message and the descriptors that came with it; None when the other side has closed."""
    data, fds, flags, _ = socket.recv_fds(channel, MAX_MESSAGE_BYTES, 3)
    if flags & (socket.MSG_TRUNC | socket.MSG_CTRUNC):
        for fd in fds:
            os.close(fd)
        raise ValueError("fork server message truncated")
    if not data:
        return None, fds
    return json.loads(data), fds


class ForkCommand(str, Enum):
    START = "start"  # fork a supervisor for a worker: cwd, env, plan, blocked; the three descriptors
    EXIT_CODE = "exit_code"  # wait up to ``timeout`` seconds for supervisor ``pid`` to end
    STOP = "stop"  # kill everything below supervisor ``pid``, then it
