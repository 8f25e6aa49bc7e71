"""Error carried forward, on the worker's side: the student's helpers answered by the grader.

When a test of one question runs the student's code, a helper that another question owns (the
student's ``softmax`` inside their network's forward pass) can be replaced, for that call only, by a
stand-in that sends its inputs to the grader and returns the grader's answer, which the grader gets
from the reference solution (:mod:`autograder.grading.carried_forward`). No reference code enters this
process, and nothing here decides anything: the stand-in only relays the call.

A helper is ``module.function`` or ``module.Class.method``. A method travels with its object's
state (``self.__dict__``) and the new state comes back into the very same object, arrays updated in
place, so that whatever shares them (the optimizer and the model share the parameters) sees the
change. The stand-in also runs the student's own helper on copies of the first few inputs and sends
its result along, so the grader can tell the student which of their helpers differs.
"""

from __future__ import annotations

import copy
import os
import random
import secrets
import sys
from collections.abc import Callable
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import numpy as np

from autograder.contract.messages import Callback, CallbackResult, HelperAnswer, HelperCall, OwnResult
from autograder.contract.protocol import (
    KEPT,
    ArgRef,
    Decoder,
    Encoder,
    FrameReader,
    Handle,
    ObjectState,
    pack_parts,
    write_all,
)
from autograder.contract.state_sync import StateSync, generators_in
from autograder.contract.target import Target

# Calls per helper on which the student's own helper also runs, to compare: a bug may show only
# on some inputs (LEFT-ARC, not SHIFT), so small calls are compared until one differs; calls with
# large inputs (a model's whole state) only the first few times, or a training loop would run
# everything twice.
_COMPARED_CALLS = 3
_COMPARED_SMALL_CALLS = 500
_SMALL_BYTES = 1 << 16
_MARK = "__carried_forward_original__"


class HelperFailed(Exception):
    """The grader could not answer a helper call (the reference raised on these inputs)."""


class Channel:
    """The worker's end of the wire, for questions asked in the middle of a call."""

    def __init__(self, reader: FrameReader, reply_fd: int) -> None:
        self.reader = reader
        self.reply_fd = reply_fd

    def ask(self, document: dict, arrays: list[np.ndarray]) -> tuple[dict, list[np.ndarray]]:
        write_all(self.reply_fd, pack_parts(document, arrays))
        return self.reader.read()


