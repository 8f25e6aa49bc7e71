"""The grader's handle on an untrusted worker process.

One :class:`WorkerSession` serves one question: it starts a worker lazily, sends it calls, and
enforces the question's time budget across all of them (start-up and imports included). A worker
that crashes is restarted for the next call; one that runs out of time is killed and the question's
remaining calls fail at once, so grading always ends within the sum of the questions' limits.

A worker is two processes: a trusted supervisor (:mod:`autograder.worker.supervisor`), forked by the
grading's fork server (:mod:`autograder.boundary.fork_client`), and its child, which confines itself as
:class:`autograder.boundary.isolation.Isolation` says and then runs the student's code. Stopping a worker kills
every process below the supervisor, wherever the student's code put it.

All of that is Linux. Where it cannot run, the self-check runs each worker as a plain subprocess
instead (:mod:`autograder.boundary.portable_session`), through the same :class:`BudgetedSession`; so that this module
imports on any system, what only Linux has is imported where it is used.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any, Protocol

from autograder.boundary.fork_client import MEMORY_FILL, ForkServer
from autograder.boundary.isolation import Isolation, WorkerUser
from autograder.boundary.leftovers import PRIVATE_PREFIX, SCRATCH_PREFIX, claim
from autograder.contract import memory_cgroup
from autograder.contract.launch import CHANNEL_EXIT, DISK_EXIT, MEMORY_EXIT, UNCONFINED_EXIT
from autograder.contract.messages import CallReply, CallRequest, ErrorKind, HelperCall, Ready, StudentError
from autograder.contract.plan import DiskBudget, Plan, ResourceLimits, View
from autograder.contract.protocol import (
    Decoder,
    DocumentTooLarge,
    Encoder,
    FrameReader,
    MessageTooLarge,
    Packed,
    PeerClosed,
    ProtocolError,
    ReadTimeout,
    pack_parts,
    write_all,
)
from autograder.contract.target import Target
from autograder.core.config import Limits
from autograder.core.safe_files import remove_tree

_MB = 1024 * 1024


# ----------------------------------------------------------------------------------------------
# what can go wrong on the student's side


class StudentCodeError(Exception):
    """The student's code did not produce an output. ``str(error)`` is written for the student."""

    output: str = ""  # what the student's code printed during the failed call
    resource: str = ""  # the budget that ran out ("disk", "descriptors", "memory", "time"), if that was the cause


class StudentRaised(StudentCodeError):
    """Importing or calling the student's code raised, or a file or function is missing."""

    def __init__(self, error: StudentError) -> None:
        self.kind = error.kind
        self.type_name = error.type
        self.traceback = error.traceback
        self.module = error.module
        self.resource = error.resource
        super().__init__(_described(error))


def _described(error: StudentError) -> str:
    """What the student reads: the message, or what raised and where."""
    if error.kind is ErrorKind.IMPORT_ERROR:
        text = f"importing {error.module}.py failed with {error.type}: {error.message}"
    elif error.kind in (ErrorKind.MISSING_FILE, ErrorKind.MISSING_ATTRIBUTE, ErrorKind.BLOCKED):
        text = error.message
    elif error.kind is ErrorKind.UNENCODABLE:
        text = f"the returned value could not be sent back ({error.type}: {error.message})"
    elif error.type == "NotImplementedError":
        text = "not implemented yet (raised NotImplementedError)"
    else:
        text = f"raised {error.type}: {error.message}" if error.message else f"raised {error.type}"
    if error.traceback.strip() and error.type != "NotImplementedError":
        text += "\n" + error.traceback.rstrip()
    return text


class WorkerTimeout(StudentCodeError):
    """The question's time budget ran out."""

    resource = "time"


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
    """What a worker for one submission gets: files copied into its scratch folder, limits, how it
    is isolated, and the student modules it must not import (see :mod:`autograder.grading.preflight`)."""

    files: dict[str, Path]
    fixtures_module: str | None
    limits: Limits
    isolation: Isolation = field(default_factory=Isolation)
    blocked_modules: dict[str, str] = field(default_factory=dict)
    memory_fill: int = MEMORY_FILL  # what memory read before it is written holds (autograder.worker.memory)


