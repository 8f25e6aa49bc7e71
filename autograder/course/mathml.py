"""LaTeX to MathML for the pages the project writes: typeset when the page is written, so it shows
offline and sends no one's answers anywhere (browsers render MathML natively).

The converter (latex2mathml) passes some of what it reads through unchecked: ``\\text{<script>...}``
comes out as markup, ``\\href`` and ``\\style`` as attributes. A student writes the LaTeX, so its
output is parsed and kept only when every element and attribute is MathML's presentation markup;
anything else, and any command the converter did not know (left as ``\\name`` in the output), gives
None, and the page shows the LaTeX as code.
"""

from __future__ import annotations

import re
import unicodedata
import xml.etree.ElementTree as ElementTree

from latex2mathml.converter import convert

from autograder.written.derivations.spellings import GREEK_LETTERS

_NAMESPACE = "{http://www.w3.org/1998/Math/MathML}"
_ELEMENTS = frozenset(
    "math mrow mi mn mo ms mtext mspace msub msup msubsup mfrac msqrt mroot mover munder munderover "
    "mtable mtr mtd mstyle menclose mpadded mphantom merror mfenced".split()
)
_ATTRIBUTES = frozenset(
    "display mathvariant stretchy fence form separator separators accent accentunder minsize maxsize "
    "notation displaystyle scriptlevel rowspacing columnspacing columnalign rowalign columnlines rowlines "
    "frame linethickness lspace rspace voffset width height depth movablelimits largeop symmetric mathcolor "
    "mathbackground mathsize align equalrows equalcolumns columnspan rowspan bevelled open close".split()
)


_NUMBERING = re.compile(r"\\(?:label|tag\*?)\{(?:[^{}]|\{[^{}]*\})*\}|\\nonumber|\\notag")
_INNER_ALIGN = re.compile(r"\\(?:begin|end)\{(aligned|split)\}")


def to_mathml(latex: str, *, display: bool) -> str | None:
    """``latex`` (without its ``$``) as a ``<math>`` element, or None when it cannot be shown safely
    and whole."""
    # The converter knows align* but not its inner forms, which students put inside $$; labels and
    # tags number equations for references the page has none of.
    latex = _INNER_ALIGN.sub(lambda m: m[0].replace(m[1], "align*"), _NUMBERING.sub("", latex))
    try:
        converted = convert(latex, display="block" if display else "inline")
        tree = ElementTree.fromstring(converted)
    except Exception:  # noqa: BLE001 - the converter raises many kinds on what it cannot read
        return None
    for element in tree.iter():
        name = element.tag.removeprefix(_NAMESPACE)
        texts = (element.text or "", element.tail or "")
        if name not in _ELEMENTS or set(element.attrib) - _ATTRIBUTES or any("\\" in text for text in texts):
            return None
        element.tag = name  # HTML knows <math> without a namespace
    return ElementTree.tostring(tree, encoding="unicode")


_SYMBOLS = {
    **{name: letter for letter, name in GREEK_LETTERS.items()},
    **{"odot": "⊙", "cdot": "·", "top": "ᵀ", "otimes": "⊗", "partial": "∂", "neq": "≠", "sum": "∑", "dots": "…"},
}
_HAT = re.compile(r"\\hat\s*(?:\{\s*([A-Za-z])\s*\}|([A-Za-z]))")
_COMMAND = re.compile(r"\\([A-Za-z]+)")


def in_symbols(plain: str) -> str:
    """The reader's plain notation (``\\hat y - y``, ``d/d\\theta``) with its LaTeX names as the
    symbols they name (``ŷ - y``, ``d/dθ``), for a page to show as text."""
    accented = _HAT.sub(lambda match: (match[1] or match[2]) + "\u0302", plain)
    return unicodedata.normalize("NFC", _COMMAND.sub(lambda match: _SYMBOLS.get(match[1], match[0]), accented))
