"""The parser's own form of written answer: the transition table of the handout's sentence
(question 2a-i), read and graded with partial credit (:mod:`autograder.assignments.parser.transition_table`),
and found in any text by its gold transitions or arcs (the leak check of the bundle)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from autograder.assignments.parser.arc_standard import NAMES, ROOT, Arc, Configuration, DependencyTree
from autograder.assignments.parser.transition_table import TableError, read_table, reference_table
from autograder.written.finders import Finder, contains, line_of
from autograder.written.formats import AnswerFormatError, NotAnsweredYet


@dataclass(frozen=True)
class TableAnswer:
    """A Markdown transition table for the sentence of ``tree``."""

    tree: DependencyTree

    def template(self) -> str:
        """What the student starts from: the header and the initial configuration."""
        return "\n".join(reference_table(self.tree).splitlines()[:3])

    def finder(self, reference_answer: str) -> Finder:
        """The gold transitions or arcs, wherever they are: the table needs no reference answer."""
        return TransitionTableFinder(self.tree)

    def describe(self, text: str) -> str:
        try:
            rows = read_table(text, self.tree)
        except TableError as error:
            raise AnswerFormatError(str(error)) from None
        transitions = [row for row in rows if row.transition in NAMES]
        unreadable = [f"row {row.number}: " + "; ".join(row.problems) for row in rows if row.problems]
        if unreadable:
            raise AnswerFormatError(
                "some cells cannot be read: " + " | ".join(unreadable[:3]) + (" ..." if len(unreadable) > 3 else "")
            )
        if not transitions:
            raise NotAnsweredYet("the table has no transitions yet: add one row per transition")
        return f"table read: {len(transitions)} transition{'s' if len(transitions) != 1 else ''}"


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
        start = contains([t for _, t in transitions], self.transitions)
        if start is not None:
            found.append(
                f"line {line_of(text, transitions[start][0])}: the gold transition sequence "
                f"of '{' '.join(self.tree.words)}'"
            )
        arcs = self._arcs(text)
        start = contains([a for _, a in arcs], self.arcs_in_order)
        if start is not None:
            found.append(
                f"line {line_of(text, arcs[start][0])}: the gold arcs of "
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
