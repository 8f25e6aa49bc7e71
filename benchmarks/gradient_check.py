"""Gradient checking: how our autograder decides that a gradient is wrong, against the naive check.

The gradients are those the graded tests check, with the tests' own inputs: word2vec's
``forward_backward_prop`` (dJ/dparams) and ``input_gradient`` (dJ/dX), the naive-softmax and
negative-sampling gradients for the center and the outside vectors, ``skipgram``'s gradients (with the
probe loss); the parser's softmax cross-entropy (dlogits) and every parameter of ``ParserModel``.
Each is checked on the reference and on every planted bug (tests/fixtures) that changes one of them.

- naive: what the course's own grader and a typical autograder do. The student's loss is compared
  with the reference's, and the student's gradient with centred differences of the student's own loss,
  coordinate by coordinate: ``gradcheck_naive`` of the assignment's ``utils/gradcheck.py``, two Python
  calls of the student's function per coordinate. It runs in this process, as those graders do.
- ours: what our tests do, with the tests' own code (``GradedTestCase.assert_gradient``,
  ``ModelMixin.check_gradients``, ...): the student's outputs are compared with the reference's, and
  only a gradient that differs is explained against the student's own loss. Measured twice: with the
  student's code called in this process (benchmarks/in_process.py), the same place as naive, so the
  ratio compares the two methods; and through a worker, as grading runs it.

Both sides must flag exactly the same submissions and pass the reference; the script exits with an
error if they do not. Like a worker, this process uses one BLAS thread.
"""

from __future__ import annotations

import os

# Before numpy is imported, as in every worker (sandbox._worker_env).
for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_name] = "1"

import importlib  # noqa: E402
import importlib.util  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import unittest  # noqa: E402
import warnings  # noqa: E402
from dataclasses import dataclass, replace  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, Callable  # noqa: E402

import numpy as np  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from autograder.grading import checks  # noqa: E402
from autograder.assignments.parser import public_tests as parser_tests  # noqa: E402
from autograder.assignments.parser.support import PARAM_NAMES, ModelCase  # noqa: E402
from autograder.assignments.word2vec import public_tests as word2vec_tests  # noqa: E402
from autograder.assignments.word2vec.support import WORDS, network, vectors  # noqa: E402
from autograder.core.config import Assignment, load_assignment  # noqa: E402
from autograder.grading.expected import LiveReference  # noqa: E402
from autograder.grading.grade import module_names, worker_spec  # noqa: E402
from autograder.boundary.isolation import detect_isolation  # noqa: E402
from autograder.contract.protocol import Decoder, Encoder, FixtureRef  # noqa: E402
from autograder.contract.target import Target  # noqa: E402
from autograder.grading.reference import load_reference  # noqa: E402
from autograder.boundary.session import WorkerSession, WorkerSpec  # noqa: E402
from autograder.core.submission import locate  # noqa: E402
from autograder.grading.testing import GradedTestCase, TestContext  # noqa: E402
from benchmarks.in_process import InProcessSession  # noqa: E402
from benchmarks.summary import Summary, argument_parser, machine  # noqa: E402
from tests.fixtures import parser_bugs, word2vec_bugs  # noqa: E402

GOAL = 10.0  # ours must be at least this many times faster than naive
NAIVE, OURS, OURS_WORKER = "naive", "ours", "ours, worker"
GRADCHECK = REPO / "assignment" / "word2vec" / "utils" / "gradcheck.py"  # the course's checker, given code


def _load_gradcheck() -> Any:
    spec = importlib.util.spec_from_file_location("course_gradcheck", GRADCHECK)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


gradcheck = _load_gradcheck()


# --------------------------------------------------------------------------------------- the checks


class Student:
    """The student's functions and the fixtures, called directly in this process (the naive side)."""

    def __init__(self, session: InProcessSession) -> None:
        self.worker = session.worker

    def function(self, target: str) -> Callable[..., Any]:
        return self.worker.student.attr(target)

    def build(self, args: list) -> list:
        """``args`` with every ``FixtureRef`` replaced by the fixture itself, as the worker builds it."""
        encoder = Encoder()
        document = encoder.encode(list(args))
        def fixture(name: str, args: list, kwargs: dict, _ident: str | None) -> Any:
            return getattr(self.worker.fixtures, name)(*args, **kwargs)

        return Decoder(encoder.arrays, fixture=fixture, student=self.worker.student.attr).decode(document)


