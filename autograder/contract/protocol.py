"""Wire format between the trusted grader and the untrusted worker.

A message is a JSON document plus a list of numpy arrays, framed as::

    b"AGW2" | u64 json length | json bytes | u32 array count
            | (u32 header length | header json | u64 data length | data bytes)*

where an array's header is ``{"dtype": "<f8", "shape": [2, 3]}`` and its data the raw bytes of the
array in C order. Nothing is ever pickled: a reader accepts only plain numeric and string dtypes and
data of exactly the size the header declares, and every other value is plain JSON with a few tagged
objects (tuples, dicts, non-finite floats, fixtures, random generators as their state). (Raw bytes
rather than ``.npy``: parsing an
``.npy`` header costs numpy a Python ``literal_eval``, most of the time of a small call.) This module
is imported by both sides, so it must stay free of grader-only imports.
"""

from __future__ import annotations

import io
import json
import math
import os
import select
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from autograder.contract.target import Target

MAGIC = b"AGW2"
_U64 = struct.Struct(">Q")
_U32 = struct.Struct(">I")

# dtype kinds that travel as raw bytes and mean something numerically (bool, signed, unsigned,
# float, complex), plus unicode strings for token lists.
_ARRAY_KINDS = frozenset("biufcU")
_MAX_DIMENSIONS = 64  # numpy's own limit
_REPR_LIMIT = 200
# Deepest value nesting a reader accepts; the Encoder turns anything deeper than 64 into Opaque,
# and a hostile sender must not be able to exhaust the reader's stack.
_MAX_DECODE_DEPTH = 100
# The bit generators a np.random.Generator may be built on when it travels (numpy's own).
_IOV_MAX = 1024  # buffers one writev may take on Linux (IOV_MAX)
_GENERATORS = frozenset({"PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64"})


def _travels(dtype: np.dtype) -> bool:
    """Whether arrays of ``dtype`` go over the wire: plain numbers and strings only, no objects
    (pickle), records or sub-arrays."""
    return dtype.kind in _ARRAY_KINDS and not dtype.hasobject and dtype.fields is None and dtype.subdtype is None


class ProtocolError(Exception):
    """The other side sent something that is not a well-formed message."""


class MessageTooLarge(ProtocolError):
    """A message exceeds the size cap; the sender is misbehaving or returned a huge value."""


class DocumentTooLarge(MessageTooLarge):
    """A message's JSON document (every value but its arrays) exceeds its own, smaller cap: decoding
    it would cost the reader an object per number, so it is refused before it is read."""

    def __init__(self, size: int, cap: int) -> None:
        super().__init__(f"JSON document of {size} bytes, over the cap of {cap} bytes")
        self.size = size
        self.cap = cap


class PeerClosed(ProtocolError):
    """The other end of the pipe is gone (the worker exited or was killed)."""


class ReadTimeout(ProtocolError):
    """No complete message arrived before the deadline."""


class WriteTimeout(ReadTimeout):
    """A message could not be delivered whole before the deadline: the reader stopped reading (it
    was stopped, sleeps, or never reads). A timeout like an answer that did not come, and handled
    alike."""


@dataclass(frozen=True)
class Opaque:
    """A value the worker could not encode (an arbitrary object); only its type and repr travel."""

    type_name: str
    text: str

    def __str__(self) -> str:
        return f"<{self.type_name}: {self.text}>"


class _Kept:
    """Stands for "the value we last agreed on at this place" in error carried forward's object
    states, so that an unchanged array need not travel again (:class:`autograder.contract.state_sync.StateSync`)."""

    def __repr__(self) -> str:
        return "KEPT"


KEPT = _Kept()


@dataclass(frozen=True)
class Handle:
    """An object of the worker's that cannot travel (a model passed to a helper): the grader may
    call its methods back through the worker (:mod:`autograder.grading.carried_forward`)."""

    index: int


@dataclass(frozen=True)
class ArgRef:
    """The worker's own argument at ``path`` of the current helper call, as the very object."""

    path: tuple


@dataclass(frozen=True)
class ObjectState:
    """An object of the grader's (a reference ``PartialParse``) shown to a worker callback as an
    instance of the student's class ``cls`` with the attributes ``state``; ``id`` keeps it the
    same object from one callback to the next."""

    id: int
    cls: str
    state: dict


