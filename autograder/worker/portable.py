"""The worker of the portable path (:mod:`autograder.boundary.portable_session`): a plain subprocess, on any system.

Started as :func:`autograder.contract.launch.portable_command` says, in its scratch folder, with the
grader's requests on its stdin, replies expected on its stdout and stderr already the output file.
Before anything else it takes stdin and stdout for itself, as private descriptors that no process it
starts inherits, and puts the null device on fd 0 and the output file on fd 1: whatever the student's
code prints or reads never touches the protocol. From there on it is
:func:`autograder.worker.calls.serve`, as on Linux, but without the confinement
(:mod:`autograder.worker.confine`) that only Linux has.
"""

from __future__ import annotations

import importlib
import os
import sys


def main(config: dict) -> None:
    request_fd, reply_fd = _take_channels()
    # Imported here, while the framework is still on sys.path: serve() takes it away.
    name = config.get("fixtures_module")
    fixtures = importlib.import_module(name) if name else None
    from autograder.worker.calls import serve

    serve(request_fd, reply_fd, fixtures, config["trusted_paths"], config.get("blocked") or {})


def _take_channels() -> tuple[int, int]:
    """The request and reply channels, moved off fds 0 and 1 (os.dup makes them non-inheritable)."""
    request_fd, reply_fd = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)  # print() goes where stderr goes: the output file
    if sys.platform == "win32":  # the protocol is bytes: no newline translation on these descriptors
        import msvcrt

        for fd in (request_fd, reply_fd):
            msvcrt.setmode(fd, os.O_BINARY)
    return request_fd, reply_fd
