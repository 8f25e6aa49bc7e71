"""The calls that cross the trust boundary, as both sides read them.

The grader sends a :class:`CallRequest` for each call. The worker answers ``ok`` with the encoded
values, or with one :class:`StudentError` when the student's code produced no value: its
:class:`ErrorKind` says what happened, the rest what the student needs to see. The worker builds it
(:mod:`autograder.worker.calls`), the grader reads it back with :meth:`StudentError.from_json`,
which accepts nothing but these kinds: anything else a misbehaving worker sends reads as the
student's exception.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
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
