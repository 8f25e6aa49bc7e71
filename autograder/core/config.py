"""The one place where an assignment's questions, points, time limits and files are declared.

Each assignment has ``autograder/assignments/<name>/config.yaml``, validated by
:class:`AssignmentConfig`. A config whose points do not add up, whose ids repeat, or that names a
missing file is rejected with a message that says what to fix.
"""

from __future__ import annotations

import importlib
import math
import re
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from autograder.core.errors import AutograderError

Visibility = Literal["hidden", "after_due_date", "after_published", "visible"]
HiddenVisibility = Literal["hidden", "after_due_date", "after_published"]

PACKAGE_ROOT = Path(__file__).resolve().parent.parent  # the autograder package
REPO_ROOT = PACKAGE_ROOT.parent
_QUESTION_ID = re.compile(r"^[0-9]+[a-z]?$")
# The public tests' expected values, recorded by `release` into the student bundle (which has no
# reference solution); its presence is what marks a bundle.
RECORDING_FILE = "public_expected.agw"
# Files of an assignment's folder that only staff and Gradescope have: never in the student bundle.
STAFF_ONLY_FILES = frozenset({"hidden_tests.py", "reference_formulas.py"})
# Written questions add a part in roman numerals to the question they belong to ("2a-i"), or
# stand alone with a letter of their own ("2e").
_WRITTEN_ID = re.compile(r"^[0-9]+[a-h](-(i|ii|iii|iv|v|vi|vii|viii|ix|x))?$")


