"""A graded class as a gradebook: ``scores.csv``, per-question statistics and the score distribution.

``scores.csv`` has one row per student (a group submission gives each member a row with the group's
scores), and for each derivation question a column ``formula ID`` with the machine's verdict on its
final formula (equal, not equal, unreadable, unanswered); the statistics and the plot count each
submission once. With hand-graded points (:mod:`.hand_graded`), each question graded by hand has its
column too (empty where no TA has given points yet), and the totals, statistics and plot count them.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel, ConfigDict

from autograder.core.config import AssignmentConfig
from autograder.core.results import GradescopeResults
from autograder.course.gradescope_export import ExportEntry
from autograder.course.hand_graded import Scores, hand_questions, scores_of
from autograder.grading.derivation_grading import EXTRA_KEY, FormulaVerdict
from autograder.grading.grade import summarize


@dataclass(frozen=True)
class GradedEntry:
    entry: ExportEntry
    results: GradescopeResults
    graded: bool  # False: grading could not run; the results are the fallback (every question 0)


class ScoreRow(BaseModel):
    """One student's line of ``scores.csv``."""

    model_config = ConfigDict(extra="forbid")

    submission: str
    name: str
    sid: str
    email: str
    submitted_at: str
    scores: dict[str, float]  # question id -> points
    hand: dict[str, float | None]  # question graded by hand -> its points (None: not given yet)
    formulas: dict[str, str]  # derivation question id -> the verdict on its final formula
    total: float
    out_of: float
    gradescope_score: float | None  # what Gradescope had when the class was exported
    status: str

    def cells(self) -> dict[str, str]:
        """The CSV cells in the order of the fields, with a column per question in place of ``scores``."""
        cells: dict[str, str] = {}
        for name, value in self.model_dump().items():
            if name == "scores":
                cells.update({question: _number(points) for question, points in value.items()})
            elif name == "hand":
                cells.update(
                    {question: "" if points is None else _number(points) for question, points in value.items()}
                )
            elif name == "formulas":
                cells.update({f"formula {question}": verdict for question, verdict in value.items()})
            elif isinstance(value, float):
                cells[name] = _number(value)
            else:
                cells[name] = "" if value is None else str(value)
        return cells


class QuestionStats(BaseModel):
    """One line of ``statistics.csv``: a question (or the total) over all submissions."""

    model_config = ConfigDict(extra="forbid")

    question: str
    title: str
    points: float
    mean: float
    median: float
    std: float  # population standard deviation: the class is the whole population
    min: float
    max: float
    full_marks: float  # share of submissions with every point, 0..1


def _number(value: float) -> str:
    return format(round(value, 4), "g")


def _question_scores(config: AssignmentConfig, results: GradescopeResults) -> dict[str, float]:
    return {s.id: s.score for s in summarize(config, results)}


def _formula_verdicts(results: GradescopeResults) -> dict[str, str]:
    kept = results.extra_data.get(EXTRA_KEY, {})
    return {question: FormulaVerdict.model_validate(verdict).status for question, verdict in kept.items()}


def _hand(config: AssignmentConfig, hand: Scores | None, entry: ExportEntry, student_index: int = 0) -> dict:
    """A submitter's hand-graded points by question ({} without any given)."""
    if hand is None:
        return {}
    student = entry.metadata.submitters[student_index] if entry.metadata.submitters else None
    found = scores_of(
        hand,
        entry.name,
        (student.sid or "") if student else "",
        (student.email or "") if student else "",
        student.name if student else "",
    )
    return {q.id: (found or {}).get(q.id) for q in hand_questions(config)}


def out_of(config: AssignmentConfig, hand: Scores | None) -> float:
    """The points of a total: those results.json holds, and those given by hand when they are merged."""
    return config.graded_points + (sum(q.points for q in hand_questions(config)) if hand is not None else 0)


def score_rows(config: AssignmentConfig, graded: list[GradedEntry], hand: Scores | None = None) -> list[ScoreRow]:
    every_verdict = [_formula_verdicts(item.results) for item in graded]
    # The same verdict columns in every row: a submission that could not be graded has none ("").
    checked = list(dict.fromkeys(question for verdicts in every_verdict for question in verdicts))
    rows = []
    for item, verdicts in zip(graded, every_verdict):
        created = item.entry.metadata.created_at
        for index, student in enumerate(item.entry.metadata.submitters):
            by_hand = _hand(config, hand, item.entry, index)
            rows.append(
                ScoreRow(
                    submission=item.entry.name,
                    name=student.name,
                    sid=student.sid or "",
                    email=student.email or "",
                    submitted_at=created.isoformat() if created else "",
                    scores=_question_scores(config, item.results),
                    hand=by_hand,
                    formulas={question: verdicts.get(question, "") for question in checked},
                    total=item.results.score + sum(p for p in by_hand.values() if p is not None),
                    out_of=out_of(config, hand),
                    gradescope_score=item.entry.metadata.score,
                    status="graded" if item.graded else "not graded",
                )
            )
    return rows


