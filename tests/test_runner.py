"""GradedResult gives every test one row with a sane score; collect_tests and the config refuse bad suites."""

from __future__ import annotations

import ast
import math
import sys
import types
import unittest

import pytest
from gradescope_utils.autograder_utils.decorators import (number, partial_credit, tags, visibility,
                                                          weight)
from pydantic import ValidationError

from autograder.core import results as res
from autograder.grading import runner, testing
from autograder.core.config import (PACKAGE_ROOT, Assignment, AssignmentConfig, ConfigError, Question,
                                    load_config)
from autograder.grading.runner import INTERNAL_ERROR, collect_tests, run_tests

INTERNAL_MARK = "This is not a problem with your code"


class Case(testing.GradedTestCase):
    __test__ = False  # for pytest: these are run by the runner under test, not collected
    question = "1"


def info(cls: type, method: str, hidden: bool = False) -> runner.TestInfo:
    function = getattr(cls, method)
    doc = (function.__doc__ or "").strip().splitlines()
    return runner.TestInfo(cls=cls, method=method, question=cls.question,
                           number=str(getattr(function, "__number__", "")),
                           weight=float(function.__weight__),
                           tags=tuple(getattr(function, "__tags__", ())),
                           visibility=str(getattr(function, "__visibility__", "visible")),
                           hidden=hidden, name=doc[0] if doc else method)


def run(cls: type, *methods: str, context: testing.TestContext | None = None) -> list[res.TestResult]:
    return run_tests([info(cls, m) for m in methods], context or testing.TestContext())


def assert_zero_of_full(row: res.TestResult, weight: float) -> None:
    assert row.max_score == weight and row.score == 0.0 and row.status == "failed"


# ----------------------------------------------------------------------------------------------
# one row per test, whatever happens


class Outcomes(Case):
    @weight(2)
    @number("1.1")
    @tags("mod.f", "mod.g")
    @visibility("after_due_date")
    def test_passes(self):
        """A passing test."""
        assert self.worker == "the worker"

    @unittest.skip("not today")
    @weight(3)
    @number("1.2")
    def test_skipped(self):
        raise AssertionError("never runs")

    @weight(1.5)
    @number("1.3")
    def test_skips_itself(self):
        self.skipTest("decided at run time")

    @weight(4)
    @number("1.4")
    def test_subtest_fails(self):
        for i in range(3):
            with self.subTest(i=i):
                self.assertLess(i, 2, "i is too big")

    @weight(1)
    @number("1.5")
    def test_subtest_skips(self):
        with self.subTest(case="tiny"):
            self.skipTest("inside a subTest")

    @unittest.expectedFailure
    @weight(2)
    @number("1.6")
    def test_expected_failure(self):
        self.fail("fails as expected")

    @unittest.expectedFailure
    @weight(2)
    @number("1.7")
    def test_unexpected_success(self):
        pass

    @weight(5)
    @number("1.8")
    def test_internal_error(self):
        print("printed by the test")
        raise KeyError("grader bug, secret expected value 3.14159")

    @weight(1)
    @number("1.9")
    def test_assertion(self):
        print("progress note")
        self.student_output.append("--- printed by mod.f ---\nhello")
        self.assertEqual(1, 2, "mod.f [tiny]: wrong answer")


ALL_OUTCOMES = ["test_passes", "test_skipped", "test_skips_itself", "test_subtest_fails",
                "test_subtest_skips", "test_expected_failure", "test_unexpected_success",
                "test_internal_error", "test_assertion"]


@pytest.fixture(scope="module")
def outcome_rows() -> dict[str, res.TestResult]:
    rows = run(Outcomes, *ALL_OUTCOMES, context=testing.TestContext(worker="the worker"))
    assert len(rows) == len(ALL_OUTCOMES)
    return dict(zip(ALL_OUTCOMES, rows))


