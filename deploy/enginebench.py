"""Engine speed beside RLCard's UNO: random-playout steps/s per registered game, and each game's ratio to UNO.

    python -m deploy.enginebench [--seconds S] [--games a,b]

One step is what a random player costs an engine: the legal actions of a pending seat, then applying one of them at
random (`engine_rate`, the method of `make bench`), from new games at the minimum seat count until `seconds` pass.
UNO is RLCard's UNO environment (`rlcard.make("uno")`, 2 players) driven the same way: each step a random legal action
from the observation's `legal_actions`, then `env.step` (the rules and the next player's observation). That is the
reference of issue 16 (UNO about 50k steps/s). The bare rules (`UnoGame.get_legal_actions` + `UnoGame.step`, no
observation) are printed beside it as a stricter second reference. UNO is measured before and after the games and the
mean of the two is used, so a machine that slows down during the run shows as a gap between them (printed).
Everything runs in this one process, pinned to one core while it measures.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from manaforge.v1.common_pb2 import GameConfig

from engine_core import GAMES, Game

UNO_SEATS = 2


def engine_rate(game: Game[Any, Any], seconds: float) -> tuple[float, int]:
    """Random playouts for `seconds`: (actions per second, games played)."""
    rand = random.Random(1)
    seats = game.info.min_seats
    actions = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_game(GameConfig(game=game.info.name, seats=seats), rand.getrandbits(63))
        while not game.is_terminal(state):
            seat = rand.choice(game.pending_seats(state))
            state, _ = game.apply(state, seat, rand.choice(game.legal_actions(state, seat)))
            actions += 1
        games += 1
    return actions / (time.perf_counter() - start), games


def uno_env_rate(seconds: float) -> tuple[float, int]:
    """RLCard's UNO environment (`rlcard.make("uno")`, 2 players) with a random legal action each step, for `seconds`:
    (steps per second, games played). A step is `env.step`: the rules plus the next player's observation."""
    rlcard = _rlcard()
    rand = random.Random(1)
    env = rlcard.make("uno", config={"seed": 1, "game_num_players": UNO_SEATS})
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state, _ = env.reset()
        while not env.is_over():
            state, _ = env.step(rand.choice(list(state["legal_actions"])))
            steps += 1
        games += 1
    return steps / (time.perf_counter() - start), games


def uno_game_rate(seconds: float) -> tuple[float, int]:
    """RLCard's bare UNO rules (`UnoGame`, no observation encoding): `get_legal_actions` + `step`, random choices."""
    _rlcard()
    from rlcard.games.uno.game import UnoGame  # type: ignore[import-untyped]

    rand = random.Random(1)
    game = UnoGame(num_players=UNO_SEATS)
    game.np_random.seed(1)
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        game.init_game()
        while not game.is_over():
            game.step(rand.choice(game.get_legal_actions()))
            steps += 1
        games += 1
    return steps / (time.perf_counter() - start), games


def _rlcard() -> Any:
    """RLCard, a dev dependency imported only by this bench; numpy kept to one thread."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    import rlcard  # type: ignore[import-untyped]

    return rlcard


def idlest_core(cores: set[int], sample: float = 0.3) -> int:
    """The core of `cores` that was idle the longest over `sample` seconds (Linux /proc/stat); else the last one."""

    def idle_times() -> dict[int, int]:
        times: dict[int, int] = {}
        with open("/proc/stat") as stat:
            for line in stat:
                name, *fields = line.split()
                if name.startswith("cpu") and name[3:].isdigit():
                    times[int(name[3:])] = int(fields[3]) + int(fields[4])  # idle + iowait
        return times

    try:
        before = idle_times()
        time.sleep(sample)
        after = idle_times()
    except OSError:
        return max(cores)
    return max(sorted(cores), key=lambda core: after.get(core, 0) - before.get(core, 0))


@contextmanager
def one_core() -> Iterator[str]:
    """This process on one core (the idlest) while the block runs, where the OS allows; then its cores as before."""
    if not hasattr(os, "sched_setaffinity"):
        yield "one process (no affinity control here)"
        return
    cores = os.sched_getaffinity(0)
    core = idlest_core(cores)
    os.sched_setaffinity(0, {core})
    try:
        yield f"pinned to core {core} of {len(cores)}"
    finally:
        os.sched_setaffinity(0, cores)


def engine_table(seconds: float = 3.0, games: Sequence[Game[Any, Any]] | None = None) -> list[str]:
    """Printable lines: each game's steps/s and its ratio to RLCard's UNO measured in the same run.

    The ratio is to UNO's environment step (the issue's reference); the bare rules step is printed beside it."""
    chosen = list(GAMES if games is None else games)
    with one_core() as core:
        uno_env_rate(min(0.5, seconds / 4))  # warm-up: RLCard's first games pay for imports and first allocations
        env_before, _ = uno_env_rate(seconds)
        bare_before, _ = uno_game_rate(seconds)
        rates = [(game.info.name, *engine_rate(game, seconds)) for game in chosen]
        env_after, _ = uno_env_rate(seconds)
        bare_after, _ = uno_game_rate(seconds)
    env = (env_before + env_after) / 2
    bare = (bare_before + bare_after) / 2
    lines = [
        f"engine speed: random playouts at the minimum seat count, {seconds:g} s each, {core}",
        f"RLCard UNO env step (2 players): {env:,.0f} steps/s (before {env_before:,.0f}, after {env_after:,.0f})",
        f"RLCard UNO bare rules step:      {bare:,.0f} steps/s (before {bare_before:,.0f}, after {bare_after:,.0f})",
        f"{'game':<12} {'steps/s':>9} {'games':>6} {'vs UNO env':>11} {'vs UNO bare':>12}",
    ]
    for name, rate, played in rates:
        lines.append(f"{name:<12} {rate:>9,.0f} {played:>6} {rate / env:>10.2f}x {rate / bare:>11.2f}x")
    return lines


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per game and per UNO measurement")
    parser.add_argument("--games", default="", help="comma-separated game names (default: every registered game)")
    args = parser.parse_args(argv)
    names = [name for name in args.games.split(",") if name]
    chosen = [game for game in GAMES if not names or game.info.name in names]
    for line in engine_table(args.seconds, chosen):
        print(line)


if __name__ == "__main__":
    main()
