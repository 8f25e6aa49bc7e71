"""WorkerSession against a throwaway submission: values, failures, limits and restarts."""

from __future__ import annotations

import os
import stat
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from autograder.boundary import session as sandbox
from autograder.core.config import Limits
from autograder.contract.protocol import Opaque
from tests.conftest import check_a_stopped_worker_times_out
from autograder.boundary.session import (StudentRaised, WorkerCrashed, WorkerMisbehaved, WorkerSession,
                                WorkerSpec, WorkerTimeout, copy_files)

pytestmark = pytest.mark.smoke  # also run on Python 3.10 and the newest Python (.ci/run)

MOD = '''
import fcntl
import os
import random
import stat
import sys

import numpy as np


def value(x, y=1):
    return {"sum": x + y, "pair": (x, y), "arr": np.arange(3) * x}


def raises():
    helper()


def helper():
    raise ValueError("bad value 42")


def not_done():
    raise NotImplementedError


def print_then_raise():
    print("debug line")
    raise KeyError("k")


def spin():
    while True:
        pass


def hard_exit():
    print("last words")
    os._exit(3)


def soft_exit():
    sys.exit(1)


def chatty():
    sys.stdout.write("x" * (20 * 1024 * 1024))
    return "done"


def memory_bomb():
    hoard = []
    while True:
        hoard.append(np.ones(2 ** 24))  # 128 MB at a time


def object_array():
    return np.array([object(), 1], dtype=object)


def huge():
    return np.zeros(2 * 2 ** 20)  # 16 MB, over reply_mb


def giant_int():
    return 10 ** 5000


def huge_list():
    return [0.0] * 600_000  # 2.3 MB of JSON, over the 1 MB of LIMITS


def forged_reply():
    """Writes a reply of its own into the pipes it may write to: an empty array of absurd shape."""
    body = b'{"ok": true, "value": {"$array": 0}}'
    header = b'{"dtype": "<f8", "shape": [4611686018427387904, 0]}'
    forged = (b"AGW2" + len(body).to_bytes(8, "big") + body + (1).to_bytes(4, "big")
              + len(header).to_bytes(4, "big") + header + (0).to_bytes(8, "big"))
    for fd in range(3, 256):
        try:
            if fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY:
                os.write(fd, forged)
        except OSError:
            pass
    return 1


def close_request_pipe():
    """Closes every pipe it may read, the worker's own request pipe among them."""
    for fd in range(3, 256):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode) and fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_RDONLY:
                os.close(fd)
        except OSError:
            pass
    return "done"


def litter(outside):
    """Leaves a link out of the scratch folder, and a folder no one may enter."""
    os.symlink(outside, "link-out")
    os.makedirs("locked/inner")
    os.chmod("locked", 0)


def draw():
    return float(np.random.rand()), random.random()


def spoil():
    np.random.seed(12345)
    random.seed(12345)
    return float(np.random.rand()), random.random()


def string_hash():
    return hash("word2vec"), sorted(set("abcdefgh")) == list("abcdefgh"), list({"x", "y", "z"})


def square_loss(x):
    return float(np.sum(x ** 2)), 2 * x


def mutate(a):
    a[0] = 99.0


def stop_soon():
    """Returns, then stops its own process while the grader writes the next request."""
    import signal
    import threading
    import time

    threading.Thread(target=lambda: (time.sleep(0.3), os.kill(os.getpid(), signal.SIGSTOP))).start()
'''

AT_IMPORT = {
    "loops_at_import.py": "while True:\n    pass\n",
    "raises_at_import.py": "def f():\n    return 1\n\nraise RuntimeError('broken at import')\n",
    "exits_at_import.py": "import sys\nsys.exit(2)\n",
}

LIMITS = Limits(memory_mb=256, file_size_mb=64, reply_mb=1, output_kb=4)
BUDGET = 20.0  # generous for calls that should succeed; the timeout tests use 1 s


