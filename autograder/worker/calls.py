"""The untrusted side: imports the student's modules and runs requested calls.

Runs in the child of :mod:`autograder.worker.supervisor`, confined, in a scratch folder that holds only
the student's files and the assignment's given support files. It reads requests from one pipe and
answers on another; it reports raw outputs and exceptions, never verdicts. Student output goes to the
file the grader attached as stdout/stderr.

Importable without numpy-heavy grader code: it touches only :mod:`autograder.contract.protocol` and the
assignment's public fixtures module.
"""

from __future__ import annotations

import errno
import importlib
import importlib.abc
import os
import random
import sys
import traceback
from types import ModuleType
from typing import Any, NoReturn

import numpy as np
import numpy.random  # noqa: F401  numpy loads it on first use: here in the fork server, not per worker

from autograder.contract.launch import CHANNEL_EXIT
from autograder.contract.messages import CallReply, CallRequest, ErrorKind, Ready, StudentError
from autograder.contract.protocol import (
    Decoder,
    Encoder,
    FrameReader,
    Packed,
    PeerClosed,
    ProtocolError,
    pack,
    pack_parts,
    write_all,
)
from autograder.contract.target import Target
from autograder.worker import probes
from autograder.worker.helpers import Channel, Relay
from autograder.worker.memory import fill_uninitialised

_MAX_REQUEST_BYTES = 1 << 30
_TRACEBACK_LIMIT = 4000


class StudentModules:
    """Lazy access to the student's modules, remembering a failed import instead of retrying it,
    and a module once imported even if the student's code then deletes its file.

    ``blocked`` names modules the grader's import check saw hang or end the process at import
    (see :mod:`autograder.grading.preflight`), with the reason: they are never imported again, neither here
    nor by an ``import`` in another student module, so the tests that need them fail at once.
    """

    def __init__(self, scratch: str, blocked: dict[str, str] | None = None) -> None:
        self.scratch = scratch
        self._failed: dict[str, StudentError] = {
            name: StudentError(ErrorKind.BLOCKED, reason, module=name) for name, reason in (blocked or {}).items()
        }
        self._loaded: dict[str, ModuleType] = {}

    def module(self, name: str) -> ModuleType:
        if name in self._loaded:
            return self._loaded[name]
        if name in self._failed:
            raise _ReportedError(self._failed[name])
        base = os.path.join(self.scratch, *name.split("."))
        if not (os.path.exists(base + ".py") or os.path.isdir(base)):
            missing = f"{name.replace('.', '/')}.py is not in your submission"
            error = StudentError(ErrorKind.MISSING_FILE, missing, module=name)
            self._failed[name] = error
            raise _ReportedError(error)
        try:
            self._loaded[name] = importlib.import_module(name)
            return self._loaded[name]
        except BaseException as exc:  # SystemExit and KeyboardInterrupt at import included
            error = StudentError(ErrorKind.IMPORT_ERROR, module=name, **_describe(exc, self.scratch))
            self._failed[name] = error
            raise _ReportedError(error) from None

    def attr(self, target: Target | str) -> Any:
        """The student's object that ``target`` names (fixtures give it as text: ``"optim.Adam"``)."""
        target = Target.of(target)
        value: Any = self.module(target.module)
        for part in target.path:
            try:
                value = getattr(value, part)
            except AttributeError:
                missing = f"{target.module}.py has no {target.qualname}"
                raise _ReportedError(StudentError(ErrorKind.MISSING_ATTRIBUTE, missing, target=str(target))) from None
            except BaseException as exc:
                raised = StudentError(ErrorKind.EXCEPTION, target=str(target), **_describe(exc, self.scratch))
                raise _ReportedError(raised) from None
        return value


class _ReportedError(Exception):
    def __init__(self, error: StudentError) -> None:
        super().__init__(error.message)
        self.error = error


_EXHAUSTED = {
    errno.ENOSPC: "disk",
    errno.EDQUOT: "disk",
    errno.EFBIG: "disk",
    errno.EMFILE: "descriptors",
    errno.ENFILE: "descriptors",
}


def _describe(exc: BaseException, scratch: str) -> dict:
    """Exception type, message and the traceback frames that lie in the student's files."""
    frames = [
        f for f in traceback.extract_tb(exc.__traceback__) if os.path.abspath(f.filename).startswith(scratch + os.sep)
    ]
    for frame in frames:
        frame.filename = os.path.relpath(frame.filename, scratch)
    text = "".join(traceback.format_list(frames[-8:]))
    try:
        message = str(exc)
    except Exception:
        message = "<unprintable message>"
    return {
        "type": type(exc).__name__,
        "message": message[:_TRACEBACK_LIMIT],
        "traceback": text[-_TRACEBACK_LIMIT:],
        "resource": _ran_out(exc),
    }


def _ran_out(exc: BaseException) -> str:
    """Which of the question's budgets ``exc`` says ran out, if any: the grader then asks whose code
    used it up (:func:`autograder.grading.runner.run_tests`)."""
    if isinstance(exc, MemoryError):
        return "memory"
    if isinstance(exc, OSError) and exc.errno is not None:
        return _EXHAUSTED.get(exc.errno, "")
    return ""


def _forget_warnings_shown() -> None:
    """Each call shows each warning its code sets off, once: Python shows a warning once per place in
    the code and process, so a warning of an earlier call would otherwise be missing from the
    feedback of the next test that sets it off, and with it the hint that the cause is overflow."""
    for module in list(sys.modules.values()):
        registry = getattr(module, "__warningregistry__", None)
        if isinstance(registry, dict):
            registry.clear()


