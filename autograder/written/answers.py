"""Reads a student's written answers from the handout notebook or from a Markdown file.

In the notebook, each answer cell carries ``{"autograder": {"role": "answer", "question": ID}}`` in
its metadata; Markdown cells the student added are read like a Markdown file. In a Markdown file,
every heading that names a question starts its answer (see :mod:`autograder.written.labels` for the
spellings accepted), and a bold label starting a paragraph ("**(b)(ii)**") counts as a heading half
a level below the heading above it. The answer runs until the next heading at the same level or
above, or a deeper one that names another written question in full ("### 2b-iii"), another number
("**Problem 2**" below "## Problem 1 (d)") or another part with its number ("### 2(c)" in 2b-iv).
A deeper one that could mean another question ("### (b)(iii)" in 2b-ii) is reported and its text
stays: whatever cannot be placed is reported, never silently dropped or moved to another question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from markdown_it import MarkdownIt
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from autograder.core.config import AssignmentConfig
from autograder.core.submission import is_submitted_file
from autograder.written.answer_file import AnswersError, NotebookCell, check_markdown_length, load_notebook, read_text
from autograder.written.handout_data import handout_data
from autograder.written.labels import (
    Label,
    bold_label,
    could_mean,
    match_label,
    plain_label,
    read_label,
    roman_items,
    sectioning,
    the_part_s_only_question,
)
from autograder.written.time_limit import ChildFailed, TimeLimitExceeded, run_with_time_limit

PLACEHOLDER = "*Write your answer here.*"
# Instructions in the answer sheet, not answers. One never closed runs to the end, as Markdown shows
# it, and so that the search is linear: without that branch, each "<!--" would scan to the end.
_COMMENT = re.compile(r"<!--(?:.*?-->|.*)", re.DOTALL)
METADATA_KEY = "autograder"
READING_SECONDS = 10.0  # for one answer file; reading the largest takes under 2 s


class CellTag(BaseModel):
    """The metadata the handout puts on its notebook cells, under the key ``autograder``."""

    model_config = ConfigDict(extra="ignore")

    role: Literal["handout", "answer"]
    question: str | None = None


class Heading(BaseModel):
    """A heading, or a bold label starting a paragraph, that placed an answer."""

    line: int  # in the file (or cell), from 1
    title: str  # its text: "2. Machine Learning", "(a)(i)"


class Answer(BaseModel):
    question: str
    text: str
    where: str  # "cell 12", "line 30 (heading '2a (i)')"
    file: str = ""  # where line numbers count from: "" (the file) or "cell 12"
    first_line: int = 1  # the line of the file (or cell) where the text starts
    # The label headings that placed it, outermost first ("2. Machine Learning", "(a)(i)"), so that
    # check-written can compare their titles with the handout's; empty when a notebook cell placed it.
    headings: list[Heading] = Field(default_factory=list)
    # Cells added below it that continue it: (the line of the text that is each one's first line, the cell).
    continued: list[tuple[int, str]] = Field(default_factory=list)

    def position(self, line: int) -> str:
        """Where line ``line`` of the text is, as the student finds it: "cell 12, line 3", "line 40"."""
        for start, cell in reversed(self.continued):
            if line >= start:
                return f"{cell}, line {line - start + 1}"
        absolute = self.first_line + line - 1
        return f"{self.file}, line {absolute}" if self.file else f"line {absolute}"


class Unplaced(BaseModel):
    where: str
    excerpt: str
    reason: str = "no heading above it names a question"
    text: str = ""  # all of it, for check-written's guess of the question it answers
    heading: str = ""  # the heading (or bold label) right above it, "" when there is none


class AnswerSheet(BaseModel):
    """Every answer found in one file, and what could not be placed."""

    source: str
    answers: dict[str, Answer] = Field(default_factory=dict)
    unplaced: list[Unplaced] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)
    # The handout's template of an answer (the parser's table with its first row): still that, it is no answer.
    templates: dict[str, str] = Field(default_factory=dict, exclude=True)

    def text(self, question: str) -> str:
        """The answer to ``question``; empty when it is not answered."""
        return self.answers[question].text if question in self.answers else ""

    def answered(self, question: str) -> bool:
        return bool(self.text(question).strip())

    def add(
        self,
        question: str,
        text: str,
        where: str,
        file: str = "",
        first_line: int = 1,
        headings: list[Heading] | None = None,
    ) -> None:
        first_line += _blank_lines_above(text)
        text = text.strip()
        if not _THEMATIC_BREAKS.sub("", text.replace(PLACEHOLDER, "")).strip() or (
            question in self.templates and _normalised(text) == self.templates[question]
        ):
            text = ""  # the sheet's placeholder or template, a rule below it: what a write-up pasted below leaves
        previous = self.answers.get(question)
        if previous is None or not previous.text:
            self.answers[question] = Answer(
                question=question, text=text, where=where, file=file, first_line=first_line, headings=headings or []
            )
        elif text:
            self.problems.append(
                f"{question} is answered twice ({previous.where} and {where}); only the first is read: keep "
                "your answer in one place (if one only points to the other, delete it)"
            )

    def extend(self, question: str, text: str, where: str, file: str) -> None:
        """More of the answer to ``question``: the notebook cell ``file`` the student added below it."""
        previous = self.answers.get(question)
        if previous is None or not previous.text:
            self.add(question, text, where, file)
        elif text.strip() and text.strip() != PLACEHOLDER:
            # the line of the answer that is the cell's first (its blank lines above the text cut)
            start = previous.text.count("\n") + 3 - _blank_lines_above(text)
            update = {"text": f"{previous.text}\n\n{text.strip()}", "continued": [*previous.continued, (start, file)]}
            self.answers[question] = previous.model_copy(update=update)


def _blank_lines_above(text: str) -> int:
    return text[: len(text) - len(text.lstrip())].count("\n")


_THEMATIC_BREAKS = re.compile(r"^ {0,3}(?:(?:-\s*){3,}|(?:\*\s*){3,}|(?:_\s*){3,})$", re.MULTILINE)


def _excerpt(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= 70 else flat[:67] + "..."


@dataclass(frozen=True)
class _Marker:
    """A heading, or a bold label starting a paragraph ("**(b)(ii)** We have..."), of an answer file."""

    line: int  # from 0
    level: float  # 1-6 for a heading; a bold label is half a level below the heading above it
    title: str
    label: Label | None
    body: tuple[int, int]  # (line, column) where the text under it starts
    bold: bool

    @property
    def kind(self) -> str:
        return "bold label" if self.bold else "heading"

    @property
    def shown(self) -> str:
        title = self.title if len(self.title) <= 24 else self.title[:23] + "…"
        return f"**{title}**" if self.bold else title

    def heading(self) -> Heading:
        return Heading(line=self.line + 1, title=self.title)


# Answers are placed by the block structure only (headings, paragraphs, lists, code), parsed in time
# linear in the text whatever it holds. The inline rules (links, emphasis, code spans) are off: placing
# needs none, and some inputs ("![" repeated) make them take seconds per hundred kilobytes. White space
# at the start of a line is cut to MAX_INDENT columns, as the parser reads it one character at a time:
# deeper means nothing more (code is indented by 4), and a line of 8 MB of spaces would take seconds;
# lines stay, so the tokens' line numbers are the text's. A heading's text is cut to MAX_TITLE
# characters: it names a question at its start, and every message that quotes it stays short.
MAX_INDENT, MAX_TITLE = 16, 200
_DEEP_INDENT = re.compile(rf"^[ \t]{{{MAX_INDENT + 1},}}", re.MULTILINE)
_BLOCKS = MarkdownIt("commonmark").disable("inline")


def _markers(text: str, lines: list[str]) -> list[_Marker]:
    """The headings of ``text`` and the bold labels that start a line of a top-level paragraph (not
    of a list or a quote), in order."""
    tokens = _BLOCKS.parse(_DEEP_INDENT.sub(" " * MAX_INDENT, text))
    found: list[_Marker] = []
    level = 0.0
    items = roman_items(lines)
    boxed = _in_fenced_divs(lines)
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and token.map and token.map[0] in boxed:
            continue  # a callout's title (Quarto, pandoc: "::: {.callout-tip}"), inside the answer around it
        if token.type == "heading_open" and token.map:
            level = int(token.tag[1])
            content = tokens[index + 1].content
            title = (content if len(content) <= MAX_TITLE else content[: MAX_TITLE - 1] + "…").strip()
            found.append(_Marker(token.map[0], level, title, read_label(title), (token.map[1], 0), False))
        elif token.type == "paragraph_open" and token.map and token.level == 0:
            for line in range(*token.map):
                bold = bold_label(lines[line]) or plain_label(lines[line])
                if bold is not None:
                    label = read_label(bold[0])
                    found.append(_Marker(line, level + 0.5 + _narrower(label), bold[0], label, (line, bold[1]), True))
                elif (section := sectioning(lines[line])) is not None:
                    title, depth, end = section
                    label = read_label(title)
                    found.append(_Marker(line, level + depth + _narrower(label), title, label, (line, end), False))
                elif line in items:
                    title, end = items[line]
                    label = read_label(title)
                    found.append(_Marker(line, level + 0.95, title, label, (line, end), False))
    return found


_FENCED_DIV = re.compile(r"^ {0,3}(:{3,})\s*(\S.*)?$")


def _in_fenced_divs(lines: list[str]) -> set[int]:
    """The lines inside pandoc's and Quarto's fenced divs (``::: {.callout-note}`` ... ``:::``)."""
    inside: set[int] = set()
    depth = 0
    for number, line in enumerate(lines):
        fence = _FENCED_DIV.match(line)
        if fence and fence[2]:
            depth += 1
        elif fence and depth:
            depth -= 1
        elif depth:
            inside.add(number)
    return inside


def _narrower(label: Label | None) -> float:
    """How much deeper a bold label or LaTeX sectioning sits for the parts its label leaves out:
    "**(i)**" below "**Problem 2 (b)**" at the same place in the Markdown is inside it, as a
    heading one level deeper would be."""
    if label is None or label.number is not None:
        return 0.0
    return 0.01 if label.letter is not None else 0.02


@dataclass
class _Open:
    """The answer being read: its question, the marker that opened it, the headings around it."""

    question: str
    level: float
    body: tuple[int, int]
    where: str
    headings: list[Heading]  # the last one opened it (none for a notebook answer cell)


@dataclass
class _Region:
    """Text under no question, and why."""

    body: tuple[int, int]
    heading: str
    reason: str = "no heading above it names a question"


class _Placer:
    """Files the lines of one Markdown text under the questions its markers name (read_markdown)."""

    def __init__(
        self, lines: list[str], written_ids: list[str], sheet: AnswerSheet, prefix: str, file: str, opened: str | None
    ) -> None:
        self.lines, self.ids, self.sheet, self.prefix, self.file = lines, written_ids, sheet, prefix, file
        self.context: list[tuple[float, Label, Heading]] = []  # enclosing label headings, resolved
        self.current: _Open | None = None
        self.region: _Region | None = _Region((0, 0), "")
        self.fixed = opened is not None  # a notebook answer cell: its text answers its question
        if opened is not None:
            self.current = _Open(opened, 0, (0, 0), prefix.rstrip(", "), [])
            self.context.append((0, read_label(opened) or Label(), Heading(line=1, title=opened)))

    def visit(self, marker: _Marker) -> None:
        if self.current is not None and marker.level > self.current.level and self._stays_inside(marker):
            return
        closed = self.current
        self.close(marker.line)
        self._leave(marker.level)
        if marker.label is None:
            self.region = _Region(marker.body, marker.title, self._after_answer(closed, marker))
            return
        resolved = marker.label.within(self._inside())
        self.context.append((marker.level, resolved, marker.heading()))
        found = match_label(resolved, self.ids)
        question = the_part_s_only_question(marker.label, self.ids) or found.question
        where = f"{self.prefix}line {marker.line + 1}"
        if question is not None:
            headings = [heading for _, _, heading in self.context]
            self.current = _Open(question, marker.level, marker.body, f"{where} ({marker.shown!r})", headings)
            return
        reason = f"its {marker.kind} names a section, not one written question"
        if found.problem:
            reason = f"its {marker.kind} names no question (line {marker.line + 1})"
            self.sheet.problems.append(
                f"{where}: the {marker.kind} {marker.shown!r} names no question: {found.problem}"
            )
        self.region = _Region(marker.body, marker.title, reason)

    def _stays_inside(self, marker: _Marker) -> bool:
        """Whether a marker deeper than the open answer's leaves its text in that answer (the rule
        of the module docstring)."""
        if marker.label is None:
            return True  # "### Derivation", "##### Answer:"
        assert self.current is not None  # asked only inside an answer
        question, label = self.current.question, marker.label
        named = match_label(label, self.ids).question if label.number is not None else None  # "2b-iii"
        own = read_label(question) or Label()
        if not self.fixed and (
            named not in (None, question)
            or label.number not in (None, own.number)
            or (label.number is not None and label.letter not in (None, own.letter))
        ):
            return False
        self._leave(marker.level)
        inside = self._inside()
        self.context.append((marker.level, label.within(inside), marker.heading()))
        other = named or could_mean(label, inside, self.ids)
        if other not in (None, question):
            self.sheet.problems.append(self._kept(marker, other, named is not None))
        return True

    def _kept(self, marker: _Marker, other: str, named: bool) -> str:
        assert self.current is not None  # asked only inside an answer
        question = self.current.question
        where = f"{self.prefix}line {marker.line + 1}: the {marker.kind} {marker.shown!r}"
        example = "**Step 1**" if marker.bold else f"{'#' * int(marker.level)} Step 1"
        reword = f"if it belongs to {question}, reword it so that it names no question (for example '{example}')"
        if self.fixed:
            return (
                f"{where} is in the answer cell of {question}, so its text is graded with {question}, "
                f"but it {'names' if named else 'could mean'} {other}. If it answers {other}, move it "
                f"to the answer cell of {other}; {reword}."
            )
        return (
            f"{where} is inside the answer to {question} (heading on line "
            f"{self.current.headings[-1].line}) and could also mean {other}; its text stays in "
            f"{question}. If it answers {other}, move it under the heading of {other}; {reword}."
        )

    def _after_answer(self, closed: _Open | None, marker: _Marker) -> str:
        """Why text under a heading that names no question is not placed, with the likely fix when
        the heading ended an answer by being at its level ("## Answer:" right after "## 2b-iv")."""
        if closed is None or marker.level != closed.level or marker.bold:
            return "no heading above it names a question"
        deeper = "#" * (int(marker.level) + 1)
        return (
            f"the heading {marker.title!r} is at the level of the heading of {closed.question} above "
            f"it, so it ends that answer; if the text belongs to {closed.question}, make the heading "
            f"deeper ('{deeper} {marker.title}')"
        )

    def _leave(self, level: float) -> None:
        while self.context and self.context[-1][0] >= level:
            self.context.pop()

    def _inside(self) -> Label | None:
        return self.context[-1][1] if self.context else None

    def _text(self, body: tuple[int, int], end: int) -> str:
        line, column = body
        return "\n".join([self.lines[line][column:], *self.lines[line + 1 : end]]) if line < end else ""

    def close(self, end: int) -> None:
        if self.current is not None:
            answer = self.current
            self.sheet.add(
                answer.question,
                self._text(answer.body, end),
                answer.where,
                file=self.file,
                first_line=answer.body[0] + 1,
                headings=answer.headings,
            )
        elif self.region is not None:
            # Comments are the answer sheet's instructions, not answers; blank lines keep the count.
            body = _COMMENT.sub(lambda m: "\n" * m.group().count("\n"), self._text(self.region.body, end))
            if body.strip():
                line = self.region.body[0] + 1 + _blank_lines_above(body)
                under = f" (under the heading {self.region.heading!r})" if self.region.heading else ""
                self.sheet.unplaced.append(
                    Unplaced(
                        where=f"{self.prefix}line {line}{under}",
                        excerpt=_excerpt(body),
                        reason=self.region.reason,
                        text=body.strip(),
                        heading=self.region.heading,
                    )
                )
        self.current, self.region = None, None


def read_markdown(
    text: str, written_ids: list[str], sheet: AnswerSheet, where: str = "", file: str = "", opened: str | None = None
) -> None:
    """Place the answers of Markdown ``text`` into ``sheet`` (the rule is the module docstring's).
    ``where`` prefixes the locations reported; ``file`` is what line numbers count from ("" for the
    file itself, "cell 12"); ``opened`` is the question the whole text answers whatever its headings
    say (a notebook answer cell): they are only reported."""
    # Lines as the Markdown parser counts them: a form feed ("\frac" with its backslash eaten) or
    # another break str.splitlines() knows would otherwise shift every line after it.
    text = _without_front_matter(text.replace("\r\n", "\n").replace("\r", "\n"))
    lines = text.split("\n")
    placer = _Placer(lines, written_ids, sheet, f"{where}, " if where else "", file, opened)
    for marker in _markers(text, lines):
        placer.visit(marker)
    placer.close(len(lines))


# Metadata before a document (Quarto, R Markdown, pandoc, Jekyll): "---", lines of "key: value", "---".
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(?:[\w-]+:.*\n|[ \t]+.*\n|[ \t]*\n)*?---[ \t]*(?=\n|\Z)")


def _without_front_matter(text: str) -> str:
    """``text`` with its front matter's lines left blank (no answer, and no heading: Markdown would
    read its closing ``---`` as the underline of one); the lines below keep their numbers."""
    return _FRONT_MATTER.sub(lambda block: "\n" * block[0].count("\n"), text)


def read_notebook(path: Path, written_ids: list[str], sheet: AnswerSheet, follow_links: bool = True) -> None:
    """A tagged answer cell answers its question; a Markdown cell the student added reads by its
    headings, and one with no heading, right below an answer (or below such cells), continues that
    answer. So a cell added under the answer cell counts, and so does a notebook whose tags a tool
    lost: the handout's question headings then open the answers."""
    read = [
        (number, tag, cell)
        for number, cell in enumerate(load_notebook(path, follow_links), start=1)
        if (tag := cell_tag(cell)) is not None or (cell.cell_type == "markdown" and cell.source.strip())
    ]
    check_markdown_length([cell.source for _, tag, cell in read if tag is None or tag.role == "answer"], path.name)
    current: str | None = None  # the question the cells read so far answer
    for number, tag, cell in read:
        where = f"cell {number}"
        if tag is not None:
            current = tag.question if tag.role == "answer" and tag.question in written_ids else None
            if current is not None:
                sheet.add(current, cell.source, where, file=where)
        elif current is not None and not _has_heading(cell.source):
            sheet.extend(current, cell.source, f"{where} (a cell you added)", file=where)
        else:
            before = {q for q, answer in sheet.answers.items() if answer.text}
            read_markdown(cell.source, written_ids, sheet, f"{where} (a cell you added)", where)
            opened = [q for q, answer in sheet.answers.items() if answer.text and q not in before]
            current = opened[-1] if opened else None


