"""``export-written``: one HTML page per written question graded by hand, with every student's answer.

Sources are a Gradescope "Export Submissions" folder (each submission's answer sheet is found as the
grader finds it), submission folders, or answer files (``.md`` or ``.ipynb``). Each page shows the
question as the handout asks it, the reference answer (folded, when solutions/written/ is present),
then the answers, rendered from Markdown with the math typeset as MathML when the page is written, so
that it shows offline and no request leaves the page. Students' text is escaped: raw HTML in an
answer is shown, never run.

On the page of a derivation question (``DERIVATIONS`` in the assignment's handout.py), each answer
shows the machine's verdict on its final formula (equal, not equal with where it differs, or
unreadable with what was read), and the answers come grouped by verdict, equal first: TAs still
grade, and can check a group of equal answers quickly and read the others closely.
"""

from __future__ import annotations

import html
import json
import re
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt

from autograder.core.config import Assignment, ConfigError, ManualQuestion
from autograder.core.submission import locate
from autograder.course.gradescope_export import METADATA_FILE, load_export
from autograder.course.hand_graded import TEMPLATE, Scores, hand_questions, read_hand_graded, scores_of, template_csv
from autograder.course.mathml import in_symbols, to_mathml
from autograder.written.answers import AnswersError, AnswerSheet, choose_answer_sheet, read_answers
from autograder.written.derivations.final import plain_formulas
from autograder.written.derivations.verdict import DerivationQuestion, Verdict, judge
from autograder.written.handout_data import NoReferenceFormulas, derivation_questions
from autograder.written.handout_source import HandoutError, load_handout
from autograder.written.labels import sort_key
from autograder.written.latex import Math, math_in

# A student's image or link would make the page fetch (or invite a click on) an address the student
# chose: a tracking pixel, a file of the TA's disk. Both are shown as the text they are.
_MARKDOWN = MarkdownIt("commonmark", {"html": False}).enable("table").disable(["image", "link", "autolink"])
# Defence in depth: the page may load nothing but what it holds (its own style and script inline).
_POLICY = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"
_PLACEHOLDER = re.compile(r"MATHPLACEHOLDER(\d+)X")
MAX_RENDERED = 50_000  # characters of one answer rendered from Markdown (at most a second or so)
_PAGE_FILES = Path(__file__).resolve().parent / "page_files"  # the pages' style and script


@dataclass(frozen=True)
class Student:
    name: str
    source: str  # where the answers came from
    sheet: AnswerSheet | None
    note: str  # why there is no sheet, or which of two was read


def render(markdown: str) -> str:
    """Markdown to HTML with the math typeset as MathML (:mod:`autograder.course.mathml`), the LaTeX
    shown as code where it cannot be. The math is taken out before Markdown runs, which would eat its
    * and _, and the backslashes of \\[ and of rows \\\\ outside $: ``$``, ``$$``, ``\\[``, ``\\(``
    and ``align``; so are the formulas written in unicode without ``$``, shown as written. An answer
    longer than MAX_RENDERED characters is shown as it was written: Markdown's time on some texts
    grows with their length far beyond that of an ordinary answer."""
    if len(markdown) > MAX_RENDERED:
        return (
            f'<p class="missing">Shown as written, without Markdown: longer than {MAX_RENDERED:,} '
            f"characters.</p><pre>{html.escape(markdown)}</pre>"
        )
    parts: list[str] = []
    shown: list[str] = []
    position = 0
    for start, end, math in _kept_as_written(markdown):
        parts.append(markdown[position:start])
        parts.append(f"MATHPLACEHOLDER{len(shown)}X")
        shown.append(_typeset(markdown, start, end, math))
        position = end
    parts.append(markdown[position:])
    rendered = _MARKDOWN.render("".join(parts))
    # One pass over the page, whatever the number of formulas.
    return _PLACEHOLDER.sub(lambda match: shown[int(match[1])], rendered)


def _typeset(markdown: str, start: int, end: int, math: Math | None) -> str:
    """The HTML of one kept span: MathML, or the source as code when it is not math or cannot be read."""
    written = markdown[start:end]
    if math is None:
        return html.escape(written)
    # An environment is converted whole: its body alone (rows with &) is no formula.
    latex = written if written.startswith("\\begin") else markdown[math.inside_start : math.inside_end]
    typeset = to_mathml(latex, display=math.display)
    return typeset if typeset is not None else f'<code class="latex">{html.escape(written)}</code>'


def _kept_as_written(markdown: str) -> list[tuple[int, int, Math | None]]:
    """Where Markdown must not go, in order: the math, and the formulas written in unicode without
    ``$`` that the derivation reader takes (``∑_{k=1}^K σ(u_{w_k}ᵀ v_c)``: its ``_`` are no italics)."""
    spans: list[tuple[int, int, Math | None]] = [(math.start, math.end, math) for math in math_in(markdown)]
    starts = [start for start, _, _ in spans]
    for offset, text in plain_formulas(markdown):
        at = bisect_right(starts, offset) - 1
        if at < 0 or spans[at][1] <= offset:  # not inside math: a line of a $$ block is its math
            spans.append((offset, offset + len(text), None))
    return sorted(spans, key=lambda span: span[0])


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
    """A whole page, with our style and script inline: it needs nothing outside its folder."""
    return (
        f'<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{_POLICY}">\n'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n<style>\n{_asset('pages.css')}</style>\n</head>\n"
        f"<body>\n{body}\n<script>\n{_asset('pages.js')}</script>\n</body>\n</html>\n"
    )


