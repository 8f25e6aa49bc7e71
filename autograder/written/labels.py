"""Which question a heading names: "2a-i", "2a (i)", "2(a)(i)", "Question 2a.i", "(b)(i)", "b-i"...

A label has up to three parts: the question's number, a letter a-h and a part in roman numerals.
Parts left out are taken from the enclosing headings, so "### (i)" under "## 2a" names 2a-i and
"## (b)(ii)" under "# Part 1" names 1b-ii. A bare letter or numeral ("A note", "I think") is a label
only when punctuation follows it ("b.", "i)"), so ordinary headings are not mistaken for labels.

A bold label at the start of a paragraph ("**(b)(ii)** We have...") is read like a heading's, and
so is LaTeX sectioning pasted from Overleaf (``\\subsection*{2(b)(i)}``). A label that names a part
with one written question ("## 1c", "Problem 1 (c)" where 1c-i is 1c's only one) names it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ROMAN = ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x")
_KEYWORD = re.compile(r"^(?:question|q|part|problem|exercise|task|section)\s*\.?\s*", re.IGNORECASE)
_DECORATION = re.compile(r"[*_`]+")
_NUMBER = re.compile(r"\d+")
# A letter or a part, after any separator: "(a)", "a", ".ii", "-ii", ", part c", ", item ii".
_COMPONENT = re.compile(
    r"[\s.:\-_,]*(?:(?:part|item|sub-?part)\s+)?(?:\((?P<inner>[a-z]+)\)|(?P<bare>[a-z]+)(?![a-z0-9]))"
)
_LETTERS = "abcdefgh"
_SECTION_NUMBER = re.compile(r"(?:\.\d+)+(?=\s)")
# Up to three spaces of indentation, as Markdown allows before a paragraph; "- **(a)**" (a list) is
# not a label but an item of the answer.
_BOLD_START = re.compile(r"^ {0,3}(?P<mark>\*\*|__)(?P<inner>[^*_\n]+?)(?P=mark)")


@dataclass(frozen=True)
class Label:
    number: str | None = None
    letter: str | None = None
    part: str | None = None

    def within(self, outer: Label | None) -> Label:
        """This label with the parts it leaves out taken from the enclosing heading's label."""
        if outer is None or self.number is not None:
            return self
        return Label(outer.number, self.letter or outer.letter, self.part)

    @property
    def question_id(self) -> str:
        text = f"{self.number or ''}{self.letter or ''}"
        return f"{text}-{self.part}" if self.part else text


def _split_letters(word: str) -> tuple[str | None, str | None] | None:
    """ "a" -> (a, None), "ii" -> (None, ii), "aii" -> (a, ii); None if it is neither."""
    if word in ROMAN:
        return None, word
    if word[0] in _LETTERS and (len(word) == 1 or word[1:] in ROMAN):
        return word[0], word[1:] or None
    return None


def read_label(heading: str) -> Label | None:
    """The label at the start of a heading's text, or None when the heading names no question."""
    return split_label(heading)[0]


def split_label(heading: str) -> tuple[Label | None, str]:
    """The label at the start of a heading's text and the rest of it, the heading's own title
    (lower case): "2. Machine Learning" -> (2, "machine learning")."""
    text = _KEYWORD.sub("", _DECORATION.sub("", heading).strip()).lower()
    number = _NUMBER.match(text)
    position = number.end() if number else 0
    if number and (numbered := _SECTION_NUMBER.match(text, position)) and _COMPONENT.match(text, numbered.end()):
        position = numbered.end()  # Quarto's and LaTeX's numbering: "1.3 (c)(i)" is 1c-i
    letter = part = None
    parenthesised = False
    while (match := _COMPONENT.match(text, position)) is not None:
        split = _split_letters(match["inner"] or match["bare"])
        if split is None or (split[0] and (letter or part)) or (split[1] and part):
            break
        letter, part = split[0] or letter, split[1] or part
        parenthesised |= match["inner"] is not None
        position = match.end()
    rest = text[position:]
    if number is None and letter is None and part is None:
        return None, text
    if number is None and not parenthesised:
        # "b." or "b-i" is a label; "A note" or "I think" is not.
        if rest.strip() and not re.match(r"\s*[.:)\-]", rest) and not (letter and part):
            return None, text
    return Label(number.group() if number else None, letter, part), rest.strip(" .:)-\t")


# LaTeX sectioning pasted from Overleaf, at the start of a line: its depth below the Markdown
# heading above it (deeper than a bold label's half level), and its title.
_SECTIONING = re.compile(r"^ {0,3}\\(?P<kind>section|subsection|subsubsection|paragraph)\*?\{(?P<title>[^{}\n]*)\}")
SECTION_DEPTH = {"section": 0.6, "subsection": 0.7, "subsubsection": 0.8, "paragraph": 0.9}


def sectioning(line: str) -> tuple[str, float, int] | None:
    """The title of a LaTeX sectioning command starting ``line`` (``\\subsection*{(b)(i)}``), its
    depth below the heading above it and where the line's text after it starts; None otherwise."""
    match = _SECTIONING.match(line)
    return (match["title"].strip(), SECTION_DEPTH[match["kind"]], match.end()) if match else None


