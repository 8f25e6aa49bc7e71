"""Finds the math in a Markdown answer (``$...$`` and ``$$...$$``) and what is broken in it.

Two mistakes are common and invisible in an editor: a ``$`` that never closes (everything after
it renders as math, or the math shows as raw text), and a control character inside math, which is
what a LaTeX command becomes when its backslash was read as an escape: ``\\frac`` -> form feed +
``rac``, ``\\beta`` -> backspace + ``eta``, ``\\theta`` -> tab + ``heta``.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate

_FENCE = re.compile(r"^[ \t]*(?:```|~~~)", re.MULTILINE)
_BACKTICKS = re.compile(r"`+")
# Unicode's control characters (category Cc) but the newline.
_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")
_HINTS = {
    "\x07": "\\a (was it \\alpha?)",
    "\x08": "\\b (was it \\beta or \\bar?)",
    "\x0c": "\\f (was it \\frac?)",
    "\x0b": "\\v (was it \\vec or \\varepsilon?)",
    "\t": "\\t (was it \\theta, \\tau, \\times or \\text?)",
    "\r": "\\r (was it \\rho or \\right?)",
}
MAX_PROBLEMS = 20  # per text: a file made of thousands of $ gets a readable report, and quickly
# Dollar signs and runs of backticks read per text; a text with more (made to be slow: no answer has
# that many) is checked up to there. What stays is linear in the length of the text, and quick.
MAX_MARKS = 50_000
# Display environments that MathJax (and so a notebook) shows without $$ around them.
ENVIRONMENTS = ("align", "align*", "equation", "equation*", "gather", "gather*", "eqnarray", "eqnarray*", "multline")


@dataclass(frozen=True)
class Math:
    """A piece of math: ``start``, ``end`` with its delimiters; ``inside_start``, ``inside_end``
    without them; ``display``: on a line of its own (``$$``, ``\\[``, ``align``), not in a sentence."""

    start: int
    end: int
    inside_start: int
    inside_end: int
    display: bool


class _Lines:
    """Line numbers of increasing offsets, counted once: asking for each offset from the start of
    the text would make a text full of $ quadratic."""

    def __init__(self, text: str) -> None:
        self.text, self.offset, self.line = text, 0, 1

    def at(self, offset: int) -> int:
        self.line += self.text.count("\n", self.offset, offset)
        self.offset = offset
        return self.line


class _Code:
    """Fenced code blocks and inline code spans: a $ in them is not math. ``limit``: where the
    first MAX_MARKS runs of backticks end; beyond it, nothing is known."""

    def __init__(self, text: str) -> None:
        spans, self.limit = _code_spans(text)
        ranges = sorted(code_blocks(text) + spans)
        self.starts = [start for start, _ in ranges]
        # A running maximum, so that the range found by a bisection covers any overlap.
        self.ends = list(accumulate((end for _, end in ranges), max))

    def end_of(self, offset: int) -> int | None:
        """The end of the code that ``offset`` is in, or None when it is in none."""
        index = bisect_right(self.starts, offset) - 1
        return self.ends[index] if index >= 0 and offset < self.ends[index] else None


def code_blocks(text: str) -> list[tuple[int, int]]:
    """Where the fenced code blocks of ``text`` are (start, end)."""
    if "```" not in text and "~~~" not in text:
        return []  # the usual case, found without trying the pattern at every line
    ranges, fences = [], _FENCE.finditer(text)
    for opening in fences:  # and the next fence closes it, to the end of its line
        closing = next(fences, None)
        line_end = -1 if closing is None else text.find("\n", closing.end())
        ranges.append((opening.start(), len(text) if line_end == -1 else line_end + 1))
    return ranges


def _code_spans(text: str) -> tuple[list[tuple[int, int]], int]:
    """A run of backticks opens a code span that the next run of the same length closes (CommonMark);
    a run with no such partner is plain text. Linear: each run's partner is found once, from the end.
    Also returns where the runs read end (the end of the text, unless it has over MAX_MARKS)."""
    runs = [match.span() for match, _ in zip(_BACKTICKS.finditer(text), range(MAX_MARKS + 1))]
    limit = runs.pop()[0] if len(runs) > MAX_MARKS else len(text)
    partner: list[int | None] = [None] * len(runs)
    last_of_length: dict[int, int] = {}
    for index in range(len(runs) - 1, -1, -1):
        length = runs[index][1] - runs[index][0]
        partner[index] = last_of_length.get(length)
        last_of_length[length] = index
    spans, index = [], 0
    while index < len(runs):
        if (closing := partner[index]) is not None:
            spans.append((runs[index][0], runs[closing][1]))
        index = index + 1 if closing is None else closing + 1
    return spans, limit


def scan(text: str) -> tuple[list[Math], list[tuple[int, str]]]:
    """The math spans of ``text`` and the problems found (unbalanced ``$``, control characters),
    each with its 1-based line in ``text``; at most MAX_PROBLEMS problems and a last line saying
    that more follow. Linear in the length of ``text``."""
    code, lines = _Code(text), _Lines(text)
    spans: list[Math] = []
    problems: list[tuple[int, str]] = []
    position = 0
    for _ in range(MAX_MARKS):
        opening = text.find("$", position, code.limit)
        if opening == -1:
            break
        inside_code = code.end_of(opening)
        if inside_code is not None or (opening > 0 and text[opening - 1] == "\\"):
            position = inside_code or opening + 1
            continue
        display = text.startswith("$$", opening)
        delimiter = "$$" if display else "$"
        closing = _closing(text, delimiter, opening + len(delimiter))
        # Inline math cannot cross a paragraph break; display math may span lines.
        if closing == -1 or (not display and text.find("\n\n", opening, closing) != -1):
            if len(problems) <= MAX_PROBLEMS:
                excerpt = text[opening : opening + 30].split("\n")[0]
                problems.append((lines.at(opening), f"the {delimiter} before '{excerpt}' is never closed"))
            position = opening + len(delimiter)
            continue
        spans.append(Math(opening, closing + len(delimiter), opening + len(delimiter), closing, display))
        position = closing + len(delimiter)
    unchecked = [(position, "$ signs")] if text.find("$", position, code.limit) != -1 else []
    if code.limit < len(text):
        unchecked.append((max(position, code.limit), "runs of backticks"))
    for offset, marks in unchecked:
        message = f"the math after this line is not checked: the text has more than {MAX_MARKS:,} {marks}"
        problems.append((lines.at(offset), message))
    problems += _control_characters(text, spans)
    if len(problems) > MAX_PROBLEMS:
        problems = problems[:MAX_PROBLEMS] + [
            (problems[MAX_PROBLEMS][0], "more problems with math follow; fix the ones above first")
        ]
    return spans, problems


def _closing(text: str, delimiter: str, start: int) -> int:
    """Where the first ``delimiter`` at or after ``start`` that no backslash escapes begins; -1 if none."""
    while (closing := text.find(delimiter, start)) != -1 and text[closing - 1] == "\\":
        start = closing + 1
    return closing


def _control_characters(text: str, spans: list[Math]) -> list[tuple[int, str]]:
    lines, found = _Lines(text), []
    for span in spans:
        for match in _CONTROL.finditer(text, span.start, span.end):
            hint = _HINTS.get(match[0])
            lost = f": a backslash command lost its backslash, {hint}" if hint else ""
            found.append((lines.at(match.start()), f"control character U+{ord(match[0]):04X} inside math{lost}"))
            if len(found) > MAX_PROBLEMS:
                return found
    return found


def math_in(text: str) -> list[Math]:
    """All the math of ``text``, in order: ``$...$`` and ``$$...$$`` as :func:`scan` finds them, and
    outside those ``\\[...\\]``, ``\\(...\\)`` and display environments, which notebooks show
    without ``$``. Linear in the length of the text."""
    spans, _ = scan(text)
    fenced = (
        [Math(m.start(), m.end(), m.start(1), m.end(1), True) for m in _MATH_FENCE.finditer(text)]
        if "```math" in text
        else []
    )
    return sorted(spans + _bracketed_math(text, spans) + fenced, key=lambda math: math.start)


# GitHub's math block: a fenced block whose info is "math" holds display math.
_MATH_FENCE = re.compile(r"^[ \t]*```math[ \t]*\n(.*?)^[ \t]*```[ \t]*$", re.MULTILINE | re.DOTALL)


def _bracketed_math(text: str, spans: list[Math]) -> list[Math]:
    """The math of ``text`` outside its ``$`` ``spans``, in order."""
    masked = list(text)
    for span in spans:
        masked[span.start : span.end] = " " * (span.end - span.start)
    outside = "".join(masked)
    delimiters = [("\\[", "\\]"), ("\\(", "\\)")] + [(f"\\begin{{{e}}}", f"\\end{{{e}}}") for e in ENVIRONMENTS]
    found = [
        Math(start, end + len(closing), start + len(opening), end, opening != "\\(")
        for opening, closing in delimiters
        for start, end in delimited(outside, opening, closing)
    ]
    found.sort(key=lambda math: math.start)
    kept: list[Math] = []
    for math in found:  # \[ inside an align, say: the outer one holds it
        if not kept or math.start >= kept[-1].end:
            kept.append(math)
    return kept


def delimited(text: str, opening: str, closing: str) -> list[tuple[int, int]]:
    """(start, end of the inside) of every ``opening ... closing`` of ``text``, in one pass: an
    opening that never closes ends the search, as no later one can close either."""
    found, position = [], 0
    while (start := text.find(opening, position)) != -1:
        end = text.find(closing, start + len(opening))
        if end == -1:
            break
        found.append((start, end))
        position = end + len(closing)
    return found