def _has_heading(text: str) -> bool:
    """Whether Markdown reads a heading in ``text``: ``#``, or a line underlined with ``===``, but
    not a ``#`` comment in a code block. Most added cells have no line that could start one, and
    skip the parse (a notebook may add many thousands)."""
    if not _HEADING_MARK.search(text):
        return False
    return any(token.type == "heading_open" for token in _BLOCKS.parse(_DEEP_INDENT.sub(" " * MAX_INDENT, text)))


_HEADING_MARK = re.compile(r"^ {0,3}[#=-]", re.MULTILINE)  # no heading without such a line


def cell_tag(cell: NotebookCell) -> CellTag | None:
    """The handout's tag of ``cell``; None for a cell the student added (or whose tag is damaged)."""
    try:
        return CellTag.model_validate(cell.metadata[METADATA_KEY]) if METADATA_KEY in cell.metadata else None
    except ValidationError:
        return None


def read_answers(
    path: Path, config: AssignmentConfig, *, follow_links: bool = True, seconds: float | None = None
) -> AnswerSheet:
    """The answers in ``path`` (a notebook or a Markdown file), read in a child process within
    ``seconds`` (READING_SECONDS by default); raises AnswersError, and nothing else, when the file
    cannot be read. ``follow_links``: False for a submitted file (a link to the reference must not count)."""
    path = Path(path)
    seconds = READING_SECONDS if seconds is None else seconds
    try:
        return run_with_time_limit(
            _read_answers_now, (path, config, follow_links), seconds, AnswerSheet, (AnswersError,)
        )
    except TimeLimitExceeded:
        raise AnswersError(
            f"{path.name} took longer than {seconds:g} s to read, so it was not read (an answer file takes "
            "well under a second); keep only your answers in it and submit it again"
        ) from None
    except ChildFailed as error:
        raise AnswersError(
            f"{path.name} could not be read: the autograder failed while reading it ({error}). "
            "This is a fault of the autograder: tell the course staff"
        ) from None