@pytest.fixture(scope="module")
def spec(tmp_path_factory) -> WorkerSpec:
    folder = tmp_path_factory.mktemp("submission")
    files = {"mod.py": folder / "mod.py"}
    files["mod.py"].write_text(textwrap.dedent(MOD))
    for name, text in AT_IMPORT.items():
        files[name] = folder / name
        files[name].write_text(text)
    return WorkerSpec(files=files, fixtures_module=None, limits=LIMITS)


@pytest.fixture
def session(spec):
    with WorkerSession(spec, BUDGET, "1a") as worker:
        yield worker


def test_values_come_back(session):
    result = session.call("mod.value", 2, y=3)
    assert result.value["sum"] == 5 and result.value["pair"] == (2, 3)
    np.testing.assert_array_equal(result.value["arr"], [0, 2, 4])
    assert result.output == "" and result.seconds > 0
    assert session.call("mod.value", 1.5).value["sum"] == 2.5  # the same worker serves again


def test_arguments_are_copies_and_return_args_reports_mutation(session):
    array = np.array([1.0, 2.0])
    result = session.call("mod.mutate", array, return_args=True)
    assert result.value is None
    np.testing.assert_array_equal(result.args_after[0], [99.0, 2.0])
    np.testing.assert_array_equal(array, [1.0, 2.0])


def test_exception_becomes_student_raised_with_traceback(session):
    with pytest.raises(StudentRaised) as caught:
        session.call("mod.raises")
    error = caught.value
    assert error.kind == "exception" and error.type_name == "ValueError"
    assert "raised ValueError: bad value 42" in str(error)
    assert 'File "mod.py"' in error.traceback and "helper" in error.traceback
    assert "autograder" not in error.traceback  # only the student's frames are shown
    assert session.call("mod.value", 1).value["sum"] == 2


def test_not_implemented_is_reported_as_such(session):
    with pytest.raises(StudentRaised, match="not implemented yet"):
        session.call("mod.not_done")


def test_output_of_a_failed_call_is_kept(session):
    with pytest.raises(StudentRaised) as caught:
        session.call("mod.print_then_raise")
    assert caught.value.output == "debug line\n" and caught.value.type_name == "KeyError"


def test_missing_function_and_missing_file_have_clear_messages(session):
    with pytest.raises(StudentRaised) as caught:
        session.call("mod.nope")
    assert caught.value.kind == "missing_attribute" and str(caught.value) == "mod.py has no nope"
    with pytest.raises(StudentRaised) as caught:
        session.call("other.f")
    assert caught.value.kind == "missing_file"
    assert str(caught.value) == "other.py is not in your submission"


def test_infinite_loop_times_out_and_uses_up_the_budget(spec):
    with WorkerSession(spec, 1.0, "2b") as worker:
        started = time.monotonic()
        with pytest.raises(WorkerTimeout, match="1 s time limit of question 2b"):
            worker.call("mod.spin")
        assert 0.9 <= time.monotonic() - started <= 3.0
        started = time.monotonic()
        with pytest.raises(WorkerTimeout, match="used up earlier \\(by mod.spin\\)"):
            worker.call("mod.value", 1)
        assert time.monotonic() - started < 0.1  # refused at once, no new worker
        assert worker.remaining <= 0
    with WorkerSession(spec, 5.0, "2b") as fresh:
        assert fresh.call("mod.value", 1).value["sum"] == 2


def test_a_worker_that_stops_itself_under_a_large_request_times_out(spec):
    check_a_stopped_worker_times_out(WorkerSession, spec)


def test_os_exit_crashes_then_the_next_call_restarts(session):
    with pytest.raises(WorkerCrashed) as caught:
        session.call("mod.hard_exit")
    assert "exited with status 3" in str(caught.value)
    assert "last words" in str(caught.value)  # printed before os._exit, still shown
    assert session.call("mod.value", 4).value["sum"] == 5


def test_a_broken_request_pipe_is_told_without_the_framework_s_traceback(session):
    assert session.call("mod.close_request_pipe").value == "done"
    with pytest.raises(WorkerCrashed) as caught:
        session.call("mod.value", 1)
    assert "ended when its pipes to the grader broke between two calls" in str(caught.value)
    assert "file descriptors it did not open" in str(caught.value)
    assert "Traceback" not in str(caught.value) and "autograder/" not in str(caught.value)
    assert session.call("mod.value", 4).value["sum"] == 5


