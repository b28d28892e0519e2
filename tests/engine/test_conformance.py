"""Seeded random playouts of every registered game, checking the Game protocol's invariants at every step.

Each game gets up to MANAFORGE_PLAYOUTS playouts (default 1000) within MANAFORGE_PLAYOUT_ACTIONS actions
(default 100,000), so long games (a board game of 1,500 actions) get fewer playouts than short ones. The first
MANAFORGE_FULL_PLAYOUTS (default 40, and at most a fifth of the action budget) check everything at every step; the
rest keep the cheap checks at every step and the expensive ones (views, fuzzed actions, round trips) every 37th
step. Seeds are fixed: the same playouts every run.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from engine_core import GAMES, Game
from engine_core.conformance import check_playout

PLAYOUTS = int(os.environ.get("MANAFORGE_PLAYOUTS", "1000"))
ACTIONS = int(os.environ.get("MANAFORGE_PLAYOUT_ACTIONS", "100000"))
FULL = int(os.environ.get("MANAFORGE_FULL_PLAYOUTS", "40"))


def _seat_counts(game: Game[Any, Any]) -> list[int]:
    return list(range(game.info.min_seats, min(game.info.max_seats, game.info.min_seats + 4) + 1))


def _option_sets(game: Game[Any, Any]) -> list[dict[str, str]]:
    """The defaults, then each choice of each option on its own."""
    sets: list[dict[str, str]] = [{}]
    for option in game.info.options:
        sets += [{option.name: choice} for choice in option.choices if choice != option.default]
    return sets


@pytest.mark.timeout(900)  # a sweep of every invariant after every action: two minutes alone, more beside other work
@pytest.mark.parametrize("game", GAMES, ids=[g.info.name for g in GAMES])
def test_random_playouts_keep_every_invariant(game: Game[Any, Any]) -> None:
    seat_counts, option_sets = _seat_counts(game), _option_sets(game)
    played = actions = 0
    while played < PLAYOUTS and actions < ACTIONS:
        seats = seat_counts[played % len(seat_counts)]
        opts = option_sets[(played // len(seat_counts)) % len(option_sets)]
        report = check_playout(
            game, seats, seed=1000 + played, options=opts, full=played < FULL and actions < ACTIONS // 5
        )
        assert report.finished
        played += 1
        actions += report.actions
    assert played >= min(PLAYOUTS, 50), f"only {played} playouts fit in {ACTIONS} actions"
