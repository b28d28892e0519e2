"""A Play stream's answers (gateway/calls/live.py, `Answers`): every action answered exactly once, as a message of
its own or inside the update of its commit, whichever order the update and the result come in (no server needed)."""

from __future__ import annotations

from manaforge.v1.gateway_pb2 import ActionResult, PlayRequest, PlayUpdate, SubmitActionRequest

from gateway.calls.live import Answers
from services.tables.watching import Update


def asked(answers: Answers, action_id: str) -> None:
    answers.asked(PlayRequest(action=SubmitActionRequest(client_action_id=action_id)))


def applied(action_id: str, version: int, duplicate: bool = False) -> ActionResult:
    result = ActionResult(client_action_id=action_id)
    result.response.version, result.response.duplicate = version, duplicate
    return result


def message(data: bytes) -> PlayUpdate:
    return PlayUpdate.FromString(data)


def test_a_result_before_its_update_is_answered_inside_the_update() -> None:
    answers = Answers(folding=True, shown=4)
    asked(answers, "a")
    assert answers.result(applied("a", 5)) is None and answers.owed == 1  # its update is on the way
    sent = message(answers.update(Update(5, b"", "a")))
    assert sent.answered.client_action_id == "a" and sent.answered.response.version == 5
    assert answers.owed == 0


def test_an_update_before_its_result_answers_it_and_the_result_is_not_sent() -> None:
    answers = Answers(folding=True, shown=4)
    asked(answers, "a")
    assert message(answers.update(Update(5, b"", "a"))).answered.response.version == 5
    assert answers.owed == 1  # the result is still to come: the stream does not end before it
    assert answers.result(applied("a", 5)) is None and answers.owed == 0
    asked(answers, "a")  # sent again: answered as a duplicate, in a message of its own
    assert message(answers.result(applied("a", 5, duplicate=True)) or b"").result.response.duplicate
    assert answers.owed == 0


def test_results_passed_over_by_a_catch_up_or_left_at_the_end_come_as_messages() -> None:
    answers = Answers(folding=True, shown=4)
    for action_id, version in (("a", 5), ("b", 7), ("c", 9)):
        asked(answers, action_id)
        assert answers.result(applied(action_id, version)) is None
    passed = [message(m).result.response.version for m in answers.passed_over(7)]
    assert passed == [5]  # before the catch-up showing version 7, which answers "b" itself
    assert message(answers.update(Update(7, b""))).answered.client_action_id == "b"
    assert [message(m).result.client_action_id for m in answers.unanswered()] == ["c"]
    assert answers.owed == 0 and not answers.unanswered()


def test_refusals_and_every_result_without_folding_come_as_messages() -> None:
    answers = Answers(folding=True, shown=4)
    asked(answers, "a")
    refused = ActionResult(client_action_id="a", code=9, message="play from hand")
    assert message(answers.result(refused) or b"").result.message == "play from hand"
    plain = Answers(folding=False, shown=4)
    asked(plain, "a")
    assert not message(plain.update(Update(5, b"", "a"))).HasField("answered")
    assert message(plain.result(applied("a", 5)) or b"").result.response.version == 5
    assert answers.owed == plain.owed == 0