def _read_answers_now(path: Path, config: AssignmentConfig, follow_links: bool) -> AnswerSheet:
    written_ids = [q.id for q in config.written_questions]
    forms = handout_data(config.name).answer_formats
    templates = {question: _normalised(form.template()) for question, form in forms.items() if form.template()}
    sheet = AnswerSheet(source=path.name, templates=templates)
    if path.suffix == ".ipynb":
        read_notebook(path, written_ids, sheet, follow_links)
    else:
        text = read_text(path, follow_links)
        check_markdown_length([text], path.name)
        read_markdown(text, written_ids, sheet)
    for question in written_ids:
        sheet.answers.setdefault(question, Answer(question=question, text="", where="not found"))
    return sheet


def _normalised(text: str) -> str:
    return "\n".join(" ".join(line.split()) for line in text.strip().splitlines())


@dataclass(frozen=True)
class SubmittedAnswers:
    """The answer sheet found in a submission (None if there is none), and a note for the student."""

    sheet: AnswerSheet | None
    note: str


def submitted_answers(folder: Path, config: AssignmentConfig, *, derivations: bool = False) -> SubmittedAnswers:
    """The answers that the tests of written questions read (and, with ``derivations``, the checks
    of final formulas); nothing is read when none does. Whatever the answer files hold, this
    returns: they may cost the written questions, never the grading of the code."""
    scored = config.grades_written
    if not derivations and not scored:
        return SubmittedAnswers(None, "")
    try:
        found = choose_answer_sheet(folder, config)
    except Exception as error:  # read_answers raises AnswersError only; this is for what it cannot foresee
        found = SubmittedAnswers(
            None,
            f"The written answers could not be read ({type(error).__name__}: "
            f"{error}); the written questions score 0. This is a fault of the "
            "autograder: tell the course staff.",
        )
    # Read for the verdicts on final formulas only, which students never see: no note on scores.
    return found if scored else SubmittedAnswers(found.sheet, "")


