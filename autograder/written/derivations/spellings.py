"""How students write math that is not the LaTeX the reader reads, each with the LaTeX it stands
for: one table, applied in order before a formula is cut into tokens.

A row says what it is for, changes the text, and carries an example as a student writes it with
the LaTeX it must become; ``tests/test_derivations.py`` checks every row's example, so a spelling is
added here, as a row with its example, and the reader's grammar stays the grammar of LaTeX.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

GREEK = (
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi pi rho sigma tau upsilon phi chi psi "
    "omega"
).split()
GREEK_LETTERS = dict(zip("αβγδεζηθικλμνξπρστυφχψω", GREEK))

_COMMANDS = "⊙odot ∘circ ·cdot ⋅cdot ×times ∑sum Σsum ∂partial ∇nabla ≠neq ≥geq ≤leq ⊤top ∈in ⊗otimes …dots ∼sim"
_UNICODE = {  # ▒ and 〖 〗: Word's linear format, before a sum's body and around it; U+2061: "applied to"
    **{pair[0]: f"\\{pair[1:]} " for pair in _COMMANDS.split()},
    **{letter: f"\\{name} " for letter, name in GREEK_LETTERS.items()},
    **dict(zip("∗−–÷′`▒〖〗\u2061", ("*", "-", "-", "/", "'", " ", " ", "(", ")", ""))),
    "ŷ": "\\hat{y}",
    "ᵀ": "^{\\top}",
    "𝟙": "\\mathbb{1}",
    "ℝ": "\\mathbb{R}",
    "²": "^2",
}
_SUBSCRIPT_LETTERS = str.maketrans("₀₁₂₃₄₅₆₇₈₉₌₊₋₍₎ₐₑₒₓₕₖₗₘₙₚₛₜᵢⱼᵤᵥ", "0123456789=+-()aeoxhklmnpstijuv")
_SUBSCRIPTS = re.compile("[₀₁₂₃₄₅₆₇₈₉₌₊₋₍₎ₐₑₒₓₕₖₗₘₙₚₛₜᵢⱼᵤᵥ]+")
_SUPERSCRIPT_LETTERS = str.maketrans("⁰¹³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ᴷᴺⱽᴰᴴᴹ", "013456789+-=()KNVDHM")
_SUPERSCRIPTS = re.compile("[⁰¹³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ᴷᴺⱽᴰᴴᴹ][⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ᴷᴺⱽᴰᴴᴹ]*")
_EDITOR_LETTERS = set("ℎℓ")
_SPACED_ACCENT = re.compile(r" (?=[\u0300-\u036f])")  # Word's linear format: "y ̂" for ŷ
_BROADCASTS = {"*": "\\odot ", "/": "/", "^": "^", "+": "+", "-": "-", "<": "<", ">": ">"}


def plain_letters(text: str) -> str:
    """Letters of an equation editor's alphabets (𝑣, 𝒚, 𝜽, ℎ) as plain letters, and an accent typed
    as a combining mark (y and U+0302) as one letter (ŷ); 𝟙 stays the indicator's."""
    if text.isascii():
        return text
    text = text.replace("\ufe0f", "").replace("\ufe0e", "")  # an emoji's presentation selector: "✔️"
    letters = (
        unicodedata.normalize("NFKC", c) if c in _EDITOR_LETTERS or 0x1D400 <= ord(c) <= 0x1D7D7 else c for c in text
    )
    return unicodedata.normalize("NFC", _SPACED_ACCENT.sub("", "".join(letters)))


def unicode_as_latex(text: str) -> str:
    """Unicode symbols as the LaTeX commands they stand for (ŷ, ⊙, ∑, Greek letters)."""
    return "".join(_UNICODE.get(char, char) for char in text)


def _sub(pattern: str, replacement: str | Callable[[re.Match[str]], str]) -> Callable[[str], str]:
    compiled = re.compile(pattern)
    return lambda text: compiled.sub(replacement, text)


