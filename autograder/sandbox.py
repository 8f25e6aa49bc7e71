"""The grader's handle on an untrusted worker process.

One :class:`WorkerSession` serves one question: it starts a worker lazily, sends it calls, and
enforces the question's time budget across all of them (start-up and imports included). A worker
that crashes is restarted for the next call; one that runs out of time is killed and the question's
remaining calls fail at once, so grading always ends within the sum of the questions' limits.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autograder.config import Limits
from autograder.protocol import (Decoder, Encoder, FrameReader, MessageTooLarge, PeerClosed,
                                 ProtocolError, ReadTimeout, pack, write_all)

_ENCODED_KEYS = ("value", "fixtures", "args_after")
_PACKAGE_ROOT = str(Path(__file__).resolve().parent.parent)
# Started with ``-s`` rather than ``-I``: ``-I`` implies ``-E``, which would silently drop
# PYTHONHASHSEED and PYTHONUNBUFFERED from _worker_env (random set order across runs, output lost
# when the student's code calls os._exit). The environment is built from scratch, so ``-E`` adds
# nothing; the boot line drops the '' entry that ``-c`` puts first, so no student file can shadow
# a module the worker imports before it sets up sys.path itself.
_BOOT = (
    "import sys; sys.path[:] = [p for p in sys.path if p]; "
    "import json; sys.path[:0] = json.loads(sys.argv[4]); "
    "from autograder.worker.main import serve; "
    "serve(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] or None, json.loads(sys.argv[4]))"
)


# ----------------------------------------------------------------------------------------------
# what can go wrong on the student's side


class StudentCodeError(Exception):
    """The student's code did not produce an output. ``str(error)`` is written for the student."""

    output: str = ""  # what the student's code printed during the failed call


class StudentRaised(StudentCodeError):
    """Importing or calling the student's code raised, or a file or function is missing."""

    def __init__(self, payload: dict) -> None:
        self.kind = str(payload.get("kind", "exception"))
        self.type_name = str(payload.get("type", ""))
        self.traceback = str(payload.get("traceback", ""))
        self.module = str(payload.get("module", ""))
        message = str(payload.get("message", ""))
        if self.kind == "import_error":
            text = f"importing {self.module}.py failed with {self.type_name}: {message}"
        elif self.kind in ("missing_file", "missing_attribute"):
            text = message
        elif self.kind == "unencodable":
            text = f"the returned value could not be sent back ({self.type_name}: {message})"
        elif self.type_name == "NotImplementedError":
            text = "not implemented yet (raised NotImplementedError)"
        else:
            text = f"raised {self.type_name}: {message}" if message else f"raised {self.type_name}"
        if self.traceback.strip() and self.type_name != "NotImplementedError":
            text += "\n" + self.traceback.rstrip()
        super().__init__(text)


class WorkerTimeout(StudentCodeError):
    """The question's time budget ran out."""


class WorkerCrashed(StudentCodeError):
    """The worker process ended in the middle of a call (exit, signal, memory limit)."""


class WorkerMisbehaved(StudentCodeError):
    """The worker answered with something that is not a valid reply (or a too large one)."""


# ----------------------------------------------------------------------------------------------


@dataclass
class CallResult:
    value: Any
    fixtures: dict[str, Any] = field(default_factory=dict)
    args_after: Any = None
    output: str = ""
    seconds: float = 0.0


@dataclass(frozen=True)
class WorkerSpec:
    """What a worker for one submission gets: files copied into its scratch folder, limits."""

    files: dict[str, Path]
    fixtures_module: str | None
    limits: Limits


def _own_task_count() -> int:
    """Processes and threads of this user; RLIMIT_NPROC counts them all, not only ours."""
    uid, count = os.getuid(), 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    count += len(os.listdir(f"/proc/{entry.name}/task"))
            except OSError:
                continue
    return count


def _limit_setter(limits: Limits, cpu_seconds: float):
    nproc = None if os.getuid() == 0 else _own_task_count() + limits.processes

    def apply() -> None:  # runs in the child between fork and exec
        mb = 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limits.memory_mb * mb,) * 2)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_size_mb * mb,) * 2)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_NOFILE, (limits.open_files,) * 2)
        cpu = max(1, int(cpu_seconds) + 2)  # a backstop; the wall-clock deadline normally acts first
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        if nproc is not None:
            resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))

    return apply


def _worker_env(scratch: str) -> dict[str, str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": scratch, "LANG": "C.UTF-8",
           "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1", "MPLBACKEND": "Agg",
           "PYTHONUNBUFFERED": "1", "TQDM_DISABLE": "1"}
    # One BLAS thread: the grader is sized for one core, and results must not depend on threading.
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[name] = "1"
    return env


def _force_remove(path: str) -> None:
    def retry(func, target, _exc):
        try:
            os.chmod(os.path.dirname(target), stat.S_IRWXU)
            os.chmod(target, stat.S_IRWXU)
            func(target)
        except OSError:
            pass

    shutil.rmtree(path, onerror=retry)


