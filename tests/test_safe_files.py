"""autograder.core.safe_files: a folder the student's code could write into is removed without following a
link, changing a mode through a name, or touching anything outside it; as root and as an ordinary
user (a grader without root, whose student code runs as itself), and while a process keeps swapping
a sub-folder for a link to a folder outside."""

from __future__ import annotations

import itertools
import os
import pwd
import shutil
import signal
import tempfile
import traceback
from pathlib import Path
from typing import Callable, Iterator

import pytest

from autograder.core.safe_files import remove_tree

pytestmark = pytest.mark.smoke  # also run on Python 3.10 and the newest Python (.ci/run)

GRADERS = ["root", "an ordinary user"]
NOBODY = pwd.getpwnam("nobody")
DEPTH = 150  # folders nested deeper than the remover keeps open at once


def _as_grader(grader: str, work: Callable[[], None]) -> None:
    """Run ``work`` in a child process as ``grader`` ("an ordinary user": nobody when the tests run
    as root, else the tests' own user); its failure fails the test with the child's traceback."""
    if grader == "root" and os.geteuid() != 0:
        pytest.skip("needs root")
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:  # never return into pytest from here
        status = 0
        try:
            os.close(read_end)
            if grader != "root" and os.geteuid() == 0:
                os.setgroups([])
                os.setgid(NOBODY.pw_gid)
                os.setuid(NOBODY.pw_uid)
            work()
        except BaseException:
            os.write(write_end, traceback.format_exc().encode())
            status = 1
        os._exit(status)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as stream:
        failure = stream.read().decode()
    _, status = os.waitpid(child, 0)
    if status != 0:
        pytest.fail(f"as {grader}:\n{failure}", pytrace=False)


@pytest.fixture(params=GRADERS)
def grader(request) -> str:
    return request.param


@pytest.fixture
def place(grader: str) -> Iterator[Path]:
    """A folder of the grader's own that ``nobody`` can reach too (tmp_path is root's only)."""
    folder = Path(tempfile.mkdtemp(prefix="ag-safe-files-"))
    folder.chmod(0o755)
    if grader != "root" and os.geteuid() == 0:
        os.chown(folder, NOBODY.pw_uid, NOBODY.pw_gid)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _outside(folder: Path) -> Path:
    """A folder the removal must leave exactly as it is: files, a sub-folder, ordinary modes."""
    outside = folder / "outside"
    (outside / "sub").mkdir(parents=True)
    (outside / "file.txt").write_text("not the student's")
    (outside / "sub" / "other.txt").write_text("nor this")
    for path, mode in ((outside, 0o755), (outside / "sub", 0o755), (outside / "file.txt", 0o644)):
        path.chmod(mode)
    return outside


def _state(folder: Path) -> dict[str, tuple]:
    """Mode, owner and contents of everything in ``folder``, read without following links."""
    state = {}
    for path in [folder, *sorted(folder.rglob("*"))]:
        info = os.lstat(path)
        contents = path.read_bytes() if path.is_file() and not path.is_symlink() else None
        state[str(path.relative_to(folder))] = (info.st_mode, info.st_uid, info.st_gid, contents)
    return state


def _plant_tree(top: Path, outside: Path) -> None:
    """Everything a student's code could leave in its folder, links out of it included."""
    (top / "a" / "b" / "c").mkdir(parents=True)
    for folder in (top, top / "a", top / "a" / "b" / "c"):
        (folder / "file.txt").write_text("x")
    locked = top / "locked"  # a folder of mode 000, with more inside
    (locked / "inner").mkdir(parents=True)
    (locked / "inner" / "file.txt").write_text("y")
    (locked / "inner").chmod(0)
    locked.chmod(0)
    (top / "secret.txt").write_text("z")
    (top / "secret.txt").chmod(0)
    os.mkfifo(top / "fifo")  # opening it would block: it must never be opened
    (top / "link-to-folder").symlink_to(outside)
    (top / "link-to-file").symlink_to(outside / "file.txt")
    (top / "loop").symlink_to(top / "loop")
    os.link(outside / "file.txt", top / "hard-link")  # the same file: only the name may go
    read_only = top / "read-only"  # as an ordinary user, its entries can only go once it is writable
    read_only.mkdir()
    (read_only / "link-to-folder").symlink_to(outside)
    (read_only / "link-to-file").symlink_to(outside / "file.txt")
    read_only.chmod(0o500)
    deep = top.joinpath(*["d"] * DEPTH)
    deep.mkdir(parents=True)
    (deep / "file.txt").write_text("deep")