def _r_code(text: str) -> str:
    """R's matrix product ``%*%`` as numpy's ``@``, and its transpose ``t(A)`` as ``(A)^T``."""
    if "%*%" not in text:
        return text
    text = text.replace("%*%", "@")
    while (call := re.search(r"(?<![\w.])t\(", text)) is not None:
        depth, end = 0, None
        for position in range(call.end() - 1, len(text)):
            depth += {"(": 1, ")": -1}.get(text[position], 0)
            if depth == 0:
                end = position
                break
        if end is None:
            return text
        text = f"{text[: call.start()]}({text[call.end() : end]})^{{\\top}}{text[end + 1 :]}"
    return text


def _indicator(left: str, relation: str, right: str) -> str:
    return f"\\mathbb{{1}}[{left} {_RELATIONS[relation]} {right}]"


_RELATIONS = {"==": "=", "!=": "\\neq"}


def _numpy(text: str) -> str:
    """In a formula with ``@``, numpy's: ``@`` the matrix product (of two vectors, their dot product),
    ``*`` entry by entry, a module's name before a function (``np.``, ``torch.``, ``jnp.``)."""
    if "@" not in text:
        return text
    return re.sub(r"\b(?:np|numpy|torch|jnp)\.", "", text.replace("*", "\\odot "))


@dataclass(frozen=True)
class Rewrite:
    """A way of writing (``meaning``), what it changes in a formula's text, and an example: a
    student's ``written`` text and the LaTeX it is read as, after every row."""

    meaning: str
    change: Callable[[str], str]
    written: str
    latex: str


