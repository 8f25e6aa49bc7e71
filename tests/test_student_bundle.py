"""The student bundle, unpacked in a fresh folder: the self-check, the written check, the zip, and
nothing of the reference or the hidden tests inside."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from autograder.course.release import leaks, write_bundle
from autograder.grading.runner import collect_tests
from autograder.core.config import available_assignments, load_assignment
from autograder.course.dataset import DatasetError
from autograder.core.results import GradescopeResults
from autograder.written.giveaway import answer_finders, readable_text
from tests.conftest import PYTHON
from tests.fixtures.mutants import bug
from tests.fixtures.word2vec_bugs import BUGS

pytestmark = [pytest.mark.smoke, pytest.mark.slow]  # smoke: also on other Pythons; slow: the end-to-end tier

WORD2VEC_FILES = ["nn_basics.py", "word2vec.py", "sgd.py"]


def unpack(bundle: Path, target: Path) -> Path:
    """A fresh copy of the bundle, as a student who unzipped it would have."""
    shutil.copytree(bundle, target)
    return target


def in_bundle(folder: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([PYTHON, "-m", "autograder", *args], cwd=folder, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "COLUMNS": "200"})


@dataclass(frozen=True)
class Bundle:
    folder: Path
    files: list[Path]  # what write_bundle says it wrote


@pytest.fixture(scope="module")
def bundles(tmp_path_factory, ewt_stand_in) -> Callable[[str], Bundle]:
    """Each assignment's bundle with the data, written once when a test first asks for it: write_bundle
    runs the reference to record the expected values (about 3 s for the parser). Tests only read it;
    one that changes it or runs code in it (which writes __pycache__) works on a copy (unpack)."""
    written: dict[str, Bundle] = {}

    def bundle_of(name: str) -> Bundle:
        if name not in written:
            folder = tmp_path_factory.mktemp("release") / name
            written[name] = Bundle(folder, write_bundle(load_assignment(name), folder, data=ewt_stand_in))
        return written[name]

    return bundle_of


@pytest.fixture(scope="module")
def bundle(bundles) -> Path:
    return bundles("word2vec").folder


def test_bundle_holds_the_starter_the_handout_and_the_self_check(bundle, repo):
    names = {p.relative_to(bundle).as_posix() for p in bundle.rglob("*") if p.is_file()}
    committed = repo / "assignment" / "word2vec"
    starter = {p.relative_to(committed).as_posix() for p in committed.rglob("*")
               if p.is_file() and "__pycache__" not in p.parts}
    assert starter <= names
    assert {"word2vec.ipynb", "written.md", "requirements.txt", "autograder/__main__.py",
            "autograder/assignments/word2vec/public_tests.py",
            "autograder/assignments/word2vec/public_expected.agw"} <= names
    assert (bundle / "word2vec.ipynb").read_bytes() == (repo / "handouts" / "word2vec.ipynb").read_bytes()
    assert "numpy==" in (bundle / "requirements.txt").read_text()


def test_bundle_contains_nothing_of_solutions_or_hidden_tests(bundle, repo, tmp_path):
    names = [p.relative_to(bundle).as_posix() for p in bundle.rglob("*")]
    assert not [n for n in names if "hidden_tests" in n or "solutions" in n or "assignments/parser" in n]
    # The notation of the derivations ships (check-written reads final formulas with it), their
    # reference formulas never.
    assert "autograder/assignments/word2vec/handout.py" in names
    assert not [n for n in names if "reference_formulas" in n]
    assert leaks(load_assignment("word2vec"), bundle) == []
    # The check finds what it must: a hidden test file, a line of the reference, a reference answer.
    planted = unpack(bundle, tmp_path / "planted")
    shutil.copy(repo / "autograder" / "assignments" / "word2vec" / "hidden_tests.py", planted / "notes.py")
    with (planted / "word2vec.py").open("a") as stream:
        stream.write("\n    grad_outside_vecs = np.outer(delta, center_word_vec)  # (|V|, d)\n")
    reference_answer = (repo / "solutions" / "written" / "word2vec.md").read_text().splitlines()
    (planted / "written.md").write_text(next(line for line in reference_answer if "np.add.at" in line))
    shutil.copy(repo / "autograder" / "assignments" / "word2vec" / "reference_formulas.py",
                planted / "autograder" / "assignments" / "word2vec")
    found = "\n".join(leaks(load_assignment("word2vec"), planted))
    assert "notes.py: hidden test name" in found
    assert "reference_formulas.py: a file of solutions/, the hidden tests or the reference formulas" in found
    assert "word2vec.py: solution line 'grad_outside_vecs = np.outer(delta, center_word_vec)'" in found
    assert "written.md: reference answer line" in found


def test_self_check_of_the_starter_in_a_fresh_folder(bundle, tmp_path):
    folder = unpack(bundle, tmp_path / "hw1")
    where = subprocess.run([PYTHON, "-c", "import autograder; print(autograder.__file__)"], cwd=folder,
                           capture_output=True, text=True, timeout=60)
    assert where.stdout.strip() == str(folder / "autograder" / "__init__.py")  # not the repository's copy
    run = in_bundle(folder, "check", "word2vec")
    assert run.returncode == 1, run.stderr
    assert "Total: 0 / 25" in run.stdout and "not implemented yet" in run.stdout
    assert "15 more points are in hidden tests that Gradescope runs after the deadline" in run.stdout
    assert "20 points" in run.stdout  # written questions graded by hand
    written = in_bundle(folder, "check-written", "word2vec", "written.md")
    assert written.returncode == 1 and "0 of 10 written questions answered." in written.stdout
    collected = in_bundle(folder, "collect-submission", "word2vec")
    assert collected.returncode == 0
    assert "nn_basics.py still has 5 parts not implemented" in collected.stdout
    with zipfile.ZipFile(folder / "word2vec_submission.zip") as archive:
        assert sorted(archive.namelist()) == sorted(WORD2VEC_FILES + ["word2vec.ipynb"])


def test_check_written_in_the_bundle_reads_final_formulas_without_the_reference(bundle, tmp_path):
    """The bundle has the notation (handout.py) and not the reference formulas: check-written says how
    a final formula was read, or why it cannot be, and nothing about whether it is right."""
    folder = unpack(bundle, tmp_path / "hw1")
    (folder / "written.md").write_text(
        "## 2b-ii\n\n$$\\frac{\\partial J}{\\partial v_c} = U (y - \\hat y)$$\n\n"
        "## 2b-iv\n\n$$\\frac{\\partial J}{\\partial U} = \\Delta v_c^\\top$$\n"
    )
    written = in_bundle(folder, "check-written", "word2vec", "written.md")
    flat = " ".join(written.stdout.split())
    assert "read as U (y - \\hat y)" in flat  # wrong (a transpose is missing), and not said
    assert "Note: 2b-iv" in flat and "Delta is not a symbol of this question's notation" in flat
    assert "equal" not in flat  # no verdict: the bundle cannot know one


def test_self_check_gives_the_messages_of_the_grader(bundle, tmp_path, repo, word2vec_grader):
    bug = next(b for b in BUGS if b.name == "naive softmax forgets to subtract the one-hot y")
    submission = bug.apply(repo / "solutions" / "word2vec", tmp_path / "buggy")
    folder = unpack(bundle, tmp_path / "hw1")
    for name in WORD2VEC_FILES:
        shutil.copy(submission / name, folder / name)
    run = in_bundle(folder, "check", "word2vec", "--results", "checked.json")
    assert run.returncode == 1 and "It does not match centred differences of your own loss" in run.stdout
    checked = GradescopeResults.model_validate(json.loads((folder / "checked.json").read_text()))
    graded = word2vec_grader(submission, include_hidden=False)
    assert [(t.number, t.score, t.output) for t in checked.tests] == \
        [(t.number, t.score, t.output) for t in graded.tests]
    assert {t.number for t in checked.tests if t.status == "failed"} == {"2b.2", "2b.3"}


def _total(printed: str) -> tuple[float, float] | None:
    """The score and the points of check's "Total:" line."""
    found = re.search(r"Total: ([0-9.]+) / ([0-9.]+)", printed)
    return (float(found[1]), float(found[2])) if found else None


