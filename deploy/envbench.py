"""Environment speed beside RLCard's UNO environment: PettingZoo steps/s per registered game (and OpenSpiel's).

    python -m deploy.envbench [--seconds S] [--games a,b] [--seats min|max]

One step of ours is what a learner pays per decision through PettingZoo (`envs.aec.env`, the wrapped environment
as users get it): `env.last()` (the agent's observation vector and action mask, built from its seat's view), a
random legal action from the mask, `env.step`. RLCard's UNO environment is driven the same way, as in `make bench`
(deploy/enginebench.py): `env.step` returns the next player's encoded observation and legal actions. The OpenSpiel
column is the python game of `envs.spiel`: `legal_actions()`, a random one, `apply_action`, and the next player's
observation tensor (`make_observation(game).set_from(state, player)`, OpenSpiel's way to observe from python).
The vector column steps 64 games at once (`envs.vector.VectorGames`: batched observations and masks, a random
legal action per row), counted per game stepped. Everything runs in this one process, pinned to the idlest core,
in interleaved rounds (the method of deploy/enginebench.py), at each game's minimum seat count unless `--seats max`.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence
from typing import Any

import numpy as np

from deploy.enginebench import SLICE, Runner, engine_build, one_core, uno_env_runner
from engine_core import GAMES, Game

AnyGame = Game[Any, Any]
VECTOR_GAMES = 64  # games in the vector column
VECTOR_STEPS = 4  # batched steps per call of its runner


def pettingzoo_runner(game: AnyGame, seats: int) -> Runner:
    """Whole games through the PettingZoo environment, random legal actions (a seeded numpy generator)."""
    from envs import aec

    env = aec.env(game.info.name, seats)
    rand = np.random.default_rng(1)
    env.reset(seed=1)

    def play_one() -> int:
        env.reset()
        steps = 0
        for _ in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            env.step(int(legal[rand.integers(len(legal))]))
            steps += 1
        return steps

    return Runner(f"{game.info.name} ({seats})", play_one)


def vector_runner(game: AnyGame, seats: int, n: int = VECTOR_GAMES) -> Runner:
    """`n` games stepped together (`envs.vector.VectorGames`): a random legal action per row; a step is one game's."""
    from envs.vector import VectorGames

    games = VectorGames(game.info.name, n, seats)
    rand = np.random.default_rng(1)
    state: dict[str, Any] = {}

    def play_some() -> int:
        if not state:
            state["masks"] = games.reset(seed=1)[1]
        masks = state["masks"]
        for _ in range(VECTOR_STEPS):
            actions = [int(legal[rand.integers(len(legal))]) for legal in map(np.flatnonzero, masks)]
            masks = games.step(actions)[1]
        state["masks"] = masks
        return VECTOR_STEPS * n

    return Runner(f"{game.info.name} ({seats})", play_some)


def openspiel_runner(game: AnyGame, seats: int) -> Runner:
    """Whole games of the OpenSpiel python game: a random legal action, then the next player's observation."""
    from open_spiel.python.observation import make_observation

    from envs import spiel

    spiel_game = spiel.load(game.info.name, seats, seed=1)
    observation = make_observation(spiel_game)
    rand = random.Random(1)

    def play_one() -> int:
        state = spiel_game.new_initial_state()
        steps = 0
        while not state.is_terminal():
            observation.set_from(state, state.current_player())
            state.apply_action(rand.choice(state.legal_actions()))
            steps += 1
        return steps

    return Runner(f"{game.info.name} ({seats})", play_one)


def env_table(seconds: float, games: Sequence[AnyGame], most_seats: bool = False) -> list[str]:
    rounds = max(1, round(seconds / SLICE))
    with one_core() as core:
        uno = uno_env_runner()
        seats = [game.info.max_seats if most_seats else game.info.min_seats for game in games]
        zoo = [pettingzoo_runner(game, n) for game, n in zip(games, seats, strict=True)]
        spiel = [openspiel_runner(game, n) for game, n in zip(games, seats, strict=True)]
        vector = [vector_runner(game, n) for game, n in zip(games, seats, strict=True)]
        uno.run(min(SLICE, seconds / 4))  # warm-up, not counted
        uno.steps = uno.games = 0
        uno.elapsed, uno.rates = 0.0, []
        for _ in range(rounds):
            for runner in (uno, *zoo, *spiel, *vector):
                runner.run(seconds / rounds)
    lines = [
        f"environment speed: random legal actions, {seconds:g} s each in {rounds} rounds, {core}",
        f"RLCard UNO env step (2 players): {uno.rate:,.0f} steps/s (rounds from {min(uno.rates):,.0f} to "
        f"{max(uno.rates):,.0f})",
        f"engines: {engine_build()}",
        f"{'game (seats)':<18} {'PettingZoo/s':>12} {'vs UNO env':>11} {'OpenSpiel/s':>12} {'vs UNO env':>11} "
        f"{f'vector {VECTOR_GAMES}/s':>12} {'vs single':>10}",
    ]
    for ours, theirs, batched in zip(zoo, spiel, vector, strict=True):
        lines.append(
            f"{ours.name:<18} {ours.rate:>12,.0f} {ours.rate / uno.rate:>10.2f}x {theirs.rate:>12,.0f} "
            f"{theirs.rate / uno.rate:>10.2f}x {batched.rate:>12,.0f} {batched.rate / ours.rate:>9.2f}x"
        )
    return lines


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per game and per UNO measurement")
    parser.add_argument("--games", default="", help="comma-separated game names (default: every registered game)")
    parser.add_argument("--seats", choices=("min", "max"), default="min", help="each game's minimum or maximum seats")
    args = parser.parse_args(argv)
    names = [name for name in args.games.split(",") if name]
    chosen = [game for game in GAMES if not names or game.info.name in names]
    for line in env_table(args.seconds, chosen, args.seats == "max"):
        print(line)


if __name__ == "__main__":
    main()