@dataclass(frozen=True)
class FixtureRef:
    """Asks the worker to build ``name(*args, **kwargs)`` from the assignment's public fixtures."""

    name: str
    args: tuple = ()
    kwargs: dict | None = None
    id: str | None = None


@dataclass(frozen=True)
class StudentRef:
    """Asks the worker to pass the student's own ``module.attribute`` (for example a loss function)."""

    target: str


# ----------------------------------------------------------------------------------------------
# values <-> JSON + arrays


def _short_repr(value: Any) -> str:
    try:
        text = repr(value)
    except Exception as exc:  # a hostile __repr__ must not break encoding
        text = f"<repr failed: {type(exc).__name__}>"
    return text if len(text) <= _REPR_LIMIT else text[: _REPR_LIMIT - 3] + "..."


def _encode_float(x: float) -> Any:
    if math.isfinite(x):
        return x
    return {"$float": "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")}


class Encoder:
    """Turns a value into JSON-able data, collecting arrays on the side."""

    def __init__(self) -> None:
        self.arrays: list[np.ndarray] = []
        self.described: list[str] = []  # what could only travel as a description (Opaque), as "a TYPE: TEXT"

    def _opaque(self, type_name: str, text: str) -> dict:
        self.described.append(f"a {type_name}: {text}")
        return {"$opaque": {"type": type_name, "text": text}}

    def encode(self, value: Any, depth: int = 0) -> Any:
        if depth > 64:
            return self._opaque("nesting", "nested more than 64 levels")
        if value is None or isinstance(value, (bool, str)):
            return value
        if isinstance(value, np.ndarray):
            return self._encode_array(value)
        if isinstance(value, np.generic):
            return self._encode_numpy_scalar(value)
        if isinstance(value, int):
            return int(value)
        if isinstance(value, float):
            return _encode_float(float(value))
        if isinstance(value, tuple):
            return {"$tuple": [self.encode(v, depth + 1) for v in value]}
        if isinstance(value, list):
            return [self.encode(v, depth + 1) for v in value]
        if isinstance(value, dict) and all(isinstance(k, str) for k in value):
            return {"$dict": {k: self.encode(v, depth + 1) for k, v in value.items()}}
        if isinstance(value, FixtureRef):
            return {
                "$fixture": {
                    "name": value.name,
                    "args": self.encode(list(value.args), depth + 1),
                    "kwargs": self.encode(dict(value.kwargs or {}), depth + 1),
                    "id": value.id,
                }
            }
        if isinstance(value, StudentRef):
            return {"$student": value.target}
        if value is KEPT:
            return {"$kept": 1}
        if isinstance(value, Handle):
            return {"$handle": int(value.index)}
        if isinstance(value, ArgRef):
            return {"$argref": [self.encode(p, depth + 1) for p in value.path]}
        if isinstance(value, ObjectState):
            return {
                "$object": {"id": int(value.id), "cls": str(value.cls), "state": self.encode(value.state, depth + 1)}
            }
        if isinstance(value, np.random.Generator):
            state = value.bit_generator.state
            if state.get("bit_generator") in _GENERATORS:
                return {"$rng": self.encode(state, depth + 1)}
        return self._opaque(type(value).__qualname__, _short_repr(value))

    def _encode_array(self, value: np.ndarray) -> Any:
        base = np.asarray(value)  # a subclass (np.matrix, masked array) travels as its plain data
        if not _travels(base.dtype):
            return self._opaque(f"ndarray[{base.dtype}]", f"array of dtype {base.dtype}, shape {base.shape}")
        tag: dict[str, Any] = {"$array": len(self.arrays)}
        if type(value) is not np.ndarray:
            tag["subclass"] = type(value).__qualname__
        # ascontiguousarray returns at least 1-d: reshape, or a 0-d array would arrive as shape (1,)
        self.arrays.append(np.ascontiguousarray(base).reshape(base.shape))
        return tag

    def _encode_numpy_scalar(self, value: np.generic) -> Any:
        if isinstance(value, np.bool_):
            return bool(value)
        if isinstance(value, np.integer):
            return int(value)
        if isinstance(value, np.floating):
            return _encode_float(float(value))
        return self._encode_array(np.asarray(value))


