"""Opens an answer file the way the grader must: whatever a student uploads, the result is its text
or an :class:`AnswersError` that says what is wrong with the file and how to fix it.

The grader reads answer files itself, outside any worker, so nothing here trusts the file: it is
opened without following a link (a link to the reference answers would be graded as the student's),
only if it is a regular file, only up to :data:`MAX_ANSWER_BYTES`. A notebook is read as JSON and
checked for exactly the structure the reader uses (cells with a type, a source and metadata), so a
notebook that is not one fails here with a message instead of deep inside the reader. Markdown is
capped at :data:`MAX_MARKDOWN_LINES` lines, which keeps the time to place answers small whatever
the file holds (see ``benchmarks/written_reading.py``).
"""

from __future__ import annotations

import errno
import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from autograder.core.errors import AutograderError

MAX_ANSWER_BYTES = 8 * 2**20
# Markdown lines of one answer file (notebook: its Markdown cells). A handout with every answer in
# it is about a thousand; the cap only stops files made to be slow to read.
MAX_MARKDOWN_LINES = 20_000
NOTEBOOK_VERSION = 4
_RESAVE = (
    "open it in Jupyter, save it and submit it again (if Jupyter cannot open it, put your answers in "
    "the Markdown answer sheet, written.md, instead)"
)


class AnswersError(AutograderError):
    """The answers file cannot be read at all; the message says what to do."""


def read_text(path: Path, follow_links: bool = True) -> str:
    """The text of the regular file ``path``, at most MAX_ANSWER_BYTES; through a link only if
    ``follow_links`` (a file named on the command line may be a link, a submitted one may not)."""
    path = Path(path)
    try:
        return _read_bytes(path, follow_links).decode("utf-8-sig")  # a byte-order mark is no part of the text
    except UnicodeDecodeError as error:
        raise AnswersError(
            f"{path.name} is not UTF-8 text (byte {error.start} cannot be read); save it as UTF-8 and submit it again"
        ) from None


def _read_bytes(path: Path, follow_links: bool) -> bytes:
    # O_NONBLOCK: opening a FIFO must not wait for a writer. Windows has neither FIFOs nor O_NOFOLLOW,
    # so a link is refused by a look first there; and it opens in text mode unless O_BINARY is given.
    flags = os.O_RDONLY
    for name in ("O_NONBLOCK", "O_CLOEXEC", "O_BINARY") + (() if follow_links else ("O_NOFOLLOW",)):
        flags |= getattr(os, name, 0)
    try:
        if not follow_links and not hasattr(os, "O_NOFOLLOW") and path.is_symlink():
            raise OSError(errno.ELOOP, "a symbolic link")
        descriptor = os.open(path, flags)
    except OSError as error:
        raise AnswersError(_open_problem(path, error)) from None
    mode = os.fstat(descriptor).st_mode
    if not stat.S_ISREG(mode):
        os.close(descriptor)
        kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
        raise AnswersError(f"{path.name} is {kind}; submit the answer file itself")
    with os.fdopen(descriptor, "rb") as stream:
        data = stream.read(MAX_ANSWER_BYTES + 1)  # one byte more tells a file that grew meanwhile
    if len(data) > MAX_ANSWER_BYTES:
        raise AnswersError(
            f"{path.name} is larger than {MAX_ANSWER_BYTES // 2**20} MB, so it was not read; "
            + (
                "clear the outputs of the notebook's code cells and submit it again"
                if path.suffix == ".ipynb"
                else "remove what is not your answers (pasted images, logs) and submit it again"
            )
        )
    return data


def _open_problem(path: Path, error: OSError) -> str:
    if error.errno == errno.ELOOP:
        return f"{path.name} is a symbolic link; the grader reads no file through a link: submit the file itself"
    if error.errno == errno.ENOENT:
        return f"{path} does not exist"
    return f"{path.name} cannot be opened ({error.strerror or error}); submit it again"


