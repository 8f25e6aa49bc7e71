"""Error carried forward: ownership, and helpers answered by the grader across the worker's wire."""

from __future__ import annotations

import ast
import importlib
import os
import signal
import subprocess
import textwrap
import time
import types

import numpy as np
import pytest
from pydantic import ValidationError

from autograder.grading.carried_forward import HelperBridge, LiveHelpers, RecordedHelpers, RelayedSession
from autograder.grading.contained_helpers import ContainedBridge
from autograder.core.config import AssignmentConfig, Limits, available_assignments, load_assignment
from autograder.core.results import GradescopeResults
from autograder.grading.expected import LiveReference
from autograder.grading.grade import grade, module_names
from autograder.grading.ownership import helpers_of, owners, units
from autograder.contract.protocol import KEPT, round_trip
from autograder.grading.reference import load_reference
from autograder.grading.runner import _suspects, collect_tests
from autograder.boundary.session import StudentRaised, WorkerSession, WorkerSpec, WorkerTimeout
from autograder.contract.state_sync import StateSync
from autograder.contract.target import Target
from tests.conftest import PYTHON, lost_points
from tests.fixtures import parser_bugs, word2vec_bugs
from tests.fixtures.mutants import bug
from tests.fixtures import variants as variants_module

pytestmark = pytest.mark.slow  # the end-to-end tier: -m slow (README: "Set up and test")

# The student's modules: `square` is buggy; `total`, `Walker.walk` and `run_model` use helpers.
STUDENT = {
    "basics.py": '''
        import numpy as np

        def square(x):
            return x * x + 1.0          # the bug: the reference has no + 1

        def total(xs):
            return float(sum(square(x) for x in xs))

        def noisy(rng):
            return float(rng.random())

        def draw_twice(rng):
            return [noisy(rng), noisy(rng)]

        def ones(n):
            return 0.0                  # owned elsewhere; the reference answers

        def spin():
            return 0                    # owned elsewhere; the reference answers

        def sum_of_ones(n):
            return ones(n)

        def spun():
            return spin()
        ''',
    "uses.py": '''
        from basics import square as sq    # the helper under another name, in another module

        def total_elsewhere(xs):
            return float(sum(sq(x) for x in xs))
        ''',
    "walker.py": '''
        class Walker:
            def __init__(self, path):
                self.path = path            # the caller's very list
                self.position = 0
                self.weights = __import__("numpy").zeros(20000)

            def step(self, k):
                self.position += 2 * k      # the bug: the reference steps by k
                self.weights[0] += 1

        def walk(path, steps):
            walker = Walker(path)
            for k in steps:
                walker.step(k)
            return walker.position, walker.path is path, float(walker.weights[0])

        def ask(model, items):
            return model.choose(items)

        class Model:
            def __init__(self):
                self.seen = []

            def choose(self, walkers):
                self.seen.append([w.position for w in walkers])
                return [w.path is PATHS[i] for i, w in enumerate(walkers)]

        PATHS = [[1, 2], [3]]

        def through_callback():
            model = Model()
            return ask_about(model), model.seen

        def ask_about(model):
            return pick(model, PATHS)

        def pick(model, paths):
            raise NotImplementedError   # owned elsewhere; the reference answers
        ''',
}


def reference_modules() -> types.SimpleNamespace:
    basics = types.ModuleType("basics")
    basics.square = lambda x: x * x
    basics.noisy = lambda rng: float(rng.random())
    basics.ones = lambda n: float(np.ones(n).sum())  # n of the student's choosing: gigabytes

    def spin():
        while True:
            pass

    basics.spin = spin

    class Walker:
        def __init__(self, path):
            self.path = path
            self.position = 0
            self.weights = np.zeros(20000)

        def step(self, k):
            self.position += k
            self.weights[0] += 1

    Walker.__module__, Walker.__qualname__ = "walker", "Walker"  # as if defined in walker.py
    walker = types.ModuleType("walker")
    walker.Walker = Walker

    def pick(model, paths):
        walkers = [Walker(p) for p in paths]
        walkers[0].step(5)
        return model.choose(walkers)

    walker.pick = pick
    return types.SimpleNamespace(basics=basics, walker=walker)


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    folder = tmp_path_factory.mktemp("student")
    files = {}
    for name, text in STUDENT.items():
        files[name] = folder / name
        files[name].write_text(textwrap.dedent(text))
    spec = WorkerSpec(files=files, fixtures_module=None, limits=Limits(memory_mb=1024))
    with WorkerSession(spec, 60, "2") as worker:
        yield worker


