"""Reads a short final answer such as ``$\\alpha = \\frac{3}{1 + x_{max}}$`` or ``3k`` and
compares it with the expected formula by evaluating both at a few points.

Student text is never evaluated by Python: it is parsed with :mod:`ast` and only numbers, the
declared variables, + - * / ** and brackets are accepted. That is also why this is not sympy, whose
``parse_expr`` runs ``eval`` on its input.
"""

from __future__ import annotations

import ast
import math
import operator
import re
from dataclasses import dataclass
from typing import Callable

_ANSWER_LINE = re.compile(r"^[\s>*_#-]*(?:final\s+)?answer\s*[*_]*\s*[:=]\s*[*_]*(?P<rest>.*)$",
                          re.IGNORECASE | re.MULTILINE)
_MATH = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$|\\\((.+?)\\\)")
_FRAC = re.compile(r"\\[dt]?frac\s*")
_TEXT = re.compile(r"\\(?:text|textrm|mathrm|mathit|operatorname|rm)\s*\{([^{}]*)\}")
_SPACING = re.compile(r"\\(?:left|right|big|Big|bigg|Bigg)(?![a-zA-Z])|\\[,;:! ]|\\quad|\\qquad")
_TIMES = re.compile(r"\\cdot|\\times|\\ast|[×·⋅∗]")
_GREEK = re.compile(r"\\(?:gamma|Gamma)\b|γ")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_MAX_LENGTH = 200
_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
              ast.Div: operator.truediv, ast.Pow: operator.pow}


class ExpressionError(ValueError):
    """The answer could not be read as a formula; the message says what was wrong."""


@dataclass(frozen=True)
class Formula:
    """A student's formula, parsed; ``text`` is how it was read, for feedback."""

    text: str
    tree: ast.Expression
    variables: tuple[str, ...]

    def __call__(self, values: dict[str, float]) -> float:
        return _evaluate(self.tree.body, values)


def has_answer_line(text: str) -> bool:
    return _ANSWER_LINE.search(text) is not None


def final_answer(text: str) -> str | None:
    """The final answer in an answer: the last line starting with "Answer:", else the whole text
    when it is a single line."""
    matches = list(_ANSWER_LINE.finditer(text))
    if matches:
        return matches[-1]["rest"].strip()
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[0] if len(lines) == 1 else None


def _replace_fracs(text: str) -> str:
    """``\\frac{a}{b}`` -> ``((a)/(b))``, innermost arguments first."""
    while (match := _FRAC.search(text)) is not None:
        arguments, position = [], match.end()
        for _ in range(2):
            while position < len(text) and text[position] == " ":
                position += 1
            if position >= len(text) or text[position] != "{":
                raise ExpressionError("write fractions as \\frac{numerator}{denominator}")
            depth, start = 0, position
            for position in range(start, len(text)):
                depth += {"{": 1, "}": -1}.get(text[position], 0)
                if depth == 0:
                    break
            else:
                raise ExpressionError("a { has no matching }")
            arguments.append(text[start + 1:position])
            position += 1
        text = text[:match.start()] + f"(({arguments[0]})/({arguments[1]}))" + text[position:]
    return text


def _to_python(text: str, aliases: dict[str, str]) -> str:
    math_parts = [next(g for g in m.groups() if g is not None) for m in _MATH.finditer(text)]
    text = math_parts[-1] if math_parts else text
    text = re.sub(r"^(\*\*|__)|(\*\*|__)$", "", text.strip())  # bold around the whole answer
    text = text.replace("`", "").replace("−", "-").replace("–", "-")
    text = text.replace("\\_", "_").rstrip(" .")
    text = _TEXT.sub(r"\1", _SPACING.sub("", text))
    text = _GREEK.sub("gamma", text)
    if "=" in text:
        text = text.rsplit("=", 1)[1]
    text = _replace_fracs(_TIMES.sub("*", text))
    text = re.sub(r"_\{([A-Za-z0-9]+)\}", r"_\1", text).replace("{", "(").replace("}", ")")
    text = text.replace("[", "(").replace("]", ")").replace("^", "**").replace("÷", "/")
    if "\\" in text:
        command = re.search(r"\\[A-Za-z]+", text)
        raise ExpressionError(f"it uses {command[0] if command else 'a backslash'}, which this "
                              "reader does not know; write the formula with + - * / ^ and brackets")
    # A trailing word ("3k steps") is commentary, not part of the formula.
    words = [m for m in _IDENTIFIER.finditer(text) if m[0] not in aliases and len(m[0]) >= 3]
    if words:
        text = text[:words[0].start()]
    names = []
    for match in _IDENTIFIER.finditer(text):
        if match[0] not in aliases:
            raise ExpressionError(f"{match[0]!r} is not a variable here (use {', '.join(sorted(aliases))})")
        names.append(match[0])
    text = _IDENTIFIER.sub(lambda m: aliases[m[0]], text)
    # implicit multiplication: 3k, 3(…), k(…), (…)(…), (…)k
    text = re.sub(r"(?<=[0-9.)])\s*(?=[A-Za-z(])|(?<=[A-Za-z0-9_)])\s*(?=\()", "*", text)
    return text.strip()


def read_formula(answer: str, variables: dict[str, tuple[str, ...]]) -> Formula:
    """Parse ``answer``; ``variables`` maps each variable to the ways students may write it."""
    if len(answer) > _MAX_LENGTH:
        raise ExpressionError(f"the final answer is longer than {_MAX_LENGTH} characters")
    aliases = {alias: name for name, spellings in variables.items() for alias in (name, *spellings)}
    python = _to_python(answer, aliases)
    if not python:
        raise ExpressionError("there is no formula in it")
    try:
        tree = ast.parse(python, mode="eval")
    except SyntaxError:
        raise ExpressionError(f"{python!r} is not a formula (unbalanced brackets or a missing "
                              "operator?)") from None
    for node in ast.walk(tree.body):
        allowed = (ast.BinOp, ast.UnaryOp, ast.Constant, ast.Name, ast.operator, ast.unaryop,
                   ast.expr_context)
        if not isinstance(node, allowed) or isinstance(node, (ast.MatMult, ast.Mod, ast.FloorDiv,
                                                                ast.BitOr, ast.BitAnd, ast.BitXor,
                                                                ast.LShift, ast.RShift, ast.Invert,
                                                                ast.Not)):
            raise ExpressionError(f"{python!r} uses something other than numbers, variables, "
                                  "+ - * / ^ and brackets")
        if isinstance(node, ast.Constant) and not isinstance(node.value, (int, float)):
            raise ExpressionError(f"{python!r} contains {node.value!r}")
    return Formula(text=ast.unparse(tree).replace("**", "^"), tree=tree, variables=tuple(variables))


def _evaluate(node: ast.AST, values: dict[str, float]) -> float:
    if isinstance(node, ast.Constant):
        return float(node.value)
    if isinstance(node, ast.Name):
        return values[node.id]
    if isinstance(node, ast.UnaryOp):
        operand = _evaluate(node.operand, values)
        return -operand if isinstance(node.op, ast.USub) else operand
    left, right = _evaluate(node.left, values), _evaluate(node.right, values)
    if isinstance(node.op, ast.Pow) and abs(right) > 64:
        raise ZeroDivisionError("exponent too large")  # refuse, like a value that does not exist
    return float(_OPERATORS[type(node.op)](left, right))


def compare(formula: Formula, expected: Callable[[dict[str, float]], float],
            points: list[dict[str, float]]) -> str | None:
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
