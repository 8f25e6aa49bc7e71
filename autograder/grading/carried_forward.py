"""Error carried forward: a bug costs points once, in the question that owns the function.

A test that loses points while the student's code reached helpers owned by other questions
(:mod:`autograder.grading.ownership`) is run once more, with every such helper answered by the reference:
the worker's stand-ins (:mod:`autograder.worker.helpers`) send each helper call here, and
:class:`LiveHelpers` answers it from the reference solution, so no reference code enters the
student's process: in a limited child of the grader (:mod:`autograder.grading.contained_helpers`),
as the student's code chose the arguments. The test keeps the better of the two scores, so replacing a
helper never costs a student anything, and its feedback says which helper was replaced and why.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from types import SimpleNamespace
from typing import Any

import numpy as np

from autograder.boundary.session import CallResult, HelperAnswers, Session
from autograder.contract.messages import Callback, CallbackResult, HelperAnswer, HelperCall, OwnResult
from autograder.contract.protocol import (
    ArgRef,
    Decoder,
    Encoder,
    Handle,
    ObjectState,
    Opaque,
    Packed,
    ProtocolError,
    pack_parts,
)
from autograder.contract.state_sync import StateSync, generators_in
from autograder.contract.target import Target
from autograder.core.results import TestResult
from autograder.grading.checks import agree


@dataclass
class HelperUse:
    """What one helper did during a test: how often the reference answered for it, and how the
    student's own helper differed on the inputs it was compared on (None: it agreed)."""

    calls: int = 0
    differs: str | None = None
    failed: str | None = None
    unanswered: int = 0  # calls the source could not answer (the bundle's recording lacks them)


class NoAnswer(Exception):
    """The source cannot answer this call: the worker runs the student's own helper instead."""


@dataclass
class Answer:
    """The reference's answer to one helper call: its value, for a method the object's new state,
    and the state of every random generator among the arguments after the call."""

    value: Any
    state: dict | None
    generators: list


class LiveHelpers:
    """Answers helper calls by running the reference solution in this process. With ``recorder``
    (``release``), it also keeps every call and answer, for the student bundle's ``check``."""

    def __init__(
        self, modules: SimpleNamespace, recorder: Callable[[Target, tuple, Answer], None] | None = None
    ) -> None:
        self.modules = modules
        self.recorder = recorder

    def run(self, target: Target, args: list, kwargs: dict, state: dict | None) -> Answer:
        inputs = copy.deepcopy((args, kwargs, state)) if self.recorder else None
        module = getattr(self.modules, target.module)
        holder = target.owner.resolve(module) if target.owner else module
        function = getattr(holder, target.name)
        if state is None:
            answer = Answer(function(*args, **kwargs), None, [])
        elif isinstance(holder, type):
            # without its __init__: the state comes from the caller (typeshed's type.__new__ is the metaclass's)
            instance = holder.__new__(holder)  # type: ignore[call-overload]
            vars(instance).update(state)
            answer = Answer(function(instance, *args, **kwargs), dict(vars(instance)), [])
        else:
            raise TypeError(f"{target} is not a method of a class")
        answer.generators = generators_in([args, kwargs])
        if self.recorder is not None and inputs is not None and not _holds(inputs, _Remote):
            self.recorder(target, inputs, copy.deepcopy(answer))
        return answer


class RecordedHelpers:
    """Answers helper calls from those ``release`` recorded on the reference, in the student bundle:
    a call whose inputs match a recorded one (within rounding) gets its answer; any other call is
    the student's own helper's, as the bundle has no reference to ask."""

    modules = SimpleNamespace()  # no reference objects here to call back with

    def __init__(self, calls: list[tuple[str, tuple, Answer]]) -> None:
        self.calls: dict[str, list[tuple[tuple, Answer]]] = {}
        for target, inputs, answer in calls:
            self.calls.setdefault(target, []).append((inputs, answer))

    def run(self, target: Target, args: list, kwargs: dict, state: dict | None) -> Answer:
        if _holds([args, kwargs], _Remote):
            raise NoAnswer(str(target))
        for inputs, answer in self.calls.get(str(target), []):
            if agree(inputs, (args, kwargs, state), rtol=1e-9, atol=1e-12):
                return copy.deepcopy(answer)
        raise NoAnswer(str(target))


