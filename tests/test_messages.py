"""The typed messages of the trust boundary: each reads back what the other side wrote, and what a
misbehaving worker sends instead reads as nothing the grader would trust."""

from __future__ import annotations

import json

import pytest

from autograder.contract.messages import (
    Callback,
    CallbackResult,
    CallReply,
    CallRequest,
    ErrorKind,
    HelperAnswer,
    HelperCall,
    OwnResult,
    Ready,
    StudentError,
)
from autograder.contract.target import Target

pytestmark = pytest.mark.smoke  # also run on Python 3.10 and the newest Python (.ci/run)

MESSAGES = [
    Ready("3.11.7"),
    CallRequest(
        Target.parse("nn_basics.softmax"), [[1.0, 2.0]], {"axis": -1}, return_args=True, seed=3,
        helpers=(Target.parse("a.b"),),
    ),
    CallReply(value=1.5, fixtures={"calls": 2}),
    CallReply(value=[1], fixtures=None, args_after=[[0]], returned_args=True),
    CallReply(error=StudentError(ErrorKind.MISSING_FILE, "no word2vec.py", module="word2vec")),
    HelperCall(Target.parse("nn_basics.softmax"), [[1.0]], {}),
    HelperCall(Target.parse("optim.Adam.step"), [], {}, owner="ab12:140", state={"t": 1}, own={"state": {"t": 2}}),
    HelperAnswer(value=[0.5], generators=[]),
    HelperAnswer(value=None, generators=[], state={"t": 2}, aliases={"sentence": ["args", 0]}),
    HelperAnswer(unavailable=True),
    HelperAnswer(failure="the reference softmax raised ValueError on the inputs your code gave it: bad"),
    Callback(0, "predict", [[1, 2]], {}),
    CallbackResult(value=[3]),
    CallbackResult(raised="KeyError", message="'x'"),
]


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: type(m).__name__)
def test_every_message_reads_back_as_written_through_json(message):
    wire = json.loads(json.dumps(message.to_json()))
    assert type(message).from_json(wire) == message


def test_each_side_tells_a_question_in_the_middle_of_a_call_from_the_reply():
    assert HelperCall.carried_by(HelperCall(Target.parse("m.f"), [], {}).to_json())
    assert not HelperCall.carried_by(CallReply(value=1).to_json())
    assert Callback.carried_by(Callback(1, "f", [], {}).to_json())
    assert not any(Callback.carried_by(HelperAnswer(**kw).to_json()) for kw in ({"unavailable": True}, {}))


@pytest.mark.parametrize(
    "document",
    [{"helper": 3}, {"helper": None}, {"helper": "m.f", "owner": ["not", "text"]}, {"helper": "m.f()"}],
    ids=["number", "none", "owner-list", "no-target"],
)
def test_a_malformed_helper_call_is_refused(document):
    with pytest.raises(ValueError):
        HelperCall.from_json(document)


def test_an_unknown_error_kind_reads_as_the_students_exception():
    error = StudentError.from_json({"kind": "grant_full_marks", "message": "x"})
    assert error.kind is ErrorKind.EXCEPTION and error.message == "x"


@pytest.mark.parametrize(
    "document, expected",
    [
        ({"value": 1}, OwnResult(1)),
        ({"raised": "NotImplementedError"}, OwnResult(raised="NotImplementedError")),
        ({"state": {"t": 1}}, OwnResult(state={"t": 1})),
        ({"state": [1]}, None),
        ({"other": 1}, None),
        ("text", None),
    ],
)
def test_the_students_own_result_reads_as_one_of_its_three_forms_or_nothing(document, expected):
    assert OwnResult.from_json(document) == expected


def test_an_answer_without_ok_is_a_failure_not_a_value():
    assert HelperAnswer.from_json({"value": 3}).failure == "the grader could not answer"
