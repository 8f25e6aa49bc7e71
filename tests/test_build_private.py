"""The Gradescope zip holds the reference and the hidden tests: ``build`` writes it readable by its
owner only, never through a link or a file planted at ``--out``, and the TA guide's recipe that runs
it locally leaves nothing but the venv readable by the worker's user."""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from autograder.course.build import BuildError, build
from autograder.core.config import PACKAGE_ROOT, Assignment, load_assignment
from autograder.core.results import GradescopeResults
from tests.conftest import assert_questions_complete, lost_points

pytestmark = pytest.mark.slow  # the end-to-end tier: -m slow (README: "Set up and test")

NOBODY = 65534


@pytest.fixture(scope="module")
def word2vec() -> Assignment:
    return load_assignment("word2vec")


@pytest.fixture
def permissive_umask() -> Iterator[None]:
    """A umask that lets everyone read new files, so that only ``build`` itself can make the zip private."""
    previous = os.umask(0)
    yield
    os.umask(previous)


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_the_zip_is_readable_by_its_owner_only(word2vec, tmp_path, permissive_umask):
    out = tmp_path / "new" / "word2vec.zip"
    build(word2vec, out)
    assert oct(_mode(out)) == oct(0o600)
    assert zipfile.is_zipfile(out)
    assert os.listdir(out.parent) == ["word2vec.zip"]  # no temporary file left beside it


@pytest.mark.parametrize("target_exists", [True, False], ids=["link to a file", "dangling link"])
def test_a_symbolic_link_at_out_is_refused_and_its_target_untouched(word2vec, tmp_path, target_exists):
    target = tmp_path / "target"
    if target_exists:
        target.write_bytes(b"someone's file")
    link = tmp_path / "word2vec.zip"
    link.symlink_to(target)
    with pytest.raises(BuildError, match=r"is a symbolic link; remove it or choose another --out"):
        build(word2vec, link)
    assert link.is_symlink()
    if target_exists:
        assert target.read_bytes() == b"someone's file"
    else:
        assert not target.exists()  # the link did not make build create the file it points to
    assert sorted(os.listdir(tmp_path)) == sorted(["word2vec.zip"] + (["target"] if target_exists else []))


def test_a_folder_at_out_is_refused(word2vec, tmp_path):
    (tmp_path / "word2vec.zip").mkdir()
    with pytest.raises(BuildError, match=r"exists and is not a regular file; remove it or choose another"):
        build(word2vec, tmp_path / "word2vec.zip")
    assert os.listdir(tmp_path / "word2vec.zip") == []


def test_a_file_at_out_is_replaced_not_written_through(word2vec, tmp_path):
    out = tmp_path / "word2vec.zip"
    out.write_bytes(b"old")
    out.chmod(0o644)
    other_name = tmp_path / "hard-link"
    os.link(out, other_name)  # writing through out would change this name's content too
    build(word2vec, out)
    assert zipfile.is_zipfile(out) and oct(_mode(out)) == oct(0o600)
    assert other_name.read_bytes() == b"old" and oct(_mode(other_name)) == oct(0o644)


def test_a_failed_build_leaves_no_temporary_file_and_out_as_it_was(word2vec, tmp_path, monkeypatch):
    out = tmp_path / "word2vec.zip"
    out.write_bytes(b"the previous zip")
    written = []

    def disk_full_after_ten(archive, info, data, *args, **kwargs):
        if len(written) == 10:
            raise OSError(28, "No space left on device")
        written.append(info)
        return original(archive, info, data, *args, **kwargs)

    original = zipfile.ZipFile.writestr
    monkeypatch.setattr(zipfile.ZipFile, "writestr", disk_full_after_ten)
    with pytest.raises(OSError, match="No space left on device"):
        build(word2vec, out)
    assert os.listdir(tmp_path) == ["word2vec.zip"]
    assert out.read_bytes() == b"the previous zip"


def test_a_file_planted_by_another_user_in_a_sticky_folder_is_refused(word2vec, tmp_path):
    """As in /tmp: a fixed name there may hold another user's file, which only they may replace."""
    if os.geteuid() != 0:
        pytest.skip("planting a file as another user needs root")
    os.seteuid(NOBODY)
    try:  # build reads the framework's files as the user that runs it
        readable = os.access(PACKAGE_ROOT, os.R_OK | os.X_OK, effective_ids=True)
    finally:
        os.seteuid(0)
    if not readable:
        pytest.skip(f"nobody cannot read this checkout ({PACKAGE_ROOT}: a clone under mktemp -d); "
                    "a clone in a readable folder, as CI's, runs this test")
    # Imports everything build needs while still root: as nobody, Python may not read root's own
    # Python's standard library for the modules it imports on first use.
    build(word2vec, tmp_path / "warm-up.zip")
    sticky = Path(tempfile.mkdtemp(prefix="ag-sticky-", dir="/tmp"))
    try:
        sticky.chmod(0o1777)
        planted = sticky / "word2vec.zip"
        planted.write_bytes(b"planted by root")
        os.seteuid(NOBODY)
        try:
            with pytest.raises(BuildError, match=r"is owned by someone else; choose another --out, "
                                                 r"e\.g\. in a folder made by mktemp -d"):
                build(word2vec, planted)
        finally:
            os.seteuid(0)
        assert planted.read_bytes() == b"planted by root"
        assert os.listdir(sticky) == ["word2vec.zip"]  # nobody's temporary file is gone
    finally:
        shutil.rmtree(sticky)