HelperSource = LiveHelpers | RecordedHelpers


@dataclass
class HelperBridge:
    """Answers the helper calls of one test's rerun from ``source``; keeps what it saw for the feedback."""

    source: HelperSource
    targets: list[str]
    compare: bool = True  # whether the worker runs the student's helpers beside, to say how they differ
    uses: dict[str, HelperUse] = field(default_factory=dict)
    token: str = ""
    syncs: dict[str, StateSync] = field(default_factory=dict)

    def answer(
        self, call: HelperCall, arrays: list, ask: Callable[[Packed], tuple[dict, list]], deadline: float | None = None
    ) -> Packed:
        """The reply to one helper call; ``ask`` sends a callback to the worker and returns its answer.
        Answered in this process, which the question's deadline does not interrupt: only the bundle's
        recording and ``release`` (the reference on itself) answer here; the grader's reference runs
        under limits (:mod:`autograder.grading.contained_helpers`)."""
        return pack_parts(*self.answer_parts(call, arrays, ask))

    def answer_parts(
        self, call: HelperCall, arrays: list, ask: Callable[[Packed], tuple[dict, list]]
    ) -> tuple[dict, list]:
        """:meth:`answer`'s reply as its document and arrays."""
        target, name = call.helper, str(call.helper)
        if name not in self.targets:
            raise ProtocolError(f"a helper call of {name!r}, which this call did not replace")
        decoder = Decoder(arrays)
        callbacks = _Callbacks(ask, self.source.modules)
        args = callbacks.inward(decoder.decode(call.args), ("args",))
        kwargs = callbacks.inward(decoder.decode(call.kwargs), ("kwargs",))
        sync = self._sync(call.owner or ":")
        state = sync.incoming(decoder.decode(call.state)) if call.owner is not None else None
        if not isinstance(args, list) or not isinstance(kwargs, dict) or _holds([args, kwargs, state], Opaque):
            return HelperAnswer(unavailable=True).to_json(), []  # inputs that cannot cross: the student's own helper
        try:
            answer = self.source.run(target, args, kwargs, state)
        except NoAnswer:
            self.uses.setdefault(name, HelperUse()).unanswered += 1
            return HelperAnswer(unavailable=True).to_json(), []
        except Exception as exc:  # the reference on inputs the student's code made
            self.uses.setdefault(name, HelperUse()).failed = f"{type(exc).__name__}: {exc}"
            failure = f"the reference {target.qualname} raised {type(exc).__name__} on the inputs your code gave it"
            if isinstance(exc, MemoryError):  # the limited child's budget (contained_helpers)
                failure += ": they ask for more memory than a question may use (sizes far beyond the assignment's?)"
            else:
                failure += f": {exc}"
            return HelperAnswer(failure=failure).to_json(), []
        use = self.uses.setdefault(name, HelperUse())
        use.calls += 1
        if call.own is not None and use.differs is None:
            use.differs = _difference(OwnResult.from_json(decoder.decode(call.own)), answer.value, answer.state)
        return self._reply(answer, args, kwargs, sync)

    def _reply(self, answer: Answer, args: list, kwargs: dict, sync: StateSync) -> tuple[dict, list]:
        encoder = Encoder()
        reply = HelperAnswer(encoder.encode(answer.value), encoder.encode(answer.generators))
        if answer.state is not None:
            # `self.sentence = sentence` keeps the caller's very object: say so, rather than send a copy
            aliases = _aliases(answer.state, args, kwargs)
            state = sync.outgoing({k: v for k, v in answer.state.items() if k not in aliases})
            reply = replace(reply, state=encoder.encode(state), aliases=aliases)
        return reply.to_json(), encoder.arrays

    def _sync(self, owner: str) -> StateSync:
        """The state sync of one worker object; the worker's names change with every call."""
        token = owner.split(":", 1)[0]
        if token and token != self.token:
            self.token, self.syncs = token, {}
        return self.syncs.setdefault(owner, StateSync())

    def close(self) -> None:
        """Nothing to stop: the answers came from this process."""

    def used(self) -> list[str]:
        return [t for t in self.targets if self.uses.get(t, HelperUse()).calls]

    def differing(self) -> list[str]:
        """The helpers whose student version gave other results than the reference's here."""
        return [t for t in self.used() if self.uses[t].differs]

    def unanswered(self) -> list[str]:
        """The helpers the source could not stand in for on some call (the bundle's recording has no
        answer for the inputs the student's code gave them): there the student's own ran."""
        return [t for t in self.targets if self.uses.get(t, HelperUse()).unanswered]

    def note(self, owner: dict[str, str]) -> str:
        """The feedback: which helpers the reference stood in for, and where they are graded."""
        differing = self.differing()
        lines = [
            f"Graded with the reference {short_name(t)} in place of yours, which "
            f"{self.uses[t].differs}: your {short_name(t)} loses its points in "
            f"{f'question {owner[t]}' if t in owner else 'its own question'}, not here."
            for t in differing
        ]
        if not lines:
            lines = [
                "Graded with the reference's "
                + ", ".join(f"{short_name(t)} (question {owner.get(t, '?')})" for t in self.used())
                + " in place of yours: bugs there lose points in those questions, not here."
            ]
        return "\n".join(lines)


