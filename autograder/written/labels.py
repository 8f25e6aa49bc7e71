"""Which question a heading names: "2a-i", "2a (i)", "2(a)(i)", "Question 2a.i", "(b)(i)", "b-i"...

A label has up to three parts: the question's number, a letter a-h and a part in roman numerals.
Parts left out are taken from the enclosing headings, so "### (i)" under "## 2a" names 2a-i and
"## (b)(ii)" under "# Part 1" names 1b-ii. A bare letter or numeral ("A note", "I think") is a label
only when punctuation follows it ("b.", "i)"), so ordinary headings are not mistaken for labels.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ROMAN = ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x")
_KEYWORD = re.compile(r"^(?:question|q|part|problem|exercise|task|section)\s*\.?\s*", re.IGNORECASE)
_DECORATION = re.compile(r"[*_`]+")
_NUMBER = re.compile(r"\d+")
_COMPONENT = re.compile(r"\((?P<inner>[a-z]+)\)|(?P<bare>[a-z]+)(?![a-z0-9])")
_SEPARATOR = re.compile(r"[\s.:\-_]*")
_LETTERS = "abcdefgh"


@dataclass(frozen=True)
class Label:
    number: str | None = None
    letter: str | None = None
    part: str | None = None

    def within(self, outer: "Label | None") -> "Label":
        """This label with the parts it leaves out taken from the enclosing heading's label."""
        if outer is None or self.number is not None:
            return self
        if self.letter is not None:
            return Label(outer.number, self.letter, self.part)
        return Label(outer.number, outer.letter, self.part)

    @property
    def question_id(self) -> str:
        text = f"{self.number or ''}{self.letter or ''}"
        return f"{text}-{self.part}" if self.part else text


def _split_letters(word: str) -> tuple[str | None, str | None] | None:
    """"a" -> (a, None), "ii" -> (None, ii), "aii" -> (a, ii); None if it is neither."""
    if word in ROMAN:
        return None, word
    if word[0] in _LETTERS and (len(word) == 1 or word[1:] in ROMAN):
        return word[0], word[1:] or None
    return None


def read_label(heading: str) -> Label | None:
    """The label at the start of a heading's text, or None when the heading names no question."""
    text = _KEYWORD.sub("", _DECORATION.sub("", heading).strip()).lower()
    number = _NUMBER.match(text)
    position = number.end() if number else 0
    letter = part = None
    parenthesised = False
    while position < len(text):
        match = _COMPONENT.match(text, _SEPARATOR.match(text, position).end())
        split = _split_letters(match["inner"] or match["bare"]) if match else None
        if split is None or (split[0] and (letter or part)) or (split[1] and part):
            break
        letter, part = split[0] or letter, split[1] or part
        parenthesised |= match["inner"] is not None
        position = match.end()
    if number is None and letter is None and part is None:
        return None
    if number is None and not parenthesised:
        # "b." or "b-i" is a label; "A note" or "I think" is not.
        rest = text[position:]
        if rest.strip() and not re.match(r"\s*[.:)\-]", rest) and not (letter and part):
            return None
    return Label(number.group() if number else None, letter, part)


def sort_key(question_id: str) -> tuple:
    """Orders ids as a handout does: 1c-i, 1c-ii, 1d-i, 2b-iv, 2e."""
    match = re.match(r"(\d+)([a-z]?)(?:-([ivx]+))?$", question_id)
    if not match:
        return (10**6, question_id)
    return (int(match[1]), match[2], ROMAN.index(match[3]) + 1 if match[3] in ROMAN else 0)


@dataclass(frozen=True)
class Match:
    """What a resolved label means for a set of written question ids."""

    question: str | None  # the question it answers
    is_context: bool  # a heading of a section or question whose written parts come below it
    problem: str | None  # why it names no question (ambiguous, unknown)


def match_label(label: Label, written_ids: list[str]) -> Match:
    if label.number is not None:
        qid = label.question_id
        if qid in written_ids:
            return Match(qid, False, None)
        if label.part is None:
            return Match(None, True, None)  # "## 2", "## 2a": a section, or a question's code part
        return Match(None, False, f"there is no written question {qid} (they are "
                                  f"{', '.join(sorted(written_ids, key=sort_key))})")
    suffix = f"{label.letter or ''}" + (f"-{label.part}" if label.part else "")
    candidates = sorted((q for q in written_ids if re.sub(r"^\d+", "", q) == suffix), key=sort_key)
    if len(candidates) == 1:
        return Match(candidates[0], False, None)
    if candidates:
        return Match(None, False, f"it could be {' or '.join(candidates)}; write the number too "
                                  f"(for example '{candidates[0]}')")
    return Match(None, False, f"no written question ends in {suffix}")
