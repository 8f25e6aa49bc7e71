"""Gradescope's ``results.json``, as pydantic models, and the only code that writes it.

Follows the Gradescope autograder specification: numeric ``execution_time``, a top-level ``score``,
and per test ``name``, ``number``, ``score``, ``max_score``, ``status``, ``output``, ``tags``,
``visibility``. Files are written atomically (temporary file, then rename), so a reader never sees
half a file; :func:`write_atomically` does the same for the other files the grader writes.
"""

from __future__ import annotations

import json
import math
import os
import stat
import tempfile
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from autograder.core.config import Visibility
from autograder.core.errors import AutograderError
from autograder.core.safe_files import mode_at

OutputFormat = Literal["text", "html", "simple_format", "md", "ansi"]


class UnsafeDestination(AutograderError):
    """A file the grader was asked to write is something else (a device, a link, a folder)."""


class TestResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    number: str
    score: float
    max_score: float = Field(ge=0)
    status: Literal["passed", "failed"]
    output: str = ""
    output_format: OutputFormat = "text"
    tags: list[str] = Field(default_factory=list)
    visibility: Visibility = "visible"
    extra_data: dict = Field(default_factory=dict)

    @field_validator("score")
    @classmethod
    def _finite(cls, value: float) -> float:
        if not math.isfinite(value):
            raise ValueError("score must be a finite number")
        return value

    @model_validator(mode="after")
    def _within_max(self) -> TestResult:
        if not 0 <= self.score <= self.max_score + 1e-9:
            raise ValueError(f"score {self.score} outside [0, {self.max_score}] in {self.name!r}")
        return self


class GradescopeResults(BaseModel):
    model_config = ConfigDict(extra="forbid")

    score: float
    execution_time: float = Field(ge=0)
    output: str = ""
    output_format: OutputFormat = "text"
    visibility: Visibility | None = None
    stdout_visibility: Visibility | None = None
    tests: list[TestResult]
    extra_data: dict = Field(default_factory=dict)

    @model_validator(mode="after")
    def _score_is_sum(self) -> GradescopeResults:
        total = sum(t.score for t in self.tests)
        if not math.isclose(total, self.score, abs_tol=1e-6):
            raise ValueError(f"top-level score {self.score} differs from the sum of tests {total}")
        return self

    @property
    def max_score(self) -> float:
        # Rounded as the score is: equal shares of a question's points sum inexactly in floats.
        return round(math.fsum(t.max_score for t in self.tests), 9)


def write_results(results: GradescopeResults, path: Path) -> None:
    """Validate and write ``results`` to ``path`` atomically."""
    text = GradescopeResults.model_validate(results.model_dump()).model_dump_json(indent=2, exclude_none=True)
    write_atomically(path, text + "\n")


def write_atomically(path: Path, content: str | bytes) -> None:
    """Write ``content`` to ``path`` through a temporary file and a rename: never half a file."""
    path = Path(path)
    _check_destination(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.stem}-", suffix=path.suffix, dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(content.encode("utf-8") if isinstance(content, str) else content)
        os.chmod(temporary, 0o644)  # mkstemp makes it private; TAs and Gradescope read it
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def _check_destination(path: Path) -> None:
    """The rename replaces whatever is at ``path``: refuse anything but a regular file, or else
    ``--results /dev/null`` as root would replace the machine's /dev/null with a regular file."""
    mode = mode_at(path)
    if mode is not None and not stat.S_ISREG(mode):
        raise UnsafeDestination(
            f"{path} exists and is not a regular file (a device, a link or a "
            "folder), and writing would replace it; choose another path, for "
            "example a file in a folder of your own"
        )


def read_results(path: Path) -> GradescopeResults:
    # UTF-8, as write_atomically wrote it, not the locale's encoding (a Windows code page)
    return GradescopeResults.model_validate(json.loads(Path(path).read_text(encoding="utf-8")))
