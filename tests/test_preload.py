"""What the fork server imports in advance: the libraries trusted files import, never a file of theirs,
never a module only a submission names; and what the workers see of it."""

from __future__ import annotations

import textwrap

from autograder.core.config import Limits, load_assignment
from autograder.boundary.fork_client import ForkServer
from autograder.grading.grade import module_names
from autograder.boundary.preload import library_imports
from autograder.boundary.session import WorkerSession, WorkerSpec


def _write(folder, files: dict[str, str]) -> None:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(textwrap.dedent(text))


def test_libraries_imported_at_the_top_level_directly_or_through_local_modules(tmp_path):
    reference, given = tmp_path / "reference", tmp_path / "given"
    _write(reference, {"solver.py": """
        from __future__ import annotations
        import json, os.path
        from collections import abc
        from helpers.tools import scale
        from . import sibling

        def solve():
            import wave  # inside a function: not imported when the module is
        """})
    _write(given, {"helpers/__init__.py": "", "helpers/tools.py": "import statistics\nfrom helpers import x\n"})
    found = library_imports([reference, given], ["solver", "missing_module"])
    assert found == ["collections", "json", "os.path", "statistics"]


def test_only_modules_found_in_the_trusted_folders_are_read(tmp_path):
    assert library_imports([tmp_path], ["antigravity", "json"]) == []  # names alone are not imported


def test_the_references_libraries_include_what_the_parser_needs():
    parser = load_assignment("parser")
    found = library_imports([parser.solution_dir, parser.starter_dir], module_names(parser.config))
    assert {"numpy", "tqdm", "conllu"} <= set(found)
    assert "matplotlib" not in found  # run.py imports it only when it plots, which grading never does
    assert not set(found) & set(module_names(parser.config)) and "utils" not in {n.split(".")[0] for n in found}


def test_workers_find_preloaded_libraries_already_imported(tmp_path):
    _write(tmp_path, {"mod.py": """
        import sys

        def loaded(name):
            return name in sys.modules
        """})
    spec = WorkerSpec({"mod.py": tmp_path / "mod.py"}, None, Limits())
    with ForkServer(spec.isolation.python, None, ["wave", "no_such_library"]) as server:
        with WorkerSession(spec, 20, "1", forkserver=server) as worker:
            assert worker.call("mod.loaded", "wave").value  # a library that fails does not stop the rest
    with WorkerSession(spec, 20, "1") as worker:
        assert not worker.call("mod.loaded", "wave").value