@pytest.fixture(params=["in this process", "in a limited child"])
def relayed(request, session):
    """Makes a relay of ``session`` with the given helpers answered by the reference: in this process
    (the bundle's recording, ``release``) or in the limited child the grader uses."""
    bridges = []

    def make(*targets: str) -> tuple[RelayedSession, HelperBridge | ContainedBridge]:
        source = LiveHelpers(reference_modules())
        bridge = (HelperBridge(source, list(targets)) if request.param == "in this process"
                  else ContainedBridge(source, list(targets), Limits(memory_mb=256)))
        bridges.append(bridge)
        return RelayedSession(session, bridge), bridge

    yield make
    for bridge in bridges:
        bridge.close()


def test_a_helper_is_answered_by_the_reference_wherever_it_is_bound(session, relayed):
    assert session.call("basics.total", [1.0, 2.0]).value == 7.0  # the student's own square
    relay, bridge = relayed("basics.square")
    assert relay.call("basics.total", [1.0, 2.0]).value == 5.0
    assert relay.call("uses.total_elsewhere", [3.0]).value == 9.0  # `from basics import square as sq`
    assert bridge.uses["basics.square"].calls == 3
    assert bridge.differing() == ["basics.square"]
    assert "your square loses its points in question 1a, not here" in bridge.note({"basics.square": "1a"})
    # the next call without helpers runs the student's own again, in every module
    assert session.call("uses.total_elsewhere", [3.0]).value == 10.0


def test_a_method_travels_with_its_object_and_keeps_shared_objects(session, relayed):
    relay, bridge = relayed("walker.Walker.step")
    position, same_path, weight = relay.call("walker.walk", [7], [1, 2, 3]).value
    assert position == 6 and same_path and weight == 3.0  # the reference's steps, in place
    assert bridge.differing() == ["walker.Walker.step"]
    assert session.call("walker.walk", [7], [1, 2, 3]).value[0] == 12


def test_a_generator_argument_moves_on_as_the_reference_drew(session, relayed):
    relay, _ = relayed("basics.noisy")
    own = session.call("basics.draw_twice", np.random.default_rng(5)).value
    replaced = relay.call("basics.draw_twice", np.random.default_rng(5)).value
    assert replaced == own and replaced[0] != replaced[1]


def test_a_helper_calls_back_the_students_objects(session, relayed):
    relay, _ = relayed("walker.pick")
    with pytest.raises(StudentRaised):
        session.call("walker.through_callback")
    answers, seen = relay.call("walker.through_callback").value
    # the student's model saw the reference's walkers as objects with their attributes, each
    # holding the student's very path list
    assert answers == [True, True] and seen == [[5, 0]]


def test_a_failing_reference_is_reported_and_unknown_helpers_refused(session, relayed):
    relay, _ = relayed("basics.square")
    with pytest.raises(StudentRaised, match="the reference square raised TypeError"):
        relay.call("basics.total", ["text"])


def test_a_reference_asked_for_gigabytes_fails_in_its_child_as_the_students_error(session):
    bridge = ContainedBridge(LiveHelpers(reference_modules()), ["basics.ones"], Limits(memory_mb=256))
    try:
        relay = RelayedSession(session, bridge)
        assert relay.call("basics.sum_of_ones", 1000).value == 1000.0
        before = _resident_mb()
        with pytest.raises(StudentRaised, match="the reference ones raised MemoryError on the inputs your code gave it"):
            relay.call("basics.sum_of_ones", 10**9)  # 8 GB
        assert _resident_mb() - before < 50  # the grader did not allocate it
        assert bridge.uses["basics.ones"].failed.startswith("MemoryError")
    finally:
        bridge.close()


