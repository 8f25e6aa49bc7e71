"""Finds, in a written derivation, the final formula of each thing the question asks for.

The math of an answer (``$...$``, ``$$...$$``, ``\\[...\\]``, ``\\(...\\)``, ``align`` with or without
``$$``) is cut into equations (``A = B = C``; rows that start with ``=`` continue the one above). An
equation answers a :class:`~.notation.Target` when its left side is the derivative with respect to
the target's variable (or one of its entries), however written: ``\\frac{\\partial J}{\\partial
v_c}``, ``\\partial J / \\partial v_c``, ``\\frac{dJ}{dv_c}``, ``\\nabla_{v_c} J``, ``\\partial_{v_c} J``.
First match wins (the handouts say the same to students):

1. such an equation on the last line starting with ``Answer:`` (or in the display math below it);
   for a question that asks for one formula, also a formula alone there, when the line starts
   with it (``Answer: it is zero when $...$`` is a sentence, not a final formula);
2. such an equation with a ``\\boxed`` part;
3. the last such equation displayed on a line of its own, then the last inside a sentence;
4. for a question that asks for one formula, a formula alone in ``\\boxed``, or the one formula of
   a one-line answer.

Of the equation found, the last part is the final formula (a ``cases`` part gives the row of the
case asked for). An equation right after a case said on its own (``For $w = o$: $...$``) answers
that case only. Nothing else stands in for it: when it cannot be read, the answer is unreadable.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import accumulate

from autograder.written.derivations import dialects
from autograder.written.derivations.lexemes import (
    Atom,
    ReadError,
    Token,
    Vocabulary,
    atom_at,
    key_of,
    superscript_transposes,
    tokens,
)
from autograder.written.derivations.notation import Target
from autograder.written.derivations.sides import OTHERWISE, Cases, Side
from autograder.written.derivations.spellings import GREEK, plain_letters
from autograder.written.expressions import ANSWER_LINE, BOXED, answer_word, below_answer_line, braced
from autograder.written.latex import code_blocks, math_in

MAX_ANSWER = 20_000  # characters of an answer searched for equations
_CASE_SAID = re.compile(r"([a-z])\s*(=|\\neq?|\\ne|≠)\s*([a-z])")
_CASE_REACH = 40  # characters between "for $w = o$" and the equation it introduces
_CASE_LABEL = 12  # characters before a case said as a label ("**Case 1:** $w = o$")
_LONG_RUN = re.compile(r"data:[^\s)]*|[A-Za-z0-9+/=]{200,}")  # a pasted image (base64): no formula
_ENVIRONMENT = re.compile(r"\\(?:begin|end)\{(?:align|aligned|equation|gather|split|eqnarray|multline)\*?\}")
_ROW_SPACING = re.compile(r"\\\\\s*\[\s*-?[\d.]+\s*(?:pt|em|ex|mm|cm|in|mu|bp)\s*\]")  # \\[2pt]: a row break
_CONDITION_WORDS = re.compile(r"\\(?:text|mbox|textrm|quad|qquad)|\b(?:if|for|when)\b|[{},&]")
_EQUALS = re.compile(r"(?<![<>!\\])=(?!=)|\\coloneqq|\\equiv|\\triangleq")
_DERIVATIVE_START = {"\\frac", "\\dfrac", "\\tfrac", "\\partial", "\\nabla", "d", "\\mathrm"}
_NOT_IN_DERIVATIVE = {"+", "-", "\\leftarrow", "\\gets", "\\approx", "\\cdot", "\\alpha", "\\eta"}
_LOSSES = {"J", "L", "E", "C", "l", "ell"}
# A comma, \quad, or words in \text that start a remark ("\text{ because } \sum_i y_i = 1") end an equation.
_REMARK = r"because|since|when|where|if|iff|for|as|so|hence|thus|with|i\.e\.|and|,"
# What is left of a remark before a definition: "} " of "\text{where }" cut at its word, or the word.
_LEADING_WORD = re.compile(
    r"^(?:\\(?:text|mbox|textrm)\s*\{\s*(?:where|with|and|let|here)\s*\}|\}|(?:where|with|and|let)\b)\s*"
)
# Implications end an equation too: "= 0 \iff U^T \hat y = u_o" is two statements, not one chain.
_IMPLIES = r"\\(?:iff|implies|impliedby|Leftrightarrow|Longleftrightarrow|Rightarrow|Longrightarrow)(?![A-Za-z])|[⟺⇔⟹⇒]"
_SEPARATOR = re.compile(
    rf"\\qquad|\\quad|\\(?:text|mbox|textrm)\{{\s*(?:{_REMARK})\b|(?<!\\)[,;]|{_IMPLIES}|\s(?:and|where)\s"
)


@dataclass(frozen=True)
class Equation:
    left: str  # LaTeX, "" when the formula stands alone
    parts: tuple[Side, ...]  # the right sides, in order
    line: int  # in the answer, from 1
    on_answer_line: bool = False
    boxed: bool = False
    displayed: bool = False  # on a line of its own ($$...$$, \\[...\\], align), not inside a sentence
    case: tuple[str, str, bool] | None = None  # said just before it: ("w", "o", True) for "For $w = o$:"
    in_code: bool = False  # a line of a code block: an answer's formula only when no other answers


@dataclass(frozen=True)
class Renamed:
    """An equation for the target's part under an index letter of the answer's own (``u_k`` or
    ``u_{w_s}`` for the sample vector ``u_{w_k}``): ``letter`` takes the value of ``target_letter``,
    as a position in the index list ``walks`` (``\\sum_{k=1}^K u_k``), or, ``from_word``, as the place
    in ``walks`` of the word it holds (``u_{w_s}`` for 2c-ii's repeated sample ``u_w``)."""

    letter: str
    target_letter: str
    walks: str = ""
    from_word: bool = False  # the target's letter holds a word, and ``letter`` its place in ``walks``


@dataclass(frozen=True)
class Found:
    """The formula taken as final for a target, and where it was found, said for feedback."""

    latex: Side
    where: str  # "the last displayed equation for it"
    line: int = 1  # of the answer, from 1
    before: tuple[Equation, ...] = ()  # the equations above it, where the answer defines its names
    after: tuple[Equation, ...] = ()  # and below it ("..., where $\\delta_1 = ...$")
    entries: tuple[str, ...] = ()  # the letters of an equation for entries: (j,) of dJ/dtheta_j
    renamed: Renamed | None = None  # the target's index under a letter of the answer's own (u_k)
    transposed: bool = False  # it gives the transpose: (\\partial J / \\partial x)^\\top = ...


def equations(answer: str) -> list[Equation]:
    """Every equation in the math of ``answer``, in order. Pasted images are left out, and of a
    longer answer the last MAX_ANSWER characters are read: the final formula is at its end."""
    answer = plain_letters(_tail(_LONG_RUN.sub(" ", answer)))
    region = _answer_region(answer)
    newlines = [i for i, char in enumerate(answer) if char == "\n"]

    def where(offset: int) -> tuple[int, bool]:  # its line, from 1, and whether it is in the Answer: line's answer
        return bisect_left(newlines, offset) + 1, region is not None and region[0] <= offset < region[1]

    found: list[Equation] = []
    case: tuple[str, str, bool] | None = None  # "For $w = o$:" just before: the case the math answers
    heading = False  # whether that case is said alone at a line's start, as a label
    previous_end = 0
    maths = [(m.start, m.end, answer[m.inside_start : m.inside_end], m.display) for m in math_in(answer)]
    skip = 0  # maths that a definition by cases in words took as its conditions and values
    for index, (start, end, math, displayed) in enumerate(maths):
        if index < skip:
            previous_end = end
            continue
        between = answer[previous_end:start]
        prose = _cases_in_words(answer, maths, index)
        if prose is not None:
            found += _defined_by_cases(*prose[:2], *where(start), displayed)
            skip, previous_end, case = prose[2], maths[prose[2] - 1][1], None
            continue
        introduced = between.strip() in ("", ":") and heading  # "For $w = o$:", a blank line, then the display
        if len(between) > _CASE_REACH or ("\n\n" in between and not introduced) or ". " in between:
            case = None
        said = _CASE_SAID.fullmatch(math.strip())  # "w = o" or "w \\neq o" alone: the case of the math after it
        if said is not None:
            case = (said[1], said[3], said[2] == "=")
            heading = len(answer[answer.rfind("\n", 0, start) + 1 : start].strip()) <= _CASE_LABEL  # "If $w = o$:"
        else:
            listed = [replace(e, case=case) for e in _equations_in(math, *where(start), displayed)]
            if listed and found and math.lstrip().startswith("="):  # "$= ...$" goes on with the math above
                listed[0] = _continued(found.pop(), listed[0])
            found += listed
            case = None  # a case said answers the one math after it ("for $w = o$ and $y_o = 1$: $$...$$")
        previous_end = end
    code = code_blocks(answer) + _indented_code(answer)
    for start, text in plain_formulas(answer, maths):  # "∂J/∂l = ŷ − y", written without $
        case, in_code = _plain_case(answer, start), any(a <= start < b for a, b in code)
        special = _SPECIAL_CASE.search(answer, answer.rfind("\n", 0, start) + 1, start)
        listed = _equations_in(text, *where(start), special is None)
        found += [replace(e, case=case, in_code=in_code) for e in listed]
    for name, meaning, offset in _named_in_words(answer):  # "I write $q$ for $\\hat y$": q = \\hat y
        found.append(Equation(name, (meaning,), where(offset)[0]))
    for m in _PLAIN_CASES.finditer(answer):  # "H(t) = 1 for t > 0 and H(t) = 0 for t <= 0", without $
        rows = ((m["first"], m["if_first"]), (m["second"], m["if_second"] or "otherwise"))
        found.append(Equation(m["name"], (Cases(tuple(_row(*row) for row in rows)),), where(m.start())[0]))
    for row in _TABLE_DEFINITION.finditer(answer):  # "| $a$ | $\\sigma(s_o) - 1$ |": a table of names
        found.append(Equation(row["name"], (row["meaning"].lstrip().removeprefix("=").strip(),), where(row.start())[0]))
    written = answer[region[0] : region[1]] if region is not None else ""
    if region is not None and not any(e.on_answer_line for e in found):
        text = written.strip().strip("*_").strip()
        if not _prose(text):  # "Answer: U^T(y_hat - y)", without $
            found += _equations_in(text, where(region[0])[0], True, True)
    found.sort(key=lambda equation: equation.line)  # the plain lines' among the others, in the answer's order
    if _prose(written.partition("$")[0]):
        # "Answer: it is zero when $U^\\top \\hat y = u_o$": a sentence, whose math is no final formula
        found = [replace(e, on_answer_line=False) if e.on_answer_line and not e.left else e for e in found]
    return found


# A name or function defined by two cases in plain text: "H(t) = 1 for t > 0 and H(t) = 0 for t ≤ 0",
# "d_i = 1 if z_i > 0, 0 otherwise" (numbers, as a mask's or a step's values are).
_PLAIN_CASES = re.compile(
    r"(?<![\w$\\])(?P<name>[A-Za-z]\w{0,5}(?:\(\w\)|_\{?\w{1,3}\}?)?)\s*=\s*(?P<first>-?\d+)\s*,?\s*(?:for|if|when)\s+"
    r"(?P<if_first>[^,;.$\n]+?)\s*(?:,|;|\band\b)\s*(?:and\s+)?(?:(?P=name)\s*=\s*)?(?P<second>-?\d+)\s*,?\s*"
    r"(?:(?:for|if|when)\s+(?P<if_second>[^,;.$\n)]+?)(?=\s*(?:[,;.)]|\(|$))|otherwise|else(?:where)?)",
    re.MULTILINE,
)


def _named_in_words(answer: str) -> list[tuple[str, str, int]]:
    """Names an answer gives in words, as (name, meaning, offset): "I write $q$ for the output $\\hat
    y$ and $t$ for $y$", "let $g$ denote $\\hat y - y$", "let g denote ŷ − y" (a formula, not words)."""
    found = []
    for sentence in _WRITE_FOR.finditer(answer):
        for m in _FOR.finditer(sentence[0]):  # "$p$ for $\hat y = \mathrm{softmax}(U v_c)$": p is \hat y
            meaning = (m["meaning"] or m["plain"]).partition("=")[0]
            found.append((m["name"] or m["bare"], meaning, sentence.start() + m.start()))
    for m in _DENOTES.finditer(answer):
        meaning = m["math"] or m["plain"]
        if meaning and (m["math"] or _OPERATOR.search(meaning)):
            found.append(((m["name"] or m["bare"]).strip(), meaning.strip(), m.start()))
    return found


_TABLE_DEFINITION = re.compile(
    r"^[ \t]*\|[ \t]*\$(?P<name>[^$|\n]{1,12})\$[ \t]*\|[ \t]*\$(?P<meaning>[^$|\n]+)\$", re.MULTILINE
)
_WRITE_FOR = re.compile(
    r"\b(?:write|writing|use|using)\s+(?:\$[^$\n]{1,40}\$|[A-Za-z](?:_\w)?)\s+for\b[^.\n]*", re.IGNORECASE
)
# The meaning is the math that names what the words say ("the softmax output $\\hat y$"), not math
# inside them ("the number of times $w$ occurs", "the one-hot vector of $o$").
# Typed without $, the name is one letter and the meaning one symbol ("p for the softmax output ŷ").
_FOR = re.compile(
    r"(?:\$(?P<name>[^$\n]{1,12})\$|(?<![\w$\\])(?P<bare>[A-Za-z](?:_\w)?))\s+for\s+"
    r"(?:(?:(?!and\b|of\b|in\b|at\b|among\b)[^$\n,;\s]+\s+){0,5}?)"
    r"(?:\$(?P<meaning>[^$\n]{1,80})\$|(?<![\w$])(?P<plain>[A-Za-zŷ](?:\u0302)?(?:_\w)?|\\hat\s?y))"
    r"(?=\s*(?:[,.;:()]|and\b|$))",
    re.MULTILINE,
)
_DENOTES = re.compile(
    r"\blet\s+(?:\$(?P<name>[^$\n]{1,12})\$|(?P<bare>[^\s$]{1,8}))\s+denotes?\s+"
    r"(?:\$(?P<math>[^$\n]{1,80})\$|(?P<plain>[^$\n]{1,80}?)(?=\.\s|\.?$|[,;]))",
    re.IGNORECASE | re.MULTILINE,
)
_OPERATOR = re.compile(r"[-−+*/^⊙∘·σΣ∑ᵀ()]")


# A definition by cases in words: "$y_i = 1$ if $i = o$ and $0$ otherwise", "$d = 1$ when $z > 0$,
# $0$ if $z \leq 0$". What may stand between the maths: the condition's word, and between the rows.
_IF_WORD = re.compile(r"\s*,?\s*(?:if|when|for)\s*$")
_AND_WORD = re.compile(r"\s*(?:,|;|and|,\s*and)\s*$")
_OTHERWISE_AFTER = re.compile(r"^\s*,?\s*(?:otherwise|else|elsewhere)\b")
_VALUE_OTHERWISE = re.compile(r"^\s*(?:,|;|and|,\s*and)\s*(-?\d+(?:\.\d+)?)\s*,?\s*(?:otherwise|else|elsewhere)\b")


def _cases_in_words(answer: str, maths: list[tuple[int, int, str, bool]], index: int) -> tuple[str, Cases, int] | None:
    """The math at ``index`` as its left side, the cases the words after it give its value, and the
    index of the first math after them; None unless both rows are there ("$y_i = 1$ if $i = o$")."""
    _, end, math, _ = maths[index]
    if "=" not in math or index + 1 >= len(maths) or not _IF_WORD.fullmatch(answer[end : maths[index + 1][0]]):
        return None
    left, _, value = math.rpartition("=")
    condition = maths[index + 1]
    after = answer[condition[1] :]
    if (number := _VALUE_OTHERWISE.match(after)) is not None:
        rows, taken = [(value, condition[2]), (number[1], "\\text{otherwise}")], index + 2
    elif index + 2 < len(maths) and _AND_WORD.fullmatch(answer[condition[1] : maths[index + 2][0]]):
        other = maths[index + 2]
        rest, second = answer[other[1] :], other[2].rpartition("=")[2]  # "$0$" or "$y_i = 0$"
        if _OTHERWISE_AFTER.match(rest):
            rows, taken = [(value, condition[2]), (second, "\\text{otherwise}")], index + 3
        elif index + 3 < len(maths) and _IF_WORD.fullmatch(answer[other[1] : maths[index + 3][0]]):
            rows, taken = [(value, condition[2]), (second, maths[index + 3][2])], index + 4
        else:
            return None
    else:
        return None
    return left, Cases(tuple(_row(value, condition) for value, condition in rows)), taken


def _defined_by_cases(left: str, cases: Cases, line: int, on_answer_line: bool, displayed: bool) -> list[Equation]:
    """A math's equations, the name of its last part defined as ``cases``."""
    *before, name = _top_level_split(left, _SEPARATOR)
    listed = _equations_in(",".join(before), line, on_answer_line, displayed) if before else []
    return [*listed, Equation(_LEADING_WORD.sub("", name.strip()), (cases,), line, on_answer_line, False, displayed)]


def _continued(above: Equation, rest: Equation) -> Equation:
    """The equation above, continued by a math that starts with ``=``; a formula alone above
    (``$\\frac{\\partial}{\\partial v_c}(...)$``) becomes the left side."""
    if above.left:
        return replace(rest, left=above.left, parts=above.parts + rest.parts, boxed=above.boxed or rest.boxed)
    left = above.parts[-1]
    return replace(rest, left=left if isinstance(left, str) else left.shown(), boxed=above.boxed or rest.boxed)


def _tail(answer: str) -> str:
    """The last MAX_ANSWER characters of ``answer``, from a ``$`` that opens math: a cut inside
    ``$...$`` would pair every ``$`` after it the wrong way round."""
    if len(answer) <= MAX_ANSWER:
        return answer
    head, tail = answer[:-MAX_ANSWER], answer[-MAX_ANSWER:]
    dollars = head.count("$") - head.count("\\$")
    return tail[tail.find("$") + 1 :] if dollars % 2 else tail


def _prose(text: str) -> bool:
    """Whether ``text`` holds words (two of three letters or more): a sentence, not a formula."""
    words = re.findall(r"(?<![\\\w])[A-Za-z]{3,}(?![\w(])", text)
    return len([word for word in words if word.lower() not in GREEK]) >= 2  # "theta" is a letter


def _answer_region(answer: str) -> tuple[int, int] | None:
    """Where the last ``Answer:`` line's answer is: the rest of the line, else what is below it."""
    matches = list(ANSWER_LINE.finditer(answer))
    if not matches:
        return None
    last = matches[-1]
    if last["rest"].strip().strip("*_").strip():
        return last.start("rest"), last.end("rest")
    below = below_answer_line(answer, last.end())
    start = answer.find(below[:20], last.end()) if below else -1
    return (start, start + len(below)) if start != -1 else None


def plain_formulas(answer: str, maths: Sequence[tuple[int, int, str, bool]] = ()) -> list[tuple[int, str]]:
    """The formulas of lines without math delimiters (unicode, plain text, LaTeX typed without
    ``$``), with their offsets; lines in ``maths`` are math already."""
    found, start = [], 0
    for line in _continued_lines(answer):
        inside = any(begin < start + len(line) and start < end for begin, end, _, _ in maths)
        latex = "\\" in line and _LATEX_DERIVATIVE.search(line) is not None
        if "$" not in line and ("\\" not in line or latex) and "=" in line and not inside:
            found += [(start + offset, text) for offset, text in _plain_formulas(line)]
        start += len(line)
    return found


def _indented_code(answer: str) -> list[tuple[int, int]]:
    """Where Markdown's indented code blocks are: lines indented by 4 spaces or a tab after a blank
    line that does not follow a list item ("    y = np.eye(5)[2]")."""
    found: list[tuple[int, int]] = []
    start, blank, listed = 0, True, False
    for line in answer.splitlines(keepends=True):
        indented = line.startswith(("    ", "\t")) and line.strip()
        if indented and (blank and not listed or (found and found[-1][1] == start)):
            found.append((start, start + len(line)))
        if line.strip():
            listed = bool(_LIST_ITEM.match(line)) or (listed and line.startswith(" "))
        blank = not line.strip()
        start += len(line)
    return found


_LIST_ITEM = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s")


def _continued_lines(answer: str) -> list[str]:
    """The lines of ``answer`` (with their ends), a line that starts with ``=`` joined to the one above
    as one line of the same length ("**∂J/∂v_c**" then "= ..." lines: one chain), so offsets stay."""
    lines: list[str] = []
    for line in answer.splitlines(keepends=True):
        if lines and _CONTINUES.match(line) and lines[-1].strip() and lines[-1].endswith("\n"):
            lines[-1] = lines[-1][:-1] + " " + line  # its newline a space: every offset stays
        else:
            lines.append(line)
    return lines


_CONTINUES = re.compile(r"^[ \t]*=(?!=)")


_PLAIN_CASE = re.compile(
    r"(?:\b(?:for|if|when)\s+|^\s*(?=[a-z]\s*(?:=|≠|!=|\\neq?|\\ne)\s*[a-z]\s*:))"  # "w=o:" typed at a line's start
    r"([a-z])\s*(=|≠|!=|\\neq?|\\ne)\s*([a-z])\b",
    re.IGNORECASE,
)


def _plain_case(answer: str, start: int) -> tuple[str, str, bool] | None:
    """The case said before a formula without ``$`` on its line ("for w = o: dJ/duw = ..."), or
    alone on the line above it ("For w ≠ o:")."""
    line_start = answer.rfind("\n", 0, start) + 1
    said = list(_PLAIN_CASE.finditer(answer[line_start:start]))
    if not said and line_start > 0:
        above = answer[answer.rfind("\n", 0, line_start - 1) + 1 : line_start - 1]
        said = [m for m in [_PLAIN_CASE.search(above)] if m is not None and len(above.strip()) <= _CASE_REACH]
    if not said:
        return None
    return said[-1][1], said[-1][3], said[-1][2] == "="


def _plain_formulas(line: str) -> list[tuple[int, str]]:
    """Each derivative of a line (∂, ∇; "..., so ∂CE/∂θ = ŷ − y") from where it starts, up to a
    gap of spaces before a remark; else, on a line of math alone, its equations ("δ₂ = ŷ − y, δ₁ = ...").
    A bold label before them ("**Final:**"), bold around them and a comment after code are no part of them."""
    # A bold derivative ("**∂J/∂u_o** = ...") is the equation's left side, in bold, not a label.
    line = _BOLD_LABEL.sub(lambda label: label[0] if _PLAIN_DERIVATIVE.search(label[0]) else " " * len(label[0]), line)
    line = _CODE_COMMENT.sub("", _BOLD_MARK.sub(_unbold, line))
    starts: list[int] = []
    for match in _PLAIN_DERIVATIVE.finditer(line):
        before = line[: match.start()]
        # after an operator, or after "=" of the line's derivative ("∂J/∂x = ∂J/∂z₁ · W₁ᵀ"), it is an operand
        if not _OPERAND.search(before) and not (starts and before.rstrip().endswith("=")):
            starts.append(match.start())
    definition = _PLAIN_DEFINITION.match(line)
    if starts and definition and not line[definition.end() : starts[0]].strip():
        starts[0] = definition.start("name")  # "δ₁ = ∂J/∂z₁ = ...": the name is defined by the chain
    if starts:
        pieces = zip(starts, [*starts[1:], len(line)])
        return [(begin, _SENTENCE_END.split(line[begin:end].strip())[0]) for begin, end in pieces]
    if (_PLAIN_MATH.search(line) and not _prose(line)) or (definition and not _prose(line[definition.end() :])):
        begin = definition.start("name") if definition else len(line) - len(line.lstrip())
        return [(begin, line[begin:].strip())]
    return [(match.start(1), match[1].strip()) for match in _PROSE_DEFINITION.finditer(line)]


# "And with K = 1 and u_{w_1} = −u_o, ∂J/∂v_c = ...": a sentence that sets values first gives a special
# case, a check of the formula rather than the formula: no final formula unless nothing else is.
# A value is a number or a negated name ("for w = o:" names a case, which is no special case).
_SPECIAL_CASE = re.compile(
    r"\b(?:with|if|when|for|assuming|taking|setting)\s+[^.\n]*?[\w}]\s*(?:=|→)\s*(?:[-−]\s*\w|\d|∞)[^.\n]*$"
)


def _unbold(mark: re.Match[str]) -> str:
    """A bold mark's place: bold that closes before "=" ("**∂J/∂u_o** = ...") is the left side's, the
    equation goes on; bold that closes elsewhere ends the formula, as a gap before a remark does."""
    after = mark.string[mark.end() :].lstrip()
    return "   " if mark.start() > 0 and mark.string[mark.start() - 1] != " " and not after.startswith("=") else ""


# A comment after code ("grad_vc = U.T @ (yhat - y)  # shape (d,)"): its words are no prose of the line.
_CODE_COMMENT = re.compile(r"\s#\s.*$")
_BOLD_LABEL = re.compile(r"^[^\w\\$(]*?(\*\*|__)[^*_=\n]{1,40}?\1")  # after a bullet or an emoji too
# Bold around a formula ("**∂J/∂U = (ŷ − y) v_cᵀ**"), not Python's power (h**2, (1 - h)**2).
_BOLD_MARK = re.compile(r"(?<![\w)\]*])\*\*(?=[^\s*])|(?<=[^\s*])\*\*(?![\w(*])")
# A name and "=" at a line's start, which defines it: "probs = exp(l) / sum(exp(l))", "s_k := sigmoid(...)",
# "g(z) = ...", and in LaTeX typed without $ "\\delta _ { 1 } =".
_PLAIN_DEFINITION = re.compile(  # after a list's marker too: "3. δ₁ = ..."
    r"\s*(?:(?:\d{1,2}[.)]|[-*•▪])\s+)?(?P<name>(?:\\[A-Za-z]+|[A-Za-zα-ωΑ-Ω][\w']{0,15})(?:\s*_\s*(?:\{[^{}=]*\}|\w))?"
    r"(?:\([a-z]\))?)\s*:?=(?!=)"
)


# What ends a formula typed in a line of text: a gap of spaces before a remark, or a full stop before
# the next sentence ("dJ/dvc = U^T (yhat - y). This is zero iff yhat = y.").
_SENTENCE_END = re.compile(r"\s{3,}|\.\s+(?=[A-Z][a-z]|[a-z]{3,}\b)|\s+(?:is|are)\s+(?:the|a|an)\s")
# A derivative after an operator is part of a formula ("v_c - lr * J'(v_c) = ..."), not its left side.
_OPERAND = re.compile(r"(?:[-+*/(]|<-)\s*$")
# A definition in a sentence: "Let g(z) = σ(z)(1 − σ(z)) denote σ′", "where s = yhat - y, and ...",
# "let me write t_o = u_oᵀv_c", "we set a = ...".
_PROSE_DEFINITION = re.compile(
    r"(?:^|(?<=\s))(?:(?:let(?:\s+(?:me|us))?|I|we)\s+(?:write|define|set|call)|let|where|with|define|set|here|and)"
    r"\s+([^\s=,;]{1,16}\s*:?=\s*.+?)"
    r"(?=\s+(?:denotes?|be|is|are|for|where|and|which|applied|as|with|if|when|so|then|in)\b|[,;]\s|(?<!\s)\.\s|\.?\s*$)",
    re.IGNORECASE,
)


# A side by cases: \begin{cases}, or between a left brace and nothing Mathpix's array or Word's matrix.
_CASES_SIDE = re.compile(
    r"\\begin\{cases\*?\}(.*)\\end\{cases\*?\}"
    r"|\\left\s*\\\{\s*\\begin\{(?:array\}\s*\{[a-z| ]*\}|matrix\})(.*)\\end\{(?:array|matrix)\}\s*\\right\s*\.",
    re.DOTALL,
)
_ROWS = re.compile(r"\\\\")


def _equations_in(math: str, line: int, on_answer_line: bool, displayed: bool) -> list[Equation]:
    math = _ROW_SPACING.sub(r"\\\\", _ENVIRONMENT.sub(" ", math))
    math, boxes = _unboxed(math)
    found: list[Equation] = []
    cursor = 0
    for row in _top_level_split(math, _ROWS):
        chunks = [c for c in _top_level_split(row, _SEPARATOR) if c.strip()]
        for chunk in chunks:
            cursor = math.find(chunk, cursor)
            at, cursor = cursor + len(chunk) - len(chunk.lstrip()), cursor + len(chunk)
            boxed = any(a < cursor and at < b for a, b in boxes)  # all of it or a side in a box
            where = (line + math.count("\n", 0, at), on_answer_line, boxed, displayed)
            sides = [side.strip().strip("&").strip() for side in _top_level_split(chunk, _EQUALS)]
            sides[0] = _LEADING_WORD.sub("", sides[0])  # "\text{where } \hat y = ..." defines \hat y
            if not any(sides[1:]) and len(sides) > 1:
                continue  # "a =" or "====": nothing on the right to read
            if len(sides) == 1:
                if not found and len(chunks) == 1 and sides[0]:
                    found.append(Equation("", (_side(sides[0]),), *where))
                continue
            right = tuple(_side(s) for s in sides[1:] if s)
            if not sides[0] and found:  # "&= ..." continues the equation above, or names its formula alone
                found[-1] = _continued(found[-1], Equation("", right, *where))
            else:
                found.append(Equation(sides[0], right, *where))
    return found


def _side(text: str) -> Side:
    """A side as written, or its cases when it is one formula by cases."""
    cases = _CASES_SIDE.fullmatch(text)
    if cases is None:
        return text
    rows = (row.partition("&") for row in _top_level_split(cases[1] or cases[2] or "", _ROWS) if row.strip())
    return Cases(tuple(_row(formula, condition) for formula, _, condition in rows))


def _row(formula: str, condition: str) -> tuple[str, str]:
    """A row of cases as (formula, condition without its words), ``&`` or a comma between."""
    formula, condition = _BRACED_CELL.sub(r"\1", formula), _BRACED_CELL.sub(r"\1", condition)  # Mathpix: { ... }
    if not condition.strip() and "," in formula:
        formula, _, condition = formula.rpartition(",")
    condition = " ".join(_CONDITION_WORDS.sub(" ", condition).split()).strip(" .,;")  # "\text{if } w = o." -> "w = o"
    return formula.strip().rstrip(","), condition


_BRACED_CELL = re.compile(r"^\s*\{(.*)\}\s*$", re.DOTALL)


def _unboxed(math: str) -> tuple[str, list[tuple[int, int]]]:
    """``math`` with every ``\\boxed{...}`` replaced by what it holds, and where each box's content is."""
    boxes: list[tuple[int, int]] = []
    while (start := math.find(BOXED)) != -1:  # each round removes one
        opening = math.find("{", start)
        if opening == -1 or math[start + len(BOXED) : opening].strip():
            break
        inside = braced(math, opening, len(math))
        if inside is None:
            break
        math = math[:start] + inside + math[opening + len(inside) + 2 :]
        boxes.append((start, start + len(inside)))
    return math, boxes


def case_of(side: Side, case: dict[str, str]) -> Side | None:
    """The row of a side by cases for ``case`` (``other``: any word but ``o``), None when no row's
    condition says; the side itself when it is no cases (or, all its rows, when the case names none)."""
    for letter, value in case.items():
        if not isinstance(side, Cases):
            return side
        for formula, condition in side.rows:
            equal = re.fullmatch(rf"{letter}\s*=\s*(\w+)|(\w+)\s*=\s*{letter}", condition)
            differs = re.fullmatch(rf"{letter}\s*(?:\\neq?|!=)\s*(\w+)", condition) or OTHERWISE.fullmatch(condition)
            if (value == "other" and differs) or (equal and value in equal.groups()):
                side = formula
                break
        else:
            return None
    return side


_ENVIRONMENT_MARK = re.compile(r"\\(begin|end)\s*\{[A-Za-z*]*\}|\\right\s*\.")


def _top_level_split(text: str, separator: re.Pattern) -> list[str]:
    """``text`` split where ``separator`` matches outside every bracket."""
    pieces, depth, start, position = [], 0, 0, 0
    while position < len(text):
        char = text[position]
        pair = text[position : position + 2]
        if char == "\\" and (environment := _ENVIRONMENT_MARK.match(text, position)) is not None:
            depth += 1 if environment[1] == "begin" else -1  # \begin{cases} ... \end{cases} is a bracket
            position = environment.end()
            continue
        if char == "\\" and pair in ("\\{", "\\}", "\\\\") and separator.pattern != r"\\\\":
            depth += 1 if pair == "\\{" else -1 if pair == "\\}" else 0  # a set \{k : w_k = w\} is a bracket
            position += 2
            continue
        depth += 1 if char in "{([" else -1 if char in "})]" else 0
        match = separator.match(text, position) if depth <= 0 else None
        if match and match.end() > position:
            pieces.append(text[start:position])
            start = position = match.end()
            continue
        position += 1
    pieces.append(text[start:])
    return pieces


@dataclass(frozen=True)
class Derivative:
    """A left side ``\\frac{\\partial J}{\\partial v_c}``: what is differentiated (None for a word
    such as ``\\mathrm{CE}``) and with respect to what."""

    wrt: Atom
    numerator: Atom | None
    entries: tuple[str, ...] = ()  # (w, j) of (\\partial J / \\partial U)_{wj}
    transposed: bool = False  # (\\partial J / \\partial x)^\\top: the answer gives the transpose


# Not the ∂ below the fraction bar of ∂J/∂x; in ASCII, "dJ/dvc" ("dJ / dU", "dCE/dtheta").
# Where a derivative starts in a line without $: ∂J/∂v, dJ/dv, J'(v_c), or typed in LaTeX.
_LATEX_DERIVATIVE = re.compile(r"\\frac\s*\{\s*(?:\\partial|d)|\\nabla|(?<![{/])(?<![{/] )\\partial(?![A-Za-z])")
_PLAIN_DERIVATIVE = re.compile(
    r"(?<!/)(?<!/ )[∂∇]|(?<![\w/])d[A-Za-zα-ω]\w*\s*/\s*d[A-Za-zα-ω]|\b[JL]'\s*\(|" + _LATEX_DERIVATIVE.pattern
)
_PLAIN_MATH = re.compile("[ŷᵀ⊙∘σ∑Σ𝟙⊤₀-₉ₐₑₒₓₕₖₗₘₙₚₛₜᵢⱼᵤᵥα-ωΘ]")
_UPRIGHT_D = re.compile(r"\\(?:mathrm|text|operatorname|textrm)\s*\{\s*d\s*\}|\{\s*\\rm\s+d\s*\}")


def derivative_of(left: str) -> Derivative | None:
    """The derivative a left side is, or None when it is something else."""
    try:
        found = tokens(_UPRIGHT_D.sub(" d ", left))  # \mathrm{d}J is dJ
    except ReadError:
        return None
    found, entries, transposed = _entry_wrapper(found)
    texts = [t.text for t in found]
    if width := _gradient_operator(texts):  # D_x J, grad_x, \operatorname{grad}_x J: as \nabla_x J
        found = [Token("command", "\\nabla", found[0].start, found[width - 1].end), *found[width:]]
        texts = [t.text for t in found]
    numerator = None
    depths = accumulate(1 if text in "{([" else -1 if text in "})]" else 0 for text in texts)
    if texts[:3] in (["J", "'", "("], ["L", "'", "("]) and texts[-1] == ")":  # J'(v_c): the loss's, at v_c
        wrt, numerator = atom_at(found, 3), atom_at(found, 0)
    elif any(depth == 0 and text in _NOT_IN_DERIVATIVE for depth, text in zip(depths, texts)):
        return None  # the derivative alone: not "v_c - \\alpha \\partial J / \\partial v_c"
    elif not texts or texts[0] not in _DERIVATIVE_START:
        return None
    elif texts[0] == "d" and len(texts) > 1 and found[1].start == found[0].end and texts[1] != "/" and "/" not in texts:
        wrt = atom_at(found, 1, plain=True)  # dX, dvc, dW1: code's name for the loss's gradient (CS231n's)
        return Derivative(wrt, None, entries, transposed) if wrt and _whole_atom(found, wrt) else None
    elif "\\nabla" in texts:
        at = texts.index("\\nabla")
        plain = texts[at + 2 : at + 3] != ["{"]  # grad_vc: the letters after "_" name what it is taken for
        wrt = atom_at(found, at + 2, subscript=not plain, plain=plain) if texts[at + 1 : at + 2] == ["_"] else None
    else:
        marks = [i for i, t in enumerate(found) if t.text == "\\partial" or _is_d(found, i)]
        if len(marks) < 2 and not (marks and texts[marks[-1] + 1 : marks[-1] + 2] == ["_"]):
            return None
        last = marks[-1]
        if texts[last + 1 : last + 2] == ["_"]:  # \partial_{v_c} J
            wrt = atom_at(found, last + 2, subscript=True)
        else:
            wrt, numerator = atom_at(found, last + 1, plain=True), atom_at(found, marks[0] + 1)
    return Derivative(wrt, numerator, entries, transposed) if wrt else None


_GRAD = ["g", "r", "a", "d"]
_GRADIENT_OPERATORS = (_GRAD, *(["\\" + word, "{", *_GRAD, "}"] for word in ("operatorname", "mathrm", "text")))


def _gradient_operator(texts: list[str]) -> int:
    """How many tokens a gradient operator other than ``\\nabla`` takes at the start of a left
    side (``grad_x``, ``\\operatorname{grad}_{v_c} J``, ``D_x J``; ``D_x`` alone is a size): 0 for none."""
    for spelled in _GRADIENT_OPERATORS:
        if texts[: len(spelled)] == spelled and texts[len(spelled) : len(spelled) + 1] == ["_"]:
            return len(spelled)
    return 1 if texts[:2] == ["D", "_"] and texts[-1] in _LOSSES else 0


def _entry_wrapper(found: list[Token]) -> tuple[list[Token], tuple[str, ...], bool]:
    """``(\\frac{...}{...})_{wj}`` as the derivative inside and its entry letters;
    ``(\\partial J / \\partial x)^\\top`` as the derivative inside, transposed."""
    depths = accumulate(1 if t.text in "([" else -1 if t.text in ")]" else 0 for t in found)
    index = next((index for index, depth in enumerate(depths) if depth == 0), None)  # where the first closes
    if not found or found[0].text not in ("(", "[") or index is None:
        return found, (), False
    rest = [t.text for t in found[index + 1 :] if t.text not in "{},"]
    if rest[:1] == ["_"] and rest[1:] and all(len(t) == 1 and t.isalpha() for t in rest[1:]):
        return found[1:index], tuple(rest[1:]), False
    if superscript_transposes(found[index + 1 :]):
        return found[1:index], (), True
    return found, (), False


def _whole_atom(found: list[Token], wrt: Atom) -> bool:
    """Whether the name after ``d`` is all that follows it (``dX``; not ``dz \\, dx``)."""
    return len("".join(t.text for t in found[1:]).replace("{", "").replace("}", "")) <= len(wrt.key) + 2


def _is_d(found: list[Token], index: int) -> bool:
    """A ``d`` of ``dJ/dx`` or ``\\frac{dJ}{dx}`` (``\\mathrm{d}`` too), not the letter d of a name."""
    token = found[index]
    if token.text != "d" or index + 1 >= len(found):
        return False
    following = found[index + 1]
    if following.text == "}":  # the operator \frac{d}{d\theta}
        return index >= 2 and found[index - 1].text == "{" and found[index - 2].text in ("\\frac", "\\dfrac", "\\tfrac")
    return following.kind == "letter" or following.kind == "command" or following.text == "{"


def _fits(equation: Equation, case: dict[str, str]) -> bool:
    """Whether an equation said to answer a case ("for $w \\neq o$:") may answer ``case``."""
    if equation.case is None or equation.case[0] not in case:
        return True
    letter, value, equal = equation.case
    wanted = case[letter]
    return (wanted == value) == equal if wanted != "other" else not equal


@dataclass(frozen=True)
class AnswerMath:
    """The equations of an answer, found once for all the formulas its question asks for."""

    equations: tuple[Equation, ...]
    one_line: bool
    answer_word: str = "Answer"  # how its last answer line names itself ("Final answer")
    in_words: tuple[tuple[str, str], ...] = ()  # names defined in words: ("c_w", "the number of times ...")
    rows_said: tuple[tuple[str, str], ...] = ()  # matrices whose rows words say: ("U_K", "... row k is u_{w_k}")


def answer_math(answer: str) -> AnswerMath:
    answer = dialects.as_latex(answer)  # Typst and AsciiMath: LaTeX, read as any
    lines = list(ANSWER_LINE.finditer(answer))
    word = answer_word(lines[-1]) if lines else "Answer"
    tail = _tail(answer)
    said = tuple(((m[1] or m[2]).strip(), m[3].strip()) for m in _IN_WORDS.finditer(tail))
    said += tuple((m[2].strip(), m[0].strip()) for m in _TIMES_IN_WORDS.finditer(tail))
    said += tuple((m[1], m[2]) for m in _COUNT_IN_CODE.finditer(tail))
    rows = tuple(_rows_said(tail))
    return AnswerMath(tuple(equations(answer)), len(answer.strip().splitlines()) == 1, word, said, rows)


# "$c_w$ is the number of times ...", "let $m$ be the count of ...", "with $n_w$ the number of ...",
# "cnt = how many times w was drawn", "count(w) = number of k with ..." (a name of several letters,
# with its argument or not, only before = or :),
# "count = np.sum(idx == w)  # how many times w was drawn" (code, then its words after # or a comma),
# "y is the one-hot vector of ...": a name said to count something, or to be a one-hot, in words.
_IN_WORDS = re.compile(
    r"(?:\$([^$\n]{1,30})\$|(?<![\w$\\])([A-Za-z](?:_\{?\w{1,4}\}?)?|[A-Za-z]\w{1,7}(?:\(\w\))?(?=\s*[:=]))),?\s+"
    r"(?:(?:is|denotes|means|be|stands\s+for|:|=)\s+(?:[^,#\n]{1,60}(?:,|\s#+)\s*)?(?:the\s+|an?\s+)?|the\s+)"
    r"((?:number|count|how\s+many|one-?hot)\b(?:[^.;\n]|\.(?!\s|$)){0,200})",
    re.IGNORECASE,
)


# "count = np.sum(neg_idx == w)", "(samples == w).sum()", "np.count_nonzero(...)", "drawn.count(w)": how
# often w is in a list, as numpy or Python count it; the list's name says which (as words would).
_COUNT_IN_CODE = re.compile(
    r"^[ \t]*([A-Za-z]\w{0,11})\s*=\s*((?:np\.)?(?:sum|count_nonzero)\(\s*\w+\s*==\s*\w+\s*\)"
    r"|\(\s*\w+\s*==\s*\w+\s*\)\.sum\(\)|\w+\.count\(\s*\w+\s*\))\s*$",
    re.MULTILINE,
)


# "$w$ is drawn $m$ times", "sampled $N$ times": a name said to count the samples, in words.
_TIMES_IN_WORDS = re.compile(
    r"(drawn|sampled|picked|chosen)\s+\$([^$\n]{1,12})\$\s+times\b[^.;\n]{0,120}", re.IGNORECASE
)


# "Let U_K be the K x d matrix whose k-th row is u_{w_k}^T", "Uneg = U[neg_idx] has one sample per row":
# in a sentence (or a line: a comment in code) about rows, each capital letter with its subscript or a
# few letters may be a matrix of the answer's own whose rows it says; the verdict keeps those that say a
# family's parts.
_ROWS_SAID = re.compile(
    r"\brows\b(?!\s+vectors)|\brow\s+\$?k\b|\bk-?th\s+row\b|\b(?:per|each|one)\s+row\b", re.IGNORECASE
)
_MATRIX_NAME = re.compile(
    r"\$([^$\n]{1,40}?)(?:\\in\b[^$\n]*)?\$|(?<![\w\\{])([A-Z](?:_\{[^{}$\n]{1,14}\}|_\w{1,4}|[A-Za-z]{1,3}))(?![\w{])"
)


def _rows_said(text: str) -> Iterator[tuple[str, str]]:
    for sentence in (*re.split(r"(?<=\.)\s+|\n\s*\n", text), *text.splitlines()):
        if _ROWS_SAID.search(sentence):
            yield from (((m[1] or m[2]).strip(), sentence) for m in _MATRIX_NAME.finditer(sentence))


def final_formula(
    math: AnswerMath, target: Target, case_key: str, vocabulary: Vocabulary, alone: bool, case: dict[str, str]
) -> Found | None:
    """The final formula of an answer for ``target`` (for its case written ``case_key``: ``u_o``);
    ``alone``: the question asks for this formula only. Equations for the whole and for its entries
    (``\\partial J / \\partial \\theta_j``) count alike; one for the case (``u_o``) wins over one for
    every case (``u_w``)."""
    listed = math.equations
    target_key = key_of(target.wrt)
    target_name = vocabulary.symbols.get(target_key, target_key)
    case_name = vocabulary.symbols.get(case_key, case_key)
    matching: list[_Match] = []
    for position, equation in enumerate(listed):
        derivative = derivative_of(equation.left) if equation.left and equation.parts else None
        if derivative is None or not _fits(equation, case):
            continue
        specific = equation.case is not None and equation.case[0] in case  # said for this case
        wrt = vocabulary.symbols.get(derivative.wrt.key, vocabulary.listed(derivative.wrt.key))  # X spells x
        if wrt in (case_name, target_name) and not derivative.entries:
            if _differentiates(derivative.numerator, target, vocabulary):
                specific = specific or wrt == case_name != target_name
                matching.append(_Match(position, specific=specific, transposed=derivative.transposed))
        elif entries := _entries(derivative, target, target_key, vocabulary):
            matching.append(_Match(position, entries, specific))
        elif (renamed := _renamed(derivative, target, vocabulary, case)) is not None:
            matching.append(_Match(position, (), specific, *renamed, transposed=derivative.transposed))
    # Code below an answer is its implementation; "= 0" says when it vanishes, not what it is; the
    # handout's own name wins over another letter, u_k and u_{w_s} over u_w or u_j.
    kept = (lambda m: not listed[m.position].in_code, lambda m: m.specific, lambda m: not _zero(listed[m.position]))
    for keep in kept:
        matching = [m for m in matching if keep(m)] or matching
    best = min((m.rank for m in matching), default=0)
    matching = [m for m in matching if m.rank == best]
    lone = [_Match(position) for position, e in enumerate(listed) if not e.left] if alone else []
    for pick, where, alone_too in _PICKS:
        chosen = [m for m in matching if pick(listed[m.position])]
        chosen = chosen or [m for m in lone if alone_too and pick(listed[m.position])]
        if chosen:
            match = chosen[-1]
            equation = listed[match.position]
            before, after = listed[: match.position], listed[match.position + 1 :]
            letters = (match.entries, match.renamed, match.transposed)
            where = where.replace("'Answer:'", f"'{math.answer_word}:'")
            return Found(equation.parts[-1], where, equation.line, before, after, *letters)
    if alone and math.one_line and len(listed) == 1 and not listed[0].left:
        return Found(listed[0].parts[-1], "the answer's one line")
    return None


# First match wins. A formula without a left side counts on an Answer: line that starts with it, or
# boxed, or as the one formula of a one-line answer.
_PICKS: tuple[tuple[Callable[[Equation], bool], str, bool], ...] = (
    (lambda e: e.on_answer_line, "the line starting with 'Answer:'", True),
    (lambda e: e.boxed, "the boxed equation", False),
    (lambda e: e.displayed, "the last displayed equation for it", False),
    (lambda e: True, "the last equation for it", False),
    (lambda e: e.boxed, "the boxed formula", True),
)


_ZERO = re.compile(r"\\(?:mathbf|boldsymbol|vec|bm|mathbb)\{?\s*0\s*\}?|0")


def _zero(equation: Equation) -> bool:
    """Whether the equation's last part is 0 (``\\mathbf{0}``), as in "it is zero when ..."."""
    last = equation.parts[-1]
    return isinstance(last, str) and _ZERO.fullmatch(last.strip().rstrip(".,;").strip()) is not None


@dataclass(frozen=True)
class _Match:
    """An equation that answers the target, and how (see :class:`Found`)."""

    position: int
    entries: tuple[str, ...] = ()
    specific: bool = False  # said for the case
    renamed: Renamed | None = None
    rank: int = 0  # how close to the target's own name (see _renamed)
    transposed: bool = False


def _renamed(
    derivative: Derivative, target: Target, vocabulary: Vocabulary, case: dict[str, str]
) -> tuple[Renamed, int] | None:
    """How an equation for a part of the target's family names the target's index with a letter
    of its own (:class:`Renamed`), with its rank: 1 when it keeps the letter or the index list
    (``u_k``, ``u_{w_s}``), 2 for another letter, which may name any word (``u_w = 0`` for the words
    not drawn). A named index (``u_o``) is another part, never a renaming."""
    wanted = atom_at(tokens(target.wrt), 0)
    wrt = derivative.wrt
    if wanted is None or wrt.stem != wanted.stem or wrt.stem not in vocabulary.families or derivative.entries:
        return None
    target_walks, target_letter = _index_letter(wanted.subscript, vocabulary)
    walks, letter = _index_letter(wrt.subscript, vocabulary)
    if not target_letter or not letter or letter in vocabulary.named_indices:
        return None
    # u_{w_s} for a word the case draws from the samples (2c-ii's w = w_1): s is where it was drawn
    drawn = bool(walks) and not target_walks and case.get(target_letter, "").startswith(f"{walks}_")
    if walks not in ("", target_walks) and not drawn:
        return None
    if not _differentiates(derivative.numerator, target, vocabulary):
        return None
    rank = 1 if walks or letter == target_letter else 2
    return Renamed(letter, target_letter, target_walks or walks, drawn), rank


def _index_letter(subscript: tuple[Token, ...], vocabulary: Vocabulary) -> tuple[str, str]:
    """(the index list walked, the letter) of a subscript ``w`` or ``w_k``, else ("", "")."""
    texts = [token.text for token in subscript if token.text not in "{}"]
    kinds = [token.kind for token in subscript if token.text not in "{}"]
    if kinds == ["letter"]:
        return "", texts[0]
    if kinds == ["letter", "symbol", "letter"] and texts[1] == "_" and texts[0] in vocabulary.index_lists:
        return texts[0], texts[2]
    return "", ""


def _entries(derivative: Derivative, target: Target, target_key: str, vocabulary: Vocabulary) -> tuple[str, ...]:
    """The entry letters of an equation for entries of ``target`` (``\\theta_j``: (j,);
    ``\\partial h_i / \\partial x_j``: (i, j); ``(\\partial J/\\partial U)_{wj}``: (w, j)), else ()."""
    numerator = derivative.numerator
    if derivative.entries:
        letters = derivative.entries if derivative.wrt.key == target_key else ()
    else:
        letters = _entry_letters(derivative.wrt, target_key)  # U_{wi}, U_{w,i}: an entry of a matrix
        if len(letters) == 1 and target.of and numerator is not None and numerator.stem == key_of(target.of):
            if len(numerator.subscript) == 1:  # \partial h_i / \partial x_j
                return (numerator.subscript[0].text, letters[0])
    return letters if letters and _differentiates(numerator, target, vocabulary) else ()


def _entry_letters(wrt: Atom, target_key: str) -> tuple[str, ...]:
    """The letters of an entry of the target that ``wrt`` is: ``x_j`` (j,), ``U_{wi}`` and ``U_{w,i}``
    (w, i), ``v_{c,i}`` (i,) for the target ``v_c``; () when it is no entry of it."""
    texts = [token.text for token in wrt.subscript if token.text not in "{}"]
    split = wrt.named_entry()
    if split is not None:  # what comes before the last comma may name the target itself: v_{c,i}
        if split[0].key == target_key:
            texts = [token.text for token in split[1] if token.text not in "{}"]
        elif wrt.stem == target_key:
            texts = [text for text in texts if text != ","]
        else:
            return ()
    elif wrt.stem != target_key:
        return ()
    return tuple(texts) if 1 <= len(texts) <= 2 and all(text.isalpha() and len(text) == 1 for text in texts) else ()


def _differentiates(numerator: Atom | None, target: Target, vocabulary: Vocabulary) -> bool:
    """Whether the numerator is what ``target`` differentiates: its ``of``, else the loss (``J``,
    ``\\mathcal{L}``, ``\\mathrm{CE}``), never an intermediate quantity (``\\partial \\theta_w / \\partial u_w``)."""
    if target.of:
        return numerator is not None and vocabulary.symbols.get(numerator.key) == vocabulary.symbols[key_of(target.of)]
    # dj/dl typed on a phone names the loss J too
    loss = numerator is not None and (numerator.base in _LOSSES or numerator.base.upper() in _LOSSES)
    return numerator is None or (loss and numerator.key not in vocabulary.symbols)