def test_every_test_gives_exactly_one_row_in_order(outcome_rows):
    assert [r.number for r in outcome_rows.values()] == [f"1.{i}" for i in range(1, 10)]
    assert sum(r.max_score for r in outcome_rows.values()) == 2 + 3 + 1.5 + 4 + 1 + 2 + 2 + 5 + 1


def test_passing_row_carries_decorator_metadata_and_context(outcome_rows):
    row = outcome_rows["test_passes"]
    assert row == res.TestResult(name="A passing test.", score=2.0, max_score=2.0, status="passed",
                                 output="", tags=["mod.f", "mod.g"], visibility="after_due_date", number="1.1")


@pytest.mark.parametrize("method, weight_, text", [
    ("test_skipped", 3, "skipped: not today"),
    ("test_skips_itself", 1.5, "skipped: decided at run time"),
    ("test_subtest_fails", 4, "(i=2): 2 not less than 2 : i is too big"),
    ("test_subtest_skips", 1, "(case='tiny'): skipped: inside a subTest"),
    ("test_expected_failure", 2, "fails as expected"),
    ("test_unexpected_success", 2, "unexpected success"),
    ("test_assertion", 1, "mod.f [tiny]: wrong answer"),
])
def test_failing_outcomes_keep_full_max_score_and_score_zero(outcome_rows, method, weight_, text):
    row = outcome_rows[method]
    assert_zero_of_full(row, weight_)
    assert text in row.output


def test_subtest_failures_list_only_failing_cases(outcome_rows):
    output = outcome_rows["test_subtest_fails"].output
    assert "(i=2)" in output and "(i=0)" not in output and "(i=1)" not in output


def test_assertion_row_shows_test_prints_and_student_output(outcome_rows):
    output = outcome_rows["test_assertion"].output
    assert output.startswith("progress note")
    assert "Your code printed:\n--- printed by mod.f ---\nhello" in output


def test_internal_error_blames_the_grader_and_hides_the_traceback(outcome_rows):
    row = outcome_rows["test_internal_error"]
    assert_zero_of_full(row, 5)
    assert INTERNAL_MARK in row.output and "KeyError" in row.output
    assert "Traceback" not in row.output and "[grader]" not in row.output
    assert "raise KeyError" not in row.output  # no source lines of the (hidden) test


def test_internal_error_traceback_goes_to_the_grader_log(capsys):
    class Broken(Case):
        @weight(1)
        @number("1.1")
        def test_x(self):
            raise ZeroDivisionError("oops")

    (row,) = run(Broken, "test_x")
    assert row.output == INTERNAL_ERROR.format(error="ZeroDivisionError: oops")
    log = capsys.readouterr().err
    assert "[grader] internal error in" in log and "Traceback" in log and "ZeroDivisionError" in log


@pytest.mark.parametrize("error", [RuntimeError("fixture build failed"), unittest.SkipTest("later")])
def test_error_in_set_up_class_still_gives_every_row(error):
    class SetUpFails(Case):
        @classmethod
        def setUpClass(cls):
            raise error

        @weight(2)
        @number("1.1")
        @tags("mod.f")
        @visibility("visible")
        def test_a(self):
            pass

        @weight(3)
        @number("1.2")
        def test_b(self):
            pass

    class Fine(Case):
        @weight(1)
        @number("1.3")
        def test_c(self):
            pass

    tests = [info(SetUpFails, "test_a"), info(SetUpFails, "test_b"), info(Fine, "test_c")]
    rows = run_tests(tests, testing.TestContext())
    assert len(rows) == 3
    assert_zero_of_full(rows[0], 2)
    assert_zero_of_full(rows[1], 3)
    for row in rows[:2]:
        assert INTERNAL_MARK in row.output and "setUpClass" in row.output
        assert str(error) in row.output
    assert rows[0].tags == ["mod.f"] and rows[0].number == "1.1"
    assert rows[2].score == 1.0 and rows[2].status == "passed"