@pytest.mark.parametrize("name", available_assignments())
def test_bundle_leaks_nothing_gives_the_starter_zero_and_the_reference_every_public_point(name, tmp_path, repo,
                                                                                        bundles):
    """Each assignment's bundle: its check runs the starter without a crash (0, every public question
    listed) and gives the reference every public point, from the recording (for the parser: Adam
    runs, parses and models); check-written finds every reference answer."""
    assignment = load_assignment(name)
    folder = unpack(bundles(name).folder, tmp_path / name)
    assert leaks(assignment, folder) == []
    public = collect_tests(assignment, include_hidden=False)
    points = sum(t.weight for tests in public.values() for t in tests)
    starter = in_bundle(folder, "check", name)
    assert _total(starter.stdout) == (0, pytest.approx(points)), starter.stdout[-3000:]
    assert "Traceback" not in starter.stdout + starter.stderr
    for file in assignment.config.submission_files:
        shutil.copy(repo / "solutions" / name / file, folder / file)
    shutil.copy(repo / "solutions" / "written" / f"{name}.md", folder / "written.md")
    run = in_bundle(folder, "check", name)
    assert run.returncode == 0, run.stdout[-3000:]
    assert _total(run.stdout) == (pytest.approx(points), pytest.approx(points)), run.stdout[-3000:]
    written = in_bundle(folder, "check-written", name)  # finds written.md: it holds the answers
    count = len(assignment.config.written_questions)
    assert written.returncode == 0 and f"{count} of {count} written questions answered." in written.stdout


