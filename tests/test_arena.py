"""`make arena`: the report's shares, on real games."""

from __future__ import annotations

from typing import Any

import pytest
from manaforge.v1.common_pb2 import GameConfig
from tqdm import tqdm

from deploy import arena, decisions
from engine_core.bots import choose_action
from engine_core.budget import DEFAULT_BUDGET
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


def test_the_wilson_interval_holds_the_share_and_narrows_with_more_games() -> None:
    low, high = arena.wilson(0.5, 100)
    assert (round(low, 3), round(high, 3)) == (0.404, 0.596)  # the textbook value for 50 of 100
    narrow = arena.wilson(0.7, 200)
    assert narrow[0] < 0.7 < narrow[1] and narrow[1] - narrow[0] < 2 * 0.07  # n = 200: within +-0.07
    assert arena.wilson(1.0, 10)[1] == 1.0 and arena.wilson(0.0, 10)[0] == 0.0
    assert arena.wilson(0.3, 0) == (0.0, 1.0)


def test_table_sizes_a_game_does_not_allow_are_skipped() -> None:
    games = [find_game("cardbench"), find_game("manufactory"), find_game("rnd")]
    plans = [(game.info.name, seats) for game, seats in arena.tables(games, [2, 3, 4])]
    assert plans == [
        ("cardbench", 2),
        ("manufactory", 2),
        ("manufactory", 3),
        ("rnd", 3),
        ("manufactory", 4),
        ("rnd", 4),
    ]
    assert [seats for _, seats in arena.tables(games, [])] == [2, 2, 3]  # each game's minimum


def test_the_summary_gives_each_table_size_one_seat_of_each_level_against_the_other() -> None:
    with tqdm(disable=True) as bar:
        report = arena.run_game(find_game("manufactory"), ["random", "heuristic"], 3, 3, bar)
    alone, _ = report.pairs[("heuristic", "random")], report.pairs[("random", "heuristic")]
    assert alone.games == 3 and 0.0 <= alone.a_share <= 3.0
    text = arena.summary([report], strong="heuristic", weak="random")
    share, games = report.result("heuristic", "random") or (None, 0)
    assert share is not None and games == 3
    low, high = arena.wilson(share, games)
    assert "-- 3 seats (even share 0.33)" in text
    assert f"{share:.2f} [{low:.2f}-{high:.2f}] {share * 3:.2f}x (3)" in text
    assert "[" in arena.format_report(report).splitlines()[2]  # the matrix carries intervals too


def test_the_first_seed_chooses_which_seeded_games_are_played() -> None:
    game = find_game("cardbench")
    with tqdm(disable=True) as bar:
        moved = arena.run_game(game, ["random", "heuristic"], 4, 2, bar, first_seed=20_000)
        default = arena.run_game(game, ["random", "heuristic"], 4, 2, bar)
    expected = 0.0
    for i in range(4):  # game i: the random level at seat i % 2, seed 20000 + i
        lineup = ["random", "heuristic"] if i % 2 == 0 else ["heuristic", "random"]
        expected += arena.play(game, lineup, 20_000 + i, {"random": [], "heuristic": []})[i % 2]
    assert moved.pairs[("random", "heuristic")].a_share == expected == 2.0
    assert default.pairs[("random", "heuristic")].a_share == 1.0  # seeds 10000-10003, the table's in docs/bots.md


def test_worker_processes_play_the_same_seeded_games() -> None:
    game = find_game("cardbench")
    with tqdm(disable=True) as bar:
        alone = arena.run_game(game, ["random", "heuristic"], 4, 2, bar)
        pool = arena.workers(2)
        try:
            shared = arena.run_game(game, ["random", "heuristic"], 4, 2, bar, pool=pool)
        finally:
            if pool:
                pool.close()
    assert shared.pairs == alone.pairs
    assert {level: len(times) for level, times in shared.times.items()} == {
        level: len(times) for level, times in alone.times.items()
    }


def test_decision_times_are_taken_at_every_table_size_the_game_allows(capsys: pytest.CaptureFixture[str]) -> None:
    decisions.main(["--games", "blueprints", "--decisions", "4"])
    rows = [line.split() for line in capsys.readouterr().out.splitlines()[2:]]
    assert [row[:2] for row in rows] == [["blueprints", str(seats)] for seats in range(2, 7)]
    for row in rows:
        p50, p95, slowest = map(float, row[2:5])
        assert 0 < p50 <= p95 <= slowest and 0 <= int(row[5]) <= 4


def test_alone_plays_only_the_pairings_with_that_level_alone_from_three_seats() -> None:
    game = find_game("manufactory")
    with tqdm(disable=True) as bar:
        full = arena.run_game(game, ["random", "heuristic"], 3, 3, bar)
        alone = arena.run_game(game, ["random", "heuristic"], 3, 3, bar, alone="heuristic")
        two = arena.run_game(game, ["random", "heuristic"], 2, 2, bar, alone="heuristic")
    assert list(alone.pairs) == [("heuristic", "random")]
    assert alone.pairs[("heuristic", "random")] == full.pairs[("heuristic", "random")]  # the same seeded games
    assert alone.result("random", "heuristic") is None and full.result("random", "heuristic") is not None
    assert list(two.pairs) == [("random", "heuristic")]  # two seats: each pair once, both sides read from it
    assert two.result("heuristic", "random") is not None


def test_alone_must_name_a_level_that_plays() -> None:
    with pytest.raises(SystemExit, match="--alone: 'ismcts' is not one of the levels played"):
        arena.main(["--games", "cardbench", "--levels", "random,heuristic", "--n", "1", "--alone", "ismcts"])


def test_the_arena_plays_openspiels_ismcts_against_the_default_level() -> None:
    with tqdm(disable=True) as bar:
        report = arena.run_game(find_game("cardbench"), [arena.OPENSPIEL, "ismcts"], 2, 2, bar)
    tally = report.pairs[(arena.OPENSPIEL, "ismcts")]
    assert tally.games == 2 and tally.a_share + tally.b_share == 2.0
    assert len(report.times[arena.OPENSPIEL]) == 2 * 50  # its seat's 50 moves of each match
    assert "one ismcts seat against openspiel-ismcts seats" in arena.summary([report], weak=arena.OPENSPIEL)
