"""Hidden choices: a mixed strategy where the others cannot see a choice until it is revealed.

A bot's randomness comes from the table's secret seed, but a strategy that takes the best-rated action is a function
of what the seat sees, and where that is public (R&D's votes are judged on the finished cards, which everyone sees)
anyone can run it and know the secret vote before the reveal. A draw among the actions rated close to the best is not
enough either: where one action is rated clearly best it is the only one drawn, and a third of R&D's votes were.

So where `Game.is_hidden_choice` holds (a face-down card, a secret vote, a simultaneous decision), the heuristic
draws, with the bot's rng, from a quantal response over its ratings (`Game.choice_ratings`, in units of a clear
preference): each **sensible** action (rated within `SENSIBLE` of the best) with a
weight `exp(rating / temperature)`, the rest never. The temperature is `TEMPERATURE`, raised where needed so that the
likeliest action is drawn at most `1/k + MARGIN` of the time among k sensible actions: a predictor who knows
everything the seat knows but not the secret names at most chance plus `MARGIN` of the choices, at every decision,
while the better-rated actions stay the likelier ones. What it still learns: docs/bots.md.

Every level goes through `heuristic_move` at the root of a decision: the `heuristic` level plays it, and `ismcts`
starts from it (the heuristic's lead in the tree, the flat search's baseline), keeping it unless its search finds a
move clearly better. Playouts inside a search still use the game's heuristic as it is (a model of the others).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, TypeVar

from manaforge.v1.common_pb2 import Rng

from engine_core.game import Game
from engine_core.rng import next_u64, randbelow

AnyGame = Game[Any, Any]
T = TypeVar("T")

SENSIBLE = 4.0
"""Actions rated within this of the best are sensible choices (a clear preference is 1: `Game.choice_ratings`); a
MANA BURN card the hand still needs, offered while a spare is at hand, is rated 6 or more below and is not."""
MARGIN = 0.1
"""The bar: the likeliest sensible action is drawn at most this much more often than one in k among k."""
TEMPERATURE = 0.5
"""The quantal response's temperature where the bar holds anyway: a clear preference is e**2 (about 7) to 1."""
_BISECTIONS = 40


def has_choice_ratings(game: AnyGame) -> bool:
    return type(game).choice_ratings is not Game.choice_ratings


def choice_weights(
    ratings: Sequence[float], margin: float = MARGIN, temperature: float = TEMPERATURE, sensible: float = SENSIBLE
) -> list[float]:
    """Each action's chance of being drawn: a softmax of the sensible actions' ratings (within `sensible` of the
    best), none for the rest, at `temperature` or the lowest above it that keeps the likeliest at most 1/k +
    `margin` among k."""
    best = max(ratings)
    gaps = [best - rating if rating >= best - sensible else math.inf for rating in ratings]
    k = sum(gap < math.inf for gap in gaps)
    most = 1.0 / k + margin  # of the total weight, the likeliest's weight is 1: the total must reach 1 / most

    def total(at: float) -> float:
        return sum(math.exp(-gap / at) for gap in gaps)

    if total(temperature) * most < 1.0:  # raise the temperature: the total grows with it, towards k > 1 / most
        low, high = temperature, 2 * temperature
        while total(high) * most < 1.0:
            low, high = high, 2 * high
        for _ in range(_BISECTIONS):
            middle = (low + high) / 2
            low, high = (middle, high) if total(middle) * most < 1.0 else (low, middle)
        temperature = high
    weights = [math.exp(-gap / temperature) for gap in gaps]
    whole = sum(weights)
    return [weight / whole for weight in weights]


def mixed_choice(actions: Sequence[T], ratings: Sequence[float], rng: Rng) -> T:
    """One of the actions, drawn with `rng` by `choice_weights`."""
    weights = choice_weights(ratings)
    point = next_u64(rng) / 2**64
    drawn = [(action, weight) for action, weight in zip(actions, weights, strict=True) if weight]
    for action, weight in drawn:
        if point < weight:
            return action
        point -= weight
    return drawn[-1][0]  # what rounding leaves over


def heuristic_move(game: AnyGame, view: Any, seat: int, legal: list[Any], rng: Rng) -> Any:
    """The heuristic's move: at a hidden choice a draw from its quantal response (at random where the game rates
    none), else the game's own `heuristic_action`."""
    if not game.is_hidden_choice(view, seat):
        return game.heuristic_action(view, seat, legal, rng)
    if not has_choice_ratings(game):
        return legal[randbelow(rng, len(legal))]
    return mixed_choice(legal, game.choice_ratings(view, seat, legal), rng)
