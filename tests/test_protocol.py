"""The grader <-> worker wire format: JSON plus raw arrays, never pickle, every bad frame rejected."""

from __future__ import annotations

import io
import json
import math
import os
import pickle
import time

import numpy as np
import pytest

from autograder.contract.protocol import (MAGIC, Decoder, DocumentTooLarge, Encoder, FixtureRef, FrameReader,
                                 MessageTooLarge, Opaque, PeerClosed, ProtocolError, ReadTimeout,
                                 StudentRef, pack, write_all)

pytestmark = pytest.mark.smoke  # also run on Python 3.10 and the newest Python (.ci/run)

CAP = 1 << 26


def _read_bytes(data: bytes, tmp_path, cap: int = CAP,
                document_cap: int | None = None) -> tuple[dict, list[np.ndarray]]:
    """Read one message from ``data`` through a real file descriptor."""
    path = tmp_path / "frame.bin"
    path.write_bytes(data)
    fd = os.open(path, os.O_RDONLY)
    try:
        return FrameReader(fd, cap, document_cap).read(deadline=time.monotonic() + 5)
    finally:
        os.close(fd)


def encode_message(document: dict, payload=None) -> bytes:
    """A message as the grader and the worker write one: ``document`` with ``payload`` under "value"."""
    encoder = Encoder()
    return pack({**document, "value": encoder.encode(payload)}, encoder.arrays)


def roundtrip(value, tmp_path):
    document, arrays = _read_bytes(encode_message({"ok": True}, value), tmp_path)
    assert document["ok"] is True
    return Decoder(arrays).decode(document["value"])


def frame(document: dict, arrays: list[tuple[bytes | dict, bytes]]) -> bytes:
    """A hand-built frame, to splice in arrays the real encoder would never write: (header, data)
    pairs, a header given as a dict (made JSON here) or as raw bytes."""
    body = json.dumps(document).encode()
    parts = [MAGIC, len(body).to_bytes(8, "big"), body, len(arrays).to_bytes(4, "big")]
    for header, data in arrays:
        header = json.dumps(header).encode() if isinstance(header, dict) else header
        parts += [len(header).to_bytes(4, "big"), header, len(data).to_bytes(8, "big"), data]
    return b"".join(parts)


def closed_pipe_with(data: bytes) -> int:
    read_fd, write_fd = os.pipe()
    write_all(write_fd, data)
    os.close(write_fd)
    return read_fd


# ----------------------------------------------------------------------------------------------
# round trips


def test_nested_containers_keep_their_types(tmp_path):
    value = {"a": (1, [2.5, (3, "x")], ()), "b": [], "c": {"d": None, "e": True, "f": False},
             "g": [(1, 2), [3, (4,)]], "é unicode ключ": "naïve ✓"}
    back = roundtrip(value, tmp_path)
    assert back == value
    assert isinstance(back["a"], tuple) and isinstance(back["a"][1], list)
    assert isinstance(back["a"][1][1], tuple) and back["a"][2] == ()
    assert back["c"]["e"] is True and back["c"]["d"] is None  # bools do not turn into ints
    assert type(back["g"][1][1]) is tuple


def test_ints_and_floats_including_non_finite(tmp_path):
    value = [0, -7, 2**62, 10**30, 1.5, -0.0, 1e-310, 1e308, math.inf, -math.inf, math.nan]
    back = roundtrip(value, tmp_path)
    assert back[:8] == value[:8] and all(type(a) is type(b) for a, b in zip(back[:8], value[:8]))
    assert math.copysign(1.0, back[5]) == -1.0
    assert back[8] == math.inf and back[9] == -math.inf and math.isnan(back[10])


def test_message_is_strict_json_without_nan_literals():
    data = encode_message({}, {"x": math.nan, "y": [math.inf, np.float32("-inf")]})
    length = int.from_bytes(data[4:12], "big")

    def refuse(constant):
        raise AssertionError(f"non-standard JSON constant {constant}")

    json.loads(data[12:12 + length], parse_constant=refuse)


