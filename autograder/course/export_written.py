"""``export-written``: one HTML page per written question graded by hand, with every student's answer.

Sources are a Gradescope "Export Submissions" folder (each submission's answer sheet is found as the
grader finds it), submission folders, or answer files (``.md`` or ``.ipynb``). Each page shows the
question as the handout asks it, the reference answer (folded, when solutions/written/ is present),
then the answers, rendered from Markdown with the math typeset by MathJax. Students' text is
escaped: raw HTML in an answer is shown, never run.

On the page of a derivation question (``DERIVATIONS`` in the assignment's handout.py), each answer
shows the machine's verdict on its final formula (equal, not equal with where it differs, or
unreadable with what was read), and the answers come grouped by verdict, equal first: TAs still
grade, and can check a group of equal answers quickly and read the others closely.
"""

from __future__ import annotations

import html
import re
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt

from autograder.core.config import Assignment, ManualQuestion
from autograder.core.submission import locate
from autograder.course.gradescope_export import METADATA_FILE, load_export
from autograder.course.hand_graded import TEMPLATE, template_csv
from autograder.written.answers import AnswersError, AnswerSheet, choose_answer_sheet, read_answers
from autograder.written.derivations.final import plain_formulas
from autograder.written.derivations.verdict import DerivationQuestion, Verdict, judge
from autograder.written.handout_data import NoReferenceFormulas, derivation_questions
from autograder.written.handout_source import HandoutError, load_handout
from autograder.written.labels import sort_key
from autograder.written.latex import math_in

_MARKDOWN = MarkdownIt("commonmark", {"html": False}).enable("table")
_PLACEHOLDER = re.compile(r"MATHPLACEHOLDER(\d+)X")
MAX_RENDERED = 50_000  # characters of one answer rendered from Markdown (at most a second or so)
_STYLE = """
body { font-family: Georgia, serif; max-width: 52rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.5; }
nav { font-family: sans-serif; font-size: 0.9rem; margin-bottom: 1rem; }
.question { background: #f4f6f8; padding: 0.5rem 1rem; border-left: 4px solid #1f4e79; }
details { margin: 1rem 0; } summary { cursor: pointer; font-weight: bold; }
article { border-top: 1px solid #ccc; padding: 0.5rem 0 1rem; }
article h3 { font-family: sans-serif; font-size: 1rem; margin-bottom: 0; }
.source { font-family: sans-serif; font-size: 0.8rem; color: #666; margin-top: 0; }
.missing { color: #a00; font-style: italic; }
.verdict { font-family: sans-serif; font-size: 0.85rem; padding: 0.2rem 0.5rem; border-radius: 3px; }
.verdict pre { margin: 0.2rem 0 0; white-space: pre-wrap; }
.equal { background: #e6f4ea; } .not-equal { background: #fde8e8; } .unreadable { background: #f1f1f1; }
table { border-collapse: collapse; } td, th { border: 1px solid #ccc; padding: 0.2rem 0.5rem; }
"""
_MATHJAX = (
    "<script>MathJax = {tex: {inlineMath: [['$', '$'], ['\\\\(', '\\\\)']], "
    "displayMath: [['$$', '$$'], ['\\\\[', '\\\\]']]}};</script>\n"
    '<script defer src="https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-chtml.js"></script>'
)


@dataclass(frozen=True)
class Student:
    name: str
    source: str  # where the answers came from
    sheet: AnswerSheet | None
    note: str  # why there is no sheet, or which of two was read


def render(markdown: str) -> str:
    """Markdown to HTML with the math left intact for MathJax (Markdown would eat its * and _, and
    the backslashes of \\[ and of rows \\\\ outside $): ``$``, ``$$``, ``\\[``, ``\\(`` and ``align``. An
    answer longer than MAX_RENDERED characters is shown as it was written: Markdown's time on some
    texts grows with their length far beyond that of an ordinary answer."""
    if len(markdown) > MAX_RENDERED:
        return (
            f'<p class="missing">Shown as written, without Markdown: longer than {MAX_RENDERED:,} '
            f"characters.</p><pre>{html.escape(markdown)}</pre>"
        )
    parts: list[str] = []
    saved: list[str] = []
    position = 0
    for start, end in _kept_as_written(markdown):
        parts.append(markdown[position:start])
        parts.append(f"MATHPLACEHOLDER{len(saved)}X")
        saved.append(markdown[start:end])
        position = end
    parts.append(markdown[position:])
    rendered = _MARKDOWN.render("".join(parts))
    # One pass over the page, whatever the number of formulas.
    return _PLACEHOLDER.sub(lambda match: html.escape(saved[int(match[1])]), rendered)


