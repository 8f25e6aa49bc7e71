"""Loads the reference solution into the grader process, trusted and isolated by name.

The reference modules have the same names as the student's (``word2vec``, ``utils``...), and two
assignments may both have a ``utils`` package. They are imported with their folder first on
``sys.path`` and removed from ``sys.modules`` afterwards, so nothing else resolves to them by name;
the returned namespace keeps them alive.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

from autograder.core.config import ConfigError


@contextmanager
def importable(directory: Path) -> Iterator[None]:
    """Modules in ``directory`` can be imported by name inside the block; after it, every module
    imported from there is gone from ``sys.modules`` (whoever holds one keeps it alive)."""
    # absolute(), not resolve(): a symlinked given file (utils/sanity.py) must still count as
    # inside this folder, or its module would stay behind in sys.modules.
    directory = Path(directory).absolute()
    before = set(sys.modules)
    sys.path.insert(0, str(directory))
    try:
        yield
    finally:
        sys.path.remove(str(directory))
        for name in set(sys.modules) - before:
            origin = getattr(sys.modules[name], "__file__", None) or ""
            if Path(origin).absolute().is_relative_to(directory):
                del sys.modules[name]


def load_reference(directory: Path, module_names: list[str]) -> SimpleNamespace:
    if not Path(directory).is_dir():
        raise ConfigError(
            f"reference solution folder {directory} is missing; grading needs the "
            "solutions/ folder next to autograder/ (is this a student bundle?)"
        )
    with importable(directory):
        return SimpleNamespace(**{name: importlib.import_module(name) for name in module_names})
