"""How long the default bot level takes to decide, per game and table size, on one core.

    python -m deploy.decisions [--games magicka,manasurge] [--seats 2,3,4] [--decisions 200]

For every game with a searching level and every table size it allows (or those given), it plays seeded games in which
every seat plays the heuristic, and times the default level's decision (`choose_action`, the worker's call) at a
seeded sample of the positions met along the way, until it has `--decisions` of them. Only positions with a choice
count (a single legal action is answered without a search), so the figures are those of the decisions that search.
The time is the thread's CPU time, the process pinned to the idlest core (deploy.enginebench.one_core): it leaves
out the time other processes hold the core, though on a busy machine they still slow it through the shared caches.
It prints p50, p95 and the slowest decision in ms, and how many took more than the 100 ms the budgets are tuned to
(`Budget.seconds`).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Sequence
from typing import Any

from manaforge.v1.common_pb2 import GameConfig

from deploy.enginebench import one_core
from engine_core.bots import DEFAULT_LEVEL, choose_action, heuristic_policy, levels_for
from engine_core.game import Game
from engine_core.registry import GAMES, find_game

BOUND_MS = 100.0


def decision_times(game: Game[Any, Any], seats: int, wanted: int, seed: int = 1) -> list[float]:
    """Milliseconds of thread CPU time of `wanted` default-level decisions at tables of `seats`."""
    rand = random.Random(seed)
    sample = 0.25  # the share of positions timed: spread over whole games, not only their openings
    times: list[float] = []
    while len(times) < wanted:
        config = GameConfig(game=game.info.name, seats=seats)
        state = game.new_game(config, rand.getrandbits(63))
        while not game.is_terminal(state) and len(times) < wanted:
            seat = rand.choice(game.pending_seats(state))
            legal = game.legal_actions(state, seat)
            if len(legal) > 1 and rand.random() < sample:
                start = time.thread_time()
                choose_action(game, state, seat, DEFAULT_LEVEL, rand.getrandbits(63))
                times.append((time.thread_time() - start) * 1000)
            action = heuristic_policy(game, game.view(state, seat), seat, legal, rand.getrandbits(63))
            state, _ = game.apply(state, seat, action)
    return times


def percentile(values: Sequence[float], part: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(part * len(ordered)))]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default="", help="comma-separated game names (default: every registered game)")
    parser.add_argument("--seats", default="", help="table sizes, comma-separated (default: every size allowed)")
    parser.add_argument("--decisions", type=int, default=200, help="decisions timed per game and table size")
    args = parser.parse_args(argv)
    games = [find_game(name) for name in args.games.split(",")] if args.games else list(GAMES)
    sizes = [int(size) for size in args.seats.split(",") if size]
    with one_core() as core:
        print(f"{DEFAULT_LEVEL} decision times, thread CPU ms, {args.decisions} decisions each, {core}")
        print(f"{'game':<12} {'seats':>5} {'p50':>7} {'p95':>7} {'max':>7} {'over ' + str(int(BOUND_MS)):>8}")
        for game in games:
            if DEFAULT_LEVEL not in levels_for(game):
                continue
            allowed = range(game.info.min_seats, game.info.max_seats + 1)
            for seats in [s for s in sizes if s in allowed] if sizes else allowed:
                times = decision_times(game, seats, args.decisions)
                over = sum(t > BOUND_MS for t in times)
                print(
                    f"{game.info.name:<12} {seats:>5} {percentile(times, 0.5):>7.1f} {percentile(times, 0.95):>7.1f}"
                    f" {max(times):>7.1f} {over:>8}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
