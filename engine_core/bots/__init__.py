"""Bots: a level is a policy that sees only its seat's view and legal actions, and draws from its own rng.

    choose_action(game, state, seat, level, seed)

The full state stays here: the policy receives `game.view(state, seat)` and the seat's legal actions, never the
hidden cards of others. `seed` makes a bot's choice reproducible (the worker derives it from the game and version).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from google.protobuf.message import Message

from engine_core.errors import InvalidConfigError
from engine_core.game import Game
from engine_core.rng import new_rng, randbelow

# A policy: (game, view of the seat, seat, legal actions, seed) -> one of the legal actions.
Policy = Callable[[Game[Any, Any], Any, int, list[Any], int], Any]


def random_policy(game: Game[Any, Any], view: Any, seat: int, legal: list[Any], seed: int) -> Any:
    """A uniformly random legal action."""
    return legal[randbelow(new_rng(seed), len(legal))]


LEVELS: dict[str, Policy] = {
    "random": random_policy,
}
DEFAULT_LEVEL = "random"


def bot_levels() -> list[str]:
    return list(LEVELS)


def check_level(level: str) -> str:
    level = level or DEFAULT_LEVEL
    if level not in LEVELS:
        raise InvalidConfigError("bot level", f"{level!r} is not one of {', '.join(LEVELS)}")
    return level


def choose_action(game: Game[Any, Any], state: Message, seat: int, level: str, seed: int) -> Any:
    """The bot's action for `seat`, chosen from its own view only."""
    legal = game.legal_actions(state, seat)
    if not legal:
        raise InvalidConfigError("bot turn", f"seat {seat} has no decision pending")
    return LEVELS[check_level(level)](game, game.view(state, seat), seat, legal, seed)
