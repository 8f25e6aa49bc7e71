"""The calls that cross the trust boundary, as both sides read them.

The grader sends a :class:`CallRequest` for each call. The worker answers ``ok`` with the encoded
values, or with one :class:`StudentError` when the student's code produced no value: its
:class:`ErrorKind` says what happened, the rest what the student needs to see. The worker builds it
(:mod:`autograder.worker.calls`), the grader reads it back with :meth:`StudentError.from_json`,
which accepts nothing but these kinds: anything else a misbehaving worker sends reads as the
student's exception.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, fields, replace
from enum import Enum
from typing import Any


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
    """One call of the student's code (``module.function``, ``module.Class.method``) or of a probe
    (``fixtures:name``, ``probes:name``). ``args`` and ``kwargs`` are encoded by
    :class:`autograder.boundary.protocol.Encoder`; ``helpers`` names the student's functions whose
    calls the grader answers meanwhile (error carried forward)."""

    target: str
    args: list[Any]
    kwargs: dict[str, Any]
    return_args: bool = False  # send back the arguments as the call left them
    seed: int = 0  # of Python's and numpy's global random state before the call
    helpers: tuple[str, ...] = ()

    def to_json(self) -> dict:
        # Not asdict: it would copy the encoded arguments, which may be long lists.
        document = {
            "target": self.target,
            "args": self.args,
            "kwargs": self.kwargs,
            "return_args": self.return_args,
            "seed": self.seed,
        }
        return {**document, "helpers": list(self.helpers)} if self.helpers else document

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
            target,
            args,
            kwargs,
            bool(data.get("return_args")),
            int(data.get("seed", 0)),
            tuple(str(h) for h in helpers),
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