def test_error_in_tear_down_class_keeps_the_rows():
    class TearDownFails(Case):
        @classmethod
        def tearDownClass(cls):
            raise RuntimeError("cleanup failed")

        @weight(2)
        @number("1.1")
        def test_a(self):
            pass

    (row,) = run(TearDownFails, "test_a")
    assert row.score == 2.0 and row.max_score == 2.0


# ----------------------------------------------------------------------------------------------
# partial credit


class Partial(Case):
    value: object = None
    set_it = True

    @partial_credit(10)
    @number("1.1")
    @tags("mod.f")
    @visibility("visible")
    def test_partial(self, set_score=None):
        if type(self).set_it:
            set_score(type(self).value)


@pytest.mark.parametrize("value, expected, status", [
    (12, 10.0, "passed"), (10, 10.0, "passed"), (4.5, 4.5, "failed"), (-3, 0.0, "failed"),
    (math.nan, 0.0, "failed"), (math.inf, 0.0, "failed"), (-math.inf, 0.0, "failed"),
    ("junk", 0.0, "failed"),
])
def test_set_score_is_clamped_to_the_weight(monkeypatch, value, expected, status):
    monkeypatch.setattr(Partial, "value", value)
    (row,) = run(Partial, "test_partial")
    assert row.score == expected and row.max_score == 10.0 and row.status == status
    assert row.tags == ["mod.f"] and row.number == "1.1" and row.visibility == "visible"


def test_partial_score_does_not_leak_into_the_next_run(monkeypatch):
    monkeypatch.setattr(Partial, "value", 1)
    assert run(Partial, "test_partial")[0].score == 1.0
    assert Partial.test_partial.__score__ == 1  # gradescope-utils keeps it on the function...
    monkeypatch.setattr(Partial, "set_it", False)
    (row,) = run(Partial, "test_partial")  # ...but a run that sets no score gets full credit
    assert row.score == 10.0 and row.status == "passed"
    assert not hasattr(Partial.test_partial, "__score__")


def test_failing_partial_credit_test_keeps_its_partial_score():
    """set_score then a failed check: the points given stay, and the message explains the rest."""
    class PartialThenFail(Case):
        @partial_credit(6)
        @number("1.1")
        def test_x(self, set_score=None):
            set_score(5)
            self.fail("later check failed")

    (row,) = run(PartialThenFail, "test_x")
    assert row.score == 5.0 and row.max_score == 6.0 and row.status == "failed"
    assert "later check failed" in row.output


def test_partial_credit_test_that_crashes_scores_zero():
    class PartialThenCrash(Case):
        @partial_credit(6)
        @number("1.1")
        def test_x(self, set_score=None):
            set_score(5)
            raise KeyError("grader bug")

    (row,) = run(PartialThenCrash, "test_x")
    assert_zero_of_full(row, 6)


def test_of_gradescope_utils_only_the_decorators_are_used():
    """Its runner's private members may change in any release (issue 28): the framework and the
    assignments import only its decorators, whose attributes collect and GradedResult read."""
    imported = set()
    for path in PACKAGE_ROOT.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported |= {alias.name for alias in node.names if alias.name.startswith("gradescope_utils")}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("gradescope_utils"):
                imported.add(node.module)
    assert imported == {"gradescope_utils.autograder_utils.decorators"}


# ----------------------------------------------------------------------------------------------
# collect_tests


ASSIGNMENT = "fake_collect"


def config(**changes) -> AssignmentConfig:
    data = dict(name=ASSIGNMENT, title="Fake", total_points=5, submission_files=["mod.py"],
                questions=[Question(id="1", title="One", points=3),
                           Question(id="2b", title="Two", points=2, visibility="after_published",
                                    hidden_visibility="hidden")])
    data.update(changes)
    return AssignmentConfig(**data)


