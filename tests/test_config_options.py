"""Every documented option of an assignment's config, on every assignment, through every command.

`auto_grade: true` once made release, check and grade --public-only crash with KeyError on both
assignments, though the TA guide documents it. Here each assignment's config is given a value other
than its default for every option that AssignmentConfig, Question, ManualQuestion and Limits declare
(the test fails when one is added without being set here), and grade, grade --public-only, release,
the bundle's check and build must all run to a result. It runs in a copy of the checkout, whose
config it rewrites.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from autograder.core.config import REPO_ROOT, AssignmentConfig, Limits, ManualQuestion, Question, load_assignment
from autograder.written.handout_data import derivation_questions

pytestmark = pytest.mark.slow  # the end-to-end tier: -m slow (README: "Set up and test")

# The options set here, per model: a new option must be given a value below (and so be tried).
SET = {
    AssignmentConfig: {"limits", "questions", "manual_questions", "units", "release_exclude", "support_files"},
    Question: {"time_limit", "visibility", "hidden_visibility", "owns"},
    ManualQuestion: {"auto_grade"},
    Limits: set(Limits.model_fields),
}
# Given by every config, or naming what the assignment is rather than how it is graded.
GIVEN = {
    AssignmentConfig: {"name", "title", "total_points", "submission_files", "answer_files", "dataset"},
    Question: {"id", "title", "points", "kind"},
    ManualQuestion: {"id", "title", "points"},
    Limits: set(),
}


def test_every_option_is_tried():
    for model, names in SET.items():
        assert set(model.model_fields) == names | GIVEN[model], f"{model.__name__}: set the new option in this test"


def rewritten(config: dict, name: str) -> dict:
    """The config with every option of SET given a value other than its default."""
    derivations = set(derivation_questions(load_assignment(name)))
    config["limits"] = {**config.get("limits", {}), "memory_mb": 1200, "file_size_mb": 128, "processes": 24,
                        "open_files": 200, "reply_mb": 48, "reply_json_mb": 3, "output_kb": 16, "tmp_mb": 32,
                        "import_time_limit": 15.0}
    config["units"] = UNITS[name]
    config["release_exclude"] = [*config.get("release_exclude", []), "*.orig"]
    for question in config["questions"]:
        question.update(time_limit=45, visibility="after_published", hidden_visibility="hidden")
    config["questions"][0]["owns"] = sorted({*config["questions"][0].get("owns", []), *OWNED[name]})
    for question in config.get("manual_questions", []):
        if question["id"] in derivations:
            question["auto_grade"] = True
    return config


# Declared units and owners that agree with what the tests find (a unit of one function changes
# nothing; the first question already owns what its tests name first).
UNITS = {"word2vec": [["nn_basics.softmax"]], "parser": [["optim.Adam.step"]]}
OWNED = {"word2vec": ["nn_basics.softmax"], "parser": ["optim.Adam.step"]}


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("options") / "checkout"
    folder.mkdir()
    for name in ("autograder", "solutions", "assignment", "handouts", "pyproject.toml"):
        source = REPO_ROOT / name
        if source.is_dir():
            shutil.copytree(source, folder / name, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(source, folder / name)
    for name in ("word2vec", "parser"):
        path = folder / "autograder" / "assignments" / name / "config.yaml"
        path.write_text(yaml.safe_dump(rewritten(yaml.safe_load(path.read_text()), name), sort_keys=False))
    return folder


def autograder(folder: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("AUTOGRADER_ROOT", "AUTOGRADER_PORTABLE")}
    env["PYTHONPATH"] = str(folder)  # the copy's framework, not the checkout's
    env["COLUMNS"] = "200"  # rich wraps its lines at the terminal width
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=cwd or folder, env=env,
                          capture_output=True, text=True, timeout=600)  # fmt: skip


def ran(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 0 and "Traceback" not in done.stderr + done.stdout, done.stdout + done.stderr
    return done.stdout


@pytest.mark.parametrize("name", ["word2vec", "parser"])
def test_every_command_works_with_every_option(name, checkout, tmp_path):
    config = AssignmentConfig.model_validate(
        yaml.safe_load((checkout / "autograder" / "assignments" / name / "config.yaml").read_text()))
    auto = [q for q in config.manual_questions if q.auto_grade]
    assert auto, "the rewritten config auto-grades no question"

    ran(autograder(checkout, "grade", name, f"solutions/{name}", "--results", str(tmp_path / "full.json")))
    full = json.loads((tmp_path / "full.json").read_text())
    assert full["score"] == pytest.approx(config.graded_points)  # the auto-graded derivations score too
    assert {f"{q.id}.1" for q in auto} <= {t["number"] for t in full["tests"]}
    assert {t["visibility"] for t in full["tests"] if not t["number"].startswith(tuple(q.id for q in auto))} <= {
        "after_published", "hidden"}

    ran(autograder(checkout, "grade", name, f"solutions/{name}", "--public-only", "--results",
                   str(tmp_path / "public.json")))
    public = json.loads((tmp_path / "public.json").read_text())
    assert all(t["score"] == t["max_score"] for t in public["tests"])

    bundle = tmp_path / "bundle"
    ran(autograder(checkout, "release", name, "--out", str(bundle), "--without-data"))
    for file in config.submission_files:
        shutil.copy(checkout / "solutions" / name / file, bundle / file)
    checked = ran(autograder(bundle, "check", name, cwd=bundle))
    assert "failed" not in checked.split("Total:")[0], checked
    assert f"{sum(q.points for q in auto):g} points of written answers checked by machine" in checked, checked

    ran(autograder(checkout, "build", name, "--out", str(tmp_path / f"{name}.zip")))
    assert (tmp_path / f"{name}.zip").stat().st_size > 0


def test_a_broken_config_lists_every_problem_with_its_line(tmp_path):
    """Issue 26: an authoring error names the file, the line, the offending value and the fix; every
    problem at once, before anything is graded."""
    from autograder.core.config import ConfigError, load_config

    text = (REPO_ROOT / "autograder" / "assignments" / "word2vec" / "config.yaml").read_text()
    first = next(line for line in text.splitlines() if line.startswith("  - {id: \"1a\""))
    broken = tmp_path / "config.yaml"
    broken.write_text(text.replace(first, first.replace("points: 4", "points: -4").replace("}", ", time_limt: 9}")))
    with pytest.raises(ConfigError) as refused:
        load_config(broken)
    line = text.splitlines().index(first) + 1
    message = str(refused.value)
    assert "2 problem(s)" in message
    assert f"{broken}:{line}: questions.0.points: Input should be greater than 0 (got -4)" in message
    assert f"{broken}:{line}: questions.0.time_limt: Extra inputs are not permitted (got 9)" in message
    total = next(n for n, l in enumerate(text.splitlines(), 1) if l.startswith("total_points"))
    broken.write_text(text.replace("total_points: 40", "total_points: 41"))
    with pytest.raises(ConfigError, match=rf"config.yaml:{total}: the config: question points add up to 40, but "
                                          r"total_points is 41; change one of them"):
        load_config(broken)
