"""Finds the final answer in a written answer, reads it as a formula, and compares it with the
expected formula by evaluating both at a few points.

Where the final answer is (:func:`final_answer`), first match wins:

1. the last line that starts with ``Answer:`` (also ``**Answer:**``, ``> Answer:``, ``#### Answer:``,
   ``Final answer =``). On it, the first formula: its first math (``$...$``, ``$$...$$``, ``\\(...\\)``)
   when it has any, else its text up to the first comma or semicolon. When nothing follows
   ``Answer:`` on its line, the display math (or the line) below it;
2. else a boxed formula, ``\\boxed{...}`` (the last one);
3. else the whole answer, when it is a single line.

The grammar of a formula (:func:`read_formula`, stated to students in the handouts): numbers, the
question's variables (``p_drop``, ``p_{drop}``, ``p_\\text{drop}`` or its other declared spellings),
``+ - * /`` and ``^``, brackets of any kind, ``\\frac{a}{b}`` (also ``\\dfrac``, ``\\tfrac``, ``\\frac12``),
``\\cdot``, ``\\times``, ``·``, ``×``, ``\\left( \\right)``, unicode minus and superscripts, and
multiplication without a sign: ``3x``, ``3 x``, ``3(x+1)``, ``k V`` and ``kV`` (when ``k`` and ``V``
are variables). Anything before the last ``=`` is dropped (``\\gamma = ...``), and a word after the
formula ("3k steps") is not read.

Student text is never evaluated by Python: it is turned into tokens (numbers, variables,
operators, brackets), joined into an expression and parsed with :mod:`ast`, whose tree is checked
node by node and evaluated by :func:`_evaluate`. That is also why this is not sympy, whose
``parse_expr`` runs ``eval`` on its input. Every pattern here is linear in its input, and the
inputs are short: an ``Answer:`` line is cut at :data:`_MAX_LINE` characters, a formula at
:data:`_MAX_LENGTH`.
"""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

# No two parts of the prefix can match the same characters, so a line that is not an answer line
# fails at once ("[ \t]*[*_]*[ \t]*" would try every split of a long run of spaces).
ANSWER_LINE = re.compile(
    r"^[ \t>*_#-]*(?:final[ \t]+)?answer[ \t]*(?:[*_]+[ \t]*)?[:=][ \t]*[*_]*"
    r"(?P<rest>.*)$",
    re.IGNORECASE | re.MULTILINE,
)
_MATH = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]", re.DOTALL)
BOXED = "\\boxed"
_DISPLAY = ("$$", "\\[")
_ANSWER_LINE_NAME = "the line starting with 'Answer:'"
_MAX_LINE = 2000  # of an Answer: line, or of what is read below it
_MAX_LENGTH = 200  # of the formula itself
_DISPLAY_LINES = 20  # display math below "Answer:" must close within these lines

_COMMANDS_DROPPED = re.compile(
    r"\\(?:left|right|bigg|Bigg|big|Big|displaystyle|textstyle|boxed|quad|qquad)"
    r"(?![a-zA-Z])|\\[,;:! ]|~"
)
_TEXT = re.compile(r"\\(?:text|textrm|textit|mathrm|mathit|mathbf|mathsf|operatorname|rm)\s*\{([^{}]*)\}")
_FONT_SWITCH = re.compile(r"\\(?:rm|it|bf)(?![a-zA-Z])\s*")  # {\rm drop}
_TIMES = re.compile(r"\\(?:cdot|times|ast)(?![a-zA-Z])|[×·⋅∗]")
_DIVIDE = re.compile(r"\\div(?![a-zA-Z])|÷")
_FRAC = re.compile(r"\\[dtc]?frac(?![a-zA-Z])\s*")
_SUBSCRIPT = re.compile(r"_\{\s*([A-Za-z0-9]+)\s*\}")
_UNICODE = {
    "−": "-",
    "–": "-",
    "—": "-",
    "²": "^2",
    "³": "^3",
    "⁻¹": "^(-1)",
    "[": "(",
    "]": ")",
    "{": "(",
    "}": ")",
    "^": "**",
    "`": "",
}
GREEK = (
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "zeta",
    "eta",
    "theta",
    "iota",
    "kappa",
    "lambda",
    "mu",
    "nu",
    "xi",
    "pi",
    "rho",
    "sigma",
    "tau",
    "upsilon",
    "phi",
    "chi",
    "psi",
    "omega",
)
GREEK_LETTERS = dict(zip("αβγδεζηθικλμνξπρστυφχψω", GREEK))
_GREEK_COMMAND = re.compile(r"\\(?:var)?(" + "|".join(GREEK) + r")(?![a-zA-Z])", re.IGNORECASE)
_TOKEN = re.compile(
    r"\s*(?:(?P<number>\d+(?:\.\d*)?|\.\d+)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<operator>\*\*|[-+*/])|(?P<open>\()|(?P<close>\)))"
)
_OPERATORS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}
_ALLOWED = (
    ast.BinOp,
    ast.UnaryOp,
    ast.Constant,
    ast.Name,
    ast.Add,
    ast.Sub,
    ast.Mult,
    ast.Div,
    ast.Pow,
    ast.UAdd,
    ast.USub,
    ast.Load,
)


