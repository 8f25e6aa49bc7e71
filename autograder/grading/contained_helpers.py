"""Error carried forward's reference answers, computed in a process of their own, under limits.

A rerun asks the reference to answer helper calls with arguments the student's code chose, such as
``ParserModel(n_features=250000, hidden_size=1000)``. Answered in the grader's own process, such a
call made the trusted grader allocate gigabytes and compute past the question's deadline. Here the
answers come from a :class:`~autograder.grading.carried_forward.HelperBridge` in a child forked from
the grader for one test's rerun, which already holds the reference. The child gets the worker's own
memory budget on top of what it inherits and a CPU limit, and each exchange with it has the question's
deadline:

- a call that asks for more memory fails at once with ``MemoryError``, which the feedback names as
  the reference failing on the inputs the student's code gave it;
- a call that is still computing at the deadline times the question out, as the student's own code
  would;
- a child that dies (a signal, the CPU limit) fails that call and the rest of the rerun with its reason.

Forking needs Linux; elsewhere (the portable path, where the grader's reference is never asked) the
answers come from this process.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import asdict

from autograder.contract.messages import HelperAnswer, HelperCall
from autograder.contract.protocol import (
    FrameReader,
    MessageTooLarge,
    Packed,
    PeerClosed,
    ProtocolError,
    pack_parts,
    write_all,
)
from autograder.core.config import Limits
from autograder.grading.carried_forward import HelperBridge, HelperSource, HelperUse, LiveHelpers

_MB = 1 << 20
_PR_SET_PDEATHSIG = 1
_FROM_GRADER = 1 << 40  # the child reads only what the grader, which read it from the worker, sends


class ContainedBridge:
    """A :class:`HelperBridge` whose answers come from a limited child process (started at the
    first helper call, stopped by :meth:`close`); the same interface for the runner and the session."""

    def __init__(self, source: LiveHelpers, targets: list[str], limits: Limits, *, compare: bool = True) -> None:
        self.local = HelperBridge(source, targets)  # its ``uses`` follow the child's
        self.targets = targets
        self.compare = compare
        self.limits = limits
        self._child: _Child | None = None
        self._failure = ""

    def answer(
        self, call: HelperCall, arrays: list, ask: Callable[[Packed], tuple[dict, list]], deadline: float
    ) -> Packed:
        if str(call.helper) not in self.targets:
            raise ProtocolError(f"a helper call of {str(call.helper)!r}, which this call did not replace")
        if self._child is None and not self._failure:
            self._child = _Child.fork(self.local, self.limits, deadline)
        reply = self._exchange(pack_parts({"call": call.to_json()}, arrays), deadline)
        while reply is not None and "callback" in reply[0]:  # the reference calls the student's object back
            asked, asked_parts = ask(pack_parts(*reply))
            reply = self._exchange(pack_parts({"asked": asked}, asked_parts), deadline)
        if reply is None:
            self.local.uses.setdefault(str(call.helper), HelperUse()).failed = self._failure
            failure = f"the reference {call.helper.qualname} {self._failure} on the inputs your code gave it"
            return pack_parts(HelperAnswer(failure=failure).to_json(), [])
        document, parts = reply
        self.local.uses.update({target: HelperUse(**use) for target, use in document["uses"].items()})
        return pack_parts(document["answer"], parts)

    def _exchange(self, message: Packed, deadline: float) -> tuple[dict, list] | None:
        """The child's next message after ``message``, or None once it has failed (then for every
        later call of the rerun too: the objects it kept between calls are gone)."""
        if self._child is None:
            return None
        try:
            self._child.send(message, deadline)
            return self._child.read(deadline)
        except MessageTooLarge:
            self._failure = f"gave an answer over the {self.limits.reply_mb} MB a reply may have"
        except (PeerClosed, BrokenPipeError):
            self._failure = self._child.exit_reason()
        self.close()
        return None

    @property
    def uses(self) -> dict[str, HelperUse]:
        return self.local.uses

    def close(self) -> None:
        if self._child is not None:
            self._child.kill()
            self._child = None

    def used(self) -> list[str]:
        return self.local.used()

    def differing(self) -> list[str]:
        return self.local.differing()

    def unanswered(self) -> list[str]:
        return self.local.unanswered()

    def note(self, owner: dict[str, str]) -> str:
        return self.local.note(owner)


def bridge_for(
    source: HelperSource, targets: list[str], limits: Limits, *, compare: bool = True
) -> HelperBridge | ContainedBridge:
    """The bridge of one rerun: the grader's reference (a :class:`LiveHelpers` that records
    nothing) in a limited child on Linux; the bundle's recording, ``release``'s recording run and
    other systems in this process. ``compare``: whether the worker runs the student's helpers beside."""
    if isinstance(source, LiveHelpers) and source.recorder is None and sys.platform == "linux":
        return ContainedBridge(source, targets, limits, compare=compare)
    return HelperBridge(source, targets, compare=compare)


