"""Reads a transition table typed in Markdown and grades it against a gold dependency tree.

The table has the columns Stack | Buffer | New dependency | Transition (in any order) and one row
per transition, each showing the configuration *after* it; a first row for the initial
configuration is optional. Notation is read generously: ``[ROOT, I]`` or ``ROOT, I`` or ``[ROOT I]``;
an empty buffer as ``[]``, ``∅``, ``-`` or nothing; arcs as ``presented -> I``, ``presented → I``,
``I ← presented`` or ``(presented, I)``; transitions as SHIFT / LEFT-ARC / RIGHT-ARC or S / LA / RA.

Grading: half of the points for the steps, half for the arcs. A step is right when its transition
is legal from the configuration in the row above and the row shows exactly the configuration and
new dependency that transition produces; judging each row from the row above means one slip costs
one step, not every row after it. The arcs score is (gold arcs in the table - arcs not in the gold
tree) / n, at least 0.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import product

from pydantic import BaseModel

from autograder.assignments.parser.arc_standard import NAMES, ROOT, Arc, Configuration, DependencyTree, show

COLUMNS = ("stack", "buffer", "dependency", "transition")
_HEADER_WORDS = {
    "stack": ("stack",),
    "buffer": ("buffer",),
    "dependency": ("depend", "arc", "relation"),
    "transition": ("transition", "action"),
}
_PIPE = re.compile(r"(?<!\\)\|")
_DELIMITER_CELL = re.compile(r"^:?-{1,}:?$")
_EMPTY = {"", "-", "--", "—", "–", "∅", "ø", "empty", "none", "nothing", "n/a", "\\emptyset", "\\varnothing"}
# Every pattern here is linear in the cell it reads: no part of one can match what the part before
# it matched (no "\s*" before an optional arrow, "[^{}]" inside braces), else a long cell, such as
# one of 20,000 spaces, takes seconds.
_MARKUP = re.compile(r"\*\*|__|[`$]")
_TEXT_COMMAND = re.compile(r"\\(?:text(?:rm|tt)?|mathrm)\{([^{}]*)\}")
_ARROW = re.compile(r"-->|->|→|⟶|=>|\\to\b|\\rightarrow\b|\\longrightarrow\b")
_BACK_ARROW = re.compile(r"<--|<-|←|⟵|\\leftarrow\b|\\longleftarrow\b")
_RELATION = re.compile(r"\([a-z:_]+\)$")  # a relation label after an arc, such as (nsubj)
_PAIR = re.compile(r"\(([^,()]+),([^,()]+)\)")
# A table has 4 columns (a student may add a step number or notes); a line with many more cells is
# no row of it, and reading millions of cells of one line would take seconds.
MAX_CELLS = 12
MAX_ROWS = 500  # one row per transition: the handout's sentence of 8 words needs far fewer
_TRANSITIONS = {
    "s": "S",
    "sh": "S",
    "shift": "S",
    "la": "LA",
    "l": "LA",
    "left": "LA",
    "leftarc": "LA",
    "larc": "LA",
    "ra": "RA",
    "r": "RA",
    "right": "RA",
    "rightarc": "RA",
    "rarc": "RA",
}
_INITIAL = {"", "initial", "initialconfiguration", "initialconfig", "init", "start", "none"}
HOW_GRADED = (
    "Half of the points are for the steps (each transition legal, with the configuration "
    "and new dependency it produces), half for the arcs (gold arcs found, minus arcs that "
    "are not in the gold tree)."
)


class TableError(ValueError):
    """No table could be read at all; the message says what to write."""


@dataclass
class Row:
    """One row of the student's table, as far as it could be read."""

    number: int  # 1 = the first row under the header
    transition: str | None  # "S", "LA", "RA", "initial", or None when unreadable
    stack: tuple[str, ...] | None
    buffer: tuple[str, ...] | None
    arc: Arc | None
    problems: list[str] = field(default_factory=list)  # cells that could not be read


