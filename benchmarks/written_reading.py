"""How long reading, grading, checking and exporting one answer file takes, for answer files made to
be slow (tests/fixtures/adversarial_answers.py): each once took from seconds to hours at its size.

For each file, at --size-mb (8, the size cap, by default) and at an eighth of it, in turns: reading
it as grading does (``submitted_answers``: the child process with its time limit included), grading
the written questions with their tests, ``check-written`` (which reads it again) and rendering its
answers for ``export-written``. The goal: reading and grading under 2 s at 8 MB, in time linear in the
size (the last column: the time at the full size over the time at an eighth, about 8 when linear;
small times are mostly fixed costs, so their ratio is lower). With --grade, the whole grading of the
parser reference's code beside the slowest file, against the same code beside its own answers.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from autograder.core.config import load_assignment  # noqa: E402
from autograder.grading.grade import grade  # noqa: E402
from benchmarks.summary import Summary, argument_parser, machine  # noqa: E402
from tests.fixtures.adversarial_answers import CASES, Reading, read_and_grade  # noqa: E402

GOAL = 2.0  # seconds to read and grade one answer file of 8 MB
QUICK = ["spaces in a table cell", "dollar signs", "unclosed comments under a non-question heading",
         "a notebook cell of dollar signs"]
STAGES = ("read", "grade", "check", "export")


def measure(assignment, case: str, size: int, runs: int, folder: Path) -> tuple[dict[str, Summary], Reading]:
    submission = CASES[case].write(folder / f"{case}-{size}", size)
    times: dict[str, list[float]] = {stage: [] for stage in (*STAGES, "read+grade")}
    for _ in range(runs):
        reading = read_and_grade(assignment, submission)
        for stage in STAGES:
            times[stage].append(reading.seconds[stage])
        times["read+grade"].append(reading.seconds["read"] + reading.seconds["grade"])
        if any("took longer than" in output for _, output in reading.scores.values()):
            sys.exit(f"error: {case} ran into the reading's time limit: {reading.note}")
    return {stage: Summary.of(values) for stage, values in times.items()}, reading


def whole_grading(assignment, case: str, size: int, runs: int, folder: Path) -> tuple[Summary, Summary]:
    """Grading the reference's code beside ``case``'s file, and beside the reference's own answers."""
    sides = {"adversarial": CASES[case].write(folder / "graded", size), "reference": assignment.solution_dir}
    for name in assignment.config.submission_files:
        (sides["adversarial"] / name).write_bytes((assignment.solution_dir / name).read_bytes())
    times: dict[str, list[float]] = {side: [] for side in sides}
    for _ in range(runs):
        for side, submission in sides.items():  # in turns
            started = time.perf_counter()
            grade(assignment, submission)
            times[side].append(time.perf_counter() - started)
    return Summary.of(times["adversarial"]), Summary.of(times["reference"])


def main() -> None:
    parser = argument_parser(__doc__, __file__, "", "--quick", "--size-mb 8 --runs 5 --grade")
    parser.add_argument("--size-mb", type=float, default=8.0, help="size of each answer file (default: 8)")
    parser.add_argument("--runs", type=int, default=3, help="measurements of each file at each size")
    parser.add_argument("--grade", action="store_true", help="also time the whole grading beside the slowest file")
    parser.add_argument("--quick", action="store_true", help="four files at 256 KB, one run (a smoke test)")
    options = parser.parse_args()
    size = int((0.25 if options.quick else options.size_mb) * 2**20)
    runs = 1 if options.quick else options.runs
    assignment = load_assignment("parser")
    print(machine())
    print(f"answer files of {size / 2**20:g} MB (and {size / 8 / 2**20:g} MB), median of {runs} run(s) "
          "with the lowest and highest")
    slowest: tuple[float, str] = (0.0, "")
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        for case in (QUICK if options.quick else CASES):
            full, reading = measure(assignment, case, size, runs, folder)
            eighth, _ = measure(assignment, case, size // 8, runs, folder)
            ratio = full["read+grade"].median / max(eighth["read+grade"].median, 1e-6)
            print(f"{case}: read and grade {full['read+grade'].show()} (read {full['read'].median:.2f}, "
                  f"grade {full['grade'].median:.2f}); check-written {full['check'].show()}; "
                  f"export {full['export'].median:.2f} s; x{ratio:.1f} for 8 times the size; {reading.outcome()}",
                  flush=True)
            slowest = max(slowest, (full["read+grade"].median, case))
        verdict = ("met" if slowest[0] < GOAL else "missed") if size >= 8 * 2**20 else "not measured at this size"
        print(f"slowest reading and grading: {slowest[0]:.2f} s ({slowest[1]}); goal, under {GOAL:g} s at 8 MB: "
              f"{verdict}")
        if options.grade:
            adversarial, reference = whole_grading(assignment, slowest[1], size, runs, folder)
            print(f"grading the parser reference's code beside that file: {adversarial.show()}; beside its own "
                  f"answers: {reference.show()}")


if __name__ == "__main__":
    main()