class Relay:
    """Replaces the helpers of one call by stand-ins; :meth:`restore` puts the student's back."""

    def __init__(
        self,
        channel: Channel,
        targets: list[Target],
        resolve: Callable[[Target], Any],
        scratch: str,
        *,
        compare: bool = True,
    ) -> None:
        self.channel = channel
        self.compare = compare
        self.scratch = scratch
        self.resolve = resolve
        self.objects: dict[int, Any] = {}  # the grader's objects as this side shows them to callbacks
        self.compared: dict[Target, int] = {}
        self.token = secrets.token_hex(8)  # names this call's objects to the grader
        self.syncs: dict[int, tuple[Any, StateSync]] = {}  # id(owner) -> (owner, its state sync)
        for target in targets:
            try:
                self._install(target, resolve)
            except Exception:  # a helper the student's files lack stays missing, as without relay
                pass

    def _install(self, target: Target, resolve: Callable[[Target], Any]) -> None:
        holder = resolve(target.owner) if target.owner else None
        if isinstance(holder, type):  # module.Class.method: one attribute of a shared class
            original = holder.__dict__.get(target.name)
            if callable(original) and not hasattr(original, _MARK):
                setattr(holder, target.name, self._stand_in(target, original, method=True))
            return
        original = resolve(target)
        if not callable(original) or hasattr(original, _MARK):
            return
        stand_in = self._stand_in(target, original, method=False)
        # `from basics import softmax` binds the function under its name in the importing module too:
        # replace it wherever the student's modules hold it.
        for module in self._student_modules():
            for key, value in list(vars(module).items()):
                if value is original:
                    setattr(module, key, stand_in)

    def _student_modules(self) -> list[Any]:
        inside = self.scratch + os.sep
        return [
            m
            for m in list(sys.modules.values())
            if os.path.abspath(getattr(m, "__file__", None) or "").startswith(inside)
        ]

    def _stand_in(self, target: Target, original: Callable, *, method: bool) -> Callable:
        def stand_in(*args: Any, **kwargs: Any) -> Any:
            return self.call(target, original, args, kwargs, method=method)

        setattr(stand_in, _MARK, original)
        stand_in.__name__ = getattr(original, "__name__", "helper")
        stand_in.__doc__ = getattr(original, "__doc__", None)
        return stand_in

    def call(self, target: Target, original: Callable, args: tuple, kwargs: dict, *, method: bool) -> Any:
        owner = args[0] if method else None
        rest = args[1:] if method else args
        handles: list[Any] = []  # objects that cannot travel: the grader calls them back
        encoder = Encoder()
        call = HelperCall(target, encoder.encode(_wrap(list(rest), handles)), encoder.encode(_wrap(kwargs, handles)))
        if owner is not None:
            sync = self._sync(owner)
            state = encoder.encode(sync.outgoing(dict(vars(owner))))
            call = replace(call, owner=f"{self.token}:{id(owner)}", state=state)
        if self._compare(target, sum(a.nbytes for a in encoder.arrays)):
            call = replace(call, own=encoder.encode(_own_result(original, args, kwargs, method=method).to_json()))
        reply, arrays = self.channel.ask(call.to_json(), encoder.arrays)
        while Callback.carried_by(reply):  # the reference calls a method of one of the handles
            result, result_arrays = self._callback(reply, arrays, handles, (rest, kwargs))
            reply, arrays = self.channel.ask(result.to_json(), result_arrays)
        answer = HelperAnswer.from_json(reply)
        if answer.unavailable:  # the grader cannot run these inputs: the student's own helper
            return original(*args, **kwargs)
        if answer.failure:
            raise HelperFailed(answer.failure)
        decoder = Decoder(arrays)
        if owner is not None:
            _merge(vars(owner), sync.incoming(decoder.decode(answer.state), materialise=False))
            for key, place in (answer.aliases or {}).items():
                vars(owner)[key] = _argument(place, rest, kwargs)
        # The reference drew from copies of the student's generators: move the originals on as far.
        for mine, theirs in zip(generators_in([rest, kwargs]), decoder.decode(answer.generators)):
            _merge(mine, theirs)
        return decoder.decode(answer.value)

    def _callback(self, request: dict, arrays: list, handles: list, arguments: tuple) -> tuple[CallbackResult, list]:
        """Runs ``handle.method(*args)`` for the grader; the student's code may raise anything."""
        try:
            callback = Callback.from_json(request)
            decoder = Decoder(arrays)
            call_args = self._materialise(decoder.decode(callback.args), arguments)
            call_kwargs = self._materialise(decoder.decode(callback.kwargs), arguments)
            value = getattr(handles[callback.handle], callback.method)(*call_args, **call_kwargs)
            encoder = Encoder()
            return CallbackResult(encoder.encode(value)), encoder.arrays
        except BaseException as exc:
            return CallbackResult(raised=type(exc).__name__, message=str(exc)[:2000]), []

    def _materialise(self, value: Any, arguments: tuple) -> Any:
        """A callback's arguments as the worker's objects: the helper call's own arguments where
        the grader names them, and a stable stand-in object for each of the grader's objects."""
        if isinstance(value, ArgRef):
            return _argument(value.path, *arguments)
        if isinstance(value, ObjectState):
            shown = self.objects.get(value.id)
            if shown is None:
                shown = self.objects[value.id] = _instance(value.cls, self.resolve)
            vars(shown).clear()
            vars(shown).update(self._materialise(value.state, arguments))
            return shown
        return StateSync._each(value, (), lambda item, _: self._materialise(item, arguments))

    def _sync(self, owner: Any) -> StateSync:
        # the owner is kept alive with its sync, so its id names no other object during this call
        return self.syncs.setdefault(id(owner), (owner, StateSync()))[1]

    def _compare(self, target: Target, size: int) -> bool:
        count = self.compared.get(target, 0)
        if not self.compare or count >= (_COMPARED_SMALL_CALLS if size <= _SMALL_BYTES else _COMPARED_CALLS):
            return False
        self.compared[target] = count + 1
        return True

    def restore(self) -> None:
        """The student's own helpers, everywhere a stand-in was put (or imported since)."""
        for module in self._student_modules():
            for key, value in list(vars(module).items()):
                if hasattr(value, _MARK):
                    setattr(module, key, getattr(value, _MARK))
                elif isinstance(value, type):
                    for name, attribute in list(value.__dict__.items()):
                        if hasattr(attribute, _MARK):
                            setattr(value, name, getattr(attribute, _MARK))


