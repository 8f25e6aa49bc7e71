"""The Gradescope zip, end to end: built, unpacked into a simulated ROOT, installed by its own setup.sh
and run by its own run_autograder, as root, with the students' code running as the worker's user."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import zipfile

import pytest

from autograder.course.build import build
from autograder.core.config import available_assignments, load_assignment
from autograder.course.dependencies import DEFAULT_IMAGE, IMAGES
from tests.conftest import assert_questions_complete, lost_points, question_scores
from tests.fixtures.word2vec_bugs import BUGS

pytestmark = pytest.mark.slow  # the end-to-end tier: -m slow (README: "Set up and test")


def test_zip_holds_the_scripts_and_one_assignment_only(tmp_path):
    out = tmp_path / "word2vec.zip"
    names = build(load_assignment("word2vec"), out)
    with zipfile.ZipFile(out) as archive:
        infos = {info.filename: info for info in archive.infolist()}
        requirements = archive.read("requirements.txt").decode()
        run_autograder = archive.read("run_autograder").decode()
    assert sorted(names) == sorted(infos)
    for script in ("setup.sh", "run_autograder"):
        assert infos[script].external_attr >> 16 == 0o100755, script
    assert "-m autograder gradescope word2vec" in run_autograder
    for needed in ("autograder/assignments/word2vec/hidden_tests.py",
                   "autograder/assignments/word2vec/fixtures.py",
                   "autograder/assignments/word2vec/reference_formulas.py",
                   "autograder/worker/supervisor.py", "solutions/word2vec/sgd.py",
                   "assignment/word2vec/utils/sanity.py"):
        assert needed in infos, needed
    for name in infos:
        assert "parser" not in name, name  # neither the other assignment's tests nor its reference
        assert "__pycache__" not in name and not name.endswith(".pyc"), name
    assert requirements == IMAGES[DEFAULT_IMAGE].lock() and "numpy==2.2.6" in requirements.split()
    pinned = re.compile(r"[A-Za-z0-9_.-]+==[0-9][0-9A-Za-z.]*")
    packages = [line for line in requirements.splitlines() if not line.startswith("#")]
    assert packages and all(pinned.fullmatch(line) for line in packages), requirements
    again = tmp_path / "again.zip"
    build(load_assignment("word2vec"), again)
    assert again.read_bytes() == out.read_bytes()  # rebuilding changes nothing


def _other_python(than: str) -> str:
    """A Python of another version than ``than``: this one, unless it is that version."""
    return sys.executable if f"{sys.version_info[0]}.{sys.version_info[1]}" != than else "/usr/bin/python3"


@pytest.mark.parametrize("name", list(IMAGES))
def test_zip_for_an_image_installs_its_lock_and_refuses_another_python(name, tmp_path):
    """A zip built for one image, set up on another Python, stops before installing anything, and
    says which base image to choose or how to build for the other."""
    image = IMAGES[name]
    out = tmp_path / "word2vec.zip"
    build(load_assignment("word2vec"), out, image)
    with zipfile.ZipFile(out) as archive:
        assert archive.read("requirements.txt").decode() == image.lock()
        archive.extractall(tmp_path / "source")
    python = _other_python(image.python)
    run = subprocess.run(["bash", str(tmp_path / "source" / "setup.sh")], capture_output=True, text=True,
                         timeout=60, env={**os.environ, "PYTHON": python, "AUTOGRADER_ROOT": str(tmp_path)})
    assert run.returncode == 1
    assert f"built for Gradescope's {image.title} image (Python {image.python})" in run.stderr
    assert "--image IMAGE" in run.stderr and "ubuntu-22.04, ubuntu-24.04" in run.stderr
    assert not (tmp_path / "venv").exists()


def test_parser_zip_follows_the_references_links(tmp_path, repo):
    out = tmp_path / "parser.zip"
    build(load_assignment("parser"), out)
    with zipfile.ZipFile(out) as archive:
        # solutions/parser/utils/gradcheck.py is a link into word2vec's folder, which is not shipped
        assert archive.read("solutions/parser/utils/gradcheck.py") == \
            (repo / "solutions" / "parser" / "utils" / "gradcheck.py").read_bytes()
        assert not any("word2vec" in name for name in archive.namelist())


def _check_protections(printed: str) -> None:
    """What run_autograder tells the staff: private files and the worker's user, as on Gradescope."""
    assert "on:  private files: source/" in printed
    assert "on:  student code runs as the user ag-worker" in printed
    assert "on:  network:" in printed
    assert "off: separate user" not in printed


def _check_reference_gets_full_marks(gradescope, repo, assignment: str) -> None:
    results, printed = gradescope.grade(assignment, repo / "solutions" / assignment)
    config = load_assignment(assignment).config
    assert_questions_complete(results, config)
    assert lost_points(results) == [] and results.score == pytest.approx(config.graded_points)
    _check_protections(printed)


@pytest.mark.parametrize("name", available_assignments())
def test_reference_gets_full_marks(gradescope, repo, name):
    _check_reference_gets_full_marks(gradescope, repo, name)


def test_the_installed_source_and_metadata_are_private(gradescope, repo):
    gradescope.install("word2vec")
    layout = gradescope.layout
    assert oct(layout.source.stat().st_mode & 0o777) == oct(0o700)
    assert oct(layout.metadata.stat().st_mode & 0o777) == oct(0o600)


def test_word2vec_starter_gets_zero_and_a_planted_results_json_is_replaced(gradescope, repo):
    forged = json.dumps({"score": 40, "tests": [{"name": "forged", "score": 40, "max_score": 40}]})
    results, _ = gradescope.grade("word2vec", repo / "assignment" / "word2vec",
                                  plant={"results.json": forged})
    assert_questions_complete(results, load_assignment("word2vec").config)
    assert results.score == 0 and "forged" not in {t.name for t in results.tests}


def test_word2vec_bug_loses_points_only_in_its_question(gradescope, repo, tmp_path):
    bug = next(b for b in BUGS if b.name == "sgd steps uphill")
    results, _ = gradescope.grade("word2vec", bug.apply(repo / "solutions" / "word2vec", tmp_path / "s"))
    assert_questions_complete(results, load_assignment("word2vec").config)
    assert {t.number.split(".")[0] for t in lost_points(results)} == bug.questions
    assert question_scores(results)["3"][0] == 0