def test_a_reference_that_computes_past_the_deadline_times_the_question_out(tmp_path):
    files = {"basics.py": tmp_path / "basics.py"}
    files["basics.py"].write_text(textwrap.dedent(STUDENT["basics.py"]))
    spec = WorkerSpec(files=files, fixtures_module=None, limits=Limits(memory_mb=1024))
    bridge = ContainedBridge(LiveHelpers(reference_modules()), ["basics.spin"], Limits(memory_mb=256))
    with WorkerSession(spec, 3, "2") as worker:
        started = time.monotonic()
        with pytest.raises(WorkerTimeout, match="did not finish within the 3 s time limit of question 2"):
            RelayedSession(worker, bridge).call("basics.spun")
        assert time.monotonic() - started < 6
        child = bridge._child
        bridge.close()
    assert child is not None and child.status == -9  # killed, not left spinning


def test_a_reference_child_that_dies_fails_the_rest_of_the_rerun(session):
    bridge = ContainedBridge(LiveHelpers(reference_modules()), ["basics.square"], Limits(memory_mb=256))
    try:
        relay = RelayedSession(session, bridge)
        assert relay.call("basics.total", [1.0, 2.0]).value == 5.0
        assert bridge._child is not None
        os.kill(bridge._child.pid, signal.SIGKILL)
        with pytest.raises(StudentRaised, match="the reference square was killed by SIGKILL on the inputs your code gave it"):
            relay.call("basics.total", [1.0])
        with pytest.raises(StudentRaised, match="the reference square was killed by SIGKILL"):
            relay.call("basics.total", [1.0])
    finally:
        bridge.close()


