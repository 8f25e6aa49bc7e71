"""Math written in another language than LaTeX, turned into LaTeX before an answer is read: Typst
(``$ (partial J)/(partial v_c) = U^T (hat(y) - y) $``), AsciiMath between backticks, as course
forums show it (```(del J)/(del v_c) = U^T (hat y - y)```), and LibreOffice Math's source on lines
of its own (``{partial J} over {partial v_c} = U^T ( hat y - y )``). Each language is a table of spellings;
what its math means is then read by the one LaTeX reader, with its own rewrites (``_(w in V)``,
``(\\partial J)/(\\partial x)``), so a spelling is added here and nowhere else.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from autograder.written.derivations.spellings import GREEK

_GREEK = (*GREEK, *"Gamma Delta Theta Lambda Xi Pi Sigma Phi Psi Omega".split())  # spelled out, and capitals


def _words(table: dict[str, str]) -> Callable[[str], str]:
    """Each word of ``table``, not inside a longer word or after a backslash, replaced by its LaTeX."""
    pattern = re.compile(
        r"(?<![\\A-Za-z])(" + "|".join(sorted(map(re.escape, table), key=len, reverse=True)) + r")(?![A-Za-z])"
    )
    return lambda text: pattern.sub(lambda word: table[word[1]] + " ", text)


def _calls(table: dict[str, str]) -> Callable[[str], str]:
    """``name(x)`` for each name of ``table`` as its LaTeX command with ``x`` in braces (one level of
    brackets inside)."""
    pattern = re.compile(r"(?<![\\A-Za-z])(" + "|".join(table) + r")\(((?:[^()]|\([^()]*\))*)\)")
    return lambda text: pattern.sub(lambda call: f"{table[call[1]]}{{{call[2]}}}", text)


def _scripts(text: str) -> str:
    """A script grouped in brackets, ``u_(w_k)``, ``e^(l_c)``, in braces (one level of brackets inside)."""
    return _SCRIPT.sub(r"\1{\2}", text)


_SCRIPT = re.compile(r"([_^])\(((?:[^()]|\([^()]*\))*)\)")


def _cases(text: str) -> str:
    """AsciiMath's cases ``{(a, "if " b), (c, "if " d):}`` as ``\\begin{cases} a & b \\\\ c & d \\end{cases}``."""
    while (start := text.find("{(")) != -1 and (end := text.find(":}", start)) != -1:
        rows, depth, row_start = [], 0, start + 1
        for position in range(start + 1, end):
            depth += {"(": 1, ")": -1}.get(text[position], 0)
            if depth == 0 and text[position] == ")":
                rows.append(text[row_start + 1 : position])
                row_start = text.find("(", position)
        cells = (_split_last_comma(row) for row in rows)
        body = " \\\\ ".join(f"{value} & {_CONDITION_WORDS.sub(' ', condition)}" for value, condition in cells)
        text = text[:start] + "\\begin{cases} " + body + " \\end{cases}" + text[end + 2 :]
    return text


_FONTS = {"bb": "mathbf", "bbb": "mathbb"}  # AsciiMath's bold and blackboard bold
_CONDITION_WORDS = re.compile(r'"\s*(?:if|for|when)?\s*"')


def _split_last_comma(row: str) -> tuple[str, str]:
    depth, cut = 0, -1
    for position, char in enumerate(row):
        depth += {"(": 1, ")": -1, "[": 1, "]": -1}.get(char, 0)
        cut = position if char == "," and depth == 0 else cut
    return (row[:cut], row[cut + 1 :]) if cut >= 0 else (row, "")


@dataclass(frozen=True)
class Dialect:
    """A language of math: how to tell its formulas from LaTeX and code, and its spellings in LaTeX."""

    name: str
    marks: re.Pattern[str]  # something only this language writes
    spellings: tuple[Callable[[str], str], ...]

    def as_latex(self, math: str) -> str:
        for spelling in self.spellings:
            math = spelling(math)
        return math


_SHARED = {"partial": "\\partial", "nabla": "\\nabla", **{g: "\\" + g for g in _GREEK}}

TYPST = Dialect(
    "Typst",
    re.compile(r"(?<![\\\w])(?:partial|nabla|hat\(|bold\(|bb\(|op\(|dot\.(?:circle|op)|sum_\()"),
    (
        _scripts,
        lambda text: re.sub(r'op\("(\w+)"\)', r"\\operatorname{\1}", text),
        lambda text: re.sub(r'"(\w+)"', r"\\mathrm{\1}", text),
        _calls({"hat": "\\hat", "bold": "\\mathbf", "bb": "\\mathbb", "upright": "\\mathrm", "tilde": "\\tilde"}),
        lambda text: text.replace("dot.circle", "\\odot ").replace("dot.op", "\\cdot ").replace("dots.c", "\\dots "),
        _words({**_SHARED, "times": "\\times", "quad": "\\quad", "RR": "\\mathbb{R}", "in": "\\in", "dots": "\\dots"}),
    ),
)

