"""The ismcts level's budgets: by seat count, scaled down by a short clock, and runnable for every game at every
table size it allows."""

from __future__ import annotations

from typing import Any

import pytest
from manaforge.v1.common_pb2 import GameConfig

from engine_core import GAMES, Game
from engine_core.bots import LEVELS, IsmctsPolicy, choose_action
from engine_core.bots.ismcts import has_evaluate, has_sample_world
from engine_core.budget import DEFAULT_BUDGET, Budget, budget_at, within
from engine_core.registry import find_game

IDS = [g.info.name for g in GAMES]
TWO, FOUR = Budget(iterations=100, actions=800), Budget(iterations=50, actions=300)


def test_a_single_budget_serves_every_table_size() -> None:
    assert [budget_at(TWO, seats) for seats in (2, 3, 6)] == [TWO, TWO, TWO]


def test_budgets_by_seat_count_apply_from_their_size_up() -> None:
    budgets = {2: TWO, 4: FOUR}
    assert [budget_at(budgets, seats) for seats in (2, 3, 4, 5)] == [TWO, TWO, FOUR, FOUR]
    assert budget_at({3: FOUR}, 2) == FOUR  # below every size declared: the smallest one's


def test_a_short_clock_scales_the_search_down_in_proportion() -> None:
    assert within(TWO, None) is TWO and within(TWO, 5.0) is TWO  # no clock, or time enough
    half = within(TWO, TWO.seconds / 2)
    assert (half.iterations, half.actions, half.seconds) == (50, 400, TWO.seconds / 2)
    assert within(TWO, -1.0).iterations == 0 and within(TWO, 0.0).actions == 0


def test_the_level_reads_the_budget_for_the_table_it_sits_at() -> None:
    policy = IsmctsPolicy()
    game = find_game("manufactory")
    assert policy.budget_for(game, 2) != policy.budget_for(game, 4)  # a crowded table searches less
    forced = IsmctsPolicy(TWO)  # a budget given (arena tuning) replaces the game's at every size
    assert forced.budget_for(game, 4) == TWO and forced.budget_for(game, 4, 0.0).actions == 0


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_each_game_searches_with_budgets_the_bots_can_run_at_every_table_size(game: Game[Any, Any]) -> None:
    declared = game.bot_budget or DEFAULT_BUDGET
    if not isinstance(declared, Budget):
        sizes = range(game.info.min_seats, game.info.max_seats + 1)
        assert min(declared) == game.info.min_seats, "the smallest table has its own budget"
        assert set(declared) <= set(sizes), f"budgets for table sizes {game.info.name} does not allow"
    for seats in range(game.info.min_seats, game.info.max_seats + 1):
        budget = IsmctsPolicy().budget_for(game, seats)
        assert budget.search in ("tree", "flat") and budget.rollout in ("random", "heuristic")
        assert budget.evaluate_after is None or has_evaluate(game), "evaluate_after needs Game.evaluate"
        assert budget.iterations > 0 and budget.actions > 0 and budget.seconds > 0


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_with_no_time_left_the_search_plays_the_game_strategy(game: Game[Any, Any]) -> None:
    if not has_sample_world(game):
        pytest.skip(f"{game.info.name} has no sample_world hook")
    seats = game.info.max_seats
    state = game.new_game(GameConfig(game=game.info.name, seats=seats), 5)
    for version in range(30):
        if game.is_terminal(state):
            break
        seat = game.pending_seats(state)[0]
        rushed = choose_action(game, state, seat, "ismcts", version, time_left=0.0)
        view, legal = game.view(state, seat), game.legal_actions(state, seat)
        if len(legal) > 1:  # with one legal action the level takes it (R&D's heuristic may write its own text)
            strategy = LEVELS["heuristic"](game, view, seat, legal, version)
            assert rushed.SerializeToString(deterministic=True) == strategy.SerializeToString(deterministic=True)
        state, _ = game.apply(state, seat, rushed)
