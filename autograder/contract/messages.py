"""The messages that cross the trust boundary, as both sides read them.

The worker says it is :class:`Ready`. The grader sends a :class:`CallRequest` for each call, and the
worker answers with a :class:`CallReply`: the encoded values, or one :class:`StudentError` when the
student's code produced no value, whose :class:`ErrorKind` says what happened and the rest what the
student needs to see. The grader reads errors back with :meth:`StudentError.from_json`, which accepts
nothing but these kinds: anything else a misbehaving worker sends reads as the student's exception.

During a call with error carried forward, the worker may ask :class:`HelperCall` (with the student's
:class:`OwnResult`) and the grader answers :class:`HelperAnswer`, after any number of
:class:`Callback` -> :class:`CallbackResult` exchanges the other way. The fork server's commands are
in :mod:`autograder.contract.fork_messages`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, fields, replace
from enum import Enum
from typing import Any

from autograder.contract.target import Target


class ErrorKind(str, Enum):
    EXCEPTION = "exception"  # calling the student's code raised
    IMPORT_ERROR = "import_error"  # importing a student module raised
    MISSING_FILE = "missing_file"  # the module's file is not in the submission
    MISSING_ATTRIBUTE = "missing_attribute"  # the module has no such function or class
    BLOCKED = "blocked"  # the import check saw this module hang or end the process at import
    UNENCODABLE = "unencodable"  # the value returned cannot cross the boundary


@dataclass(frozen=True)
class StudentError:
    kind: ErrorKind
    message: str = ""
    type: str = ""  # the exception's class name
    traceback: str = ""  # the frames in the student's files
    module: str = ""
    target: str = ""
    resource: str = ""  # "disk", "descriptors" or "memory" when the exception says one ran out

    def to_json(self) -> dict:
        return {**asdict(self), "kind": self.kind.value}

    @classmethod
    def from_json(cls, payload: object) -> StudentError:
        data = payload if isinstance(payload, dict) else {}
        try:
            kind = ErrorKind(data.get("kind"))
        except ValueError:
            kind = ErrorKind.EXCEPTION
        text = {f.name: str(data.get(f.name, "")) for f in fields(cls) if f.name != "kind"}
        return cls(kind, **text)


@dataclass(frozen=True)
class CallRequest:
    """One call of the student's code or of a probe (:class:`~autograder.contract.target.Target`).
    ``args`` and ``kwargs`` are encoded by :class:`autograder.contract.protocol.Encoder`; ``helpers``
    names the student's functions whose calls the grader answers meanwhile (error carried forward),
    and ``compare`` whether the worker also runs the student's own helper on the same inputs, to tell
    how it differs (not once the student's code has hung, killed or garbled the worker: the helper
    may be what did it)."""

    target: Target
    args: list[Any]
    kwargs: dict[str, Any]
    return_args: bool = False  # send back the arguments as the call left them
    seed: int = 0  # of Python's and numpy's global random state before the call
    helpers: tuple[Target, ...] = ()
    compare: bool = True

    def to_json(self) -> dict:
        # Not asdict: it would copy the encoded arguments, which may be long lists.
        document = {
            "target": str(self.target),
            "args": self.args,
            "kwargs": self.kwargs,
            "return_args": self.return_args,
            "seed": self.seed,
        }
        if self.helpers:
            document = {**document, "helpers": [str(h) for h in self.helpers], "compare": self.compare}
        return document

    @classmethod
    def from_json(cls, data: dict) -> CallRequest:
        target, args, kwargs = data.get("target"), data.get("args", []), data.get("kwargs", {})
        helpers = data.get("helpers") or []
        if not (
            isinstance(target, str)
            and isinstance(args, list)
            and isinstance(kwargs, dict)
            and isinstance(helpers, list)
        ):
            raise ValueError("a call request needs a target, a list of args and a dict of kwargs")
        return cls(
            Target.parse(target),
            args,
            kwargs,
            bool(data.get("return_args")),
            int(data.get("seed", 0)),
            tuple(Target.parse(str(h)) for h in helpers),
            data.get("compare", True) is not False,
        )


@dataclass(frozen=True)
class Ready:
    """The worker's first message: it has started, and which Python it runs."""

    python: str

    def to_json(self) -> dict:
        return {"ready": True, "python": self.python}

    @classmethod
    def from_json(cls, data: dict) -> Ready:
        if data.get("ready") is not True:
            raise ValueError("the worker did not say it was ready")
        return cls(str(data.get("python", "")))


@dataclass(frozen=True)
class CallReply:
    """The answer to a :class:`CallRequest`: the value returned, the reports of the fixtures the call
    was given and, when the request asked, the arguments as the call left them; or the error. The
    values are the objects themselves on the worker's side and encoded on the wire (:meth:`encoded`,
    :meth:`decoded`); a reply read from the wire lacks what the worker did not send (None)."""

    value: Any = None
    fixtures: Any = None
    args_after: Any = None
    returned_args: bool = False
    error: StudentError | None = None

    def to_json(self) -> dict:
        if self.error is not None:
            return {"ok": False, "error": self.error.to_json()}
        document = {"ok": True, "value": self.value, "fixtures": self.fixtures}
        return {**document, "args_after": self.args_after} if self.returned_args else document

    @classmethod
    def from_json(cls, data: dict) -> CallReply:
        if not data.get("ok"):
            return cls(error=StudentError.from_json(data.get("error")))
        return cls(data.get("value"), data.get("fixtures"), data.get("args_after"), "args_after" in data)

    def encoded(self, encode: Callable[[Any], Any]) -> CallReply:
        return self._each(encode)

    def decoded(self, decode: Callable[[Any], Any]) -> CallReply:
        return self._each(decode)

    def _each(self, convert: Callable[[Any], Any]) -> CallReply:
        if self.error is not None:
            return self
        after = convert(self.args_after) if self.returned_args else None
        fixtures = convert(self.fixtures) if self.fixtures is not None else None
        return replace(self, value=convert(self.value), fixtures=fixtures, args_after=after)