class ExpressionError(ValueError):
    """The answer could not be read as a formula; the message says what was wrong."""


@dataclass(frozen=True)
class Formula:
    """A student's formula, parsed; ``text`` is how it was read, for feedback; ``ignored``, the
    words after it that were not read ("steps" of "3k steps")."""

    text: str
    tree: ast.Expression
    variables: tuple[str, ...]
    ignored: str = ""

    def __call__(self, values: dict[str, float]) -> float:
        return _evaluate(self.tree.body, values)


@dataclass(frozen=True)
class FinalAnswer:
    """The final answer as written, and where it was found when there was a choice ("" when the
    answer line held this one formula only)."""

    text: str
    where: str = ""
    on_answer_line: bool = True


# ------------------------------------------------------------------------- finding the final answer


def has_answer_line(text: str) -> bool:
    return ANSWER_LINE.search(text) is not None


def final_answer(text: str) -> FinalAnswer | None:
    """The final answer in an answer (see the module's docstring), or None when there is none."""
    matches = list(ANSWER_LINE.finditer(text))
    if matches:
        return _on_answer_line(text, matches[-1], len(matches))
    boxed = _boxed(text)
    if boxed is not None:
        return boxed
    lines = text.strip().splitlines()
    if len(lines) == 1:
        formula, count = first_formula(lines[0][:_MAX_LINE])
        return FinalAnswer(formula, _first_of(count, "in the answer"), on_answer_line=False)
    return None


def _on_answer_line(text: str, match: re.Match, lines: int) -> FinalAnswer:
    line = f"the last of {lines} lines starting with 'Answer:'" if lines > 1 else _ANSWER_LINE_NAME
    said = lines > 1  # whether to say where even a lone formula was found
    rest = match["rest"][:_MAX_LINE].strip().strip("*_").strip()
    if not rest:
        rest = below_answer_line(text, match.end())
        kind = "display math" if rest.startswith(_DISPLAY) else "line"
        line, said = f"the {kind} below {line if lines > 1 else repr('Answer:')}", True
    formula, count = first_formula(rest)
    if count > 1:
        return FinalAnswer(formula, f"the first of {count} formulas on {line}")
    if formula != rest and not _MATH.search(rest):
        return FinalAnswer(formula, f"the text before the first comma of {line}")
    return FinalAnswer(formula, line if said else "")


def _first_of(count: int, where: str) -> str:
    return f"the first of {count} formulas {where}" if count > 1 else ""


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
    if start == -1:
        return None
    inside = braced(text, start + len(BOXED))
    if inside is None:
        return None
    count = text.count(BOXED)
    return FinalAnswer(
        inside, "the boxed formula" if count == 1 else f"the last of {count} boxed formulas", on_answer_line=False
    )


def braced(text: str, position: int, within: int = _MAX_LINE) -> str | None:
    """The text inside the braces that open at ``position`` (after spaces), or None if they do not
    open there or close within ``within`` characters."""
    while position < len(text) and text[position] == " ":
        position += 1
    if position >= len(text) or text[position] != "{":
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
    """Parse ``answer``; ``variables`` maps each variable to the other ways students may write it."""
    if len(answer) > _MAX_LINE:
        raise ExpressionError(f"it is longer than {_MAX_LINE} characters")
    answer, _ = first_formula(answer.strip())
    if len(answer) > _MAX_LENGTH:
        raise ExpressionError(f"the formula is longer than {_MAX_LENGTH} characters")
    aliases = {alias: name for name, spellings in variables.items() for alias in (name, *spellings)}
    tokens, ignored = _tokens(_plain(answer), aliases)
    if not tokens:
        raise ExpressionError("there is no formula in it")
    python = _join(tokens)
    try:
        tree = ast.parse(python, mode="eval")
    except SyntaxError:
        raise ExpressionError(
            f"it reads as {_shown(python)}, which is not a formula (unbalanced brackets or a missing operator?)"
        ) from None
    for node in ast.walk(tree.body):
        if not isinstance(node, _ALLOWED) or (
            isinstance(node, ast.Constant) and not isinstance(node.value, (int, float))
        ):
            raise ExpressionError(
                f"it reads as {_shown(python)}, which uses something other than numbers, "
                "variables, + - * / ^ and brackets"
            )
    return Formula(text=_shown(ast.unparse(tree)), tree=tree, variables=tuple(variables), ignored=ignored)


def _shown(python: str) -> str:
    return python.replace("**", "^")