class _RefuseBlocked(importlib.abc.MetaPathFinder):
    """Makes ``import name`` of a blocked module raise ImportError with the reason."""

    def __init__(self, blocked: dict[str, str]) -> None:
        self.blocked = blocked

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        if name in self.blocked:
            raise ImportError(self.blocked[name], name=name)
        return None


class Worker:
    def __init__(
        self,
        fixtures: ModuleType | None,
        scratch: str,
        blocked: dict[str, str] | None = None,
        channel: Channel | None = None,
    ) -> None:
        self.fixtures = fixtures
        self.student = StudentModules(scratch, blocked)
        self.scratch = scratch
        self.channel = channel

    def handle(self, document: dict, arrays: list[np.ndarray]) -> Packed:
        reply = self.run(document, arrays)
        return self._encode_reply(reply) if reply.error is None else pack(reply.to_json(), [])

    def run(self, document: dict, arrays: list[np.ndarray]) -> CallReply:
        """The reply to one request, before encoding: ``ok`` with the raw values, or the error."""
        built: dict[str, Any] = {}

        def make_fixture(name: str, args: list, kwargs: dict, ident: str | None) -> Any:
            factory = getattr(self.fixtures, name, None) if not name.startswith("_") else None
            if factory is None:
                raise ProtocolError(f"unknown fixture {name!r}")
            obj = factory(*args, **kwargs)
            if ident:
                built[ident] = obj
            return obj

        decoder = Decoder(arrays, fixture=make_fixture, student=self.student.attr)
        # Every call starts from the same global random state, so a submission that reseeds or
        # consumes randomness cannot change what later calls see.
        request = CallRequest.from_json(document)  # the grader's own message: a bad one is its bug
        random.seed(request.seed)
        np.random.seed(request.seed)
        _forget_warnings_shown()
        target = request.target
        try:
            args = decoder.decode(request.args)
            kwargs = decoder.decode(request.kwargs)
            function = self._probe(target) if target.probe else self.student.attr(target)
            value = self._call(function, target.probe, args, kwargs, request)
        except _ReportedError as exc:
            return CallReply(error=exc.error)
        except BaseException as exc:  # the student may raise anything, SystemExit included
            return CallReply(error=StudentError(ErrorKind.EXCEPTION, **_describe(exc, self.scratch)))
        try:  # a student's code may have tampered with a fixture it was given
            reports = {k: v.report() for k, v in built.items() if hasattr(v, "report")}
        except BaseException as exc:
            return CallReply(error=StudentError(ErrorKind.EXCEPTION, **_describe(exc, self.scratch)))
        return CallReply(value, reports, args if request.return_args else None, request.return_args)

    def _call(self, function: Any, probe: bool, args: list, kwargs: dict, request: CallRequest) -> Any:
        """The call itself, with the request's helpers answered by the grader (error carried forward)."""
        relay = (
            Relay(self.channel, list(request.helpers), self.student.attr, self.scratch, compare=request.compare)
            if request.helpers and self.channel is not None
            else None
        )
        try:
            return function(self.student, *args, **kwargs) if probe else function(*args, **kwargs)
        finally:
            if relay is not None:
                relay.restore()

    def _probe(self, target: Target) -> Any:
        """A probe of the assignment's public fixtures or a generic one (:mod:`autograder.worker.probes`)."""
        module = {"fixtures": self.fixtures, "probes": probes}[target.module]
        function = getattr(module, target.name, None)
        if function is None:
            raise ProtocolError(f"unknown probe {str(target)!r}")
        return function

    def _encode_reply(self, reply: CallReply) -> Packed:
        encoder = Encoder()
        try:
            document = reply.encoded(encoder.encode).to_json()
            # inside the try: json.dumps itself can refuse a value (an int of more than 4300
            # digits), which would otherwise kill the worker and read as "your code exited"
            return pack_parts(document, encoder.arrays)
        except BaseException as exc:
            return pack(
                CallReply(error=StudentError(ErrorKind.UNENCODABLE, **_describe(exc, self.scratch))).to_json(), []
            )


def serve(
    request_fd: int, reply_fd: int, fixtures: ModuleType | None, trusted_paths: list[str], blocked: dict[str, str]
) -> None:
    scratch = os.path.realpath(os.getcwd())
    # The framework's folders were needed only for the supervisor's imports; the student's code
    # sees its scratch folder and the standard library, nothing else of ours.
    sys.path[:] = [scratch] + [p for p in sys.path if p not in trusted_paths]
    sys.meta_path.insert(0, _RefuseBlocked(blocked))
    fill_uninitialised()
    reader = FrameReader(request_fd, _MAX_REQUEST_BYTES)
    worker = Worker(fixtures, scratch, blocked, Channel(reader, reply_fd))
    write_all(reply_fd, pack(Ready(sys.version.split()[0]).to_json(), []))
    while True:
        try:
            document, arrays = reader.read()
        except PeerClosed:
            return
        except (OSError, ProtocolError):
            _channel_broken()
        reply = worker.handle(document, arrays)
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:  # the student may have replaced or closed the stream
                pass
        try:
            write_all(reply_fd, reply)
        except OSError:
            _channel_broken()


def _channel_broken() -> NoReturn:
    """Only the student's code can break the pipes to the grader between two calls (a thread of
    theirs reading them, a descriptor closed or made non-blocking). The exit status says so: what
    the worker printed now would count as the previous call's output, and the framework's
    traceback is nothing the student can act on."""
    os._exit(CHANNEL_EXIT)
