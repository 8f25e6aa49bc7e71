"""Finds the answer of an automatically graded written question in any text, in the spellings
people use for it, so that nothing students receive gives such an answer away.

A self-check that parses the handout's own sentence holds the whole transition table, and a
docstring that states the formula a question asks for answers it; both are easy to write without
noticing. :func:`bundle.leaks` searches every file of the student bundle with these finders, and
the tests run them on the reference answers too, where they must find every answer: that is what
shows the search works.

Each form of answer (:mod:`autograder.written.formats`) has its finder:

- a transition table: the gold transition sequence as a run of transitions in any spelling
  (``S``/``LA``/``RA``, ``SHIFT``/``LEFT-ARC``/``RIGHT-ARC``, in a list, a string or a table), or
  the gold arcs in the order the sequence creates them (``head -> dependent``, ``dependent <-
  head``, ``(head, dependent)``);
- a formula: any formula in the text, in Python or LaTeX, that equals the reference answer at a
  few points (read with the same reader that grades the answers).

What no finder sees is an answer in words ("one shift and one arc per word"): the test of the
bundle cannot replace reading it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from autograder.core.config import Assignment, ConfigError
from autograder.written.answers import AnswersError, read_answers
from autograder.written.arc_standard import ROOT, Arc, Configuration, DependencyTree
from autograder.written.expressions import ExpressionError, Formula, compare, read_formula
from autograder.written.formats import AnswerFormat, AnswerFormatError, FormulaAnswer, TableAnswer
from autograder.written.handout_data import handout_data

Finder = Callable[[str], list[str]]  # text -> what was found, each with its line number


def answer_finders(assignment: Assignment) -> dict[str, Finder]:
    """A finder for every written question of ``assignment`` that tests grade (``kind: written``).

    Formula answers are taken from the reference answers (``solutions/NAME/written.md``), so this
    runs in the repository only. A question whose answer form has no finder is an error: a new
    form of answer needs its finder before a bundle can be trusted.
    """
    questions = [q.id for q in assignment.config.questions if q.kind == "written"]
    if not questions:
        return {}
    formats = handout_data(assignment).answer_formats
    reference_file = assignment.solution_dir / "written.md"
    try:
        reference = read_answers(reference_file, assignment.config)
    except AnswersError as error:
        raise ConfigError(f"the reference answers are needed to search for them: {error}") from None
    return {question: _finder(question, formats.get(question), reference.text(question)) for question in questions}


def _finder(question: str, form: AnswerFormat | None, reference_answer: str) -> Finder:
    if isinstance(form, TableAnswer):
        return TransitionTableFinder(form.tree)
    if isinstance(form, FormulaAnswer):
        try:
            return FormulaFinder(form.read(reference_answer), form.variables)
        except AnswerFormatError as error:
            raise ConfigError(f"written question {question}: the reference answer cannot be read: {error}") from None
    raise ConfigError(
        f"written question {question}: no finder for answers of the form "
        f"{type(form).__name__} (see autograder/written/giveaway.py)"
    )


def readable_text(path: Path) -> str | None:
    """The text a person reads in ``path``: a notebook's cell sources, a text file's content; None
    for a file that is not UTF-8 text."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return None
    if path.suffix == ".ipynb":
        try:
            cells = json.loads(text).get("cells", [])
            return "\n".join(
                "".join(c.get("source", "")) if isinstance(c.get("source"), list) else str(c.get("source", ""))
                for c in cells
            )
        except (ValueError, AttributeError):
            return text
    return text


def _line_of(text: str, position: int) -> int:
    return text.count("\n", 0, position) + 1


def _contains(haystack: list, needle: list) -> int | None:
    """Index in ``haystack`` where ``needle`` starts as a contiguous run, or None."""
    for start in range(len(haystack) - len(needle) + 1):
        if haystack[start : start + len(needle)] == needle:
            return start
    return None


# ------------------------------------------------------------------------- transition tables

_TRANSITION = re.compile(
    r"(?<![A-Za-z0-9_])(?:(?P<short>S|LA|RA)|"
    r"(?P<long>shift|left[-_ ]?arc|right[-_ ]?arc))(?![A-Za-z0-9_])",
    re.IGNORECASE,
)
_WORD = r"['\"`]?([A-Za-z][\w.-]*?)['\"`]?"
_ARROW_ARC = re.compile(_WORD + r"\s*(?:-->|->|→|⟶|=>|\\to\b|\\rightarrow\b)\s*" + _WORD + r"(?![\w])")
_BACK_ARC = re.compile(_WORD + r"\s*(?:<--|<-|←|⟵|\\leftarrow\b)\s*" + _WORD + r"(?![\w])")
# (head, dependent) in brackets; square brackets only with quotes, as a bare [ROOT, I] is a stack.
_PAIR_ARC = re.compile(
    r"\(\s*" + _WORD + r"\s*,\s*" + _WORD + r"\s*\)"
    r"|\[\s*['\"]([A-Za-z][\w.-]*)['\"]\s*,\s*['\"]([A-Za-z][\w.-]*)['\"]\s*\]"
)