class Decoder:
    """The inverse of :class:`Encoder`; fixtures and student references are resolved by callbacks."""

    def __init__(
        self,
        arrays: list[np.ndarray],
        fixture: Callable[[str, list, dict, str | None], Any] | None = None,
        student: Callable[[Target], Any] | None = None,
    ) -> None:
        self.arrays = arrays
        self.fixture = fixture
        self.student = student

    def decode(self, data: Any, depth: int = 0) -> Any:
        # The grader decodes what an untrusted worker sent: every malformed shape must end as a
        # ProtocolError, never as a KeyError/TypeError/RecursionError blamed on the grader.
        if depth > _MAX_DECODE_DEPTH:
            raise ProtocolError("value nested too deeply")
        if isinstance(data, list):
            return [self.decode(v, depth + 1) for v in data]
        if not isinstance(data, dict):
            return data
        if "$array" in data and len(data) in (1, 2):
            index = data["$array"]
            if not isinstance(index, int) or not 0 <= index < len(self.arrays):
                raise ProtocolError("array reference out of range")
            return self.arrays[index]
        if len(data) != 1:
            raise ProtocolError("malformed tagged value")
        ((tag, body),) = data.items()
        if tag == "$tuple" and isinstance(body, list):
            return tuple(self.decode(v, depth + 1) for v in body)
        if tag == "$dict" and isinstance(body, dict):
            return {str(k): self.decode(v, depth + 1) for k, v in body.items()}
        if tag == "$float" and body in ("nan", "inf", "-inf"):
            return float(body)
        if tag == "$opaque" and isinstance(body, dict):
            return Opaque(str(body.get("type", "?")), str(body.get("text", ""))[:_REPR_LIMIT])
        if tag == "$fixture" and self.fixture is not None:
            return self.fixture(
                body["name"],
                self.decode(body["args"], depth + 1),
                self.decode(body["kwargs"], depth + 1),
                body.get("id"),
            )
        if tag == "$student" and self.student is not None and isinstance(body, str):
            try:
                target = Target.parse(body)
            except ValueError as exc:
                raise ProtocolError(str(exc)) from None
            return self.student(target)
        if tag == "$kept":
            return KEPT
        if tag == "$handle" and type(body) is int:
            return Handle(body)
        if tag == "$argref" and isinstance(body, list) and all(type(p) in (int, str) for p in body):
            return ArgRef(tuple(body))
        if (
            tag == "$object"
            and isinstance(body, dict)
            and type(body.get("id")) is int
            and isinstance(body.get("cls"), str)
        ):
            state = self.decode(body.get("state"), depth + 1)
            if not isinstance(state, dict):
                raise ProtocolError("an object's state is not a dict")
            return ObjectState(body["id"], body["cls"], state)
        if tag == "$rng":
            return _generator(self.decode(body, depth + 1))
        raise ProtocolError(f"unexpected tag {tag!r}")


def _generator(state: Any) -> np.random.Generator:
    """A generator in exactly ``state``: a ``np.random.Generator`` travels as its bit generator's
    state, so that both sides of the wire draw the same numbers from it (error carried forward
    sends a student's generator to the reference's dropout and its new state back)."""
    name = state.get("bit_generator") if isinstance(state, dict) else None
    if name not in _GENERATORS:
        raise ProtocolError(f"unknown bit generator {name!r}")
    bit_generator = getattr(np.random, name)()
    try:
        bit_generator.state = state
    except (TypeError, ValueError, KeyError, OverflowError) as exc:
        raise ProtocolError(f"invalid {name} state ({type(exc).__name__})") from None
    return np.random.Generator(bit_generator)


def round_trip(value: Any) -> Any:
    """``value`` as the other side of the wire would see it (tuples, floats, fresh arrays)."""
    encoder = Encoder()
    document = encoder.encode(value)
    return Decoder([a.copy() for a in encoder.arrays]).decode(document)


# ----------------------------------------------------------------------------------------------
# framing


def pack_parts(document: dict, arrays: list[np.ndarray]) -> list[bytes | memoryview]:
    """A message as the buffers to write one after the other: the arrays' own memory, not copies."""
    body = json.dumps(document, allow_nan=False, separators=(",", ":")).encode()
    parts: list[bytes | memoryview] = [MAGIC, _U64.pack(len(body)), body, _U32.pack(len(arrays))]
    for array in arrays:
        if not _travels(array.dtype):
            raise ValueError(f"arrays of dtype {array.dtype} do not travel (the Encoder makes them Opaque)")
        header = json.dumps({"dtype": array.dtype.str, "shape": list(array.shape)}).encode()
        data = _bytes_of(np.ascontiguousarray(array))
        parts += [_U32.pack(len(header)), header, _U64.pack(len(data)), data]
    return parts


