"""How well the machine checks the final formulas of written derivations, on labelled sets of
student answers: right ones in many notations, wrong ones with the usual mistakes (sign, missing
transpose, sigma(x)sigma(1-x) for sigma(x)(1-sigma(x)), a missing factor, a dropped sum, the one-hot
forgotten). benchmarks/data/derivation_answers.yaml was at hand while the reader was written;
derivation_answers_heldout.yaml was written afterwards by someone who never saw the reader.

Per question and in all: false "equal" (a wrong answer judged equal; the goal is 0), right answers
recognised (judged equal; the goal is at least 90 %), and how many answers could not be read; then
the time to judge one answer. With --details, every answer whose verdict is not its label's.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from autograder.core.config import load_assignment  # noqa: E402
from autograder.written.derivations.verdict import judge  # noqa: E402
from autograder.written.handout_data import derivation_questions  # noqa: E402
from benchmarks.summary import Summary, argument_parser, machine  # noqa: E402

SETS = {
    "labelled (at hand while the reader was written)": REPO / "benchmarks" / "data" / "derivation_answers.yaml",
    "held out (written afterwards, never seen by the reader's author)": REPO
    / "benchmarks"
    / "data"
    / "derivation_answers_heldout.yaml",
    "held out again (written blind to the reader after its third trial as a user)": REPO
    / "benchmarks"
    / "data"
    / "derivation_answers_heldout2.yaml",
}
RECOGNISED_GOAL = 0.9


@dataclass
class Tally:
    """One question's (or all questions') counts: label -> verdict -> answers."""

    counts: Counter = field(default_factory=Counter)

    def add(self, label: str, status: str) -> None:
        self.counts[label, status] += 1

    def total(self, label: str) -> int:
        return sum(n for (l, _), n in self.counts.items() if l == label)

    def row(self, name: str) -> str:
        right, wrong = self.total("right"), self.total("wrong")
        recognised = self.counts["right", "equal"]
        unreadable = self.counts["right", "unreadable"] + self.counts["wrong", "unreadable"]
        share = f"{100 * recognised / right:5.1f} %" if right else "   -   "
        return (f"{name:<16} {right:>5} {recognised:>10} {share:>8} {wrong:>5} {self.counts['wrong', 'equal']:>11}"
                f" {self.counts['wrong', 'not equal']:>9} {unreadable:>10}")


HEADER = (f"{'question':<16} {'right':>5} {'recognised':>10} {'share':>8} {'wrong':>5} {'false equal':>11}"
          f" {'not equal':>9} {'unreadable':>10}")


def measure(labelled: list[dict], questions: dict, details: bool) -> bool:
    """Prints the table of one set; whether no wrong answer was judged equal."""
    tallies: dict[str, Tally] = {}
    overall, seconds, missed = Tally(), [], []
    for item in labelled:
        started = time.perf_counter()
        verdict = judge(item["answer"], questions[item["assignment"]][item["question"]])
        seconds.append(time.perf_counter() - started)
        key = f"{item['assignment']} {item['question']}"
        tallies.setdefault(key, Tally()).add(item["label"], verdict.status)
        overall.add(item["label"], verdict.status)
        if (item["label"] == "right") != (verdict.status == "equal"):
            missed.append((item, verdict))
    print(HEADER)
    for key in sorted(tallies):
        print(tallies[key].row(key))
    print(overall.row("all"))
    timing = Summary.of(seconds)
    print(f"time to judge one answer: median {1000 * timing.median:.1f} ms, slowest {1000 * timing.high:.1f} ms")
    false_equal = overall.counts["wrong", "equal"]
    share = overall.counts["right", "equal"] / overall.total("right")
    print(f"goals: no false equal ({'met' if false_equal == 0 else f'missed: {false_equal}'}); "
          f"at least {RECOGNISED_GOAL:.0%} of the right answers recognised "
          f"({'met' if share >= RECOGNISED_GOAL else 'missed'}: {share:.1%})")
    if details:
        for item, verdict in missed:
            print(f"\n{item['id']} [{item['label']}{' ' + item['mistake'] if item['mistake'] else ''}; "
                  f"{item['notation']}] judged {verdict.status}:\n  " + verdict.summary().replace("\n", "\n  "))
    return false_equal == 0


def main() -> None:
    parser = argument_parser(
        __doc__, __file__, "", "--details", "--set benchmarks/data/derivation_answers_blind3.yaml --details"
    )
    parser.add_argument("--details", action="store_true", help="list every answer whose verdict is not its label")
    parser.add_argument(
        "--set", type=Path, metavar="YAML", help="measure this labelled set only (a new set's first run)"
    )
    options = parser.parse_args()
    questions = {name: derivation_questions(load_assignment(name)) for name in ("word2vec", "parser")}
    print(machine())
    sound = True
    sets = {"the set given": options.set.resolve()} if options.set else SETS
    for name, path in sets.items():
        labelled = yaml.safe_load(path.read_text())
        print(f"\n{name}: {len(labelled)} answers from {path.relative_to(REPO)}")
        sound = measure(labelled, questions, options.details) and sound
    if not sound:
        sys.exit("error: a wrong answer was judged equal")


if __name__ == "__main__":
    main()
