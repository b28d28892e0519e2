"""Server-side response timers: an absent player is passed for, so a game never stalls on a response window."""

from __future__ import annotations

import time
from typing import Any

import grpc
import pytest
from manaforge.v1.common_pb2 import DecisionKind

from engine_core import GAMES, Game
from gateway.client import Client
from gateway.store import RedisStore

TIMED = [g for g in GAMES if type(g).timeout_action is not Game.timeout_action]


@pytest.mark.parametrize("game", TIMED, ids=[g.info.name for g in TIMED])
def test_an_absent_player_is_passed_in_a_response_window(
    game: Game[Any, Any], client: Client, store: RedisStore
) -> None:
    """Seat 0 is a human who takes turns but never answers a response window; bots hold the other seats.
    The stack's response timeout is 1 s (conftest), so the timer must answer for seat 0."""
    seats = game.info.min_seats
    created = client.create_table(
        game.info.name, seats, bots={i: "random" for i in range(1, seats)}, player_name="absent"
    )
    table_id, token = created.table.table_id, created.seat_token
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        view = client.view(table_id, token)
        if view.outcome.finished:
            break
        timed_out = [a for a in store.action_log(table_id) if a.client_action_id.startswith("timeout:")]
        if timed_out:
            assert all(a.seat == 0 for a in timed_out)  # only the absent human is passed for
            assert client.table(table_id).version > timed_out[0].version - 1
            return
        if view.legal_actions and view.pending.kind != DecisionKind.DECISION_KIND_RESPONSE:
            try:
                client.submit(table_id, token, view.legal_actions[0].action, expected_version=view.version)
            except grpc.RpcError as exc:  # a bot or the timer moved first: look again
                assert exc.code() in (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION), exc
        time.sleep(0.05)
    pytest.fail(f"{game.info.name}: no response window of seat 0 was passed by the timer")