def test_a_rerun_that_asks_the_reference_for_gigabytes_costs_only_its_questions(repo, tmp_path):
    """The attack: a training loop that builds a ParserModel of 250,000 features and 1,000 hidden
    units, with 3a wrong so that 4's rerun asks the reference's ParserModel for it. Answered in the
    grader, that took 3.9 GB and 25 s; now the grader and all it started stay under 1 GB."""
    huge = bug("train builds a model of gigabytes", "run.py", "optimizer = Adam(parser.model.params, lr=lr)",
               "optimizer = Adam(parser.model.params, lr=lr)\n"
               "    ParserModel(np.zeros((10, 1)), n_features=250000, hidden_size=1000)", "run.train", "4")
    slip = bug("xavier_uniform without the 6", "parser_model.py", "    limit = np.sqrt(6.0 / (fan_in + fan_out))\n    return",
               "    limit = np.sqrt(1.0 / (fan_in + fan_out))\n    return", "parser_model.xavier_uniform", "3a")
    submission = slip.apply(huge.apply(repo / "solutions" / "parser", tmp_path / "huge"), tmp_path / "both")
    results = tmp_path / "results.json"
    peak = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True); "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")  # KB, of every process waited for
    run = subprocess.run([PYTHON, "-c", peak, PYTHON, "-m", "autograder", "grade", "parser", str(submission),
                          "--results", str(results)], cwd=repo, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    assert int(run.stdout.split()[-1]) < 1024 * 1024
    graded = GradescopeResults.model_validate_json(results.read_text())
    assert {t.number.split(".")[0] for t in lost_points(graded)} == {"3a", "4"}
    config = load_assignment("parser").config
    assert graded.execution_time < sum(q.time_limit for q in config.questions)


def _resident_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def test_recorded_answers_match_within_rounding_and_only_then():
    square = Target.parse("basics.square")
    answer = LiveHelpers(reference_modules()).run(square, [3.0], {}, None)
    recorded = RecordedHelpers([("basics.square", ([3.0], {}, None), answer)])
    bridge_source = recorded.run(square, [3.0 + 1e-13], {}, None)
    assert bridge_source.value == 9.0
    with pytest.raises(Exception, match="basics.square"):
        recorded.run(square, [3.1], {}, None)


def test_state_sync_sends_an_unchanged_large_array_once():
    sender, receiver = StateSync(), StateSync()
    state = {"w": np.arange(10000.0), "small": np.ones(3), "n": 1}
    first = receiver.incoming(round_trip(sender.outgoing(state)))
    assert np.array_equal(first["w"], state["w"])
    second = sender.outgoing(state)
    assert second["w"] is KEPT and second["small"] is not KEPT
    assert np.array_equal(receiver.incoming(round_trip(second))["w"], state["w"])
    state["w"][0] = -1.0  # changed in place: travels again
    assert sender.outgoing(state)["w"] is not KEPT


# ------------------------------------------------------------------------------------ ownership


def test_owner_is_the_config_s_or_the_first_question_that_names_it():
    config = AssignmentConfig.model_validate({
        "name": "x", "title": "x", "total_points": 3, "submission_files": ["m.py"],
        "units": [["m.g", "m.h"]],
        "questions": [{"id": "1", "title": "a", "points": 1},
                      {"id": "2", "title": "b", "points": 1, "owns": ["m.init"]},
                      {"id": "3", "title": "c", "points": 1}]})
    owner = owners(config, {"1": [("m.f", "m.init")], "2": [("m.g", "m.f")], "3": [("m.h", "m.g", "m.f")]})
    assert owner == {"m.init": "2", "m.f": "1", "m.g": "2", "m.h": "3"}
    unit = units(config, owner)
    # m.g shares private state with question 3's own m.h: it runs as the student wrote it
    assert helpers_of(config.question("3"), ("m.h", "m.g", "m.f"), owner, unit) == ("m.f",)
    assert helpers_of(config.question("1"), ("m.f", "m.init"), owner, unit) == ("m.init",)


def test_forward_and_backward_are_one_unit_by_their_names():
    config = AssignmentConfig.model_validate({
        "name": "x", "title": "x", "total_points": 2, "submission_files": ["m.py"],
        "questions": [{"id": "1", "title": "a", "points": 1}, {"id": "2", "title": "b", "points": 1}]})
    functions = ["layers.relu_forward", "layers.relu_backward", "model.Net.forward", "model.Net.backward",
                 "model.Net.lookup", "layers.dropout_forward"]
    unit = units(config, functions)
    assert unit["layers.relu_forward"] == {"layers.relu_forward", "layers.relu_backward"}
    assert unit["model.Net.backward"] == {"model.Net.forward", "model.Net.backward"}
    assert unit["model.Net.lookup"] == {"model.Net.lookup"} and unit["layers.dropout_forward"] == {
        "layers.dropout_forward"}
    owner = {"model.Net.forward": "1", "model.Net.backward": "2", "model.Net.lookup": "1", "m.train": "2"}
    # a test of 2 reaching forward (owned by 1) runs it as written: it shares backward's cache
    assert helpers_of(config.question("2"), ("m.train", "model.Net.forward", "model.Net.lookup"), owner,
                      units(config, owner)) == ("model.Net.lookup",)
    # a test of another question that reaches forward replaces backward with it
    config3 = config.model_copy(update={"questions": [*config.questions, config.questions[0].model_copy(
        update={"id": "3"})]})
    assert helpers_of(config3.question("3"), ("model.Net.forward",), owner, units(config, owner)) == (
        "model.Net.backward", "model.Net.forward")


def test_parser_units_replace_forward_and_backward_together():
    assignment = load_assignment("parser")
    tests = collect_tests(assignment)
    training = next(t for t in tests["4"] if t.method == "test_training")
    assert frozenset({"parser_model.ParserModel.forward", "parser_model.ParserModel.backward"}) in training.units
    assert frozenset({"layers.relu_forward", "layers.relu_backward"}) in training.units
    # only 3b lost points: its forward goes, and with it 3c's backward, which reads forward's cache
    suspects = dict(_suspects(training, settled={"1a", "1b", "1c", "2a", "2b", "3a", "3c"}))
    assert suspects["parser_model.ParserModel.backward"] == "3c"
    assert "parser_model.ParserModel.forward" in suspects and "optim.Adam.step" not in suspects
    backward = next(t for t in tests["3c"] if t.method == "test_gradients")
    assert "parser_model.ParserModel.forward" not in dict(backward.helpers)


def test_a_function_has_one_owner():
    with pytest.raises(ValidationError, match="more than one question owns m.f"):
        AssignmentConfig.model_validate({
            "name": "x", "title": "x", "total_points": 2, "submission_files": ["m.py"],
            "questions": [{"id": "1", "title": "a", "points": 1, "owns": ["m.f"]},
                          {"id": "2", "title": "b", "points": 1, "owns": ["m.f"]}]})


@pytest.mark.parametrize("name", ["word2vec", "parser"])
def test_public_tests_alone_give_the_same_owners(name):
    """The student bundle has only the public tests: its `check` must replace the same helpers."""
    assignment = load_assignment(name)
    full = collect_tests(assignment)
    public = collect_tests(assignment, include_hidden=False)
    helpers = {t.number: t.helpers for tests in full.values() for t in tests}
    for tests in public.values():
        for test in tests:
            assert test.helpers == helpers[test.number], test.number


# ------------------------------------------------------- planted bugs in helpers, without the rerun

# Each planted bug in a helper, and the questions of its callers it reaches: without error carried
# forward they lose points too, which is what proves the fixture exercises each helper-caller pair.
CALLERS = {
    "word2vec": {"softmax normalises over the wrong axis": "1c 1d",
                 "softmax overflows on large inputs": "2b",
                 "sigmoid_grad uses the input instead of the output": "1c 1d",
                 "sigmoid written with tanh(x) instead of tanh(x / 2)": "1c 1d",
                 "word2vec sigmoid with the wrong sign": "2c"},
    "parser": {"dropout without rescaling": "3b",
               # 3c judges backward against its own forward, each forward from one state of
               # self.rng: a dropout drawing at evaluation draws alike there, and costs 3c nothing
               "dropout active at evaluation": "3b",
               "dropout backward ignores the mask": "3c",
               # 3c: backward's gradients are right, for this forward (U's) or for the right one
               # (the rest: the mask reads the pre-activation, which the leak leaves alone)
               "ReLU forward leaks negative inputs": "3b",
               "ReLU backward without the mask": "3c",
               "cross-entropy gradient with the wrong sign": "4",
               "Adam steps uphill": "4",
               "LEFT-ARC takes the stack item from the wrong end": "2b 4",
               "PartialParse works on the caller's sentence list": "2b",
               "minibatch_parse returns parses in the order they finish": "4",
               # 3c gives backward the right forward's cache, whose x was never looked up wrongly
               "embedding lookup concatenates in the wrong order": "3b"},
}


class WithoutRerun(LiveReference):
    def helper_source(self):  # tests never run again with the reference's helpers
        return None


def bug_cases():
    for name, callers in CALLERS.items():
        for bug, questions in callers.items():
            yield pytest.param(name, bug, set(questions.split()), id=f"{name}: {bug}")


@pytest.mark.parametrize(("name", "bug_name", "callers"), list(bug_cases()))
def test_without_the_rerun_the_helper_bug_costs_its_callers_too(name, bug_name, callers, repo, tmp_path):
    assignment = load_assignment(name)
    bugs = {"word2vec": word2vec_bugs, "parser": parser_bugs}[name].BUGS
    bug = next(b for b in bugs if b.name == bug_name)
    modules = load_reference(assignment.solution_dir, module_names(assignment.config))
    expected = WithoutRerun(modules, importlib.import_module(assignment.fixtures_module))
    results = grade(assignment, bug.apply(assignment.solution_dir, tmp_path / "s"), expected=expected)
    lost = {t.number.split(".")[0] for t in results.tests if t.score < t.max_score - 1e-9}
    assert lost == bug.questions | callers


# ---------------------------------------------------------------- correct, but not the reference's


def variant_cases():
    for name, variants in (("word2vec", variants_module.WORD2VEC), ("parser", variants_module.PARSER)):
        for variant in variants:
            yield pytest.param(name, variant, id=f"{name}: {variant.name}")


@pytest.mark.parametrize(("name", "variant"), list(variant_cases()))
def test_a_correct_submission_written_otherwise_gets_full_marks(name, variant, tmp_path):
    assignment = load_assignment(name)
    results = grade(assignment, variant.apply(assignment.solution_dir, tmp_path / "s"))
    lost = [(t.number, t.output[:300]) for t in results.tests if t.score < t.max_score - 1e-9]
    assert lost == [] and results.score == assignment.config.total_points


def test_what_the_code_prints_in_a_rerun_is_not_shown(tmp_path):
    """In a rerun the reference answers the student's helpers: what the code prints then could be
    those answers, so it is left out of the feedback (SECURITY.md)."""
    wrong_axis = next(b for b in word2vec_bugs.BUGS if b.name == "softmax normalises over the wrong axis")
    printing = next(v for v in variants_module.WORD2VEC if v.name == "leftover debugging print in the network")
    assignment = load_assignment("word2vec")
    submission = wrong_axis.apply(assignment.solution_dir, tmp_path / "s")
    path = submission / printing.file
    path.write_text(path.read_text().replace(printing.old, printing.new))
    results = grade(assignment, submission)
    rescued = {t.number: t.output for t in results.tests if t.number.startswith("1c.")}
    assert all("Graded with the reference softmax" in o and "DEBUG" not in o for o in rescued.values()), rescued


def _calls(assignment) -> dict[str, set[str]]:
    """The reference's static call graph among the student's functions: "module.function" or
    "module.Class.method" -> what its body calls by name (a function of its module or one it
    imports from another student module, ``self.method``, a class, which runs its ``__init__``)."""
    names = set(module_names(assignment.config))
    graph: dict[str, set[str]] = {}
    for module in names:
        tree = ast.parse((assignment.solution_dir / f"{module}.py").read_text())
        local = {n.name: f"{module}.{n.name}" for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module in names:
                local.update({a.asname or a.name: f"{node.module}.{a.name}" for a in node.names})
        for node in tree.body:
            functions = [(f"{module}.{node.name}", node, None)] if isinstance(node, ast.FunctionDef) else []
            if isinstance(node, ast.ClassDef):
                functions = [(f"{module}.{node.name}.{f.name}", f, node.name) for f in node.body
                             if isinstance(f, ast.FunctionDef)]
            for name, function, cls in functions:
                called = graph.setdefault(name, set())
                for call in (c for c in ast.walk(function) if isinstance(c, ast.Call)):
                    if isinstance(call.func, ast.Name) and call.func.id in local:
                        called.add(local[call.func.id])
                    elif (isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)
                          and call.func.value.id == "self" and cls):
                        called.add(f"{module}.{cls}.{call.func.attr}")
    classes = {f.rsplit(".", 1)[0] for f in graph if f.count(".") == 2}
    return {f: {f"{c}.__init__" if c in classes else c for c in called} for f, called in graph.items()}


@pytest.mark.parametrize("name", available_assignments())
def test_a_test_is_tagged_with_every_function_its_tagged_functions_call(name):
    """A test reaches what its functions call: a hang or a crash there (xavier_uniform, which
    ParserModel.__init__ calls) must cost points only in the owner, so the test must list it among
    its helpers, to be rerun with the reference's in its place."""
    assignment = load_assignment(name)
    graph, found = _calls(assignment), collect_tests(assignment)
    graded = owners(assignment.config, {q: [t.tags for t in tests] for q, tests in found.items()})
    for tests in found.values():
        for info in tests:
            reached, todo = set(info.tags), list(info.tags)
            while todo:
                for callee in graph.get(todo.pop(), ()):
                    if callee in graph and callee not in reached:  # given code too: it may call graded code
                        reached.add(callee)
                        todo.append(callee)
            missing = sorted(f for f in reached - set(info.tags) if f in graded)
            assert not missing, f"{name} {info.number} is not tagged with {missing}, which it reaches"