class ConfigError(AutograderError):
    """An assignment config or test suite is inconsistent; the message says what to change."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Limits(_Strict):
    """Resource limits of the worker process that runs student code."""

    memory_mb: int = Field(
        1024,
        ge=128,
        description="memory of a question: the address-space limit of each of its processes, and "
        "the budget of all of them together (autograder/contract/memory_cgroup.py)",
    )
    file_size_mb: int = Field(256, ge=1, description="largest file (or captured output) it may write")
    disk_mb: int = Field(
        128,
        ge=1,
        description="what a question's code may keep in its folder (a tmpfs of this size where the worker "
        "has a view of its own; else watched): writes past it fail, or stop the question",
    )
    disk_files: int = Field(2000, ge=64, description="files and folders a question's code may keep in its folder")
    processes: int = Field(32, ge=1, description="extra processes and threads it may start")
    open_files: int = Field(256, ge=16)
    reply_mb: int = Field(64, ge=1, description="largest reply (return values) accepted from it")
    reply_json_mb: int = Field(
        4,
        ge=1,
        description="largest part of a reply that is not numpy arrays (lists, numbers, "
        "strings), refused before it is read: the grader decodes it into an "
        "object per value, while arrays count toward reply_mb only",
    )
    output_kb: int = Field(8, ge=1, description="printed output kept per call in the feedback")
    tmp_mb: int = Field(
        64,
        ge=1,
        description="size of each of the worker's private /tmp, /var/tmp and "
        "/dev/shm (memory; only where the worker has a view of its own)",
    )
    import_time_limit: float = Field(
        10.0,
        gt=0,
        le=120,
        description="seconds to import all submitted modules once, before the "
        "questions (a module that hangs fails its questions at once)",
    )


class Question(_Strict):
    id: str = Field(description="short id such as '2b'; test numbers start with it")
    title: str
    points: float = Field(gt=0)
    kind: Literal["code", "written"] = Field(
        "code", description="'written': an answer in the student's written answers, graded by tests"
    )
    time_limit: float = Field(30.0, gt=0, le=600, description="seconds for all of its calls together")
    visibility: Visibility = Field("visible", description="Gradescope visibility of its public tests")
    hidden_visibility: HiddenVisibility = Field(
        "after_due_date", description="Gradescope visibility of its hidden tests"
    )
    owns: list[str] = Field(
        default_factory=list,
        description="student functions ('module.function', 'module.Class.method') this question "
        "grades, where the first question whose tests name them is not the one "
        "(see autograder.grading.ownership)",
    )

    @model_validator(mode="after")
    def _id_shape(self) -> Question:
        if self.kind == "code" and not _QUESTION_ID.match(self.id):
            raise ValueError(f"question id {self.id!r} must look like '1', '2b' (digits, optional letter)")
        if self.kind == "written":
            _check_written_id(self.id)
        return self


class ManualQuestion(_Strict):
    """A written question graded by hand from the exported answers; not part of results.json."""

    id: str = Field(description="'2b-ii' (part ii of question 2b) or '2e' (a written question of its own)")
    title: str
    points: float = Field(gt=0)
    auto_grade: bool = Field(
        False,
        description="score it by the machine's verdict on its final formula (DERIVATIONS in handout.py): "
        "all its points when equal to the reference's, else 0; results.json then holds its points too",
    )

    @field_validator("id")
    @classmethod
    def _id_shape(cls, value: str) -> str:
        return _check_written_id(value)


def _check_written_id(value: str) -> str:
    if not _WRITTEN_ID.match(value):
        raise ValueError(
            f"written question id {value!r} must look like '2a-i' (question, part in roman "
            "numerals) or '2e' (digits and a letter a-h)"
        )
    return value


class Dataset(_Strict):
    """Public data the assignment's run.py trains on, shipped in the student bundle with its licence
    (``release`` copies it into ``data/FOLDER/``; run.py looks there first)."""

    folder: str = Field(pattern=r"^[a-z0-9][a-z0-9._-]*$", description="its folder name, here and in the bundle")
    title: str
    files: list[str] = Field(min_length=1, description="the files run.py reads")
    licence: str = Field(description="the licence's name, e.g. 'CC BY-SA 4.0'")
    licence_file: str = Field("LICENSE.txt", description="the licence's text, in the data folder")
    notices: list[str] = Field(
        default_factory=list, description="more files of the data folder the licence asks to keep (authors, citation)"
    )
    source: str = Field(description="where it comes from (a URL)")
    environment: str = Field(description="the environment variable that points run.py at the folder")


class AssignmentConfig(_Strict):
    name: str
    title: str
    total_points: float = Field(gt=0)
    submission_files: list[str] = Field(min_length=1, description="files students submit")
    support_files: list[str] = Field(
        default_factory=list,
        description="files or folders of the starter bundle the student's code needs (given helpers)",
    )
    release_exclude: list[str] = Field(
        default_factory=list, description="glob patterns of solutions/ files that are never released"
    )
    limits: Limits = Limits()
    questions: list[Question] = Field(min_length=1, description="everything results.json scores")
    manual_questions: list[ManualQuestion] = Field(
        default_factory=list, description="written questions graded by hand (see export-written)"
    )
    answer_files: list[str] = Field(
        default_factory=list, description="where students may put their written answers (one of them)"
    )
    dataset: Dataset | None = Field(None, description="the data run.py trains on, shipped in the bundle")
    units: list[list[str]] = Field(
        default_factory=list,
        description="student functions that share private state (a cache whose layout is the student's), "
        "so that error carried forward replaces them together or not at all; forward/backward pairs "
        "(relu_forward with relu_backward, Model.forward with Model.backward) are units by their names",
    )

    @model_validator(mode="after")
    def _consistent(self) -> AssignmentConfig:
        ids = [q.id for q in self.questions] + [q.id for q in self.manual_questions]
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            raise ValueError(f"question ids repeat: {', '.join(duplicates)}")
        total = sum(q.points for q in self.questions)
        if not math.isclose(total, self.total_points, abs_tol=1e-9):
            raise ValueError(
                f"question points add up to {total:g}, but total_points is {self.total_points:g}; change one of them"
            )
        owned = [f for q in self.questions for f in q.owns]
        twice = sorted({f for f in owned if owned.count(f) > 1})
        if twice:
            raise ValueError(f"more than one question owns {', '.join(twice)}; a function has one owner")
        if self.written_questions and not self.answer_files:
            raise ValueError(
                "written questions need answer_files: the files students answer in "
                "(for example [written.md, NAME.ipynb])"
            )
        return self

    @property
    def written_questions(self) -> list[Question | ManualQuestion]:
        """Every written question: those graded by tests, then those graded by hand."""
        return [q for q in self.questions if q.kind == "written"] + list(self.manual_questions)

    @property
    def scored_questions(self) -> list[Question | ManualQuestion]:
        """What results.json scores: the questions, then the written questions auto-graded."""
        return [*self.questions, *(q for q in self.manual_questions if q.auto_grade)]

    @property
    def grades_written(self) -> bool:
        """Whether results.json scores written answers: questions of kind written, or auto-graded."""
        return any(q.kind == "written" for q in self.questions) or any(q.auto_grade for q in self.manual_questions)

    @property
    def graded_points(self) -> float:
        """What results.json can hold: the questions' points and those of written questions auto-graded."""
        return sum(q.points for q in self.scored_questions)

    def question(self, question_id: str) -> Question:
        for question in self.questions:
            if question.id == question_id:
                return question
        raise KeyError(question_id)