ASCIIMATH = Dialect(
    "AsciiMath",
    re.compile(r"(?<![\\\w])(?:del\b|grad\b|hat\s|sum_\(|xx\b|o\.)|\)/\(|\{\("),
    (
        _scripts,
        _cases,
        lambda text: re.sub(r'"(\w+)"', r"\\mathrm{\1}", text),
        _calls({"hat": "\\hat", "bar": "\\bar", "tilde": "\\tilde", "bb": "\\mathbf", "bbb": "\\mathbb"}),
        lambda text: re.sub(r"(?<![\\\w])(hat|bar|tilde)\s+", r"\\\1 ", text),
        lambda text: re.sub(r"(?<![\\\w])(bbb?)\s+(\w)", lambda m: f"\\{_FONTS[m[1]]}{{{m[2]}}}", text),
        lambda text: re.sub(r"(?<!\w)o\.", "\\\\odot ", text),
        _words({**_SHARED, "del": "\\partial", "grad": "\\nabla", "xx": "\\times", "in": "\\in"}),
    ),
)


def _fractions(text: str) -> str:
    """LibreOffice's ``{a} over {b}`` as ``\\frac{a}{b}``, inner ones first."""
    while (changed := _OVER.sub(r"\\frac{\1}{\2}", text)) != text:
        text = changed
    return text


_OVER = re.compile(r"\{([^{}]*)\}\s*over\s*\{([^{}]*)\}")


def _stacked_cases(text: str) -> str:
    """LibreOffice's ``left lbrace stack{ a " for " w = o # b " for " w <> o } right none`` as cases."""

    def cases(match: re.Match[str]) -> str:
        rows = (re.split(r'"\s*(?:for|if|when)\s*"', row, maxsplit=1) for row in match[1].split("#"))
        return "\\begin{cases} " + " \\\\ ".join(" & ".join(row) for row in rows) + " \\end{cases}"

    return re.sub(r"left\s+lbrace\s+stack\s*\{(.*)\}\s*right\s+none", cases, text)


LIBREOFFICE = Dialect(
    "LibreOffice Math",
    re.compile(r"\}\s*over\s*\{|(?<![\w%])%[A-Za-z]+|\bstack\s*\{|\bsum\s+from\b"),
    (
        lambda text: re.sub(r"%(i?)([A-Za-z]+)", r"\\\2 ", text),
        _words({"partial": "\\partial", "nabla": "\\nabla", "cdot": "\\cdot", "times": "\\times", "odot": "\\odot"}),
        _fractions,
        _stacked_cases,
        lambda text: re.sub(r"\bsum\s+from\s*\{([^{}]*)\}(?:\s*to\s*\{([^{}]*)\})?", r"\\sum_{\1}^{\2}", text),
        lambda text: re.sub(r"(?<![\\\w])hat\s+", r"\\hat ", text.replace("<>", "\\neq ")),
    ),
)


# Typst writes math between "$" as LaTeX does; AsciiMath, between backticks (``...``), which Markdown
# shows as code: a span is math when it has AsciiMath's marks and no code's.
_TYPST_MATH = re.compile(r"(?<![\\$])\$(?!\$)([^$]+)\$")
_ASCII_MATH = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
_CODE = re.compile(r"\bnp\.|\btorch\.|@|\[\s*\w+\s*\]\s*[+\-*]?=|\bdef\b|\bimport\b")


# Google Docs' "Download as Markdown" escapes what Markdown would read (b\_1, 1\[z > 0\]): in text with
# no $ and an escaped underscore, a backslash before such a mark is no LaTeX (\[ opens no display).
_ESCAPED = re.compile(r"\\([_*\[\]()#.!+<>-])")


# R's assignment at a line's start, "grad_vc <- t(U) %*% (yhat - y)": an equation, as "=" is.
_R_ASSIGNMENT = re.compile(r"^([ \t]*[A-Za-z][\w.]*)[ \t]*<-(?=[ \t])", re.MULTILINE)


def as_latex(answer: str) -> str:
    """``answer`` with its Typst, AsciiMath and LibreOffice formulas written in LaTeX between ``$``,
    and Markdown's escapes taken out of text without math."""
    if "$" not in answer and "\\_" in answer:
        answer = _ESCAPED.sub(r"\1", answer)
    answer = _R_ASSIGNMENT.sub(r"\1 = ", answer)
    if any(TYPST.marks.search(math[1]) for math in _TYPST_MATH.finditer(answer)):  # then its math without \ too
        answer = _TYPST_MATH.sub(lambda m: m[0] if "\\" in m[1] else f"${TYPST.as_latex(m[1])}$", answer)
    if "`" in answer and ASCIIMATH.marks.search(answer):
        answer = _ASCII_MATH.sub(_ascii_span, answer)
    if LIBREOFFICE.marks.search(answer):  # its lines have no $: each becomes math
        lines = answer.split("\n")
        answer = "\n".join(
            f"${LIBREOFFICE.as_latex(line)}$" if "$" not in line and LIBREOFFICE.marks.search(line) else line
            for line in lines
        )
    return answer


def _ascii_span(span: re.Match[str]) -> str:
    math = span[1]
    if _CODE.search(math) or not (ASCIIMATH.marks.search(math) or "=" in math and re.search(r"\^|_\(", math)):
        return span[0]
    return f"${ASCIIMATH.as_latex(math)}$"
