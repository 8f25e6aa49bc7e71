"""Expected values recorded from the reference and replayed in the student bundle."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from autograder.core.config import load_assignment
from autograder.grading.expected import ExpectedValueMissing, LiveReference, RecordedReference, RecordingReference
from autograder.grading.grade import module_names
from autograder.contract.protocol import FixtureRef
from autograder.contract.target import Target
from autograder.grading.reference import load_reference

pytestmark = pytest.mark.smoke  # also run on Python 3.10 and the newest Python (.ci/run)


@pytest.fixture(scope="module")
def live() -> LiveReference:
    assignment = load_assignment("word2vec")
    modules = load_reference(assignment.solution_dir, module_names(assignment.config))
    return LiveReference(modules, importlib.import_module(assignment.fixtures_module))


def assert_same(got, expected) -> None:
    """Equal, bit for bit, and of the same types (tuples stay tuples, floats stay floats)."""
    assert type(got) is type(expected)
    if isinstance(expected, (tuple, list)):
        assert len(got) == len(expected)
        for mine, theirs in zip(got, expected):
            assert_same(mine, theirs)
    elif isinstance(expected, np.ndarray):
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
    else:
        assert got == expected


def test_replayed_values_equal_the_live_ones(live, tmp_path):
    recorder = RecordingReference(live, "word2vec")
    x = np.random.default_rng(0).standard_normal((3, 4))
    loss_args = [np.ones(3), 2, np.eye(5, 3), FixtureRef("ScriptedDataset", (5, [1, 3, 0, 4])), 4]
    calls = [(Target.parse("nn_basics.softmax"), [x], {}),
             (Target.parse("word2vec.neg_sampling_loss_and_gradient"), loss_args, {}),
             (Target.parse("sgd.sgd"), [FixtureRef("Quadratic", (1.5, 1.0), id="f"), 0.5, 0.1, 20],
              {"use_saved": False, "print_every": None})]
    live_results = [recorder.call(target, args, kwargs) for target, args, kwargs in calls]
    recorder.save(tmp_path / "expected.agw")
    replay = RecordedReference(tmp_path / "expected.agw")
    for (target, args, kwargs), expected in zip(calls, live_results):
        got = replay.call(target, args, kwargs)
        assert_same(got.value, expected.value)
        assert got.fixtures == expected.fixtures
    assert live_results[2].fixtures == {"f": {"calls": 20}}


def test_an_unrecorded_call_says_how_to_fix_it(live, tmp_path):
    recorder = RecordingReference(live, "word2vec")
    sigmoid = Target.parse("nn_basics.sigmoid")
    recorder.call(sigmoid, [np.zeros(2)], {})
    recorder.save(tmp_path / "expected.agw")
    replay = RecordedReference(tmp_path / "expected.agw")
    with pytest.raises(ExpectedValueMissing, match="no expected value was recorded for nn_basics.sigmoid"):
        replay.call(sigmoid, [np.ones(2)], {})
    replay.recording = replay.recording.model_copy(update={"numpy": "1.0.0"})
    with pytest.raises(ExpectedValueMissing, match="pip install -r requirements.txt"):
        replay.call(sigmoid, [np.ones(2)], {})


def test_a_damaged_recording_is_refused(tmp_path):
    (tmp_path / "expected.agw").write_bytes(b"AGW1 not a message")
    with pytest.raises(ExpectedValueMissing, match="damaged"):
        RecordedReference(tmp_path / "expected.agw")