def _kept_as_written(markdown: str) -> list[tuple[int, int]]:
    """Where Markdown must not go, in order: the math, and the formulas written in unicode without
    ``$`` that the derivation reader takes (``∑_{k=1}^K σ(u_{w_k}ᵀ v_c)``: its ``_`` are no italics)."""
    spans = [(math.start, math.end) for math in math_in(markdown)]
    starts = [start for start, _ in spans]
    for offset, text in plain_formulas(markdown):
        at = bisect_right(starts, offset) - 1
        if at < 0 or spans[at][1] <= offset:  # not inside math: a line of a $$ block is its math
            spans.append((offset, offset + len(text)))
    return sorted(spans)


def gather(assignment: Assignment, sources: list[Path]) -> list[Student]:
    """Every student's answers from ``sources``: export folders, submission folders or answer files."""
    config = assignment.config
    students: list[Student] = []
    for source in map(Path, sources):
        if source.is_dir() and (
            (source / METADATA_FILE).is_file()
            or any((inner / METADATA_FILE).is_file() for inner in source.iterdir() if inner.is_dir())
        ):
            export = load_export(source)
            for entry in export.entries:
                name = ", ".join(s.name for s in entry.metadata.submitters)
                if not entry.folder.is_dir():
                    students.append(Student(name, entry.name, None, "the export has no folder for it"))
                    continue
                found = choose_answer_sheet(locate(entry.folder, config.submission_files).folder, config)
                students.append(Student(name, entry.name, found.sheet, found.note))
        elif source.is_dir():
            found = choose_answer_sheet(locate(source, config.submission_files).folder, config)
            students.append(Student(source.name, str(source), found.sheet, found.note))
        else:
            name = source.parent.name if source.stem in ("written", assignment.name) else source.stem
            try:
                students.append(Student(name, str(source), read_answers(source, config), ""))
            except AnswersError as error:
                students.append(Student(name, str(source), None, str(error)))
    return sorted(students, key=lambda s: s.name.lower())


def _page(title: str, body: str) -> str:
    return (
        f'<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(title)}</title>\n{_MATHJAX}\n<style>{_STYLE}</style>\n</head>\n"
        f"<body>\n{body}\n</body>\n</html>\n"
    )


def _reference_answers(assignment: Assignment) -> AnswerSheet | None:
    path = assignment.root / "solutions" / "written" / f"{assignment.name}.md"
    return read_answers(path, assignment.config) if path.is_file() else None


