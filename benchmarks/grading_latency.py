"""How long grading a correct submission takes, and how much memory it needs, as a student waits for it.

Each run is one ``python -m autograder grade ASSIGNMENT solutions/ASSIGNMENT`` in a new process: the
grader's start, the probe of the machine's protections, the import check and every question's
worker, up to the written results.json. Two conditions:

- all cores, no memory limit;
- one core (CPU 0) and a 768 MB memory cgroup around the grader and all its workers: Gradescope's
  default machine. The goal: under 60 s per assignment, within 768 MB, full marks.

Memory, per run: the cgroup's peak (every process together, as the limit counts it: resident memory
and the page cache charged to them), and the peak resident size of the grader itself and of the
largest process on the workers' side (fork server, supervisor or the worker's child; pages shared
with the fork server count in each).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from autograder.core.config import available_assignments, load_assignment  # noqa: E402
from benchmarks.cgroup import MemoryCgroup  # noqa: E402
from benchmarks.summary import Summary, argument_parser, machine  # noqa: E402

SECONDS_GOAL = 60.0
MB = 1024 * 1024
# Runs the grade command in this process, then writes its own peak and its descendants' largest.
_MEASURED = (
    "import json, resource, sys; from autograder.cli.main import main; status = main(sys.argv[2:]); "
    "peak = lambda who: resource.getrusage(who).ru_maxrss * 1024; "
    "open(sys.argv[1], 'w').write(json.dumps({'status': status, 'grader': peak(resource.RUSAGE_SELF), "
    "'workers': peak(resource.RUSAGE_CHILDREN)}))"
)


@dataclass(frozen=True)
class Condition:
    name: str
    cpus: set[int] | None  # None: all
    memory_mb: int | None  # None: no limit


@dataclass(frozen=True)
class Run:
    seconds: float
    grader_bytes: int
    workers_bytes: int
    cgroup_bytes: int | None
    oom_kills: int


def grade_once(assignment: str, condition: Condition, measure_cgroup: bool, index: int) -> Run:
    """One full grading of the reference; exits if it fails or does not get full marks."""
    with tempfile.TemporaryDirectory(prefix="grading-latency-") as folder:
        results, peaks = Path(folder, "results.json"), Path(folder, "peaks.json")
        cgroup = None
        if measure_cgroup:
            limit = condition.memory_mb * MB if condition.memory_mb else None
            cgroup = MemoryCgroup(f"grading-latency-{os.getpid()}-{index}", limit)

        def confine() -> None:  # in the grading's process, before it starts
            if condition.cpus is not None:
                os.sched_setaffinity(0, condition.cpus)
            if cgroup is not None:
                cgroup.enter()

        command = [sys.executable, "-c", _MEASURED, str(peaks), "grade", assignment,
                   f"solutions/{assignment}", "--results", str(results)]
        try:
            started = time.perf_counter()
            run = subprocess.run(command, cwd=REPO, capture_output=True, text=True, preexec_fn=confine)
            seconds = time.perf_counter() - started
            cgroup_bytes = cgroup.peak_bytes if cgroup else None
            oom_kills = cgroup.oom_kills if cgroup else 0
        finally:
            if cgroup is not None:
                cgroup.remove()
        score = json.loads(results.read_text())["score"] if results.exists() else None
        total = load_assignment(assignment).config.total_points
        if run.returncode != 0 or not peaks.exists() or score != total or oom_kills:
            sys.exit(f"{assignment} ({condition.name}): exit status {run.returncode}, score {score} of "
                     f"{total:g}, {oom_kills} processes killed for memory\n{run.stdout}\n{run.stderr}")
        measured = json.loads(peaks.read_text())
        return Run(seconds, measured["grader"], measured["workers"], cgroup_bytes, oom_kills)


def report(assignment: str, condition: Condition, runs: list[Run]) -> None:
    def megabytes(values: list[int]) -> str:
        return Summary.of([v / MB for v in values]).show("MB", digits=0)

    seconds = Summary.of([r.seconds for r in runs])
    print(f"{assignment}, {condition.name}:")
    print(f"  wall time          {seconds.show()}")
    print(f"  grader peak RSS    {megabytes([r.grader_bytes for r in runs])}")
    print(f"  largest worker RSS {megabytes([r.workers_bytes for r in runs])}")
    cgroups = [r.cgroup_bytes for r in runs if r.cgroup_bytes is not None]
    if cgroups:
        print(f"  all processes      {megabytes(cgroups)} (cgroup peak)")
    if condition.memory_mb:
        worst = max(cgroups) / MB if cgroups else None
        met = seconds.high < SECONDS_GOAL and worst is not None and worst < condition.memory_mb
        print(f"  goal: under {SECONDS_GOAL:g} s (slowest run {seconds.high:.1f} s), within "
              f"{condition.memory_mb} MB (highest peak {'not measured' if worst is None else f'{worst:.0f} MB'}),"
              f" no process killed: {'met' if met else 'MISSED'}")


def main() -> None:
    parser = argument_parser(__doc__, __file__, "", "--assignment parser --runs 9", "--quick")
    parser.add_argument("--assignment", nargs="+", choices=available_assignments(),
                        default=available_assignments(), help="default: all")
    parser.add_argument("--runs", type=int, default=5, help="gradings per assignment and condition (default 5)")
    parser.add_argument("--memory-mb", type=int, default=768, help="the one-core condition's limit (default 768)")
    parser.add_argument("--no-cgroup", action="store_true",
                        help="no memory cgroup (needs root and cgroup v1): no limit, no cgroup peak")
    parser.add_argument("--quick", action="store_true", help="a smoke run: word2vec, one grading per condition")
    args = parser.parse_args()
    conditions = [Condition("all cores", None, None),
                  Condition(f"one core, {args.memory_mb} MB", {0}, None if args.no_cgroup else args.memory_mb)]
    names, runs = (["word2vec"], 1) if args.quick else (args.assignment, args.runs)
    print(machine())
    print(f"{runs} gradings of the reference per assignment and condition, each a new "
          f"`python -m autograder grade`")
    for name in names:
        for condition in conditions:
            report(name, condition, [grade_once(name, condition, not args.no_cgroup, i) for i in range(runs)])


if __name__ == "__main__":
    main()