@dataclass
class GradientCheck:
    """One gradient (or a few from one call) that the tests check, and how each side checks it.

    ``ours(test)`` runs the tests' own checks on a test instance and raises AssertionError on a
    problem; ``naive(student, reference)`` returns the problems it finds (empty: passed).
    """

    label: str
    coordinates: int
    test_class: type[GradedTestCase]
    ours: Callable[[GradedTestCase], None]
    naive: Callable[[Student, LiveReference], list[str]]


def naive_check(student: Student, reference: LiveReference, target: str, args: list,
                wrts: dict[int, int | None], loss_target: str | None = None) -> list[str]:
    """The loss against the reference's, then ``gradcheck_naive`` of ``args[wrt]`` for each
    ``wrt: index of its gradient in the outputs`` (None: the output is the gradient).

    ``loss_target``: another function that gives the loss (``input_gradient`` returns none; the
    course checks it against the cost of ``forward_backward_prop``, as its sanity check does).
    """
    function, loss_function = student.function(target), student.function(loss_target or target)
    built = student.build(args)
    problems = []
    try:
        expected = _first(reference.call(Target.parse(loss_target or target), list(args), {}).value)
        loss = _first(loss_function(*_fresh(built)))
        if not checks.is_close(loss, expected):
            problems.append(f"loss {loss!r}, the reference's {expected!r}")
        for wrt, grad_at in wrts.items():
            def f(x: np.ndarray, wrt: int = wrt, grad_at: int | None = grad_at) -> tuple[float, np.ndarray]:
                call_args = _fresh(built)
                call_args[wrt] = x
                out = function(*call_args)
                if loss_function is function:
                    return _first(out), out[grad_at]
                call_args = _fresh(built)
                call_args[wrt] = x
                return _first(loss_function(*call_args)), out

            result = gradcheck.gradcheck_naive(f, np.asarray(args[wrt], dtype=float))
            if not result.passed:
                problems.append(result.message)
    except Exception as error:  # the student's code raising is a problem found, not a benchmark failure
        problems.append(f"raised {type(error).__name__}: {error}")
    return problems


def _first(value: Any) -> float:
    return float(value[0] if isinstance(value, (tuple, list)) else value)


def _fresh(built: list) -> list:
    """The arguments for one more call: arrays copied, scripted datasets back at their start (so they
    draw the same negatives at x + h and x - h; gradcheck_naive resets the random generators)."""
    for arg in built:
        if hasattr(arg, "reset") and not isinstance(arg, np.ndarray):
            arg.reset()
    return [arg.copy() if isinstance(arg, np.ndarray) else arg for arg in built]