def pack(document: dict, arrays: list[np.ndarray]) -> bytes:
    return b"".join(pack_parts(document, arrays))


def _bytes_of(array: np.ndarray) -> memoryview:
    """The raw bytes of a C-contiguous array, without copying them."""
    return array.reshape(-1).view(np.uint8).data


Packed = bytes | list[bytes | memoryview]  # a message: bytes, or the buffers of pack_parts


if hasattr(os, "writev"):

    def _write_some(fd: int, parts: list[memoryview]) -> int:
        return os.writev(fd, parts[:_IOV_MAX])
else:  # Windows: one buffer per system call

    def _write_some(fd: int, parts: list[memoryview]) -> int:
        return os.write(fd, parts[0])


if hasattr(os, "readv"):

    def _read_into(fd: int, target: memoryview) -> int:
        return os.readv(fd, [target])
else:  # Windows: into the array's memory all the same, through a file object that leaves fd open

    def _read_into(fd: int, target: memoryview) -> int:
        with io.FileIO(fd, "rb", closefd=False) as stream:
            return stream.readinto(target) or 0


def write_all(fd: int, data: Packed, deadline: float | None = None) -> None:
    """Writes ``data`` (bytes, or the buffers of :func:`pack_parts`, gathered by ``writev`` where
    there is one) whole. With a ``deadline``, ``fd`` must be non-blocking (``os.set_blocking``):
    a reader that stops reading then raises :class:`WriteTimeout` at the deadline, where a blocking
    write would wait for it for ever."""
    parts = [memoryview(p) for p in ([data] if isinstance(data, (bytes, bytearray, memoryview)) else data)]
    parts = [p for p in parts if p.nbytes]
    while parts:
        if deadline is not None:
            _wait_writable(fd, deadline)
        try:
            written = _write_some(fd, parts)
        except BlockingIOError:  # the pipe had room for less than a whole atomic write
            continue
        while written:
            if written >= parts[0].nbytes:
                written -= parts.pop(0).nbytes
            else:
                parts[0], written = parts[0][written:], 0


def _wait_writable(fd: int, deadline: float) -> None:
    remaining = deadline - time.monotonic()
    if remaining <= 0 or not select.select([], [fd], [], remaining)[1]:
        raise WriteTimeout("the other side did not read the message before the deadline")


def _array_dtype(header: bytes) -> tuple[np.dtype, tuple[int, ...]]:
    """The dtype and shape an array's header declares, if they are ones an array may have here."""
    try:
        declared = json.loads(header)
    except (ValueError, RecursionError):
        raise ProtocolError("array header is not valid JSON") from None
    if not (
        isinstance(declared, dict)
        and set(declared) == {"dtype", "shape"}
        and isinstance(declared["dtype"], str)
        and len(declared["dtype"]) <= 16
        and isinstance(declared["shape"], list)
        and len(declared["shape"]) <= _MAX_DIMENSIONS
        and all(type(n) is int and n >= 0 for n in declared["shape"])
    ):
        raise ProtocolError("array header is not {dtype, shape}")
    try:
        dtype = np.dtype(declared["dtype"])
    except (TypeError, ValueError):
        raise ProtocolError(f"array dtype {declared['dtype']!r} is not a dtype") from None
    if not _travels(dtype) or dtype.str != declared["dtype"]:  # and in canonical spelling
        raise ProtocolError(f"array dtype {declared['dtype']!r} is not allowed")
    return dtype, tuple(declared["shape"])