def _plan(spec: WorkerSpec, seconds: float, scratch: str, view_root: str, cgroup: Path | None) -> Plan:
    limits = ResourceLimits(
        memory_bytes=spec.limits.memory_mb * _MB,
        file_size_bytes=spec.limits.file_size_mb * _MB,
        open_files=spec.limits.open_files,
        processes=spec.limits.processes,
        cpu_seconds=max(1, int(seconds) + 2),  # a backstop; the wall-clock deadline normally acts first
    )
    view = View(root=view_root, scratch=scratch, tmp_mb=spec.limits.tmp_mb) if spec.isolation.namespaces else None
    return replace(
        spec.isolation.plan(),
        limits=limits,
        view=view,
        memory_cgroup=str(cgroup) if cgroup else None,
        watched_memory_bytes=None if cgroup else spec.limits.memory_mb * _MB,
        disk=DiskBudget(spec.limits.disk_mb, spec.limits.disk_files),
    )


def _give_to(user: WorkerUser, folder: str) -> None:
    """The scratch folder and what is in it belong to the worker's user (and no one else).

    Everything below ``folder`` first and ``folder`` itself last: until then it is root's and
    private (mkdtemp makes it 0700), so no process of that user can swap an entry for a link while
    these paths are used, and chown changes a link itself, not what it points to."""
    for base, folders, files in os.walk(folder, topdown=False):
        for name in folders + files:
            os.chown(os.path.join(base, name), user.uid, user.gid, follow_symlinks=False)
    os.chown(folder, user.uid, user.gid, follow_symlinks=False)


def remove_folder(path: str, remove: Callable[[str], None] = remove_tree) -> None:
    """Remove a worker's folder without following links its processes may have planted there; what
    cannot be removed is left for the staff, with a warning, rather than failing the grading."""
    try:
        remove(path)
    except OSError as exc:
        print(f"warning: could not remove the worker's folder {path} ({exc}); remove it by hand", file=sys.stderr)


def copy_files(files: dict[str, Path], folder: str) -> None:
    """Copy a worker's files (``files``: name in ``folder`` -> where it comes from) into ``folder``.

    No link of a source is followed (the submission was checked for links, but a link could appear
    after the check): a linked file or folder is refused, and a link inside a copied folder is
    copied as a link."""
    for name, source in files.items():
        if source.is_symlink():
            raise OSError(f"{source} is a symbolic link; only real files and folders are given to the worker")
        target = Path(folder, name)
        if source.is_dir():
            shutil.copytree(source, target, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, target, follow_symlinks=False)


class HelperAnswers(Protocol):
    """Answers the helper calls of one call (error carried forward: :mod:`autograder.grading.carried_forward`)."""

    targets: list[str]
    compare: bool  # the worker also runs the student's helpers on the same inputs, to say how they differ

    def answer(
        self, call: HelperCall, arrays: list, ask: Callable[[Packed], tuple[dict, list]], deadline: float
    ) -> Packed:
        """The reply to ``call`` by ``deadline`` (:class:`ReadTimeout` if not); ``ask`` calls the worker back."""


def output_text(data: bytes, size: int, limit: int) -> str:
    """A call's printed output for the feedback: ``data``, the first ``limit`` of its ``size`` bytes,
    with a note of what was dropped."""
    text = data.decode("utf-8", errors="replace")
    if size > limit:
        text += f"\n[... output truncated: {size - limit} more bytes not shown]"
    return text


def _decoded(document: dict, arrays: list) -> CallReply:
    """The worker's reply to a call, its values decoded."""
    return CallReply.from_json(document).decoded(Decoder(arrays).decode)


