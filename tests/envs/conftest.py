"""Shared by the environment tests: every (game, seat count), and options that keep the long games short."""

from __future__ import annotations

from typing import Any

from engine_core import GAMES, Game

CONFIGS = [(game.info.name, seats) for game in GAMES for seats in range(game.info.min_seats, game.info.max_seats + 1)]
IDS = [f"{name}-{seats}" for name, seats in CONFIGS]
# The shortest variant of each long game (the same rules, fewer turns): OpenSpiel's tests play whole games.
SHORT: dict[str, dict[str, str]] = {
    "mana_burn": {"turn_limit": "15"},  # as GameConfig.options hold them (envs.spiel.load takes either)
    "magicka": {"round_limit": "50"},
    "blueprints": {"round_limit": "20"},
}


def games() -> list[Game[Any, Any]]:
    return list(GAMES)