class FrameReader:
    """Reads framed messages from a file descriptor with a size cap and an optional deadline. The
    JSON document may have a smaller cap of its own (``max_document_bytes``): a reader decodes it
    into an object per value, while arrays cost it only their bytes.

    It reads whatever the pipe holds, up to 64 KB at a time, and keeps what is beyond the field
    it needs for the next: a small message then costs one system call, not one per field.
    """

    def __init__(self, fd: int, max_bytes: int, max_document_bytes: int | None = None) -> None:
        self.fd = fd
        self.max_bytes = max_bytes
        self.max_document_bytes = min(max_bytes, max_document_bytes or max_bytes)
        self._buffer = bytearray()

    def read(self, deadline: float | None = None) -> tuple[dict, list[np.ndarray]]:
        budget = [self.max_bytes]
        if self._exact(4, deadline, budget) != MAGIC:
            raise ProtocolError("message does not start with the protocol marker")
        (length,) = _U64.unpack(self._exact(_U64.size, deadline, budget))
        if length > self.max_document_bytes:  # refused as declared: not read, let alone decoded
            raise DocumentTooLarge(length, self.max_document_bytes)
        body = self._exact(length, deadline, budget)
        try:
            document = json.loads(body)
        except (ValueError, RecursionError) as exc:  # absurdly deep nesting raises RecursionError
            raise ProtocolError(f"message is not valid JSON: {type(exc).__name__}") from None
        if not isinstance(document, dict):
            raise ProtocolError("message is not a JSON object")
        count = self._length(_U32, deadline, budget)
        arrays = []
        for _ in range(count):
            dtype, shape = _array_dtype(self._exact(self._length(_U32, deadline, budget), deadline, budget))
            arrays.append(self._array(dtype, shape, self._length(_U64, deadline, budget), deadline, budget))
        return document, arrays

    def _array(
        self, dtype: np.dtype, shape: tuple[int, ...], size: int, deadline: float | None, budget: list[int]
    ) -> np.ndarray:
        """A new, writable array of exactly as many bytes as ``dtype`` and ``shape`` need, read
        straight into its memory: a large array then costs no copies on this side."""
        if math.prod(shape) * dtype.itemsize != size:
            raise ProtocolError(
                f"array of shape {shape} and dtype {dtype.str} needs "
                f"{math.prod(shape) * dtype.itemsize} bytes, {size} were sent"
            )
        # An empty array may not declare more places than a full one could fill: a shape such as
        # (2**40, 0) needs no bytes, but its rows would cost the reader (tolist, iteration) as
        # much as that many real ones.
        if math.prod(max(n, 1) for n in shape) * max(dtype.itemsize, 1) > self.max_bytes:
            raise ProtocolError(
                f"array of shape {shape} is larger than the cap of {self.max_bytes} bytes allows, even empty"
            )
        budget[0] -= size
        if budget[0] < 0:
            raise MessageTooLarge(f"message larger than the cap of {self.max_bytes} bytes")
        try:
            array = np.empty(shape, dtype)  # the check above keeps it within numpy's own limits
        except MemoryError:
            raise ProtocolError(f"no memory for an array of shape {shape} and dtype {dtype.str}") from None
        if not size:  # numpy refuses an empty buffer for a dtype of size zero (np.str_ of length 0)
            return array
        target = _bytes_of(array)
        done = min(len(self._buffer), size)
        target[:done] = self._buffer[:done]
        del self._buffer[:done]
        while done < size:
            self._wait(deadline)
            got = _read_into(self.fd, target[done:])
            if not got:
                raise PeerClosed("the other side closed the channel")
            done += got
        return array

    def _wait(self, deadline: float | None) -> None:
        # Only the Linux worker's grader reads with a deadline: select() takes no pipe on Windows,
        # where the portable path reads without one, in a thread of its own (autograder.boundary.portable_session).
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self.fd], [], [], remaining)[0]:
                raise ReadTimeout("no answer before the deadline")

    def _length(self, fmt: struct.Struct, deadline: float | None, budget: list[int]) -> int:
        (value,) = fmt.unpack(self._exact(fmt.size, deadline, budget))
        if value > budget[0]:
            raise MessageTooLarge(f"message larger than the cap of {self.max_bytes} bytes")
        return value

    def _exact(self, n: int, deadline: float | None, budget: list[int]) -> bytes:
        budget[0] -= n
        if budget[0] < 0:
            raise MessageTooLarge(f"message larger than the cap of {self.max_bytes} bytes")
        while len(self._buffer) < n:
            self._wait(deadline)
            chunk = os.read(self.fd, min(max(n - len(self._buffer), 1 << 16), 1 << 20))
            if not chunk:
                raise PeerClosed("the other side closed the channel")
            self._buffer += chunk
        with memoryview(self._buffer) as view:  # one copy of the field, not a slice and then its copy
            data = bytes(view[:n])
        del self._buffer[:n]
        return data
