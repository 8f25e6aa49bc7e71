"""An assignment's handout data, from ``autograder/assignments/<name>/handout.py`` when it exists:
``FIGURES`` (file name -> function drawing the SVG), ``ANSWER_FORMATS`` (question id -> the form
of an automatically graded written answer) and ``DERIVATIONS`` (question id -> the notation and
targets of a derivation whose final formulas the grader reads; their reference formulas are in the
staff-only ``reference_formulas.py``, see :func:`derivation_questions`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from autograder.core.config import Assignment, ConfigError, optional_module
from autograder.written.derivations.verdict import DerivationQuestion, notation_problems
from autograder.written.formats import AnswerFormat


@dataclass(frozen=True)
class HandoutData:
    figures: dict[str, Callable[[], str]] = field(default_factory=dict)
    answer_formats: dict[str, AnswerFormat] = field(default_factory=dict)
    derivations: dict[str, DerivationQuestion] = field(default_factory=dict)


def handout_data(assignment: Assignment | str) -> HandoutData:
    """The data of ``assignment`` (or of the assignment of that name)."""
    module = optional_module(f"autograder.assignments.{getattr(assignment, 'name', assignment)}.handout")
    return HandoutData(  # all empty when there is no module
        getattr(module, "FIGURES", {}), getattr(module, "ANSWER_FORMATS", {}), getattr(module, "DERIVATIONS", {})
    )


def declared_derivations(assignment: Assignment | str) -> dict[str, DerivationQuestion]:
    """The derivation questions ``handout.py`` declares; a notation the reader cannot read is
    refused with every problem, located, before anything is judged with it."""
    name = getattr(assignment, "name", assignment)
    derivations = handout_data(name).derivations
    notations = {id(form.notation): form.notation for form in derivations.values()}  # questions share them
    problems = list(dict.fromkeys(p for notation in notations.values() for p in notation_problems(notation)))
    if problems:
        module = optional_module(f"autograder.assignments.{name}.handout")
        source = Path(getattr(module, "__file__", None) or "handout.py")
        lines = source.read_text(encoding="utf-8").splitlines() if source.is_file() else []
        located = [f"{source}:{_line_of(problem, lines)}: {problem}" for problem in problems]
        raise ConfigError(f"the notation in {source.name} has {len(problems)} problem(s):\n  " + "\n  ".join(located))
    return derivations


def _line_of(problem: str, lines: list[str]) -> int:
    """The first line of the file that holds the spelling a problem quotes (1 when none does)."""
    quoted = problem.split("'")[1] if problem.count("'") >= 2 else ""
    written = repr(quoted)[1:-1]  # as the source writes it, backslashes doubled
    return next((n for n, line in enumerate(lines, 1) if f'"{written}"' in line or f'"{quoted}"' in line), 1)


class NoReferenceFormulas(ConfigError):
    """The assignment declares derivations, but its reference formulas are not here (the bundle)."""


def derivation_questions(assignment: Assignment) -> dict[str, DerivationQuestion]:
    """The derivation questions of ``assignment`` with their reference formulas, which only the
    repository and the Gradescope autograder have (``reference_formulas.py``; not in the bundle)."""
    declared = declared_derivations(assignment)
    if not declared:
        return {}
    module = optional_module(f"autograder.assignments.{assignment.name}.reference_formulas")
    if module is None:
        raise NoReferenceFormulas(
            f"{assignment.name}'s handout.py declares DERIVATIONS, but there is no reference_formulas.py "
            "beside it with their REFERENCE_FORMULAS (the student bundle has none: judge in the repository)"
        )
    references = module.REFERENCE_FORMULAS
    missing = sorted(set(declared) - set(references))
    if missing:
        raise ConfigError(f"REFERENCE_FORMULAS of {assignment.name} has no formulas for {', '.join(missing)}")
    return {question: form.with_references(references[question]) for question, form in declared.items()}