def test_a_tree_is_removed_and_what_its_links_lead_to_is_untouched(grader, place):
    def work() -> None:
        outside = _outside(place)
        before = _state(outside)
        _plant_tree(place / "tree", outside)
        remove_tree(place / "tree")
        assert os.listdir(place) == ["outside"]
        assert _state(outside) == before

    _as_grader(grader, work)


def test_a_link_given_as_the_tree_is_removed_as_a_link(grader, place):
    def work() -> None:
        outside = _outside(place)
        before = _state(outside)
        (place / "tree").symlink_to(outside)
        remove_tree(place / "tree")
        assert os.listdir(place) == ["outside"] and _state(outside) == before

    _as_grader(grader, work)


def test_a_folder_already_gone_is_fine_and_its_parent_keeps_its_mode(grader, place):
    def work() -> None:
        before = os.stat(place).st_mode
        remove_tree(place / "gone")  # the student's code may have removed its own folder
        assert os.stat(place).st_mode == before

    _as_grader(grader, work)


# ----------------------------------------------------------------------------------------------
# a race: a process keeps swapping a sub-folder of the tree for a link to a folder outside


RACE_ROUNDS = 200
FILES = 40  # in the sub-folder; the same names as in the folder outside


def _build(place: Path, outside: Path) -> None:
    """The tree, made aside and renamed into place: the racer never sees half of it (and the test
    never writes through the racer's link)."""
    staging = place / "staging"
    (staging / "sub").mkdir(parents=True)
    for index in range(FILES):
        (staging / "sub" / f"f{index}").write_text("the student's")
    (staging / "sub" / "file.txt").write_text("the student's")
    os.rename(staging, place / "tree")


def _race(place: Path, outside: Path) -> None:
    """Forever: move tree/sub away, put a link to ``outside`` in its place, delete a file of the
    real folder meanwhile (so that a remover's next step on it fails), swap back."""
    sub, away = place / "tree" / "sub", place / "tree" / "sub.away"
    names = [f"f{index}" for index in range(FILES)] + ["file.txt"]
    for turn in itertools.count():
        try:
            os.rename(sub, away)
        except OSError:
            continue
        try:
            os.symlink(outside, sub)
            _unlink_in(away, names[turn % len(names)])
            os.unlink(sub)
            os.rename(away, sub)
        except OSError:
            pass


def _unlink_in(folder: Path, name: str) -> None:
    """Delete ``name`` in ``folder`` itself, never through a link (the racer must not do the harm)."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        os.unlink(name, dir_fd=fd)
    except FileNotFoundError:
        pass
    finally:
        os.close(fd)


def race(place: Path, remove: Callable[[Path], None], rounds: int = RACE_ROUNDS) -> tuple[dict, dict, int]:
    """The state of a folder outside before and after ``rounds`` removals of a tree that a racing
    process keeps changing, and how many removals gave up (also run, outside the test suite,
    against the grader's old removal). A tree whose removal gave up is set aside."""
    outside = _outside(place)
    before = _state(outside)
    racer = os.fork()
    if racer == 0:
        try:
            _race(place, outside)
        finally:
            os._exit(0)
    gave_up = 0
    try:
        for index in range(rounds):
            _build(place, outside)
            try:
                remove(place / "tree")
            except OSError:  # "kept changing": a folder renamed all the time has no name to remove
                gave_up += 1
            if (place / "tree").exists():
                os.rename(place / "tree", place / f"unfinished-{index}")
    finally:
        os.kill(racer, signal.SIGKILL)
        os.waitpid(racer, 0)
    return before, _state(outside), gave_up


@pytest.mark.main_python
def test_a_racing_link_swap_never_leads_the_removal_outside(grader, place):
    def work() -> None:
        before, after, _ = race(place, remove_tree)
        assert after == before
        for unfinished in place.glob("unfinished-*"):  # the racer is gone: now it all goes
            remove_tree(unfinished)
        assert os.listdir(place) == ["outside"]

    _as_grader(grader, work)