def word2vec_checks() -> list[GradientCheck]:
    pub = word2vec_tests
    found: list[GradientCheck] = []
    for dims, n, seed in (([4, 5, 3], 6, 10), ([6, 8, 4], 20, 11)):  # 1c.1-2 and the hidden 1c.3
        X, labels, params = network(dims, n, seed)
        args = [X, labels, params, dims]

        def ours(test, dims=dims, n=n, seed=seed) -> None:
            test.check_network(dims, n, seed, "cost")
            test.check_network(dims, n, seed, "grad")

        found.append(GradientCheck(f"forward_backward_prop {dims}, {n} examples: dJ/dparams", params.size,
                                   pub.ForwardBackward, ours,
                                   lambda s, r, a=args: naive_check(s, r, "nn_basics.forward_backward_prop", a,
                                                                    {2: 1})))
    for dims, n, seed in (([3, 4, 2], 5, 20), ([7, 6, 5], 12, 21)):  # 1d.1 and the hidden 1d.2
        X, labels, params = network(dims, n, seed)
        args = [X, labels, params, dims]
        found.append(GradientCheck(
            f"input_gradient {dims}, {n} examples: dJ/dX", X.size, pub.InputGradient,
            lambda test, dims=dims, n=n, seed=seed: test.check_input_gradient(dims, n, seed),
            lambda s, r, a=args: naive_check(s, r, "nn_basics.input_gradient", a, {0: None},
                                             loss_target="nn_basics.forward_backward_prop")))
    losses = [(pub.NaiveSoftmax, 5, 3, 30, {}),  # 2b.1-3
              (pub.NaiveSoftmax, 12, 6, 31, {"scale": 30.0, "best_outside": True}),  # hidden 2b.4
              (pub.NegativeSampling, 5, 3, 40, {"samples": pub.NEG_SCRIPT}),  # 2c.1-3
              (pub.NegativeSampling, 8, 4, 41, {"samples": [3, 3, 0, 3, 3, 7, 3, 5], "K": 6})]  # hidden 2c.4
    for cls, n_words, dim, seed, kwargs in losses:
        v_c, U, o = vectors(n_words, dim, seed, kwargs.get("scale", 1.0))
        if kwargs.get("best_outside"):
            o = int(np.argmax(U @ v_c))
        samples = kwargs.get("samples")
        args = [v_c, o, U, FixtureRef("ScriptedDataset", (n_words, samples)) if samples else None]
        args += [kwargs["K"]] if "K" in kwargs else [10] if samples else []

        def ours(test, n_words=n_words, dim=dim, seed=seed, kwargs=kwargs) -> None:
            for part in ("loss", "center", "outside"):
                test.loss_case(n_words, dim, seed, part, f"{n_words} words", **kwargs)

        found.append(GradientCheck(
            f"{Target.parse(cls.target).name} {n_words} words, d = {dim}: center and outside", v_c.size + U.size, cls,
            ours, lambda s, r, t=cls.target, a=args: naive_check(s, r, t, a, {0: 1, 2: 2})))
    for n_words, dim, center, outside, seed in ((5, 3, "c", ["a", "b", "d", "e"], 50),  # 2d.1
                                                (6, 4, "d", ["a", "d", "b", "a", "f", "d"], 52),  # hidden 2d.3
                                                (12, 5, "k", ["h", "i", "j", "l"], 53)):  # hidden 2d.4
        rng = np.random.default_rng(seed)
        word2ind = {w: i for i, w in enumerate(WORDS[:n_words])}
        V, U = rng.standard_normal((n_words, dim)), rng.standard_normal((n_words, dim))
        args = [center, 3, list(outside), word2ind, V, U, None, FixtureRef("ProbeLoss")]
        found.append(GradientCheck(
            f"skipgram {n_words} words, d = {dim}, probe loss: both gradients", V.size + U.size, pub.Skipgram,
            lambda test, spec=(n_words, dim, center, outside, seed): test.check_skipgram_values(*spec, case="c"),
            lambda s, r, a=args: naive_check(s, r, "word2vec.skipgram", a, {4: 1, 5: 2})))
    return found


def parser_checks() -> list[GradientCheck]:
    rng = np.random.default_rng(6)
    logits, labels = rng.standard_normal((5, 3)), rng.integers(0, 3, 5)  # as LayersPublic's 1c.2-3
    found = [GradientCheck(
        "softmax_cross_entropy, 5 examples: dlogits", logits.size, parser_tests.LayersPublic,
        lambda test: [test.cross_entropy(logits, labels, part, "5 examples") for part in (0, 1)],
        lambda s, r: naive_check(s, r, "layers.softmax_cross_entropy", [logits, labels], {0: 1}))]
    # 3c.1 and 3c.2; the hidden 3c.3 (embed 50, hidden 200) would take the naive check about 770,000
    # forward passes
    cases = ((ModelCase(32), PARAM_NAMES), (ModelCase(33, n_tokens=6, repeated=4, batch=10), ("embeddings",)))
    for data, names in cases:
        def ours(test, data=data, names=names) -> None:
            test.check_gradients(data, names)
            if test.gradient_problems:
                raise AssertionError("\n".join(test.gradient_problems))

        found.append(GradientCheck(f"ParserModel {data.label}: {', '.join(names)}",
                                   sum(data.params[n].size for n in names), parser_tests.BackwardPublic, ours,
                                   lambda s, r, data=data, names=names: naive_model_check(s, r, data, names)))
    return found


