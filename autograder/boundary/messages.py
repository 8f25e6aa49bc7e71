"""What the worker reports when the student's code produced no value, as both sides read it.

A reply that is not ``ok`` carries one :class:`StudentError`: its :class:`ErrorKind` says what
happened, the rest what the student needs to see. The worker builds it (:mod:`autograder.worker.calls`),
the grader reads it back with :meth:`StudentError.from_json`, which accepts nothing but these kinds:
anything else a misbehaving worker sends reads as the student's exception.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from enum import Enum


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