@dataclass(frozen=True)
class Assignment:
    """An assignment's config plus where its parts live."""

    config: AssignmentConfig
    root: Path

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def package(self) -> str:
        return f"autograder.assignments.{self.name}"

    @property
    def fixtures_module(self) -> str | None:
        """The module of the assignment's public fixtures, or None where it has no fixtures.py."""
        has = (PACKAGE_ROOT / "assignments" / self.name / "fixtures.py").is_file()
        return f"{self.package}.fixtures" if has else None

    @property
    def test_modules(self) -> dict[str, str]:
        return {"public": f"{self.package}.public_tests", "hidden": f"{self.package}.hidden_tests"}

    @property
    def solution_dir(self) -> Path:
        return self.root / "solutions" / self.name

    @property
    def recording(self) -> Path:
        return self.root / "autograder" / "assignments" / self.name / RECORDING_FILE

    @property
    def in_bundle(self) -> bool:
        """True in a student bundle: no solutions/, the starter files at its top (see bundle.py)."""
        return self.recording.is_file()

    @property
    def starter_dir(self) -> Path:
        return self.root if self.in_bundle else self.root / "assignment" / self.name


def available_assignments() -> list[str]:
    base = PACKAGE_ROOT / "assignments"
    return sorted(p.parent.name for p in base.glob("*/config.yaml"))


def load_config(path: Path) -> AssignmentConfig:
    try:
        text = path.read_text(encoding="utf-8")  # not the locale's: a Windows code page
        return AssignmentConfig.model_validate(yaml.safe_load(text))
    except FileNotFoundError:
        raise ConfigError(f"no config at {path}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"invalid assignment config {path}:\n{exc}") from None
    except ValidationError as exc:
        root = yaml.compose(text)  # the nodes, with the line each starts on
        problems = [_located(error, root, path) for error in exc.errors()]
        raise ConfigError(
            f"invalid assignment config {path}: {len(problems)} problem(s):\n  " + "\n  ".join(problems)
        ) from None


def _located(error: Any, root: yaml.Node | None, path: Path) -> str:
    """A validation error as ``path:line: where: what (got value)``: the line of the YAML node its
    location names, the nearest one that exists (an extra key's own line, a missing one's parent)."""
    node = root
    message = str(error["msg"]).removeprefix("Value error, ")
    keys = [k.value for k, _ in node.value] if isinstance(node, yaml.MappingNode) else []
    # A rule over the whole config names the key it is about ("total_points is 7"): that key's line.
    steps = error["loc"] or next(((key,) for key in keys if re.search(rf"\b{re.escape(key)}\b", message)), ())
    for step in steps if node is not None else ():
        children = dict((k.value, v) for k, v in node.value) if isinstance(node, yaml.MappingNode) else None
        if children is not None and step in children:
            node = children[step]
        elif isinstance(node, yaml.SequenceNode) and isinstance(step, int) and step < len(node.value):
            node = node.value[step]
        else:
            break
    where = ".".join(str(step) for step in error["loc"]) or "the config"
    got = f" (got {error['input']!r})" if error["type"] != "missing" and not isinstance(error["input"], dict) else ""
    line = node.start_mark.line + 1 if node is not None else 1
    return f"{path}:{line}: {where}: {message}{got}"


def load_assignment(name: str, root: Path | None = None) -> Assignment:
    """The assignment called ``name``; ``root`` holds ``solutions/`` and ``assignment/``."""
    known = available_assignments()
    if name not in known:
        raise ConfigError(f"unknown assignment {name!r}; choose one of: {', '.join(known) or 'none'}")
    config = load_config(PACKAGE_ROOT / "assignments" / name / "config.yaml")
    if config.name != name:
        raise ConfigError(f"assignments/{name}/config.yaml says name: {config.name!r}; they must agree")
    return Assignment(config=config, root=(root or REPO_ROOT).resolve())


def optional_module(name: str) -> ModuleType | None:
    """The module ``name`` of an assignment (its tests, handout data, reference formulas), or None
    when the assignment has no such file: in the bundle, neither the hidden tests nor the reference
    formulas are there."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name and name.startswith(exc.name):
            return None
        raise  # the file is there, but imports a module that is not