def scores_csv(config: AssignmentConfig, graded: list[GradedEntry], hand: Scores | None = None) -> str:
    rows = [row.cells() for row in score_rows(config, graded, hand)]
    stream = io.StringIO()
    writer = csv.DictWriter(stream, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return stream.getvalue()


def _stats(question: str, title: str, points: float, scores: np.ndarray) -> QuestionStats:
    return QuestionStats(
        question=question,
        title=title,
        points=points,
        mean=float(np.mean(scores)),
        median=float(np.median(scores)),
        std=float(np.std(scores)),
        min=float(np.min(scores)),
        max=float(np.max(scores)),
        full_marks=float(np.mean(scores >= points - 1e-9)),
    )


def statistics(config: AssignmentConfig, graded: list[GradedEntry], hand: Scores | None = None) -> list[QuestionStats]:
    """Per question, then the total, over every submission (one that could not be graded counts 0,
    as do points by hand not given yet)."""
    by_hand = hand_questions(config) if hand is not None else []
    per_submission = [
        {**_question_scores(config, g.results), **{q: p or 0.0 for q, p in _hand(config, hand, g.entry).items()}}
        for g in graded
    ]
    questions = [*config.scored_questions, *by_hand]
    table = np.array([[scores[q.id] for q in questions] for scores in per_submission]).reshape(len(graded), -1)
    stats = [_stats(q.id, q.title, q.points, table[:, i]) for i, q in enumerate(questions)]
    return stats + [_stats("total", "all questions", out_of(config, hand), table.sum(axis=1))]


def statistics_csv(stats: list[QuestionStats]) -> str:
    stream = io.StringIO()
    writer = csv.DictWriter(stream, fieldnames=list(QuestionStats.model_fields), lineterminator="\n")
    writer.writeheader()
    for line in stats:
        writer.writerow({k: _number(v) if isinstance(v, float) else v for k, v in line.model_dump().items()})
    return stream.getvalue()


def distribution_png(
    config: AssignmentConfig, graded: list[GradedEntry], stats: list[QuestionStats], hand: Scores | None = None
) -> bytes:
    """Histogram of the totals beside each question's mean score (as a share of its points)."""
    from matplotlib.figure import Figure  # here: slow to import, and grading one submission needs none

    total, questions = stats[-1], stats[:-1]
    totals = np.array([g.results.score + sum(p or 0 for p in _hand(config, hand, g.entry).values()) for g in graded])
    # Figure without pyplot: no global backend or figure registry, safe in any process.
    figure = Figure(figsize=(13, 0.9 + 0.45 * max(len(questions), 8)), layout="constrained")
    histogram, bars = figure.subplots(1, 2, width_ratios=[1.15, 1])

    # 20 equal bins from 0 to full marks; the last one is closed, so full marks count in it.
    histogram.hist(totals, bins=np.linspace(0.0, total.points, 21), color="#4c72b0", edgecolor="white")
    histogram.axvline(total.mean, color="#dd8452", linewidth=2, label=f"mean {total.mean:.1f}")
    histogram.axvline(total.median, color="#55a868", linewidth=2, linestyle="--", label=f"median {total.median:.1f}")
    histogram.set(
        xlim=(0, total.points),
        xlabel=f"total score (out of {total.points:g})",
        ylabel="submissions",
        title=f"Total scores of {len(totals)} submissions",
    )
    histogram.yaxis.get_major_locator().set_params(integer=True)
    histogram.legend(loc="upper center")

    labels = [f"{q.question}  {q.title}" for q in questions]
    shares = [100 * q.mean / q.points for q in questions]
    positions = np.arange(len(questions))[::-1]  # first question on top
    bars.barh(positions, [100] * len(questions), color="#eaeaf2", height=0.7)
    bars.barh(positions, shares, color="#4c72b0", height=0.7)
    for y, q, share in zip(positions, questions, shares):  # the label goes where there is more room
        bars.text(
            share + 1.5 if share < 50 else 1.5,
            y,
            f"{_number(round(q.mean, 2))} / {q.points:g} pts, {q.full_marks:.0%} full marks",
            va="center",
            fontsize=9,
            color="black" if share < 50 else "white",
        )
    bars.set(
        yticks=positions,
        yticklabels=labels,
        xlim=(0, 100),
        xlabel="mean score (% of the question's points)",
        title="Mean score per question",
    )
    figure.suptitle(config.title, fontsize=13)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110)
    return buffer.getvalue()
