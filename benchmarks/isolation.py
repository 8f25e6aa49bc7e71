"""What a world of its own costs each worker: namespaces (pid, mount, ipc, network) and the private
file-system view, against the protections the grader had before them (user, network namespace,
seccomp, limits: today's fallback where the kernel refuses namespaces); and the question's memory
budget counted by the kernel (a memory cgroup per worker) against the supervisor's watch.

Two measurements, both sides taking turns in one run:

- per worker: a fresh worker forked from a running fork server, up to the answer of its first call
  (a function that returns at once): what every question pays;
- per grading: grading the reference in this process with each side's isolation (the probe of the
  machine's protections is made once per side, outside the timing; a grading makes its own).

Every grading checks that both sides scored every test alike.
"""

from __future__ import annotations

import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from autograder.core.config import Limits, available_assignments, load_assignment  # noqa: E402
from autograder.boundary.fork_client import ForkServer  # noqa: E402
from autograder.grading.grade import grade, module_names  # noqa: E402
from autograder.boundary.isolation import Isolation, detect_isolation  # noqa: E402
from autograder.grading.reference import load_reference  # noqa: E402
from autograder.boundary.session import WorkerSession, WorkerSpec  # noqa: E402
from benchmarks.summary import Summary, argument_parser, machine  # noqa: E402


def sides() -> dict[str, Isolation]:
    """Without namespaces, with them, and, where the grader can make memory cgroups, with them and
    the memory watched by the supervisor instead (as on a machine that cannot)."""
    full = detect_isolation()
    if not full.namespaces:
        sys.exit(f"no namespaces on this machine: {dict(full.off).get('namespaces')}")
    before = replace(full, namespaces=False, user_namespace=False)
    found = {"before (no namespaces)": before, "with namespaces": full}
    if full.memory_cgroup:
        found = {
            "before (no namespaces)": before,
            "namespaces, memory watched": replace(full, memory_cgroup=False),
            "namespaces, memory cgroup": full,
        }
    return found


def per_worker(isolation: Isolation, module: Path, runs: int) -> list[float]:
    spec = WorkerSpec({"mod.py": module}, None, Limits(), isolation)
    seconds = []
    with ForkServer(isolation.python, None) as server:
        with WorkerSession(spec, 30, "warm-up", forkserver=server) as session:
            session.call("mod.nothing")  # the fork server's own start is not a worker's cost
        for _ in range(runs):
            started = time.perf_counter()
            with WorkerSession(spec, 30, "1", forkserver=server) as session:
                session.call("mod.nothing")
                seconds.append(time.perf_counter() - started)
    return seconds


def per_grading(name: str, isolations: dict[str, Isolation], runs: int) -> dict[str, list[float]]:
    assignment = load_assignment(name)
    reference = load_reference(assignment.solution_dir, module_names(assignment.config))
    seconds: dict[str, list[float]] = {side: [] for side in isolations}
    for run in range(runs):
        scores = {}
        for side in (list(isolations) if run % 2 == 0 else list(reversed(isolations))):
            started = time.perf_counter()
            results = grade(assignment, assignment.solution_dir, reference=reference, isolation=isolations[side])
            seconds[side].append(time.perf_counter() - started)
            scores[side] = {test.number: test.score for test in results.tests}
        if len({tuple(sorted(s.items())) for s in scores.values()}) != 1:
            sys.exit(f"{name}: the sides scored tests differently")
    return seconds


def main() -> None:
    parser = argument_parser(__doc__, __file__, "", "--runs 20", "--quick")
    parser.add_argument("--runs", type=int, default=10, help="gradings per side; 10 times as many workers")
    parser.add_argument("--quick", action="store_true", help="a smoke run: word2vec, two gradings per side")
    args = parser.parse_args()
    runs = 2 if args.quick else args.runs
    isolations = sides()
    print(machine())
    with tempfile.TemporaryDirectory() as folder:
        module = Path(folder, "mod.py")
        module.write_text("def nothing():\n    return None\n")
        print(f"per worker ({10 * runs} fresh workers per side, start and first call):")
        for side, isolation in isolations.items():
            print(f"  {side:24} {_ms(per_worker(isolation, module, 10 * runs))}")
    for name in (["word2vec"] if args.quick else available_assignments()):
        print(f"grading {name}'s reference ({runs} per side):")
        for side, seconds in per_grading(name, isolations, runs).items():
            print(f"  {side:24} {Summary.of(seconds).show()}")


def _ms(seconds: list[float]) -> str:
    return Summary.of([1000 * s for s in seconds]).show("ms", 1)


if __name__ == "__main__":
    main()
