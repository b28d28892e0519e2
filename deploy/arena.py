"""`make arena`: bot levels against each other, N seeded games per pairing, each process on one core.

    python -m deploy.arena [--games cardbench,magicka] [--n 10] [--levels random,heuristic,ismcts] [--seats 2,3,4]
                           [--time-cap-ms 90] [--options mode=spell_vs_spell] [--budget search=flat,actions=600]
                           [--jobs 1] [--first-seed 10000] [--alone ismcts]

For every game, every table size given (those the game allows) and every pair of levels (A, B), A plays one seat
and B every other seat, with A's seat rotating from game to game (so no level keeps the first-move advantage). With
two seats each pair plays once; with more, each ordered pair (one A against B's, one B against A's). It reports,
per game and table size:
- each level's win share against each other level (a draw among k winners gives each 1/k; in a cooperative game,
  where every seat wins, the share of the outcome scores: R&D's credits) with its Wilson 95% interval, and the share
  a B seat took in the same games; against random, the ratio of the two is the "times a random seat's share" figure;
- each level's decision time p50/p95 in milliseconds: CPU time of the thread in `choose_action`, on one pinned core
  (it leaves out the time other processes hold the core, though a busy machine still slows it through shared caches);
and at the end a summary per table size: one default-level seat against heuristic seats, one heuristic seat against
default-level seats, each share with its interval and its ratio to an even share.
Without --time-cap-ms searches run to their budget (iterations and simulated actions) and replay exactly; with it,
each search also stops at the cap and is given the cap as its decision time left, as a worker with a clock would.
`--jobs J` plays the games in J worker processes, each pinned to a core of its own (the same results: every game is
seeded). Levels a game does not implement (a missing hook) are left out and named. `--budget` replaces every game's
ismcts budget for the run (tuning: docs/bots.md). `--alone A` plays, from three seats on, only the pairings with A
alone against another level's seats: tuning one level's lone seat takes a fraction of the time (with A = ismcts at
six seats, a sixth: the other pairing searches at five seats).

The level `openspiel-ismcts` is OpenSpiel's own ISMCTS bot playing through our OpenSpiel games (envs.ismcts, a dev
dependency), with the simulated actions of the default level's budget for the game and table size: with it in
`--levels`, the summary also gives one default-level seat against openspiel-ismcts seats, and the reverse.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from multiprocessing.pool import Pool
from multiprocessing.queues import Queue
from typing import Any

from manaforge.v1.common_pb2 import GameConfig
from tqdm import tqdm

from engine_core.bots import DEFAULT_LEVEL, LEVELS, IsmctsPolicy, bot_levels, choose_action, levels_for
from engine_core.bots.ismcts import has_sample_world
from engine_core.budget import DEFAULT_BUDGET, Budget
from engine_core.game import Game
from engine_core.registry import GAMES, find_game

AnyGame = Game[Any, Any]

FIRST_SEED = 10_000
"""The seed of a pairing's first game; the i-th game's is FIRST_SEED + i."""
OPENSPIEL = "openspiel-ismcts"
"""OpenSpiel's ISMCTS bot (envs.ismcts) at the default level's simulated actions."""


def arena_levels(game: AnyGame) -> list[str]:
    """The levels `game` really plays here: its own (`levels_for`), and OpenSpiel's ISMCTS where it deals worlds."""
    return levels_for(game) + ([OPENSPIEL] if has_sample_world(game) else [])


def openspiel_action(game: AnyGame, state: Any, seat: int, seed: int) -> Any:
    """OpenSpiel's ISMCTS decision, under the simulated actions (and world cost) of the default level's budget."""
    from envs import ismcts  # a dev dependency: only this level needs it

    policy = LEVELS[DEFAULT_LEVEL]
    budget = (policy if isinstance(policy, IsmctsPolicy) else IsmctsPolicy()).budget_for(
        game, game.header(state).config.seats
    )
    return ismcts.choose(game, state, seat, seed, budget.actions, budget.world_cost)


@dataclass
class Tally:
    """The results of one pairing: A's share, the average B seat's share, games played."""

    a_share: float = 0.0
    b_share: float = 0.0
    games: int = 0


