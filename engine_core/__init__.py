"""Pure rules engines behind one Game protocol. No I/O; randomness only from the rng inside each state."""

from engine_core.errors import (
    GameOverError,
    IllegalActionError,
    InvalidConfigError,
    MalformedActionError,
    NotYourTurnError,
    RulesError,
    UnknownGameError,
)
from engine_core.game import Game, GameInfo, Option
from engine_core.registry import GAMES, find_game, game_names

__all__ = [
    "GAMES",
    "Game",
    "GameInfo",
    "GameOverError",
    "IllegalActionError",
    "InvalidConfigError",
    "MalformedActionError",
    "NotYourTurnError",
    "Option",
    "RulesError",
    "UnknownGameError",
    "find_game",
    "game_names",
]
