"""Mutation analysis of the grader: does it catch bugs nobody planted, and charge them fairly?

For each assignment, mutants of the reference solution are made from its syntax tree
(benchmarks/mutants/operators.py: swapped operators, constants and bounds off by one, other axes,
transposes, swapped arguments, removed statements, copies made in place, state kept between calls,
hyperparameters replaced by their defaults, ...), inside the solution blocks only. A differential
oracle (benchmarks/mutants/oracle.py, with scenarios written from the docstrings) keeps those that
behave differently from the reference. Each of those is graded twice with every test and once by the
bundle's `check`, and the report says, per assignment:

- caught: the mutant lost points;
- charged in its owner: every point it lost is in the question that owns the mutated function;
- the same twice: both gradings gave every test the same score;
- check agrees: the bundle's check gives each public test the grader's score (or leaves it pending);
- the self-check flags it => the grader does: of the mutants the files' own checks flag, those caught.

A behaviour-changing mutant that loses nothing is a missing test, or an equivalent the oracle could
not see: benchmarks/mutants/equivalents.yaml lists those with the reason.

--blind grades the bugs a helper wrote as students would, without reading the grader
(tests/fixtures/blind_bugs.py), the same way, and its correct alternatives, which must lose nothing.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from multiprocessing import get_context
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.mutants import oracle, parser_scenarios, word2vec_scenarios  # noqa: E402
from benchmarks.mutants.grading import Graded, grade_mutant, owner_map  # noqa: E402
from benchmarks.mutants.operators import OPERATORS, Mutant, mutants_of  # noqa: E402
from benchmarks.summary import argument_parser, machine  # noqa: E402

ASSIGNMENTS = {
    "word2vec": (["nn_basics.py", "word2vec.py", "sgd.py"], word2vec_scenarios.SCENARIOS),
    "parser": (["optim.py", "layers.py", "parser_transitions.py", "parser_model.py", "run.py"],
               parser_scenarios.SCENARIOS),
}
EQUIVALENTS = Path(__file__).resolve().parent / "mutants" / "equivalents.yaml"


@dataclass
class Record:
    """One mutant and all that was found out about it."""

    mutant: Mutant
    owner: str
    folder: Path
    unit_owners: set[str] = field(default_factory=set)  # the questions of its unit's functions
    changes: str | None = None  # where the oracle saw it differ from the reference; None: equivalent
    graded: Graded | None = None

    @property
    def caught(self) -> bool:
        return bool(self.graded and self.graded.lost())

    @property
    def charged_in_owner(self) -> bool:
        return bool(self.graded) and set(self.graded.lost()) <= {self.owner}

    @property
    def charged_in_unit(self) -> bool:
        """Charged only in questions that own a function of its unit: forward and backward share a
        cache whose layout is the student's, so a forward that breaks it leaves backward's question
        nothing to grade with (docs/architecture.md, error carried forward)."""
        return bool(self.graded) and set(self.graded.lost()) <= {self.owner} | self.unit_owners

    @property
    def same_twice(self) -> bool:
        return bool(self.graded) and self.graded.grades[0] == self.graded.grades[-1]

    @property
    def disagreements(self) -> list[str]:
        """Public tests to which check gives another score than the grader (pending ones agree)."""
        if not self.graded:
            return []
        first = self.graded.grades[0]
        return [n for n, score in self.graded.check.items()
                if n not in self.graded.pending and abs(score - first.get(n, -1.0)) > 1e-9]


def select(mutants: list[Mutant], count: int, seed: int) -> list[Mutant]:
    """``count`` mutants spread over functions and operators: round robin over the functions, and in
    each over its operators, every group shuffled with ``seed``, so that no function or operator with
    many sites crowds out the others."""
    unique = list({(m.file, m.source): m for m in mutants}.values())
    groups: dict[str, dict[str, list[Mutant]]] = defaultdict(lambda: defaultdict(list))
    for mutant in unique:
        groups[mutant.function][mutant.operator].append(mutant)
    generator = random.Random(seed)
    queues = []
    for function in sorted(groups):
        operators = [groups[function][op] for op in sorted(groups[function])]
        for members in operators:
            generator.shuffle(members)
        queues.append([m for turn in range(max(map(len, operators))) for members in operators
                       if turn < len(members) for m in [members[turn]]])
    chosen: list[Mutant] = []
    for turn in range(max(map(len, queues), default=0)):
        chosen += [queue[turn] for queue in queues if turn < len(queue)]
    return sorted(chosen[:count], key=lambda m: (m.file, m.line, m.operator, m.after))


def folder_for(name: str, mutant: Mutant | None, base: Path, index: int) -> Path:
    """A submission folder: the reference's files, with the mutant's file in place of its own."""
    folder = base / f"{name}-{index:04d}"
    # the reference's written answers too, so that the written questions score in full
    shutil.copytree(REPO / "solutions" / name, folder, ignore=shutil.ignore_patterns("__pycache__"))
    if mutant is not None:
        (folder / mutant.file).write_text(mutant.source)
    return folder


def release_bundle(name: str, base: Path) -> Path:
    bundle = base / f"bundle-{name}"
    subprocess.run([sys.executable, "-m", "autograder", "release", name, "--out", str(bundle), "--without-data"],
                   cwd=REPO, check=True, capture_output=True)
    return bundle


def equivalents() -> dict[str, str]:
    if not EQUIVALENTS.is_file():
        return {}
    return {entry["mutant"]: entry["reason"] for entry in yaml.safe_load(EQUIVALENTS.read_text()) or []}


def mutant_records(name: str, options, base: Path) -> list[Record]:
    """The chosen mutants of ``name``, each with what the oracle saw of it."""
    files, scenarios = ASSIGNMENTS[name]
    modules = [f.removesuffix(".py") for f in files] + ["utils"]
    generated = [m for f in files for m in mutants_of(REPO / "solutions" / name / f, f)]
    chosen = select(generated, options.mutants, options.seed)
    if options.only:
        chosen = [m for m in chosen if any(text in m.key for text in options.only)]
    owner, unit_owners = owner_map(name)
    print(f"\n== {name}: {len(generated)} mutants made, {len(chosen)} chosen "
          f"({len({m.function for m in chosen})} functions)", flush=True)
    reference = oracle.observe(folder_for(name, None, base, 0), modules, scenarios)
    if oracle.difference(reference, oracle.observe(folder_for(name, None, base, 1), modules, scenarios)):
        raise SystemExit(f"{name}: the reference behaves differently in two observations; fix the scenarios")
    started = time.monotonic()
    records = [Record(m, owner.get(m.function, "?"), folder_for(name, m, base, i), unit_owners.get(m.function, set()))
               for i, m in enumerate(chosen, 2)]

    def observe(record: Record) -> None:
        record.changes = oracle.difference(oracle.observe(record.folder, modules, scenarios), reference)

    with ThreadPoolExecutor(options.jobs) as threads:  # each observation is a process of its own
        list(threads.map(observe, records))
    changing = [r for r in records if r.changes]
    print(f"oracle: {len(changing)} of {len(records)} change behaviour ({time.monotonic() - started:.0f} s)",
          flush=True)
    return records


def blind_records(name: str, base: Path) -> tuple[list[Record], list[Record]]:
    """The bugs and the correct alternatives of tests/fixtures/blind_bugs.py, as records: each bug
    was checked by its author to change behaviour, so no oracle is asked."""
    from tests.fixtures import blind_bugs

    owner, unit_owners = owner_map(name)
    groups = {"word2vec": (blind_bugs.WORD2VEC, blind_bugs.CORRECT_WORD2VEC),
              "parser": (blind_bugs.PARSER, blind_bugs.CORRECT_PARSER)}[name]
    made: list[list[Record]] = [[], []]
    for kind, bugs in enumerate(groups):
        for bug in bugs:
            folder = bug.apply(REPO / "solutions" / name, base / f"{name}-blind-{kind}-{len(made[kind]):03d}")
            mutant = Mutant(bug.file, bug.function, "blind", 0, bug.name, "", "")
            record = Record(mutant, owner.get(bug.function, "?"), folder, unit_owners.get(bug.function, set()))
            record.changes = None if kind else "written to (checked by its author)"
            made[kind].append(record)
    print(f"\n== {name}: {len(made[0])} bugs and {len(made[1])} correct alternatives written blind", flush=True)
    return made[0], made[1]


def grade_all(name: str, records: list[Record], base: Path, pool: ProcessPoolExecutor,
              log: Path | None = None) -> None:
    """Grades every record (twice, and once by check in a bundle released for it); each graded
    record is appended to ``log`` at once, so a run that is stopped keeps what it found."""
    started = time.monotonic()
    bundle = release_bundle(name, base)
    print(f"bundle released ({time.monotonic() - started:.0f} s)", flush=True)
    futures = {pool.submit(grade_mutant, name, str(r.folder), str(bundle)): r for r in records}
    for done, (future, record) in enumerate(futures.items(), start=1):
        record.graded = future.result()
        if log:
            with log.open("a") as lines:
                lines.write(json.dumps({"assignment": name, **as_json(record)}, default=str) + "\n")
        if done % 25 == 0 or done == len(futures):
            print(f"graded {done} of {len(futures)} ({time.monotonic() - started:.0f} s)", flush=True)


def as_json(record: Record) -> dict:
    return {**asdict(record), "mutant": {**asdict(record.mutant), "source": None}, "key": record.mutant.key,
            "caught": record.caught, "charged in owner": record.charged_in_owner}


def percent(part: int, whole: int) -> str:
    return f"{part} of {whole} ({100.0 * part / whole:.1f} %)" if whole else "none"


def report(name: str, records: list[Record], known: dict[str, str], details: bool) -> dict:
    changing = [r for r in records if r.changes]
    caught = [r for r in changing if r.caught]
    survivors = [r for r in changing if not r.caught]
    listed = [r for r in survivors if r.mutant.key in known]
    figures = {
        "mutants": len(records),
        "behaviour-changing": len(changing),
        "caught": len(caught),
        "caught or listed as equivalent": len(caught) + len(listed),
        "charged only in the owner": sum(r.charged_in_owner for r in caught),
        "charged only in the owner's unit": sum(r.charged_in_unit for r in caught),
        "the same score twice": sum(r.same_twice for r in changing),
        "check agrees with grade": sum(not r.disagreements for r in changing),
    }
    print(f"\n{name}: {len(records)} mutants, {len(changing)} change behaviour (the oracle), "
          f"{len(records) - len(changing)} do not")
    print(f"  caught                         {percent(len(caught), len(changing))}"
          f"; with the {len(listed)} listed equivalents: {percent(len(caught) + len(listed), len(changing))}")
    in_unit = figures["charged only in the owner's unit"]
    print(f"  charged only in the owner      {percent(figures['charged only in the owner'], len(caught))}"
          f"; in the owner's unit: {percent(in_unit, len(caught))}")
    print(f"  the same score twice           {percent(figures['the same score twice'], len(changing))}")
    print(f"  check agrees with grade        {percent(figures['check agrees with grade'], len(changing))}")
    by_operator = Counter(r.mutant.operator for r in changing)
    caught_by = Counter(r.mutant.operator for r in caught)
    print("  by operator: " + ", ".join(f"{op} {caught_by[op]}/{n}" for op, n in sorted(by_operator.items())))
    problems = [
        ("not caught", [r for r in survivors if r.mutant.key not in known], lambda r: f"changes {r.changes}"),
        ("charged outside the owner's unit", [r for r in caught if not r.charged_in_unit],
         lambda r: f"owner {r.owner}, lost {_lost(r.graded.lost())}"),
        ("charged in another question of the owner's unit", [r for r in caught if r.charged_in_unit and
                                                             not r.charged_in_owner],
         lambda r: f"owner {r.owner}, lost {_lost(r.graded.lost())}"),
        ("a different score the second time", [r for r in changing if not r.same_twice],
         lambda r: f"{_total(r.graded, 0)} then {_total(r.graded, -1)}"),
        ("check disagrees", [r for r in changing if r.disagreements],
         lambda r: ", ".join(f"{n}: check {r.graded.check[n]:g}, grade {r.graded.grades[0].get(n, 0):g}"
                             for n in r.disagreements)),
    ]
    for title, found, why in problems:
        if found:
            print(f"  {title}: {len(found)}")
            for record in found[: None if details else 12]:
                print(f"    - {record.mutant.key} (line {record.mutant.line}): {why(record)}")
    for record in listed:
        print(f"  listed equivalent: {record.mutant.key}: {known[record.mutant.key]}")
    return figures


def _lost(lost: dict[str, float]) -> str:
    return ", ".join(f"{points:g} in {question}" for question, points in sorted(lost.items()))


def _total(graded: Graded, run: int) -> str:
    return f"{sum(graded.grades[run].values()):g}"


def main() -> None:
    parser = argument_parser(__doc__, __file__, "--jobs 2", "--blind --jobs 2", "--quick")
    parser.add_argument("--assignment", choices=sorted(ASSIGNMENTS), action="append",
                        help="only this assignment (may repeat; default: both)")
    parser.add_argument("--mutants", type=int, default=360, help="mutants chosen per assignment (default 360)")
    parser.add_argument("--jobs", type=int, default=1, help="mutants graded at the same time (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="seeds which mutants are chosen (default 0)")
    parser.add_argument("--only", metavar="TEXT", action="append",
                        help="only the chosen mutants whose key contains TEXT (may repeat: any of them)")
    parser.add_argument("--details", action="store_true", help="list every problem case, not the first 12")
    parser.add_argument("--json", metavar="PATH", help="also write every mutant's record as JSON")
    parser.add_argument("--log", metavar="PATH", type=Path,
                        help="append each graded mutant's record to PATH (JSON lines) as soon as it is graded")
    parser.add_argument("--quick", action="store_true", help="4 mutants of word2vec (a smoke test)")
    parser.add_argument("--blind", action="store_true",
                        help="grade the bugs written blind (tests/fixtures/blind_bugs.py) instead of mutants")
    options = parser.parse_args()
    if options.quick:
        options.mutants, options.assignment = 4, options.assignment or ["word2vec"]
    print(machine())
    known = equivalents()
    results, everything = {}, {}
    with tempfile.TemporaryDirectory() as temporary, \
            ProcessPoolExecutor(options.jobs, mp_context=get_context("spawn")) as pool:
        for name in options.assignment or sorted(ASSIGNMENTS, reverse=True):
            if options.blind:
                records, correct = blind_records(name, Path(temporary))
                grade_all(name, records + correct, Path(temporary), pool, options.log)
                results[name] = report(name, records, known, options.details)
                full = [r for r in correct if not r.caught]
                results[name]["correct alternatives with full marks"] = f"{len(full)} of {len(correct)}"
                print(f"  correct alternatives with full marks: {len(full)} of {len(correct)}")
            else:
                records = mutant_records(name, options, Path(temporary))
                grade_all(name, [r for r in records if r.changes], Path(temporary), pool, options.log)
                results[name] = report(name, records, known, options.details)
            everything[name] = [as_json(r) for r in records]
    if options.json:
        Path(options.json).write_text(json.dumps(everything, indent=1, default=str))
    print("\n" + json.dumps(results))
    print("operators: " + "; ".join(f"{k}: {v}" for k, v in OPERATORS.items()))


if __name__ == "__main__":
    main()
