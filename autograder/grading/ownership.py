"""Which question owns each student function, and so where its bugs cost points.

Every function the tests call belongs to exactly one question: the one named by a question's
``owns`` in the config, else the first question (in the config's order) whose tests name it in their
``tags``. A test of any other question that reaches the function treats it as a *helper*: when the
test loses points, it is run again with the reference's behaviour in the helper's place
(:mod:`autograder.grading.carried_forward`), so that one bug costs points once, in the question that owns it.

Functions that share private state form a *unit*, replaced together or not at all: a layer's
``forward`` and ``backward`` talk through a cache whose layout is the student's, so the reference's
``backward`` cannot read the student's cache. Pairs named ``X_forward``/``X_backward`` (or a class's
``forward``/``backward``) are units by their names; the config's ``units`` declares others. A test
runs every function of a unit that holds one of its own question's functions as the student wrote it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from autograder.contract.target import Target
from autograder.core.config import AssignmentConfig, Question

_PASS = re.compile(r"(?P<stem>\w*?)_?(?:forward|backward)")


def owners(config: AssignmentConfig, tags_by_question: Mapping[str, Iterable[Iterable[str]]]) -> dict[str, str]:
    """function -> owner question id, from the config's ``owns`` and the tests' tags."""
    owner = {function: question.id for question in config.questions for function in question.owns}
    for question in config.questions:
        for tags in tags_by_question.get(question.id, ()):
            for function in tags:
                owner.setdefault(function, question.id)
    return owner


def units(config: AssignmentConfig, functions: Iterable[str]) -> dict[str, frozenset[str]]:
    """function -> every function replaced with it (itself alone where it shares no private state)."""
    groups: list[set[str]] = [set(unit) for unit in config.units]
    by_stem: dict[tuple[str, ...], set[str]] = {}
    for function in functions:
        target = Target.parse(function)
        match = _PASS.fullmatch(target.name)
        if match:  # the same stem in the same module or class
            by_stem.setdefault((target.module, *target.path[:-1], match["stem"]), set()).add(function)
    groups += [group for group in by_stem.values() if len(group) > 1]
    unit = {function: frozenset({function}) for function in functions}
    for group in groups:  # groups that overlap become one
        merged = frozenset(group).union(*(unit.get(f, frozenset()) for f in group))
        for function in merged:
            unit[function] = merged
    return unit


def helpers_of(
    question: Question, tags: Iterable[str], owner: Mapping[str, str], unit: Mapping[str, frozenset[str]]
) -> tuple[str, ...]:
    """The functions a test of ``question`` reaches that other questions own, with the rest of their
    units; none of a unit that holds a function of ``question`` itself (it runs as written)."""
    own = {f for f, q in owner.items() if q == question.id}
    kept = own.union(*(unit.get(f, frozenset()) for f in own))
    reached = [m for f in tags for m in sorted(unit.get(f, frozenset({f})))]
    return tuple(dict.fromkeys(f for f in reached if f not in kept and f in owner))