def _own_result(original: Callable, args: tuple, kwargs: dict, *, method: bool) -> OwnResult:
    """What the student's own helper gives on copies of the inputs: its value, or for a method that
    returns nothing, the object's new state; or the exception it raised. The global random state is
    put back, so that running it does not change what the rest of the call draws."""
    saved = random.getstate(), np.random.get_state()
    try:
        copies = copy.deepcopy((args, kwargs))
        kept = copy.deepcopy(copies[0]) if not method else ()
        value = original(*copies[0], **copies[1])
        changed = not method and not all(map(_unchanged, kept, copies[0]))
        if method and value is None:
            return OwnResult(state=dict(vars(copies[0][0])))
        return OwnResult(value, changed_inputs=changed)
    except BaseException as exc:  # the student's helper may raise anything
        return OwnResult(raised=type(exc).__name__)
    finally:
        random.setstate(saved[0])
        np.random.set_state(saved[1])


def _unchanged(before: Any, after: Any) -> bool:
    """An array or list the helper was given, as it was (anything else counts as unchanged)."""
    if isinstance(before, np.ndarray):
        return (
            isinstance(after, np.ndarray)
            and before.shape == after.shape
            and bool(np.array_equal(before, after, equal_nan=before.dtype.kind in "fc"))
        )
    if isinstance(before, list):
        return isinstance(after, list) and len(before) == len(after) and all(map(_unchanged, before, after))
    return True


_PLAIN = (type(None), bool, int, float, str, np.ndarray, np.generic, np.random.Generator)


def _wrap(value: Any, handles: list[Any]) -> Any:
    """``value`` with every object that cannot travel replaced by a :class:`Handle` to it."""
    if isinstance(value, _PLAIN):
        return value
    if isinstance(value, (list, tuple)) or isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return StateSync._each(value, (), lambda item, _: _wrap(item, handles))
    handles.append(value)
    return Handle(len(handles) - 1)


def _instance(cls_name: str, resolve: Callable[[Target], Any]) -> Any:
    """An empty instance of the student's class of that name (``module.Class``), for a callback to
    read its attributes; a plain namespace when there is no such class or it cannot be made without
    its __init__."""
    try:
        cls = resolve(Target.parse(cls_name))
        if isinstance(cls, type):
            return cls.__new__(cls)  # type: ignore[call-overload]  # the class's own __new__, not type's
    except Exception:
        pass
    return SimpleNamespace()


def _argument(place: Any, args: tuple, kwargs: dict) -> Any:
    """The call's own argument, or a part of one, at ``place`` (["args", i, ...] or ["kwargs", name, ...])."""
    found: Any = {"args": args, "kwargs": kwargs}
    for key in place:
        found = found[key]
    return found


def _merge(old: Any, new: Any) -> Any:
    """``new`` put into ``old`` in place where the two have the same form; returns what to keep."""
    if new is KEPT:
        return old
    if (
        isinstance(old, np.ndarray)
        and isinstance(new, np.ndarray)
        and old.shape == new.shape
        and old.dtype == new.dtype
        and old.flags.writeable
    ):
        old[...] = new
        return old
    if isinstance(old, dict) and isinstance(new, dict):
        for key in [k for k in old if k not in new]:
            del old[key]
        for key, value in new.items():
            old[key] = _merge(old[key], value) if key in old else value
        return old
    if isinstance(old, list) and isinstance(new, list):
        old[:] = [_merge(o, n) for o, n in zip(old, new)] + new[len(old) :]
        return old
    if isinstance(old, np.random.Generator) and isinstance(new, np.random.Generator):
        old.bit_generator.state = new.bit_generator.state
        return old
    return new
