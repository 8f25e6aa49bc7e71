"""The import check: one worker imports every submitted module before the questions are graded.

A module that loops forever at import, or ends the process (``os._exit``, a crash), would otherwise
cost every question that uses it its whole time limit, one question after another. The check gives
all imports together one small budget (``limits.import_time_limit``) and reports the modules that
hung or ended the worker; the questions' workers then refuse to import them (see
:class:`autograder.worker.calls.StudentModules`), so their tests fail at once with the reason.
An import that raises is not reported: it costs nothing, and each test shows its traceback.
"""

from __future__ import annotations

from autograder.boundary.session import (
    SessionFactory,
    StudentCodeError,
    StudentRaised,
    WorkerSession,
    WorkerSpec,
    WorkerTimeout,
)

LABEL = "import check"


def broken_imports(
    spec: WorkerSpec, modules: list[str], seconds: float, sessions: SessionFactory = WorkerSession
) -> dict[str, str]:
    """``{module: reason}`` for the ``modules`` whose import hangs or ends the worker."""
    broken: dict[str, str] = {}
    with sessions(spec, seconds, LABEL) as session:
        for name in modules:
            try:
                session.call("probes:import_module", name)
            except WorkerTimeout:
                broken[name] = (
                    f"not run: importing {name}.py did not finish within the {seconds:g} s "
                    "the autograder allows for importing your files (an infinite loop or "
                    "a long computation at the top level of the file?)"
                )
                break  # the budget is spent; the modules after it are imported as usual
            except StudentRaised:
                continue
            except StudentCodeError as failure:  # the worker crashed or sent garbage
                broken[name] = f"not run: {name}.py could not be imported: {failure}"
    return broken
