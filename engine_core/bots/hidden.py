"""Hidden choices: a mixed strategy where the others cannot see a choice until it is revealed.

A bot's randomness comes from the table's secret seed, but a strategy that takes the best-rated action is a function
of what the seat sees, and where that is public (R&D's votes are judged on the finished cards, which everyone sees)
anyone can run it and know the secret vote before the reveal. So where `Game.is_hidden_choice` holds (a face-down
card, a secret vote, a simultaneous decision), the heuristic draws, with the bot's rng, uniformly among the actions
its ratings (`Game.choice_ratings`, in units of a clear preference) put within `CLOSE` of the best. A predictor who
knows everything the seat knows but not the secret can do no better than the likeliest of those: one in k among k
close actions. What it still learns is which actions the strategy rates close (docs/bots.md).

Every level goes through `heuristic_move` at the root of a decision: the `heuristic` level plays it, and `ismcts`
starts from it (the heuristic's lead in the tree, the flat search's baseline), keeping it unless its search finds a
move clearly better. Playouts inside a search still use the game's heuristic as it is (a model of the others).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from manaforge.v1.common_pb2 import Rng

from engine_core.game import Game
from engine_core.rng import randbelow

AnyGame = Game[Any, Any]
T = TypeVar("T")

CLOSE = 1.0
"""Actions rated within this of the best are close: a clear preference is 1 (`Game.choice_ratings`)."""


def has_choice_ratings(game: AnyGame) -> bool:
    return type(game).choice_ratings is not Game.choice_ratings


def close_weights(ratings: Sequence[float], close: float = CLOSE) -> list[float]:
    """Each action's chance of being drawn: equal among those rated within `close` of the best, none for the rest."""
    best = max(ratings)
    near = [rating >= best - close for rating in ratings]
    return [1.0 / sum(near) if is_near else 0.0 for is_near in near]


def mixed_choice(actions: Sequence[T], ratings: Sequence[float], rng: Rng, close: float = CLOSE) -> T:
    """One of the actions rated within `close` of the best, each as likely (`close_weights`), drawn with `rng`."""
    near = [action for action, weight in zip(actions, close_weights(ratings, close), strict=True) if weight]
    return near[randbelow(rng, len(near))]


def heuristic_move(game: AnyGame, view: Any, seat: int, legal: list[Any], rng: Rng) -> Any:
    """The heuristic's move: at a hidden choice a draw among the actions it rates close (at random where the game
    rates none), else the game's own `heuristic_action`."""
    if not game.is_hidden_choice(view, seat):
        return game.heuristic_action(view, seat, legal, rng)
    if not has_choice_ratings(game):
        return legal[randbelow(rng, len(legal))]
    return mixed_choice(legal, game.choice_ratings(view, seat, legal), rng)
