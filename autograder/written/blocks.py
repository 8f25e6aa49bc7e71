"""The block structure of a Markdown answer (headings, paragraphs, lists, code), found in time
linear in the text and small for any text: the parse that :mod:`autograder.written.answers` places
answers by.

Two things keep it so. The inline rules (links, emphasis, code spans) are off: the reader needs
none of them, and some inputs ("![" repeated) make them take seconds per hundred kilobytes. And the
white space at the start of a line is cut to :data:`MAX_INDENT` columns before parsing, since the
parser looks at it one character at a time: deeper indentation means nothing more (code is
indented by 4), and a line of 8 MB of spaces would take seconds. Lines are neither added nor
removed, so the line numbers of the tokens are those of the text. The text of a heading is cut to
:data:`MAX_TITLE` characters: it names a question at its start, and every message that quotes it
stays short.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.token import Token

MAX_INDENT = 16
MAX_TITLE = 200
_DEEP_INDENT = re.compile(rf"^[ \t]{{{MAX_INDENT + 1},}}", re.MULTILINE)
_PARSER = MarkdownIt("commonmark").disable("inline")


def parse_blocks(text: str) -> list[Token]:
    """The block tokens of ``text``; the text of a heading is its inline token's ``content``."""
    tokens = _PARSER.parse(_DEEP_INDENT.sub(" " * MAX_INDENT, text))
    for opening, inline in zip(tokens, tokens[1:]):
        if opening.type == "heading_open" and len(inline.content) > MAX_TITLE:
            inline.content = inline.content[: MAX_TITLE - 1] + "…"
    return tokens
