"""Expected values of the tests: the reference's answer to the same call the student's code gets.

A test asks ``self.expect(target, *args)`` exactly as it asks ``self.call(target, *args)`` of the
student's code: ``"module.function"`` or a probe ``"fixtures:name"``, with arguments that may hold
:class:`~autograder.contract.protocol.FixtureRef` objects. Both sides therefore see the same inputs, and the
answer comes back in the same form (through the same JSON + raw arrays encoding), so the messages a
student reads do not depend on where the expected value came from. Three sources answer:

- :class:`LiveReference` runs the reference solution in this process (the repository, Gradescope);
- :class:`RecordingReference` does the same and keeps every answer, to be saved into the student
  bundle by ``release``;
- :class:`RecordedReference` answers from that file alone: the student bundle has no reference.

The recording is keyed by a hash of the target and of the encoded arguments, so a test that sends
other inputs than those recorded finds no answer and says how to fix it, instead of comparing with
the wrong value.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any, Protocol

import numpy as np
from pydantic import BaseModel, ConfigDict, ValidationError

from autograder.boundary.session import CallResult
from autograder.contract.protocol import Decoder, Encoder, FrameReader, ProtocolError, pack, round_trip
from autograder.contract.target import Target
from autograder.core.config import Assignment
from autograder.grading.carried_forward import Answer, HelperSource, LiveHelpers, RecordedHelpers
from autograder.worker import probes

_FORMAT = 1
_MAX_BYTES = 256 * 1024 * 1024


class ReferenceCalls(Protocol):
    def call(self, target: Target, args: list, kwargs: dict) -> CallResult: ...

    def helper_source(self) -> HelperSource:
        """What answers the student's helpers when a test runs again with them replaced."""

    def test_weights(self) -> dict[str, float] | None:
        """The points of the public tests where the hidden tests that would tell are absent (the
        bundle's recording, keyed ``Class.method``); None where the tests themselves tell."""


def load_fixtures(assignment: Assignment) -> ModuleType:
    """The assignment's public fixtures; an empty module where it has none (fixtures.py is optional)."""
    name = assignment.fixtures_module
    return importlib.import_module(name) if name else ModuleType(f"{assignment.package}.fixtures")


class ExpectedValueMissing(Exception):
    """The recording has no answer for a call: the bundle and the tests disagree."""


def _key(target: str, document: Any, arrays: list[np.ndarray]) -> str:
    digest = hashlib.sha256(target.encode())
    digest.update(json.dumps(document, sort_keys=True, separators=(",", ":")).encode())
    for array in arrays:
        digest.update(f"|{array.dtype.str}{array.shape}|".encode())
        digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()


class _ReferenceModules:
    """The reference modules, answering the two questions probes ask of the student's modules."""

    def __init__(self, modules: SimpleNamespace) -> None:
        self.modules = modules

    def module(self, name: str) -> ModuleType:
        return getattr(self.modules, name)

    def attr(self, target: Target | str) -> Any:
        target = Target.of(target)
        return target.resolve(self.module(target.module))


class LiveReference:
    """Runs each call on the reference solution, in this process."""

    def __init__(self, modules: SimpleNamespace, fixtures: ModuleType) -> None:
        self.reference = _ReferenceModules(modules)
        self.fixtures = fixtures

    def helper_source(self) -> HelperSource:
        return LiveHelpers(self.reference.modules)

    def test_weights(self) -> dict[str, float] | None:
        return None

    def call(self, target: Target, args: list, kwargs: dict) -> CallResult:
        built: dict[str, Any] = {}

        def make_fixture(name: str, f_args: list, f_kwargs: dict, ident: str | None) -> Any:
            made = getattr(self.fixtures, name)(*f_args, **f_kwargs)
            if ident:
                built[ident] = made
            return made

        encoder = Encoder()
        document = encoder.encode([list(args), dict(kwargs)])
        decoder = Decoder([a.copy() for a in encoder.arrays], fixture=make_fixture, student=self.reference.attr)
        call_args, call_kwargs = decoder.decode(document)
        if target.probe:
            function = getattr({"fixtures": self.fixtures, "probes": probes}[target.module], target.name)
            value = function(self.reference, *call_args, **call_kwargs)
        else:
            value = self.reference.attr(target)(*call_args, **call_kwargs)
        reports = {ident: made.report() for ident, made in built.items() if hasattr(made, "report")}
        return CallResult(value=round_trip(value), fixtures=round_trip(reports))


class RecordedCall(BaseModel):
    model_config = ConfigDict(extra="forbid")

    target: str
    value: Any
    fixtures: Any


