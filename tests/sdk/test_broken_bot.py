"""A bot function that raises, against the real stack: the SDK logs it with the table and seat and asks the bot once
more for the same decision; a bot that raises again is left out of the rest of the game (the platform's stand-in
plays the seat to the end) and its Result says so; `serve()` returns its results, failed games included, also when
a game's thread ends on any other error."""

from __future__ import annotations

import logging
import threading
import uuid
from typing import Any

import manaforge_sdk as mf
import pytest
from manaforge.v1 import gateway_pb2 as gw
from manaforge.v1.games.cardbench_pb2 import CardbenchAction, CardbenchState

from deploy.launcher import Stack

pytestmark = [pytest.mark.parametrize("stack", ["redis"], indirect=True), pytest.mark.timeout(120)]

CLOCK = 1.0  # seconds a decision waits before the stand-in takes it: the failed games end within seconds
STAND_IN = ("clock:", "timeout:")
RUNNER_LOG = "manaforge_sdk.runner"


class Flaky:
    """A cardbench bot that raises at its `fail_at`-th call and `times` calls in a row from there; otherwise plays
    the first legal card. Records the table version of every call."""

    def __init__(self, fail_at: int, times: int) -> None:
        self.fail_at, self.times = fail_at, times
        self.versions: list[int] = []

    def __call__(self, view: CardbenchState, legal_actions: mf.LegalActions) -> mf.Action:
        self.versions.append(view.header.version)
        if self.fail_at <= len(self.versions) < self.fail_at + self.times:
            raise ValueError(f"broken at call {len(self.versions)}")
        return legal_actions[0][0]


def test_a_bot_that_raises_once_is_asked_again_for_the_same_decision_and_plays_on(
    stack: Stack, caplog: pytest.LogCaptureFixture
) -> None:
    bot = Flaky(fail_at=3, times=1)
    with mf.connect(stack.gateway_addresses[0]) as client:
        seat = client.create_table("cardbench", bots={1: "random"}, name="flaky (guest)", clock=30)
        with caplog.at_level(logging.WARNING, logger=RUNNER_LOG):
            result = client.play(seat.table_id, seat.token, bot)
        ours = [a for a in client.log(seat.table_id).actions if a.seat == seat.seat]
    assert not result.failed and result.error == "" and result.outcome.finished
    assert bot.versions[2] == bot.versions[3]  # the third decision asked twice, the same one
    assert len(bot.versions) == len(result.moves) + 1 == len(ours) + 1 == 51
    assert [a.client_action_id for a in ours] == result.moves  # every decision the bot's: none left to the stand-in
    (record,) = caplog.records
    message = record.getMessage()
    assert f"table {seat.table_id}, seat 0, version {bot.versions[2]}" in message and "asking it again" in message
    assert record.exc_info is not None and "broken at call 3" in str(record.exc_info[1])


def test_a_bot_that_raises_twice_is_left_to_the_stand_in_for_the_rest_of_the_game(
    stack: Stack, caplog: pytest.LogCaptureFixture
) -> None:
    bot = Flaky(fail_at=5, times=1000)
    with mf.connect(stack.gateway_addresses[0]) as client:
        seat = client.create_table("cardbench", bots={1: "random"}, name="broken (guest)", clock=CLOCK)
        with caplog.at_level(logging.WARNING, logger=RUNNER_LOG):
            result = client.play(seat.table_id, seat.token, bot)
        # play() returned at once, failed; the game goes on, the stand-in playing the seat to the end
        assert result.failed and not result.outcome.finished and len(result.moves) == 4
        assert len(bot.versions) == 6 and bot.versions[4] == bot.versions[5]
        where = f"table {seat.table_id}, seat 0, version {bot.versions[4]}"
        assert result.error == f"the bot raised at {where}, 2 times: ValueError: broken at call 6"
        assert "seat 0 failed: the bot raised at" in str(result)
        assert [(r.levelname, where in r.getMessage()) for r in caplog.records] == [("ERROR", True)] * 2
        assert "stand-in plays the seat" in caplog.records[1].getMessage()
        table = client.wait_verdict(seat.table_id, timeout=90)
        ours = [a for a in client.log(seat.table_id).actions if a.seat == seat.seat]
    assert table.outcome.finished
    assert [a.client_action_id for a in ours[:4]] == result.moves
    assert all(a.client_action_id.startswith(STAND_IN) for a in ours[4:]) and len(ours) == 50
    assert len(bot.versions) == 6  # never asked again after it was left out


def registered(stack: Stack, prefix: str, bot: bool = False) -> mf.Client:
    client = mf.connect(stack.gateway_addresses[0])
    player = client.stub.RegisterPlayer(gw.RegisterPlayerRequest(name=f"{prefix}_{uuid.uuid4().hex[:8]}"))
    client._use(mf.Credentials(player.player_id, player.secret_key, player.name))
    if bot:
        assert client.upgrade_to_bot().bot
    return client


def test_serve_returns_its_results_when_the_bot_raises_or_a_games_thread_fails(stack: Stack) -> None:
    """One challenge's game is left after the bot raised twice, the other's thread ends on the gateway refusing the
    bot's move (another game's action): serve(games=2) returns both, failed, and names why."""
    account = registered(stack, "robo", bot=True)
    ann, bob = registered(stack, "ann"), registered(stack, "bob")
    assert account.credentials is not None

    def broken(view: Any, legal_actions: mf.LegalActions) -> mf.Action:
        if isinstance(view, CardbenchState):
            raise RuntimeError("no idea what to do")
        return CardbenchAction(card=0)  # not this game's action: the gateway refuses it

    served: list[mf.Result] = []
    runner = threading.Thread(target=lambda: served.extend(account.serve(broken, games=2)), daemon=True)
    runner.start()
    tables = {}
    people: list[threading.Thread] = []
    for person, game in ((ann, "cardbench"), (bob, "manufactory")):
        events = person.events()
        person.challenge(account.credentials.player_id, game, 2, clock=CLOCK)
        started = next(e.game_started for e in events if e.WhichOneof("kind") == "game_started")
        tables[game] = started.table_id
        person_plays = (started.table_id, started.seat_token, lambda view, legal: legal[0][0])
        people.append(threading.Thread(target=person.play, args=person_plays, daemon=True))
        people[-1].start()
    runner.join(60)
    assert not runner.is_alive(), "serve(games=2) did not return"
    by_table = {result.table_id: result for result in served}
    assert set(by_table) == set(tables.values()) and all(r.failed and r.seat == 1 for r in served)
    assert "the bot raised at" in by_table[tables["cardbench"]].error
    assert "RuntimeError: no idea what to do" in by_table[tables["cardbench"]].error
    assert by_table[tables["manufactory"]].error.startswith("ManaforgeError: a move at table")
    for person_plays_on in people:  # the stand-in plays the bot account's seat to the end
        person_plays_on.join(60)
    assert ann.table(tables["cardbench"]).outcome.finished and bob.table(tables["manufactory"]).outcome.finished
    for client in (account, ann, bob):
        client.close()
