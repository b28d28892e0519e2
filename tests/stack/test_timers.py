"""Server-side response timers: an absent player is passed for, so a game never stalls on a response window."""

from __future__ import annotations

import time
from typing import Any

import grpc
import pytest
from manaforge.v1.common_pb2 import DecisionKind

from engine_core import GAMES, Game
from gateway.client import Client

TIMED = [g for g in GAMES if type(g).timeout_action is not Game.timeout_action]


def configs(game: Game[Any, Any]) -> list[dict[str, str]]:
    """The defaults, then each of the game's modes (response windows may exist in one mode only)."""
    modes = [o for o in game.info.options if o.name == "mode"]
    return [{}] + [{"mode": choice} for choice in (modes[0].choices if modes else ())]


def passed_for_absent_player(game: Game[Any, Any], options: dict[str, str], client: Client, store: Any) -> bool:
    """Play seat 0 as a human who takes turns but never answers a response window; bots hold the other seats.
    True once the timer has passed for seat 0 (the stack's response timeout is 1 s, see conftest)."""
    seats = game.info.min_seats
    bots = {i: "random" for i in range(1, seats)}
    created = client.create_table(game.info.name, seats, bots=bots, options=options, player_name="absent")
    table_id, token = created.table.table_id, created.seat_token
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        timed_out = [a for a in store.action_log(table_id) if a.client_action_id.startswith("timeout:")]
        if timed_out:
            assert all(a.seat == 0 for a in timed_out)  # only the absent human is passed for
            return True
        view = client.view(table_id, token)
        if view.outcome.finished:
            return False
        if view.legal_actions and view.pending.kind != DecisionKind.DECISION_KIND_RESPONSE:
            try:
                client.submit(table_id, token, view.legal_actions[-1].action, expected_version=view.version)
            except grpc.RpcError as exc:  # a bot or the timer moved first: look again
                assert exc.code() in (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION), exc
            continue
        time.sleep(0.02)
    return False


@pytest.mark.parametrize("game", TIMED, ids=[g.info.name for g in TIMED])
def test_an_absent_player_is_passed_in_a_response_window(game: Game[Any, Any], client: Client, store: Any) -> None:
    tried = []
    for _ in range(3):  # a random game may end before seat 0 is ever asked to respond
        for options in configs(game):
            if passed_for_absent_player(game, options, client, store):
                return
            tried.append(options)
    pytest.fail(f"{game.info.name}: the timer never passed for seat 0 in {len(tried)} games ({tried})")
