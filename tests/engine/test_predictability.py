"""A bot's secret choices cannot be named much better than chance by anyone who knows every public fact
(docs/bots.md, "The bar"; engine_core/bots/hidden.py).

R&D's votes are the case where the predictor knows all the bot's seat knows: a vote is rated on the finished cards,
which every seat sees. So a predictor runs the bot's own code on the public view with seeds of its own and names its
most frequent vote, or runs the taste itself and names the card it rates best (`deploy.predictability`, the tool
behind `make predictability`). Before the quantal response it
named 78% of the votes in an audit (a third had one card rated close to the best, which every seed chose).
"""

from __future__ import annotations

import math
from collections import defaultdict
from itertools import pairwise
from typing import Any

import pytest
from manaforge.v1.common_pb2 import GameConfig

from deploy.predictability import Tally, play
from engine_core.bots import choose_action
from engine_core.bots.hidden import MARGIN, choice_weights
from engine_core.registry import find_game

GAMES_A_SIZE = 12  # seeded games of heuristic bots a table size: about 100 votes with a choice at 3 seats, 130 at 4
SAMPLES = 16  # the predictor's seeds a vote, as the tool's default
FIRST_SECRET = 45_000
NOISE = 2.5  # standard errors: a predictor right at the bar hits above bar + NOISE of them in 6 of 1,000 samples


@pytest.mark.parametrize("seats", [3, 4])
def test_the_best_predictor_names_rnd_votes_at_most_the_bar_above_chance(seats: int) -> None:
    """Seeded tables of heuristic bots: neither predictor with every public fact (the bot's own code run with seeds of
    its own, or its likeliest vote) names more than chance plus the bar (10 points) of the secret votes, give or take
    the noise of a few dozen votes."""
    tallies: dict[tuple[str, int, str, str], Tally] = defaultdict(Tally)
    for secret in range(FIRST_SECRET, FIRST_SECRET + GAMES_A_SIZE):
        play(find_game("rnd"), "heuristic", seats, secret, SAMPLES, tallies)
    (tally,) = tallies.values()
    assert tally.decisions >= GAMES_A_SIZE * seats * 2  # most votes are choices (a ballot's last may have one card)
    bar = tally.chance / tally.decisions + MARGIN
    noise = NOISE * math.sqrt(bar * (1 - bar) / tally.decisions)
    assert tally.excess <= MARGIN + noise, tally.row(next(iter(tallies)))


def test_every_card_a_seat_may_vote_for_can_be_its_vote() -> None:
    """At every vote of seeded R&D tables each card the seat may vote for has a chance, and the likeliest at most
    one in the number of cards plus the bar: taste makes a card likelier but never certain."""
    game = find_game("rnd")
    for seats in (3, 4, 8):
        votes = 0
        for secret in range(2):
            for view, seat, legal in _votes(game, seats, secret):
                ratings = game.choice_ratings(view, seat, legal)
                weights = choice_weights(ratings)
                eligible = sum(rating > -math.inf for rating in ratings)
                assert sum(weight > 0 for weight in weights) == eligible, (seats, ratings, weights)
                assert max(weights) <= 1 / eligible + MARGIN + 1e-9, (seats, ratings, weights)
                votes += 1
        assert votes == 2 * seats * 3


def _votes(game: Any, seats: int, secret: int) -> Any:
    """Each vote of a seeded game of heuristic bots: the voter's view, seat and legal actions."""
    state = game.new_game(GameConfig(game="rnd", seats=seats), secret)
    while not game.is_terminal(state):
        seat = game.pending_seats(state)[0]
        legal = game.legal_actions(state, seat)
        view = game.view(state, seat)
        if game.is_hidden_choice(view, seat):
            yield view, seat, legal
        action = choose_action(game, state, seat, "heuristic", secret * 10_000 + game.header(state).version)
        state, _ = game.apply(state, seat, action)


def test_the_quantal_response_keeps_the_bar_and_the_order() -> None:
    """The draw's weights: the likeliest at most 1/k + the bar among k sensible actions, better-rated actions never
    less likely, a clearly worse action never drawn where a sensible one is at hand, unrated actions never."""
    for ratings in ([0.0, -2.0, -2.1, -2.7], [0.0, -0.6, -0.7, -2.7], [1.0, -math.inf, 0.5], [0.0, 0.0, -8.0]):
        weights = choice_weights(ratings)
        k = sum(rating >= max(ratings) - 4 for rating in ratings)
        assert math.isclose(sum(weights), 1.0)
        assert max(weights) <= 1 / k + MARGIN + 1e-9
        ranked = sorted(zip(ratings, weights, strict=True), reverse=True)
        assert all(a[1] >= b[1] for a, b in pairwise(ranked))
        assert all(weight > 0 for rating, weight in zip(ratings, weights, strict=True) if rating >= max(ratings) - 4)
        assert all(weight == 0 for rating, weight in zip(ratings, weights, strict=True) if rating < max(ratings) - 4)
