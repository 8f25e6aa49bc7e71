"""A graded class as a gradebook: ``scores.csv``, per-question statistics and the score distribution.

``scores.csv`` has one row per student (a group submission gives each member a row with the group's
scores), and for each derivation question a column ``formula ID`` with the machine's verdict on its
final formula (equal, not equal, unreadable, unanswered); the statistics and the plot count each
submission once.
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


def score_rows(config: AssignmentConfig, graded: list[GradedEntry]) -> list[ScoreRow]:
    every_verdict = [_formula_verdicts(item.results) for item in graded]
    # The same verdict columns in every row: a submission that could not be graded has none ("").
    checked = list(dict.fromkeys(question for verdicts in every_verdict for question in verdicts))
    rows = []
    for item, verdicts in zip(graded, every_verdict):
        created = item.entry.metadata.created_at
        for student in item.entry.metadata.submitters:
            rows.append(
                ScoreRow(
                    submission=item.entry.name,
                    name=student.name,
                    sid=student.sid or "",
                    email=student.email or "",
                    submitted_at=created.isoformat() if created else "",
                    scores=_question_scores(config, item.results),
                    formulas={question: verdicts.get(question, "") for question in checked},
                    total=item.results.score,
                    out_of=config.graded_points,
                    gradescope_score=item.entry.metadata.score,
                    status="graded" if item.graded else "not graded",
                )
            )
    return rows


def scores_csv(config: AssignmentConfig, graded: list[GradedEntry]) -> str:
    rows = [row.cells() for row in score_rows(config, graded)]
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


def statistics(config: AssignmentConfig, graded: list[GradedEntry]) -> list[QuestionStats]:
    """Per question, then the total, over every submission (one that could not be graded counts 0)."""
    per_submission = [_question_scores(config, g.results) for g in graded]
    scored = config.scored_questions
    table = np.array([[scores[q.id] for q in scored] for scores in per_submission])
    stats = [_stats(q.id, q.title, q.points, table[:, i]) for i, q in enumerate(scored)]
    return stats + [_stats("total", "all questions", config.graded_points, table.sum(axis=1))]


def statistics_csv(stats: list[QuestionStats]) -> str:
    stream = io.StringIO()
    writer = csv.DictWriter(stream, fieldnames=list(QuestionStats.model_fields), lineterminator="\n")
    writer.writeheader()
    for line in stats:
        writer.writerow({k: _number(v) if isinstance(v, float) else v for k, v in line.model_dump().items()})
    return stream.getvalue()


def distribution_png(config: AssignmentConfig, graded: list[GradedEntry], stats: list[QuestionStats]) -> bytes:
    """Histogram of the totals beside each question's mean score (as a share of its points)."""
    from matplotlib.figure import Figure  # here: slow to import, and grading one submission needs none

    totals = np.array([g.results.score for g in graded])
    total, questions = stats[-1], stats[:-1]
    # Figure without pyplot: no global backend or figure registry, safe in any process.
    figure = Figure(figsize=(13, 0.9 + 0.45 * max(len(questions), 8)), layout="constrained")
    histogram, bars = figure.subplots(1, 2, width_ratios=[1.15, 1])

    # 20 equal bins from 0 to full marks; the last one is closed, so full marks count in it.
    histogram.hist(totals, bins=np.linspace(0.0, config.graded_points, 21), color="#4c72b0", edgecolor="white")
    histogram.axvline(total.mean, color="#dd8452", linewidth=2, label=f"mean {total.mean:.1f}")
    histogram.axvline(total.median, color="#55a868", linewidth=2, linestyle="--", label=f"median {total.median:.1f}")
    histogram.set(
        xlim=(0, config.graded_points),
        xlabel=f"total score (out of {config.graded_points:g})",
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
