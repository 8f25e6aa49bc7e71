"""What error carried forward costs and gives: grading time and score, with and without it.

For the reference and for planted bugs in helpers (functions that tests of other questions reach),
each submission is graded twice in turns, in this process with workers as usual: once as the
grader does (a test that loses points after reaching another question's function runs again with
the reference's in its place) and once with that rerun switched off. The reference never reruns, so
its two times should agree; a bug in a helper costs points once with it, several times without.
Only the helpers of questions that lost points are replaced; a parser bug that breaks training reruns
the end-to-end question's training with those answered by the grader, Adam's step (the model's whole
state crossing at every step) the heaviest case.
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
from autograder.grading.expected import LiveReference  # noqa: E402
from autograder.grading.grade import grade, module_names  # noqa: E402
from autograder.grading.reference import load_reference  # noqa: E402
from benchmarks.summary import argument_parser, machine  # noqa: E402
from tests.fixtures import parser_bugs, word2vec_bugs  # noqa: E402

CASES = {
    "word2vec": ["softmax normalises over the wrong axis", "sigmoid_grad uses the input instead of the output",
                 "softmax overflows on large inputs", "word2vec sigmoid with the wrong sign"],
    "parser": ["dropout active at evaluation", "embedding lookup concatenates in the wrong order",
               "LEFT-ARC takes the stack item from the wrong end",
               "minibatch_parse returns parses in the order they finish", "Adam steps uphill"],
}
QUICK = {"word2vec": CASES["word2vec"][:1], "parser": CASES["parser"][:1]}


class WithoutRerun(LiveReference):
    """The reference's expected values, with no helper source: tests never run again."""

    def helper_source(self) -> None:  # type: ignore[override]
        return None


def timed(assignment, submission: Path, expected) -> tuple[float, float]:
    started = time.perf_counter()
    results = grade(assignment, submission, expected=expected)
    return time.perf_counter() - started, results.score


def main() -> None:
    parser = argument_parser(__doc__, __file__, "", "--quick", "--runs 5")
    parser.add_argument("--runs", type=int, default=3, help="gradings of each submission per side")
    parser.add_argument("--quick", action="store_true", help="one bug per assignment, one run (a smoke test)")
    options = parser.parse_args()
    runs = 1 if options.quick else options.runs
    print(machine())
    print(f"{'submission':58s} {'with (s)':>9s} {'without':>8s} {'score with':>11s} {'without':>8s}")
    for name, bugs in (QUICK if options.quick else CASES).items():
        assignment = load_assignment(name)
        modules = load_reference(assignment.solution_dir, module_names(assignment.config))
        fixtures = __import__(assignment.fixtures_module, fromlist=["_"])
        sides = {"with": LiveReference(modules, fixtures), "without": WithoutRerun(modules, fixtures)}
        catalogue = {b.name: b for b in (word2vec_bugs if name == "word2vec" else parser_bugs).BUGS}
        with tempfile.TemporaryDirectory() as folder:
            submissions = {"reference": assignment.solution_dir}
            for bug in bugs:
                submissions[bug] = catalogue[bug].apply(assignment.solution_dir, Path(folder, str(len(submissions))))
            for label, submission in submissions.items():
                times: dict[str, list[float]] = {"with": [], "without": []}
                scores: dict[str, float] = {}
                for _ in range(runs):
                    for side, expected in sides.items():  # in turns, so drift hits both alike
                        seconds, scores[side] = timed(assignment, submission, expected)
                        times[side].append(seconds)
                print(f"{name + ': ' + label:58.58s} {statistics.median(times['with']):9.2f} "
                      f"{statistics.median(times['without']):8.2f} {scores['with']:11.2f} "
                      f"{scores['without']:8.2f}", flush=True)
                if scores["with"] < scores["without"] - 1e-9:
                    sys.exit(f"error: {label} scores less with error carried forward than without")


if __name__ == "__main__":
    main()