class RecordedHelper(BaseModel):
    """One helper call the reference answered while a public test ran again with its helpers
    replaced: what the reference got (arguments, keyword arguments, object state) and gave."""

    model_config = ConfigDict(extra="forbid")

    target: str
    inputs: Any
    value: Any
    state: Any
    generators: Any


class Recording(BaseModel):
    """The JSON part of the recording file; arrays travel beside it (:mod:`autograder.contract.protocol`)."""

    model_config = ConfigDict(extra="forbid")

    format: int
    assignment: str
    numpy: str
    calls: dict[str, RecordedCall]
    helpers: list[RecordedHelper] = []
    weights: dict[str, float] = {}  # the public tests' points (Class.method -> points)


class RecordingReference:
    """A :class:`LiveReference` that also keeps every answer, to be written with :meth:`save`."""

    def __init__(self, live: LiveReference, assignment: str) -> None:
        self.live = live
        self.assignment = assignment
        self.encoder = Encoder()
        self.calls: dict[str, RecordedCall] = {}
        self.helpers: list[RecordedHelper] = []
        self.weights: dict[str, float] = {}

    def helper_source(self) -> HelperSource:
        return LiveHelpers(self.live.reference.modules, recorder=self.record_helper)

    def test_weights(self) -> dict[str, float] | None:
        return None

    def record_helper(self, target: Target, inputs: tuple, answer: Answer) -> None:
        encode = self.encoder.encode
        self.helpers.append(
            RecordedHelper(
                target=str(target),
                inputs=encode(inputs),
                value=encode(answer.value),
                state=encode(answer.state),
                generators=encode(answer.generators),
            )
        )

    def call(self, target: Target, args: list, kwargs: dict) -> CallResult:
        result = self.live.call(target, args, kwargs)
        key = request_key(target, args, kwargs)
        if key not in self.calls:
            self.calls[key] = RecordedCall(
                target=str(target),
                value=self.encoder.encode(result.value),
                fixtures=self.encoder.encode(result.fixtures),
            )
        return result

    def save(self, path: Path) -> None:
        document = Recording(
            format=_FORMAT,
            assignment=self.assignment,
            numpy=np.__version__,
            calls=self.calls,
            helpers=self.helpers,
            weights=self.weights,
        )
        Path(path).write_bytes(pack(document.model_dump(), self.encoder.arrays))


def request_key(target: Target, args: list, kwargs: dict) -> str:
    encoder = Encoder()
    document = encoder.encode([list(args), dict(kwargs)])
    return _key(str(target), document, encoder.arrays)


class RecordedReference:
    """Answers from a recording made by ``release``; the student bundle's source of expected values."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        try:
            # O_BINARY: Windows opens in text mode otherwise, which turns \r\n into \n and ends at a Ctrl-Z
            descriptor = os.open(self.path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
        except OSError as exc:
            raise ExpectedValueMissing(
                f"cannot read the expected values {self.path} ({exc}); download the assignment bundle again"
            ) from None
        try:
            document, self.arrays = FrameReader(descriptor, _MAX_BYTES).read()
            self.recording = Recording.model_validate(document)
        except (ProtocolError, ValidationError) as exc:
            raise ExpectedValueMissing(
                f"{self.path} is damaged ({exc}); download the assignment bundle again"
            ) from None
        finally:
            os.close(descriptor)

    def test_weights(self) -> dict[str, float] | None:
        return dict(self.recording.weights)

    def helper_source(self) -> HelperSource:
        decode = Decoder(self.arrays).decode
        return RecordedHelpers(
            [
                (h.target, decode(h.inputs), Answer(decode(h.value), decode(h.state), decode(h.generators)))
                for h in self.recording.helpers
            ]
        )

    def call(self, target: Target, args: list, kwargs: dict) -> CallResult:
        recorded = self.recording.calls.get(request_key(target, args, kwargs))
        if recorded is None:
            versions = (
                ""
                if self.recording.numpy == np.__version__
                else (
                    f" It was made with numpy {self.recording.numpy} and you have {np.__version__}: "
                    "install the versions in requirements.txt (pip install -r requirements.txt)."
                )
            )
            raise ExpectedValueMissing(
                f"no expected value was recorded for {target} with these "
                f"inputs; the test and the bundle do not match.{versions} "
                "Otherwise, ask the course staff for a fresh bundle."
            )
        decoder = Decoder(self.arrays)
        # Copies: a test may modify what it gets, and the recording serves later tests too.
        return CallResult(
            value=round_trip(decoder.decode(recorded.value)), fixtures=round_trip(decoder.decode(recorded.fixtures))
        )