class _Child:
    """The forked process and the two pipes to it."""

    def __init__(self, pid: int, to_child: int, from_child: int, reply_mb: int) -> None:
        self.pid = pid
        self.to_child = to_child
        self.reader = FrameReader(from_child, reply_mb * _MB)  # what the grader accepts from a worker
        self.status: int | None = None

    @classmethod
    def fork(cls, bridge: HelperBridge, limits: Limits, deadline: float) -> _Child:
        calls_r, calls_w = os.pipe()
        answers_r, answers_w = os.pipe()
        grader = os.getpid()
        pid = os.fork()
        if pid == 0:  # the child: never returns into the grader's code
            try:
                _serve(bridge, calls_r, answers_w, limits.memory_mb, deadline, grader)
            finally:
                os._exit(0)
        os.close(calls_r)
        os.close(answers_w)
        os.set_blocking(calls_w, False)  # written with the deadline
        return cls(pid, calls_w, answers_r, limits.reply_mb)

    def send(self, message: Packed, deadline: float) -> None:
        write_all(self.to_child, message, deadline)

    def read(self, deadline: float) -> tuple[dict, list]:
        return self.reader.read(deadline)

    def exit_reason(self) -> str:
        self.kill()
        if self.status == -signal.SIGXCPU:
            return "ran out of CPU time"
        if self.status is not None and self.status < 0:
            return f"was killed by {signal.Signals(-self.status).name}"
        return f"stopped with status {self.status}"

    def kill(self) -> None:
        if self.status is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            _, status = os.waitpid(self.pid, 0)
            self.status = os.waitstatus_to_exitcode(status)
            os.close(self.to_child)
            os.close(self.reader.fd)


def _serve(bridge: HelperBridge, calls: int, answers: int, memory_mb: int, deadline: float, grader: int) -> None:
    """The child's life: limits, then one answer per call the grader sends, until it closes the pipe."""
    _confine(calls, answers, memory_mb, deadline)
    if os.getppid() != grader:  # the grader died before the child asked to die with it
        return
    reader = FrameReader(calls, _FROM_GRADER)
    try:
        while True:
            document, arrays = reader.read()
            _answer(bridge, document, arrays, reader, answers)
    except PeerClosed:
        return


def _answer(bridge: HelperBridge, document: dict, arrays: list, reader: FrameReader, answers: int) -> None:
    """Answers one call; while the student's object is called back, the grader may send another call
    (a helper that the student's method calls in turn), answered here before the callback's reply."""

    def ask(message: Packed) -> tuple[dict, list]:
        write_all(answers, message)
        reply, parts = reader.read()
        while "call" in reply:
            _answer(bridge, reply, parts, reader, answers)
            reply, parts = reader.read()
        return reply["asked"], parts

    answer, parts = bridge.answer_parts(HelperCall.from_json(document["call"]), arrays, ask)
    uses = {target: asdict(use) for target, use in bridge.uses.items()}
    write_all(answers, pack_parts({"answer": answer, "uses": uses}, parts))


def _confine(calls: int, answers: int, memory_mb: int, deadline: float) -> None:
    """The worker's memory budget on top of what the child inherits, CPU time to the question's
    deadline, no file descriptor of the grader's but its two pipes, and death with the grader."""
    import ctypes
    import resource  # Linux only, as this child

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the grader, which stops this child
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    keep = {calls, answers}
    for name in os.listdir("/proc/self/fd"):
        if int(name) > 2 and int(name) not in keep:
            try:
                os.close(int(name))
            except OSError:  # the listing's own descriptor, closed already
                pass
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    with open("/proc/self/statm", "rb") as statm:
        inherited = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    limit = inherited + memory_mb * _MB
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    seconds = max(1, int(deadline - time.monotonic()) + 1)
    resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))
