"""The self-check of a student file: its public tests, exactly as the grader runs them.

A student module ends with

    if __name__ == "__main__":
        run_public_tests(__file__, "word2vec")

so `python word2vec.py` runs `python -m autograder check word2vec --only word2vec`: the public
tests of that file's functions, with the same messages and verdicts as Gradescope's. Unfinished
functions are reported as "not implemented yet", so it can be run at any stage.

Two rules hold for every function you write, and the self-check (like the grader) holds each one
to them: a function changes none of the arrays and lists it is given, and it gives the same
result whenever it gets the same inputs.
"""

from __future__ import annotations


def run_public_tests(path: str, assignment: str) -> None:
    """Run the public tests of the functions in the file at ``path`` exactly as
    ``python -m autograder check ASSIGNMENT --only MODULE`` runs them, and exit with its status."""
    import subprocess
    import sys
    from pathlib import Path

    file = Path(path).resolve()
    command = [sys.executable, "-m", "autograder", "check", assignment, str(file.parent), "--only", file.stem]
    raise SystemExit(subprocess.call(command, cwd=file.parent))