# A LaTeX list of parts: "\\begin{enumerate}[label=(\\roman*)]" (or "[(i)]"), whose items are (i), (ii)...
_LIST = re.compile(r"^\s*\\begin\{enumerate\}(?P<roman>\s*\[[^\]]*(?:\\roman|\(i\)|\bi\)))?")
_LIST_END = re.compile(r"^\s*\\end\{enumerate\}")
_ITEM = re.compile(r"^\s*\\item(?:\[(?P<label>[^\]\n]*)\])?")
_SET_COUNTER = re.compile(r"\\setcounter\{enumi\}\{(?P<value>\d+)\}")


def roman_items(lines: list[str]) -> dict[int, tuple[str, int]]:
    """The items of LaTeX lists that name parts, as {line: (their label, where the line's text after
    ``\\item`` starts)}: in a list numbered in roman (``\\begin{enumerate}[label=(\\roman*)]``) the
    k-th item is "(k in roman)", counted from ``\\setcounter{enumi}{...}`` where one is set; in any
    list, ``\\item[(iii)]`` is what it says."""
    found: dict[int, tuple[str, int]] = {}
    count, roman = -1, False  # -1: in no list
    for number, line in enumerate(lines):
        if (opened := _LIST.match(line)) is not None:
            count, roman = 0, opened["roman"] is not None
        elif _LIST_END.match(line):
            count = -1
        elif count >= 0 and (item := _ITEM.match(line)) is not None:
            count += 1
            numbered = f"({ROMAN[count - 1]})" if roman and count <= len(ROMAN) else ""
            label = item["label"] or numbered  # "\item[(ii)]" in any list
            if label and read_label(label) is not None:
                found[number] = (label, item.end())
        if count >= 0 and (counter := _SET_COUNTER.search(line)) is not None:
            count = int(counter["value"])  # "\setcounter{enumi}{1}": the next item is (ii)
    return found


# A plain-text label that starts a line and ends with a colon, as e-mail and plain text write one:
# "Q1c(ii): ...", "Question 2a-i:"; its keyword and number are required, so "w = o:" is none.
_PLAIN_START = re.compile(
    r"^ {0,3}(?P<inner>(?:q|question|problem)\s*\.?\s*\d+[a-h]?(?:[\s.\-]*\(?[ivx]+\)?)?)\s*:", re.I
)


def plain_label(line: str) -> tuple[str, int] | None:
    """The text of a plain label starting ``line`` ("Q1c(ii): See above" -> "Q1c(ii)") and where the
    line's text after it starts; None when the line starts with none."""
    match = _PLAIN_START.match(line)
    return (match["inner"], match.end()) if match and read_label(match["inner"]) is not None else None


def bold_label(line: str) -> tuple[str, int] | None:
    """The text of a bold label starting ``line`` ("**(b)(ii)** We have" -> "(b)(ii)") and where
    the line's text after it starts; None when the line does not start with a bold label."""
    match = _BOLD_START.match(line)
    return (match["inner"], match.end()) if match and read_label(match["inner"]) is not None else None


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
    problem: str | None  # why it names no question (ambiguous, unknown)


def match_label(label: Label, written_ids: list[str]) -> Match:
    if label.number is not None:
        qid = label.question_id
        if qid in written_ids:
            return Match(qid, None)
        if label.part is None:
            return Match(None, None)  # "## 2", "## 2a": a section, or a question's code part
        # A write-up numbered its own way ("2. Machine Learning", then "(b)(i)" for 1b-i).
        alike = ending_in(label_suffix(label), written_ids)
        if alike:
            return Match(None, f"there is no written question {qid}; is it {' or '.join(alike)}?")
        return Match(
            None, f"there is no written question {qid} (they are {', '.join(sorted(written_ids, key=sort_key))})"
        )
    suffix = label_suffix(label)
    candidates = ending_in(suffix, written_ids)
    if len(candidates) == 1:
        return Match(candidates[0], None)
    if candidates:
        return Match(
            None, f"it could be {' or '.join(candidates)}; write the number too (for example '{candidates[0]}')"
        )
    return Match(None, f"no written question ends in {suffix}")


def the_part_s_only_question(label: Label, written_ids: list[str]) -> str | None:
    """The one written question of the part a label names with its number ("## 1c", "Problem 1
    (c)": 1c-i where that is 1c's only one), else None. Only a label that says its number: a
    student's own "(d)" inside an answer names no question of part d."""
    if label.number is None or label.letter is None or label.part is not None:
        return None
    only = [q for q in written_ids if q.startswith(f"{label.question_id}-")]
    return only[0] if len(only) == 1 else None


def could_mean(label: Label, inside: Label | None, written_ids: list[str]) -> str | None:
    """The written question a label inside an answer could name: read within the label of the
    heading around it ("(iii)" inside 2b-ii: 2b-iii), else on its own when only one question ends
    that way ("(e)": 2e). None when it names none ("(a)" inside 2b-ii: 2a has no written answer)."""
    found = (match_label(candidate, written_ids).question for candidate in (label.within(inside), label))
    return next((question for question in found if question is not None), None)


def label_suffix(label: Label) -> str:
    """A label without its number, as question ids end: (b)(i) -> "b-i", (e) -> "e", (ii) -> "-ii"."""
    return f"{label.letter or ''}" + (f"-{label.part}" if label.part else "")


def ending_in(suffix: str, written_ids: list[str]) -> list[str]:
    """The ids that are ``suffix`` after their number ("b-i": 1b-i, 2b-i), in handout order."""
    return sorted((q for q in written_ids if re.sub(r"^\d+", "", q) == suffix), key=sort_key)