@dataclass
class GameReport:
    game: str
    seats: int
    levels: list[str]
    missing: list[str]
    pairs: dict[tuple[str, str], Tally] = field(default_factory=dict)
    times: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))

    def result(self, a: str, b: str) -> tuple[float, int] | None:
        """One A seat's win share against B seats, and the games it is measured over (with two seats, also read
        from the games of B against A)."""
        tally = self.pairs.get((a, b))
        if tally and tally.games:
            return tally.a_share / tally.games, tally.games
        mirror = self.pairs.get((b, a))
        if self.seats == 2 and mirror and mirror.games:
            return mirror.b_share / mirror.games, mirror.games
        return None

    def share(self, a: str, b: str) -> float | None:
        result = self.result(a, b)
        return None if result is None else result[0]

    def against_random(self, a: str) -> tuple[float, float] | None:
        """In the games of A against random seats: A's share, and a random seat's average share."""
        tally = self.pairs.get((a, "random"))
        if tally and tally.games:
            return tally.a_share / tally.games, tally.b_share / tally.games
        mirror = self.pairs.get(("random", a))
        if self.seats == 2 and mirror and mirror.games:
            return mirror.b_share / mirror.games, mirror.a_share / mirror.games
        return None


def wilson(share: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval (95% by default) of a share observed over `n` games. A game's share may be a
    fraction (split wins, R&D's credits); the interval treats the mean share as a proportion, which is conservative
    for fractional outcomes (their variance is at most that of wins and losses)."""
    if n == 0:
        return 0.0, 1.0
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def deadline(seconds: float | None) -> Callable[[], bool] | None:
    """A `stop` for the search: true once `seconds` have passed (None: no time cap, the budget alone decides)."""
    if seconds is None:
        return None
    end = time.perf_counter() + seconds
    return lambda: time.perf_counter() >= end


def play(
    game: AnyGame,
    seats: list[str],
    seed: int,
    times: dict[str, list[float]],
    cap: float | None = None,
    options: dict[str, str] | None = None,
) -> list[float]:
    """One game with `seats[i]` the level at seat i (and the game's `options`); each seat's share of the win."""
    state = game.new_game(GameConfig(game=game.info.name, seats=len(seats), options=options or {}), seed)
    for _ in range(game.info.max_actions):
        if game.is_terminal(state):
            break
        seat = game.pending_seats(state)[0]
        level = seats[seat]
        bot_seed = seed * 1_000_003 + game.header(state).version * 31 + seat
        start = time.thread_time()
        if level == OPENSPIEL:
            action = openspiel_action(game, state, seat, bot_seed)
        else:
            action = choose_action(game, state, seat, level, bot_seed, deadline(cap), cap)
        times[level].append(time.thread_time() - start)
        state, _ = game.apply(state, seat, action)
    return shares(game, state)


def shares(game: AnyGame, state: Any) -> list[float]:
    """Each seat's share of the win: 1/k for each of k winners (an unfinished game: every seat). Where every seat
    wins (a cooperative game: R&D), each seat's part of the outcome scores instead, which is what the seats compete
    for there (R&D's credits); equal parts where nobody scored."""
    seats = game.header(state).config.seats
    outcome = game.outcome(state)
    winners = set(outcome.winners) if outcome.finished else set(range(seats))
    scores = list(outcome.scores)
    if len(winners) == seats and len(scores) == seats and sum(scores) > 0:
        return [score / sum(scores) for score in scores]
    return [1.0 / len(winners) if seat in winners else 0.0 for seat in range(seats)]


def pairings(levels: list[str], seats: int, alone: str | None = None) -> list[tuple[str, str]]:
    """Who plays whom: with two seats each pair once (B's share is the mirror), else A alone against B's; `alone`:
    from three seats on, only the pairs with that level alone."""
    if seats == 2:
        return [(a, b) for i, a in enumerate(levels) for b in levels[i + 1 :]]
    return [(a, b) for a in levels for b in levels if a != b and (alone is None or a == alone)]


def run_game(
    game: AnyGame,
    levels: list[str],
    n: int,
    seats: int,
    bar: tqdm,
    cap: float | None = None,
    options: dict[str, str] | None = None,
    pool: Pool | None = None,
    first_seed: int = FIRST_SEED,
    alone: str | None = None,
) -> GameReport:
    playable = [level for level in levels if level in arena_levels(game)]
    report = GameReport(game.info.name, seats, playable, [level for level in levels if level not in playable])
    matches = [(a, b, i) for a, b in pairings(playable, seats, alone) for i in range(n)]
    tasks = [
        Match(game.info.name, [a if seat == i % seats else b for seat in range(seats)], first_seed + i, cap, options)
        for a, b, i in matches
    ]
    results = pool.imap(Match.play, tasks) if pool else map(Match.play, tasks)
    for (a, b, i), (shares, times) in zip(matches, results, strict=True):
        bar.set_postfix_str(f"{game.info.name} {seats} seats {a} v {b}")
        a_seat = i % seats
        tally = report.pairs.setdefault((a, b), Tally())
        tally.a_share += shares[a_seat]
        tally.b_share += (sum(shares) - shares[a_seat]) / (seats - 1)
        tally.games += 1
        for level, spent in times.items():
            report.times[level].extend(spent)
        bar.update()
    return report


@dataclass(frozen=True)
class Match:
    """One seeded game of the arena, playable in a worker process."""

    game: str
    lineup: list[str]
    seed: int
    cap: float | None
    options: dict[str, str] | None

    def play(self) -> tuple[list[float], dict[str, list[float]]]:
        """Each seat's share of the win, and each level's decision times."""
        times: dict[str, list[float]] = defaultdict(list)
        shares = play(find_game(self.game), self.lineup, self.seed, times, self.cap, self.options)
        return shares, dict(times)


def with_interval(result: tuple[float, int]) -> str:
    """`0.62 [0.49-0.74]`: a share and its Wilson 95% interval."""
    low, high = wilson(*result)
    return f"{result[0]:.2f} [{low:.2f}-{high:.2f}]"


def format_report(report: GameReport) -> str:
    lines = [
        f"== {report.game} ({report.seats} seats): win share of one row-level seat against column-level seats,"
        " Wilson 95% interval"
    ]
    if report.missing:
        lines.append(f"   not available (missing hook): {', '.join(report.missing)}")
    lines.append(" " * 10 + "".join(f"{b:>18}" for b in report.levels) + "   p50 ms   p95 ms")
    for a in report.levels:
        cells = []
        for b in report.levels:
            result = report.result(a, b)
            cells.append(f"{'-':>18}" if result is None else f"{with_interval(result):>18}")
        times = report.times.get(a, [])
        lines.append(
            f"{a:<10}" + "".join(cells) + f" {percentile(times, 0.5) * 1e3:8.1f} {percentile(times, 0.95) * 1e3:8.1f}"
        )
    for a in report.levels:
        shares = report.against_random(a)
        if a != "random" and shares is not None:
            share, theirs = shares
            ratio = f"{share / theirs:.1f}x" if theirs else "random seats won nothing"
            lines.append(f"   {a} vs random: {share:.2f} against a random seat's {theirs:.2f} ({ratio})")
    return "\n".join(lines)


def summary(reports: Sequence[GameReport], strong: str = DEFAULT_LEVEL, weak: str = "heuristic") -> str:
    """Per table size, a line per game: one `strong` seat against `weak` seats and one `weak` seat against `strong`
    seats, each share with its interval and its ratio to an even share (1/seats), and `strong`'s decision times."""
    lines = [f"== summary: one {strong} seat against {weak} seats, and one {weak} seat against {strong} seats"]
    for seats in sorted({report.seats for report in reports}):
        lines.append(f"-- {seats} seats (even share {1 / seats:.2f})")
        lines.append(f"   {'game':<12}{f'{strong} alone':>28}{f'{weak} alone':>28}   {strong} p50/p95 ms")
        for report in reports:
            if report.seats != seats or strong not in report.levels or weak not in report.levels:
                continue
            cells = []
            for a, b in ((strong, weak), (weak, strong)):
                result = report.result(a, b)
                cells.append(
                    "-" if result is None else f"{with_interval(result)} {result[0] * seats:.2f}x ({result[1]})"
                )
            times = report.times.get(strong, [])
            lines.append(
                f"   {report.game:<12}{cells[0]:>28}{cells[1]:>28}"
                f"   {percentile(times, 0.5) * 1e3:.1f} / {percentile(times, 0.95) * 1e3:.1f}"
            )
    return "\n".join(lines)


def parse_budget(text: str) -> Budget:
    """`search=flat,actions=600,evaluate_after=10` -> a Budget; the fields not named keep DEFAULT_BUDGET's."""
    values: dict[str, Any] = {}
    for part in filter(None, text.split(",")):
        name, _, value = part.partition("=")
        if name not in Budget.__dataclass_fields__:
            raise SystemExit(f"--budget: {name!r} is not a Budget field ({', '.join(Budget.__dataclass_fields__)})")
        default = getattr(DEFAULT_BUDGET, name)
        if value == "None":
            values[name] = None
        elif isinstance(default, str):
            values[name] = value
        else:
            values[name] = float(value) if isinstance(default, float) else int(value)
    return replace(DEFAULT_BUDGET, **values)


def tables(games: Sequence[AnyGame], sizes: Sequence[int]) -> list[tuple[AnyGame, int]]:
    """(game, seats) to play, table size by table size: each size a game allows (no sizes: each game's minimum)."""
    if not sizes:
        return [(game, game.info.min_seats) for game in games]
    return [(game, seats) for seats in sizes for game in games if game.info.min_seats <= seats <= game.info.max_seats]


def pin_one_core(cores: Queue[int] | None = None) -> None:
    """Pin this process to one core: the next one from `cores` (a worker), else the first this process may use."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {cores.get() if cores else min(os.sched_getaffinity(0))})


def workers(jobs: int) -> Pool | None:
    """`jobs` worker processes, each pinned to a core of its own (None: play in this process, on one core)."""
    if jobs <= 1:
        return None
    available = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else list(range(jobs))
    cores: Queue[int] = multiprocessing.Queue()
    for core in available[:jobs]:
        cores.put(core)
    return multiprocessing.Pool(min(jobs, len(available)), pin_one_core, (cores,))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default="", help="comma-separated game names (default: every registered game)")
    parser.add_argument("--n", type=int, default=10, help="games per ordered pair of levels")
    parser.add_argument(
        "--levels",
        default=",".join(bot_levels()),
        help=f"comma-separated levels ({', '.join([*bot_levels(), OPENSPIEL])})",
    )
    parser.add_argument(
        "--seats",
        default="",
        help="table sizes, comma-separated (default: each game's minimum); sizes a game does not allow are skipped",
    )
    parser.add_argument(
        "--time-cap-ms", type=float, default=None, help="stop each search after this long (default: budget only)"
    )
    parser.add_argument("--options", default="", help="game options as name=value,... (e.g. mode=spell_vs_spell)")
    parser.add_argument(
        "--budget", default="", help="replace every game's ismcts budget: Budget fields as name=value,... (tuning)"
    )
    parser.add_argument("--jobs", type=int, default=1, help="worker processes, one pinned core each (default 1)")
    parser.add_argument(
        "--first-seed",
        type=int,
        default=FIRST_SEED,
        help=f"the first game's seed (default {FIRST_SEED}, the seeds of docs/bots.md; tune on others, then check)",
    )
    parser.add_argument(
        "--alone", default=None, help="from 3 seats on, play only this level alone against the others (tuning)"
    )
    args = parser.parse_args(argv)
    options = dict(part.split("=", 1) for part in args.options.split(",") if part)
    if args.budget:
        LEVELS["ismcts"] = IsmctsPolicy(parse_budget(args.budget))
    cap = None if args.time_cap_ms is None else args.time_cap_ms / 1000
    levels = [level for level in args.levels.split(",") if level]
    if args.alone is not None and args.alone not in levels:
        raise SystemExit(f"--alone: {args.alone!r} is not one of the levels played ({', '.join(levels)})")
    pool = workers(args.jobs)
    pin_one_core()
    games = [find_game(name) for name in args.games.split(",")] if args.games else list(GAMES)
    plans = tables(games, [int(size) for size in args.seats.split(",") if size])
    total = sum(len(pairings([lv for lv in levels if lv in arena_levels(g)], s, args.alone)) * args.n for g, s in plans)
    reports = []
    with tqdm(total=total, unit="game") as bar:
        for game, seats in plans:
            reports.append(run_game(game, levels, args.n, seats, bar, cap, options, pool, args.first_seed, args.alone))
    if pool:
        pool.close()
    print(f"default level: {DEFAULT_LEVEL}" + (f"; options: {args.options}" if options else ""))
    for report in reports:
        print(format_report(report))
    for weak in ("heuristic", OPENSPIEL):
        if DEFAULT_LEVEL in levels and weak in levels:
            print(summary(reports, weak=weak))


if __name__ == "__main__":
    main()
