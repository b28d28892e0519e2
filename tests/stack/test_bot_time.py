"""Bots' moves can be audited once a game is over, and the operator's cap on their thinking time scales their
search down whole: the log and the seed it reveals are enough to recompute every bot decision."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator
from typing import Any

import pytest

from deploy.launcher import LOOPBACK_LIMITS, Stack
from engine_core import find_game
from engine_core.bots import choose_action, heuristic_policy
from gateway.client import Client


def bot_seed(seed: int, version: int, seat: int) -> int:
    """The seed of the bot's decision at `version`, from the table's seed (secret until the game is over)."""
    digest = hmac.new(seed.to_bytes(8, "big"), f"bot:{version}:{seat}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big")


def bot_game(client: Client, game_name: str) -> Iterator[tuple[Any, Any, int, Any, int]]:
    """A finished game of two ismcts bots: for each bot move, (game, state before it, seat, move, bot seed)."""
    created = client.create_table(game_name, 2, bots={0: "ismcts", 1: "ismcts"})
    table = client.wait_finished(created.table.table_id, 120)
    log = client.log(table.table_id)
    game = find_game(game_name)
    state = game.new_game(table.config, log.seed)
    for logged in log.actions:
        action = game.action_from_any(logged.action)
        assert logged.client_action_id == f"bot:{logged.version - 1}"
        yield game, state, logged.seat, action, bot_seed(log.seed, logged.version - 1, logged.seat)
        state, _ = game.apply(state, logged.seat, action)
    assert game.is_terminal(state)


def test_every_bot_move_is_recomputed_from_the_revealed_seed(client: Client) -> None:
    moves = list(bot_game(client, "manufactory"))
    assert len(moves) > 20
    for game, state, seat, action, seed in moves:
        assert choose_action(game, state, seat, "ismcts", seed, time_left=2.0) == action


@pytest.fixture(scope="module")
def no_thinking_time() -> Iterator[Stack]:
    with Stack(gateways=1, settings={**LOOPBACK_LIMITS, "MANAFORGE_BOT_TIME_CAP": "0"}) as running:
        yield running


def test_a_bot_with_no_thinking_time_plays_the_heuristics_move(no_thinking_time: Stack) -> None:
    searched = 0
    with Client(no_thinking_time.gateway_addresses[0]) as client:
        for _ in range(4):  # games until one where the full search would have chosen otherwise somewhere
            for game, state, seat, action, seed in bot_game(client, "manufactory"):
                view, legal = game.view(state, seat), game.legal_actions(state, seat)
                assert heuristic_policy(game, view, seat, legal, seed) == action
                searched += choose_action(game, state, seat, "ismcts", seed) != action
            if searched:
                break
    assert searched > 0  # the moves were the heuristic's because of the cap, not because the search agreed
