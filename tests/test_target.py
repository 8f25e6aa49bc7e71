"""Call targets: the one reader of their text, and what the rest of the framework reads off them."""

from __future__ import annotations

import types

import pytest

from autograder.contract.target import Target

pytestmark = pytest.mark.smoke  # also run on Python 3.10 and the newest Python (.ci/run)


@pytest.mark.parametrize("text", ["nn_basics.softmax", "optim.Adam.step", "fixtures:adam_run", "probes:import_module"])
def test_a_target_reads_back_as_written(text):
    assert str(Target.parse(text)) == text


def test_a_target_says_what_it_names():
    method = Target.parse("optim.Adam.step")
    assert (method.module, method.path) == ("optim", ("Adam", "step"))
    assert (method.name, method.qualname) == ("step", "Adam.step")
    assert method.owner == Target.parse("optim.Adam") and Target.parse("optim.Adam").owner is None
    probe = Target.parse("fixtures:adam_run")
    assert probe.probe and (probe.module, probe.name, probe.owner) == ("fixtures", "adam_run", None)


@pytest.mark.parametrize(
    "text",
    ["softmax", "nn_basics.", "nn_basics.soft max", "a..b", "os.system('x')", "fixtures:_x", "tests:x", "probes:"],
)
def test_anything_else_is_refused(text):
    with pytest.raises(ValueError):
        Target.parse(text)


def test_a_target_resolves_in_a_module():
    module = types.SimpleNamespace(Adam=type("Adam", (), {"step": "the step"}))
    assert Target.parse("optim.Adam.step").resolve(module) == "the step"
    with pytest.raises(AttributeError):
        Target.parse("optim.Adam.missing").resolve(module)


def test_tests_tag_student_functions_not_probes():
    assert Target.names_function("optim.Adam.step") and Target.names_function("word2vec.sigmoid")
    assert not any(map(Target.names_function, ["fixtures:adam_run", "softmax", "mod.f(x)"]))