# --- docs/ta-guide.md: "Build the Gradescope zip and test it locally" ---

RECIPE = "docs/ta-guide.md"  # tests/test_docs.py checks that the blocks so marked are all there
MARKED_BLOCK = re.compile(r"<!-- test: gradescope-simulation[^>]*-->\n```bash\n(.*?)```", re.DOTALL)
SETUP = 'AUTOGRADER_ANY_PYTHON=1 bash "$ROOT/source/setup.sh"'


def _guide_recipe(repo: Path) -> tuple[str, str]:
    """The TA guide's marked blocks as one script, cut where setup.sh starts: what comes before it is
    what the TA makes by hand, private before setup.sh or run_autograder can change anything."""
    blocks = MARKED_BLOCK.findall((repo / RECIPE).read_text())
    assert len(blocks) == 2, f"{RECIPE}: the build and the simulation blocks lost their marker"
    recipe = "".join(blocks)
    assert recipe.count(SETUP) == 1, f"{RECIPE}: the simulation no longer runs {SETUP} once"
    cut = recipe.index(SETUP)
    return recipe[:cut], recipe[cut:]


def _run(script: str, repo: Path, env: dict[str, str]) -> None:
    run = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=repo, env=env, capture_output=True,
                         text=True, timeout=900)
    assert run.returncode == 0, run.stdout + run.stderr


def _readable_by_others(root: Path) -> list[Path]:
    """What any other user may read below ``root``: paths readable by others whose every folder
    from ``root`` down lets others pass through."""
    readable = []
    for folder, dirs, files in os.walk(root):
        readable += [Path(folder, name) for name in dirs + files
                     if os.lstat(Path(folder, name)).st_mode & stat.S_IROTH]
        dirs[:] = [name for name in dirs if os.lstat(Path(folder, name)).st_mode & stat.S_IXOTH]
    return readable


def _can_read_as(user: str, path: Path) -> bool:
    return subprocess.run(["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", "--",
                           "head", "-c1", str(path)], capture_output=True).returncode == 0


@pytest.fixture
def made_by_recipe(tmp_path) -> Iterator[Path]:
    """A file where the recipe's shell lists the folders it made; they are removed afterwards."""
    listing = tmp_path / "made"
    yield listing
    for line in listing.read_text().splitlines() if listing.exists() else []:
        if line:  # empty: the recipe stopped before making it
            shutil.rmtree(line, ignore_errors=True)


def test_the_ta_guide_recipe_grades_the_reference_and_keeps_the_zip_and_source_private(repo, worker_user,
                                                                                       made_by_recipe):
    """The TA guide's blocks, run as they are from the repository, as a TA would paste them."""
    before_setup, rest = _guide_recipe(repo)
    report = f'trap \'printf "%s\\n" "${{ZIPS:-}}" "${{ROOT:-}}" > "{made_by_recipe}"\' EXIT\n'
    env = {k: v for k, v in os.environ.items() if k != "AUTOGRADER_ROOT"}
    _run(report + before_setup, repo, env)
    zips, root = (Path(line) for line in made_by_recipe.read_text().splitlines())
    archive = zips / "word2vec-autograder.zip"
    assert oct(_mode(zips)) == oct(0o700) and oct(_mode(archive)) == oct(0o600)
    assert oct(_mode(root)) == oct(0o711) and oct(_mode(root / "source")) == oct(0o700)
    assert _readable_by_others(root) == []  # unpacked and copied, all private from the start

    _run(rest, repo, env | {"ZIPS": str(zips), "ROOT": str(root)})
    assert [p for p in _readable_by_others(root) if not p.is_relative_to(root / "venv")] == []
    for secret in (archive, root / "source" / "solutions" / "word2vec" / "sgd.py",
                   root / "source" / "autograder" / "assignments" / "word2vec" / "hidden_tests.py"):
        assert not _can_read_as(worker_user, secret), secret
    assert _can_read_as(worker_user, root / "venv" / "pyvenv.cfg")
    results = GradescopeResults.model_validate_json((root / "results" / "results.json").read_text())
    config = load_assignment("word2vec").config
    assert_questions_complete(results, config)
    assert lost_points(results) == [] and results.score == pytest.approx(config.total_points)
    assert config.total_points == 40  # as the TA guide says


def test_build_says_how_long_a_timeout_gradescope_needs(tmp_path):
    """Gradescope gives a submission it times out no score at all: the TA reads, when the zip is
    written, the timeout that outlasts a submission hanging in every question (and its reruns)."""
    from tests.conftest import PYTHON

    out = subprocess.run([PYTHON, "-m", "autograder", "build", "parser", "--out", str(tmp_path / "p.zip")],
                         capture_output=True, text=True, timeout=300, check=True).stdout
    minutes = int(re.search(r"autograder timeout of at least (\d+) minutes", out)[1])
    config = load_assignment("parser").config
    worst = 2 * (config.limits.import_time_limit + sum(q.time_limit for q in config.questions))
    assert worst <= 60 * minutes <= worst + 180