@pytest.fixture
def make_assignment(monkeypatch, tmp_path):
    def make(public: list[type], hidden: list[type] | None) -> Assignment:
        for kind, classes in (("public_tests", public), ("hidden_tests", hidden)):
            name = f"autograder.assignments.{ASSIGNMENT}.{kind}"
            if classes is None:
                monkeypatch.delitem(sys.modules, name, raising=False)
                continue
            module = types.ModuleType(name)
            for cls in classes:
                cls.__module__ = name
                setattr(module, cls.__name__, cls)
            module.Case = Case  # imported base classes from elsewhere are not collected
            monkeypatch.setitem(sys.modules, name, module)
        return Assignment(config=config(), root=tmp_path)

    return make


def good_suite() -> tuple[list[type], list[type]]:
    class PublicOne(Case):
        question = "1"

        @weight(1)
        @number("1.10")
        @tags("mod.f")
        @visibility("visible")
        def test_late(self):
            """Numbered 1.10."""

        @weight(1)
        @number("1.2")
        @tags("mod.f", "mod.Model.step")
        @visibility("visible")
        def test_early(self):
            pass

    class PublicTwo(Case):
        question = "2b"

        @partial_credit(2)
        @number("2b.1")
        @tags("mod.g")
        @visibility("after_published")
        def test_two(self, set_score=None):
            pass

    class HiddenOne(Case):
        question = "1"

        @weight(1)
        @number("1.3")
        @tags("mod.f")
        @visibility("after_due_date")
        def test_hidden(self):
            """Hidden check."""

    return [PublicOne, PublicTwo], [HiddenOne]


def test_collect_tests_groups_sorts_and_flags(make_assignment):
    public, hidden = good_suite()
    tests = collect_tests(make_assignment(public, hidden))
    assert list(tests) == ["1", "2b"]
    assert [t.number for t in tests["1"]] == ["1.2", "1.3", "1.10"]  # numeric, not string, order
    assert [t.hidden for t in tests["1"]] == [False, True, False]
    assert [t.name for t in tests["1"]] == ["test_early", "Hidden check.", "Numbered 1.10."]
    assert tests["1"][0].tags == ("mod.f", "mod.Model.step")
    (two,) = tests["2b"]
    assert (two.weight, two.visibility, two.method) == (2.0, "after_published", "test_two")
    assert sum(t.weight for group in tests.values() for t in group) == 5


def test_public_only_collection_skips_hidden_and_point_totals(make_assignment):
    public, _ = good_suite()
    tests = collect_tests(make_assignment(public, None), include_hidden=False)
    assert [t.number for t in tests["1"]] == ["1.2", "1.10"]  # 2 of 3 points: fine without hidden
    with pytest.raises(ConfigError, match="question 1: tests weigh 2 points, config says 3"):
        collect_tests(make_assignment(public, None))  # no hidden tests is allowed, missing points are not