def encode_request(
    target: Target, args: tuple, kwargs: dict, *, return_args: bool, seed: int, helpers: HelperAnswers | None = None
) -> tuple[dict, list]:
    """The request for one call, as :meth:`autograder.worker.calls.Worker.run` reads it, and its arrays."""
    encoder = Encoder()
    request = CallRequest(target, encoder.encode(list(args)), encoder.encode(kwargs), return_args, seed)
    if helpers is not None:
        named = tuple(Target.parse(name) for name in helpers.targets)
        request = replace(request, helpers=named, compare=helpers.compare)
    if encoder.described:
        raise UnsendableArgument(
            f"an argument of {target} cannot be sent to the student's code ({encoder.described[0]}); a test passes "
            "numbers, strings, arrays, lists, tuples and dicts with string keys, or an object of the "
            "assignment's fixtures.py as FixtureRef (docs/authoring-guide.md, 'What a test can send')"
        )
    return request.to_json(), encoder.arrays


class UnsendableArgument(TypeError):
    """A test gave the student's code an argument that does not travel: the test's fault, never the student's."""


def _pipe() -> tuple[int, int]:
    """A pipe with a 1 MB buffer where the system allows it: a model's state crossing for every
    helper call of a training loop (error carried forward) then takes a few system calls, not one
    per 64 KB."""
    import fcntl  # POSIX only, as the Linux worker these pipes are for

    read_end, write_end = os.pipe()
    try:
        fcntl.fcntl(write_end, getattr(fcntl, "F_SETPIPE_SZ", 1031), 1 << 20)  # Linux; named in Python 3.10+
    except OSError:  # over /proc/sys/fs/pipe-max-size for an unprivileged user: the default stays
        pass
    return read_end, write_end


class Replies(Protocol):
    """Where a worker's replies are read: a :class:`FrameReader` on its reply pipe, or the portable
    path's reader thread. Raises :class:`ReadTimeout` when ``deadline`` passes first."""

    def read(self, deadline: float | None = None) -> tuple[dict, list]: ...


class WorkerProcess(Protocol):
    """One running worker, as a session drives it: :class:`_Process`, or the portable path's."""

    @property
    def reader(self) -> Replies: ...

    def send(self, message: Packed, deadline: float) -> None:
        """Write a request, or the answer to a helper call; BrokenPipeError once the worker is gone,
        :class:`WriteTimeout` if it has not read it all by ``deadline``."""

    def take_output(self) -> str: ...

    def describe_exit(self) -> str: ...

    def out_of_memory(self) -> bool: ...

    def kill(self) -> None: ...


def _ask(process: WorkerProcess, deadline: float, helpers: HelperAnswers | None, message: Packed) -> tuple[dict, list]:
    """Sends the worker ``message`` (a request, or the answer to a callback) and reads its answer,
    answering the helper calls the worker makes meanwhile (which may call back in turn)."""
    process.send(message, deadline)
    document, arrays = process.reader.read(deadline)
    while HelperCall.carried_by(document):
        if helpers is None:
            raise ProtocolError("a helper call that the request did not allow")
        try:
            call = HelperCall.from_json(document)
        except ValueError as exc:
            raise ProtocolError(str(exc)) from None
        answer = helpers.answer(call, arrays, partial(_ask, process, deadline, helpers), deadline)
        process.send(answer, deadline)
        document, arrays = process.reader.read(deadline)
    return document, arrays


def describe_exit_code(code: int | None) -> str:
    """How the process that ran the student's code ended, for the student: ``code`` is its exit
    status (negative: the signal that ended it), None if it is still running."""
    if code is None:
        return "stopped answering"
    if code == CHANNEL_EXIT:
        return (
            "ended when its pipes to the grader broke between two calls: does your code read from, "
            "close or change file descriptors it did not open (a thread reading them, os.closerange, "
            "os.set_blocking)?"
        )
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:  # a signal this system has no name for
            name = f"signal {-code}"
        hints = {
            "SIGKILL": " (killed: out of memory or over a limit?)",
            "SIGXCPU": " (CPU time limit)",
            "SIGSEGV": " (segmentation fault)",
        }
        return f"was killed by {name}{hints.get(name, '')}"
    if code >= 0xC0000000:  # Windows: an NTSTATUS, the system ended it (access violation, stack overflow)
        return f"crashed (Windows status 0x{code:08X})"
    return f"exited with status {code} (sys.exit or os._exit in your code?)"