@dataclass(frozen=True)
class NotebookCell:
    """What the reader uses of a notebook cell."""

    cell_type: str
    source: str
    metadata: dict[str, Any] = field(default_factory=dict)


def load_notebook(path: Path, follow_links: bool = True) -> list[NotebookCell]:
    """The cells of the notebook ``path``; an AnswersError names what is not as Jupyter writes it."""
    name = Path(path).name
    try:
        content = json.loads(read_text(path, follow_links))
    except RecursionError:
        raise AnswersError(f"{name} is not a notebook: its JSON is nested too deeply to read; {_RESAVE}") from None
    except json.JSONDecodeError as error:
        raise AnswersError(f"{name} is not a notebook: it is not valid JSON ({error}); {_RESAVE}") from None
    except ValueError:  # an integer of thousands of digits, which Python refuses to convert
        raise AnswersError(f"{name} is not a notebook: it holds a number too long to read; {_RESAVE}") from None
    if not isinstance(content, dict):
        raise AnswersError(
            f"{name} is not a notebook: it holds {_json_kind(content)}, not an object with 'cells'; {_RESAVE}"
        )
    version = content.get("nbformat")
    if version != NOTEBOOK_VERSION:
        shown = "no version" if version is None else f"version {json.dumps(version)[:20]}"
        raise AnswersError(
            f"{name} says it is a notebook of {shown} ('nbformat'); the grader reads version "
            f"{NOTEBOOK_VERSION}, which Jupyter writes: {_RESAVE}"
        )
    cells = content.get("cells")
    if not isinstance(cells, list):
        raise AnswersError(f"{name} is not a valid notebook: 'cells' is {_json_kind(cells)}, not a list; {_RESAVE}")
    return [_cell(cell, number, name) for number, cell in enumerate(cells, start=1)]


def _cell(cell: object, number: int, name: str) -> NotebookCell:
    where = f"{name} is not a valid notebook: cell {number}"
    if not isinstance(cell, dict):
        raise AnswersError(f"{where} is {_json_kind(cell)}, not an object; {_RESAVE}")
    cell_type, source, metadata = cell.get("cell_type"), cell.get("source"), cell.get("metadata", {})
    if isinstance(source, list) and all(isinstance(line, str) for line in source):
        source = "".join(source)
    for key, value, wanted in (("cell_type", cell_type, str), ("source", source, str), ("metadata", metadata, dict)):
        if not isinstance(value, wanted):
            shown = "an object" if wanted is dict else "text" + (" or a list of lines" if key == "source" else "")
            kind = "a list of other things than text" if isinstance(value, list) else _json_kind(value)
            raise AnswersError(f"{where} has a '{key}' that is {kind}, not {shown}; {_RESAVE}")
    return NotebookCell(cast(str, cell_type), cast(str, source), cast(dict, metadata))  # checked above


def _json_kind(value: object) -> str:
    kinds = {
        dict: "an object",
        list: "a list",
        str: "a string",
        bool: "true or false",
        int: "a number",
        float: "a number",
        type(None): "missing (or null)",
    }
    return kinds.get(type(value), type(value).__name__)


# What str.splitlines() splits at: more breaks than the reader counts (it splits at "\n" and "\r"),
# so the cap errs on the safe side.
_LINE_BREAKS = ("\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


def check_markdown_length(texts: list[str], name: str) -> None:
    """Refuses more than MAX_MARKDOWN_LINES lines of Markdown in all of ``texts`` together."""
    lines = sum(sum(text.count(mark) for mark in _LINE_BREAKS) - text.count("\r\n") + 1 for text in texts)
    if lines > MAX_MARKDOWN_LINES:
        raise AnswersError(
            f"{name} holds {lines:,} lines of Markdown, more than the {MAX_MARKDOWN_LINES:,} "
            "the grader reads; keep only your answers in it and submit it again"
        )