def test_collect_tests_lists_every_problem(make_assignment):
    class Bad(Case):
        question = "1"

        @weight(1)
        @number("2b.5")
        @tags("mod.f")
        @visibility("visible")
        def test_wrong_prefix(self):
            pass

        @weight(0.5)
        @tags("mod.f")
        @visibility("visible")
        def test_no_number(self):
            pass

        @weight(0.5)
        @number("1.3")
        @visibility("visible")
        def test_no_tags(self):
            pass

        @weight(0.25)
        @number("1.4")
        @tags("f")
        @visibility("visible")
        def test_bare_tag(self):
            pass

        @weight(0.25)
        @number("1.5")
        @tags("mod.f")
        @visibility("hidden")
        def test_wrong_visibility(self):
            pass

        @number("1.6")
        @tags("mod.f")
        @visibility("visible")
        def test_no_weight(self):
            pass

        @weight(0)
        @tags("mod.f")
        def test_zero_weight(self):
            pass

    class BadTwo(Case):
        question = "2b"

        @weight(2)
        @number("2b.5")
        @tags("mod.g")
        @visibility("after_published")
        def test_duplicate_number(self):
            pass

        @tags("mod.g")
        def test_open(self):
            pass

    class Stray(Case):
        question = "7"

        @weight(1)
        def test_x(self):
            pass

    class HiddenBad(Case):
        question = "2b"

        @weight(1)
        @number("2b.9")
        @tags("mod.g")
        @visibility("visible")
        def test_visible_hidden(self):
            pass

    with pytest.raises(ConfigError) as caught:
        collect_tests(make_assignment([Bad, BadTwo, Stray], [HiddenBad]))
    message = str(caught.value)
    where = f"autograder.assignments.{ASSIGNMENT}.public_tests.Bad"
    expected = [
        f"the tests of {ASSIGNMENT} have 10 problem(s); nothing is graded until they are fixed",
        f"{where}.test_wrong_prefix: @number must start with '1.', got '2b.5'",
        f"{where}.test_no_tags: name the student functions it calls as 'module.function', with @tags "
        "or the class's `functions` (none were found in its self.call/self.check); got ()",
        f"{where}.test_bare_tag: name the student functions it calls as 'module.function'",
        f"{where}.test_wrong_visibility: @visibility must be 'visible' for a public test of "
        "question 1, got 'hidden' (or leave it out: the file decides)",
        f"{where}.test_zero_weight: @weight and @partial_credit need points > 0, got 0",
        "class Stray: question '7' is not in the config",
        "HiddenBad.test_visible_hidden: @visibility must be 'hidden' for a hidden test of "
        "question 2b, got 'visible'",
        "test number 2b.5 is used more than once",
        "question 2b: tests weigh 3 points, config says 2",
        "question 2b: its tests declare all its 2 points with @weight, which leaves none for test_open",
    ]
    missing = [text for text in expected if text not in message]
    assert not missing, message
    # A test without @number or @weight takes the defaults: no problem is reported for it.
    assert "test_no_number" not in message and "test_no_weight" not in message


# ----------------------------------------------------------------------------------------------
# AssignmentConfig


def test_valid_config_and_question_lookup():
    valid = config()
    assert valid.question("2b").points == 2 and valid.limits.memory_mb == 1024
    with pytest.raises(KeyError):
        valid.question("3")


def test_points_must_add_up_to_total():
    with pytest.raises(ValidationError, match="question points add up to 5, but total_points is 6"):
        config(total_points=6)


def test_question_ids_must_not_repeat():
    questions = [Question(id="1", title="A", points=2), Question(id="1", title="B", points=3)]
    with pytest.raises(ValidationError, match="question ids repeat: 1"):
        config(questions=questions)


@pytest.mark.parametrize("bad", ["1.2", "a1", "2bb", "", "Q1", "2B"])
def test_question_id_shape(bad):
    with pytest.raises(ValidationError, match="must look like"):
        Question(id=bad, title="X", points=1)


def test_config_rejects_unknown_keys_and_bad_values():
    with pytest.raises(ValidationError):
        Question(id="1", title="X", points=1, weight=2)  # typo'd / unknown field
    with pytest.raises(ValidationError):
        Question(id="1", title="X", points=0)
    with pytest.raises(ValidationError):
        Question(id="1", title="X", points=1, visibility="secret")
    with pytest.raises(ValidationError):
        Question(id="1", title="X", points=1, hidden_visibility="visible")