@pytest.mark.parametrize("name", available_assignments())
def test_bundle_gives_no_written_answer_away(name, bundles):
    """No file students receive (starter, self-checks, docstrings, public tests, the framework, the
    notebook) holds the answer of a written question that tests grade, in any spelling the search
    knows; the same search finds each of those answers in the reference answers, so it can find them."""
    assignment = load_assignment(name)
    finders = answer_finders(assignment)
    assert sorted(finders) == sorted(q.id for q in assignment.config.questions if q.kind == "written")
    reference = (assignment.solution_dir / "written.md").read_text()
    assert [q for q, find in finders.items() if not find(reference)] == []
    folder, files = bundles(name).folder, bundles(name).files
    found = [f"{path.relative_to(folder)}: {question}, {what}" for path in files
             if (text := readable_text(path)) is not None
             for question, find in finders.items() for what in find(text)]
    assert found == []


@pytest.mark.main_python
def test_a_bundle_that_gives_an_answer_away_is_refused(tmp_path, bundles):
    assignment = load_assignment("parser")
    folder = unpack(bundles("parser").folder, tmp_path / "hw2")
    with (folder / "parser_transitions.py").open("a") as stream:
        stream.write('\n# The handout\'s sentence: S S LA S S LA RA S S S S LA LA LA RA RA\n')
    (folder / "notes.md").write_text("Each sentence of n words needs $2 \\cdot n$ transitions.\n")
    found = "\n".join(leaks(assignment, folder))
    assert "parser_transitions.py: the answer of written question 2a-i" in found
    assert "notes.md: the answer of written question 2a-ii" in found


def test_bundle_ships_the_data_with_its_licence_and_run_py_finds_it(bundle, ewt_stand_in, tmp_path):
    folder = unpack(bundle, tmp_path / "hw1")
    data = folder / "data" / "ud-english-ewt"
    assert sorted(p.name for p in data.iterdir()) == ["LICENSE.txt", "SOURCE.md", "UD_README.md",
                                                      "en_ewt-ud-train.conllu"]
    assert (data / "LICENSE.txt").read_bytes() == (ewt_stand_in / "LICENSE.txt").read_bytes()
    assert "CC BY-SA 4.0" in (data / "SOURCE.md").read_text()
    env = {k: v for k, v in os.environ.items() if k != "UD_EWT_DIR"}
    found = subprocess.run([PYTHON, "-c", "import run; print(run.find_default_data())"], cwd=folder,
                           capture_output=True, text=True, timeout=60, env=env)
    assert found.stdout.strip() == str(data)