class _Process:
    """One running worker: its pipes, scratch folder and captured output."""

    def __init__(self, spec: WorkerSpec, deadline: float) -> None:
        self.scratch = tempfile.mkdtemp(prefix="ag-worker-")
        self.private = tempfile.mkdtemp(prefix="ag-grader-")
        self.request_w = self.reply_r = self.output_fd = -1
        try:
            self._start(spec, deadline)
        except BaseException:
            self.kill()  # leaves no folder or descriptor behind
            raise

    def _start(self, spec: WorkerSpec, deadline: float) -> None:
        for name, source in spec.files.items():
            target = Path(self.scratch, name)
            if source.is_dir():
                shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                shutil.copy2(source, target)
        self.output_fd = os.open(os.path.join(self.private, "output"), os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
        self.output_offset = 0
        request_r, self.request_w = os.pipe()
        self.reply_r, reply_w = os.pipe()
        argv = [sys.executable, "-s", "-c", _BOOT, str(request_r), str(reply_w),
                spec.fixtures_module or "", json.dumps([_PACKAGE_ROOT])]
        budget = max(0.0, deadline - time.monotonic())
        try:
            self.popen = subprocess.Popen(
                argv, cwd=self.scratch, env=_worker_env(self.scratch), stdin=subprocess.DEVNULL,
                stdout=self.output_fd, stderr=self.output_fd, pass_fds=(request_r, reply_w),
                start_new_session=True, preexec_fn=_limit_setter(spec.limits, budget))
        finally:
            os.close(request_r)
            os.close(reply_w)
        self.reader = FrameReader(self.reply_r, spec.limits.reply_mb * 1024 * 1024)
        self.output_limit = spec.limits.output_kb * 1024

    def take_output(self) -> str:
        """Output written since the last call, cut to the limit with a note of what was dropped."""
        size = os.fstat(self.output_fd).st_size
        new = size - self.output_offset
        data = os.pread(self.output_fd, min(new, self.output_limit), self.output_offset)
        self.output_offset = size
        text = data.decode("utf-8", errors="replace")
        if new > self.output_limit:
            text += f"\n[... output truncated: {new - self.output_limit} more bytes not shown]"
        return text

    def describe_exit(self) -> str:
        try:
            code = self.popen.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return "stopped answering"
        if code < 0:
            name = signal.Signals(-code).name
            hints = {"SIGKILL": " (killed: out of memory or over a limit?)",
                     "SIGXCPU": " (CPU time limit)", "SIGSEGV": " (segmentation fault)"}
            return f"was killed by {name}{hints.get(name, '')}"
        return f"exited with status {code} (sys.exit or os._exit in your code?)"

    def kill(self) -> None:
        popen = getattr(self, "popen", None)
        if popen is not None:
            try:
                os.killpg(popen.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                popen.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        for fd in (self.request_w, self.reply_r, self.output_fd):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        _force_remove(self.scratch)
        _force_remove(self.private)


class WorkerSession:
    """Calls into the student's code for one question, within one time budget."""

    def __init__(self, spec: WorkerSpec, budget_seconds: float, label: str) -> None:
        self.spec = spec
        self.label = label
        self.budget = budget_seconds
        self.used = 0.0
        self.timed_out_on: str | None = None
        self._process: _Process | None = None

    @property
    def remaining(self) -> float:
        return self.budget - self.used

    def call(self, target: str, *args: Any, return_args: bool = False, seed: int = 0,
             **kwargs: Any) -> CallResult:
        """Run ``target`` (``"module.function"`` or ``"fixtures:probe"``) in the worker."""
        if self.timed_out_on is not None:
            raise WorkerTimeout(
                f"not run: the {self.budget:g} s time limit of question {self.label} was used up "
                f"earlier (by {self.timed_out_on})")
        started = time.monotonic()
        deadline = started + self.remaining
        encoder = Encoder()
        request = {"target": target, "args": encoder.encode(list(args)),
                   "kwargs": encoder.encode(kwargs), "return_args": return_args, "seed": seed}
        try:
            process = self._ensure_started(deadline)
            write_all(process.request_w, pack(request, encoder.arrays))
            document, arrays = process.reader.read(deadline)
        except ReadTimeout:
            self.timed_out_on = target
            self.used = self.budget
            self._stop()
            raise WorkerTimeout(f"did not finish within the {self.budget:g} s time limit of "
                                f"question {self.label} (infinite loop, or far too slow?)") from None
        except (PeerClosed, BrokenPipeError):
            reason = self._process.describe_exit() if self._process else "could not start"
            output = self._process.take_output() if self._process else ""
            self._stop()
            self.used += time.monotonic() - started
            raise WorkerCrashed(f"the process running your code {reason}"
                                + (f"\nlast output:\n{output[-2000:]}" if output.strip() else "")) from None
        except MessageTooLarge:
            self._stop()
            self.used += time.monotonic() - started
            raise WorkerMisbehaved(f"returned more than {self.spec.limits.reply_mb} MB of data") from None
        except ProtocolError as exc:
            self._stop()
            self.used += time.monotonic() - started
            raise WorkerMisbehaved(f"the process running your code sent an invalid reply ({exc}); "
                                   "does your code write to file descriptors it did not open?") from None
        self.used += time.monotonic() - started
        output = process.take_output()
        if not document.get("ok"):
            error = document.get("error")
            failure = StudentRaised(error if isinstance(error, dict) else {})
            failure.output = output
            raise failure
        try:
            decoder = Decoder(arrays)
            decoded = {k: decoder.decode(document[k]) for k in _ENCODED_KEYS if k in document}
        except ProtocolError as exc:
            self._stop()
            raise WorkerMisbehaved(f"sent an invalid reply ({exc})") from None
        return CallResult(value=decoded.get("value"), fixtures=decoded.get("fixtures") or {},
                          args_after=decoded.get("args_after"), output=output,
                          seconds=time.monotonic() - started)

    def _ensure_started(self, deadline: float) -> _Process:
        if self._process is None:
            try:
                self._process = _Process(self.spec, deadline)
            except OSError as exc:
                raise WorkerCrashed(f"the process for your code could not be started ({exc})") from None
            hello, _ = self._process.reader.read(deadline)
            if not hello.get("ready"):
                raise ProtocolError("worker did not say it was ready")
        return self._process

    def _stop(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process = None

    def close(self) -> None:
        self._stop()

    def __enter__(self) -> "WorkerSession":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