def naive_model_check(student: Student, reference: LiveReference, data: ModelCase, names: tuple) -> list[str]:
    """The parser's gradients as its own sanity check (``parser_model._check_gradients``) tests them:
    the loss sum(dlogits * logits) of the student's model, as a function of one parameter at a time."""
    problems = []
    try:
        forward = Target.parse("fixtures:model_forward")
        expected = reference.call(forward, [*data.probe_args(), data.w, False], {}).value[0]
        model = student.function("parser_model.ParserModel")(data.embeddings.copy(), **data.kwargs)
        for name, value in data.params.items():
            model.params[name][...] = value
        logits = model.forward(data.w, training=False)
        if not checks.is_close(np.sum(data.dlogits * logits), np.sum(data.dlogits * expected)):
            problems.append("loss differs from the reference's")
        for name in names:
            def f(value: np.ndarray, name: str = name) -> tuple[float, np.ndarray]:
                model.params[name][...] = value
                out = float(np.sum(data.dlogits * model.forward(data.w, training=False)))
                return out, model.backward(data.dlogits)[name]

            result = gradcheck.gradcheck_naive(f, data.params[name], name)
            model.params[name][...] = data.params[name]
            if not result.passed:
                problems.append(result.message)
    except Exception as error:
        problems.append(f"raised {type(error).__name__}: {error}")
    return problems


# -------------------------------------------------------------------------------------- measuring

GRADIENT_QUESTIONS = {"word2vec": {"1c", "1d", "2b", "2c", "2d"}, "parser": {"1c", "3c"}}
BUGS = {"word2vec": word2vec_bugs.BUGS, "parser": parser_bugs.BUGS}


@dataclass
class Outcome:
    """One submission: seconds of every check per side (one entry per repeat) and what each side found."""

    name: str
    seconds: dict[str, dict[str, list[float]]]
    problems: dict[str, list[str]]


class Sides:
    """The three ways of checking one submission: naive, ours in this process, ours through a worker."""

    def __init__(self, assignment: Assignment, reference: Any, submission: Path, isolation: Any) -> None:
        found = locate(submission, assignment.config.submission_files).found
        spec: WorkerSpec = replace(worker_spec(assignment, found), isolation=isolation)
        self.fixtures = importlib.import_module(assignment.fixtures_module)
        self.modules, self.live = reference, LiveReference(reference, self.fixtures)
        self.in_process = InProcessSession(spec, 3600, "benchmark")
        self.worker = WorkerSession(spec, 3600, "benchmark")
        self.worker.call("probes:import_module", module_names(assignment.config)[0])  # started, not timed
        self.student = Student(self.in_process)

    def run(self, side: str, check: GradientCheck) -> list[str]:
        if side == NAIVE:
            return check.naive(self.student, self.live)
        test = check.test_class(unittest_method(check.test_class))
        session = self.in_process if side == OURS else self.worker
        test.context = TestContext(worker=session, reference=self.live, ref=self.modules)
        test.setUp()
        try:
            check.ours(test)
        except AssertionError as problem:
            return [str(problem)]
        return []

    def close(self) -> None:
        self.worker.close()
        self.in_process.close()


def unittest_method(cls: type) -> str:
    return unittest.TestLoader().getTestCaseNames(cls)[0]


def measure(assignment: Assignment, reference: Any, name: str, submission: Path,
            gradient_checks: list[GradientCheck], repeats: int, isolation: Any) -> Outcome:
    sides = Sides(assignment, reference, submission, isolation)
    order = [NAIVE, OURS, OURS_WORKER]
    seconds = {side: {check.label: [] for check in gradient_checks} for side in order}
    problems: dict[str, list[str]] = {side: [] for side in order}
    try:
        for repeat in range(repeats):
            for check in gradient_checks:
                for side in order[repeat % 3:] + order[:repeat % 3]:  # who goes first rotates
                    started = time.perf_counter()
                    found = sides.run(side, check)
                    seconds[side][check.label].append(time.perf_counter() - started)
                    if repeat == 0:
                        problems[side] += [f"{check.label}: {p}" for p in found]
    finally:
        sides.close()
    return Outcome(name, seconds, problems)


def submissions(assignment: Assignment, folder: Path, quick: bool) -> list[tuple[str, Path]]:
    """The reference, then every planted bug that changes a gradient the tests check."""
    found = [("reference", assignment.solution_dir)]
    bugs = [b for b in BUGS[assignment.name] if b.questions & GRADIENT_QUESTIONS[assignment.name]]
    for bug in bugs[:2] if quick else bugs:
        found.append((bug.name, bug.apply(assignment.solution_dir, folder / bug.name.replace(" ", "_"))))
    return found