class TableGrade(BaseModel):
    fraction: float
    steps_right: int
    steps_needed: int
    transitions: int
    arcs_right: list[Arc]
    arcs_wrong: list[Arc]
    arcs_missing: list[Arc]
    step_problems: list[str]
    notes: list[str]

    def feedback(self) -> str:
        lines = [
            f"{self.steps_right} of {self.steps_needed} steps right; {len(self.arcs_right)} of "
            f"{len(self.arcs_right) + len(self.arcs_missing)} gold arcs in the table"
            + (f", {len(self.arcs_wrong)} not in the gold tree" if self.arcs_wrong else "")
            + "."
        ]
        lines += self.notes
        if self.step_problems:
            lines.append("First wrong row: " + self.step_problems[0])
            if len(self.step_problems) > 1:
                lines.append(
                    "Also: " + "; ".join(self.step_problems[1:4]) + (" ..." if len(self.step_problems) > 4 else "")
                )
        if self.arcs_wrong:
            lines.append("Not in the gold tree: " + ", ".join(_arc(a) for a in self.arcs_wrong) + ".")
        if self.arcs_missing:
            lines.append("Gold arcs missing: " + ", ".join(_arc(a) for a in self.arcs_missing) + ".")
        lines.append(HOW_GRADED)
        return "\n".join(lines)


def _arc(arc: Arc) -> str:
    return f"{arc[0]} → {arc[1]}"


# ---------------------------------------------------------------------------------- reading


def _cells(line: str) -> list[str]:
    """The cells of a table line; a line of more than MAX_CELLS cells gives only the first ones and
    the rest as one."""
    text = line.strip()
    text = text[1:] if text.startswith("|") else text
    text = text[:-1] if text.endswith("|") and not text.endswith("\\|") else text
    return [cell.strip() for cell in _PIPE.split(text, maxsplit=MAX_CELLS)]


def _plain(cell: str) -> str:
    """The cell without Markdown or LaTeX decoration."""
    text = _TEXT_COMMAND.sub(r"\1", _MARKUP.sub("", cell))  # no Python call per match: a cell may hold millions
    return text.replace("&nbsp;", " ").replace("\\_", "_").strip()


def _table_lines(text: str) -> tuple[list[str], dict[str, int]]:
    """The header's column positions and the data lines under it."""
    lines = text.splitlines()
    for index, line in enumerate(lines):
        cells = [_plain(c).lower() for c in _cells(line)] if "|" in line else []
        columns = {}
        for name, words in _HEADER_WORDS.items():
            matches = [i for i, c in enumerate(cells) if any(w in c for w in words)]
            if matches:
                columns[name] = matches[0]
        if len(cells) >= 3 and "stack" in columns and "buffer" in columns:
            missing = [n for n in COLUMNS if n not in columns]
            if missing:
                raise TableError(
                    f"the table's header has no column for: {', '.join(missing)}; use the "
                    "columns Stack | Buffer | New dependency | Transition"
                )
            return _rows(lines, index + 1), columns
    raise TableError(
        "no table found: write a Markdown table with the header | Stack | Buffer | New dependency | Transition |"
    )


def _rows(lines: list[str], start: int) -> list[str]:
    """The data lines of the table whose header is above ``start``: up to the first line without |."""
    rows = []
    for following in lines[start:]:
        if not following.strip():
            continue
        if "|" not in following:
            break
        if all(_DELIMITER_CELL.match(c) for c in _cells(following) if c):
            continue
        rows.append(following)
        if len(rows) > MAX_ROWS:
            raise TableError(
                f"the table has more than {MAX_ROWS} rows, so it was not read; it needs one row "
                "per transition, and the sentence needs far fewer"
            )
    return rows


def _shown(cell: str) -> str:
    """A cell as feedback quotes it: whole when short."""
    return repr(cell if len(cell) <= 40 else cell[:37] + "...")


