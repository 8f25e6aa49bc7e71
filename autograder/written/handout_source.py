"""Reads a handout source and checks it against the assignment's config.

A handout is ordinary Markdown with LaTeX math, plus three conventions:

- A question starts with a heading ``ID. Title (P points; KIND)``, KIND being ``code``,
  ``written`` (graded by hand) or ``written, auto-graded``. The id, points and kind must agree with
  the config, and every question of the config must have exactly one such heading.
- A fenced block with the info string ``answer`` inside a written question is the answer's
  template (a table to fill in, say); the notebook's answer cell starts with it.
- A fenced block with the info string ``run`` holds shell commands; the notebook makes it a code
  cell that runs them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from markdown_it import MarkdownIt

from autograder.core.config import Assignment
from autograder.core.errors import AutograderError
from autograder.written.handout_data import handout_data

HEADING = re.compile(
    r"^(?P<id>\d+[a-h]?(?:-[ivx]+)?)\.\s+(?P<title>.+?)\s+\((?P<points>\d+(?:\.\d+)?) "
    r"points?;\s*(?P<kind>[^)]+)\)\s*$"
)
Kind = Literal["code", "manual", "auto"]
KINDS: dict[str, Kind] = {"code": "code", "written": "manual", "written, auto-graded": "auto"}


class HandoutError(AutograderError):
    """The handout does not agree with the config; the message lists every disagreement."""


@dataclass(frozen=True)
class HandoutQuestion:
    id: str
    heading: str  # the heading's text, "2a-i. The transition table (3 points; written, auto-graded)"
    points: float
    kind: Kind
    level: int  # heading level, 2-6
    line: int  # 0-based line of the heading
    end: int  # 0-based line after its section (next heading at its level or above)
    template: str | None  # the ``answer`` block, if any


@dataclass(frozen=True)
class Block:
    """A fenced ``run`` or ``answer`` block: where it is and what it holds."""

    info: str
    start: int
    end: int
    content: str


@dataclass(frozen=True)
class Handout:
    path: Path
    lines: list[str]
    headings: list[tuple[int, int]]  # (0-based line, level) of every heading
    questions: list[HandoutQuestion]
    blocks: list[Block]

    @property
    def written(self) -> list[HandoutQuestion]:
        return [q for q in self.questions if q.kind != "code"]

    def body(self, question: HandoutQuestion) -> str:
        """The question's text without its heading and template, for pages that show it."""
        skipped = {i for b in self.blocks if b.info == "answer" for i in range(b.start, b.end)}
        return "\n".join(
            line
            for i, line in enumerate(self.lines[question.line + 1 : question.end], start=question.line + 1)
            if i not in skipped
        ).strip()


def load_handout(assignment: Assignment) -> Handout:
    path = assignment.root / "handouts" / f"{assignment.name}.md"
    if not path.is_file():
        raise HandoutError(f"no handout source at {path}")
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    tokens = MarkdownIt("commonmark").parse(text)
    headings = [(t.map[0], int(t.tag[1])) for t in tokens if t.type == "heading_open" and t.map]
    titles = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open" and t.map]
    blocks = [
        Block(t.info.strip(), t.map[0], t.map[1], t.content)
        for t in tokens
        if t.type == "fence" and t.map and t.info.strip() in ("run", "answer")
    ]
    questions, problems = [], []
    question_lines = [line for (line, _), title in zip(headings, titles) if HEADING.match(title)]
    for index, ((line, level), title) in enumerate(zip(headings, titles)):
        match = HEADING.match(title)
        if match is None:
            if re.match(r"^\d+[a-h]?(?:-[ivx]+)?\.\s", title) and "point" in title:
                problems.append(
                    f"line {line + 1}: {title!r} looks like a question but is not written "
                    "as 'ID. Title (P points; code | written | written, auto-graded)'"
                )
            continue
        kind = KINDS.get(match["kind"])
        if kind is None:
            problems.append(f"line {line + 1}: unknown kind {match['kind']!r}; use one of {', '.join(KINDS)}")
            continue
        end = next((other for other, other_level in headings[index + 1 :] if other_level <= level), len(lines))
        # A template belongs to the question right above it, not to the code question around it.
        own_end = min([end] + [other for other in question_lines if other > line])
        template = next((b.content for b in blocks if b.info == "answer" and line < b.start < own_end), None)
        questions.append(
            HandoutQuestion(match["id"], title.strip(), float(match["points"]), kind, level, line, end, template)
        )
    problems += _disagreements(assignment, questions)
    if problems:
        raise HandoutError(f"{path} does not agree with the config of {assignment.name}:\n  " + "\n  ".join(problems))
    return Handout(path, lines, headings, questions, blocks)


def _disagreements(assignment: Assignment, questions: list[HandoutQuestion]) -> list[str]:
    config = assignment.config
    declared: dict[str, tuple[float, Kind]] = {
        q.id: (q.points, "code" if q.kind == "code" else "auto") for q in config.questions
    }
    declared.update({q.id: (q.points, "manual") for q in config.manual_questions})
    names = {kind: name for name, kind in KINDS.items()}
    formats = handout_data(assignment).answer_formats
    problems = []
    seen: set[str] = set()
    for question in questions:
        where = f"line {question.line + 1}: {question.id}"
        if question.id in seen:
            problems.append(f"{where} has a second heading")
        seen.add(question.id)
        if question.id not in declared:
            problems.append(f"{where} is not a question of the config")
            continue
        points, kind = declared[question.id]
        if abs(points - question.points) > 1e-9:
            problems.append(f"{where} says {question.points:g} points, the config {points:g}")
        if kind != question.kind:
            problems.append(f"{where} says {names[question.kind]!r}, the config makes it {names[kind]!r}")
        if question.template is not None and question.kind == "code":
            problems.append(f"{where} is a code question but has an answer template")
        template = form.template() if (form := formats.get(question.id)) is not None else ""
        if template and " ".join((question.template or "").split()) != " ".join(template.split()):
            problems.append(
                f"{where}: its answer block must be the template that ANSWER_FORMATS gives, "
                f"so that an untouched template counts as unanswered:\n{template}"
            )
    for missing in sorted(set(declared) - seen):
        problems.append(f"question {missing} of the config has no heading in the handout")
    return problems