# -------------------------------------------------------------------------------------- reporting


def total(outcome: Outcome, side: str) -> float:
    """Seconds to check every gradient of the submission once: the sum of the checks' medians."""
    return sum(Summary.of(values).median for values in outcome.seconds[side].values())


def report_checks(outcome: Outcome, gradient_checks: list[GradientCheck]) -> None:
    repeats = len(next(iter(outcome.seconds[NAIVE].values())))
    print(f"  every check on the {outcome.name}, median (min-max) of {repeats}:")
    for check in gradient_checks:
        times = {side: Summary.of([1e3 * s for s in outcome.seconds[side][check.label]])
                 for side in outcome.seconds}
        print(f"    {check.label} ({check.coordinates} coordinates): naive {times[NAIVE].show('ms', 2)}, "
              f"ours {times[OURS].show('ms', 2)}, ours with a worker {times[OURS_WORKER].show('ms', 2)}; "
              f"naive / ours {times[NAIVE].median / times[OURS].median:.1f}")


def report(assignment: Assignment, outcomes: list[Outcome]) -> bool:
    """Prints the assignment's table; True when both sides flagged the same submissions and the goal held."""
    print(f"{assignment.name}: all its gradient checks on one submission (sum of the checks' medians)")
    print(f"  {'submission':58} {'naive':>9} {'ours':>9} {'worker':>9} {'naive/ours':>10}  flagged by")
    agree, ratios = True, []
    for outcome in outcomes:
        naive, ours, worker = (total(outcome, side) for side in (NAIVE, OURS, OURS_WORKER))
        flagged = {side: bool(outcome.problems[side]) for side in outcome.problems}
        expected = outcome.name != "reference"
        agree &= flagged[NAIVE] == flagged[OURS] == flagged[OURS_WORKER] == expected
        ratios.append(naive / ours)
        who = ", ".join(side for side, hit in flagged.items() if hit) or "none"
        print(f"  {outcome.name[:58]:58} {1e3 * naive:7.1f}ms {1e3 * ours:7.1f}ms {1e3 * worker:7.1f}ms "
              f"{naive / ours:10.1f}  {who}")
    print(f"  naive / ours: {ratios[0]:.1f} on the reference; over the {len(ratios) - 1} buggy submissions "
          f"median {Summary.of(ratios[1:]).show('', 1)}" if len(ratios) > 1 else "")
    print("  both sides flag exactly the buggy submissions and pass the reference" if agree else
          "  THE SIDES DISAGREE (see 'flagged by'): the comparison is not at equal ability")
    return agree and min(ratios) >= GOAL


def main() -> None:
    parser = argument_parser(__doc__, __file__, "", "--repeats 5 --details", "--quick")
    parser.add_argument("--assignment", choices=["word2vec", "parser"], nargs="+", default=["word2vec", "parser"])
    parser.add_argument("--repeats", type=int, default=3, help="runs of every check per side (default 3)")
    parser.add_argument("--details", action="store_true", help="print every check's times on the reference")
    parser.add_argument("--quick", action="store_true", help="a smoke run: one repeat, the reference and two bugs")
    args = parser.parse_args()
    repeats = 1 if args.quick else args.repeats
    # The planted bugs overflow on purpose; in this process their warnings would only clutter the table.
    warnings.simplefilter("ignore", RuntimeWarning)
    print(machine())
    isolation = detect_isolation()
    met = True
    with tempfile.TemporaryDirectory(prefix="gradient-check-") as folder:
        for name in args.assignment:
            assignment = load_assignment(name)
            reference = load_reference(assignment.solution_dir, module_names(assignment.config))
            gradient_checks = word2vec_checks() if name == "word2vec" else parser_checks()
            outcomes = [measure(assignment, reference, label, path, gradient_checks, repeats, isolation)
                        for label, path in submissions(assignment, Path(folder), args.quick)]
            if args.details:
                report_checks(outcomes[0], gradient_checks)
            met &= report(assignment, outcomes)
    print(f"goal (ours at least {GOAL:g} times faster on every submission, same verdicts): "
          + ("met" if met else "missed"))


if __name__ == "__main__":
    main()
