"""``grade-batch`` on a synthetic Gradescope export: every output, resuming, crashes and Ctrl-C.

One export of nine word2vec submissions (reference, starter, a bug, broken and hostile ones, one
listed without a folder) is graded once through the command line with two jobs; the tests read what
that run wrote, then copy it to regrade in other ways.
"""

from __future__ import annotations

import csv
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from autograder.course import grade_batch as batch
from autograder.course.grade_batch import run_batch
from autograder.core.config import ConfigError, available_assignments, load_assignment
from autograder.course.gradescope_export import ExportError, load_export
from autograder.boundary.isolation import Isolation
from autograder.core.results import read_results
from autograder.written.handout_data import handout_data
from tests.conftest import PYTHON, question_scores
from tests.fixtures.export import write_export

pytestmark = pytest.mark.slow  # the end-to-end tier: -m slow (README: "Set up and test")

BUG = "bug:softmax overflows on large inputs"
KINDS = ["reference", "starter", BUG, "syntax_error", "exit_at_import", "missing_file", "empty",
         "nested", "missing_folder"]
# Points each kind must get per question (others: 0). The first file, nn_basics.py, breaks
# everything that imports it; sgd.py (question 3) stands alone; missing_file drops sgd.py.
FULL = {"1a": 4, "1b": 3, "1c": 6, "1d": 3, "2a": 1, "2b": 6, "2c": 6, "2d": 6, "3": 5}
EXPECTED = {"reference": FULL, "nested": FULL, "starter": {},
            BUG: {**FULL, "1a": 3},  # 2b grades with the reference softmax (error carried forward)
            "syntax_error": {"3": 5}, "exit_at_import": {"3": 5},
            "missing_file": {**FULL, "3": 0}, "empty": {}, "missing_folder": {}}


