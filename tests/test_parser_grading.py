"""The parser autograder, tested like a product: reference, starter, buggy submissions."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from autograder.assignments.parser.support import wrong_parses
from autograder.core.config import load_assignment
from tests.conftest import (PYTHON, Grader, assert_complete, check_bug_is_localised, check_starter_scores_zero,
                            lost_points, question_scores)
from tests.fixtures.mutants import bug
from tests.fixtures.parser_bugs import BUGS, CACHE_SWAPPED, ENDLESS, TRANSITIONS

pytestmark = pytest.mark.slow  # the end-to-end tier: -m slow (README: "Set up and test")


@pytest.fixture(scope="module")
def parser_grader() -> Grader:
    return Grader(load_assignment("parser"))


@pytest.mark.smoke
def test_reference_gets_full_marks(parser_grader, repo):
    results = parser_grader(repo / "solutions" / "parser")
    assert_complete(results, parser_grader)
    assert lost_points(results) == [] and results.score == pytest.approx(55)  # 50 code, 5 written


def test_starter_gets_zero_without_crashing(parser_grader, repo):
    check_starter_scores_zero(parser_grader, repo / "assignment" / "parser")


@pytest.mark.parametrize("bug", [b for b in BUGS if b.name not in ENDLESS],
                         ids=[b.name for b in BUGS if b.name not in ENDLESS])
def test_bug_loses_points_only_where_it_is(bug, parser_grader, repo, tmp_path):
    check_bug_is_localised(bug, parser_grader, repo / "solutions" / "parser", tmp_path)


@pytest.mark.parametrize("bug", [b for b in BUGS if b.name in ENDLESS], ids=[b.name for b in BUGS if b.name in ENDLESS])
def test_an_endless_loop_loses_points_only_where_it_is(bug, repo, tmp_path):
    assignment = load_assignment("parser")
    cut = [q.model_copy(update={"time_limit": q.time_limit / ENDLESS[bug.name]}) for q in assignment.config.questions]
    grader = Grader(replace(assignment, config=assignment.config.model_copy(update={"questions": cut})))
    check_bug_is_localised(bug, grader, repo / "solutions" / "parser", tmp_path)


def _with_deques(reference: Path, target: Path) -> Path:
    """The reference with its stack and buffer kept in collections.deque."""
    shutil.copytree(reference, target, ignore=shutil.ignore_patterns("__pycache__"))
    path = target / "parser_transitions.py"
    text = path.read_text()
    for old, new in [("from typing import", "from collections import deque\nfrom typing import"),
                     ('self.stack: List[Token] = ["ROOT"]', 'self.stack = deque(["ROOT"])'),
                     ("self.buffer: List[Token] = list(sentence)", "self.buffer = deque(sentence)"),
                     ("self.stack.append(self.buffer.pop(0))", "self.stack.append(self.buffer.popleft())"),
                     ("dependent = self.stack.pop(-2)", "dependent = self.stack[-2]\n            del self.stack[-2]")]:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    path.write_text(text)
    return target


def test_deque_stack_and_buffer_get_full_marks(parser_grader, repo, tmp_path):
    """The PartialParse docstring allows any sequence for the stack and the buffer: a deque passes
    the file's self-check and loses nothing, in 2a, 2b or the end-to-end question."""
    submission = _with_deques(repo / "solutions" / "parser", tmp_path / "deques")
    check = subprocess.run([PYTHON, "parser_transitions.py"], cwd=submission, capture_output=True, text=True,
                           timeout=120)
    assert check.returncode == 0 and "Public tests of parser_transitions.py" in check.stdout, check.stdout + check.stderr
    results = parser_grader(submission)
    assert lost_points(results) == [], [(t.number, t.output) for t in lost_points(results)]


def test_a_cache_in_another_order_read_alike_gets_full_marks(parser_grader, repo, tmp_path):
    """forward's docstring gives the cache's layout, but a forward and backward that agree on
    another order are right: 3c tries the right cache in their order too."""
    submission = tmp_path / "swapped"
    shutil.copytree(repo / "solutions" / "parser", submission, symlinks=True)
    model = submission / "parser_model.py"
    text = model.read_text()
    for old, new in CACHE_SWAPPED:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    model.write_text(text)
    results = parser_grader(submission)
    assert lost_points(results) == [], [(t.number, t.output) for t in lost_points(results)]


# What the feedback must name for these bugs: (the test that loses points, words of its message).
CAUSES = {
    "minibatch_parse returns parses in the order they finish":
        ("2b.4", "are those of sentence 1 ([1, 4]) (6 of 7 sentences got wrong arcs): return the results in "
                 "the order of the sentences"),
    "dropout draws random numbers when it is off": ("1b.6", "drew random numbers from rng although dropout is off"),
    "backward skips the dropout mask": ("3c.4", "It is the gradient without dropout"),
    "dU from the hidden layer before dropout": ("3c.4", "the gradient for the hidden layer BEFORE dropout"),
    "training loop never steps the optimizer": ("4.1", "never changed the model's parameters (is optimizer.step"),
    "training loop runs the model with dropout off": ("4.2", "never with training=True"),
    # the digits that differ, not "got 0.335584, expected 0.335584", with the relative error
    "Adam with eps inside the square root": ("1a.1", "(relative error "),
    "Adam.step does nothing": ("1a.5", "parameter 'p' after step 1"),
}