def _plain(text: str) -> str:
    """LaTeX and unicode spellings turned into plain operators, brackets, numbers and names."""
    text = re.sub(r"^(\*\*|__|\*|_)(.*)\1$", r"\2", text.strip().rstrip(" ."))  # bold around it all
    text = _COMMANDS_DROPPED.sub(" ", text.replace("\\_", "_"))
    text = _FONT_SWITCH.sub("", _TEXT.sub(r"\1", text))
    text = _GREEK_COMMAND.sub(lambda m: m[1].lower(), text)
    text = "".join(GREEK_LETTERS.get(char, char) for char in text)
    text = _DIVIDE.sub("/", _TIMES.sub("*", text))
    if "=" in text:
        text = text.rsplit("=", 1)[1]  # "\gamma = ...": the value, not its name
    text = _SUBSCRIPT.sub(r"_\1", _replace_fracs(text))
    for spelling, plain in _UNICODE.items():
        text = text.replace(spelling, plain)
    command = re.search(r"\\[A-Za-z]+|\\.?", text)
    if command:
        raise ExpressionError(f"it uses {command[0]}, which this reader does not know")
    return text


def _replace_fracs(text: str) -> str:
    """``\\frac{a}{b}`` -> ``((a)/(b))``, innermost arguments first; ``\\frac12`` works too."""
    for _ in range(_MAX_LENGTH):  # each round removes one \frac
        match = _FRAC.search(text)
        if match is None:
            return text
        arguments, position = [], match.end()
        for _ in range(2):
            argument, position = _argument(text, position)
            arguments.append(argument)
        text = text[: match.start()] + f"(({arguments[0]})/({arguments[1]}))" + text[position:]
    return text


def _argument(text: str, position: int) -> tuple[str, int]:
    """A LaTeX argument at ``position``: ``{...}`` or one character; and where it ends."""
    while position < len(text) and text[position] == " ":
        position += 1
    if position < len(text) and text[position] not in "{}\\":
        return text[position], position + 1
    inside = braced(text, position)
    if inside is None:
        raise ExpressionError("write fractions as \\frac{numerator}{denominator}")
    return inside, position + len(inside) + 2


@dataclass(frozen=True)
class _Token:
    kind: str  # number, name, operator, open, close
    text: str


def _tokens(text: str, aliases: dict[str, str]) -> tuple[list[_Token], str]:
    """The tokens of ``text`` with each variable under its own name, and the words after the
    formula that are not read."""
    tokens: list[_Token] = []
    position = 0
    while position < len(text.rstrip()):
        match = _TOKEN.match(text, position)
        if match is None:
            raise ExpressionError(f"it contains {text[position:].strip()[0]!r}, which is no part of a formula")
        kind = match.lastgroup or ""
        if kind == "name":
            names = _variables(match[kind], aliases)
            if names is None:
                if len(match[kind]) >= 3:  # a word: what follows is commentary ("3k steps")
                    return tokens, text[match.start(kind) :].strip()
                raise ExpressionError(f"{match[kind]!r} is not a variable here (use {', '.join(sorted(aliases))})")
            tokens += [_Token("name", name) for name in names]
        else:
            tokens.append(_Token(kind, match[kind]))
        position = match.end()
    return tokens, ""


def _variables(word: str, aliases: dict[str, str]) -> list[str] | None:
    """The variables ``word`` names: one ("p_drop", "p"), or several written together ("kV" for
    k * V, the fewest that spell it); None when it is no product of variables."""
    # fewest[i]: the fewest spellings that make up word[i:], as (count, first spelling's length)
    fewest: list[tuple[int, int] | None] = [None] * len(word) + [(0, 0)]
    for start in range(len(word) - 1, -1, -1):
        options = [
            (after[0] + 1, end - start)
            for end in range(start + 1, len(word) + 1)
            if word[start:end] in aliases and (after := fewest[end]) is not None
        ]
        fewest[start] = min(options, key=lambda option: (option[0], -option[1])) if options else None
    if fewest[0] is None:
        return None
    names, start = [], 0
    while start < len(word):
        step = fewest[start]
        assert step is not None  # every start on the way is reached by a spelling
        length = step[1]
        names.append(aliases[word[start : start + length]])
        start += length
    return names


def _join(tokens: list[_Token]) -> str:
    """The tokens as Python, with ``*`` where a product has no sign: 3x, 3(x+1), (a)(b), k V, x 3."""
    parts: list[str] = []
    for previous, token in zip([None, *tokens], tokens):
        if (
            previous is not None
            and previous.kind in ("number", "name", "close")
            and token.kind in ("name", "open", "number")
            and not (previous.kind == "number" and token.kind == "number")
        ):
            parts.append("*")
        parts.append(token.text)
    return " ".join(parts)


def _evaluate(node: ast.AST, values: dict[str, float]) -> float:
    if isinstance(node, ast.Constant):
        return float(cast(float, node.value))  # the tokenizer lets numbers through only
    if isinstance(node, ast.Name):
        return values[node.id]
    if isinstance(node, ast.UnaryOp):
        operand = _evaluate(node.operand, values)
        return -operand if isinstance(node.op, ast.USub) else operand
    node = cast(ast.BinOp, node)  # _checked allows no other node
    left, right = _evaluate(node.left, values), _evaluate(node.right, values)
    if isinstance(node.op, ast.Pow) and abs(right) > 64:
        raise ZeroDivisionError("exponent too large")  # refuse, like a value that does not exist
    return float(_OPERATORS[type(node.op)](left, right))


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