class CallbackFailed(Exception):
    """The student's object raised when the reference called it back."""


class _Remote:
    """One of the worker's objects, seen by the reference: its methods are called back there."""

    def __init__(self, index: int, callbacks: _Callbacks) -> None:
        self._index = index
        self._callbacks = callbacks

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("__"):
            raise AttributeError(name)
        return lambda *args, **kwargs: self._callbacks.call(self._index, name, args, kwargs)


class _Callbacks:
    """The worker's objects in one helper call (``minibatch_parse``'s model) and the way back to them.

    The reference's own objects it passes back (its ``PartialParse``s) go as their state, and
    the helper call's arguments inside them (a parse's sentence) as references to the worker's
    very objects, which the student's code may recognise by identity."""

    def __init__(self, ask: Callable[[Packed], tuple[dict, list]], modules: SimpleNamespace) -> None:
        self.ask = ask
        self.modules = modules
        self.paths: dict[int, tuple] = {}  # id of an argument (list, dict, array) -> where it is
        self.kept: list[Any] = []  # what paths and ids name stays alive for the call
        self.ids: dict[int, int] = {}

    def inward(self, value: Any, path: tuple) -> Any:
        if isinstance(value, Handle):
            return _Remote(value.index, self)
        if isinstance(value, (list, dict, np.ndarray)):
            self.paths[id(value)] = path
            self.kept.append(value)
        if isinstance(value, list):
            value[:] = [self.inward(item, path + (i,)) for i, item in enumerate(value)]
        elif isinstance(value, dict):
            value.update({key: self.inward(item, path + (key,)) for key, item in value.items()})
        elif isinstance(value, tuple):
            return tuple(self.inward(item, path + (i,)) for i, item in enumerate(value))
        return value

    def call(self, index: int, method: str, args: tuple, kwargs: dict) -> Any:
        encoder = Encoder()
        callback = Callback(
            index, method, encoder.encode(self.outward(list(args))), encoder.encode(self.outward(kwargs))
        )
        reply, arrays = self.ask(pack_parts(callback.to_json(), encoder.arrays))
        result = CallbackResult.from_json(reply)
        if result.raised:
            raise CallbackFailed(f"your code's {method} raised {result.raised}: {result.message}")
        return Decoder(arrays).decode(result.value)

    def outward(self, value: Any) -> Any:
        if id(value) in self.paths:
            return ArgRef(self.paths[id(value)])
        if isinstance(value, (list, tuple)):
            return type(value)(self.outward(item) for item in value)
        if isinstance(value, dict):
            return {key: self.outward(item) for key, item in value.items()}
        cls = type(value)
        if getattr(getattr(self.modules, cls.__module__, None), cls.__qualname__, None) is cls:
            self.kept.append(value)  # one of the reference's own objects
            number = self.ids.setdefault(id(value), len(self.ids))
            return ObjectState(number, f"{cls.__module__}.{cls.__qualname__}", self.outward(dict(vars(value))))
        return value


