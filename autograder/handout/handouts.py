"""Generates, from a handout source, the files students get: the notebook, the Markdown answer
sheet and the figures. Everything is deterministic (cell ids from the content, figures drawn by
code), so a test can regenerate the files and compare them byte for byte with the committed ones."""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Callable
from pathlib import Path

import nbformat
from nbformat import v4

from autograder.core.config import Assignment
from autograder.written.answers import METADATA_KEY, PLACEHOLDER
from autograder.written.derivations.catalogue import with_notation_table, with_region
from autograder.written.derivations.verdict import final_formulas
from autograder.written.handout_data import declared_derivations, handout_data
from autograder.written.handout_source import Handout, HandoutError, HandoutQuestion, load_handout

_IMAGE = re.compile(r"!\[(?P<alt>[^\]]*)\]\(figures/(?P<name>[A-Za-z0-9_.-]+\.svg)\)")
_HANDOUT_TAG = {METADATA_KEY: {"role": "handout"}, "editable": False}

ANSWER_SHEET_INTRO = """\
<!--
Write each answer under its question's heading, in Markdown; put math between $...$ (inside a
line) or $$...$$ (on lines of its own). Keep the headings: they tell the grader which answer is
which. You may shorten a heading to its label: "## {n}{l}-{r}", "## {n}{l} ({r})" and "## {n}({l})({r})" all
work, and under a heading "## {n}{l}" a heading "### ({r})" means {n}{l}-{r}. Your own deeper headings
("### Derivation", "##### Answer:", your own numbering) belong to the answer above them, unless
they name another question in full ("### {n}{l}-{s}"). One that could mean another question, such
as "### ({l})({s})" under "## {n}{l}-{r}", keeps its text where it is and is reported: reword it. A bold
label starting a paragraph ("**({l})({r})**") and LaTeX sectioning ("\\subsection*{{{n}({l})({r})}}") count as
headings; a heading with another number ("**Problem 2**" below "## Problem 1 (c)") ends the answer
above it, and one naming a part with a single written question names that question. Text under no
question's heading is not graded. For a question graded automatically, put your final answer on a line of its own that
starts with "Answer:".

Before you submit, check this file:  python -m autograder check-written {name} written.md
collect-submission makes no zip while that check reports a problem.
-->
"""


def figures(assignment: Assignment) -> dict[str, bytes]:
    """The assignment's figures, drawn now."""
    return {name: draw().encode("utf-8") for name, draw in handout_data(assignment).figures.items()}


class _Cells:
    """Collects notebook cells; ids come from the content, so unchanged cells keep theirs."""

    def __init__(self, images: dict[str, bytes], generated: Callable[[str], str]) -> None:
        self.cells: list = []
        self.images = images
        self.generated = generated
        self.seen: dict[str, int] = {}

    def _id(self, kind: str, source: str) -> str:
        digest = hashlib.sha1(source.encode("utf-8")).hexdigest()[:10]
        self.seen[digest] = self.seen.get(digest, 0) + 1
        return f"{kind}-{digest}" + (f"-{self.seen[digest]}" if self.seen[digest] > 1 else "")

    def markdown(self, lines: list[str]) -> None:
        source = "\n".join(lines).strip("\n")
        if not source.strip():
            return
        attachments = {}
        for match in _IMAGE.finditer(source):
            if match["name"] not in self.images:
                raise HandoutError(f"the handout shows figures/{match['name']}, which no FIGURES entry draws")
            attachments[match["name"]] = {"image/svg+xml": base64.b64encode(self.images[match["name"]]).decode("ascii")}
        source = _IMAGE.sub(lambda m: f"![{m['alt']}](attachment:{m['name']})", source)
        source = self.generated(source)
        cell = v4.new_markdown_cell(source, id=self._id("md", source), metadata=dict(_HANDOUT_TAG))
        if attachments:
            cell.attachments = attachments
        self.cells.append(cell)

    def commands(self, content: str) -> None:
        lines = [line.strip() for line in content.splitlines() if line.strip()]
        # Run with the notebook's own Python: "python" on the PATH may be another installation.
        body = [
            ("!{sys.executable}" + line[len("python") :]) if line.startswith("python ") else "!" + line
            for line in lines
        ]
        source = "\n".join(["import sys", *body])
        self.cells.append(v4.new_code_cell(source, id=self._id("run", source), metadata=dict(_HANDOUT_TAG)))

    def answer(self, question: HandoutQuestion) -> None:
        source = (question.template or PLACEHOLDER).strip("\n")
        metadata = {METADATA_KEY: {"role": "answer", "question": question.id}, "deletable": False}
        self.cells.append(v4.new_markdown_cell(source, id=f"answer-{question.id}", metadata=metadata))


