"""Times ``grade-batch`` on synthetic classes: submissions per minute with 1, 2 or more jobs, and how
that scales with the number of jobs and the size of the class.

The class is written by tests/fixtures/export.py: the reference, the starter, one of each broken or
hostile submission (syntax error, sys.exit at import, an endless loop in one function, a missing
file, an empty and a nested folder, a listed folder that is missing), every planted bug of the
assignment, then mostly references with some bugs again. Each run grades the whole class into a
fresh output folder through the command line, as a TA would, and checks that the CSV and the plot
were written. Every job count is timed in every run, in turns, so their ratios (the speed-up over
one job) come from the same conditions; the figures are medians over the runs.
"""

from __future__ import annotations

import csv
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # for tests.fixtures, which writes the synthetic class

from autograder.core.config import available_assignments, load_assignment  # noqa: E402
from benchmarks.summary import Summary, argument_parser, machine  # noqa: E402
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


def time_class(assignment: str, size: int, jobs: list[int], runs: int,
               keep: Path | None) -> dict[int, list[float]]:
    """Seconds of each ``grade-batch`` run of a synthetic class of ``size``, per job count; ``keep``:
    where to leave the export and the outputs (else a temporary folder)."""
    kinds = class_mix(assignment, size)
    mix = Counter("bug" if k.startswith("bug:") else k for k in kinds)
    print(f"{size} {assignment} submissions: " + ", ".join(f"{count} {kind}" for kind, count in mix.most_common()))
    seconds: dict[int, list[float]] = {j: [] for j in jobs}
    with tempfile.TemporaryDirectory(prefix="batch-regrade-") as temporary:
        root = keep / f"{assignment}-{size}" if keep else Path(temporary)
        write_export(root / "export", load_assignment(assignment), kinds)
        for run in range(runs):
            for j in (jobs if run % 2 == 0 else jobs[::-1]):  # take turns going first
                seconds[j].append(time_batch(assignment, root / "export", root / f"out-{run}-jobs{j}", j)[0])
    return seconds


def main() -> None:
    parser = argument_parser(__doc__, __file__, "", "--jobs 1 2 3 4 --submissions 25 50 100",
                             "--assignment parser --submissions 20", "--quick")
    parser.add_argument("--assignment", nargs="+", default=["word2vec"], choices=available_assignments(),
                        help="default: word2vec")
    parser.add_argument("--submissions", type=int, nargs="+", default=[50], metavar="N",
                        help="class sizes (default 50)")
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2], metavar="J",
                        help="the --jobs values to time (default: 1 2)")
    parser.add_argument("--runs", type=int, default=3, help="runs of each class and job count (default 3)")
    parser.add_argument("--keep", type=Path, metavar="DIR",
                        help="keep the exports and the outputs in DIR (a new folder), not in a temporary one")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: a word2vec class of 10, 1 and 2 jobs, one run")
    args = parser.parse_args()
    if args.quick:
        args.assignment, args.submissions, args.jobs, args.runs = ["word2vec"], [10], [1, 2], 1
    print(machine())
    for assignment in args.assignment:
        for size in args.submissions:
            seconds = time_class(assignment, size, args.jobs, args.runs, args.keep)
            one = Summary.of(seconds[args.jobs[0]]).median
            for jobs in args.jobs:
                taken = Summary.of(seconds[jobs])
                print(f"  --jobs {jobs}: {taken.show()}, {60 * size / taken.median:5.1f} submissions per minute, "
                      f"{taken.median / size:.2f} s per submission, {one / taken.median:.2f}x --jobs "
                      f"{args.jobs[0]}")


if __name__ == "__main__":
    main()
