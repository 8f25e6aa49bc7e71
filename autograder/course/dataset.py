"""The public data an assignment's run.py trains on, shipped in the student bundle with its licence.

UD English-EWT is CC BY-SA 4.0: it may be passed on, with its licence, its authors' notice and where
it comes from. ``release`` copies the files run.py reads, the licence and the notices from the data
folder into the bundle's ``data/FOLDER/`` and writes ``SOURCE.md`` beside them; run.py looks there
first, so a student needs no download. The repository itself never holds the data: it is read from
a path (``--data``, the config's environment variable, or ``shared/data/FOLDER`` above the repository).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from autograder.core.config import PACKAGE_ROOT, Dataset
from autograder.core.errors import AutograderError


class DatasetError(AutograderError):
    """The dataset cannot be found or is incomplete; the message says what to do."""


def shared_folder(dataset: Dataset) -> Path:
    """Where the dataset lies relative to a folder above the repository, on the machines this project
    is developed on."""
    return Path("shared") / "data" / dataset.folder


def locate(dataset: Dataset) -> Path | None:
    """The folder the config's environment variable names, else the nearest ``shared/data/FOLDER``
    above the repository (the layout of the machines this project is developed on), else None."""
    if os.environ.get(dataset.environment):
        return Path(os.environ[dataset.environment])
    found = [p / shared_folder(dataset) for p in PACKAGE_ROOT.parents]
    return next((p for p in found if p.is_dir()), None)


def find_dataset(dataset: Dataset, given: Path | None = None) -> Path:
    """``given``, else :func:`locate`'s folder, checked to hold every file the bundle ships."""
    given = given or locate(dataset)
    if given is None:
        raise DatasetError(
            f"cannot find {dataset.title}, which the bundle ships for run.py: pass "
            f"--data DIR (the folder with {dataset.files[0]}), set {dataset.environment}, "
            "or release --without-data (students then download it themselves)"
        )
    missing = [name for name in needed_files(dataset) if not (given / name).is_file()]
    if missing:
        raise DatasetError(
            f"{given} lacks {', '.join(missing)} of {dataset.title} (its licence, "
            f"{dataset.licence}, travels with the data): pass --data DIR with all of them, "
            "or release --without-data"
        )
    return given


def needed_files(dataset: Dataset) -> list[str]:
    return [*dataset.files, dataset.licence_file, *dataset.notices]


def source_notice(dataset: Dataset) -> str:
    """SOURCE.md: what the data is, where it comes from, under which licence (CC BY asks for all three)."""
    return (
        f"# {dataset.title}\n\n"
        f"From {dataset.source}, not modified by this course, under the {dataset.licence} licence "
        f"({dataset.licence_file}).\n"
        f"Its authors and how to cite it: {', '.join(dataset.notices) or dataset.source}.\n\n"
        f"Files: {', '.join(dataset.files)}.\n"
    )


def copy_dataset(dataset: Dataset, source: Path, out: Path) -> list[Path]:
    """Copy the dataset from ``source`` into ``out/data/FOLDER``; returns the files written."""
    target = out / "data" / dataset.folder
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name in needed_files(dataset):
        written.append(Path(shutil.copyfile(source / name, target / name)))
    (target / "SOURCE.md").write_text(source_notice(dataset), encoding="utf-8")
    return written + [target / "SOURCE.md"]
