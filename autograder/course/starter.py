"""Generates the student starter from the reference solution.

In ``solutions/<assignment>/`` every piece of code students write sits between two marker lines::

        ### BEGIN SOLUTION
        ...
        ### END SOLUTION

``release`` replaces each such block by a stub at the same indentation that says how long the
reference is and raises ``NotImplementedError``, copies everything else unchanged, and checks that
what it wrote still compiles and holds no trace of a solution.
"""

from __future__ import annotations

import fnmatch
import re
import shutil
from pathlib import Path

from autograder.core.config import Assignment
from autograder.core.errors import AutograderError

BEGIN = re.compile(r"^(?P<indent>[ \t]*)### BEGIN SOLUTION\b.*$")
END = re.compile(r"^(?P<indent>[ \t]*)### END SOLUTION\b.*$")
_DEF = re.compile(r"^(?P<indent>[ \t]*)(?:async\s+)?def\s+(?P<name>\w+)\s*\(")
_CLASS = re.compile(r"^(?P<indent>[ \t]*)class\s+(?P<name>\w+)\b")
_ALWAYS_SKIPPED = ["__pycache__", "*.pyc", ".pytest_cache", "*.egg-info"]


class ReleaseError(AutograderError):
    """The reference cannot be turned into a starter; the message names the file and line."""


def _enclosing_function(lines: list[str], index: int, indent: str) -> str:
    """Qualified name of the function whose body holds line ``index`` (``Class.method``)."""
    names: list[str] = []
    limit = len(indent)
    for line in reversed(lines[:index]):
        match = _DEF.match(line) or _CLASS.match(line)
        if match and len(match["indent"]) < limit:
            names.append(match["name"])
            limit = len(match["indent"])
            if limit == 0:
                break
    return ".".join(reversed(names))


def _stub(indent: str, block: list[str], function: str) -> list[str]:
    code_lines = sum(1 for line in block if line.strip() and not line.strip().startswith("#"))
    noun = "line" if code_lines == 1 else "lines"
    what = f"{function} is" if function else "this part is"
    return [
        f"{indent}### YOUR CODE HERE (about {code_lines} {noun})\n",
        f'{indent}raise NotImplementedError("{what} not implemented yet")\n',
        f"{indent}### END YOUR CODE\n",
    ]


def strip_solutions(text: str, filename: str = "<source>") -> str:
    """``text`` with every solution block replaced by a stub."""
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    index = 0
    while index < len(lines):
        begin = BEGIN.match(lines[index])
        if END.match(lines[index]):
            raise ReleaseError(f"{filename}:{index + 1}: END SOLUTION without a BEGIN SOLUTION")
        if not begin:
            out.append(lines[index])
            index += 1
            continue
        indent, start = begin["indent"], index
        index += 1
        block: list[str] = []
        while index < len(lines) and not END.match(lines[index]):
            if BEGIN.match(lines[index]):
                raise ReleaseError(
                    f"{filename}:{index + 1}: BEGIN SOLUTION inside the block "
                    f"opened at line {start + 1}; blocks cannot nest"
                )
            block.append(lines[index])
            index += 1
        if index == len(lines):
            raise ReleaseError(f"{filename}:{start + 1}: BEGIN SOLUTION is never closed")
        end = END.match(lines[index])
        assert end is not None  # the loop above stops at END SOLUTION only
        if end["indent"] != indent:
            raise ReleaseError(
                f"{filename}:{index + 1}: END SOLUTION is not indented like its BEGIN SOLUTION at line {start + 1}"
            )
        out += _stub(indent, block, _enclosing_function(lines, start, indent))
        index += 1
    return "".join(out)


def _skipped(relative: Path, patterns: list[str]) -> bool:
    return any(fnmatch.fnmatch(part, p) for part in relative.parts for p in _ALWAYS_SKIPPED) or any(
        fnmatch.fnmatch(relative.as_posix(), p) for p in patterns
    )


def release(assignment: Assignment, out: Path, *, force: bool = False) -> list[Path]:
    """Write the student starter of ``assignment`` into ``out``; returns the files written."""
    source = assignment.solution_dir
    if not source.is_dir():
        raise ReleaseError(f"no reference solution at {source}")
    out = Path(out)
    if out.exists() and any(out.iterdir()):
        if not force:
            raise ReleaseError(f"{out} is not empty; pass --force to replace its contents")
        shutil.rmtree(out)
    written = []
    for path in sorted(p for p in source.rglob("*") if p.is_file()):
        relative = path.relative_to(source)
        if _skipped(relative, assignment.config.release_exclude):
            continue
        target = out / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".py":
            text = strip_solutions(path.read_text(), str(relative))
            if "SOLUTION" in text and re.search(r"###\s*(BEGIN|END) SOLUTION", text):
                raise ReleaseError(f"{relative}: a solution marker survived (check its spelling)")
            compile(text, str(relative), "exec")
            target.write_text(text)
        else:
            shutil.copy2(path, target)
        written.append(target)
    return written