# Error carried forward (autograder.grading.carried_forward): during a call, the worker's stand-in
# for a student's helper asks the grader for the reference's answer (HelperCall -> HelperAnswer);
# while answering, the grader may call a method of one of the worker's objects back (Callback ->
# CallbackResult). Their values are encoded by autograder.contract.protocol.Encoder.


@dataclass(frozen=True)
class OwnResult:
    """What the student's own helper gave on copies of a helper call's inputs, sent along so the
    grader can say which helper differs: its value, for a method that returns nothing the object's
    new state, or the name of the exception it raised. Its values are the objects themselves."""

    value: Any = None
    state: dict | None = None
    raised: str = ""
    changed_inputs: bool = False  # it changed an array or list it was given (a function, not a method)

    def to_json(self) -> dict:
        if self.raised:
            return {"raised": self.raised}
        document = {"state": self.state} if self.state is not None else {"value": self.value}
        return {**document, "changed_inputs": True} if self.changed_inputs else document

    @classmethod
    def from_json(cls, data: object) -> OwnResult | None:
        """None for anything but one of the three forms (it then proves nothing)."""
        if not isinstance(data, dict):
            return None
        changed = data.get("changed_inputs") is True
        if "raised" in data:
            return cls(raised=str(data["raised"]))
        if "state" in data:
            return cls(state=data["state"], changed_inputs=changed) if isinstance(data["state"], dict) else None
        return cls(value=data["value"], changed_inputs=changed) if "value" in data else None


@dataclass(frozen=True)
class HelperCall:
    """The worker's stand-in for ``helper`` asks the grader to answer one call of it. A method
    travels with its object: ``owner`` names it for the call's duration, ``state`` is its attributes.
    ``own`` is the encoded :class:`OwnResult`, on the calls the worker compares."""

    helper: Target
    args: Any
    kwargs: Any
    owner: str | None = None
    state: Any = None
    own: Any = None

    def to_json(self) -> dict:
        document: dict[str, Any] = {"helper": str(self.helper), "args": self.args, "kwargs": self.kwargs}
        if self.owner is not None:
            document.update(owner=self.owner, state=self.state)
        return {**document, "own": self.own} if self.own is not None else document

    @staticmethod
    def carried_by(document: dict) -> bool:
        """Whether a message read from the worker during a call is a helper call, not its reply."""
        return "helper" in document

    @classmethod
    def from_json(cls, data: dict) -> HelperCall:
        helper, owner = data.get("helper"), data.get("owner")
        if not isinstance(helper, str) or owner is not None and not isinstance(owner, str):
            raise ValueError("a helper call needs the helper's name, and an owner's name as text")
        return cls(
            Target.parse(helper),
            data.get("args", []),
            data.get("kwargs", {}),
            owner,
            data.get("state"),
            data.get("own"),
        )


@dataclass(frozen=True)
class HelperAnswer:
    """The grader's answer to a :class:`HelperCall`: the reference's value, the random generators
    among the arguments as the reference left them and, for a method, the object's new ``state``
    and its ``aliases`` (attribute -> the place among the call's arguments of the very object it
    holds). Or ``unavailable`` (the student's own helper runs instead), or the ``failure`` of the
    reference on these inputs."""

    value: Any = None
    generators: Any = None
    state: Any = None
    aliases: dict[str, list] | None = None
    unavailable: bool = False
    failure: str = ""

    def to_json(self) -> dict:
        if self.unavailable:
            return {"unavailable": True}
        if self.failure:
            return {"ok": False, "message": self.failure}
        document = {"ok": True, "value": self.value, "generators": self.generators}
        return {**document, "aliases": self.aliases or {}, "state": self.state} if self.state is not None else document

    @classmethod
    def from_json(cls, data: dict) -> HelperAnswer:
        if data.get("unavailable"):
            return cls(unavailable=True)
        if not data.get("ok"):
            return cls(failure=str(data.get("message") or "the grader could not answer"))
        aliases = data.get("aliases")
        return cls(
            data.get("value"),
            data.get("generators", []),
            data.get("state"),
            {str(k): list(v) for k, v in aliases.items()} if isinstance(aliases, dict) else None,
        )


@dataclass(frozen=True)
class Callback:
    """The grader, answering a helper call, calls ``method`` of the worker's object number ``handle``
    among that call's arguments (an object that cannot travel, such as the student's model)."""

    handle: int
    method: str
    args: Any
    kwargs: Any

    def to_json(self) -> dict:
        return {"callback": self.handle, "method": self.method, "args": self.args, "kwargs": self.kwargs}

    @staticmethod
    def carried_by(document: dict) -> bool:
        """Whether the grader's message during a helper call is a callback, not the answer."""
        return "callback" in document

    @classmethod
    def from_json(cls, data: dict) -> Callback:
        return cls(int(data["callback"]), str(data.get("method")), data.get("args", []), data.get("kwargs", {}))


@dataclass(frozen=True)
class CallbackResult:
    """What the student's method returned to a :class:`Callback` (encoded), or the exception it raised."""

    value: Any = None
    raised: str = ""
    message: str = ""

    def to_json(self) -> dict:
        return {"raised": self.raised, "message": self.message} if self.raised else {"value": self.value}

    @classmethod
    def from_json(cls, data: dict) -> CallbackResult:
        if "raised" in data:
            return cls(raised=str(data["raised"]), message=str(data.get("message", "")))
        return cls(data.get("value"))
