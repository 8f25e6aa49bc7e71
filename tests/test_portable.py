"""The portable path (autograder/boundary/portable_session.py): ``check`` where the Linux worker cannot run.

Forced here on Linux (``AUTOGRADER_PORTABLE=1``, ``check --portable``): the references pass, the
starter scores zero, planted bugs lose points exactly where they are, and a time limit, a crash, printed
output and a huge reply give the Linux worker's messages. Then a simulated Windows: every process
(the student's commands, their workers, the reading of written answers) starts without fcntl, pwd,
grp, resource, termios, fork, readv/writev/pread, killpg, setsid, getuid/geteuid, chown and SIGKILL,
under an ASCII locale (a Windows code page stands for it), and the student's commands still work.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import json
import os
import pkgutil
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from autograder.course import gradescope
from autograder.core import results as res
from autograder.core.config import Assignment, AssignmentConfig, Limits, load_assignment
from autograder.grading.grade import assemble
from autograder.boundary.isolation import (PORTABLE_ENV, NeedsLinux, detect_isolation, portable_isolation,
                                  require_linux_worker)
from autograder.boundary.portable_session import PortableSession
from autograder.boundary.session import StudentRaised, WorkerCrashed, WorkerMisbehaved, WorkerSpec, WorkerTimeout
from tests.conftest import (PYTHON, Grader, check_a_stopped_worker_times_out, check_bug_is_localised, check_starter_scores_zero,
                            lost_points)
from tests.fixtures import hostile, parser_bugs, word2vec_bugs
from tests.fixtures.mutants import Bug

pytestmark = [pytest.mark.smoke, pytest.mark.slow]  # smoke: also on other Pythons; slow: the end-to-end tier

FORCED = portable_isolation("the tests ask for it")

# ------------------------------------------------------------------------------------------------
# one session: the Linux worker's calls, errors and messages

MOD = '''
import os
import subprocess
import sys

import numpy as np


def value(x, y=1):
    return {"sum": x + y, "arr": np.arange(3) * x}


def chatty(n):
    print("h\\u00e9llo")
    sys.stdout.write("x" * n)
    return "done"


def not_done():
    raise NotImplementedError


def raises():
    raise ValueError("bad value 42")


def hard_exit():
    print("last words")
    os._exit(3)


def stop_soon():
    """Returns, then stops its own process while the grader writes the next request."""
    import signal
    import threading
    import time

    threading.Thread(target=lambda: (time.sleep(0.3), os.kill(os.getpid(), signal.SIGSTOP))).start()


def spin_with_a_child(pid_file):
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    with open(pid_file, "w") as stream:
        stream.write(str(child.pid))
    while True:
        pass


def huge():
    return np.zeros(2 * 2 ** 20)  # 16 MB, over reply_mb


def huge_list():
    return [0.0] * 600_000  # 2.3 MB of JSON, over reply_json_mb
'''

LIMITS = Limits(reply_mb=1, reply_json_mb=1, output_kb=4)


@pytest.fixture(scope="module")
def spec(tmp_path_factory) -> WorkerSpec:
    folder = tmp_path_factory.mktemp("submission")
    (folder / "mod.py").write_text(textwrap.dedent(MOD), encoding="utf-8")
    return WorkerSpec(files={"mod.py": folder / "mod.py"}, fixtures_module=None, limits=LIMITS,
                      isolation=FORCED)


@pytest.fixture
def session(spec):
    with PortableSession(spec, 20.0, "1a") as worker:
        yield worker


def test_values_and_what_the_code_printed_come_back(session):
    result = session.call("mod.value", 2, y=3)
    assert result.value["sum"] == 5 and list(result.value["arr"]) == [0, 2, 4] and result.output == ""
    printed = session.call("mod.chatty", 10)
    assert printed.value == "done"
    assert printed.output == "h\u00e9llo\n" + "x" * 10  # UTF-8, whatever the locale
    printed_bytes = ("h\u00e9llo\n" + "x" * 20_000).encode()
    kept, note = session.call("mod.chatty", 20_000).output.split("\n[... output truncated: ")
    assert kept == printed_bytes[:4096].decode()
    assert note == f"{len(printed_bytes) - 4096} more bytes not shown]"
    assert session.call("mod.value", 1).output == ""  # the next call starts afresh


def test_the_students_exceptions_read_as_on_linux(session):
    with pytest.raises(StudentRaised, match="not implemented yet"):
        session.call("mod.not_done")
    with pytest.raises(StudentRaised, match="raised ValueError: bad value 42"):
        session.call("mod.raises")
    with pytest.raises(StudentRaised, match="other.py is not in your submission"):
        session.call("other.f")


def test_os_exit_is_a_crash_with_the_last_output_then_a_fresh_worker(session):
    with pytest.raises(WorkerCrashed) as caught:
        session.call("mod.hard_exit")
    assert "exited with status 3" in str(caught.value) and "last words" in str(caught.value)
    assert session.call("mod.value", 4).value["sum"] == 5


def test_huge_replies_are_refused_then_a_fresh_worker(session):
    with pytest.raises(WorkerMisbehaved, match="returned more than 1 MB of data"):
        session.call("mod.huge")
    with pytest.raises(WorkerMisbehaved, match="returned 2.3 MB of plain Python values"):
        session.call("mod.huge_list")
    assert session.call("mod.value", 1).value["sum"] == 2


def _ended(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def test_time_limit_kills_the_worker_and_what_it_started_and_the_next_question_runs(spec, tmp_path):
    pid_file = tmp_path / "child.pid"
    with PortableSession(spec, 1.5, "2b") as worker:
        started = time.monotonic()
        with pytest.raises(WorkerTimeout, match="did not finish within the 1.5 s time limit of question 2b"):
            worker.call("mod.spin_with_a_child", str(pid_file))
        assert time.monotonic() - started < 4
        with pytest.raises(WorkerTimeout, match="used up earlier \\(by mod.spin_with_a_child\\)"):
            worker.call("mod.value", 1)
    assert _ended(int(pid_file.read_text()), 5)  # its process group was killed with it
    with PortableSession(spec, 5.0, "2c") as following:
        assert following.call("mod.value", 1).value["sum"] == 2


@pytest.mark.skipif(not hasattr(signal, "SIGSTOP"), reason="Windows has no SIGSTOP")
def test_a_worker_that_stops_itself_under_a_large_request_times_out(spec):
    check_a_stopped_worker_times_out(PortableSession, spec)


# ------------------------------------------------------------------------------------------------
# whole gradings


@pytest.fixture(scope="module")
def word2vec() -> Grader:
    return Grader(load_assignment("word2vec"), FORCED)


@pytest.fixture(scope="module")
def parser() -> Grader:
    return Grader(load_assignment("parser"), FORCED)


def _check(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([PYTHON, "-m", "autograder", "check", *args], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "COLUMNS": "200", **env})


@pytest.mark.parametrize("name, how", [("word2vec", "env"), ("parser", "flag")])
def test_check_passes_the_reference_and_says_once_at_the_top_what_is_off(name, how, repo, tmp_path):
    results = tmp_path / "results.json"
    options = ["--portable"] if how == "flag" else []
    run = _check(name, str(repo / "solutions" / name), "--results", str(results), *options,
                 env={PORTABLE_ENV: "1"} if how == "env" else {})
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("Note: your code runs in a plain separate process here, because ")
    assert ("--portable was given" if how == "flag" else f"{PORTABLE_ENV} is set") in lines[0]
    assert lines[1].startswith("Off here, unlike on Gradescope: memory and process limits")
    assert run.stdout.count("Note: your code runs") == 1
    tests = json.loads(results.read_text(encoding="utf-8"))["tests"]
    assert tests and all(t["status"] == "passed" for t in tests)


def test_the_starter_scores_zero_without_a_crash(word2vec, repo):
    check_starter_scores_zero(word2vec, repo / "assignment" / "word2vec")


# Bugs whose tests in other questions rerun with the reference's helper in place (error carried
# forward), which crosses the wire in the middle of a call, and plain ones.
BUGS = [(word2vec_bugs.BUGS, "softmax normalises over the wrong axis"),
        (word2vec_bugs.BUGS, "naive softmax forgets to subtract the one-hot y"),
        (parser_bugs.BUGS, "forward forgets the hidden bias"),
        (parser_bugs.BUGS, "dropout active at evaluation")]
# On other Pythons one bug of each kind: what crosses the wire is the same for the others.
MAIN_PYTHON_ONLY = {"naive softmax forgets to subtract the one-hot y", "dropout active at evaluation"}


@pytest.mark.parametrize("catalogue, name", [
    pytest.param(catalogue, name, id=name, marks=[pytest.mark.main_python] if name in MAIN_PYTHON_ONLY else [])
    for catalogue, name in BUGS
])
def test_a_planted_bug_loses_points_exactly_where_it_is(catalogue, name, word2vec, parser, tmp_path):
    bug = next(b for b in catalogue if b.name == name)
    grader = word2vec if catalogue is word2vec_bugs.BUGS else parser
    check_bug_is_localised(bug, grader, grader.assignment.solution_dir, tmp_path)


def _limited(grader: Grader, q3: float | None = None, imports: float | None = None) -> Grader:
    """``grader`` with question 3's time limit or the import check's cut short."""
    config: AssignmentConfig = grader.assignment.config
    questions = [q.model_copy(update={"time_limit": q3}) if q.id == "3" and q3 else q
                 for q in config.questions]
    limits = config.limits.model_copy(update={
        "import_time_limit": imports or config.limits.import_time_limit})
    config = config.model_copy(update={"questions": questions, "limits": limits})
    return Grader(Assignment(config=config, root=grader.assignment.root), FORCED)


def _attack(name: str) -> Bug:
    return next(a for a in hostile.ATTACKS if a.name == name)


def _graded(grader: Grader, attack: Bug, tmp_path: Path) -> list:
    results = grader(attack.apply(grader.assignment.solution_dir, tmp_path / "submission"))
    assert {t.number.split(".")[0] for t in lost_points(results)} == attack.questions
    return lost_points(results)


def test_an_infinite_loop_gets_the_time_limit_message(word2vec, tmp_path):
    started = time.monotonic()
    lost = _graded(_limited(word2vec, q3=2.0), _attack("infinite loop in a function"), tmp_path)
    assert all("time limit of question 3" in t.output for t in lost)
    assert "did not finish within the 2 s time limit of question 3" in lost[0].output
    assert time.monotonic() - started < 30


@pytest.mark.main_python
def test_a_module_that_hangs_at_import_costs_its_questions_and_the_next_is_graded(word2vec, tmp_path):
    lost = _graded(_limited(word2vec, imports=3.0), _attack("infinite loop at import"), tmp_path)
    assert all("did not finish within the 3 s" in t.output for t in lost)  # 2a-2d; 3 after them passes


@pytest.mark.main_python
def test_os_exit_and_a_huge_reply_read_as_on_linux(word2vec, tmp_path):
    exited = _graded(word2vec, _attack("os._exit in a function"), tmp_path / "exit")
    assert all("exited with status 5" in t.output for t in exited)
    huge = _graded(word2vec, _attack("returns a huge array"), tmp_path / "huge")
    assert any("returned more than 64 MB of data" in t.output for t in huge)


def test_a_windows_scratch_path_is_cut_from_the_feedback(word2vec):
    config = word2vec.assignment.config
    row = res.TestResult(name="t", number="1a.1", score=0.0, max_score=1.0, status="failed",
                         output=r"C:\Users\A Student\AppData\Local\Temp\ag-worker-k2x_9q\nn_basics.py:3: RuntimeWarning")
    results = assemble(config, [row], include_hidden=False)
    assert results.tests[0].output == "nn_basics.py:3: RuntimeWarning"


# ------------------------------------------------------------------------------------------------
# the decision, and the staff's commands that refuse it


def test_off_linux_or_when_asked_the_decision_is_the_portable_path(monkeypatch):
    monkeypatch.delenv(PORTABLE_ENV, raising=False)
    assert detect_isolation(force_portable=True).portable
    monkeypatch.setattr(sys, "platform", "darwin")
    isolation = detect_isolation()
    assert isolation.portable and not isolation.namespaces and not isolation.seccomp
    assert "this computer runs macOS" in isolation.notice()[0]
    assert [name for name, _ in isolation.off] == ["memory and process limits", "a private view of the files",
                                                    "the network block", "a separate user",
                                                    "the system-call filter (seccomp)"]
    with pytest.raises(NeedsLinux, match="'grade-batch' grades only with the Linux worker.*Run it on Linux"):
        require_linux_worker("grade-batch")


def test_grade_refuses_the_portable_path(repo, tmp_path):
    command = [PYTHON, "-m", "autograder", "grade", "word2vec", str(repo / "solutions" / "word2vec"),
               "--results", str(tmp_path / "results.json")]
    run = subprocess.run(command, capture_output=True, text=True, timeout=120,
                         env={**os.environ, PORTABLE_ENV: "1"})
    assert run.returncode == 2 and not (tmp_path / "results.json").exists()
    assert "error: 'grade' grades only with the Linux worker" in run.stderr
    assert f"Run it on Linux with {PORTABLE_ENV} unset" in run.stderr


def test_gradescope_refuses_the_portable_path_and_its_results_say_why(tmp_path, monkeypatch):
    monkeypatch.setenv(PORTABLE_ENV, "1")
    (tmp_path / "submission").mkdir()
    assert gradescope.run("word2vec", tmp_path) == 1
    results = json.loads((tmp_path / "results" / "results.json").read_text(encoding="utf-8"))
    assert results["score"] == 0 and "grades only with the Linux worker" in results["output"]


# ------------------------------------------------------------------------------------------------
# a simulated Windows

# Made the first thing every Python of the venv does (a sitecustomize on PYTHONPATH), in every
# process: the student's command, the reading of written answers (spawned: there is no fork), and
# the workers, whose Python is this folder's wrapper, which puts the folder back on PYTHONPATH.
PRELUDE = '''
import os, signal, sys
for name in ("fcntl", "pwd", "grp", "resource", "termios"):
    sys.modules[name] = None
for name in ("fork", "readv", "writev", "pread", "killpg", "setsid", "getuid", "geteuid", "chown"):
    if hasattr(os, name):
        delattr(os, name)
if hasattr(signal, "SIGKILL"):
    del signal.SIGKILL
sys.executable = {wrapper!r}
'''

WRAPPER = '''#!/bin/sh
echo "$*" >> {log}
PYTHONPATH={folder} exec {python} "$@"
'''

# What a Windows pipe is: the locale's encoding, here ASCII, and nothing set to help.
ASCII_LOCALE = {"PYTHONCOERCECLOCALE": "0", "LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0"}


@pytest.fixture(scope="module")
def windows(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("simulated-windows")
    wrapper = folder / "python"
    wrapper.write_text(WRAPPER.format(log=folder / "started.log", folder=folder, python=PYTHON),
                       encoding="utf-8")
    wrapper.chmod(0o755)
    (folder / "sitecustomize.py").write_text(PRELUDE.format(wrapper=str(wrapper)), encoding="utf-8")
    return folder


def _on_windows(folder: Path, args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONIOENCODING", "PYTHONPATH") and not k.startswith("LC_")}
    env.update(ASCII_LOCALE, PYTHONPATH=str(folder), **{PORTABLE_ENV: "1"})  # Linux still, so asked for
    return subprocess.run([PYTHON, *args], cwd=cwd, capture_output=True, timeout=300, env=env)


def _autograder(folder: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    run_module = "import runpy; runpy.run_module('autograder', run_name='__main__', alter_sys=True)"
    return _on_windows(folder, ["-c", run_module, *args], cwd)


def _copy(source: Path, target: Path) -> Path:
    """A student's folder: the files themselves, not links into the repository."""
    return Path(shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.zip")))


def test_the_prelude_takes_effect(windows, tmp_path):
    probe = _on_windows(windows, ["-c", "import os, signal; import fcntl"], tmp_path)
    assert b"import of fcntl halted" in probe.stderr
    gone = _on_windows(windows, ["-c", "import os, signal, sys; print(hasattr(os, 'fork'), hasattr(signal, "
                                       "'SIGKILL'), sys.stdout.encoding)"], tmp_path)
    assert gone.stdout.split() == [b"False", b"False", b"ascii"]


def test_the_students_commands_work_on_a_simulated_windows(windows, repo, tmp_path):
    folder = _copy(repo / "solutions" / "word2vec", tmp_path / "word2vec")
    check = _autograder(windows, "check", "word2vec", str(folder), "--results", str(tmp_path / "r.json"),
                        cwd=tmp_path)
    assert check.returncode == 0, (check.stdout + check.stderr).decode(errors="replace")
    assert check.stdout.startswith(b"Note: your code runs in a plain separate process")
    assert all(t["status"] == "passed"
               for t in json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["tests"])
    started = (windows / "started.log").read_text(encoding="utf-8")
    assert "autograder.worker.portable" in started  # the workers ran under the prelude too
    written = _autograder(windows, "check-written", "word2vec", str(folder / "written.md"), cwd=tmp_path)
    assert written.returncode == 0, (written.stdout + written.stderr).decode(errors="replace")
    assert b"10 of 10 written questions answered" in written.stdout
    collected = _autograder(windows, "collect-submission", "word2vec", str(folder), cwd=tmp_path)
    assert collected.returncode == 0, (collected.stdout + collected.stderr).decode(errors="replace")
    assert (folder / "word2vec_submission.zip").is_file()
    for name in ("word2vec", "parser"):
        starter = _copy(repo / "assignment" / name, tmp_path / f"{name}-starter")
        helped = _on_windows(windows, ["run.py", "--help"], starter)
        assert helped.returncode == 0 and helped.stdout.startswith(b"usage: run.py"), helped.stderr


# What the student's commands import, and what their workers do (the fixtures in the worker).
STUDENT_MODULES = [
    "autograder.cli.main", "autograder.course.check", "autograder.grading.grade", "autograder.boundary.session",
    "autograder.boundary.isolation", "autograder.contract.protocol", "autograder.boundary.fork_client", "autograder.boundary.portable_session",
    "autograder.course.collect_submission", "autograder.core.config", "autograder.core.results", "autograder.course.report", "autograder.grading.runner",
    "autograder.grading.testing", "autograder.grading.expected", "autograder.grading.carried_forward", "autograder.grading.preflight",
    "autograder.boundary.preload", "autograder.grading.reference", "autograder.core.submission", "autograder.core.safe_files",
    "autograder.grading.checks", "autograder.grading.gradients", "autograder.grading.ownership",
    "autograder.worker.calls", "autograder.worker.portable", "autograder.worker.helpers",
    "autograder.worker.probes", "autograder.worker.forkserver",
]
PACKAGES = ["autograder.written", "autograder.handout"]


def test_every_module_of_the_students_commands_imports_on_a_simulated_windows(windows, repo, tmp_path):
    assignments = [f"autograder.assignments.{name}.{part}" for name in ("word2vec", "parser")
                   for part in ("fixtures", "public_tests", "support")]
    code = (f"import importlib, pkgutil, sys; sys.path.insert(0, {str(repo)!r})\n"
            f"names = {STUDENT_MODULES + assignments!r}\n"
            f"for package in {PACKAGES!r}:\n"
            "    found = pkgutil.iter_modules(importlib.import_module(package).__path__, package + '.')\n"
            "    names += [module.name for module in found]\n"
            "for name in names:\n"
            "    importlib.import_module(name)\n"
            "print(len(names))")
    run = _on_windows(windows, ["-c", code], tmp_path)
    assert run.returncode == 0, run.stderr.decode(errors="replace")
    assert int(run.stdout) > 40


# Linux's own: the worker's output file and null device, and the removal of its folders.
TEXT_MODE_ALLOWED = {("boundary.session", "_output_file"), ("worker.forkserver", "_become_worker_process"),
                     ("core.safe_files", "remove_tree"), ("core.safe_files", "_open_folder"),
                     ("core.safe_files", "_allow_folder")}


def test_every_file_the_students_commands_open_by_descriptor_is_opened_binary():
    """Windows opens a descriptor in text mode unless O_BINARY is given: it turns \\r\\n into \\n and
    ends the file at a Ctrl-Z, which would damage the bundle's recording. No simulation shows that."""
    names = STUDENT_MODULES + [module.name for package in PACKAGES for module in
                               pkgutil.iter_modules(importlib.import_module(package).__path__, package + ".")]
    found = set()
    for name in names:
        source = Path(importlib.util.find_spec(name).origin).read_text(encoding="utf-8")
        for function in ast.walk(ast.parse(source)):
            if isinstance(function, ast.FunctionDef) and "O_BINARY" not in ast.unparse(function) and any(
                    isinstance(node, ast.Call) and ast.unparse(node.func) == "os.open"
                    for node in ast.walk(function)):
                found.add((name.removeprefix("autograder."), function.name))
    assert found == TEXT_MODE_ALLOWED
