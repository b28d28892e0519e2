"""Ratings: a few hundred games between bot levels rate the stronger level above the weaker, as the published
bot ratings say; and the rating update itself ranks winners up and losers down."""

from __future__ import annotations

from manaforge.v1.common_pb2 import GameConfig

from engine_core import find_game
from engine_core.bots import choose_action
from services.tables.players import BOT_RATINGS, MODEL, ordinal, rate


def play(game_name: str, levels: list[str], seed: int) -> list[float]:
    game = find_game(game_name)
    state = game.new_game(GameConfig(game=game_name, seats=len(levels)), seed)
    step = 0
    while not game.is_terminal(state):
        seat = game.pending_seats(state)[0]
        state, _ = game.apply(state, seat, choose_action(game, state, seat, levels[seat], seed * 1000 + step))
        step += 1
    return list(game.outcome(state).scores)


def test_the_stronger_bot_level_ends_rated_above_the_weaker_after_hundreds_of_games() -> None:
    start = MODEL.rating()
    ratings = {"heuristic": (start.mu, start.sigma), "random": (start.mu, start.sigma)}
    for seed in range(300):
        levels = ["heuristic", "random"] if seed % 2 == 0 else ["random", "heuristic"]
        scores = play("manasurge", levels, seed)
        ranks = [1 + sum(other > mine for other in scores) for mine in scores]
        after = rate([ratings[level] for level in levels], ranks)
        for level, new in zip(levels, after, strict=True):
            ratings[level] = new
    assert ordinal(*ratings["heuristic"]) > ordinal(*ratings["random"]) + 2
    assert ordinal(*BOT_RATINGS["heuristic"]) > ordinal(*BOT_RATINGS["random"])  # the published order agrees


def test_a_win_moves_ratings_apart_and_a_tie_keeps_them_together() -> None:
    (win_mu, _), (lose_mu, _) = rate([(25.0, 8.0), (25.0, 8.0)], [1, 2])
    assert win_mu > 25.0 > lose_mu
    (a, _), (b, _) = rate([(25.0, 8.0), (25.0, 8.0)], [1, 1])
    assert abs(a - b) < 1e-9
