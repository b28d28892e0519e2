"""`make arena`: the report's shares, on real games."""

from __future__ import annotations

from typing import Any

import pytest
from manaforge.v1.common_pb2 import GameConfig
from tqdm import tqdm

from deploy import arena
from engine_core.bots import choose_action
from engine_core.bots.budget import DEFAULT_BUDGET
from engine_core.errors import InvalidConfigError
from engine_core.registry import find_game


def _finished(name: str, seats: int, seed: int) -> Any:
    game = find_game(name)
    state = game.new_game(GameConfig(game=name, seats=seats), seed)
    while not game.is_terminal(state):
        seat = game.pending_seats(state)[0]
        state, _ = game.apply(state, seat, choose_action(game, state, seat, "heuristic", seed))
    return game, state


def test_a_competitive_game_shares_the_win_between_its_winners() -> None:
    game, state = _finished("manufactory", 3, seed=2)
    winners = list(game.outcome(state).winners)
    shares = arena.shares(game, state)
    assert shares == [1 / len(winners) if seat in winners else 0.0 for seat in range(3)]


def test_a_cooperative_game_shares_its_credits_instead() -> None:
    game, state = _finished("rnd", 3, seed=1)
    outcome = game.outcome(state)
    assert sorted(outcome.winners) == [0, 1, 2]  # R&D: every seat wins
    shares = arena.shares(game, state)
    assert shares == [score / sum(outcome.scores) for score in outcome.scores]
    assert sum(shares) == 1.0 and len(set(shares)) > 1  # seats earned different credits


def test_the_arena_reports_every_pairing_with_decision_times() -> None:
    with tqdm(disable=True) as bar:
        report = arena.run_game(find_game("cardbench"), ["random", "heuristic"], 4, 2, bar)
    tally = report.pairs[("random", "heuristic")]
    assert tally.games == 4 and tally.a_share + tally.b_share == 4.0
    assert len(report.times["random"]) + len(report.times["heuristic"]) == 4 * 100  # 100 moves a match
    text = arena.format_report(report)
    assert "== cardbench (2 seats)" in text and "heuristic vs random:" in text


def test_the_arena_plays_with_the_game_options_given() -> None:
    game = find_game("magicka")
    times: dict[str, list[float]] = {"random": []}
    shares = arena.play(game, ["random", "random"], 1, times, options={"mode": "spell_vs_spell"})
    assert sum(shares) == 1.0
    with pytest.raises(InvalidConfigError, match="mode"):
        arena.play(game, ["random", "random"], 1, times, options={"mode": "chess"})


def test_a_budget_given_on_the_command_line_keeps_the_defaults_it_does_not_name() -> None:
    budget = arena.parse_budget("search=flat,rollout=heuristic,actions=600,evaluate_after=10,margin=0.1")
    assert (budget.search, budget.rollout, budget.actions, budget.evaluate_after, budget.margin) == (
        "flat",
        "heuristic",
        600,
        10,
        0.1,
    )
    assert budget.iterations == DEFAULT_BUDGET.iterations
    with pytest.raises(SystemExit, match="not a Budget field"):
        arena.parse_budget("speed=11")