def _output_file(private: str) -> int:
    """Where the worker's stdout and stderr go. A file in memory (memfd), so that a flood of prints
    never reaches the host's disk: its pages count in the memory budget of the worker that writes
    them, and the file size limit bounds what one call prints. A file in the private folder where
    there is no memfd."""
    if hasattr(os, "memfd_create"):
        import fcntl

        fd = os.memfd_create("worker-output")
        # Appending: after take_output empties it, the worker's next print starts at 0 again.
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_APPEND)
        return fd
    return os.open(os.path.join(private, "output"), os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)


class _Process:
    """One running worker: its pipes, scratch folder and captured output."""

    def __init__(self, spec: WorkerSpec, deadline: float, forkserver: ForkServer) -> None:
        self.forkserver = forkserver
        self.scratch = tempfile.mkdtemp(prefix=SCRATCH_PREFIX)
        self.private = tempfile.mkdtemp(prefix=PRIVATE_PREFIX)
        self.claim = claim(self.private, self.scratch)  # for the next grading, should this one be killed
        self.request_w = self.reply_r = self.output_fd = -1
        self.pid: int | None = None  # the supervisor's
        self.cgroup: Path | None = None
        try:
            self._start(spec, deadline)
        except BaseException:
            self.kill()  # leaves no folder or descriptor behind
            raise

    def _start(self, spec: WorkerSpec, deadline: float) -> None:
        copy_files(spec.files, self.scratch)
        if spec.isolation.user is not None:
            _give_to(spec.isolation.user, self.scratch)
        self.output_fd = _output_file(self.private)
        request_r, self.request_w = _pipe()
        # Written to with the question's deadline: a worker that stops reading (SIGSTOP, a sleep in a
        # thread while a large request is on its way) would otherwise block the grader for ever.
        os.set_blocking(self.request_w, False)
        self.reply_r, reply_w = _pipe()
        view_root = os.path.join(self.private, "view")  # where the worker's view is built, out of its reach
        os.mkdir(view_root, 0o700)
        if spec.isolation.memory_cgroup:
            # Named as the private folder, whose claim tells the next grading's sweep it is in use.
            self.cgroup = memory_cgroup.make(os.path.basename(self.private), spec.limits.memory_mb * _MB)
        config = {
            "plan": _plan(spec, deadline - time.monotonic(), self.scratch, view_root, self.cgroup).to_json(),
            "blocked": spec.blocked_modules,
        }
        try:
            fds = (request_r, reply_w, self.output_fd)
            self.pid = self.forkserver.start(config, self.scratch, fds, deadline, spec.memory_fill)
        finally:
            os.close(request_r)
            os.close(reply_w)
        self.reader = FrameReader(self.reply_r, spec.limits.reply_mb * _MB, spec.limits.reply_json_mb * _MB)
        self.output_limit = spec.limits.output_kb * 1024
        self.limits = spec.limits

    def send(self, message: Packed, deadline: float) -> None:
        write_all(self.request_w, message, deadline)

    def take_output(self) -> str:
        """Output written since the last call, cut to the limit with a note of what was dropped."""
        size = os.fstat(self.output_fd).st_size
        data = os.pread(self.output_fd, min(size, self.output_limit), 0)
        # Start the next call with an empty file: the file size limit then bounds each call's
        # output rather than everything printed since the worker started.
        os.ftruncate(self.output_fd, 0)
        return output_text(data, size, self.output_limit)

    def out_of_memory(self) -> bool:
        """Whether the kernel killed one of the worker's processes for the question's memory budget
        (it kills one, not all: the call then fails whichever it was, the same way every time)."""
        return self.cgroup is not None and memory_cgroup.oom_kills(self.cgroup) > 0

    def describe_exit(self) -> str:
        over_memory = (
            f"was stopped for using more than the question's {self.limits.memory_mb} MB of memory, "
            "all its processes together"
        )
        if self.out_of_memory():
            return over_memory
        code = self.forkserver.exit_code(self.pid, timeout=2) if self.pid is not None else None
        if code == UNCONFINED_EXIT:
            return (
                "could not be isolated, so your code was not run (a problem of the autograder; "
                "please tell the course staff)"
            )
        if code == MEMORY_EXIT:
            return over_memory
        if code == DISK_EXIT:
            return (
                f"was stopped for keeping more than the question's {self.limits.disk_mb} MB or "
                f"{self.limits.disk_files} files in its folder"
            )
        return describe_exit_code(code)

    def kill(self) -> None:
        # Closing the request pipe first ends a worker that is still starting up as soon as it
        # reads its first request.
        for fd in (self.request_w, self.reply_r, self.output_fd):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        try:
            if self.pid is not None:
                # Everything below the supervisor too, wherever the student's code put it.
                self.forkserver.stop(self.pid)
                self.pid = None
        finally:
            if self.cgroup is not None:
                memory_cgroup.remove(self.cgroup)
                self.cgroup = None
            remove_folder(self.scratch)
            remove_folder(self.private)
            if self.claim is not None:
                os.close(self.claim)
                self.claim = None