@dataclass(frozen=True)
class TransitionTableFinder:
    """Finds the gold transition sequence of ``tree``, or its arcs in the order they are created."""

    tree: DependencyTree

    @property
    def transitions(self) -> list[str]:
        return self.tree.oracle()

    @property
    def arcs_in_order(self) -> list[Arc]:
        state, arcs = Configuration.initial(self.tree.words), []
        for transition in self.transitions:
            state, arc = state.apply(transition)
            if arc is not None:
                arcs.append(arc)
        return arcs

    def __call__(self, text: str) -> list[str]:
        found = []
        transitions = [(m.start(), _short(m)) for m in _TRANSITION.finditer(text)]
        start = _contains([t for _, t in transitions], self.transitions)
        if start is not None:
            found.append(
                f"line {_line_of(text, transitions[start][0])}: the gold transition sequence "
                f"of '{' '.join(self.tree.words)}'"
            )
        arcs = self._arcs(text)
        start = _contains([a for _, a in arcs], self.arcs_in_order)
        if start is not None:
            found.append(
                f"line {_line_of(text, arcs[start][0])}: the gold arcs of "
                f"'{' '.join(self.tree.words)}' in the order the transitions create them"
            )
        return found

    def _arcs(self, text: str) -> list[tuple[int, Arc]]:
        """Every arc between words of the sentence (or ROOT) in ``text``, with its position."""
        words = {w.lower(): w for w in (*self.tree.words, ROOT)}
        arcs = []
        for pattern, reverse in ((_ARROW_ARC, False), (_BACK_ARC, True), (_PAIR_ARC, False)):
            for match in pattern.finditer(text):
                first, second = [g for g in match.groups() if g is not None]
                head, dependent = (second, first) if reverse else (first, second)
                if head.lower() in words and dependent.lower() in words:
                    arcs.append((match.start(), (words[head.lower()], words[dependent.lower()])))
        return sorted(arcs)


def _short(match: re.Match) -> str:
    if match["short"]:
        return match["short"].upper() if match["short"].isupper() else "?"  # "s", "la": prose
    return {"s": "S", "l": "LA", "r": "RA"}[match["long"][0].lower()]


# ----------------------------------------------------------------------------------- formulas

# A run of tokens that could belong to a formula: numbers, operators, brackets, a few LaTeX
# commands, and the question's variables. Any other word ends the run.
_TOKEN = re.compile(r"\\[A-Za-z]+|[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d*)?|\.\d+|\S")
_SYMBOLS = set("+-*/^()[]{}=·×⋅−–")
_COMMANDS = {"\\frac", "\\dfrac", "\\tfrac", "\\cdot", "\\times", "\\left", "\\right", "\\gamma", "\\big", "\\Big"}
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
            for start, end in _windows(run, aliases):
                candidate = text[run[start][0] : run[end][1]]
                try:
                    formula = read_formula(candidate, self.variables)
                except ExpressionError:
                    continue
                if compare(formula, self.answer, points) is None:
                    found.append(
                        f"line {_line_of(text, run[start][0])}: {candidate.strip()!r}, which is "
                        f"the answer {self.answer.text}"
                    )
                    break
        return found


def _plain_latex(text: str) -> str:
    """Python source writes LaTeX with doubled backslashes; subscripts come in many wrappings.
    Both are rewritten (keeping positions meaningful enough for line numbers)."""
    return _SUBSCRIPT.sub(lambda m: "_" + (m[1] or m[2]), text.replace("\\\\", "\\"))


def _runs(text: str, aliases: set[str]) -> list[list[tuple[int, int, bool]]]:
    """Runs of formula tokens as (start, end, is a variable), keeping those with a variable."""
    runs, current = [], []
    for match in _TOKEN.finditer(text):
        token = match[0]
        variable = token in aliases
        if (
            variable
            or token in _SYMBOLS
            or token in _COMMANDS
            or token[0].isdigit()
            or token[0] == "."
            or token == "gamma"
        ):
            current.append((match.start(), match.end(), variable))
            continue
        if any(v for _, _, v in current):
            runs.append(current)
        current = []
    if any(v for _, _, v in current):
        runs.append(current)
    return runs


def _windows(run: list[tuple[int, int, bool]], aliases: set[str]):
    """(first, last) token indices of every stretch of ``run`` that holds a variable."""
    variables = [i for i, (_, _, v) in enumerate(run) if v]
    for start in range(len(run)):
        for end in range(start, min(len(run), start + _MAX_TOKENS)):
            if any(start <= i <= end for i in variables):
                yield start, end
