"""Which written question a text more likely answers: the hint check-written gives when a heading
seems to have put an answer in the wrong place.

Headings alone decide where an answer goes (:mod:`autograder.written.answers`); nothing here moves
text. check-written asks for a guess only when something is off: the answer does not have the form
its question asks for (no table under the transition-table question), the title of a heading that
placed it shares no word with the handout's titles for that question (a section titled "Machine
Learning" holding the transition table), or the text is under no question at all. The guess
compares the words of the text with the words of each question in the handout (its title, its
code question's and part's titles, and their text), weighting rare words more, and it is made only
when one question fits clearly better and would accept the answer's form.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

from markdown_it import MarkdownIt

from autograder.core.config import Assignment
from autograder.written.answer_file import AnswersError, load_notebook
from autograder.written.answers import cell_tag
from autograder.written.formats import AnswerFormat, AnswerFormatError
from autograder.written.handout_data import handout_data
from autograder.written.handout_source import HEADING
from autograder.written.labels import Label, ending_in, label_suffix

# Words that say nothing about which question a text answers.
_STOP = frozenset(
    """
the and for with that this from are was were its their then than into which what when why how does
each every one two only not but can may must has have had been being our your you they them these
those there where while also about above below under over more most less some any all use using
since thus hence let get gets write show given point points written auto graded question answer part
solution derivation proof working work notes note step steps response attempt draft final
""".split()
)
_WORD = re.compile(r"[a-z]{3,}")
# LaTeX commands are layout (\frac, \mathrm, \partial), except the Greek letters, which name things.
_COMMAND = re.compile(
    r"\\(?!(?:alpha|beta|gamma|delta|epsilon|varepsilon|theta|lambda|mu|sigma|tau|phi|psi|omega)\b)[a-zA-Z]+"
)
_SUFFIXES = ("ing", "es", "ed", "s", "e")
MARGIN = 2.0  # how much better another question must fit than the one the heading gave
FLOOR = 0.5  # how well, at least, before it is named (right answers score below it elsewhere)


def words(text: str) -> frozenset[str]:
    """The distinctive words of ``text``, with common endings cut ("averaging", "averages": "averag")."""
    found = set()
    for word in _WORD.findall(_COMMAND.sub(" ", text).lower()):
        if word in _STOP:
            continue
        for suffix in _SUFFIXES:
            if word.endswith(suffix) and len(word) - len(suffix) >= 4 and not word.endswith("ss"):
                word = word[: -len(suffix)]
                break
        found.add(word)
    return frozenset(found)


@dataclass(frozen=True)
class QuestionWords:
    title: str  # the config's, for messages
    titles: frozenset[str]  # of its own title and those of its code question and part
    words: frozenset[str]  # the titles and the handout's text of all three


def _handout_text(assignment: Assignment) -> str | None:
    """The handout's Markdown, from its notebook: in the repository (handouts/) and in the student
    bundle (its top folder), which has no handouts/NAME.md. None when neither can be read: the
    guess then uses the config's titles only."""
    for folder in (assignment.root / "handouts", assignment.root):
        try:
            cells = load_notebook(folder / f"{assignment.name}.ipynb")
        except AnswersError:
            continue
        handout = [
            c.source for c in cells if c.cell_type == "markdown" and (tag := cell_tag(c)) and tag.role == "handout"
        ]
        if handout:
            return "\n\n".join(handout)
    return None


