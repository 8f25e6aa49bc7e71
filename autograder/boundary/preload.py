"""What the fork server imports before it forks any worker, so that no worker imports it again.

Workers are forks of the fork server (:mod:`autograder.boundary.fork_client`), so a library it has imported is
already there in every worker. Which libraries: those the reference solution's submitted modules
import at their top level, directly or through the given support files, from the standard library
or installed packages; a correct submission imports the same. The files are read, not imported: the
fork server never holds any of the reference, only the libraries it names, and never anything a
submission names.
"""

from __future__ import annotations

import ast
from pathlib import Path


def _top_level_imports(file: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.parse(file.read_bytes(), str(file)).body:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module != "__future__":
            found.add(str(node.module))
    return found


def _local(roots: list[Path], name: str) -> tuple[bool, Path | None]:
    """Whether module ``name`` lies in one of the ``roots``, and its file if there is one."""
    parts = name.split(".")
    is_local = False
    for root in roots:
        is_local = is_local or (root / f"{parts[0]}.py").is_file() or (root / parts[0]).is_dir()
        for file in (root.joinpath(*parts[:-1], f"{parts[-1]}.py"), root.joinpath(*parts, "__init__.py")):
            if file.is_file():
                return True, file
    return is_local, None


def library_imports(roots: list[Path], modules: list[str]) -> list[str]:
    """The modules outside the folders ``roots`` that ``modules`` (those of them in ``roots``) import
    at their top level, directly or through other modules in ``roots``."""
    todo = [(name, True) for name in modules]
    seen: set[str] = set()
    libraries: set[str] = set()
    while todo:
        name, requested = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        is_local, file = _local(roots, name)
        if file is not None:
            todo += [(imported, False) for imported in _top_level_imports(file)]
        elif not is_local and not requested:
            libraries.add(name)
    return sorted(libraries)
