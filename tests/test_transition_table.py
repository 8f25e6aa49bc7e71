"""The auto-graded written answers of the parser: the transition table, the count 2n and gamma."""

from __future__ import annotations

import pytest

from autograder.assignments.parser.handout import GOLD_TREE
from autograder.core import results as res
from autograder.core.config import load_assignment
from autograder.grading import testing
from autograder.grading.runner import collect_tests, run_tests
from autograder.written.answers import AnswerSheet, SubmittedAnswers, read_markdown
from autograder.assignments.parser.transition_table import TableError, grade_table, reference_table

pytestmark = pytest.mark.smoke  # also run on Python 3.10 and the newest Python (.ci/run)

REFERENCE = reference_table(GOLD_TREE)
POINTS = 3


def edited(old: str, new: str) -> str:
    assert REFERENCE.count(old) == 1, old
    return REFERENCE.replace(old, new)


def test_the_reference_table_gets_full_marks():
    grade = grade_table(REFERENCE, GOLD_TREE)
    assert grade.fraction == 1 and grade.steps_right == 16 and not grade.step_problems


def test_a_wrong_arc_costs_its_step_and_the_arc():
    wrong = edited("| conference → at | LEFT-ARC |", "| at → conference | LEFT-ARC |")
    grade = grade_table(wrong, GOLD_TREE)
    assert grade.fraction == pytest.approx(0.5 * 15 / 16 + 0.5 * (7 - 1) / 8)  # 2.53 of 3 points
    assert grade.arcs_wrong == [("at", "conference")] and grade.arcs_missing == [("conference", "at")]
    assert grade.step_problems == ["row 15 (LEFT-ARC, from stack [ROOT, presented, at, conference], "
                                   "buffer []): it adds conference → at, not at → conference"]
    assert "First wrong row: row 15" in grade.feedback()


def test_an_illegal_step_costs_that_step_only():
    first_shift = "| [ROOT, I] | [presented, my, findings, at, the, NLP, conference] | | SHIFT |"
    grade = grade_table(edited(first_shift, first_shift.replace("SHIFT", "LEFT-ARC")), GOLD_TREE)
    assert grade.fraction == pytest.approx(0.5 * 15 / 16 + 0.5)  # 2.91 of 3 points
    assert grade.step_problems[0].startswith("row 2 (LEFT-ARC, from stack [ROOT], buffer [I, presented, my, ")
    assert grade.step_problems[0].endswith("not allowed: LEFT-ARC needs two words above ROOT on the stack "
                                           "(ROOT can never be a dependent)")


def test_a_missing_row_costs_two_steps_and_is_pointed_at():
    row = "| [ROOT, presented, my] | [findings, at, the, NLP, conference] | | SHIFT |\n"
    grade = grade_table(edited(row, ""), GOLD_TREE)
    assert grade.fraction == pytest.approx(0.5 * 14 / 16 + 0.5)  # 2.81 of 3 points
    assert grade.transitions == 15
    assert "The table has 15 transitions; a sentence of 8 words takes exactly 16." in grade.notes
    assert grade.step_problems[0].startswith("row 5 (SHIFT, from stack [ROOT, presented], ")
    assert grade.step_problems[0].endswith("(is a row missing above this one?)")


TOLERATED = """\
| **Transition** | stack | buffer | Dependency added |
|:---|:---|:---|:---|
| S | root I | presented my findings at the nlp conference | |
| S | ROOT, I, presented | my, findings, at, the, NLP, conference | — |
| LA | [ROOT, presented] | [my, findings, at, the, NLP, conference] | presented -> I |
| shift | (ROOT, presented, my) | (findings, at, the, NLP, conference) | |
| Shift | `[ROOT, presented, my, findings]` | `[at, the, NLP, conference]` | |
| left-arc | [ROOT, presented, findings] | [at, the, NLP, conference] | my ← findings |
| Right Arc | [ROOT, presented] | [at, the, NLP, conference] | (presented, findings) |
| S | [ROOT, presented, at] | [the, NLP, conference] | |
| S | [ROOT, presented, at, the] | [NLP, conference] | |
| S | [ROOT, presented, at, the, NLP] | [conference] | |
| S | [ROOT, presented, at, the, NLP, conference] | ∅ | |
| LA | [ROOT, presented, at, the, conference] | [] | $\\text{conference} \\rightarrow \\text{NLP}$ |
| LA | [ROOT, presented, at, conference] | - | conference → the (det) |
| LA | [ROOT, presented, conference] | empty | conference --> at |
| RA | [ROOT, presented] | | presented → conference |
| RA | [ROOT] | [] | ROOT → presented |
"""


def test_other_notations_are_read_the_same():
    grade = grade_table(TOLERATED, GOLD_TREE)
    assert grade.step_problems == [] and grade.fraction == 1


def test_no_table_or_no_rows_says_what_to_write():
    with pytest.raises(TableError, match=r"\| Stack \| Buffer \| New dependency \| Transition \|"):
        grade_table("I parsed it in my head.", GOLD_TREE)
    with pytest.raises(TableError, match="no transitions yet"):
        grade_table("\n".join(REFERENCE.splitlines()[:3]), GOLD_TREE)


# ------------------------------------------------------------------ graded as results.json rows


def written_rows(markdown: str) -> dict[str, res.TestResult]:
    """The rows of the parser's written questions for an answer sheet holding ``markdown``."""
    assignment = load_assignment("parser")
    sheet = AnswerSheet(source="written.md")
    read_markdown(markdown, [q.id for q in assignment.config.written_questions], sheet)
    tests = collect_tests(assignment)
    rows = {}
    for question in ("1b-i", "2a-i", "2a-ii"):
        (row,) = run_tests(tests[question], testing.TestContext(answers=SubmittedAnswers(sheet, "")))
        rows[question] = row
    return rows


def test_written_answers_graded_into_results_rows():
    wrong_arc = edited("| conference → at | LEFT-ARC |", "| at → conference | LEFT-ARC |")
    rows = written_rows(f"## 1b (i)\nSo\n\n**Answer:** $\\gamma = \\frac{{1}}{{1-p_{{drop}}}}$\n\n"
                        f"## 2a (i)\n{wrong_arc}\n\n## 2a (ii)\nAnswer: n + 1\n")
    assert rows["1b-i"].score == 1 and rows["1b-i"].status == "passed"
    table = rows["2a-i"]
    assert table.score == pytest.approx(POINTS * (0.5 * 15 / 16 + 0.5 * 6 / 8))
    assert table.status == "failed"
    assert "First wrong row: row 15" in table.output and table.visibility == "after_due_date"
    # n + 1 equals 2n at n = 1; the next point tells them apart.
    assert rows["2a-ii"].score == 0
    assert "your final answer reads as n + 1, which is not right: at n = 2 it gives 3, but the right value " \
           "is 4" in rows["2a-ii"].output


def test_missing_answers_score_zero_with_the_reason():
    rows = written_rows("## 1b-ii\nOnly this one.\n")
    assert all(row.score == 0 for row in rows.values())
    assert "1b-i is not answered in written.md" in rows["1b-i"].output
