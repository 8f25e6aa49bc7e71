"""The student's code called in the grader's own process: a stand-in for the worker, for benchmarks only.

It is no sandbox at all: the student's code runs with every right of the grader, can read the
reference and change the grader's state. It exists to measure what the trust boundary costs
(benchmarks/worker_overhead.py): :class:`InProcessSession` answers the same calls as
:class:`autograder.boundary.session.WorkerSession`, through the worker's own request handling
(:meth:`autograder.worker.calls.Worker.run`: reseeding, fixtures, error reports), so the tests give the
same scores; what it leaves out is the worker's processes, pipes, confinement and wire format.
Like a worker, each session starts from fresh copies of the files, and imports the student's modules
anew: what one question's code does to a module's state is not seen by the next question.
"""

from __future__ import annotations

import importlib
import io
import os
import shutil
import tempfile
import time
from contextlib import ExitStack, redirect_stderr, redirect_stdout
from typing import Any

from autograder.contract.protocol import round_trip
from autograder.contract.target import Target
from autograder.grading.reference import importable
from autograder.boundary.session import CallResult, StudentRaised, WorkerSpec, copy_files, encode_request
from autograder.worker.calls import Worker


class InProcessSession:
    """Runs the calls of one question in this process (time budgets are not enforced)."""

    def __init__(self, spec: WorkerSpec, budget_seconds: float, label: str) -> None:
        self.scratch = tempfile.mkdtemp(prefix="ag-in-process-")
        self._cleanup = ExitStack()
        self._cleanup.callback(shutil.rmtree, self.scratch)
        copy_files(spec.files, self.scratch)
        self._cleanup.callback(os.chdir, os.getcwd())
        os.chdir(self.scratch)  # where a worker runs the student's code
        self._cleanup.enter_context(importable(self.scratch))
        fixtures = importlib.import_module(spec.fixtures_module) if spec.fixtures_module else None
        self.worker = Worker(fixtures, self.scratch, spec.blocked_modules)

    def call(self, target: Target | str, *args: Any, return_args: bool = False, seed: int = 0,
             helpers: Any = None, **kwargs: Any) -> CallResult:
        if helpers is not None:  # a rerun with the reference's helpers needs a worker's wire
            raise NotImplementedError("the in-process stand-in cannot relay helpers; grade a "
                                      "submission that passes, as the benchmarks do")
        started = time.monotonic()
        request, arrays = encode_request(Target.of(target), args, kwargs, return_args=return_args, seed=seed)
        printed = io.StringIO()
        # copies, as the worker gets: the student's code must not change the grader's inputs
        with redirect_stdout(printed), redirect_stderr(printed):
            reply = self.worker.run(request, [array.copy() for array in arrays])
        if reply.error is not None:
            failure = StudentRaised(reply.error)
            failure.output = printed.getvalue()
            raise failure
        return CallResult(value=round_trip(reply.value), fixtures=round_trip(reply.fixtures),
                          args_after=round_trip(reply.args_after), output=printed.getvalue(),
                          seconds=time.monotonic() - started)

    def close(self) -> None:
        self._cleanup.close()

    def __enter__(self) -> InProcessSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
