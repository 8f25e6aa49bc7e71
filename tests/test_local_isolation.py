"""Grading on a TA's machine: the student's code sees nothing of it.

A submission that walks the file system and reads where the reference, the hidden tests and the TA's
own files lie finds none of them, when the TA grades as root from a checkout anyone may read, and when
the TA grades as an ordinary user (through a user namespace). Two gradings running at once cannot
signal or trace each other. Each worker has a world of its own (autograder/worker/namespaces.py);
tests/test_hostile.py shows that files left in /tmp never reach another question.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import textwrap
from pathlib import Path

import pytest

from autograder.core.config import Limits
from autograder.boundary.isolation import detect_isolation
from autograder.core.results import GradescopeResults
from autograder.boundary.session import WorkerSession, WorkerSpec
from autograder.worker.processes import descendants, process_table
from tests.fixtures.hostile import CANARY, in_sgd

pytestmark = [pytest.mark.skipif(os.geteuid() != 0, reason="creates users and grades as another user"),
              pytest.mark.smoke]  # smoke: also run on Python 3.10 and the newest Python (.ci/run)

TA_USER = "ag-ta-test"


def walk_and_read(paths: list[str]) -> object:
    """An attack in sgd.sgd: walk the file system for anything that looks like a reference, hidden
    tests or the planted secret, read ``paths`` outright, and print all of it (the feedback)."""
    return in_sgd("walks the file system and reads the TA's files", f"""\
    import os, sys
    skip = {{"/proc", "/sys", "/usr", sys.prefix, sys.base_prefix}}
    found = []
    for top, folders, files in os.walk("/"):
        folders[:] = [f for f in folders if os.path.join(top, f) not in skip]
        for name in files:
            path = os.path.join(top, name)
            if name in ("hidden_tests.py", "reference_formulas.py", "secret.txt") or "/solutions/" in path:
                found.append(path)
    print("found %d: %s" % (len(found), found[:20]))
    for path in {paths!r}:
        try:
            print(path, open(path).read())
        except OSError as error:
            print(path, type(error).__name__)
""", questions="")


def _checkout(folder: Path, gradescope) -> Path:
    """A checkout anyone may read, as a clone in a home folder: the zip's source has its layout."""
    gradescope.install("word2vec")
    checkout = folder / "checkout"
    shutil.copytree(gradescope.layout.source, checkout, symlinks=True)
    for secret in (checkout / "solutions" / "word2vec" / "sgd.py",
                   checkout / "autograder" / "assignments" / "word2vec" / "hidden_tests.py",
                   checkout / "autograder" / "assignments" / "word2vec" / "reference_formulas.py"):
        secret.write_text(secret.read_text() + f"\n# {CANARY}\n")
    for path in [folder, *folder.rglob("*")]:
        if not path.is_symlink():
            os.chmod(path, 0o755 if path.is_dir() else 0o644)
    return checkout


def _secrets(checkout: Path, home: Path) -> list[str]:
    (home / "secret.txt").write_text(CANARY)
    return [str(home / "secret.txt"), str(checkout / "solutions" / "word2vec" / "sgd.py"),
            str(checkout / "autograder" / "assignments" / "word2vec" / "hidden_tests.py"),
            str(checkout / "autograder" / "assignments" / "word2vec" / "reference_formulas.py")]


def _check_nothing_found(run: subprocess.CompletedProcess, results_file: Path, paths: list[str]) -> None:
    assert run.returncode == 0, run.stdout + run.stderr
    results = GradescopeResults.model_validate(json.loads(results_file.read_text()))
    printed = "\n".join(test.output for test in results.tests)
    assert results.score == 40, printed
    assert "found 0: []" in printed  # the walk ran, and found nothing
    for path in paths:
        assert f"{path} FileNotFoundError" in printed  # not even there
    assert CANARY not in results_file.read_text() + run.stdout + run.stderr


@pytest.fixture
def place():
    folder = Path(tempfile.mkdtemp(prefix="ag-ta-"))
    os.chmod(folder, 0o755)
    yield folder
    shutil.rmtree(folder)


def test_grading_as_root_from_a_readable_checkout_shows_the_student_nothing(gradescope, place, repo):
    checkout = _checkout(place, gradescope)
    home = place / "home"
    home.mkdir()
    paths = _secrets(checkout, home)
    submission = walk_and_read(paths).apply(repo / "solutions" / "word2vec", place / "submission")
    run = subprocess.run([gradescope.python, "-m", "autograder", "grade", "word2vec", str(submission),
                          "--results", str(place / "results.json"), "-v"],
                         cwd=checkout, capture_output=True, text=True, timeout=300,
                         env={"PATH": os.environ["PATH"], "HOME": str(home)})
    _check_nothing_found(run, place / "results.json", paths)


