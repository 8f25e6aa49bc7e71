"""Times ``grade-batch`` on a synthetic class, with 1 and with 2 jobs, and prints submissions per minute.

The class is written by tests/fixtures/export.py: the reference, the starter, one of each broken or
hostile submission (syntax error, sys.exit at import, an endless loop in one function, a missing
file, an empty and a nested folder, a listed folder that is missing), every planted bug of the
assignment, then mostly references with some bugs again. Each run grades the whole class into a
fresh output folder through the command line, as a TA would, and checks that the CSV and the plot
were written.
"""

from __future__ import annotations

import argparse
import csv
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # for tests.fixtures, which writes the synthetic class

from autograder.config import available_assignments, load_assignment  # noqa: E402
from tests.fixtures.export import class_mix, write_export  # noqa: E402


def time_batch(assignment: str, export: Path, out: Path, jobs: int) -> tuple[float, int]:
    """Seconds for one full ``grade-batch`` run and the rows of its scores.csv; exits if it fails."""
    command = [sys.executable, "-m", "autograder", "grade-batch", assignment, str(export),
               "--jobs", str(jobs), "--out", str(out)]
    started = time.monotonic()
    run = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    seconds = time.monotonic() - started
    if run.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({run.returncode}):\n{run.stdout}\n{run.stderr}")
    with open(out / "scores.csv", newline="") as stream:
        rows = sum(1 for _ in csv.DictReader(stream))
    if not (out / "scores.png").read_bytes().startswith(b"\x89PNG"):
        sys.exit(f"{out / 'scores.png'} is not a PNG")
    return seconds, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="example:\n  .venv/bin/python benchmarks/batch_regrade.py "
                                            "--submissions 50 --jobs 1 2")
    parser.add_argument("--assignment", default="word2vec", choices=available_assignments())
    parser.add_argument("--submissions", type=int, default=50, metavar="N", help="class size (default 50)")
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2], metavar="J",
                        help="the --jobs values to time (default: 1 2)")
    parser.add_argument("--keep", type=Path, metavar="DIR",
                        help="keep the export and the outputs in DIR (a new folder), not in a temporary one")
    args = parser.parse_args()

    kinds = class_mix(args.assignment, args.submissions)
    mix = Counter("bug" if k.startswith("bug:") else k for k in kinds)
    print(f"{args.submissions} {args.assignment} submissions: "
          + ", ".join(f"{count} {kind}" for kind, count in mix.most_common()))
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the start")
    with tempfile.TemporaryDirectory(prefix="batch-regrade-") as temporary:
        root = args.keep or Path(temporary)
        write_export(root / "export", load_assignment(args.assignment), kinds)
        for jobs in args.jobs:
            seconds, rows = time_batch(args.assignment, root / "export", root / f"out-jobs{jobs}", jobs)
            print(f"  --jobs {jobs}: {seconds:6.1f} s, {60 * args.submissions / seconds:5.1f} submissions "
                  f"per minute ({rows} rows in scores.csv, scores.png written)")


if __name__ == "__main__":
    main()
