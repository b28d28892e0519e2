"""Seeded random playouts of every registered game, checking the Game protocol's invariants at every step.

MANAFORGE_PLAYOUTS sets how many playouts each game gets (default 1000: 150 with every check at every step, the
rest with the cheap checks and sampled deep ones).
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from engine_core import GAMES, Game
from engine_core.conformance import check_playout

PLAYOUTS = int(os.environ.get("MANAFORGE_PLAYOUTS", "1000"))
FULL = max(1, PLAYOUTS * 15 // 100)


def _seat_counts(game: Game[Any, Any]) -> list[int]:
    return list(range(game.info.min_seats, min(game.info.max_seats, game.info.min_seats + 4) + 1))


def _option_sets(game: Game[Any, Any]) -> list[dict[str, str]]:
    """The defaults, then each choice of each option on its own."""
    sets: list[dict[str, str]] = [{}]
    for option in game.info.options:
        sets += [{option.name: choice} for choice in option.choices if choice != option.default]
    return sets


@pytest.mark.parametrize("game", GAMES, ids=[g.info.name for g in GAMES])
def test_random_playouts_keep_every_invariant(game: Game[Any, Any]) -> None:
    seat_counts, option_sets = _seat_counts(game), _option_sets(game)
    finished = 0
    for i in range(PLAYOUTS):
        seats = seat_counts[i % len(seat_counts)]
        opts = option_sets[(i // len(seat_counts)) % len(option_sets)]
        report = check_playout(game, seats, seed=1000 + i, options=opts, full=i < FULL)
        finished += report.finished
    assert finished == PLAYOUTS
