"""The student bundle on the oldest and the newest Python of this machine, as the bundle's README tells a
student to use it: a fresh venv, ``pip install -r requirements.txt`` from the package index (so each
Python gets its own numpy), then the self-check on the reference, the written check, the zip, and
run.py's help, and the self-check's portable path (Windows', macOS'). The expected values were recorded by ``release`` under this venv's numpy, so this also
shows that they hold under the other numpy versions (``-m index``: it installs from the index)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from autograder.course.release import write_bundle
from autograder.core.config import load_assignment
from tests.fixtures.pythons import find_python, newest_python

pytestmark = pytest.mark.index

OLDEST = "3.10"


def _python(which: str) -> str:
    if which == "oldest":
        found = find_python(OLDEST)
        if found is None:
            pytest.fail(f"Python {OLDEST} (Gradescope's) is not on this machine: pyenv install {OLDEST}, "
                        f"or put python{OLDEST} on PATH")
        return found
    newest = newest_python()
    assert newest is not None
    return newest[1]


@pytest.fixture(scope="module", params=["oldest", "newest"])
def student_venv(request, tmp_path_factory) -> Path:
    """A fresh venv of that Python with the bundle's requirements, installed as the README says."""
    folder = tmp_path_factory.mktemp(f"venv-{request.param}")
    subprocess.run([_python(request.param), "-m", "venv", str(folder / "venv")], check=True, timeout=300)
    bundle = tmp_path_factory.mktemp("requirements")
    write_bundle(load_assignment("word2vec"), bundle / "b", with_data=False)
    install = subprocess.run([str(folder / "venv" / "bin" / "python"), "-m", "pip", "install", "--quiet",
                              "-r", str(bundle / "b" / "requirements.txt")],
                             capture_output=True, text=True, timeout=900)
    assert install.returncode == 0, install.stderr[-3000:]
    return folder / "venv" / "bin" / "python"


def _run(python: Path, folder: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "UD_EWT_DIR")}
    return subprocess.run([str(python), *args], cwd=folder, capture_output=True, text=True, timeout=600,
                          env={**env, "COLUMNS": "200"})


@pytest.mark.parametrize("name", ["word2vec", "parser"])
def test_the_bundle_passes_its_self_check_on_the_reference(student_venv, name, tmp_path, repo,
                                                           ewt_stand_in):
    assignment = load_assignment(name)
    folder = tmp_path / name
    write_bundle(assignment, folder, data=ewt_stand_in)
    for file in assignment.config.submission_files:
        shutil.copy(repo / "solutions" / name / file, folder / file)
    shutil.copy(repo / "solutions" / "written" / f"{name}.md", folder / "written.md")
    numpy = _run(student_venv, folder, "-c", "import numpy, sys; print(sys.version.split()[0], numpy.__version__)")
    check = _run(student_venv, folder, "-m", "autograder", "check", name)
    assert check.returncode == 0, f"{numpy.stdout}{check.stdout[-4000:]}{check.stderr[-2000:]}"
    assert "passed" in check.stdout and "failed" not in check.stdout.split("Total")[-1]
    portable = _run(student_venv, folder, "-m", "autograder", "check", name, "--portable")  # as on Windows
    assert portable.returncode == 0, portable.stdout[-4000:] + portable.stderr[-2000:]
    written = _run(student_venv, folder, "-m", "autograder", "check-written", name, "written.md")
    assert written.returncode == 0, written.stdout + written.stderr
    collected = _run(student_venv, folder, "-m", "autograder", "collect-submission", name)
    assert collected.returncode == 0, collected.stdout + collected.stderr
    assert (folder / f"{name}_submission.zip").is_file()
    helped = _run(student_venv, folder, "run.py", "--help")
    assert helped.returncode == 0 and "--data" in helped.stdout, helped.stderr