def test_sys_exit_at_call_time_is_an_exception_and_worker_survives(session):
    with pytest.raises(StudentRaised) as caught:
        session.call("mod.soft_exit")
    assert caught.value.type_name == "SystemExit"
    assert session.call("mod.value", 0).value["sum"] == 1


def test_import_time_infinite_loop_times_out(spec):
    with WorkerSession(spec, 1.0, "3") as worker:
        started = time.monotonic()
        with pytest.raises(WorkerTimeout):
            worker.call("loops_at_import.f")
        assert time.monotonic() - started <= 3.0


def test_import_time_exception_is_reported_and_remembered(session):
    for _ in range(2):  # the failed import is not retried (no second run of module code)
        with pytest.raises(StudentRaised) as caught:
            session.call("raises_at_import.f")
        error = caught.value
        assert error.kind == "import_error"
        assert str(error).startswith(
            "importing raises_at_import.py failed with RuntimeError: broken at import")
        assert "raises_at_import.py" in error.traceback
    assert session.call("mod.value", 1).value["sum"] == 2  # other modules still work


def test_import_time_sys_exit_is_reported(session):
    with pytest.raises(StudentRaised) as caught:
        session.call("exits_at_import.f")
    assert caught.value.kind == "import_error" and caught.value.type_name == "SystemExit"
    assert session.call("mod.value", 1).value["sum"] == 2


def test_output_beyond_the_limit_is_truncated_with_a_note(session):
    result = session.call("mod.chatty")
    assert result.value == "done"
    kept, note = result.output.split("\n[... output truncated: ")
    assert kept == "x" * 4096
    assert note == f"{20 * 1024 * 1024 - 4096} more bytes not shown]"
    assert session.call("mod.value", 1).output == ""  # the next call starts with fresh output


def test_memory_bomb_fails_cleanly(session):
    started = time.monotonic()
    with pytest.raises((StudentRaised, WorkerCrashed)) as caught:
        session.call("mod.memory_bomb")
    if isinstance(caught.value, StudentRaised):
        assert caught.value.type_name == "MemoryError"
    assert time.monotonic() - started < 10
    assert session.call("mod.value", 1).value["sum"] == 2


def test_object_array_comes_back_opaque(session):
    value = session.call("mod.object_array").value
    assert isinstance(value, Opaque) and value.type_name == "ndarray[object]"


def test_huge_reply_is_misbehaviour_and_worker_restarts(session):
    with pytest.raises(WorkerMisbehaved, match="more than 1 MB"):
        session.call("mod.huge")
    assert session.call("mod.value", 1).value["sum"] == 2


def test_a_huge_list_is_refused_with_what_to_return_instead(session):
    with pytest.raises(WorkerMisbehaved) as caught:
        session.call("mod.huge_list")
    assert str(caught.value) == (
        "returned 2.3 MB of plain Python values (lists, numbers, strings), over the 1 MB the autograder "
        "accepts outside numpy arrays; return large data as a numpy array (for example np.array(your_list))")
    assert session.call("mod.value", 1).value["sum"] == 2


def test_a_forged_frame_of_absurd_shape_is_the_students_invalid_reply(session):
    with pytest.raises(WorkerMisbehaved, match="sent an invalid reply .*shape"):  # never numpy's ValueError
        session.call("mod.forged_reply")
    assert session.call("mod.value", 1).value["sum"] == 2


def test_decoding_a_reply_counts_toward_the_budget(spec, monkeypatch):
    decode = sandbox._decoded

    def slow(document, arrays):  # a reply the grader takes the rest of the budget to decode
        time.sleep(worker.remaining + 0.05)
        return decode(document, arrays)

    monkeypatch.setattr(sandbox, "_decoded", slow)
    with WorkerSession(spec, 2.0, "2c") as worker:
        assert worker.call("mod.value", 1).value["sum"] == 2  # this call has its value
        assert worker.remaining <= 0
        with pytest.raises(WorkerTimeout, match="used up earlier \\(by mod.value\\)"):
            worker.call("mod.value", 2)