def _asset(name: str) -> str:
    return (_PAGE_FILES / name).read_text(encoding="utf-8")


def _reference_answers(assignment: Assignment) -> AnswerSheet | None:
    path = assignment.root / "solutions" / "written" / f"{assignment.name}.md"
    return read_answers(path, assignment.config) if path.is_file() else None


@dataclass(frozen=True)
class _Sources:
    """What every question's page draws on besides the answers."""

    asked: dict[str, str]  # question id -> the handout's text
    reference: AnswerSheet | None
    checks: dict[str, DerivationQuestion]
    given: Scores  # the points already in hand_graded.csv
    by_hand: frozenset[str]  # the questions whose points a TA enters


def export_pages(assignment: Assignment, students: list[Student], out: Path) -> list[Path]:
    """Write ``out/index.html``, one page per question graded by hand, and (unless it is there
    already) ``out/hand_graded.csv``, a row per student for the TAs' points; returns the pages."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    questions: list[ManualQuestion] = sorted(assignment.config.manual_questions, key=lambda q: sort_key(q.id))
    by_hand = frozenset(q.id for q in hand_questions(assignment.config))
    given = _given(out / TEMPLATE, assignment)
    sources = _Sources(_asked(assignment), _reference_answers(assignment), _derivations(assignment), given, by_hand)
    groups: dict[str, Counter[str]] = {}  # question -> its answers counted by group, for the index
    pages = []
    for index, question in enumerate(questions):
        found = _verdicts(sources.checks.get(question.id), students, question.id)
        grouped = [_group(student, question.id, found.get(i)) for i, student in enumerate(students)]
        groups[question.id] = Counter(grouped)
        body = _question_page(question, _links(questions, index), students, found, grouped, sources)
        path = out / f"{question.id}.html"
        path.write_text(_page(f"{question.id} · {question.title}", body), encoding="utf-8")
        pages.append(path)
    index_page = _index(assignment, questions, students, groups, sources)
    (out / "index.html").write_text(index_page, encoding="utf-8")
    template = out / TEMPLATE
    if not template.exists():  # a TA's points there are never written over
        template.write_text(template_csv(assignment.config, [(s.source, s.name) for s in students]), encoding="utf-8")
    return pages


def _asked(assignment: Assignment) -> dict[str, str]:
    """Each question's text in the handout; none without the handout's source."""
    try:
        handout = load_handout(assignment)
    except HandoutError:
        return {}
    # The handout's markers of what is written from code are comments, not text to show.
    return {q.id: _COMMENT.sub("", handout.body(q)) for q in handout.questions}


def _given(path: Path, assignment: Assignment) -> Scores:
    """The points a TA already wrote in ``path``, shown in the pages' score boxes; none when it cannot
    be read (grade-batch says why when it reads it)."""
    try:
        return read_hand_graded(path, assignment.config) if path.is_file() else {}
    except ConfigError:
        return {}


def _links(questions: list[ManualQuestion], index: int) -> str:
    links = ['<a href="index.html">all questions</a>']
    if index > 0:
        links.append(f'<a href="{questions[index - 1].id}.html">previous: {questions[index - 1].id}</a>')
    if index + 1 < len(questions):
        links.append(f'<a href="{questions[index + 1].id}.html">next: {questions[index + 1].id}</a>')
    return f"<nav>{' · '.join(links)}</nav>"


def _group(student: Student, question: str, verdict: Verdict | None) -> str:
    """Which group of the page an answer is in: its verdict, answered, or unanswered."""
    if student.sheet is None or not student.sheet.answered(question):
        return "unanswered"
    return verdict.status if verdict is not None else "answered"


_GROUPS = ("equal", "not equal", "unreadable", "answered", "unanswered")


def _question_page(
    question: ManualQuestion,
    links: str,
    students: list[Student],
    found: dict[int, Verdict],
    grouped: list[str],
    sources: _Sources,
) -> str:
    body = [links, f"<h1>{question.id}. {html.escape(question.title)} ({question.points:g} points)</h1>"]
    if question.id in sources.asked:
        body.append(f'<section class="question">{render(sources.asked[question.id])}</section>')
    if sources.reference is not None and sources.reference.answered(question.id):
        body.append(
            f"<details><summary>Reference answer</summary>{render(sources.reference.text(question.id))}</details>"
        )
    counts = Counter(grouped)
    body.append(f"<h2>Answers: {len(students) - counts['unanswered']} of {len(students)} students</h2>")
    if found:
        body.append(
            f'<p class="source">The machine\'s check of the final formula: {_counted(counts, verdicts=True)}.</p>'
        )
    body.append(_summary(counts, len(students)))
    order = sorted(range(len(students)), key=lambda i: _GROUPS.index(grouped[i]))
    for number, position in enumerate(order, start=1):
        body.append(_article(number, students[position], question, found.get(position), grouped[position], sources))
    return "\n".join(body)


def _counted(counts: Counter[str], *, verdicts: bool = False) -> str:
    shown = _VERDICT_ORDER if verdicts else _GROUPS
    return " · ".join(f"{counts[g]} {g}" for g in shown if counts[g])


def _summary(counts: Counter[str], total: int) -> str:
    """The page's groups with their counts, as buttons that show one group at a time."""
    buttons = [f'<button type="button" data-show="all" aria-pressed="true">all ({total})</button>']
    buttons += [
        f'<button type="button" data-show="{group}" aria-pressed="false">{group} ({counts[group]})</button>'
        for group in _GROUPS
        if counts[group]
    ]
    return f'<div class="summary" role="toolbar" aria-label="show the answers">Show: {" ".join(buttons)}</div>'