@pytest.mark.parametrize("name", sorted(CAUSES))
def test_feedback_names_the_cause(name, parser_grader, repo, tmp_path):
    bug = next(b for b in BUGS if b.name == name)
    number, words = CAUSES[name]
    results = parser_grader.graded_bug(bug, tmp_path)
    test = next(t for t in results.tests if t.number == number)
    assert test.score < test.max_score and words in test.output, test.output


def test_wrong_arcs_are_told_apart_from_misplaced_ones():
    """2b's diagnosis: another sentence's arcs mean the order is wrong; other arcs are a wrong parse."""
    sentences = [[1, 2], [3], [4, 5]]
    expected = [[(2, 1), ("ROOT", 2)], [("ROOT", 3)], [(5, 4), ("ROOT", 5)]]
    assert wrong_parses(sentences, expected, expected) is None
    swapped = wrong_parses(sentences, [expected[1], expected[0], expected[2]], expected)
    assert "sentence 0 ([1, 2]) are those of sentence 1 ([3]) (2 of 3 sentences got wrong arcs)" in swapped
    assert "in the order of the sentences" in swapped
    wrong = wrong_parses(sentences, [expected[0], expected[1], [(4, 5), ("ROOT", 4)]], expected)
    assert "sentence 2 ([4, 5])" in wrong and "missing [('ROOT', 5), (5, 4)]" in wrong
    assert "should not be there [('ROOT', 4), (4, 5)]" in wrong and "the order of the results is not" in wrong


def test_a_do_nothing_adam_step_earns_nothing(parser_grader, tmp_path):
    """Arrays that never change are trivially updated in place: that test once gave a point."""
    nothing = next(b for b in BUGS if b.name == "Adam.step does nothing")
    results = parser_grader.graded_bug(nothing, tmp_path)
    assert question_scores(results)["1a"][0] == 0


def test_a_parse_one_step_short_loses_less_than_a_crash(parser_grader, tmp_path):
    """Partial credit by the share of sentences parsed right: a minibatch_parse that leaves one parse
    a step short keeps most of 2b, where one that returns nothing keeps none of it."""
    short = next(b for b in BUGS if b.name == "minibatch_parse leaves the last parse one step short")
    score, points = question_scores(parser_grader.graded_bug(short, tmp_path))["2b"]
    assert 0.5 * points < score < points


def test_forward_in_training_drops_with_the_model_s_own_probability(parser_grader, tmp_path):
    hard_coded = next(b for b in BUGS if b.name == "forward hard-codes the dropout probability")
    lost = {t.number: t.output for t in lost_points(parser_grader.graded_bug(hard_coded, tmp_path / "p"))}
    assert list(lost) == ["3b.3"] and "the model's own dropout_prob" in lost["3b.3"]


def test_a_number_just_off_shows_the_digits_that_differ(parser_grader, tmp_path):
    eps = next(b for b in BUGS if b.name == "Adam with eps inside the square root")
    test = next(t for t in parser_grader.graded_bug(eps, tmp_path).tests if t.number == "1a.1")
    got, expected = re.search(r"got ([-0-9.e]+), expected ([-0-9.e]+)", test.output).groups()
    assert got != expected, test.output


# Functions that answer right but leave behind what their callers then run out of (blind attacks:
# a 2 GB file, 3,000 pipes): question 4's training runs them and fails for disk space or open files.
# It runs again in a fresh worker with every other question's function the course's, and keeps that.
LEFT_BEHIND = bug(
    "PartialParse.__init__ fills the question's folder and parse_step keeps 3,000 pipes open", TRANSITIONS,
    "        ### BEGIN SOLUTION\n        self.stack: List[Token] = [\"ROOT\"]",
    "        ### BEGIN SOLUTION\n        if not getattr(PartialParse, 'filled', False):\n"
    "            PartialParse.filled = True\n"
    "            try:\n"
    "                with open('ballast.bin', 'wb') as ballast:\n"
    "                    for _ in range(48):\n"
    "                        ballast.write(bytes(8 << 20))\n"
    "            except OSError:\n"
    "                pass\n"
    "        self.stack: List[Token] = [\"ROOT\"]",
    "parser_transitions.PartialParse.__init__", "2a",
    ("        ### BEGIN SOLUTION\n        if transition == \"S\":",
     "        ### BEGIN SOLUTION\n        if not hasattr(PartialParse, 'pipes'):\n"
     "            PartialParse.pipes = []\n"
     "            try:\n"
     "                for _ in range(3000):\n"
     "                    PartialParse.pipes.append(__import__('os').pipe())\n"
     "            except OSError:\n"
     "                pass\n"
     "        if transition == \"S\":"),
)


def test_what_a_right_function_leaves_behind_costs_its_callers_nothing(parser_grader, tmp_path):
    results = parser_grader.graded_bug(LEFT_BEHIND, tmp_path)
    assert_complete(results, parser_grader)
    assert lost_points(results) == []
    training = [t for t in results.tests if t.number.startswith("4.")]
    assert all("ran out of" in t.output and "minibatch_parse (question 2b)" in t.output for t in training)