def test_parser_run_py_finds_the_bundled_data_before_the_shared_folder(tmp_path, bundles):
    folder = unpack(bundles("parser").folder, tmp_path / "hw2")
    env = {k: v for k, v in os.environ.items() if k != "UD_EWT_DIR"}
    found = subprocess.run([PYTHON, "-c", "from utils.parser_utils import find_data_dir; print(find_data_dir())"],
                           cwd=folder, capture_output=True, text=True, timeout=60, env=env)
    assert found.stdout.strip() == str(folder / "data" / "ud-english-ewt"), found.stderr


def test_release_without_the_data_says_where_students_get_it(tmp_path, monkeypatch):
    monkeypatch.setenv("UD_EWT_DIR", str(tmp_path / "nowhere"))
    assignment = load_assignment("word2vec")
    with pytest.raises(DatasetError, match="--without-data"):
        write_bundle(assignment, tmp_path / "refused")
    assert not (tmp_path / "refused").exists()  # refused before anything was written
    write_bundle(assignment, tmp_path / "hw1", with_data=False)
    readme = (tmp_path / "hw1" / "README.md").read_text()
    assert not (tmp_path / "hw1" / "data").exists()
    assert "Download en_ewt-ud-train.conllu from https://github.com/UniversalDependencies/UD_English-EWT" in readme


def test_student_readme_names_this_assignment_and_every_step(bundle):
    readme = (bundle / "README.md").read_text()
    assert "@" not in readme.replace("@TITLE", "")  # every placeholder filled
    for command in ("pip install -r requirements.txt", "pip install -r requirements-notebook.txt",
                    "jupyter notebook word2vec.ipynb", "python -m autograder check word2vec",
                    "python -m autograder check-written word2vec word2vec.ipynb", "python run.py --help",
                    "python -m autograder collect-submission word2vec", "Python 3.10 to 3.14"):
        assert command in readme, command
    assert "data/ud-english-ewt/" in readme


@pytest.mark.main_python
def test_check_leaves_pending_what_it_cannot_grade_apart_from_a_wrong_helper(bundle, tmp_path, repo, word2vec_grader):
    """A right naive softmax that calls softmax on a (1, |V|) row, beside a softmax that normalises
    over the wrong axis: the recording has no answer for that call, so check cannot stand the
    course's softmax in for the student's. It leaves 2b pending and names softmax, rather than
    charging 2b for 1a's bug as it once did; Gradescope, with the reference, gives 2b full marks."""
    axis = next(b for b in BUGS if b.name == "softmax normalises over the wrong axis")
    submission = axis.apply(repo / "solutions" / "word2vec", tmp_path / "buggy")
    row_call = bug("naive softmax on a row", "word2vec.py", "y_hat = softmax(outside_vectors @ center_word_vec)",
                   "y_hat = softmax((outside_vectors @ center_word_vec)[None, :])[0]", "word2vec.naive_softmax_loss_and_gradient", "")
    row_call.apply(submission, tmp_path / "both")
    folder = unpack(bundle, tmp_path / "hw1")
    for name in WORD2VEC_FILES:
        shutil.copy(tmp_path / "both" / name, folder / name)
    run = in_bundle(folder, "check", "word2vec", "--results", "checked.json")
    checked = {t.number: t for t in GradescopeResults.model_validate(
        json.loads((folder / "checked.json").read_text())).tests}
    pending = {n for n, t in checked.items() if t.extra_data.get("pending")}
    assert pending and all(n.startswith("2b.") for n in pending), pending
    assert all("Pending: this test calls your softmax (question 1a)" in checked[n].output for n in pending)
    assert "pending" in run.stdout and "more points are pending" in run.stdout, run.stdout
    graded = {t.number: t for t in word2vec_grader(tmp_path / "both").tests}
    assert all(graded[n].score == graded[n].max_score for n in pending)