@pytest.mark.parametrize("array", [
    np.array([True, False, True]),
    np.arange(-5, 5, dtype=np.int8),
    np.arange(12, dtype=np.int64).reshape(3, 4),
    np.array([0, 65535], dtype=np.uint16),
    np.linspace(0, 1, 7, dtype=np.float16),
    np.random.default_rng(0).normal(size=(2, 3, 4)).astype(np.float32),
    np.random.default_rng(1).normal(size=(5, 3)),
    np.array([1 + 2j, -3.5j], dtype=np.complex128),
    np.array(["the", "quick", "brown", "ünïcödé"]),
    np.asfortranarray(np.arange(6.0).reshape(2, 3)),
    np.arange(20.0)[::3],  # not contiguous
    np.zeros((0, 3)),
    np.array(4.25),  # 0-d
    np.array([np.nan, np.inf, -np.inf]),
], ids=lambda a: f"{a.dtype}{a.shape}")
def test_numeric_and_unicode_arrays_round_trip(array, tmp_path):
    back = roundtrip({"arr": array, "pair": (array, 1)}, tmp_path)
    for got in (back["arr"], back["pair"][0]):
        assert type(got) is np.ndarray
        assert got.dtype == array.dtype and got.shape == array.shape
        np.testing.assert_array_equal(got, array)


def test_numpy_scalars_become_python_values(tmp_path):
    back = roundtrip([np.float32(1.5), np.float64(-2.25), np.int64(7), np.uint8(255), np.bool_(True),
                      np.float64("nan"), np.str_("word"), np.complex128(1 + 2j)], tmp_path)
    assert back[:5] == [1.5, -2.25, 7, 255, True]
    assert [type(v) for v in back[:5]] == [float, float, int, int, bool]
    assert math.isnan(back[5]) and back[6] == "word"
    assert isinstance(back[7], np.ndarray) and back[7].shape == () and back[7] == 1 + 2j


def test_several_messages_on_one_stream_are_read_in_order():
    read_fd, write_fd = os.pipe()
    try:
        write_all(write_fd, encode_message({"n": 1}, np.arange(3)) + encode_message({"n": 2}, "two"))
        reader = FrameReader(read_fd, CAP)
        first, arrays = reader.read(time.monotonic() + 5)
        np.testing.assert_array_equal(Decoder(arrays).decode(first["value"]), np.arange(3))
        second, arrays = reader.read(time.monotonic() + 5)
        assert second["n"] == 2 and arrays == [] and Decoder(arrays).decode(second["value"]) == "two"
    finally:
        os.close(read_fd)
        os.close(write_fd)


def test_fixture_and_student_references_are_resolved_by_callbacks(tmp_path):
    value = [FixtureRef("dataset", (3, np.arange(2)), {"seed": 4}, id="ds"), StudentRef("mod.loss")]
    document, arrays = _read_bytes(encode_message({}, value), tmp_path)
    built = []
    decoder = Decoder(arrays, fixture=lambda *a: built.append(a) or "FIXTURE",
                      student=lambda target: f"STUDENT {target}")
    assert decoder.decode(document["value"]) == ["FIXTURE", "STUDENT mod.loss"]
    ((name, args, kwargs, ident),) = built
    assert (name, args[0], kwargs, ident) == ("dataset", 3, {"seed": 4}, "ds")
    np.testing.assert_array_equal(args[1], np.arange(2))
    # without callbacks (the grader reading a reply) such tags are refused
    with pytest.raises(ProtocolError):
        Decoder(arrays).decode(document["value"])


# ----------------------------------------------------------------------------------------------
# what cannot be sent


class _Thing:
    def __repr__(self) -> str:
        return "Thing(7)"


class _HostileRepr:
    def __repr__(self) -> str:
        raise RuntimeError("repr exploded")


class _HugeRepr:
    def __repr__(self) -> str:
        return "y" * 100_000


_UNPICKLED: list[str] = []


def _record_unpickling(tag: str) -> str:
    _UNPICKLED.append(tag)
    return tag