class RelayedSession:
    """The question's worker session, with the given helpers answered through ``helpers``."""

    def __init__(self, session: Session, helpers: HelperAnswers) -> None:
        self.session = session
        self.helpers = helpers

    def call(
        self, target: Target | str, *args: Any, return_args: bool = False, seed: int = 0, **kwargs: Any
    ) -> CallResult:
        return self.session.call(target, *args, return_args=return_args, seed=seed, helpers=self.helpers, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.session, name)


def short_name(target: str) -> str:
    """``nn_basics.softmax`` -> ``softmax``; ``optim.Adam.step`` -> ``Adam.step``."""
    return Target.parse(target).qualname


def _aliases(state: dict, args: list, kwargs: dict) -> dict[str, list]:
    """Attributes that are one of the call's arguments themselves: key -> ["args", i] or ["kwargs", name]."""
    places = [(["args", i], a) for i, a in enumerate(args)] + [(["kwargs", k], a) for k, a in kwargs.items()]
    return {
        key: place
        for key, value in state.items()
        for place, argument in places
        if value is argument and isinstance(argument, (list, dict, np.ndarray))
    }


def _holds(value: Any, kind: type, depth: int = 0) -> bool:
    """Whether ``value`` holds a ``kind`` anywhere (or is nested too deep to tell)."""
    if isinstance(value, kind) or depth > 64:
        return True
    if isinstance(value, (list, tuple)):
        return any(_holds(v, kind, depth + 1) for v in value)
    if isinstance(value, dict):
        return any(_holds(v, kind, depth + 1) for v in value.values())
    return False


def _difference(own: OwnResult | None, value: Any, new_state: dict | None) -> str | None:
    """How the student's own helper differed from the reference on the same inputs, or None when
    it agreed or cannot be told. Only what proves a bug of the helper counts: another exception may
    come from running it on an object the reference made (a student's deque buffer meeting the
    reference's lists), and values that could not travel (a deque) cannot be compared."""
    if own is not None and own.changed_inputs:
        return "changes the arrays it is given"
    if own is None or _holds([own.value, own.state], Opaque):
        return None
    if own.raised:
        return "is not implemented yet" if own.raised == "NotImplementedError" else None
    if own.state is not None:
        if new_state is None:
            return None
        keys = [k for k in new_state if k in own.state]
        return None if all(agree(own.state[k], new_state[k]) for k in keys) else "leaves other values here"
    return None if agree(own.value, value) else "gives other values here"


def pending_row(row: TestResult, unanswered: list[str], owner: dict[str, str]) -> TestResult:
    """A test the bundle's ``check`` cannot grade apart from the student's helpers: its result waits
    for them to be fixed, rather than blaming this question for their bugs."""
    names = ", ".join(f"{short_name(t)} (question {owner.get(t, '?')})" for t in unanswered)
    note = (
        f"Pending: this test calls your {names}, which loses points in its own question, with inputs "
        "this bundle has no recorded answer for, so here it cannot be graded apart from it. Fix that "
        "first, then run check again. Gradescope grades this test with the course's version in place "
        "of yours, so its points do not depend on it there."
    )
    return row.model_copy(
        update={
            "output": f"{note}\nWhat this test says meanwhile:\n{row.output}".strip(),
            "extra_data": {"pending": [short_name(t) for t in unanswered]},
        }
    )
