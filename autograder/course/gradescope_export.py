"""Reads a Gradescope "Export Submissions" folder: ``submission_metadata.yml`` plus one folder per submission.

The zip Gradescope produces unpacks to ``assignment_<id>_export/``, which holds
``submission_metadata.yml`` and a ``submission_<id>/`` folder with each submission's files. The
metadata is YAML written by Ruby, so its keys carry a leading colon (``:submitters:``)::

    submission_132970515:
      :submitters:
      - :name: Ada Lovelace
        :sid: '222334'
        :email: ada@example.edu
      :created_at: 2022-09-10 23:47:27.018556000 Z
      :score: 32.0
      :status: processed
      :results: {...}      # the results.json Gradescope had; ignored here
      :history: [...]      # earlier submissions; ignored here

Only what grading and the gradebook need is checked (who submitted, which folder); every other key
is allowed and ignored, so a new Gradescope field does not break a regrade.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, RootModel, ValidationError, field_validator, model_validator

from autograder.core.errors import AutograderError

METADATA_FILE = "submission_metadata.yml"
# Keys become folder names under the grader's output folder: nothing that could climb out of it.
_FOLDER_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")


class ExportError(AutograderError):
    """The folder is not a readable Gradescope export; the message says what to do."""


class _RubyKeys(BaseModel):
    """Accepts Ruby-symbol keys (``:name``) as well as plain ones, and ignores unknown keys."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _strip_colons(cls, data: Any) -> Any:
        if isinstance(data, dict):
            return {k[1:] if isinstance(k, str) and k.startswith(":") else k: v for k, v in data.items()}
        return data


class Submitter(_RubyKeys):
    name: str = Field(min_length=1)
    sid: str | None = None
    email: str | None = None

    @field_validator("sid", mode="before")
    @classmethod
    def _sid_as_text(cls, value: Any) -> Any:
        # An unquoted numeric SID loads as an int; it is an identifier, so keep its digits as text.
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


class ExportedSubmission(_RubyKeys):
    submitters: list[Submitter] = Field(min_length=1)
    created_at: datetime | None = None
    score: float | None = Field(None, description="the score Gradescope had when it exported")


class ExportMetadata(RootModel[dict[str, ExportedSubmission]]):
    @field_validator("root")
    @classmethod
    def _folder_names(cls, value: dict[str, ExportedSubmission]) -> dict[str, ExportedSubmission]:
        for name in value:
            if not _FOLDER_NAME.match(name):
                raise ValueError(f"{name!r} is not a submission folder name (such as submission_12345)")
        return value


@dataclass(frozen=True)
class ExportEntry:
    """One submission of the export: its folder name, where its files are, and who submitted it."""

    name: str
    folder: Path
    metadata: ExportedSubmission


@dataclass(frozen=True)
class Export:
    root: Path
    entries: list[ExportEntry]
    unlisted: list[str]  # folders in the export that the metadata does not mention


def _metadata_root(path: Path) -> Path:
    """``path`` itself, or the single folder inside it that the zip unpacked to."""
    if (path / METADATA_FILE).is_file():
        return path
    inner = [p for p in path.iterdir() if p.is_dir() and (p / METADATA_FILE).is_file()]
    if len(inner) == 1:
        return inner[0]
    hint = (
        "several folders inside it have one; pass one of them"
        if inner
        else "pass the folder that Gradescope's 'Export Submissions' zip unpacks to "
        "(assignment_<id>_export/, the one with submission_metadata.yml in it)"
    )
    raise ExportError(f"{path} is not a Gradescope export: it has no {METADATA_FILE}; {hint}")


def load_export(path: Path) -> Export:
    """The export at ``path`` (or in the one folder inside it); ExportError says what to pass instead."""
    path = Path(path)
    if path.is_file() and path.suffix == ".zip":
        raise ExportError(f"{path} is the zip itself; unpack it first (unzip {path} -d DIR) and pass DIR")
    if not path.is_dir():
        raise ExportError(f"export folder {path} does not exist")
    root = _metadata_root(path)
    source = root / METADATA_FILE
    try:
        data = yaml.safe_load(source.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ExportError(f"cannot read {source}: {exc}") from None
    if not isinstance(data, dict) or not data:
        raise ExportError(
            f"{source} lists no submissions; it should map each submission folder "
            "(submission_12345:) to its :submitters:"
        )
    try:
        metadata = ExportMetadata.model_validate(data).root
    except ValidationError as exc:
        raise ExportError(f"{source} is not in Gradescope's format:\n{exc}") from None
    folders = {p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith((".", "__MACOSX"))}
    entries = [ExportEntry(name, root / name, entry) for name, entry in metadata.items()]
    return Export(root=root, entries=entries, unlisted=sorted(folders - set(metadata)))
