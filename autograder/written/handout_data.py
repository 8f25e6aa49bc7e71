"""An assignment's handout data, from ``autograder/assignments/<name>/handout.py`` when it exists:
``FIGURES`` (file name -> function drawing the SVG) and ``ANSWER_FORMATS`` (question id -> the form
of an automatically graded written answer)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field

from autograder.core.config import Assignment
from autograder.written.formats import AnswerFormat


@dataclass(frozen=True)
class HandoutData:
    figures: dict[str, Callable[[], str]] = field(default_factory=dict)
    answer_formats: dict[str, AnswerFormat] = field(default_factory=dict)


def handout_data(assignment: Assignment | str) -> HandoutData:
    """The data of ``assignment`` (or of the assignment of that name)."""
    name = f"autograder.assignments.{getattr(assignment, 'name', assignment)}.handout"
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name != name:
            raise
        return HandoutData()
    return HandoutData(getattr(module, "FIGURES", {}), getattr(module, "ANSWER_FORMATS", {}))