def notebook(assignment: Assignment, handout: Handout, images: dict[str, bytes]) -> str:
    cells = _Cells(images, generated(assignment))
    blocks = {block.start: block for block in handout.blocks}
    starts = {line for line, _ in handout.headings}
    open_question: HandoutQuestion | None = None
    by_line = {q.line: q for q in handout.written}
    buffer: list[str] = []
    line = 0
    while line < len(handout.lines):
        if line in starts:
            cells.markdown(buffer)
            buffer = []
            level = next(lv for ln, lv in handout.headings if ln == line)
            if open_question is not None and level <= open_question.level:
                cells.answer(open_question)
                open_question = None
            open_question = by_line.get(line, open_question)
        block = blocks.get(line)
        if block is not None:
            if block.info == "run":
                cells.markdown(buffer)
                buffer = []
                cells.commands(block.content)
            line = block.end  # an answer template becomes the answer cell, not handout text
            continue
        buffer.append(handout.lines[line])
        line += 1
    cells.markdown(buffer)
    if open_question is not None:
        cells.answer(open_question)
    book = v4.new_notebook(
        cells=cells.cells,
        metadata={
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
            METADATA_KEY: {"assignment": assignment.name, "generated_from": f"handouts/{handout.path.name}"},
        },
    )
    nbformat.validate(book)
    return nbformat.writes(book) + "\n"


def answer_sheet(assignment: Assignment, handout: Handout) -> str:
    """The Markdown answer sheet: every written question's heading, then a place for the answer."""
    ids = [q.id for q in handout.written]
    # The example is a question and its next part, both asked, so that every label shown exists.
    first = next((q for q in ids if re.match(r"\d+[a-h]-i$", q) and f"{q}i" in ids), "1a-i")
    example = re.match(r"(\d+)([a-h])-([ivx]+)$", first)
    assert example is not None  # the config's ids of written parts look so
    parts = [
        f"# Written answers: {assignment.config.title}",
        "",
        ANSWER_SHEET_INTRO.format(name=assignment.name, n=example[1], l=example[2], r=example[3], s=example[3] + "i"),
    ]
    for question in handout.written:
        parts += [f"## {question.heading}", "", (question.template or PLACEHOLDER).strip("\n"), ""]
    return "\n".join(parts)


def generated(assignment: Assignment) -> Callable[[str], str]:
    """What writes into a source what is written from code where it says so: the notation table,
    and the paragraph on the final formulas read by machine, from the assignment's own notation.
    The paragraph is made once, for every cell it is written into."""
    derivations = declared_derivations(assignment)
    scored = {q.id for q in assignment.config.manual_questions if q.auto_grade}
    paragraph = final_formulas(derivations, frozenset(scored)) if derivations else ""

    def write(source: str) -> str:
        source = with_notation_table(source)
        return with_region(source, "final formulas", paragraph) if paragraph else source

    return write


def build(assignment: Assignment) -> dict[Path, bytes]:
    """Every generated handout file of ``assignment``, by its path in the repository."""
    handout = load_handout(assignment)
    images = figures(assignment)
    folder = handout.path.parent
    files = {folder / "figures" / name: data for name, data in images.items()}
    files[folder / f"{assignment.name}.ipynb"] = notebook(assignment, handout, images).encode("utf-8")
    files[folder / f"{assignment.name}_answers.md"] = answer_sheet(assignment, handout).encode("utf-8")
    files[handout.path] = generated(assignment)(handout.path.read_text(encoding="utf-8")).encode("utf-8")
    return files


def stale(files: dict[Path, bytes]) -> list[Path]:
    """The files whose committed content differs from ``files`` (or that are missing)."""
    return [path for path, data in files.items() if not path.is_file() or path.read_bytes() != data]