def test_unencodable_value_is_reported_not_a_crash(session):
    with pytest.raises(StudentRaised) as caught:
        session.call("mod.giant_int")
    assert caught.value.kind == "unencodable"
    assert "could not be sent back" in str(caught.value)


def test_global_random_state_is_reseeded_for_every_call(session):
    first = session.call("mod.draw").value
    spoiled = session.call("mod.spoil").value
    assert session.call("mod.draw").value == first != spoiled
    assert session.call("mod.draw", seed=1).value != first
    assert session.call("mod.draw", seed=1).value == session.call("mod.draw", seed=1).value


def test_string_hashing_is_the_same_in_every_worker(spec):
    values = []
    for _ in range(2):
        with WorkerSession(spec, BUDGET, "4") as worker:
            values.append(worker.call("mod.string_hash").value)
    assert values[0] == values[1]


def test_directional_losses_probe(session):
    x = np.array([1.0, -2.0, 0.5])
    h = 1e-3
    directions = np.array([[1.0, 0.0, 0.0], [0.0, 0.6, 0.8]])
    losses = session.call("probes:directional_losses", "mod.square_loss", [x], 0, directions, h).value
    assert isinstance(losses, np.ndarray) and losses.shape == (2, 2)
    expected = np.array([[np.sum((x + sign * h * d) ** 2) for d in directions] for sign in (1.0, -1.0)])
    np.testing.assert_allclose(losses, expected, rtol=1e-12)
    np.testing.assert_allclose((losses[0] - losses[1]) / (2 * h), directions @ (2 * x), rtol=1e-9)


def test_unknown_probe_is_refused(session):
    with pytest.raises(StudentRaised, match="unknown probe"):
        session.call("probes:no_such_probe", 1)
    with pytest.raises(ValueError, match="not a probe"):  # a private helper: refused before it is sent
        session.call("probes:_first_number", 1)


def test_workers_clean_up_their_scratch_folders(spec):
    worker = WorkerSession(spec, BUDGET, "5")
    worker.call("mod.value", 1)
    process = worker._process
    scratch, private = Path(process.scratch), Path(process.private)
    supervisor = Path(f"/proc/{process.pid}")
    assert (scratch / "mod.py").is_file() and supervisor.exists()
    worker.close()
    assert not scratch.exists() and not private.exists()
    assert not supervisor.exists()  # ended and reaped


def test_a_worker_s_links_and_locked_folders_are_removed_not_followed(spec, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir(mode=0o755)
    (outside / "file.txt").write_text("not the student's")
    worker = WorkerSession(spec, BUDGET, "6")
    worker.call("mod.litter", str(outside))
    scratch = Path(worker._process.scratch)
    assert (scratch / "link-out").is_symlink()
    worker.close()
    assert not os.path.lexists(scratch)
    assert stat.S_IMODE(outside.stat().st_mode) == 0o755
    assert (outside / "file.txt").read_text() == "not the student's"


def test_copy_files_refuses_a_linked_file_and_copies_links_in_folders_as_links(tmp_path):
    secret = tmp_path / "secret.py"
    secret.write_text("ANSWER = 42\n")
    (tmp_path / "linked.py").symlink_to(secret)
    given = tmp_path / "utils"
    given.mkdir()
    (given / "helpers.py").write_text("x = 1\n")
    (given / "answer.py").symlink_to(secret)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    with pytest.raises(OSError, match="linked.py is a symbolic link"):
        copy_files({"mod.py": tmp_path / "linked.py"}, str(scratch))
    copy_files({"utils": given}, str(scratch))
    assert (scratch / "utils" / "helpers.py").read_text() == "x = 1\n"
    assert os.readlink(scratch / "utils" / "answer.py") == str(secret)  # a link, not the secret's text
    assert not (scratch / "mod.py").exists()