def test_load_config_reports_invalid_yaml_as_config_error(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("name: x\ntitle: X\ntotal_points: 4\nsubmission_files: [mod.py]\n"
                    "questions:\n  - {id: '1', title: A, points: 3}\n")
    with pytest.raises(ConfigError, match="add up to 3, but total_points is 4"):
        load_config(path)
    with pytest.raises(ConfigError, match="no config at"):
        load_config(tmp_path / "missing.yaml")


# ----------------------------------------------------------------------------------------------
# what a test need not declare (autograder.grading.collect)


def plain_suite() -> tuple[list[type], list[type]]:
    """Tests that declare nothing but their question: the defaults decide the rest."""

    class Later(Case):
        question = "1"

        def test_b_written_first(self):
            """Checks f."""
            self.check("mod.f", 1.0)

        def test_a_written_second(self):
            self.assert_close(self.call("mod.Model.step", case="x"), 0, "step", case="x")

    class Two(Case):
        question = "2b"

        @weight(0.5)
        def test_declared(self):
            self.check("mod.g", 2)

        def test_open(self):
            self.check("mod.g", 3)

    class Hidden(Case):
        question = "1"

        def test_hidden(self):
            self.check("mod.f", 2.0)

    return [Later, Two], [Hidden]


def test_a_test_without_decorators_takes_its_number_points_visibility_and_tags_by_default(make_assignment):
    public, hidden = plain_suite()
    tests = collect_tests(make_assignment(public, hidden))
    one = {t.method: t for t in tests["1"]}
    # numbered in the order written, public first; 3 points shared by 3 tests
    assert [(t.method, t.number) for t in tests["1"]] == [
        ("test_b_written_first", "1.1"), ("test_a_written_second", "1.2"), ("test_hidden", "1.3")]
    assert {t.weight for t in tests["1"]} == {1.0}
    assert (one["test_b_written_first"].visibility, one["test_hidden"].visibility) == ("visible", "after_due_date")
    assert one["test_b_written_first"].tags == ("mod.f", "mod.Model.step")  # every target the class names
    assert one["test_b_written_first"].name == "Checks f." and one["test_a_written_second"].name == "test_a_written_second"
    two = {t.method: t for t in tests["2b"]}
    assert (two["test_declared"].weight, two["test_open"].weight) == (0.5, 1.5)  # what 0.5 leaves of 2
    assert {t.visibility for t in tests["2b"]} == {"after_published"}  # the question's own setting


def test_the_question_may_come_from_the_number(make_assignment):
    class NoQuestion(Case):
        question = ""

        @number("2b.4")
        @weight(2)
        def test_x(self):
            self.check("mod.g", 1)

    class Rest(Case):
        question = "1"

        def test_y(self):
            self.check("mod.f", 1)

    tests = collect_tests(make_assignment([NoQuestion, Rest], []))
    assert [(t.question, t.number) for t in tests["2b"]] == [("2b", "2b.4")]


def test_explicit_numbers_are_kept_and_the_defaults_skip_them(make_assignment):
    class Mixed(Case):
        question = "1"

        def test_first(self):
            self.check("mod.f", 1)

        @number("1.2")
        def test_second(self):
            self.check("mod.f", 2)

        def test_third(self):
            self.check("mod.f", 3)

    class Two(Case):
        question = "2b"

        def test_x(self):
            self.check("mod.g", 1)

    tests = collect_tests(make_assignment([Mixed, Two], []))
    assert [t.number for t in tests["1"]] == ["1.1", "1.2", "1.3"]
    assert [t.method for t in tests["1"]] == ["test_first", "test_second", "test_third"]


def test_the_bundle_takes_the_points_release_recorded(make_assignment):
    public, _ = plain_suite()
    assignment = make_assignment(public, None)
    recorded = {"Later.test_b_written_first": 1.0, "Later.test_a_written_second": 1.0, "Two.test_open": 1.5}
    tests = collect_tests(assignment, include_hidden=False, recorded_weights=recorded)
    assert [t.weight for t in tests["1"]] == [1.0, 1.0] and [t.weight for t in tests["2b"]] == [0.5, 1.5]
    with pytest.raises(ConfigError, match=r"Two.test_open: its points are not in the bundle's recording"):
        collect_tests(assignment, include_hidden=False, recorded_weights={})


def test_rows_carry_the_collected_defaults(make_assignment):
    public, hidden = plain_suite()
    tests = collect_tests(make_assignment(public, hidden))
    (row,) = run_tests([tests["2b"][1]], testing.TestContext())
    assert (row.number, row.max_score, row.visibility, row.tags) == ("2b.2", 1.5, "after_published", ["mod.g"])


class _Answers:
    """A worker and a reference that answer every call with a value of their own."""

    def __init__(self, value):
        self.value = value

    def call(self, target, *args, **kwargs):
        return types.SimpleNamespace(value=self.value, output="", fixtures=None, args_after=None)


class Checked(Case):
    @weight(1)
    @number("1.1")
    @tags("mod.f")
    def test_check(self):
        self.check("mod.f", [1.0, 2.0], scale=3)


@pytest.mark.parametrize("student, passed", [(1.0, True), (1.5, False)])
def test_check_calls_both_and_compares(student, passed):
    reference = types.SimpleNamespace(call=lambda target, args, kwargs: _Answers(1.0).call(target))
    (row,) = run(Checked, "test_check", context=testing.TestContext(worker=_Answers(student), reference=reference))
    assert row.status == ("passed" if passed else "failed")
    if not passed:  # the feedback names the value and the inputs it was given
        assert "f(...) [[1.0, 2.0], scale=3]" in row.output, row.output


class CheckedDict(Case):
    @weight(1)
    @number("1.1")
    @tags("mod.f")
    def test_check(self):
        self.check("mod.f", ["a", "b", "a"])


@pytest.mark.parametrize("student, verdict", [
    ({"a": 2, "b": 1.0000001}, "passed"),
    ({"a": 2}, "the keys differ: missing ['b']"),
    ({"a": 3, "b": 1}, "f(...) [['a', 'b', 'a']]['a']: 1 of 1 entries differ"),
    ([2, 1], "expected a dict, got a list"),
])
def test_check_compares_a_dict_key_by_key(student, verdict):
    """Not only numbers and arrays: a dict, a list, text; the feedback names the key."""
    reference = types.SimpleNamespace(call=lambda target, args, kwargs: _Answers({"a": 2, "b": 1}).call(target))
    (row,) = run(CheckedDict, "test_check", context=testing.TestContext(worker=_Answers(student), reference=reference))
    assert verdict == "passed" and row.status == "passed" or verdict in row.output, row.output
    assert INTERNAL_MARK not in row.output


def test_an_argument_that_cannot_travel_is_the_tests_fault_not_the_students():
    from autograder.boundary.session import UnsendableArgument, encode_request
    from autograder.contract.target import Target

    target = Target.parse("mod.f")
    with pytest.raises(UnsendableArgument, match=r"an argument of mod.f cannot be sent .*a dict: \{\('a', 'b'\): 1\}"):
        encode_request(target, ({("a", "b"): 1},), {}, return_args=False, seed=0)
    encode_request(target, ({"a": [1, (2, "x")]}, None), {"k": 1.5}, return_args=False, seed=0)  # these travel


def test_a_test_file_that_cannot_be_imported_is_a_located_problem_not_a_traceback(monkeypatch):
    """Issue 26: a syntax error in a test file printed a traceback from importlib; it is now one
    problem at the file and line, as the config's are."""
    from autograder.grading import collect

    def broken(name):
        error = SyntaxError("expected ':'")
        error.filename, error.lineno, error.text = "/course/autograder/assignments/rnn/public_tests.py", 24, "def f()\n"
        raise error

    monkeypatch.setattr(collect, "optional_module", broken)
    problems: list[str] = []
    assert collect._test_module("autograder.assignments.rnn.public_tests", problems) is None
    assert problems == ["/course/autograder/assignments/rnn/public_tests.py:24: expected ':': def f()"]
    monkeypatch.setattr(collect, "optional_module", lambda name: {}["missing"])
    collect._test_module("autograder.assignments.rnn.public_tests", problems)
    assert problems[1].endswith("KeyError: 'missing' (while autograder.assignments.rnn.public_tests is imported)")