REWRITES: tuple[Rewrite, ...] = (
    Rewrite(
        "an equation editor's letters, and accents typed as combining marks", plain_letters, "𝒚\u0302 𝑾", "\\hat{y} W"
    ),
    Rewrite(
        "unicode subscripts: a run of them is one subscript",
        _sub(_SUBSCRIPTS.pattern, lambda run: f"_{{{run[0].translate(_SUBSCRIPT_LETTERS)}}}"),
        "Wⱼᵢ",
        "W_{ji}",
    ),
    Rewrite(
        "unicode superscripts (ᵀ alone is a transpose)",
        _sub(_SUPERSCRIPTS.pattern, lambda run: f"^{{{run[0].translate(_SUPERSCRIPT_LETTERS).replace('²', '2')}}}"),
        "∑ₖ₌₁ᴷ",
        "\\sum_{k=1}^{K}",
    ),
    Rewrite("unicode symbols and Greek letters", unicode_as_latex, "ŷ ⊙ θ", "\\hat{y} \\odot \\theta"),
    # Word's linear format brackets what a script or a fraction holds: (∂J)/(∂θ), e^(θ_i), b_(1,i);
    # a bracket of digits only is part of a name (W^(2)).
    Rewrite(
        "Word's linear format: a derivative as (∂J)/(∂x)",
        _sub(r"\(\s*(\\partial [^()]*?)\s*\)\s*/\s*(?:\(\s*(\\partial [^()]*?)\s*\)|(?=\\partial))", r"\1/\2"),
        "(∂J)/(∂θ_i )",
        "\\partial J/\\partial \\theta_i",
    ),
    Rewrite(
        "Word's linear format: scripts in brackets",
        _sub(r"([_^])\(([^()]*[^\d()\s][^()]*)\)", r"\1{\2}"),
        "e^(θ_i )+b_(1,i)",
        "e^{\\theta_i}+b_{1,i}",
    ),
    # Four letters or more (not "eta" of "beta", "pi" of words); after the "d" of a derivative too;
    # digits right after it are its subscript, as for a letter in plain text ("delta1" is \delta_1).
    Rewrite(
        "Greek letters spelled out in plain text",
        _sub(
            r"(?:(?<![\\A-Za-z])|(?<=[^\\A-Za-z]d)|(?<=^d))"
            r"(alpha|beta|gamma|delta|epsilon|zeta|theta|kappa|lambda|omega)(\d{0,2})(?![A-Za-z])",
            lambda word: f"\\{word[1]}_{{{word[2]}}} " if word[2] else f"\\{word[1]} ",
        ),
        "dJ/dtheta",
        "dJ/d\\theta",
    ),
    Rewrite(
        "a vector written by its entries, first to last",
        _sub(r"\(\s*([A-Za-z])_\{?1\}?\s*,\s*(?:\\[lc]?dots|\.\.\.)\s*,\s*\1_(?:\{[^{}]+\}|\w)\s*\)", r"(\1)"),
        "diag(d_1, \\dots, d_{D_h})",
        "diag(d)",
    ),
    # An expectation over the word w drawn from a distribution: the sum of each w's share times what follows.
    Rewrite(
        "an expectation over a distribution",
        _sub(
            r"(?:\\mathbb\s*\{\s*E\s*\}|\\mathbb\s+E|(?<![\\A-Za-z])E)\s*_\s*\{\s*([a-z])\s*(?:\\sim|~)\s*"
            r"((?:\\hat\s*\{?\s*y\s*\}?|[A-Za-z])(?:_\{?\w+\}?)?)\s*\}",
            lambda m: f"\\sum_{{{m[1]}}} {m[2]}_{{{m[1]}}} ",
        ),
        "\\mathbb{E}_{w \\sim \\hat y}[u_w]",
        "\\sum_{w} \\hat y_{w} [u_w]",
    ),
    Rewrite("sums typed without LaTeX", _sub(r"(?<![\\A-Za-z])sum(?=\s*_)", lambda _: "\\sum"), "sum_w", "\\sum_w"),
    Rewrite("a power as Python writes it", lambda text: text.replace("**", "^"), "h**2", "h^2"),
    Rewrite(
        "an equation's number or name: no part of it",
        _sub(r"\\(?:label|tag\*?)\s*\{[^{}]*\}", " "),
        "x \\tag{3}",
        "x",
    ),
    Rewrite("a count typed with #", _sub(r"(?<!\\)#", lambda _: "\\#"), "#{k}", "\\#{k}"),
    Rewrite(
        "Julia's and Matlab's operators entry by entry",
        _sub(r"(?<!\d)\.([*/^+\-<>])", lambda dot: _BROADCASTS[dot[1]]),
        "a .* b",
        "a \\odot b",
    ),
    Rewrite("Julia's broadcast calls", _sub(r"([A-Za-z])\s*\.\(", r"\1("), "sigmoid.(z)", "sigmoid(z)"),
    Rewrite(
        "numpy's outer product",
        _sub(
            r"\b(?:(?:np|numpy|torch|jnp)\.)?outer\(((?:[^(),]|\([^()]*\))+),((?:[^(),]|\([^()]*\))+)\)",
            r"(\1) \\otimes (\2)",
        ),
        "np.outer(yhat - y, v_c)",
        "(yhat - y) \\otimes (v_c)",
    ),
    Rewrite("R's %*% and t()", _r_code, "t(U) %*% (yhat - y)", "(U)^{\\top} @ (yhat - y)"),
    # Python's comparison as a number, 1 where it holds: "(w == o)", "(i != j)".
    Rewrite(
        "a comparison as Python computes it",
        _sub(r"\(\s*([A-Za-z]\w?)\s*(==|!=)\s*([A-Za-z]\w?)\s*\)", lambda m: _indicator(m[1], m[2], m[3])),
        "yhat[w] - (w == o)",
        "yhat_{w} - \\mathbb{1}[w = o]",
    ),
    Rewrite("numpy's @, * and np.", _numpy, "W @ x * np.exp(z)", "W @ x \\odot exp(z)"),
    Rewrite("numpy's transpose", _sub(r"(?<=[\w)\]}])\.T\b", lambda _: "^{\\top}"), "W.T", "W^{\\top}"),
    # An index in brackets right after a name; not \left[ or \mathbb{1}[...] (a command or a brace before).
    Rewrite(
        "numpy's index brackets: an entry",
        _sub(r"(?<![\\A-Za-z])([A-Za-z]\w*)\[\s*(\w+(?:\s*,\s*\w+)?)\s*\]", lambda m: f"{m[1]}_{{{m[2]}}}"),
        "yhat[o] W[j, i]",
        "yhat_{o} W_{j, i}",
    ),
    # Not a full stop before a sentence ("... . This").
    Rewrite(
        "a dot typed for a dot product",
        _sub(r"(?<=[\w)}])\s+\.\s+(?=[a-z\\(]|[A-Z](?![a-z]))", lambda _: " \\cdot "),
        "u . v",
        "u \\cdot v",
    ),
)


def as_latex(text: str) -> str:
    """``text`` with every row of :data:`REWRITES` applied, in order."""
    for rewrite in REWRITES:
        text = rewrite.change(text)
    return text