class _Marker:
    """Unpickling this runs code; the test proves it never happens."""

    def __reduce__(self):
        return (_record_unpickling, ("unpickled!",))


def test_object_arrays_and_arbitrary_objects_become_opaque_without_pickle(tmp_path, monkeypatch):
    def no_pickle(*args, **kwargs):
        raise AssertionError("pickle used")

    monkeypatch.setattr(pickle, "dumps", no_pickle)
    monkeypatch.setattr(pickle, "dump", no_pickle)
    value = {"objs": np.array([_Thing(), 1], dtype=object), "thing": _Thing(), "set": {1, 2},
             "bytes": b"raw", "intkeys": {1: "a"}, "func": len, "dt": np.datetime64("2024-01-01")}
    encoder = Encoder()
    encoded = encoder.encode(value)
    assert encoder.arrays == []  # nothing went into the .npy section
    back = roundtrip(value, tmp_path)
    assert all(isinstance(v, Opaque) for v in back.values()), back
    assert back["objs"].type_name == "ndarray[object]" and "shape (2,)" in back["objs"].text
    assert back["thing"] == Opaque("_Thing", "Thing(7)")
    assert back["set"].type_name == "set" and back["intkeys"].type_name == "dict"
    assert "$opaque" in json.dumps(encoded)


def test_hostile_or_huge_repr_does_not_break_encoding(tmp_path):
    back = roundtrip([_HostileRepr(), _HugeRepr()], tmp_path)
    assert back[0] == Opaque("_HostileRepr", "<repr failed: RuntimeError>")
    assert back[1].type_name == "_HugeRepr"
    assert len(back[1].text) <= 200 and back[1].text.endswith("...")


def test_numpy_subclass_travels_as_plain_data(tmp_path):
    with pytest.warns(PendingDeprecationWarning):
        matrix = np.matrix([[1.0, 2.0], [3.0, 4.0]])
    encoder = Encoder()
    assert encoder.encode(matrix) == {"$array": 0, "subclass": "matrix"}
    assert type(encoder.arrays[0]) is np.ndarray
    back = roundtrip(matrix, tmp_path)
    assert type(back) is np.ndarray and back.shape == (2, 2)
    np.testing.assert_array_equal(back, [[1.0, 2.0], [3.0, 4.0]])


def test_very_deep_nesting_is_cut_off_not_a_recursion_error(tmp_path):
    value: list = []
    for _ in range(500):
        value = [value]
    back = roundtrip(value, tmp_path)
    depth = 0
    while isinstance(back, list):
        back, depth = back[0], depth + 1
    assert isinstance(back, Opaque) and back.type_name == "nesting" and 60 <= depth <= 70


# ----------------------------------------------------------------------------------------------
# bad frames


def test_size_cap_raises_message_too_large(tmp_path):
    data = encode_message({}, np.zeros(10_000))  # about 80 kB
    with pytest.raises(MessageTooLarge):
        _read_bytes(data, tmp_path, cap=16_000)
    with pytest.raises(MessageTooLarge):  # a JSON body alone above the cap
        _read_bytes(encode_message({}, "z" * 50_000), tmp_path, cap=16_000)
    assert _read_bytes(data, tmp_path, cap=len(data))[1][0].shape == (10_000,)  # exactly fits


def test_length_field_above_cap_is_refused_before_reading(tmp_path):
    data = MAGIC + (1 << 60).to_bytes(8, "big")  # claims an exabyte body, sends nothing
    with pytest.raises(MessageTooLarge):
        _read_bytes(data, tmp_path)


def test_a_json_document_over_its_cap_is_refused_from_its_declared_length_alone():
    declared = 8 * 1024 * 1024  # a list of two million floats, say; none of it is ever sent
    fd = closed_pipe_with(MAGIC + declared.to_bytes(8, "big"))
    try:
        started = time.monotonic()
        with pytest.raises(DocumentTooLarge) as caught:  # not PeerClosed: the body was never read
            FrameReader(fd, CAP, max_document_bytes=1 << 20).read(time.monotonic() + 5)
        assert time.monotonic() - started < 0.5
    finally:
        os.close(fd)
    assert (caught.value.size, caught.value.cap) == (declared, 1 << 20)
    assert isinstance(caught.value, MessageTooLarge)


