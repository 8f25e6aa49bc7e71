"""What the trust boundary costs: grading a correct submission with workers, against calling the
student's code in the grader's own process.

Both sides grade the reference solution through the same ``autograder.grading.grade.grade``, taking turns
in one run, so both are measured under the same conditions; the ratio of each pair is the overhead of
that run. Each grading runs in a fresh process, as on Gradescope, after that process has loaded the
assignment and the reference (not timed: both sides need them). The worker side is grading as it
always runs: the probe of the machine's protections, the import check, a fresh worker per question.
The in-process side (benchmarks/in_process.py) handles the same requests with the worker's own code,
without processes, pipes or confinement. Every run checks that both sides scored every test alike.

Like a worker, every grading process uses one BLAS thread and the C library's memory settings of
workers, so the ratio measures the boundary, not threading or memory allocation. ``--cpus 0`` pins
everything (the workers inherit it) to one core.
"""

from __future__ import annotations

import multiprocessing
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from autograder.core.config import available_assignments, load_assignment  # noqa: E402
from autograder.boundary.fork_client import worker_env  # noqa: E402
from autograder.grading.grade import grade, module_names  # noqa: E402
from autograder.boundary.isolation import Isolation  # noqa: E402
from autograder.grading.reference import load_reference  # noqa: E402
from benchmarks.in_process import InProcessSession  # noqa: E402
from benchmarks.summary import Summary, argument_parser, machine  # noqa: E402

GOAL = 0.15  # the workers may add at most 15 % to the grading time
WORKERS, IN_PROCESS = "with workers", "in process"


def grade_once(name: str, side: str) -> tuple[float, dict[str, float]]:
    """In a fresh process: seconds to grade the reference of ``name`` on ``side``, and its scores."""
    assignment = load_assignment(name)
    reference = load_reference(assignment.solution_dir, module_names(assignment.config))
    options = {} if side == WORKERS else {"isolation": Isolation(), "sessions": InProcessSession}
    started = time.perf_counter()
    results = grade(assignment, assignment.solution_dir, reference=reference, **options)
    seconds = time.perf_counter() - started
    if results.score != assignment.config.total_points:
        sys.exit(f"{name}: the reference got {results.score:g} / {assignment.config.total_points:g} "
                 f"{side}; fix grading before timing it")
    return seconds, {test.number: test.score for test in results.tests}


def in_fresh_process(name: str, side: str) -> tuple[float, dict[str, float]]:
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(grade_once, name, side).result()


def time_both(name: str, runs: int) -> dict[str, list[float]]:
    """Seconds of each grading, per side; exits if the two sides ever score a test differently."""
    seconds: dict[str, list[float]] = {WORKERS: [], IN_PROCESS: []}
    for run in range(runs):
        sides = [WORKERS, IN_PROCESS] if run % 2 == 0 else [IN_PROCESS, WORKERS]  # take turns going first
        scores = {}
        for side in sides:
            taken, scores[side] = in_fresh_process(name, side)
            seconds[side].append(taken)
        if scores[WORKERS] != scores[IN_PROCESS]:
            differ = sorted(n for n in scores[WORKERS] if scores[WORKERS][n] != scores[IN_PROCESS].get(n))
            sys.exit(f"{name}: the two sides scored tests {differ} differently")
    return seconds


def main() -> None:
    parser = argument_parser(__doc__, __file__, "", "--cpus 0 --runs 9", "--quick")
    parser.add_argument("--assignment", nargs="+", choices=available_assignments(),
                        default=available_assignments(), help="default: all")
    parser.add_argument("--runs", type=int, default=5, help="gradings per side (default 5)")
    parser.add_argument("--cpus", type=int, nargs="+", metavar="CPU",
                        help="run on these cores only (default: all)")
    parser.add_argument("--quick", action="store_true", help="a smoke run: word2vec, one grading per side")
    args = parser.parse_args()
    if args.cpus:
        os.sched_setaffinity(0, args.cpus)
    # The gradings run in processes started below, which read these when they start: one BLAS
    # thread and the C library's memory settings, as every worker has.
    os.environ.update({name: value for name, value in worker_env("/").items()
                       if name.startswith(("MALLOC_", "OMP_", "OPENBLAS_", "MKL_"))})
    names, runs = (["word2vec"], 1) if args.quick else (args.assignment, args.runs)
    print(machine())
    print(f"{runs} gradings of the reference per side, each in a fresh process")
    for name in names:
        seconds = time_both(name, runs)
        ratios = [w / i for w, i in zip(seconds[WORKERS], seconds[IN_PROCESS])]
        overhead = statistics.median(ratios) - 1
        print(f"{name}:")
        for side in (WORKERS, IN_PROCESS):
            print(f"  {side:13} {Summary.of(seconds[side]).show()}")
        print(f"  the workers add {100 * overhead:+.0f} % (per-run ratios "
              f"{', '.join(f'{r:.2f}' for r in ratios)}): goal < {100 * GOAL:.0f} % "
              f"{'met' if overhead < GOAL else 'MISSED'}")


if __name__ == "__main__":
    main()