class _Words:
    """Maps what a student typed for a word to the sentence's spelling."""

    def __init__(self, tree: DependencyTree) -> None:
        self.known = {w.lower(): w for w in (ROOT, *tree.words)}
        self.size = len(tree.words) + 1  # no stack or buffer holds more

    def word(self, token: str) -> str | None:
        return self.known.get(token.strip("'\"").lower())

    def items(self, cell: str, what: str, problems: list[str]) -> tuple[str, ...] | None:
        text = _plain(cell)
        if text.lower() in _EMPTY or re.fullmatch(r"[\[(⟨{]\s*[\])⟩}]", text):
            return ()
        text = re.sub(r"^[\[(⟨{]|[\])⟩}]$", "", text)
        tokens = [t for t in re.split(r"[,\s]+", text) if t]
        if len(tokens) > self.size:
            problems.append(
                f"the {what} {_shown(cell)} holds {len(tokens)} items, more than the "
                f"{self.size} words of the sentence with ROOT"
            )
            return None
        words = [self.word(t) for t in tokens]
        unknown = [t for t, w in zip(tokens, words) if w is None]
        if unknown:
            problems.append(
                f"the {what} {_shown(cell)} holds {', '.join(_shown(u) for u in unknown[:3])}"
                f"{' ...' if len(unknown) > 3 else ''}, which "
                f"{'is not a word' if len(unknown) == 1 else 'are not words'} of the sentence"
            )
            return None
        return tuple(w for w in words if w is not None)  # all of them, as none is unknown

    def arc(self, cell: str, problems: list[str]) -> Arc | None:
        text = _plain(cell)
        if text.lower() in _EMPTY:
            return None
        relation = _RELATION.search(text)
        text = text[: relation.start()].rstrip() if relation else text
        pair: list[str] | None = None
        if _ARROW.search(text):
            pair = _ARROW.split(text, maxsplit=1)
        elif _BACK_ARROW.search(text):
            pair = _BACK_ARROW.split(text, maxsplit=1)[::-1]
        elif (match := _PAIR.fullmatch(text)) is not None:
            pair = [match[1], match[2]]
        words = [self.word(p.strip()) for p in pair] if pair and len(pair) == 2 else None
        if not words or None in words:
            problems.append(f"cannot read the dependency {_shown(cell)}; write it as head -> dependent")
            return None
        head, dependent = words
        assert head is not None and dependent is not None  # checked just above
        return (head, dependent)


def read_table(text: str, tree: DependencyTree) -> list[Row]:
    lines, columns = _table_lines(text)
    words = _Words(tree)
    rows = []
    for number, line in enumerate(lines, start=1):
        cells = _cells(line)
        problems: list[str] = []
        if len(cells) <= max(columns.values()):
            rows.append(
                Row(
                    number,
                    None,
                    None,
                    None,
                    None,
                    [f"it has {len(cells)} cells, the header {max(columns.values()) + 1}"],
                )
            )
            continue
        name = re.sub(r"[^a-z]", "", _plain(cells[columns["transition"]]).lower())
        transition = _TRANSITIONS.get(name) or ("initial" if name in _INITIAL and number == 1 else None)
        if transition is None:
            problems.append(
                f"cannot read the transition {_shown(cells[columns['transition']])}; write "
                "SHIFT, LEFT-ARC or RIGHT-ARC (or S, LA, RA)"
            )
        rows.append(
            Row(
                number,
                transition,
                words.items(cells[columns["stack"]], "stack", problems),
                words.items(cells[columns["buffer"]], "buffer", problems),
                words.arc(cells[columns["dependency"]], problems),
                problems,
            )
        )
    return rows


# ---------------------------------------------------------------------------------- grading


def _looks_like_two_steps(state: Configuration, row: Row) -> bool:
    for first, second in product(NAMES, repeat=2):
        if state.why_illegal(first) is None:
            middle, _ = state.apply(first)
            if middle.why_illegal(second) is None and middle.apply(second)[0] == Configuration(
                row.stack or (), row.buffer or ()
            ):
                return True
    return False