def export_pages(assignment: Assignment, students: list[Student], out: Path) -> list[Path]:
    """Write ``out/index.html``, one page per question graded by hand, and (unless it is there
    already) ``out/hand_graded.csv``, a row per student for the TAs' points; returns the pages."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    questions: list[ManualQuestion] = sorted(assignment.config.manual_questions, key=lambda q: sort_key(q.id))
    try:
        handout = load_handout(assignment)
        # The handout's markers of what is written from code are comments, not text to show.
        asked = {q.id: _COMMENT.sub("", handout.body(q)) for q in handout.questions}
    except HandoutError:
        asked = {}  # without the handout source, the pages show the answers only
    reference = _reference_answers(assignment)
    checks = _derivations(assignment)
    checked: dict[str, str] = {}  # question -> its verdicts counted, for the index
    pages = []
    for index, question in enumerate(questions):
        links = ['<a href="index.html">all questions</a>']
        if index > 0:
            links.append(f'<a href="{questions[index - 1].id}.html">previous: {questions[index - 1].id}</a>')
        if index + 1 < len(questions):
            links.append(f'<a href="{questions[index + 1].id}.html">next: {questions[index + 1].id}</a>')
        body = [
            f"<nav>{' · '.join(links)}</nav>",
            f"<h1>{question.id}. {html.escape(question.title)} ({question.points:g} points)</h1>",
        ]
        if question.id in asked:
            body.append(f'<section class="question">{render(asked[question.id])}</section>')
        if reference is not None and reference.answered(question.id):
            body.append(f"<details><summary>Reference answer</summary>{render(reference.text(question.id))}</details>")
        answered = sum(1 for s in students if s.sheet is not None and s.sheet.answered(question.id))
        body.append(f"<h2>Answers: {answered} of {len(students)} students</h2>")
        found = _verdicts(checks.get(question.id), students, question.id)
        if found:
            counts = Counter[str](v.status for v in found.values())
            checked[question.id] = " · ".join(f"{counts[s]} {s}" for s in _VERDICT_ORDER if counts[s])
            body.append(f'<p class="source">The machine\'s check of the final formula: {checked[question.id]}.</p>')
        order = sorted(range(len(students)), key=lambda i: _VERDICT_ORDER.index(found[i].status) if i in found else 3)
        for number, position in enumerate(order, start=1):
            student = students[position]
            body.append(f'<article id="student-{number}"><h3>{html.escape(student.name)}</h3>')
            if student.sheet is not None and student.sheet.answered(question.id):
                answer = student.sheet.answers[question.id]
                where = f"{student.source} · {student.sheet.source}, {answer.where}"
                body.append(f'<p class="source">{html.escape(where)}</p>')
                if position in found:
                    body.append(_verdict_html(found[position]))
                body.append(render(answer.text))
            else:
                reason = student.note if student.sheet is None else "no answer to this question"
                body.append(f'<p class="missing">{html.escape(reason)}</p>')
            body.append("</article>")
        path = out / f"{question.id}.html"
        path.write_text(_page(f"{question.id} · {question.title}", "\n".join(body)), encoding="utf-8")
        pages.append(path)
    (out / "index.html").write_text(_index(assignment, questions, students, checked), encoding="utf-8")
    template = out / TEMPLATE
    if not template.exists():  # a TA's points there are never written over
        template.write_text(template_csv(assignment.config, [(s.source, s.name) for s in students]), encoding="utf-8")
    return pages


_VERDICT_ORDER = ("equal", "not equal", "unreadable")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


def _derivations(assignment: Assignment) -> dict[str, DerivationQuestion]:
    """The derivation questions with their reference formulas; none outside the repository."""
    try:
        return derivation_questions(assignment)
    except NoReferenceFormulas:
        return {}


def _verdicts(derivation: DerivationQuestion | None, students: list[Student], question: str) -> dict[int, Verdict]:
    """The verdict on each student's answer to ``question``, by position; empty for no derivation."""
    if derivation is None:
        return {}
    return {
        i: judge(s.sheet.text(question), derivation)
        for i, s in enumerate(students)
        if s.sheet is not None and s.sheet.answered(question)
    }


def _verdict_html(verdict: Verdict) -> str:
    css = verdict.status.replace(" ", "-")
    return (
        f'<div class="verdict {css}">Final formula, checked by machine: <b>{verdict.status}</b>'
        f"<pre>{html.escape(verdict.summary())}</pre></div>"
    )


def _index(
    assignment: Assignment, questions: list[ManualQuestion], students: list[Student], checked: dict[str, str]
) -> str:
    rows = []
    for question in questions:
        answered = sum(1 for s in students if s.sheet is not None and s.sheet.answered(question.id))
        rows.append(
            f'<tr><td><a href="{question.id}.html">{question.id}</a></td>'
            f"<td>{html.escape(question.title)}</td><td>{question.points:g}</td>"
            f"<td>{answered} of {len(students)}</td><td>{checked.get(question.id, '')}</td></tr>"
        )
    notes = [f"<li>{html.escape(s.name)}: {html.escape(s.note)}</li>" for s in students if s.note]
    notes += [
        f"<li>{html.escape(s.name)}: text not under any question ({html.escape(u.where)}): "
        f"{html.escape(u.excerpt)}</li>"
        for s in students
        if s.sheet
        for u in s.sheet.unplaced
    ]
    body = [
        f"<h1>{html.escape(assignment.config.title)}: written answers graded by hand</h1>",
        "<table><tr><th>Q</th><th>Question</th><th>Points</th><th>Answered</th>"
        "<th>Final formula, checked by machine</th></tr>",
        *rows,
        "</table>",
    ]
    if notes:
        body += ["<h2>To look at</h2>", "<ul>", *notes, "</ul>"]
    return _page(f"{assignment.config.title}: written answers", "\n".join(body))
