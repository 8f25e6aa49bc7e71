"""The parser autograder, tested like a product: reference, starter, buggy submissions."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from autograder.config import load_assignment
from tests.conftest import PYTHON, Grader, assert_complete, check_bug_is_localised, check_starter_scores_zero, lost_points
from tests.fixtures.parser_bugs import BUGS


@pytest.fixture(scope="module")
def parser_grader() -> Grader:
    return Grader(load_assignment("parser"))


def test_reference_gets_full_marks(parser_grader, repo):
    results = parser_grader(repo / "solutions" / "parser")
    assert_complete(results, parser_grader)
    assert lost_points(results) == [] and results.score == pytest.approx(55)  # 50 code, 5 written


def test_starter_gets_zero_without_crashing(parser_grader, repo):
    check_starter_scores_zero(parser_grader, repo / "assignment" / "parser")


@pytest.mark.parametrize("bug", BUGS, ids=[b.name for b in BUGS])
def test_bug_loses_points_only_where_it_is(bug, parser_grader, repo, tmp_path):
    check_bug_is_localised(bug, parser_grader, repo / "solutions" / "parser", tmp_path)


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
    assert "Summary: 6/6 checks passed" in check.stdout, check.stdout + check.stderr
    results = parser_grader(submission)
    assert lost_points(results) == [], [(t.number, t.output) for t in lost_points(results)]