def test_the_document_cap_leaves_arrays_to_the_message_cap(tmp_path):
    data = encode_message({}, {"big": np.zeros(500_000), "small": [1.5] * 10})  # 4 MB of array
    assert _read_bytes(data, tmp_path, document_cap=1000)[1][0].nbytes == 4_000_000
    with pytest.raises(DocumentTooLarge):
        _read_bytes(encode_message({}, [1.5] * 1000), tmp_path, document_cap=1000)


def test_wrong_magic_is_a_protocol_error(tmp_path):
    data = encode_message({}, 1)
    with pytest.raises(ProtocolError, match="marker"):
        _read_bytes(b"XXXX" + data[4:], tmp_path)


@pytest.mark.parametrize("cut", [0, 3, 7, 15, -9, -1])
def test_truncated_stream_is_a_protocol_error(cut):
    data = encode_message({"k": 1}, np.arange(5.0))
    fd = closed_pipe_with(data[:cut])
    try:
        with pytest.raises(PeerClosed):
            FrameReader(fd, CAP).read(time.monotonic() + 5)
    finally:
        os.close(fd)
    assert issubclass(PeerClosed, ProtocolError)


def test_a_hand_built_frame_is_read_like_the_encoders():
    data = np.arange(6, dtype="<i8").tobytes()
    document, arrays = FrameReader(closed_pipe_with(frame({"value": {"$array": 0}},
                                                          [({"dtype": "<i8", "shape": [2, 3]}, data)])),
                                   CAP).read(time.monotonic() + 5)
    np.testing.assert_array_equal(arrays[0], np.arange(6).reshape(2, 3))
    arrays[0][0, 0] = 7  # writable, and not a view of the bytes read


def test_pickled_object_array_spliced_into_a_frame_is_refused_and_never_unpickled(tmp_path):
    payload = pickle.dumps(np.array([_Marker(), 1], dtype=object))
    pickle.loads(payload)
    assert _UNPICKLED == ["unpickled!"]  # the payload is live: loading it would run code
    _UNPICKLED.clear()
    with pytest.raises(ProtocolError, match="not allowed"):
        _read_bytes(frame({"value": {"$array": 0}}, [({"dtype": "|O", "shape": [2]}, payload)]), tmp_path)
    assert _UNPICKLED == []


@pytest.mark.parametrize("header", [
    b"not json at all", b"[1, 2]", {"dtype": "<f8"}, {"dtype": "<f8", "shape": [2], "extra": 1},
    {"dtype": "<f8", "shape": [-1]}, {"dtype": "<f8", "shape": [2.0]}, {"dtype": "<f8", "shape": [1] * 65},
    {"dtype": 8, "shape": [1]}, {"dtype": "zz", "shape": [1]}, {"dtype": "x" * 40, "shape": [1]},
    {"dtype": "|V8", "shape": [1]}, {"dtype": "<M8[s]", "shape": [1]}, {"dtype": "(2,)<f8", "shape": [1]},
    {"dtype": "f8", "shape": [1]},  # numpy reads it, but it is not the canonical "<f8"
], ids=["garbage", "not-an-object", "no-shape", "extra-key", "negative", "float-size", "too-many-axes",
        "dtype-not-a-string", "not-a-dtype", "long-dtype", "void", "datetime", "sub-array", "not-canonical"])
def test_malformed_array_header_is_a_protocol_error(header, tmp_path):
    with pytest.raises(ProtocolError):
        _read_bytes(frame({"value": {"$array": 0}}, [(header, bytes(8))]), tmp_path)


def test_header_claiming_a_huge_shape_is_refused_without_allocating(tmp_path):
    with pytest.raises(ProtocolError, match="needs 800000000000 bytes, 8 were sent"):  # not a MemoryError
        _read_bytes(frame({"value": {"$array": 0}}, [({"dtype": "<f8", "shape": [10**11]}, bytes(8))]), tmp_path)


