"""The rules service's state checks accept every state a game reaches and refuse a card doubled or lost."""

from __future__ import annotations

import random
from typing import Any

import pytest
from manaforge.v1.common_pb2 import GameConfig

from engine_core import GAMES, Game
from engine_core.errors import MalformedActionError
from services.rules.checks import check_state


@pytest.mark.parametrize("game", GAMES, ids=[g.info.name for g in GAMES])
def test_every_reached_state_passes_and_a_doubled_card_does_not(game: Game[Any, Any]) -> None:
    rand = random.Random(7)
    state = game.new_game(GameConfig(game=game.info.name, seats=game.info.max_seats), 11)
    for _ in range(60):
        check_state(game, state)
        if game.is_terminal(state):
            break
        seat = rand.choice(game.pending_seats(state))
        state, _ = game.apply(state, seat, rand.choice(game.legal_actions(state, seat)))
    cards = game.cards(state)
    if len(cards) < 2:
        return
    broken = game.copy(state)
    for field, value in broken.ListFields():  # double the first card found in a repeated card-id field
        if field.is_repeated and field.type == field.TYPE_INT32 and len(value) >= 2 and value[0] in cards:
            value[1] = value[0]
            break
    else:
        pytest.skip(f"{game.info.name}: no top-level card list to break")
    with pytest.raises(MalformedActionError, match="card conservation"):
        check_state(game, broken)
