"""The self-check's workers where the Linux worker cannot run (Windows, macOS), or when asked for.

Each worker is a plain subprocess of the same Python (:mod:`autograder.worker.portable`) in a fresh
scratch copy of the files, one per question as on Linux, answering the same calls within the same
time budget with the same errors and messages (:class:`autograder.boundary.session.BudgetedSession`). It has
none of the Linux worker's confinement: ``check`` tells the student so (:meth:`Isolation.notice`),
and the staff's commands never take this path (:func:`autograder.boundary.isolation.require_linux_worker`).

The transport uses nothing Windows lacks. Requests go to the child's stdin; replies come on its
stdout, which the child keeps for itself, pointing its fd 1 at the output file that is already its
stderr, so what the student's code prints cannot corrupt a reply. ``select`` takes no pipes on
Windows, so a thread reads the replies into a queue, and a read's deadline is the queue's timeout;
a thread writes each request, and a write's deadline is the wait for that thread.
"""

from __future__ import annotations

import errno
import os
import queue
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from typing import IO

from autograder.boundary.fork_client import worker_env
from autograder.boundary.leftovers import PRIVATE_PREFIX, SCRATCH_PREFIX, claim
from autograder.boundary.session import (
    BudgetedSession,
    WorkerSpec,
    copy_files,
    describe_exit_code,
    output_text,
    remove_folder,
)
from autograder.contract.launch import portable_command
from autograder.contract.protocol import FrameReader, Packed, PeerClosed, ReadTimeout, WriteTimeout, write_all
from autograder.core.config import PACKAGE_ROOT, Limits

_MB = 1024 * 1024
# POSIX: each worker gets a session of its own, and the time limit kills that whole process group,
# so what the student's code started ends too. Windows has neither.
_KILL_GROUP = hasattr(os, "killpg") and hasattr(signal, "SIGKILL")


class PortableSession(BudgetedSession):
    """A :class:`BudgetedSession` whose workers are plain subprocesses (see the module's docstring)."""

    def _launch(self, deadline: float) -> _PortableProcess:
        return _PortableProcess(self.spec)


def portable_env(home: str, memory_fill: int) -> dict[str, str]:
    """The worker's environment: the Linux worker's (:func:`worker_env`), and what other systems need."""
    env = worker_env(home, memory_fill)
    # UTF-8 for what the student's code prints and the files it opens, as under Gradescope's
    # C.UTF-8; Windows would otherwise use its code page, which cannot print most of Unicode.
    env["PYTHONUTF8"] = "1"
    if sys.platform == "win32":
        # Without SYSTEMROOT a Python on Windows cannot even seed its random numbers.
        env.update(
            {name: os.environ[name] for name in ("SYSTEMROOT", "WINDIR", "COMSPEC", "PATHEXT") if name in os.environ}
        )
        env.update(TEMP=home, TMP=home, USERPROFILE=home)  # Windows' names for TMPDIR and HOME
    return env


class _Replies:
    """The worker's replies, read by a thread of their own into a queue of one.

    The thread owns the reply pipe and closes it when it ends: after the worker's end, or after
    :meth:`stop`. (Closing it under a read in progress could hand its number to another file.)"""

    def __init__(self, stream: IO[bytes], limits: Limits) -> None:
        self._stream = stream
        self._frames = FrameReader(stream.fileno(), limits.reply_mb * _MB, limits.reply_json_mb * _MB)
        self._queue: queue.Queue = queue.Queue(maxsize=1)  # the protocol has one reply in flight
        self._stopped = threading.Event()
        self._ended: BaseException | None = None
        threading.Thread(target=self._pump, name="ag-worker-replies", daemon=True).start()

    def read(self, deadline: float | None = None) -> tuple[dict, list]:
        """The next reply, as :meth:`FrameReader.read` gives it; ReadTimeout if ``deadline`` passes first."""
        if self._ended is not None:
            raise self._ended
        timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
        try:
            item = self._queue.get(timeout=timeout)
        except queue.Empty:
            raise ReadTimeout("no answer before the deadline") from None
        if isinstance(item, BaseException):
            self._ended = item
            raise item
        return item

    def stop(self) -> None:
        """Once the worker is killed: let the thread end. A put it is blocked in, or the one it is
        about to make, then finds room, and it sees the stop right after."""
        self._stopped.set()
        try:
            self._queue.get_nowait()
        except queue.Empty:
            pass

    def _pump(self) -> None:
        try:
            while not self._stopped.is_set():
                try:
                    item: object = self._frames.read()
                except OSError as exc:
                    item = PeerClosed(f"the reply channel failed ({exc})")
                except Exception as exc:  # the errors a read in the session's thread would raise there
                    item = exc
                self._queue.put(item)
                if isinstance(item, BaseException):
                    return
        finally:
            self._stream.close()


