"""Reads a student's written answers from the handout notebook or from a Markdown file.

In the notebook, each answer cell carries ``{"autograder": {"role": "answer", "question": ID}}`` in
its metadata; Markdown cells the student added are read like a Markdown file. In a Markdown file,
every heading that names a question starts its answer (see :mod:`autograder.written.labels` for the
spellings accepted), and the answer runs until the next heading at the same level or above, or the
next heading that names a question. Whatever cannot be placed is reported, never silently dropped.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import nbformat
from markdown_it import MarkdownIt
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from autograder.config import AssignmentConfig
from autograder.submission import is_submitted_file
from autograder.handout.data import handout_data
from autograder.written.labels import Label, match_label, read_label

PLACEHOLDER = "*Write your answer here.*"
MAX_ANSWER_BYTES = 8 * 2**20
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)  # instructions in the answer sheet, not answers
METADATA_KEY = "autograder"
_MARKDOWN = MarkdownIt("commonmark")


class AnswersError(Exception):
    """The answers file cannot be read at all; the message says what to do."""


class CellTag(BaseModel):
    """The metadata the handout puts on its notebook cells, under the key ``autograder``."""

    model_config = ConfigDict(extra="ignore")

    role: Literal["handout", "answer"]
    question: str | None = None


class Answer(BaseModel):
    question: str
    text: str
    where: str  # "cell 12", "line 30 (heading '2a (i)')"
    file: str = ""  # where line numbers count from: "" (the file) or "cell 12"
    first_line: int = 1  # the line of the file (or cell) where the text starts


class Unplaced(BaseModel):
    where: str
    excerpt: str
    reason: str = "no heading above it names a question"


class AnswerSheet(BaseModel):
    """Every answer found in one file, and what could not be placed."""

    source: str
    answers: dict[str, Answer] = Field(default_factory=dict)
    unplaced: list[Unplaced] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)

    def text(self, question: str) -> str:
        """The answer to ``question``; empty when it is not answered."""
        answer = self.answers.get(question)
        return answer.text if answer is not None else ""

    def answered(self, question: str) -> bool:
        return bool(self.text(question).strip())

    def add(self, question: str, text: str, where: str, file: str = "", first_line: int = 1) -> None:
        first_line += text[:len(text) - len(text.lstrip())].count("\n")  # blank lines above it
        text = text.strip()
        if text == PLACEHOLDER:
            text = ""
        previous = self.answers.get(question)
        if previous is not None and previous.text and text:
            self.problems.append(f"{question} is answered twice ({previous.where} and {where}); "
                                 f"only the first is read")
            return
        if previous is None or not previous.text:
            self.answers[question] = Answer(question=question, text=text, where=where, file=file,
                                            first_line=first_line)


def _excerpt(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= 70 else flat[:67] + "..."


def read_markdown(text: str, written_ids: list[str], sheet: AnswerSheet, where: str = "",
                  file: str = "") -> None:
    """Place the answers of Markdown ``text`` into ``sheet``. ``where`` prefixes the locations
    reported; ``file`` is what line numbers count from ("" for the file itself, "cell 12")."""
    lines = text.splitlines()
    headings = [(token.map[0], int(token.tag[1]), tokens[i + 1].content)
                for tokens in [_MARKDOWN.parse(text)] for i, token in enumerate(tokens)
                if token.type == "heading_open" and token.map]
    prefix = f"{where}, " if where else ""
    context: list[tuple[int, Label]] = []  # enclosing label headings: (level, resolved label)
    current: tuple[str, int, int, str] | None = None  # (question, level, first line, heading)
    unplaced: tuple[int, str] | None = (0, "")  # (first line, heading above it) of text not placed

    def close(end: int) -> None:
        nonlocal current, unplaced
        if current is not None:
            question, _, start, heading = current
            shown = heading if len(heading) <= 24 else heading[:23] + "…"
            sheet.add(question, "\n".join(lines[start:end]), f"{prefix}line {start} ({shown!r})",
                      file=file, first_line=start + 1)
        elif unplaced is not None:
            start, heading = unplaced
            body = _COMMENT.sub("", "\n".join(lines[start:end])).strip()
            if body:
                under = f" (under the heading {heading!r})" if heading else ""
                sheet.unplaced.append(Unplaced(where=f"{prefix}line {start + 1}{under}",
                                               excerpt=_excerpt(body)))
        current, unplaced = None, None

    for line_index, level, title in headings:
        label = read_label(title)
        if label is None and current is not None and level > current[1]:
            continue  # a sub-heading inside an answer ("### Derivation") belongs to it
        close(line_index)
        while context and context[-1][0] >= level:
            context.pop()
        if label is None:
            unplaced = (line_index + 1, title.strip())
            continue
        resolved = label.within(context[-1][1] if context else None)
        found = match_label(resolved, written_ids)
        context.append((level, resolved))
        if found.question is not None:
            current = (found.question, level, line_index + 1, title.strip())
        else:
            unplaced = (line_index + 1, title.strip())
            if found.problem:
                sheet.problems.append(f"{prefix}line {line_index + 1}: the heading {title.strip()!r} "
                                      f"names no question: {found.problem}")
    close(len(lines))


def read_notebook(path: Path, written_ids: list[str], sheet: AnswerSheet) -> None:
    try:
        notebook = nbformat.read(path, as_version=4)
    except (json.JSONDecodeError, nbformat.reader.NotJSONError, UnicodeDecodeError) as exc:
        raise AnswersError(f"{path.name} is not a readable notebook ({exc}); open it in Jupyter, "
                           "save it, and try again") from None
    for number, cell in enumerate(notebook.cells, start=1):
        try:
            tag = CellTag.model_validate(cell.metadata.get(METADATA_KEY)) \
                if METADATA_KEY in cell.metadata else None
        except ValidationError:
            tag = None
        if tag is not None and tag.role == "answer" and tag.question in written_ids:
            sheet.add(tag.question, cell.source, f"cell {number}", file=f"cell {number}")
        elif tag is None and cell.cell_type == "markdown" and cell.source.strip():
            read_markdown(cell.source, written_ids, sheet, f"cell {number} (a cell you added)",
                          f"cell {number}")


def read_answers(path: Path, config: AssignmentConfig) -> AnswerSheet:
    """The answers in ``path`` (a ``.ipynb`` notebook or a Markdown file)."""
    path = Path(path)
    written_ids = [q.id for q in config.written_questions]
    sheet = AnswerSheet(source=path.name)
    if not path.is_file():
        raise AnswersError(f"{path} does not exist")
    # The grader reads this file itself (no worker): a size cap keeps a hostile upload cheap.
    if path.stat().st_size > MAX_ANSWER_BYTES:
        raise AnswersError(f"{path.name} is larger than {MAX_ANSWER_BYTES // 2**20} MB, so it was not read; "
                           "clear the outputs of the notebook's code cells and submit it again")
    if path.suffix == ".ipynb":
        read_notebook(path, written_ids, sheet)
    else:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise AnswersError(f"{path.name} is not UTF-8 text; save it as UTF-8") from None
        read_markdown(text, written_ids, sheet)
    for question in written_ids:
        sheet.answers.setdefault(question, Answer(question=question, text="", where="not found"))
    # An answer still equal to the handout's template (a table with only its first row) is no answer.
    for question, form in handout_data(config.name).answer_formats.items():
        answer = sheet.answers.get(question)
        if answer is not None and form.template() and _normalised(answer.text) == _normalised(form.template()):
            answer.text = ""
    return sheet


def _normalised(text: str) -> str:
    return "\n".join(" ".join(line.split()) for line in text.strip().splitlines())


@dataclass(frozen=True)
class SubmittedAnswers:
    """The answer sheet found in a submission (None if there is none), and a note for the student."""

    sheet: AnswerSheet | None
    note: str


def submitted_answers(folder: Path, config: AssignmentConfig) -> SubmittedAnswers:
    """The answers that the tests of written questions read; nothing is read when there are none."""
    if not any(q.kind == "written" for q in config.questions):
        return SubmittedAnswers(None, "")
    return choose_answer_sheet(folder, config)


def choose_answer_sheet(folder: Path, config: AssignmentConfig) -> SubmittedAnswers:
    """The answer sheet among ``config.answer_files`` in ``folder``.

    When several are present, the one that answers the most questions is used (a student who
    answered in the notebook may still have the blank Markdown sheet lying next to it).
    """
    # Never through a link: the grader reads these itself, and a link to the reference answers
    # would be graded as the student's.
    present = [Path(folder) / name for name in config.answer_files if is_submitted_file(Path(folder) / name)]
    if not present:
        return SubmittedAnswers(None, f"No written answers found: submit {' or '.join(config.answer_files)} "
                                      "with your code, or the written questions score 0.")
    sheets, unreadable = [], []
    for path in present:
        try:
            sheets.append(read_answers(path, config))
        except AnswersError as error:
            unreadable.append(str(error))
    if not sheets:
        return SubmittedAnswers(None, " ".join(unreadable))
    counts = [sum(sheet.answered(q) for q in sheet.answers) for sheet in sheets]
    best = max(range(len(sheets)), key=lambda i: (counts[i], -i))
    notes = unreadable
    if sum(count > 0 for count in counts) > 1:
        others = ", ".join(f"{sheet.source} ({count} answered)" for sheet, count in zip(sheets, counts)
                           if sheet is not sheets[best])
        notes.append(f"Written answers read from {sheets[best].source} ({counts[best]} answered); "
                     f"also found {others}. Keep only one of them.")
    return SubmittedAnswers(sheets[best], " ".join(notes))