def _sections(text: str) -> dict[str, tuple[list[str], str]]:
    """For each question heading of the handout text: the titles of it and of the headings around it
    (its code question, its part), and the text right under each of them."""
    tokens = MarkdownIt("commonmark").parse(text)
    lines = text.splitlines()
    headings = [
        (t.map[0], int(t.tag[1]), tokens[i + 1].content)
        for i, t in enumerate(tokens)
        if t.type == "heading_open" and t.map
    ]
    found: dict[str, tuple[list[str], str]] = {}
    around: list[tuple[int, str, str]] = []  # (level, title, own text) of the enclosing headings
    ends = [line for line, _, _ in headings[1:]] + [len(lines)]
    for (line, level, title), end in zip(headings, ends):
        own = "\n".join(lines[line + 1 : end])
        while around and around[-1][0] >= level:
            around.pop()
        if level == 1:
            continue  # the handout's own title is about every question
        match = HEADING.match(title.strip())
        name = match["title"] if match else title
        around.append((level, name, own))
        if match:
            found[match["id"]] = ([t for _, t, _ in around], "\n".join(o for _, _, o in around))
    return found


def question_words(assignment: Assignment) -> dict[str, QuestionWords]:
    """The words of every written question of ``assignment``."""
    config = assignment.config
    text = _handout_text(assignment)
    sections = _sections(text) if text is not None else {}
    code_titles = {q.id: q.title for q in config.questions}
    profiles = {}
    for question in config.written_questions:
        parent = question.id.partition("-")[0]  # "1d" of "1d-i"
        titles, body = sections.get(question.id, ([code_titles.get(parent, "")], ""))
        title_words = words(" ".join([question.title, *titles]))
        profiles[question.id] = QuestionWords(question.title, title_words, title_words | words(body))
    return profiles


class Guesser:
    """Guesses which written question a text answers, from the words of each question."""

    def __init__(self, profiles: dict[str, QuestionWords], formats: dict[str, AnswerFormat]) -> None:
        self.profiles, self.formats = profiles, formats
        frequency = Counter(word for profile in profiles.values() for word in profile.words)
        # A word in every question's text tells them apart no better than a word in none.
        self.weight = {word: math.log(len(profiles) / n) ** 2 for word, n in frequency.items()}
        self.norm = {q: math.sqrt(sum(self.weight[w] for w in p.words)) or 1.0 for q, p in profiles.items()}

    @classmethod
    def of(cls, assignment: Assignment) -> Guesser:
        return cls(question_words(assignment), handout_data(assignment).answer_formats)

    def title(self, question: str) -> str:
        return self.profiles[question].title

    def titles_disagree(self, title: str, question: str) -> bool:
        """Whether a heading's own title ("Machine Learning") shares no word with the handout's
        titles for ``question``; a heading without a title ("(a)(i)") never disagrees."""
        found = words(title)
        return bool(found) and not found & self.profiles[question].titles

    def score(self, text_words: frozenset[str], question: str) -> float:
        shared = text_words & self.profiles[question].words
        return sum(self.weight[w] for w in shared) / self.norm[question]

    def fits(self, text: str, question: str) -> bool:
        """Whether ``text`` has the form ``question`` asks for (a table, a readable final answer)."""
        form = self.formats.get(question)
        if form is None:
            return True
        try:
            form.describe(text)
        except AnswerFormatError:
            return False
        return True

    def likelier(self, text: str, instead_of: str | None = None, label: Label | None = None) -> str | None:
        """The question ``text`` more likely answers than ``instead_of`` (None: than no question),
        or None when none fits clearly better. Of the questions that fit nearly as well as the best,
        one that ends like the student's own ``label`` is preferred: "(c)(i)" under a wrong section
        number is more likely 1c-i than 1c-ii, whose words are much the same."""
        found = words(text)
        floor = max(FLOOR, MARGIN * self.score(found, instead_of) if instead_of else 0.0)
        scored = sorted(((self.score(found, q), q) for q in self.profiles if q != instead_of), reverse=True)
        fitting = [(score, q) for score, q in scored if score >= floor and self.fits(text, q)]
        if not fitting:
            return None
        close = [q for score, q in fitting if score >= fitting[0][0] / 2]
        alike = ending_in(label_suffix(label), list(self.profiles)) if label is not None else []
        return next((q for q in close if q in alike), fitting[0][1])
