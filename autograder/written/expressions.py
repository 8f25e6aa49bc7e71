"""Finds the final answer in a written answer, reads it as a formula, and compares it with the
expected formula by evaluating both at a few points.

Where the final answer is (:func:`final_answer`), first match wins:

1. the last line that starts with ``Answer:`` (also ``**Answer:**``, ``> Answer:``, ``#### Answer:``,
   ``Final answer =``). On it, the first formula: its first math (``$...$``, ``$$...$$``, ``\\(...\\)``)
   when it has any, else its text up to the first comma or semicolon. When nothing follows
   ``Answer:`` on its line, the display math (or the line) below it;
2. else a boxed formula, ``\\boxed{...}`` (the last one);
3. else the whole answer, when it is a single line.

A formula is read by :mod:`.derivations.reader` (what it reads is in its docstring and the
handouts' notation table), with the question's variables as scalar symbols under their names
(``p_drop``, ``p_{drop}``, ``p_\\text{drop}``) or declared spellings; negative powers are read too.
Anything before the last ``=`` is dropped (``\\gamma = ...``), and a word after the formula ("3k
steps") is not read. Student text is never evaluated by Python (nor by sympy, whose ``parse_expr``
runs ``eval``): the reader builds a tree that :func:`~.derivations.evaluate.evaluate` computes.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from autograder.written.derivations.evaluate import EvaluationError, Scope, evaluate
from autograder.written.derivations.lexemes import ReadError, UnknownName, Vocabulary
from autograder.written.derivations.notation import Notation, Symbol
from autograder.written.derivations.reader import read
from autograder.written.derivations.tree import Node, shown

# No two parts of the prefix can match the same characters, so a line that is not an answer line
# fails at once ("[ \t]*[*_]*[ \t]*" would try every split of a long run of spaces).
ANSWER_LINE = re.compile(
    r"^[ \t>*_#-]*(?P<word>(?:final[ \t]+)?answer)[ \t]*(?:[*_]+[ \t]*)?[:=][ \t]*[*_]*"
    r"(?P<rest>.*)$",
    re.IGNORECASE | re.MULTILINE,
)
_MATH = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]", re.DOTALL)
BOXED = "\\boxed"
_DISPLAY = ("$$", "\\[")
_MAX_LINE = 2000  # of an Answer: line, or of what is read below it
_MAX_LENGTH = 200  # of the formula itself
_DISPLAY_LINES = 20  # display math below "Answer:" must close within these lines


class ExpressionError(ValueError):
    """The answer could not be read as a formula; the message says what was wrong."""


@dataclass(frozen=True)
class Formula:
    """A student's formula, parsed; ``text`` is how it was read, for feedback; ``ignored``, the
    words after it that were not read ("steps" of "3k steps")."""

    text: str
    node: Node
    variables: tuple[str, ...]
    ignored: str = ""

    def __call__(self, values: dict[str, float]) -> float:
        symbols = {_latex(name): np.array([[value]], dtype=float) for name, value in values.items()}
        scope = Scope(symbols, parts={}, part_counts={}, dims={}, lists={}, list_lengths={})
        try:
            return float(evaluate(self.node, scope).item())
        except EvaluationError as error:
            raise ValueError(str(error)) from None


@dataclass(frozen=True)
class FinalAnswer:
    """The final answer as written, and where it was found when there was a choice ("" when the
    answer line held this one formula only)."""

    text: str
    where: str = ""
    on_answer_line: bool = True


# ------------------------------------------------------------------------- finding the final answer


def final_answer(text: str) -> FinalAnswer | None:
    """The final answer in an answer (see the module's docstring), or None."""
    matches = list(ANSWER_LINE.finditer(text))
    if matches:
        return _on_answer_line(text, matches[-1], len(matches))
    if (boxed := _boxed(text)) is not None:
        return boxed
    lines = text.strip().splitlines()
    if len(lines) == 1:
        formula, count = first_formula(lines[0][:_MAX_LINE])
        return FinalAnswer(formula, f"the first of {count} formulas in the answer" if count > 1 else "", False)
    return None


def answer_word(match: re.Match) -> str:
    """How an answer line names itself, for messages: "Answer" or "Final answer"."""
    return " ".join(match["word"].split()).capitalize()


def _on_answer_line(text: str, match: re.Match, lines: int) -> FinalAnswer:
    word = answer_word(match)
    line = f"the last of {lines} lines starting with '{word}:'" if lines > 1 else f"the line starting with '{word}:'"
    said = lines > 1  # whether to say where even a lone formula was found
    rest = match["rest"][:_MAX_LINE].strip().strip("*_").strip()
    if not rest:
        rest = below_answer_line(text, match.end())
        kind = "display math" if rest.startswith(_DISPLAY) else "line"
        line, said = f"the {kind} below {line if lines > 1 else repr(word + ':')}", True
    formula, count = first_formula(rest)
    if count > 1:
        return FinalAnswer(formula, f"the first of {count} formulas on {line}")
    if formula != rest and not _MATH.search(rest):
        return FinalAnswer(formula, f"the text before the first comma of {line}")
    return FinalAnswer(formula, line if said else "")


def below_answer_line(text: str, end: int) -> str:
    """What follows an empty "Answer:" line: display math up to its closing, else the next line
    that is not blank (at most _MAX_LINE characters of it)."""
    following = text[end : end + _MAX_LINE * 2].lstrip("\r\n \t").splitlines()[:_DISPLAY_LINES]
    if not following:
        return ""
    first = following[0].strip()
    for opening, closing in (("$$", "$$"), ("\\[", "\\]")):
        if first.startswith(opening):
            for index, line in enumerate(following):
                if closing in (line.strip()[len(opening) :] if index == 0 else line):
                    return "\n".join(following[: index + 1]).strip()[:_MAX_LINE]
    return first[:_MAX_LINE]


def _boxed(text: str) -> FinalAnswer | None:
    """The last ``\\boxed{...}`` of ``text``."""
    start = text.rfind(BOXED)
    inside = braced(text, start + len(BOXED)) if start != -1 else None
    count = text.count(BOXED)
    where = "the boxed formula" if count == 1 else f"the last of {count} boxed formulas"
    return FinalAnswer(inside, where, on_answer_line=False) if inside is not None else None


def braced(text: str, position: int, within: int = _MAX_LINE) -> str | None:
    """The text inside the braces that open at ``position`` (after spaces), or None if they do not
    open there or close within ``within`` characters."""
    position = len(text) - len(text[position:].lstrip(" "))
    if not text.startswith("{", position):
        return None
    depth = 0
    for index in range(position, min(len(text), position + within)):
        depth += {"{": 1, "}": -1}.get(text[index], 0)
        if depth == 0:
            return text[position + 1 : index]
    return None


def first_formula(text: str) -> tuple[str, int]:
    """The first formula of ``text`` and how many there are: its first math when it has any (a
    boxed formula inside it unwrapped), else the text up to the first comma or semicolon."""
    maths = [next(group for group in match.groups() if group is not None) for match in _MATH.finditer(text)]
    first = maths[0] if maths else re.split(r"[,;]", text, maxsplit=1)[0]
    boxed = _boxed(first)
    return (boxed.text if boxed is not None else first).strip(), max(len(maths), 1)


# ------------------------------------------------------------------------- reading a formula


def read_formula(answer: str, variables: dict[str, tuple[str, ...]]) -> Formula:
    """Read ``answer``, its symbols the question's variables as scalars; ``variables`` maps each to
    the other ways students may write it."""
    if len(answer) > _MAX_LINE:
        raise ExpressionError(f"it is longer than {_MAX_LINE} characters")
    answer, _ = first_formula(answer.strip())
    if len(answer) > _MAX_LENGTH:
        raise ExpressionError(f"the formula is longer than {_MAX_LENGTH} characters")
    value = re.sub(r"^(\*\*|__|\*|_)(.*)\1$", r"\2", answer.strip().rstrip(" ."))  # bold around it all
    value = value.rsplit("=", 1)[-1]  # "\gamma = ...": the value, not its name
    try:
        node, ignored = read(value, _vocabulary(tuple(variables.items())))
    except UnknownName as error:
        raise ExpressionError(f"{error} (its variables: {', '.join(variables)})") from None
    except ReadError as error:
        raise ExpressionError(str(error)) from None
    text = shown(node)
    for name in variables:
        text = text.replace(_latex(name), name)  # as the question writes it
    return Formula(text=text, node=node, variables=tuple(variables), ignored=ignored)


@functools.lru_cache(maxsize=16)
def _vocabulary(variables: tuple[tuple[str, tuple[str, ...]], ...]) -> Vocabulary:
    """The question's variables as scalar symbols, each named as written (``p_drop``)."""
    symbols = tuple(
        Symbol(_latex(name), "scalar", spellings=tuple(_latex(spelling) for spelling in spellings))
        for name, spellings in variables
    )
    return Vocabulary(Notation(dims={}, symbols=symbols))


def _latex(name: str) -> str:
    """A variable's name as one LaTeX symbol: ``p_drop`` is ``p_{drop}``, and so is ``pdrop`` (a name
    run together, as the reader reads one written so)."""
    stem, _, subscript = name.partition("_")
    if not subscript and len(name) > 1:
        stem, subscript = name[0], name[1:]
    return f"{stem}_{{{subscript}}}" if subscript else stem


def compare(
    formula: Formula, expected: Callable[[dict[str, float]], float], points: list[dict[str, float]]
) -> str | None:
    """None when ``formula`` equals ``expected`` at every point, else where they differ."""
    for values in points:
        want = expected(values)
        try:
            got = formula(values)
        except (ZeroDivisionError, OverflowError, ValueError, TypeError):
            got = math.nan  # a complex power or a division by zero is simply a wrong value
        if not (math.isfinite(got) and math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12)):
            at = ", ".join(f"{name} = {value:g}" for name, value in values.items())
            shown = f"{got:.6g}" if math.isfinite(got) else "no number"
            return f"at {at} it gives {shown}, but the right value is {want:.6g}"
    return None
