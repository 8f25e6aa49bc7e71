"""Answer files made to be slow to read are read, checked and graded with the right outcome; and the
reading runs under a time limit of its own. Times are not asserted here: benchmarks/written_reading.py
measures them (each of these files once took from seconds to hours; now all take under 2 s at 8 MB),
and a slow path come back would show here as the time limit's message instead of the outcome."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Callable

import pytest

from autograder.core.config import load_assignment
from autograder.written import answers
from autograder.written.answers import AnswersError, read_answers, submitted_answers
from autograder.written.latex import scan
from tests.fixtures.adversarial_answers import CASES, Reading, read_and_grade

pytestmark = pytest.mark.smoke  # also run on Python 3.10 and the newest Python (.ci/run)

PARSER = load_assignment("parser")
KB, MB = 2**10, 2**20


def score(reading: Reading, test: str) -> float:
    return reading.scores[test][0]


def note(reading: Reading, question: str) -> str:
    return reading.check_notes.get(question, "")


def problems(reading: Reading) -> str:
    return "\n".join(reading.check_problems)


def answered(reading: Reading, question: str) -> bool:
    return reading.sheet is not None and reading.sheet.answered(question)


def refused(message: str) -> Callable[[Reading], bool]:
    """The file is not read, and each written question and check-written say why."""
    return lambda r: (r.sheet is None and message in r.note and message in problems(r)
                      and all(message in output for _, output in r.scores.values()))


# Each case at a size that once took seconds or more (the first three: the sizes reported, 33 s,
# 57 s and a minute), and what reading it must give.
EXPECTED: dict[str, tuple[int, Callable[[Reading], bool]]] = {
    "spaces in a table cell": (20 * KB, lambda r: note(r, "2a-i") == "table read: 1 transition"
                               and "0 of 16 steps right" in r.scores["2a-i.1"][1]),
    "dollar signs": (8 * MB - 64, lambda r: "it contains '$'" in note(r, "1b-i")
                     and "more than 50,000 $ signs" in problems(r)),
    "unclosed comments under a non-question heading": (200 * KB, lambda r: score(r, "2a-ii.1") == 1
                                                       and not r.sheet.unplaced),
    "backticks": (MB, lambda r: answered(r, "2a-ii") and "longer than 200" in note(r, "2a-ii")),
    "image and link openings": (MB, lambda r: len(r.sheet.text("1b-ii")) > MB - KB),
    "LaTeX text commands in a table cell": (MB, lambda r: "cannot read the dependency" in note(r, "2a-i")),
    "an arc of spaces": (MB, lambda r: "cannot read the dependency '(" in note(r, "2a-i")),
    "a table row of pipes": (MB, lambda r: "the table has no transitions yet" in note(r, "2a-i")),
    "a long Answer: line": (MB, lambda r: score(r, "2a-ii.1") == 1 and "the first of" in note(r, "2a-ii")),
    "spaces after Answer": (MB, lambda r: "it starts with 'Answer', which is no symbol" in note(r, "2a-ii")),
    "a long heading": (MB, lambda r: "could be 1a-i or 2a-i" in problems(r)),
    "bold labels": (MB, lambda r: answered(r, "1a-i") and "is inside the answer to 1a-i" in problems(r)),
    "prose": (MB, lambda r: answered(r, "1b-ii") and not problems(r)),
    "many lines": (MB, refused("lines of Markdown, more than the 20,000")),
    "carriage returns": (MB, refused("lines of Markdown, more than the 20,000")),
    "a thematic break": (MB, lambda r: not answered(r, "1b-ii")),  # a rule alone is no answer
    "a blank line of spaces": (MB, lambda r: r.sheet.text("1b-ii").startswith("x") and r.sheet.text("1b-ii").endswith("y")),
    "a notebook cell of dollar signs": (MB, lambda r: "it contains '$'" in note(r, "1b-i")),
    "a notebook of empty cells": (MB, lambda r: score(r, "2a-ii.1") == 1),
    "a notebook cell you added, of backticks": (MB, lambda r: "longer than 200" in note(r, "2a-ii")),
    "deeply nested JSON": (MB, refused("nested too deeply")),
}


def test_every_case_has_an_expected_outcome():
    assert sorted(EXPECTED) == sorted(CASES)


@pytest.mark.parametrize("case", EXPECTED)
def test_an_answer_file_made_to_be_slow_reads_as_it_should(case, tmp_path):
    size, expected = EXPECTED[case]
    reading = read_and_grade(PARSER, CASES[case].write(tmp_path / "submission", size))
    assert expected(reading), (reading.outcome(), reading.check_notes, reading.check_problems[:3])
    assert not any("took longer than" in output for _, output in reading.scores.values())
    assert len(problems(reading)) < 10 * KB  # a file of millions of $ gets a short report


def test_math_in_text_made_of_dollar_signs_is_checked_up_to_a_limit():
    spans, found = scan("$a$ " * 60_000)
    assert len(spans) == 50_000 and found == [(1, "the math after this line is not checked: the text has more "
                                                   "than 50,000 $ signs")]
    spans, found = scan("$\n\n" * 100)
    assert spans == [] and len(found) == 21 and "more problems with math follow" in found[-1][1]


# ------------------------------------------------------------------------------- the time limit

forked = pytest.mark.skipif(threading.active_count() > 1, reason="the child is forked only without threads, "
                                                                  "so only then does it see the patched reader")


def _slow(path: Path, config, follow_links: bool):
    time.sleep(30)


def _crashing(path: Path, config, follow_links: bool):
    raise RuntimeError("a bug in the reader")


def _dying(path: Path, config, follow_links: bool):
    os._exit(3)


@forked
def test_a_reading_that_takes_too_long_is_stopped_and_costs_only_the_written_questions(tmp_path, monkeypatch):
    (tmp_path / "written.md").write_text("## 2a-ii\nAnswer: $2n$\n")
    monkeypatch.setattr(answers, "_read_answers_now", _slow)
    started = time.monotonic()
    with pytest.raises(AnswersError, match="took longer than 0.5 s to read, so it was not read"):
        read_answers(tmp_path / "written.md", PARSER.config, seconds=0.5)
    assert time.monotonic() - started < 5
    monkeypatch.setattr(answers, "READING_SECONDS", 0.5)
    found = submitted_answers(tmp_path, PARSER.config)
    assert found.sheet is None and "took longer than 0.5 s" in found.note


@forked
@pytest.mark.parametrize("reader, message", [(_crashing, "RuntimeError: a bug in the reader"),
                                             (_dying, "stopped unexpectedly (exit code 3)")])
def test_a_reader_that_fails_costs_only_the_written_questions(reader, message, tmp_path, monkeypatch):
    (tmp_path / "written.md").write_text("## 2a-ii\nAnswer: $2n$\n")
    monkeypatch.setattr(answers, "_read_answers_now", reader)
    found = submitted_answers(tmp_path, PARSER.config)
    assert found.sheet is None and message in found.note and "fault of the autograder" in found.note
