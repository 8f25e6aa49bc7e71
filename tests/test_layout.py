"""The framework's layout reads as its architecture: packages by role that import each other in one
direction only, the untrusted worker importing nothing of the grader but the shared contract, no
two modules of one name, and a docstring saying what each module and package owns."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest

from autograder.core.config import PACKAGE_ROOT

pytestmark = pytest.mark.smoke  # also run on Python 3.10 and the newest Python (.ci/run)


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE_ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in PACKAGE_ROOT.rglob("*.py") if "__pycache__" not in p.parts}


def _imports(name: str, path: Path) -> set[str]:
    """The framework's modules that ``name`` imports, anywhere in it (a function's import too)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found |= {f"{node.module}.{alias.name}" for alias in node.names} | {node.module}
    return {m for m in found if m in MODULES and m != name and m != "autograder"}


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _package(module: str) -> str:
    """The package of a module below autograder/ (``autograder.grading``), or the module at the top."""
    parts = module.split(".")
    return ".".join(parts[:2])


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph``, as the nodes along it, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for after in sorted(graph.get(node, ())):
            if state.get(after) == 1:
                return path[path.index(after) :] + [after]
            if after not in state and (found := visit(after)):
                return found
        state[node] = 2
        path.pop()
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return None


def test_no_module_imports_itself_through_others():
    assert _cycle(GRAPH) is None


def test_packages_import_each_other_in_one_direction_only():
    packages: dict[str, set[str]] = {}
    for module, imported in GRAPH.items():
        packages.setdefault(_package(module), set()).update(
            _package(m) for m in imported if _package(m) != _package(module)
        )
    assert _cycle(packages) is None


def test_the_worker_imports_nothing_of_the_grader_but_the_contract():
    """The worker runs the student's code: of the trusted side it may read only what both sides share."""
    outside = {
        (module, imported)
        for module, imports in GRAPH.items()
        if _package(module) == "autograder.worker"
        for imported in imports
        if _package(imported) not in {"autograder.worker", "autograder.contract"}
    }
    assert outside == set()


def test_the_contract_imports_nothing_but_itself():
    """Else the worker would reach the trusted side through it."""
    assert {
        (module, imported)
        for module, imports in GRAPH.items()
        if _package(module) == "autograder.contract"
        for imported in imports
        if _package(imported) != "autograder.contract"
    } == set()


def test_the_trusted_side_never_imports_the_worker_to_start_it():
    """The grader names the worker's entry points as text (autograder.contract.launch)."""
    assert {
        m
        for m in GRAPH
        if _package(m) in {"autograder.boundary", "autograder.contract"}
        and any(_package(i) == "autograder.worker" for i in GRAPH[m])
    } == set()


def test_the_grader_shares_with_the_worker_only_the_probes():
    """What both sides need of a helper call (autograder.contract.state_sync) is the contract's; the
    probes are test code that runs on the reference here and on the student's code there."""
    reached = {
        (module, imported)
        for module, imports in GRAPH.items()
        if not module.startswith("autograder.worker")
        for imported in imports
        if imported.startswith("autograder.worker")
    }
    assert {imported for _, imported in reached} <= {"autograder.worker", "autograder.worker.probes"}


def test_no_two_modules_share_a_name():
    names = Counter(path.stem for path in MODULES.values() if path.stem != "__init__")
    shared = {name for name, count in names.items() if count > 1}
    allowed = {"hidden_tests", "public_tests", "fixtures", "support", "handout", "reference_formulas"}  # one per assignment
    assert shared - allowed == set()


def test_every_module_and_package_says_what_it_owns():
    undocumented = [
        name
        for name, path in MODULES.items()
        if path.read_text(encoding="utf-8").strip()
        and ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) is None
        and not name.startswith("autograder.assignments.")
    ]
    packages = [p for p in PACKAGE_ROOT.iterdir() if p.is_dir() and (p / "__init__.py").exists()]
    empty = [p.name for p in packages if not (p / "__init__.py").read_text().strip()]
    assert undocumented == [] and empty == []