def choose_answer_sheet(folder: Path, config: AssignmentConfig) -> SubmittedAnswers:
    """The answer sheet among ``config.answer_files`` in ``folder`` that answers the most questions
    (a student who answered in the notebook may still have the blank Markdown sheet next to it)."""
    # Never through a link: the grader reads these itself, and a link to the reference answers
    # would be graded as the student's.
    present = [Path(folder) / name for name in config.answer_files if is_submitted_file(Path(folder) / name)]
    if not present:
        links = [name for name in config.answer_files if (Path(folder) / name).is_symlink()]
        return SubmittedAnswers(
            None,
            f"No written answers found: submit {' or '.join(config.answer_files)} "
            "with your code, or the written questions score 0."
            + "".join(
                f" {name} is a link, which the grader does not follow: submit the file itself." for name in links
            ),
        )
    sheets, unreadable = [], []
    for path in present:
        try:
            sheets.append(read_answers(path, config, follow_links=False))
        except AnswersError as error:
            unreadable.append(str(error))
    if not sheets:
        return SubmittedAnswers(None, " ".join(unreadable))
    counts = [sum(sheet.answered(q) for q in sheet.answers) for sheet in sheets]
    best = max(range(len(sheets)), key=lambda i: (counts[i], -i))
    notes = unreadable
    if sum(count > 0 for count in counts) > 1:
        others = ", ".join(
            f"{sheet.source} ({count} answered)" for sheet, count in zip(sheets, counts) if sheet is not sheets[best]
        )
        notes.append(
            f"Written answers read from {sheets[best].source} ({counts[best]} answered); "
            f"also found {others}. Keep only one of them."
        )
    return SubmittedAnswers(sheets[best], " ".join(notes))
