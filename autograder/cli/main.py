"""``python -m autograder``: the parser, which gathers the students' and the staff's commands, and
the one place where errors meant for the user are printed."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from autograder.cli import staff, student
from autograder.cli.arguments import assignment_names
from autograder.core.errors import AutograderError, Stopped

EPILOG = """examples:
  python -m autograder grade word2vec solutions/word2vec          # the reference: full marks
  python -m autograder grade word2vec path/to/submission --results out/results.json -v
  python -m autograder grade-batch word2vec path/to/export --jobs 2 --out regrade-word2vec
  python -m autograder release word2vec --out /tmp/word2vec-bundle       # what students download
  python -m autograder check word2vec assignment/word2vec                # the public tests, as students run them
  python -m autograder check-written parser handouts/parser.ipynb
  python -m autograder export-written parser path/to/export --out written-parser   # pages to grade by hand
  python -m autograder build word2vec --out "$(mktemp -d)/word2vec-autograder.zip"   # upload to Gradescope
  AUTOGRADER_ROOT="$ROOT" python -m autograder gradescope word2vec     # what run_autograder does
  python -m autograder new bigrams           # a new assignment that works from the start (docs/authoring-guide.md)
  python -m autograder validate bigrams      # every check of the framework on it: ready to release?
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m autograder",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=f"Grade, release and package the course's numpy assignments ({assignment_names()}).",
        epilog=EPILOG,
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for register in (*staff.COMMANDS, *student.COMMANDS):
        register(commands)
    return parser


def _tolerant_output() -> None:
    """Characters the terminal's encoding lacks (a Windows code page) print as '?', not as a crash."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)  # absent where a caller swapped the stream
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
        # surrogateescape raises as strict does on what it cannot encode: Python's choice under an ASCII locale
        raises = getattr(stream, "errors", None) in ("strict", "surrogateescape")
        if reconfigure is not None and encoding != "utf8" and raises:
            reconfigure(errors="replace")


@contextmanager
def _stopped_by_signals() -> Iterator[None]:
    """SIGTERM and SIGHUP stop a command as Ctrl-C does (:class:`Stopped`), where their default
    would end the process at once and leave its workers' folders and no results.json behind."""
    names = [name for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)]
    if threading.current_thread() is not threading.main_thread():  # only the main thread sets handlers
        yield
        return

    def stop(signum: int, frame: object) -> None:
        for name in names:  # a second signal must not cut the clean-up of the first short
            signal.signal(getattr(signal, name), signal.SIG_IGN)
        raise Stopped(signal.Signals(signum).name)

    before = {name: signal.signal(getattr(signal, name), stop) for name in names}
    try:
        yield
    finally:
        for name, handler in before.items():
            signal.signal(getattr(signal, name), handler)


def main(argv: list[str] | None = None) -> int:
    _tolerant_output()
    args = build_parser().parse_args(argv)
    try:
        with _stopped_by_signals():
            return args.run(args)
    except AutograderError as exc:  # a problem the user can fix: its message says how
        print(f"error: {exc}", file=sys.stderr)
        return 2