def grade_batch_cli(*args: object, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([PYTHON, "-m", "autograder", "grade-batch", "word2vec", *map(str, args)],
                          cwd=cwd, capture_output=True, text=True, timeout=600, env=env)


@pytest.fixture(scope="module")
def word2vec():
    return load_assignment("word2vec")


@pytest.fixture(scope="module")
def graded(tmp_path_factory, word2vec, repo):
    root = tmp_path_factory.mktemp("batch")
    planted = write_export(root / "export", word2vec, KINDS)
    run = grade_batch_cli(root / "export", "--jobs", 2, "--out", root / "out", cwd=repo)
    return SimpleNamespace(root=root, export=root / "export", out=root / "out", planted=planted, run=run)


def copy_of(graded, tmp_path: Path) -> tuple[Path, Path]:
    shutil.copytree(graded.export, tmp_path / "export", symlinks=True)
    shutil.copytree(graded.out, tmp_path / "out")
    return tmp_path / "export", tmp_path / "out"


def results_of(out: Path, name: str):
    return read_results(out / "submissions" / name / "results.json")


def test_command_grades_everything_and_reports(graded):
    assert graded.run.returncode == 0, graded.run.stderr
    missing = next(p.name for p in graded.planted if p.kind == "missing_folder")
    assert f"graded {len(KINDS)}, unchanged 0" in graded.run.stdout
    assert f"could not be graded (0 points, the reason in their results.json): {missing}" in graded.run.stdout
    assert f"{missing} could not be graded: " in graded.run.stdout + graded.run.stderr
    assert "Full marks" in graded.run.stdout and "│ total │" in graded.run.stdout  # the statistics
    assert "SubmissionError" in (graded.out / "errors.log").read_text()


def test_every_submission_has_complete_results_with_the_right_scores(graded, word2vec):
    for planted in graded.planted:
        results = results_of(graded.out, planted.name)
        scores = question_scores(results)
        assert {q: m for q, (_, m) in scores.items()} == FULL, planted.kind  # every question, full points
        got = {q: s for q, (s, _) in scores.items() if s}
        assert got == {q: s for q, s in EXPECTED[planted.kind].items() if s}, planted.kind
    crashed = results_of(graded.out, next(p.name for p in graded.planted if p.kind == "missing_folder"))
    assert "could not grade" in crashed.output and "does not exist" in crashed.output
    assert all("SubmissionError" in t.output for t in crashed.tests)


def test_scores_csv_has_a_row_per_student_and_a_column_per_question(graded):
    with open(graded.out / "scores.csv", newline="") as stream:
        reader = csv.DictReader(stream)
        rows = list(reader)
    formulas = [f"formula {q}" for q in handout_data("word2vec").derivations]
    assert reader.fieldnames == ["submission", "name", "sid", "email", "submitted_at", *FULL, *formulas, "total",
                                 "out_of", "gradescope_score", "status"]
    students = [(p.name, s) for p in graded.planted for s in p.submitters]
    assert len(students) == len(KINDS) + 1  # the seventh submission is a group of two
    who = [(r["submission"], {"name": r["name"], "sid": r["sid"], "email": r["email"]}) for r in rows]
    assert who == students
    for row in rows:
        results = results_of(graded.out, row["submission"])
        assert float(row["total"]) == pytest.approx(results.score)
        assert sum(float(row[q]) for q in FULL) == pytest.approx(results.score)
        assert row["out_of"] == "40" and row["submitted_at"].startswith("2024-10-0")
        kind = next(p.kind for p in graded.planted if p.name == row["submission"])
        assert row["status"] == ("not graded" if kind == "missing_folder" else "graded")
        # The reference's written answers are judged equal; the others have none (nor, ungraded, a verdict).
        # A bug is planted in a copy of the reference's folder, written answers and all: those are
        # judged equal; the other kinds have no written answers (and one ungraded, no verdict).
        verdict = "equal" if kind.startswith("bug:") else "" if kind == "missing_folder" else "unanswered"
        assert {row[f] for f in formulas} == {verdict}, (kind, row)


def test_statistics_per_question_and_total(graded):
    with open(graded.out / "statistics.csv", newline="") as stream:
        stats = {row["question"]: row for row in csv.DictReader(stream)}
    assert list(stats) == [*FULL, "total"]
    totals = sorted(sum(EXPECTED[k].values()) for k in KINDS)
    total = stats["total"]
    assert float(total["mean"]) == pytest.approx(sum(totals) / len(totals), abs=1e-4)
    assert float(total["median"]) == totals[len(totals) // 2]
    assert (float(total["min"]), float(total["max"])) == (0, 40)
    assert float(total["full_marks"]) == pytest.approx(2 / 9, abs=1e-4)  # the reference and the nested one
    assert float(stats["3"]["full_marks"]) == pytest.approx(5 / 9, abs=1e-4)
    assert float(stats["1a"]["points"]) == 4 and stats["1a"]["title"] == "softmax"


def test_plot_is_a_png(graded):
    data = (graded.out / "scores.png").read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 10_000


def test_rerun_skips_what_is_unchanged_and_regrades_what_changed(graded, word2vec, tmp_path):
    export, out = copy_of(graded, tmp_path)
    names = {p.kind: p.name for p in graded.planted}
    again = run_batch(word2vec, export, out)
    assert again.graded == [names["missing_folder"]]  # what could not be graded is tried again
    assert sorted(again.skipped) == sorted(n for k, n in names.items() if k != "missing_folder")

    # The student of the starter resubmits the reference: only that submission is graded again.
    folder = export / "assignment_4242_export" / names["starter"]
    for file in word2vec.config.submission_files:
        shutil.copy(word2vec.solution_dir / file, folder / file)
    changed = run_batch(word2vec, export, out)
    assert sorted(changed.graded) == sorted([names["starter"], names["missing_folder"]])
    assert results_of(out, names["starter"]).score == 40
    with open(out / "scores.csv", newline="") as stream:
        assert {r["submission"]: r["total"] for r in csv.DictReader(stream)}[names["starter"]] == "40"


def test_force_regrades_everything_with_identical_results(graded, word2vec, tmp_path):
    """Grading is deterministic: graded twice, every results.json is the same but for execution_time."""
    export, out = copy_of(graded, tmp_path)
    forced = run_batch(word2vec, export, out, jobs=2, force=True)
    assert sorted(forced.graded) == sorted(p.name for p in graded.planted) and forced.skipped == []
    for planted in graded.planted:
        if planted.kind == "missing_folder":  # its reason names the export's path, which the copy changed
            continue
        first, second = (results_of(where, planted.name).model_dump_json(exclude={"execution_time"}, indent=1)
                         for where in (graded.out, out))
        assert first == second, planted.kind
        if planted.kind == BUG:  # its overflow warnings name the file, which lies in a random scratch folder
            assert "nn_basics.py:" in second and "RuntimeWarning" in second and "ag-worker-" not in second


def test_fingerprints_cover_what_decides_a_score(word2vec, tmp_path):
    grader = {name for name, _ in batch._grader_files(word2vec)}
    for name in ("autograder/assignments/word2vec/config.yaml",
                 "autograder/assignments/word2vec/hidden_tests.py", "autograder/grading/runner.py", "autograder/worker/calls.py", "solutions/word2vec/word2vec.py",
                 "assignment/word2vec/utils/gradcheck.py"):
        assert name in grader
    assert not any("parser" in name for name in grader)  # another assignment's change is no reason
    assert "autograder/course/gradebook.py" not in grader  # nor is a change of how scores are shown
    assert batch.grader_fingerprint(word2vec) == batch.grader_fingerprint(word2vec)

    submission = tmp_path / "submission"
    shutil.copytree(word2vec.solution_dir, submission)
    before = batch.submission_fingerprint(word2vec, submission)
    (submission / "README.txt").write_text("not graded, so no reason to regrade")
    assert batch.submission_fingerprint(word2vec, submission) == before
    (submission / "sgd.py").write_text((submission / "sgd.py").read_text() + "\n# changed\n")
    assert batch.submission_fingerprint(word2vec, submission) != before
    (submission / "sgd.py").unlink()
    assert batch.submission_fingerprint(word2vec, submission) != before


def test_ctrl_c_keeps_finished_results_and_stops_the_rest(word2vec, tmp_path, repo):
    planted = write_export(tmp_path / "export", word2vec, ["reference", "hang", "reference"])
    out = tmp_path / "out"
    # Its own process group, so that the signal reaches it and its grading processes, as Ctrl-C does.
    # SIGINT back to its default: a suite started in the background of a script inherits it ignored,
    # and Python keeps an ignored SIGINT ignored.
    process = subprocess.Popen([PYTHON, "-m", "autograder", "grade-batch", "word2vec", str(tmp_path / "export"),
                                "--out", str(out)], cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, start_new_session=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    first, state = out / "submissions" / planted[0].name / "results.json", out / "batch_state.json"
    while not state.exists() and process.poll() is None:  # written after the first results.json
        time.sleep(0.2)
    os.killpg(process.pid, signal.SIGINT)  # it is about to grade, or grading, the endless loop
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stdout + stderr
    assert "interrupted" in stderr and "run the same command again" in stderr
    assert read_results(first).score == 40
    assert not (out / "submissions" / planted[1].name / "results.json").exists(), stdout
    assert list(batch.BatchState.model_validate_json(state.read_text()).submissions) == [planted[0].name]


def test_a_grading_over_the_time_limit_costs_its_own_row_only(word2vec, tmp_path, repo):
    """The hanging submission takes 1d's 20 s; over --time-limit its grading process is killed, it
    gets 0 with the reason, and the reference graded beside it is graded again, in full."""
    planted = write_export(tmp_path / "export", word2vec, ["reference", "hang", "reference"])
    tmp = tmp_path / "tmp"  # a temporary folder of its own: no other grading's folders in it
    tmp.mkdir()
    run = grade_batch_cli(tmp_path / "export", "--jobs", 2, "--time-limit", 15, "--out", tmp_path / "out", cwd=repo,
                          env={**os.environ, "TMPDIR": str(tmp)})
    assert run.returncode == 0, run.stdout + run.stderr
    hung = results_of(tmp_path / "out", planted[1].name)
    assert hung.score == 0 and "took longer than 15 s, the limit for one submission" in hung.output
    assert hung.execution_time == 15
    assert not [p for p in tmp.iterdir() if p.name.startswith(("ag-worker-", "ag-grader-"))]  # removed at once
    assert [results_of(tmp_path / "out", planted[i].name).score for i in (0, 2)] == [40, 40]
    assert f"could not be graded (0 points, the reason in their results.json): {planted[1].name}" in run.stdout
    assert re.search(r"warning: --time-limit 15 s is less than the \d+ s its questions", run.stdout)


def test_an_out_folder_of_another_assignment_is_refused(word2vec, tmp_path):
    write_export(tmp_path / "export", word2vec, ["empty"])
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "batch_state.json").write_text('{"assignment": "parser", "submissions": {}}')
    with pytest.raises(ConfigError, match="holds results of assignment 'parser'"):
        run_batch(word2vec, tmp_path / "export", tmp_path / "out")


def test_a_machine_without_namespaces_needs_the_explicit_flag(word2vec, tmp_path, monkeypatch):
    unconfined = Isolation(off=(("namespaces", "unshare(CLONE_NEWUSER | CLONE_NEWPID): Operation not permitted"),))
    monkeypatch.setattr(batch, "detect_isolation", lambda: unconfined)
    write_export(tmp_path / "export", word2vec, ["reference"])
    with pytest.raises(ConfigError, match=r"cannot be isolated on this machine \(unshare.*--without-isolation"):
        run_batch(word2vec, tmp_path / "export", tmp_path / "out")
    assert not (tmp_path / "out" / "submissions").exists()  # nothing was graded
    outcome = run_batch(word2vec, tmp_path / "export", tmp_path / "out", without_isolation=True)
    assert len(outcome.graded) == 1


# ----------------------------------------------------------------------------------------------
# reading the export


GRADESCOPE_METADATA = """\
---
submission_132970515:
  :submitters:
  - :name: Ada Lovelace
    :sid: '222334'
    :email: ada@example.edu
  - :name: Alan Turing
    :sid: 222335
  :created_at: 2022-09-10 23:47:27.018556000 Z
  :score: 32.0
  :status: processed
  :results:
    score:
    tests: []
    execution_time: 36.0
  :history:
  - :submitters: []
    :created_at: 2022-09-07 07:46:21.167770000 Z
    :score: 0.0
    :id: 132287215
"""


def test_metadata_as_gradescope_writes_it(tmp_path):
    folder = tmp_path / "assignment_1_export"
    (folder / "submission_132970515").mkdir(parents=True)
    (folder / "submission_999").mkdir()
    (folder / "submission_metadata.yml").write_text(GRADESCOPE_METADATA)
    export = load_export(tmp_path)  # the folder the zip was unpacked into is fine too
    assert export.root == folder and export.unlisted == ["submission_999"]
    [entry] = export.entries
    assert entry.folder == folder / "submission_132970515"
    ada, alan = entry.metadata.submitters
    assert (ada.name, ada.sid, ada.email) == ("Ada Lovelace", "222334", "ada@example.edu")
    assert (alan.sid, alan.email) == ("222335", None)
    assert entry.metadata.score == 32.0 and entry.metadata.created_at.year == 2022


@pytest.mark.parametrize("content, message", [
    (None, "is not a Gradescope export: it has no submission_metadata.yml"),
    ("- just\n- a list\n", "lists no submissions"),
    ("submission_1:\n  :created_at: 2022-09-10 23:47:27 Z\n", "submitters"),
    ("submission_1:\n  :submitters: []\n", "submitters"),
    ("../../etc:\n  :submitters:\n  - :name: Eve\n", "not a submission folder name"),
    ("submission_1: [unclosed\n", "cannot read"),
])
def test_a_folder_that_is_not_an_export_is_refused_clearly(content, message, tmp_path):
    if content is not None:
        (tmp_path / "submission_metadata.yml").write_text(content)
    with pytest.raises(ExportError, match=message.replace("[", r"\[")):
        load_export(tmp_path)


def test_the_command_says_what_to_pass_instead(tmp_path, repo):
    (tmp_path / "export.zip").write_bytes(b"PK")
    for path, hint in ((tmp_path, "Export Submissions"), (tmp_path / "export.zip", "unpack it first")):
        run = grade_batch_cli(path, "--out", tmp_path / "out", cwd=repo)
        assert run.returncode == 2 and hint in run.stderr, run.stderr


@pytest.mark.parametrize("name", available_assignments())
def test_every_assignment_regrades_a_class(name, tmp_path, repo):
    """A column per question of the assignment's config; the reference's code questions at full
    points, the starter's at 0 (neither submitted written answers)."""
    assignment = load_assignment(name)
    planted = write_export(tmp_path / "export", assignment, ["reference", "starter"])
    run = subprocess.run([PYTHON, "-m", "autograder", "grade-batch", name, str(tmp_path / "export"), "--jobs", "2",
                          "--out", str(tmp_path / "out")], cwd=repo, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    with open(tmp_path / "out" / "scores.csv", newline="") as stream:
        rows = {row["submission"]: row for row in csv.DictReader(stream)}
    code = [q for q in assignment.config.questions if q.kind == "code"]
    reference, starter = rows[planted[0].name], rows[planted[1].name]
    assert [float(reference[q.id]) for q in code] == [q.points for q in code]
    assert [float(starter[q.id]) for q in code] == [0.0] * len(code)
    assert float(reference["out_of"]) == assignment.config.graded_points


def test_points_given_by_hand_join_the_gradebook_end_to_end(graded, word2vec, tmp_path, repo):
    """Issue 26: export-written writes hand_graded.csv, a row per student; a TA fills it in (some
    rows only); grade-batch --hand-graded merges it: a column per question graded by hand, totals
    out of every point, the statistics and plot with those questions. A second run leaves the TA's
    file as it is, and Gradescope's own score export of the written assignment is read too."""
    export, out = copy_of(graded, tmp_path)
    pages = tmp_path / "written"
    done = subprocess.run([PYTHON, "-m", "autograder", "export-written", "word2vec", export, "--out", pages],
                          cwd=repo, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and "hand_graded.csv" in done.stdout, done.stderr
    with open(pages / "hand_graded.csv", newline="") as stream:
        template = list(csv.DictReader(stream))
    by_hand = [q.id for q in word2vec.config.manual_questions]
    assert list(template[0]) == ["submission", "name", *by_hand] and len(template) == len(KINDS)
    reference = next(p for p in graded.planted if p.kind == "reference")
    filled = [{**row, "2e": "1.5", "1c-i": "2"} if row["submission"] == reference.name else row for row in template]
    with open(pages / "hand_graded.csv", "w", newline="") as stream:
        writer = csv.DictWriter(stream, fieldnames=list(template[0]))
        writer.writeheader()
        writer.writerows(filled)
    run = grade_batch_cli(export, "--out", out, "--hand-graded", pages / "hand_graded.csv", cwd=repo)
    assert run.returncode == 0, run.stderr
    with open(out / "scores.csv", newline="") as stream:
        rows = {row["submission"]: row for row in csv.DictReader(stream)}
    mine = rows[reference.name]
    assert (mine["2e"], mine["1c-i"], mine["2b-i"]) == ("1.5", "2", "")
    assert float(mine["total"]) == pytest.approx(40 + 3.5) and mine["out_of"] == "60"
    with open(out / "statistics.csv", newline="") as stream:
        stats = {row["question"]: row for row in csv.DictReader(stream)}
    assert list(stats) == [*FULL, *by_hand, "total"] and float(stats["total"]["points"]) == 60
    assert float(stats["2e"]["max"]) == 1.5
    subprocess.run([PYTHON, "-m", "autograder", "export-written", "word2vec", export, "--out", pages],
                   cwd=repo, capture_output=True, text=True, timeout=600, check=True)
    assert "1.5" in (pages / "hand_graded.csv").read_text()  # the TA's points are never written over

    student = reference.submitters[0]
    gradescope = tmp_path / "written_scores.csv"
    gradescope.write_text("First Name,Last Name,SID,Email,1: 1c-i Softmax (2.0 pts),9: 2e Normalising (2.0 pts),"
                          f"Total Score\nA,B,{student['sid']},{student['email']},1,2,3\n")
    run = grade_batch_cli(export, "--out", out, "--hand-graded", gradescope, cwd=repo)
    assert run.returncode == 0, run.stderr
    with open(out / "scores.csv", newline="") as stream:
        mine = next(row for row in csv.DictReader(stream) if row["sid"] == student["sid"])
    assert (mine["1c-i"], mine["2e"]) == ("1", "2") and float(mine["total"]) == pytest.approx(43)


def test_hand_graded_points_that_cannot_be_right_are_refused_all_at_once(word2vec, tmp_path):
    from autograder.course.hand_graded import read_hand_graded

    sheet = tmp_path / "hand_graded.csv"
    sheet.write_text("submission,name,1c-i,2e\ns1,Ada,2,5\ns2,Alan,two,1\n")
    with pytest.raises(ConfigError) as refused:
        read_hand_graded(sheet, word2vec.config)
    message = str(refused.value)
    assert message.startswith("2 hand-graded score(s) cannot be read")
    assert f"{sheet}:2, column '2e': 5 is outside 0 to 2, the points of 2e" in message
    assert f"{sheet}:3, column '1c-i': 'two' is no number of points" in message
    sheet.write_text("submission,name,points\ns1,Ada,2\n")
    with pytest.raises(ConfigError, match="no column names a question graded by hand"):
        read_hand_graded(sheet, word2vec.config)
