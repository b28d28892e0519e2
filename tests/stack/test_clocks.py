"""Clocks on every decision: a player who leaves mid-game never stalls a table; one who comes back plays on."""

from __future__ import annotations

import time
from typing import Any

import grpc
import pytest
from manaforge.v1 import gateway_pb2 as gw
from manaforge.v1.common_pb2 import GameConfig

from engine_core import GAMES, Game
from gateway.client import Client

FAST = gw.TimeControl(decision_seconds=0.3, takeover_after=2, takeover_level="random")


def create(client: Client, game: Game[Any, Any], clock: gw.TimeControl) -> tuple[str, str]:
    """Seat 0 for a human ("leaver"), random bots in the others."""
    seats = game.info.min_seats
    requests = [gw.SeatRequest()] + [gw.SeatRequest(bot=True, bot_level="random") for _ in range(seats - 1)]
    config = GameConfig(game=game.info.name, seats=seats)
    created = client.stub.CreateTable(
        gw.CreateTableRequest(config=config, seats=requests, player_name="leaver", time_control=clock)
    )
    return created.table.table_id, created.seat_token


@pytest.mark.parametrize("game", GAMES, ids=[g.info.name for g in GAMES])
def test_a_game_ends_although_a_player_left_after_the_start(game: Game[Any, Any], client: Client, store: Any) -> None:
    table_id, _ = create(client, game, FAST)  # the player is never heard from again
    table = client.wait_finished(table_id, 120)
    assert table.outcome.finished and table.replay_verdict.startswith("valid")
    assert table.seats[0].away  # the result records that a bot played for the seat
    made_for = [a for a in store.action_log(table_id) if a.seat == 0]
    assert made_for and all(a.client_action_id.startswith(("clock:", "timeout:")) for a in made_for)


def test_a_player_who_comes_back_takes_the_seat_back(client: Client, store: Any) -> None:
    cardbench = next(g for g in GAMES if g.info.name == "cardbench")
    clock = gw.TimeControl(decision_seconds=0.5, takeover_after=2, takeover_level="random")
    table_id, token = create(client, cardbench, clock)
    deadline = time.monotonic() + 30
    while not client.table(table_id).seats[0].away:  # two decisions run out: the seat is away
        assert time.monotonic() < deadline
        time.sleep(0.1)
    client.view(table_id, token)  # back: the clock runs in full again from the next decision
    while True:
        view = client.view(table_id, token)
        if view.legal_actions:
            at = view.deadlines[0].at
            assert at - time.time() > 0.1  # a real clock, not an instant takeover
            try:
                done = client.submit(table_id, token, view.legal_actions[0].action, expected_version=view.version)
            except grpc.RpcError as exc:  # a takeover already running when the player came back: the next turn
                assert exc.code() == grpc.StatusCode.ABORTED
                continue
            assert done.version == view.version + 1
            break
        time.sleep(0.02)
    assert not client.table(table_id).seats[0].away
    mine = [a for a in store.action_log(table_id) if a.seat == 0 and not a.client_action_id.startswith("clock:")]
    assert len(mine) == 1


def test_a_bank_clock_spends_what_each_decision_took_and_adds_the_increment(client: Client, store: Any) -> None:
    cardbench = next(g for g in GAMES if g.info.name == "cardbench")
    clock = gw.TimeControl(bank_seconds=3.0, increment_seconds=0.5, takeover_after=5, takeover_level="random")
    table_id, token = create(client, cardbench, clock)

    def my_turn() -> gw.SeatView:
        while True:
            view = client.view(table_id, token)
            if view.legal_actions:
                return view
            time.sleep(0.01)

    first = my_turn()
    assert abs(first.deadlines[0].at - time.time() - 3.0) < 0.5  # the whole bank
    time.sleep(1.0)  # this decision takes a second of the bank
    client.submit(table_id, token, first.legal_actions[0].action, expected_version=first.version)
    second = my_turn()
    left = second.deadlines[0].at - time.time()
    assert 2.0 < left < 2.9  # 3 - 1 + 0.5, less the moment the bot took
    takeover = time.monotonic()
    while client.view(table_id, token).version == second.version:  # the player stops: the bank runs out
        assert time.monotonic() - takeover < 10
        time.sleep(0.05)
    waited = time.monotonic() - takeover
    assert left - 0.5 < waited < left + 1.5
    made = [a for a in store.action_log(table_id) if a.seat == 0]
    assert made[-1].client_action_id.startswith("clock:")