class _PortableProcess:
    """One running portable worker: its subprocess, scratch folder and captured output."""

    def __init__(self, spec: WorkerSpec) -> None:
        self.scratch = tempfile.mkdtemp(prefix=SCRATCH_PREFIX)
        self.private = tempfile.mkdtemp(prefix=PRIVATE_PREFIX)
        self.claim = claim(self.private, self.scratch)  # for the next check, should this one be killed
        self.output_path = os.path.join(self.private, "output")
        self.output_limit = spec.limits.output_kb * 1024
        self._taken = 0  # bytes of the output file that earlier calls took
        self.proc: subprocess.Popen | None = None
        self._replies: _Replies | None = None
        self._writer: threading.Thread | None = None
        try:
            self._start(spec)
        except BaseException:
            self.kill()  # leaves no folder or process behind
            raise

    def _start(self, spec: WorkerSpec) -> None:
        copy_files(spec.files, self.scratch)
        config = {
            "trusted_paths": [str(PACKAGE_ROOT.parent)],
            "fixtures_module": spec.fixtures_module,
            "blocked": spec.blocked_modules,
        }
        with open(self.output_path, "ab") as output:  # the child has its own handle on it
            self.proc = subprocess.Popen(
                portable_command(spec.isolation.python, config),
                cwd=self.scratch,
                env=portable_env(self.scratch, spec.memory_fill),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=output,
                bufsize=0,
                start_new_session=_KILL_GROUP,
            )
        assert self.proc.stdout is not None
        self._replies = _Replies(self.proc.stdout, spec.limits)

    @property
    def reader(self) -> _Replies:
        assert self._replies is not None, "the worker has not started"
        return self._replies

    def send(self, message: Packed, deadline: float) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        fd, failed = self.proc.stdin.fileno(), list[BaseException]()
        self._writer = threading.Thread(
            target=_write, args=(fd, message, failed), name="ag-worker-requests", daemon=True
        )
        self._writer.start()
        self._writer.join(max(0.0, deadline - time.monotonic()))
        if self._writer.is_alive():  # the worker stopped reading; killing it ends the write
            raise WriteTimeout("the worker did not read the request before the deadline")
        if failed:
            exc = failed[0]
            # Windows reports a pipe whose reader has gone as EINVAL; the session expects EPIPE's error.
            if isinstance(exc, BrokenPipeError) or (isinstance(exc, OSError) and exc.errno == errno.EINVAL):
                raise BrokenPipeError(errno.EPIPE, "the worker's request pipe is closed") from None
            raise exc

    def take_output(self) -> str:
        """Output written since the last call, cut to the limit with a note of what was dropped.
        Read from where the last call stopped: truncating a file that another process writes leaves
        a hole on Windows, where no handle appends by itself."""
        with open(self.output_path, "rb") as output:
            size = os.fstat(output.fileno()).st_size
            if size < self._taken:  # the student's code truncated it
                self._taken = 0
            output.seek(self._taken)
            data = output.read(min(size - self._taken, self.output_limit))
        new, self._taken = size - self._taken, size
        return output_text(data, new, self.output_limit)

    def describe_exit(self) -> str:
        assert self.proc is not None
        try:
            code: int | None = self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            code = None
        return describe_exit_code(code)

    def out_of_memory(self) -> bool:
        return False  # no memory budget on the portable path (the report says so)

    def kill(self) -> None:
        try:
            if self.proc is not None:
                self._end(self.proc)
        finally:
            remove_folder(self.scratch, _remove_writable)
            remove_folder(self.private, _remove_writable)
            if self.claim is not None:
                os.close(self.claim)
                self.claim = None

    def _end(self, proc: subprocess.Popen) -> None:
        """Kill the worker and, on POSIX, its whole session; reap it and let the reply and request
        threads end. Its stdin is closed only once no write to it is under way: a closed descriptor's
        number may name another file by the time a write resumes."""
        if _KILL_GROUP:
            try:
                # Its pid stays reserved while its group has members, so the group names no other process.
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:  # nothing of it left
                pass
        else:
            # Windows: TerminateProcess, as kill() there; what the student's code started may outlive it.
            proc.terminate()
        proc.wait()
        if self._writer is not None:
            self._writer.join()  # a write to a process that is gone fails at once
        if proc.stdin is not None:
            try:
                proc.stdin.close()
            except OSError:
                pass
        if self._replies is not None:
            self._replies.stop()


def _write(fd: int, message: Packed, failed: list[BaseException]) -> None:
    try:
        write_all(fd, message)
    except BaseException as exc:  # handed to the session's thread, which raises it there
        failed.append(exc)


def _remove_writable(path: str) -> None:
    """shutil.rmtree, once more after making every entry writable: Windows removes no read-only file,
    and the student's code may have left one."""
    try:
        shutil.rmtree(path)
    except FileNotFoundError:
        pass
    except OSError:
        for base, folders, files in os.walk(path):
            for name in folders + files:
                entry = os.path.join(base, name)
                if not os.path.islink(entry):
                    os.chmod(entry, stat.S_IRWXU)
        shutil.rmtree(path)