@pytest.mark.parametrize("shape", [[2**62, 0], [2**63, 0], [2**100, 0], [2**40, 0], [0, 2**40],
                                   [2**20] * 4 + [0], [2**26] * 63 + [0]],
                         ids=["2**62", "2**63", "2**100", "2**40", "leading-zero", "four-axes", "63-axes"])
def test_an_empty_array_of_absurd_shape_is_a_protocol_error(shape, tmp_path):
    # No bytes to send, so the size check passes; numpy refuses some (ValueError), makes others,
    # whose rows would cost the grader as much as real ones: both are the sender's fault.
    with pytest.raises(ProtocolError, match="larger than the cap"):
        _read_bytes(frame({"value": {"$array": 0}}, [({"dtype": "<f8", "shape": shape}, b"")]), tmp_path)


def test_an_empty_array_of_a_sensible_shape_still_travels(tmp_path):
    for shape in [(0,), (0, 300), (1000, 0), (0, 0, 0)]:
        (array,) = _read_bytes(encode_message({}, np.zeros(shape)), tmp_path)[1]
        assert array.shape == shape


def test_an_array_header_nested_absurdly_deep_is_a_protocol_error(tmp_path):
    header = b"[" * 100_000 + b"]" * 100_000
    with pytest.raises(ProtocolError, match="header is not valid JSON"):  # not a RecursionError
        _read_bytes(frame({"value": {"$array": 0}}, [(header, b"")]), tmp_path)


def test_data_longer_than_the_header_says_is_refused(tmp_path):
    with pytest.raises(ProtocolError, match="needs 8 bytes, 16 were sent"):
        _read_bytes(frame({"value": {"$array": 0}}, [({"dtype": "<f8", "shape": [1]}, bytes(16))]), tmp_path)


@pytest.mark.parametrize("body", [b"{not json", b"[1, 2]", b"[" * 100_000 + b"]" * 100_000],
                         ids=["invalid", "not-an-object", "absurdly-deep"])
def test_bad_json_body_is_a_protocol_error(body, tmp_path):
    data = MAGIC + len(body).to_bytes(8, "big") + body + (0).to_bytes(4, "big")
    with pytest.raises(ProtocolError):
        _read_bytes(data, tmp_path)


@pytest.mark.parametrize("data", [
    {"a": 1, "b": 2}, {}, {"$tuple": 5}, {"$dict": [1, 2]}, {"$float": "1e999"}, {"$float": 3},
    {"$opaque": "text"}, {"$array": 3}, {"$array": "0"}, {"$fixture": {"name": "x"}},
    {"$student": "mod.f"}, {"$pickle": "..."}, [1, {"$tuple": None}],
])
def test_malformed_tagged_values_are_protocol_errors(data):
    with pytest.raises(ProtocolError):
        Decoder([np.zeros(1)]).decode(data)


def test_decoder_refuses_hostile_nesting_depth():
    data: object = 1
    for _ in range(900):
        data = {"$tuple": [data]}
    with pytest.raises(ProtocolError, match="deep"):
        Decoder([]).decode(data)


def test_read_timeout_with_a_deadline_on_an_empty_pipe():
    read_fd, write_fd = os.pipe()
    try:
        started = time.monotonic()
        with pytest.raises(ReadTimeout):
            FrameReader(read_fd, CAP).read(deadline=started + 0.3)
        assert 0.25 <= time.monotonic() - started < 2.0
        write_all(write_fd, encode_message({}, 5)[:10])  # half a message: still a timeout
        with pytest.raises(ReadTimeout):
            FrameReader(read_fd, CAP).read(deadline=time.monotonic() + 0.2)
    finally:
        os.close(read_fd)
        os.close(write_fd)


def test_pack_never_writes_pickle():
    with pytest.raises(ValueError):
        pack({}, [np.array([object()], dtype=object)])
