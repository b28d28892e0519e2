"""Looking up registered games. The list itself is `engine_core/games/__init__.py`: one line per game."""

from __future__ import annotations

from typing import Any

from engine_core.errors import UnknownGameError
from engine_core.game import Game
from engine_core.games import GAMES

AnyGame = Game[Any, Any]
_BY_NAME: dict[str, AnyGame] = {game.info.name: game for game in GAMES}


def find_game(name: str) -> AnyGame:
    try:
        return _BY_NAME[name]
    except KeyError:
        raise UnknownGameError(name) from None


def game_names() -> list[str]:
    return [game.info.name for game in GAMES]


__all__ = ["GAMES", "AnyGame", "find_game", "game_names"]
