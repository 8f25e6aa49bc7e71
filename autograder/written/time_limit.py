"""Runs the reading of an answer file in a child process that is killed when it takes too long.

Reading is linear in the file's size (``benchmarks/written_reading.py`` times the worst inputs
known), but the file is the student's and the parsers are not all ours: a time limit of its own
makes sure that no answer file can hold a grading, or a whole batch, whatever slow path it finds.
The child is forked when this process has a single thread (everything is imported already, so a
fork costs milliseconds) and the system can fork (not Windows), else started afresh. It sends back
JSON, never a pickle.
"""

from __future__ import annotations

import gc
import json
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any, TypeVar

from pydantic import BaseModel

Model = TypeVar("Model", bound=BaseModel)


class TimeLimitExceeded(Exception):
    """The child did not finish in time, and was killed."""


class ChildFailed(Exception):
    """The child raised or died; the message says how."""


def run_with_time_limit(
    function: Callable[..., Model],
    args: tuple[Any, ...],
    seconds: float,
    model: type[Model],
    expected: tuple[type[Exception], ...] = (),
) -> Model:
    """``function(*args)``, a ``model``, run in a child process within ``seconds``; an exception of a
    class in ``expected`` is raised again here with its message."""
    # A fork copies only the calling thread: with other threads running, a lock one of them held
    # would stay locked in the child, so start a fresh interpreter then.
    forks = hasattr(os, "fork") and threading.active_count() == 1
    context = multiprocessing.get_context("fork") if forks else multiprocessing.get_context("spawn")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(sender, function, args), daemon=True)
    child.start()
    sender.close()
    try:
        if not receiver.poll(seconds):
            raise TimeLimitExceeded(f"not finished after {seconds:g} s")
        reply = json.loads(receiver.recv_bytes())
    except EOFError:
        child.join()
        raise ChildFailed(f"the reading process stopped unexpectedly (exit code {child.exitcode})") from None
    finally:
        if hasattr(signal, "SIGKILL"):
            child.kill()
        else:  # Windows: terminate() is TerminateProcess there, as final as a kill
            child.terminate()
        child.join()
        receiver.close()
    if "result" in reply:
        return model.model_validate_json(reply["result"])
    for error_class in expected:
        if reply["kind"] == error_class.__name__:
            raise error_class(reply["message"])
    raise ChildFailed(f"{reply['kind']}: {reply['message']}")


def _child(sender: Connection, function: Callable[..., BaseModel], args: tuple[Any, ...]) -> None:
    # The child lives for one call: the cyclic garbage collector would only walk the objects of a
    # large notebook again and again (half the time of reading 100,000 cells).
    gc.disable()
    try:
        reply = {"result": function(*args).model_dump_json()}
    except Exception as error:  # reported to the parent, which decides what it means
        reply = {"kind": type(error).__name__, "message": str(error)}
    sender.send_bytes(json.dumps(reply).encode())
    sender.close()