class Session(Protocol):
    """What tests call the student's code through: a :class:`WorkerSession` (on the portable path, a
    :class:`autograder.boundary.portable_session.PortableSession`), or, in a benchmark only, a stand-in that runs the
    code in the grader's own process (benchmarks/in_process.py)."""

    def call(
        self,
        target: Target | str,
        *args: Any,
        return_args: bool = False,
        seed: int = 0,
        helpers: HelperAnswers | None = None,
        **kwargs: Any,
    ) -> CallResult: ...

    def __enter__(self) -> Session: ...

    def __exit__(self, *exc: object) -> None: ...


# Makes the session of one question (or of the import check) from the spec, the time budget and a label.
SessionFactory = Callable[[WorkerSpec, float, str], Session]


class BudgetedSession:
    """Calls into the student's code for one question, within one time budget: the calls, their
    errors and the budget, whatever runs the worker (a subclass's :meth:`_launch` says what)."""

    def __init__(self, spec: WorkerSpec, budget_seconds: float, label: str) -> None:
        self.spec = spec
        self.label = label
        self.budget = budget_seconds
        self.used = 0.0
        self.timed_out_on: str | None = None
        self.broken = 0  # calls whose worker hung, died or sent garbage (not an exception of the student's)
        self._process: WorkerProcess | None = None

    def _launch(self, deadline: float) -> WorkerProcess:
        """Start a worker, which says it is ready on its reply channel; OSError if it cannot start."""
        raise NotImplementedError

    @property
    def remaining(self) -> float:
        return self.budget - self.used

    def call(
        self,
        target: Target | str,
        *args: Any,
        return_args: bool = False,
        seed: int = 0,
        helpers: HelperAnswers | None = None,
        **kwargs: Any,
    ) -> CallResult:
        """Run ``target`` (``"module.function"`` or ``"fixtures:probe"``) in the worker; with
        ``helpers``, the student's helpers it names are answered by ``helpers`` during the call."""
        target = Target.of(target)
        if self.timed_out_on is not None:
            raise WorkerTimeout(
                f"not run: the {self.budget:g} s time limit of question {self.label} was used up "
                f"earlier (by {self.timed_out_on})"
            )
        started = time.monotonic()
        deadline = started + self.remaining
        request, arrays = encode_request(target, args, kwargs, return_args=return_args, seed=seed, helpers=helpers)
        try:
            process = self._ensure_started(deadline)
            document, arrays = _ask(process, deadline, helpers, pack_parts(request, arrays))
            if process.out_of_memory():  # one of its processes was killed for it: the call fails
                raise PeerClosed("over the question's memory budget")
            reply = _decoded(document, arrays)
        except ReadTimeout:
            self.broken += 1
            self._time_out(target)
            raise WorkerTimeout(
                f"did not finish within the {self.budget:g} s time limit of "
                f"question {self.label} (infinite loop, or far too slow?)"
            ) from None
        except (PeerClosed, BrokenPipeError):
            reason = self._process.describe_exit() if self._process else "could not start"
            output = self._process.take_output() if self._process else ""
            crash = WorkerCrashed(
                f"the process running your code {reason}"
                + (f"\nlast output:\n{output[-2000:]}" if output.strip() else "")
            )
            crash.resource = "memory" if self._process and self._process.out_of_memory() else ""
            self._broke()
            raise crash from None
        except DocumentTooLarge as exc:
            self._broke()
            raise WorkerMisbehaved(
                f"returned {exc.size / _MB:.1f} MB of plain Python values (lists, numbers, strings), over "
                f"the {exc.cap / _MB:g} MB the autograder accepts outside numpy arrays; return large "
                "data as a numpy array (for example np.array(your_list))"
            ) from None
        except MessageTooLarge:
            self._broke()
            raise WorkerMisbehaved(f"returned more than {self.spec.limits.reply_mb} MB of data") from None
        except ProtocolError as exc:
            self._broke()
            raise WorkerMisbehaved(
                f"the process running your code sent an invalid reply ({exc}); "
                "does your code write to file descriptors it did not open?"
            ) from None
        finally:
            # Reading and decoding the reply count too: the grader's work on it is the call's time.
            self.used = min(self.budget, self.used + time.monotonic() - started)
        output = process.take_output()
        if self.used >= self.budget:  # this call has its answer; the question's later calls have no time
            self._time_out(target)
        if reply.error is not None:
            failure = StudentRaised(reply.error)
            failure.output = output
            raise failure
        return CallResult(
            value=reply.value,
            fixtures=reply.fixtures or {},
            args_after=reply.args_after,
            output=output,
            seconds=time.monotonic() - started,
        )

    def _broke(self) -> None:
        """The worker hung, died or sent garbage during a call: it is stopped, and counted."""
        self.broken += 1
        self._stop()

    def _time_out(self, target: Target) -> None:
        """The question's budget is used up (by ``target``): its later calls fail at once."""
        self.timed_out_on = str(target)
        self.used = self.budget
        self._stop()

    def _ensure_started(self, deadline: float) -> WorkerProcess:
        if self._process is None:
            try:
                self._process = self._launch(deadline)
            except OSError as exc:
                raise WorkerCrashed(f"the process for your code could not be started ({exc})") from None
            hello, _ = self._process.reader.read(deadline)
            try:
                Ready.from_json(hello)
            except ValueError as exc:
                raise ProtocolError(str(exc)) from None
        return self._process

    def _stop(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process = None

    def close(self) -> None:
        self._stop()

    def __enter__(self) -> BudgetedSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class WorkerSession(BudgetedSession):
    """A :class:`BudgetedSession` whose workers are forked by ``forkserver``, which a grading shares
    between its sessions; without one, the session starts a fork server of its own and stops it
    when it closes."""

    def __init__(
        self, spec: WorkerSpec, budget_seconds: float, label: str, forkserver: ForkServer | None = None
    ) -> None:
        super().__init__(spec, budget_seconds, label)
        self._own_forkserver = forkserver is None
        self.forkserver = forkserver or ForkServer(spec.isolation.python, spec.fixtures_module)
        if (self.forkserver.python, self.forkserver.fixtures_module) != (spec.isolation.python, spec.fixtures_module):
            raise ValueError(
                "the fork server runs another Python or imports other fixtures than the "
                "worker needs; give the session a fork server made for its spec"
            )

    def _launch(self, deadline: float) -> _Process:
        return _Process(self.spec, deadline, self.forkserver)

    def close(self) -> None:
        try:
            super().close()
        finally:
            if self._own_forkserver:
                self.forkserver.close()