@pytest.fixture(scope="module")
def ta_user() -> str:
    if subprocess.run(["id", "-u", TA_USER], capture_output=True).returncode != 0:
        subprocess.run(["useradd", "--system", "--user-group", "--no-create-home", "--shell",
                        "/usr/sbin/nologin", TA_USER], check=True)
    return TA_USER


def test_grading_as_an_ordinary_user_shows_the_student_nothing(gradescope, place, repo, ta_user):
    checkout = _checkout(place, gradescope)
    home = place / "home"
    home.mkdir()
    paths = _secrets(checkout, home)
    submission = walk_and_read(paths).apply(repo / "solutions" / "word2vec", place / "submission")
    for path in [place, *place.rglob("*")]:
        shutil.chown(path, ta_user, ta_user)
    os.chmod(home, 0o700)
    run = subprocess.run(["runuser", "-u", ta_user, "--", gradescope.python, "-m", "autograder", "grade",
                          "word2vec", str(submission), "--results", str(place / "results.json"), "-v"],
                         cwd=checkout, capture_output=True, text=True, timeout=300,
                         env={"PATH": os.environ["PATH"], "HOME": str(home)})
    assert "off: namespaces" not in run.stderr, run.stderr  # what is off is said there
    _check_nothing_found(run, place / "results.json", paths)


CROSS = textwrap.dedent('''
    import ctypes, os, signal

    def alive():
        return os.getpid()

    def reach(pids):
        """Signal and trace the processes ``pids`` of another grading; list the processes in view."""
        libc = ctypes.CDLL(None, use_errno=True)
        outcome = {"visible": sorted(int(p) for p in os.listdir("/proc") if p.isdigit())}
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                outcome["kill %d" % pid] = "killed"
            except OSError as error:
                outcome["kill %d" % pid] = type(error).__name__
            attached = libc.ptrace(16, pid, 0, 0)  # PTRACE_ATTACH
            outcome["ptrace %d" % pid] = "attached" if attached == 0 else os.strerror(ctypes.get_errno())
        return outcome
''')


def test_concurrent_gradings_cannot_signal_or_trace_each_other(gradescope, tmp_path):
    (tmp_path / "mod.py").write_text(CROSS)
    gradescope.install("word2vec")  # its venv's Python, as on Gradescope
    isolation = detect_isolation(gradescope.python)
    assert isolation.namespaces, isolation.off
    spec = WorkerSpec({"mod.py": tmp_path / "mod.py"}, None, Limits(), isolation)
    with WorkerSession(spec, 30, "1") as victim, WorkerSession(spec, 30, "1") as attacker:
        assert victim.call("mod.alive").value == 2  # the second process of its own pid namespace
        supervisor = victim._process.pid
        pids = sorted(descendants(supervisor, process_table()))  # its init and worker, as the host sees them
        outcome = attacker.call("mod.reach", pids).value
        assert outcome["visible"] == [1, 2]  # its own init and itself: nobody else's
        for pid in pids:
            assert outcome[f"kill {pid}"] in ("ProcessLookupError", "PermissionError"), outcome
            assert outcome[f"ptrace {pid}"] in ("No such process", "Operation not permitted"), outcome
        assert victim.call("mod.alive").value == 2  # unharmed
        assert all(os.kill(pid, 0) is None for pid in pids)


EVERYDAY = textwrap.dedent('''
    import getpass, multiprocessing, os, subprocess, sys, tempfile

    def square(x):
        return x * x

    def everyday():
        """What students' code does without thinking of a sandbox."""
        with tempfile.NamedTemporaryFile("w", suffix=".txt") as stream:
            stream.write("kept")
            stream.flush()
            kept = open(stream.name).read()
        version = subprocess.run([sys.executable, "-c", "import numpy; print(numpy.__version__)"],
                                 capture_output=True, text=True).stdout.strip()
        with multiprocessing.Pool(2) as pool:  # its semaphores live in /dev/shm
            squares = pool.map(square, [1, 2, 3])
        import matplotlib.pyplot as plt
        plt.plot([1, 2])
        plt.title("a title")
        plt.savefig("plot.png")
        return [kept, os.path.expanduser("~") == os.getcwd(), getpass.getuser(), bool(version), squares,
                os.path.getsize("plot.png") > 0]
''')


def test_everyday_code_works_in_the_view_and_prints_nothing_of_it(gradescope, tmp_path):
    (tmp_path / "mod.py").write_text(EVERYDAY)
    gradescope.install("word2vec")  # its venv's Python, as on Gradescope
    isolation = detect_isolation(gradescope.python)
    assert isolation.namespaces, isolation.off
    spec = WorkerSpec({"mod.py": tmp_path / "mod.py"}, None, Limits(), isolation)
    with WorkerSession(spec, 60, "1") as worker:
        result = worker.call("mod.everyday")
    assert result.value == ["kept", True, "student", True, [1, 4, 9], True]
    assert result.output == ""  # no library complains of what the view leaves out (fontconfig did)