def _judge(state: Configuration, row: Row) -> str | None:
    """What is wrong with ``row`` as the step after ``state``, or None when it is right."""
    where = (
        f"row {row.number} ({NAMES.get(row.transition or '', 'unreadable')}, from stack "
        f"{show(state.stack)}, buffer {show(state.buffer)})"
    )
    if row.problems:
        return f"row {row.number}: " + "; ".join(row.problems)
    # a row without problems was read whole
    assert row.transition is not None and row.stack is not None and row.buffer is not None
    reason = state.why_illegal(row.transition)
    if reason:
        return f"{where}: not allowed: {reason}"
    after, arc = state.apply(row.transition)
    wrong = []
    if row.stack != after.stack:
        wrong.append(f"the stack becomes {show(after.stack)}, not {show(row.stack)}")
    if row.buffer != after.buffer:
        wrong.append(f"the buffer becomes {show(after.buffer)}, not {show(row.buffer)}")
    if row.arc != arc:
        made = _arc(arc) if arc else "no dependency"
        wrote = _arc(row.arc) if row.arc else "none"
        wrong.append(f"it adds {made}, not {wrote}")
    if not wrong:
        return None
    hint = " (is a row missing above this one?)" if _looks_like_two_steps(state, row) else ""
    return f"{where}: " + "; ".join(wrong) + hint


def grade_table(text: str, tree: DependencyTree) -> TableGrade:
    """Grade the transition table in ``text``; raises :class:`TableError` when there is none."""
    rows = read_table(text, tree)
    initial = Configuration.initial(tree.words)
    notes: list[str] = []
    if rows and rows[0].transition == "initial":
        first = rows.pop(0)
        if (first.stack, first.buffer) != (initial.stack, initial.buffer) or first.arc is not None:
            notes.append(
                f"The initial configuration is stack {show(initial.stack)}, buffer "
                f"{show(initial.buffer)}, no dependency; your first row differs."
            )
    needed = 2 * len(tree.words)
    if not rows:
        raise TableError("the table has no transitions yet: add one row per transition")
    if len(rows) != needed:
        notes.append(
            f"The table has {len(rows)} transitions; a sentence of {len(tree.words)} words takes exactly {needed}."
        )
    state, right, problems = initial, 0, []
    for row in rows:
        problem = _judge(state, row)
        if problem is None:
            right += 1
        else:
            problems.append(problem)
        if row.stack is not None and row.buffer is not None:
            state = Configuration(row.stack, row.buffer)  # judge the next row from what was written
        elif row.transition in NAMES and state.why_illegal(row.transition) is None:
            state = state.apply(row.transition)[0]
    written = {row.arc for row in rows if row.arc is not None}
    gold = tree.arcs
    arcs_right, arcs_wrong = sorted(written & gold), sorted(written - gold)
    arcs_score = max(0, len(arcs_right) - len(arcs_wrong)) / len(gold)
    steps_right = min(right, needed)
    return TableGrade(
        fraction=0.5 * steps_right / needed + 0.5 * arcs_score,
        steps_right=steps_right,
        steps_needed=needed,
        transitions=len(rows),
        arcs_right=arcs_right,
        arcs_wrong=arcs_wrong,
        arcs_missing=sorted(gold - written),
        step_problems=problems,
        notes=notes,
    )


def reference_table(tree: DependencyTree) -> str:
    """The table of the gold transition sequence, in the handout's notation."""
    state = Configuration.initial(tree.words)
    rows = [
        ("Stack", "Buffer", "New dependency", "Transition"),
        ("---",) * 4,
        (show(state.stack), show(state.buffer), "", "Initial configuration"),
    ]
    for transition in tree.oracle():
        state, arc = state.apply(transition)
        rows.append((show(state.stack), show(state.buffer), _arc(arc) if arc else "", NAMES[transition]))
    return "\n".join("| " + " | ".join(row) + " |" for row in rows).replace("|  |", "| |")
