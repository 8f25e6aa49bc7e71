"""Finds the math in a Markdown answer (``$...$`` and ``$$...$$``) and what is broken in it.

Two mistakes are common and invisible in an editor: a ``$`` that never closes (everything after
it renders as math, or the math shows as raw text), and a control character inside math, which is
what a LaTeX command becomes when its backslash was read as an escape: ``\\frac`` -> form feed +
``rac``, ``\\beta`` -> backspace + ``eta``, ``\\theta`` -> tab + ``heta``.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

_FENCE = re.compile(r"^\s*(```|~~~)")
_HINTS = {"\x07": "\\a (was it \\alpha?)", "\x08": "\\b (was it \\beta or \\bar?)",
          "\x0c": "\\f (was it \\frac?)", "\x0b": "\\v (was it \\vec or \\varepsilon?)",
          "\t": "\\t (was it \\theta, \\tau, \\times or \\text?)", "\r": "\\r (was it \\rho or \\right?)"}


@dataclass(frozen=True)
class MathSpan:
    start: int  # offsets into the text, delimiters included
    end: int
    display: bool
    line: int  # 1-based line of the opening $


def _code_ranges(text: str) -> list[tuple[int, int]]:
    """Fenced code blocks and inline code spans: a $ in them is not math."""
    ranges, offset, fence_start = [], 0, None
    for line in text.splitlines(keepends=True):
        if _FENCE.match(line):
            if fence_start is None:
                fence_start = offset
            else:
                ranges.append((fence_start, offset + len(line)))
                fence_start = None
        offset += len(line)
    if fence_start is not None:
        ranges.append((fence_start, len(text)))
    for match in re.finditer(r"(`+)(?!`).+?(?<!`)\1(?!`)", text, re.DOTALL):
        ranges.append(match.span())
    return ranges


def scan(text: str) -> tuple[list[MathSpan], list[tuple[int, str]]]:
    """The math spans of ``text`` and the problems found (unbalanced ``$``, control characters),
    each with its 1-based line in ``text``."""
    code = _code_ranges(text)
    spans: list[MathSpan] = []
    problems: list[tuple[int, str]] = []
    position = 0
    while (opening := text.find("$", position)) != -1:
        inside_code = next((end for start, end in code if start <= opening < end), None)
        if inside_code is not None or (opening > 0 and text[opening - 1] == "\\"):
            position = inside_code or opening + 1
            continue
        display = text.startswith("$$", opening)
        delimiter = "$$" if display else "$"
        closing = opening + len(delimiter)
        while True:
            closing = text.find(delimiter, closing)
            if closing == -1 or text[closing - 1] != "\\":
                break
            closing += 1
        # Inline math cannot cross a paragraph break; display math may span lines.
        if closing == -1 or (not display and "\n\n" in text[opening:closing]):
            line = text.count("\n", 0, opening) + 1
            excerpt = text[opening:opening + 30].split("\n")[0]
            problems.append((line, f"the {delimiter} before '{excerpt}' is never closed"))
            position = opening + len(delimiter)
            continue
        spans.append(MathSpan(opening, closing + len(delimiter), display, text.count("\n", 0, opening) + 1))
        position = closing + len(delimiter)
    for span in spans:
        for offset, char in enumerate(text[span.start:span.end]):
            if char != "\n" and unicodedata.category(char) == "Cc":
                line = text.count("\n", 0, span.start + offset) + 1
                hint = _HINTS.get(char, "")
                problems.append((line, f"control character U+{ord(char):04X} inside math"
                                 + (f": a backslash command lost its backslash, {hint}" if hint else "")))
    return spans, problems
