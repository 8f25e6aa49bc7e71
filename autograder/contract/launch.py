"""How the grader starts the processes of the worker's side, and the exit status they report back.

Both sides import this module, and nothing else of each other's: the grader builds the command lines
here, and names the worker's entry points only as text, so the trusted side never imports the
untrusted side's code. Each process runs ``python -s -c BOOT CONFIG_JSON``. ``-s`` rather than
``-I``: ``-I`` implies ``-E``, which would drop PYTHONHASHSEED and PYTHONUNBUFFERED from the worker's
environment (built from scratch anyway). The '' entry that ``-c`` puts first goes before any import,
so no student file in the working folder can shadow a module imported there.
"""

from __future__ import annotations

import json

UNCONFINED_EXIT = 70  # the worker could not apply its plan and did not run student code
MEMORY_EXIT = 71  # the supervisor killed the worker's processes for using more memory together than the budget
DISK_EXIT = 72  # the supervisor killed them for writing more into the scratch folder than the budget
CHANNEL_EXIT = 73  # the worker's pipes to the grader broke between two calls (the student's code did it)


def _boot(entry: str) -> str:
    return (
        "import sys; sys.path[:] = [p for p in sys.path if p]; "
        "import json; config = json.loads(sys.argv[1]); sys.path[:0] = config['trusted_paths']; "
        f"from {entry} import main; main(config)"
    )


# The fork server or a probe of the Linux worker (autograder.worker.boot), and the portable path's
# worker (autograder.worker.portable).
LINUX_BOOT = _boot("autograder.worker.boot")
PORTABLE_BOOT = _boot("autograder.worker.portable")


def linux_command(python: str, config: dict) -> list[str]:
    """``config``: mode ("forkserver" or "probe"), trusted_paths, and what that mode reads."""
    return [python, "-s", "-c", LINUX_BOOT, json.dumps(config)]


def portable_command(python: str, config: dict) -> list[str]:
    """``config``: trusted_paths, fixtures_module and blocked, as the portable worker reads them."""
    return [python, "-s", "-c", PORTABLE_BOOT, json.dumps(config)]
