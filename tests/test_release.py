"""Starter generation from the reference: the stubs, marker errors, and the committed bundles."""

from __future__ import annotations

import filecmp
import re
import subprocess
import textwrap

import pytest

from autograder.core.config import available_assignments, load_assignment
from autograder.course.starter import ReleaseError, release, strip_solutions
from tests.conftest import PYTHON

pytestmark = pytest.mark.smoke  # also run on Python 3.10 and the newest Python (.ci/run)

SOURCE = textwrap.dedent('''\
    class Model:
        def step(self, x):
            """Docstring stays."""
            y = x + 1  # given
            ### BEGIN SOLUTION
            z = y * 2
            # a comment is not counted
            return z
            ### END SOLUTION


    def top():
        ### BEGIN SOLUTION
        return 1
        ### END SOLUTION
    ''')


def test_blocks_become_indented_stubs():
    out = strip_solutions(SOURCE)
    assert "z = y * 2" not in out and "return 1" not in out
    assert '"""Docstring stays."""' in out and "y = x + 1  # given" in out
    assert "        ### YOUR CODE HERE (about 2 lines)\n" \
           '        raise NotImplementedError("Model.step is not implemented yet")\n' \
           "        ### END YOUR CODE\n" in out
    assert "    ### YOUR CODE HERE (about 1 line)\n" in out
    assert 'NotImplementedError("top is not implemented yet")' in out
    compile(out, "stub", "exec")


@pytest.mark.parametrize("text, message", [
    ("def f():\n    ### BEGIN SOLUTION\n    return 1\n", "never closed"),
    ("def f():\n    return 1\n    ### END SOLUTION\n", "without a BEGIN"),
    ("def f():\n    ### BEGIN SOLUTION\n    ### BEGIN SOLUTION\n    ### END SOLUTION\n", "cannot nest"),
    ("def f():\n    ### BEGIN SOLUTION\n    return 1\n  ### END SOLUTION\n", "not indented like"),
])
def test_malformed_markers_are_rejected_with_a_line(text, message):
    with pytest.raises(ReleaseError, match=message) as error:
        strip_solutions(text, "f.py")
    assert "f.py:" in str(error.value)


@pytest.mark.parametrize("name", available_assignments())
def test_committed_starter_equals_release_output(name, tmp_path, repo):
    written = release(load_assignment(name), tmp_path / name)
    committed = repo / "assignment" / name
    released = sorted(p.relative_to(tmp_path / name) for p in written)
    on_disk = sorted(p.relative_to(committed) for p in committed.rglob("*")
                     if p.is_file() and "__pycache__" not in p.parts)
    assert released == on_disk, \
        "regenerate with: python -m autograder release NAME --out assignment/NAME --force --starter-only"
    for relative in released:
        assert filecmp.cmp(tmp_path / name / relative, committed / relative, shallow=False), relative


def test_release_refuses_a_non_empty_folder(tmp_path):
    (tmp_path / "keep.txt").write_text("x")
    with pytest.raises(ReleaseError, match="not empty"):
        release(load_assignment("word2vec"), tmp_path)
    assert (tmp_path / "keep.txt").exists()


def test_starter_contains_no_solution(repo):
    for path in (repo / "assignment").rglob("*.py"):
        text = path.read_text()
        assert "BEGIN SOLUTION" not in text and "END SOLUTION" not in text, path


def _self_checking_modules() -> list[tuple[str, str]]:
    """(assignment, module) for each submitted module of every assignment, each of which must check
    itself with its public tests."""
    found = []
    for name in available_assignments():
        assignment = load_assignment(name)
        for file in assignment.config.submission_files:
            # run.py is the training script: running it trains, it checks no functions of its own
            if file.endswith(".py") and not file.startswith("run"):
                found.append((name, file.removesuffix(".py")))
    return found


PUBLIC_TESTING_MODULES = _self_checking_modules()


@pytest.mark.parametrize("assignment, module", PUBLIC_TESTING_MODULES)
def test_a_student_file_checks_itself_with_its_public_tests_only(assignment, module, repo):
    """No hand-written self-check code in the reference: the self-check is the public tests."""
    text = (repo / "solutions" / assignment / f"{module}.py").read_text(encoding="utf-8")
    assert f'run_public_tests(__file__, "{assignment}")' in text
    assert "def check_" not in text and "run_checks" not in text


@pytest.mark.parametrize("assignment, module", PUBLIC_TESTING_MODULES)
def test_a_file_that_runs_its_public_tests_says_what_check_says(assignment, module, repo):
    """The self-check of the starter fails, not implemented yet; the reference's passes; both list only
    the file's tests, as `check --only` does. (The student guide's `python nn_basics.py` and
    `python optim.py` are two of these runs.)"""
    for folder, status, said in (("assignment", 1, "not implemented yet"), ("solutions", 0, "Total: ")):
        run = subprocess.run([PYTHON, f"{module}.py"], cwd=repo / folder / assignment,
                             capture_output=True, text=True, timeout=300)
        assert run.returncode == status and said in " ".join(run.stdout.split()), run.stdout + run.stderr
        assert f"Public tests of {module}.py" in run.stdout and "Traceback" not in run.stdout + run.stderr
