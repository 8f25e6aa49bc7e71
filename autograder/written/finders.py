"""Finders: what searches a text for the answer of an automatically graded written question, so that
nothing students receive gives it away (:mod:`autograder.written.giveaway`). The finder of formula
answers is here; a form of answer an assignment brings has its finder beside it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from autograder.written.expressions import ExpressionError, Formula, compare, read_formula

Finder = Callable[[str], list[str]]  # text -> what was found, each with its line number


def line_of(text: str, position: int) -> int:
    return text.count("\n", 0, position) + 1


def contains(haystack: list, needle: list) -> int | None:
    """Index in ``haystack`` where ``needle`` starts as a contiguous run, or None."""
    for start in range(len(haystack) - len(needle) + 1):
        if haystack[start : start + len(needle)] == needle:
            return start
    return None


# ----------------------------------------------------------------------------------- formulas

# A run of tokens that could belong to a formula: numbers, operators, brackets, a few LaTeX
# commands, and the question's variables. Any other word ends the run.
_TOKEN = re.compile(r"\\[A-Za-z]+|[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d*)?|\.\d+|\S")
_SYMBOLS = set("+-*/^()[]{}=·×⋅−–")
_COMMANDS = {"\\frac", "\\dfrac", "\\tfrac", "\\cdot", "\\times", "\\left", "\\right", "\\gamma", "\\big", "\\Big"}
_WORDS = _SYMBOLS | _COMMANDS | {"gamma"}
_SUBSCRIPT = re.compile(r"_\{\s*(?:\\(?:text|textrm|mathrm|mathit|rm)\s*\{\s*(\w+)\s*\}|(\w+))\s*\}")
_MAX_TOKENS = 24
_POINTS = (0.137, 0.291, 0.613)  # nothing special, so that different formulas differ there


@dataclass(frozen=True)
class FormulaFinder:
    """Finds any formula equal to ``answer`` (same values at a few points)."""

    answer: Formula
    variables: dict[str, tuple[str, ...]]

    def __call__(self, text: str) -> list[str]:
        aliases = {alias for name, spellings in self.variables.items() for alias in (name, *spellings)}
        points = [{name: value for name in self.variables} for value in _POINTS]
        text = _plain_latex(text)
        found: list[str] = []
        for run in _runs(text, aliases):
            for start, end in _windows(run):
                candidate = text[run[start][0] : run[end][1]]
                try:
                    formula = read_formula(candidate, self.variables)
                except ExpressionError:
                    continue
                if compare(formula, self.answer, points) is None:
                    found.append(
                        f"line {line_of(text, run[start][0])}: {candidate.strip()!r}, which is "
                        f"the answer {self.answer.text}"
                    )
                    break
        return found


def _plain_latex(text: str) -> str:
    """Python source writes LaTeX with doubled backslashes; subscripts come in many wrappings.
    Both are rewritten (keeping positions meaningful enough for line numbers)."""
    return _SUBSCRIPT.sub(lambda m: "_" + (m[1] or m[2]), text.replace("\\\\", "\\"))


def _product_of(word: str, aliases: set[str]) -> bool:
    """Whether ``word`` is variables written side by side (``wx``), which the formula reader takes
    as their product; so a formula written that way is found too."""
    ends = {0}
    for end in range(1, len(word) + 1):
        if any(start in ends and word[start:end] in aliases for start in range(end)):
            ends.add(end)
    return len(word) > 1 and len(word) in ends


def _runs(text: str, aliases: set[str]) -> list[list[tuple[int, int, bool]]]:
    """Runs of formula tokens as (start, end, is a variable), keeping those with a variable."""
    runs: list[list[tuple[int, int, bool]]] = [[]]
    for match in _TOKEN.finditer(text):
        token = match[0]
        variable = token in aliases or _product_of(token, aliases)
        if variable or token in _WORDS or token[0].isdigit() or token[0] == ".":
            runs[-1].append((match.start(), match.end(), variable))
        elif runs[-1]:
            runs.append([])
    return [run for run in runs if any(v for _, _, v in run)]


def _windows(run: list[tuple[int, int, bool]]):
    """(first, last) token indices of every stretch of ``run`` that holds a variable."""
    variables = [i for i, (_, _, v) in enumerate(run) if v]
    for start in range(len(run)):
        for end in range(start, min(len(run), start + _MAX_TOKENS)):
            if any(start <= i <= end for i in variables):
                yield start, end
