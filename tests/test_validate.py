"""``python -m autograder validate NAME``: every check of the framework on one assignment, each
saying what holds or what to do; an error in the files is said once, and nothing is graded on it."""

from __future__ import annotations

import pytest

from autograder.core.config import ConfigError
from autograder.course import validate as validating
from autograder.grading import derivation_grading


def test_the_shipped_assignment_is_ready_and_every_check_says_what_it_saw():
    outcomes = validating.validate("word2vec")
    assert [o.check for o in outcomes] == [title for title, _, _ in validating.CHECKS]
    assert all(o.ok is not False for o in outcomes), [o for o in outcomes if o.ok is False]
    found = {o.check: o.detail for o in outcomes}
    assert found["the reference gets full marks"] == "40 / 40"
    assert found["the starter gets 0 without a crash"] == "0 / 40"
    assert "judged equal in 1c-i, 1d-i" in found["the reference answers' final formulas"]


def test_a_notation_that_cannot_be_read_is_said_once_and_nothing_is_graded_on_it(monkeypatch):
    def refused(assignment):
        raise ConfigError("the notation in handout.py has 1 problem(s):\n  handout.py:23: 'Wx' is not one symbol")

    monkeypatch.setattr(derivation_grading, "derivation_questions", refused)
    outcomes = {o.check: o for o in validating.validate("word2vec")}
    notation = outcomes["the notation of derivations"]
    assert notation.ok is False and "handout.py:23: 'Wx' is not one symbol" in notation.detail
    assert outcomes["lint and format"].ok is True  # it reads no notation
    for waiting in ("the reference gets full marks", "the starter gets 0 without a crash", "the bundle: nothing "
                    "given away, its check passes the reference", "generated handouts up to date"):
        assert outcomes[waiting].ok is None and "must be fixed first" in outcomes[waiting].detail


def test_a_config_that_cannot_be_loaded_fails_and_every_other_check_waits():
    outcomes = validating.validate("no_such_assignment")
    assert outcomes[0].ok is False and "unknown assignment" in outcomes[0].detail
    assert "python -m autograder new no_such_assignment" in outcomes[0].fix
    assert [o.check for o in outcomes] == [title for title, _, _ in validating.CHECKS]
    assert all(o.ok is None and "config above" in o.detail for o in outcomes[1:])


def test_tests_that_do_not_fit_the_config_are_said_once_and_nothing_is_graded(monkeypatch):
    from autograder.grading import runner

    def refused(assignment, *args, **kwargs):
        raise ConfigError("the tests of word2vec have 1 problem(s): public_tests.py:18: '(' was never closed")

    monkeypatch.setattr(runner, "collect_tests", refused)
    outcomes = {o.check: o for o in validating.validate("word2vec")}
    assert outcomes["the tests fit the config"].ok is False
    assert "public_tests.py:18" in outcomes["the tests fit the config"].detail
    assert outcomes["the reference gets full marks"].ok is None
    assert outcomes["the bundle: nothing given away, its check passes the reference"].ok is None


@pytest.mark.parametrize("ok, says", [(True, "ready to release"), (False, "1 failed: lint and format")])
def test_the_table_ends_with_a_verdict(ok, says, capsys):
    from rich.console import Console

    outcomes = [validating.Outcome("lint and format", ok, "found", "" if ok else "ruff format")]
    validating.print_outcomes("word2vec", outcomes, Console(width=100, color_system=None))
    assert says in capsys.readouterr().out


@pytest.mark.parametrize("width", [80, 160])
def test_a_path_is_never_cut_mid_word(width, capsys):
    """On a narrow terminal each check is a line of its own, so a path or command stays whole."""
    from rich.console import Console

    path = "autograder/assignments/word2vec"
    outcomes = [validating.Outcome("lint and format", False, f"ruff finds 2 problems in {path}",
                                   f".venv/bin/ruff format {path}")]
    validating.print_outcomes("word2vec", outcomes, Console(width=width, color_system=None))
    printed = capsys.readouterr().out
    assert path in printed and "1 failed: lint and format" in printed
    assert f".venv/bin/ruff format {path}" in printed or width >= 120
