"""Engine speed beside RLCard's UNO: random-playout steps/s per registered game, and each game's ratio to UNO.

    python -m deploy.enginebench [--seconds S] [--games a,b]

One step is what a random player costs an engine: the legal actions of a pending seat, then applying one of them at
random (`game_runner`, the method of `make bench`), from new games at the minimum seat count. UNO is RLCard's UNO
environment (`rlcard.make("uno")`, 2 players) driven the same way: each step a random legal action from the
observation's `legal_actions`, then `env.step` (the rules and the next player's observation). That is the reference of
issue 16 (UNO about 50k steps/s then). The bare rules (`UnoGame.get_legal_actions` + `UnoGame.step`, no observation)
are printed beside it as a stricter second reference.

Everything runs in this one process, pinned to the idlest core while it measures, in rounds: each round gives UNO and
every game a slice of about half a second, and each carries on with its own playouts from round to round, so a load
that comes and goes on a shared machine weighs on UNO and the games alike. Each figure is its steps over its time;
the spread of UNO's per-round rates is printed to show how steady the machine was.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.machinery
import os
import random
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from manaforge.v1.common_pb2 import GameConfig

from deploy import engines
from engine_core import GAMES, Game

UNO_SEATS = 2
SLICE = 0.5  # seconds each runner gets per round


@dataclass
class Runner:
    """Playouts of one workload run slice by slice: `play_one()` plays one whole game and returns its steps."""

    name: str
    play_one: Callable[[], int]
    steps: int = 0
    games: int = 0
    elapsed: float = 0.0
    rates: list[float] = field(default_factory=list)

    def run(self, seconds: float) -> None:
        """Whole games until `seconds` have passed (the last game is finished, as in `make bench`)."""
        steps = games = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            steps += self.play_one()
            games += 1
        spent = time.perf_counter() - start
        self.steps += steps
        self.games += games
        self.elapsed += spent
        self.rates.append(steps / spent)

    @property
    def rate(self) -> float:
        return self.steps / self.elapsed if self.elapsed else 0.0


def game_runner(game: Game[Any, Any]) -> Runner:
    """Random playouts of an engine: per step `pending_seats`, `legal_actions` of a random pending seat, `apply` of a
    random legal action; new games at the minimum seat count, seeds from one `random.Random(1)`. The games are live
    states (`new_game(..., live=True)`), as bots play them: `apply` copies the state and converts nothing."""
    rand = random.Random(1)
    config = GameConfig(game=game.info.name, seats=game.info.min_seats)

    def play_one() -> int:
        state = game.new_game(config, rand.getrandbits(63), live=True)
        steps = 0
        while not game.is_terminal(state):
            seat = rand.choice(game.pending_seats(state))
            state, _ = game.apply(state, seat, rand.choice(game.legal_actions(state, seat)))
            steps += 1
        return steps

    return Runner(game.info.name, play_one)


def engine_build() -> str:
    """Which rules ran: the compiled modules (deploy/engines.py) or their Python sources."""
    modules = [importlib.import_module(engines.module_name(source)) for source in engines.sources()]
    compiled = sum(isinstance(module.__loader__, importlib.machinery.ExtensionFileLoader) for module in modules)
    if not compiled:
        return "plain Python (no compiled modules: `make engines` builds them)"
    stale = engines.stale()
    built = f"{compiled} of {len(modules)} modules compiled with mypyc"
    return f"{built}, STALE: {', '.join(stale)}" if stale else built


def uno_env_runner() -> Runner:
    """RLCard's UNO environment (`rlcard.make("uno")`, 2 players) with a random legal action each step. A step is
    `env.step`: the rules plus the next player's observation."""
    rlcard = _rlcard()
    rand = random.Random(1)
    env = rlcard.make("uno", config={"seed": 1, "game_num_players": UNO_SEATS})

    def play_one() -> int:
        state, _ = env.reset()
        steps = 0
        while not env.is_over():
            state, _ = env.step(rand.choice(list(state["legal_actions"])))
            steps += 1
        return steps

    return Runner("UNO env", play_one)


def uno_game_runner() -> Runner:
    """RLCard's bare UNO rules (`UnoGame`, no observation encoding): `get_legal_actions` + `step`, random choices."""
    _rlcard()
    from rlcard.games.uno.game import UnoGame  # type: ignore[import-untyped]

    rand = random.Random(1)
    game = UnoGame(num_players=UNO_SEATS)
    game.np_random.seed(1)

    def play_one() -> int:
        game.init_game()
        steps = 0
        while not game.is_over():
            game.step(rand.choice(game.get_legal_actions()))
            steps += 1
        return steps

    return Runner("UNO bare", play_one)


def _rlcard() -> Any:
    """RLCard, a dev dependency imported only by this bench; numpy kept to one thread."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    try:
        import rlcard  # type: ignore[import-untyped]
    except ImportError as exc:
        raise SystemExit(
            "the engine bench needs RLCard for its UNO reference: `make install` (requirements.lock pins rlcard==1.2.0)"
        ) from exc
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
    """Printable lines: each game's steps/s and its ratio to RLCard's UNO, measured in the same interleaved rounds.

    The ratio is to UNO's environment step (the issue's reference); the bare rules step is printed beside it."""
    chosen = list(GAMES if games is None else games)
    rounds = max(1, round(seconds / SLICE))
    with one_core() as core:
        env, bare = uno_env_runner(), uno_game_runner()
        runners = [game_runner(game) for game in chosen]
        env.run(min(SLICE, seconds / 4))  # warm-up, not counted: RLCard's first games pay for first allocations
        env.steps = env.games = 0
        env.elapsed, env.rates = 0.0, []
        for _ in range(rounds):
            for runner in (env, bare, *runners):
                runner.run(seconds / rounds)
    lines = [
        f"engine speed: random playouts at the minimum seat count, {seconds:g} s each in {rounds} rounds, {core}",
        f"RLCard UNO env step (2 players): {env.rate:,.0f} steps/s (rounds from {min(env.rates):,.0f} to "
        f"{max(env.rates):,.0f})",
        f"RLCard UNO bare rules step:      {bare.rate:,.0f} steps/s",
        f"engines: {engine_build()}",
        f"{'game':<12} {'steps/s':>9} {'games':>6} {'vs UNO env':>11} {'vs UNO bare':>12}",
    ]
    for runner in runners:
        lines.append(
            f"{runner.name:<12} {runner.rate:>9,.0f} {runner.games:>6} {runner.rate / env.rate:>10.2f}x "
            f"{runner.rate / bare.rate:>11.2f}x"
        )
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