def _article(
    number: int, student: Student, question: ManualQuestion, verdict: Verdict | None, group: str, sources: _Sources
) -> str:
    parts = [f'<article id="student-{number}" data-group="{group}">']
    if question.id in sources.by_hand:
        parts.append(_score_box(student, question, sources.given))
    parts.append(f"<h3>{html.escape(student.name)}</h3>")
    if group != "unanswered" and student.sheet is not None:
        answer = student.sheet.answers[question.id]
        where = f"{student.source} · {student.sheet.source}, {answer.where}"
        parts.append(f'<p class="source">{html.escape(where)}</p>')
        if verdict is not None:
            parts.append(_verdict_html(verdict))
        parts.append(f'<div class="answer">{render(answer.text)}</div>')
    else:
        reason = student.note if student.sheet is None else "no answer to this question"
        parts.append(f'<p class="missing">{html.escape(reason)}</p>')
    parts.append("</article>")
    return "\n".join(parts)


def _score_box(student: Student, question: ManualQuestion, given: Scores) -> str:
    """Where the TA enters the answer's points (kept by the browser, saved from the index)."""
    points = (scores_of(given, student.source, "", "", student.name) or {}).get(question.id)
    value = f' value="{points:g}"' if points is not None else ""
    return (
        f'<label class="score">points <input class="score-input" type="number" min="0" max="{question.points:g}" '
        f'step="any" data-question="{html.escape(question.id)}" data-submission="{html.escape(student.source)}"'
        f'{value}> / {question.points:g} <span class="differs"></span></label>'
    )


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
    lines = "\n".join(_verdict_line(line) for line in verdict.summary().splitlines())
    return (
        f'<div class="verdict {css}">Final formula, checked by machine: <b>{verdict.status}</b><pre>{lines}</pre></div>'
    )


# A piece of the student's LaTeX that a verdict quotes ('\frac{n_w}{K} v_c': K is a size ...).
_QUOTED = re.compile(r"'([^'\n]*\\[A-Za-z][^'\n]*)'")


def _verdict_line(line: str) -> str:
    """A line of the verdict as text, with the reader's names as symbols and quoted LaTeX typeset."""
    parts, position = [], 0
    for quoted in _QUOTED.finditer(line):
        parts.append(html.escape(in_symbols(line[position : quoted.start()])))
        typeset = to_mathml(quoted[1], display=False)
        parts.append(f"“{typeset}”" if typeset is not None else f'<code class="latex">{html.escape(quoted[1])}</code>')
        position = quoted.end()
    parts.append(html.escape(in_symbols(line[position:])))
    return "".join(parts)


def _index(
    assignment: Assignment,
    questions: list[ManualQuestion],
    students: list[Student],
    groups: dict[str, Counter[str]],
    sources: _Sources,
) -> str:
    rows = [
        f'<tr><td><a href="{q.id}.html">{q.id}</a></td><td>{html.escape(q.title)}</td><td>{q.points:g}</td>'
        f"<td>{len(students) - groups[q.id]['unanswered']} of {len(students)}</td>"
        f"<td>{_counted(groups[q.id], verdicts=True)}</td></tr>"
        for q in questions
    ]
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
        _save_button(questions, students, sources),
    ]
    if notes:
        body += ["<h2>To look at</h2>", "<ul>", *notes, "</ul>"]
    return _page(f"{assignment.config.title}: written answers", "\n".join(body))


def _save_button(questions: list[ManualQuestion], students: list[Student], sources: _Sources) -> str:
    """Saves the points entered on the pages as hand_graded.csv, which grade-batch --hand-graded reads."""
    ids = [[q.id, q.points] for q in questions if q.id in sources.by_hand]
    rows = [[s.source, s.name, scores_of(sources.given, s.source, "", "", s.name) or {}] for s in students]
    return (
        f'<p><button type="button" id="save-csv" data-questions="{html.escape(json.dumps(ids))}" '
        f'data-students="{html.escape(json.dumps(rows))}">Save the points entered as {TEMPLATE}</button> '
        f"Points entered on the pages are kept by this browser; save them into this folder, over {TEMPLATE}, "
        'and grade-batch --hand-graded reads them.</p><p id="save-problems"></p>'
    )
