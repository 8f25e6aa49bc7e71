"""`python -m autograder new NAME` writes an assignment that passes every check right away: the
reference gets full marks, the starter 0 with every question listed, and release, build, check,
check-written and the framework's own tests over every assignment work on it. It runs in a copy of
the checkout, as a TA would on a fresh clone."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from autograder.core.config import REPO_ROOT
from tests.simulated_gradescope import SEED_VENV

pytestmark = pytest.mark.slow  # the end-to-end tier: -m slow (README: "Set up and test")

# The framework's tests parametrised over the assignments they find, run on the new one.
FRAMEWORK_TESTS = ["tests/test_handouts.py", "tests/test_student_bundle.py", "tests/test_release.py",
                   "tests/test_gradescope.py", "tests/test_hostile.py", "tests/test_batch.py", "tests/test_derivations.py"]
MIN_SELECTED = 12  # of them, at least this many name the assignment they run on


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    """A copy of the checkout's sources (links kept, as a clone has them)."""
    folder = tmp_path_factory.mktemp("new") / "checkout"
    folder.mkdir()
    for name in ("autograder", "solutions", "assignment", "handouts", "tests", "pyproject.toml"):
        source = REPO_ROOT / name
        if source.is_dir():
            shutil.copytree(source, folder / name, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(source, folder / name)
    return folder


def autograder(folder: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("AUTOGRADER_ROOT", "AUTOGRADER_PORTABLE")}
    env["PYTHONPATH"] = str(folder)  # the copy's framework, not the checkout's
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=cwd or folder, env=env,
                          capture_output=True, text=True, timeout=600)  # fmt: skip


@pytest.fixture(scope="module")
def created(checkout) -> Path:
    done = autograder(checkout, "new", "demo", "--title", "Assignment 9: a demonstration")
    assert done.returncode == 0, done.stderr
    assert "wrote" in done.stdout and "grade demo solutions/demo" in done.stdout
    return checkout


def results(folder: Path) -> dict:
    return json.loads((folder / "results.json").read_text())


def test_new_writes_an_assignment_that_passes_every_check(created, tmp_path):
    folder = created
    graded = autograder(folder, "grade", "demo", "solutions/demo")
    assert graded.returncode == 0, graded.stderr
    full = results(folder)
    assert full["score"] == 6 and all(t["score"] == t["max_score"] for t in full["tests"])

    starter = autograder(folder, "grade", "demo", "assignment/demo")
    assert starter.returncode == 0, starter.stderr
    assert results(folder)["score"] == 0
    assert {"1", "2", "2a-i"} <= {t["number"].rsplit(".", 1)[0] for t in results(folder)["tests"]}

    bundle = tmp_path / "bundle"
    released = autograder(folder, "release", "demo", "--out", str(bundle))
    assert released.returncode == 0, released.stderr
    checked = autograder(bundle, "check", "demo", cwd=bundle)
    assert "Total: 0 / 3" in checked.stdout and "not implemented yet" in checked.stdout, checked.stdout + checked.stderr
    shutil.copy(folder / "solutions" / "demo" / "demo.py", bundle / "demo.py")
    checked = autograder(bundle, "check", "demo", cwd=bundle)
    assert checked.returncode == 0 and "Total: 3 / 3" in checked.stdout, checked.stdout + checked.stderr
    written = autograder(bundle, "check-written", "demo", "written.md", cwd=bundle)
    assert "0 of 3 written questions answered." in written.stdout, written.stdout + written.stderr

    reference = autograder(folder, "check-written", "demo", "solutions/demo/written.md")
    assert reference.returncode == 0 and "2 x (w x - y)" in reference.stdout, reference.stdout
    flat = " ".join(reference.stdout.replace("│", " ").split())
    assert "for d/dw read as 2 (x^T w - y) x" in flat, reference.stdout  # the derivation's final formula
    validated = autograder(folder, "validate", "demo")
    assert validated.returncode == 0 and "ready to release" in validated.stdout, validated.stdout

    archive = tmp_path / "demo.zip"
    built = autograder(folder, "build", "demo", "--out", str(archive))
    assert built.returncode == 0, built.stderr
    names = zipfile.ZipFile(archive).namelist()
    assert "autograder/assignments/demo/hidden_tests.py" in names and not any("new_files" in n for n in names)
    assert not (folder / "autograder" / "assignments" / "demo" / "fixtures.py").exists()  # optional, and not needed here


def test_the_frameworks_tests_cover_the_new_assignment(created, request):
    env = {k: v for k, v in os.environ.items() if k not in ("AUTOGRADER_ROOT", "AUTOGRADER_PORTABLE")}
    env["PYTHONPATH"] = str(created)
    # The simulated Gradescope runs in there as root only (else it is skipped there too, as the worker_user
    # fixture says); its venv would hold the same pins as this session's, so it starts from this one.
    if os.geteuid() == 0:
        gradescope = request.getfixturevalue("gradescope")
        gradescope.install("word2vec")  # done already, unless this test runs without the others
        env[SEED_VENV] = str(gradescope.root / "venv")
    # -n 0: inside a worker of this session's pytest-xdist, one process is its share of the cores.
    # -m: every tier of those files (most are the slow one), as CI runs them.
    command = [sys.executable, "-m", "pytest", "-q", "-x", "-n", "0", "-p", "no:cacheprovider", "-k", "demo",
               "-m", "slow or not slow"]
    done = subprocess.run([*command, *FRAMEWORK_TESTS], cwd=created, env=env, capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, done.stdout[-3000:]
    # skipped: the tests that need root (the simulated Gradescope), where the suite does not run as root
    ran = sum(int(n) for n in re.findall(r"(\d+) (?:passed|skipped)", done.stdout.splitlines()[-1]))
    assert ran >= MIN_SELECTED, done.stdout[-3000:]


@pytest.mark.parametrize(
    "name, says",
    [
        ("word2vec", "exists already"),
        ("Bigrams", "lowercase"),
        ("2bigrams", "lowercase"),
        ("class", "lowercase"),
        ("random", "already the name of a module"),
        ("utils", "already the name of a module"),
    ],
)
def test_new_refuses_a_name_in_use_or_invalid(checkout, name, says):
    done = autograder(checkout, "new", name)
    assert done.returncode == 2 and says in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("command", [("grade", "demo", "solutions/demo"), ("release", "demo", "--out", "bundle")])
def test_grade_or_release_before_the_starter_exists_says_how_to_make_it(created, command):
    """One error with the command to run: not a 0 whose reason repeats in every question, not a
    traceback, not half a bundle."""
    starter = created / "assignment" / "demo"
    aside = starter.with_name("demo-aside")
    starter.rename(aside)
    try:
        done = autograder(created, *command)
    finally:
        aside.rename(starter)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "python -m autograder release demo --out" in done.stderr and "--starter-only" in done.stderr
    assert not (created / "bundle").exists()


def test_the_templates_fit_the_line_length_with_the_longest_name():
    """A name is up to 31 characters: with it, every line of the generated Python still fits ruff's
    120 (a TA's first validate once failed for any name of 7 letters or more)."""
    from autograder.course.new import TEMPLATES

    longest = "a" * 31
    long_lines = [f"{path.name}:{number}" for path in TEMPLATES.rglob("*.py.tmpl")
                  for number, line in enumerate(path.read_text().splitlines(), 1)
                  if len(line.replace("@NAME@", longest)) > 120]
    assert long_lines == []
