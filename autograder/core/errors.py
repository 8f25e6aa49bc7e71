"""The one base of the errors a user can act on.

Every such error says, in its message, what went wrong and what to do; the command line catches the
base once (:func:`autograder.cli.main.main`), prints ``error: MESSAGE`` and exits with status 2, never
a traceback. Errors that stay inside the framework (a worker's invalid reply, a student's exception
carried to a test) are not of this kind: they become feedback, not a failed command.
"""

from __future__ import annotations


class AutograderError(Exception):
    """A problem the user can fix; ``str(error)`` is written for them."""


class Stopped(KeyboardInterrupt):
    """The command was asked to stop by a signal (SIGTERM, SIGHUP), and stops as on Ctrl-C: by an
    exception that no ``except Exception`` takes for a failure of the student's code, so every
    ``finally`` on its way runs (workers killed, their folders removed) and results are written."""
