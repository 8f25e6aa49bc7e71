"""Which question owns each student function, and so where its bugs cost points.

Every function the tests call belongs to exactly one question: the one named by a question's
``owns`` in the config, else the first question (in the config's order) whose tests name it in their
``tags``. A test of any other question that reaches the function treats it as a *helper*: when the
test loses points, it is run again with the reference's behaviour in the helper's place
(:mod:`autograder.grading.carried_forward`), so that one bug costs points once, in the question that owns it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from autograder.core.config import AssignmentConfig, Question


def owners(config: AssignmentConfig, tags_by_question: Mapping[str, Iterable[Iterable[str]]]) -> dict[str, str]:
    """function -> owner question id, from the config's ``owns`` and the tests' tags."""
    owner = {function: question.id for question in config.questions for function in question.owns}
    for question in config.questions:
        for tags in tags_by_question.get(question.id, ()):
            for function in tags:
                owner.setdefault(function, question.id)
    return owner


def helpers_of(question: Question, tags: Iterable[str], owner: Mapping[str, str]) -> tuple[str, ...]:
    """The functions a test of ``question`` reaches that other questions own (and it does not share)."""
    return tuple(f for f in tags if owner.get(f, question.id) != question.id and f not in question.shares)
