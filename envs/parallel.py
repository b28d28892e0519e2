"""PettingZoo's Parallel API for every registered game: every seat the game waits for acts in one `step`.

    from envs import parallel
    env = parallel.parallel_env("rnd", seats=4)
    observations, infos = env.reset(seed=42)
    while env.agents:
        actions = {
            agent: env.action_space(agent).sample(observations[agent]["action_mask"]) for agent in env.agents
        }
        observations, rewards, terminations, truncations, infos = env.step(actions)

Where a game waits for several seats at once (R&D's secret votes, MANA BURN's face-down offers: a SIMULTANEOUS
decision), one `step` takes the action of each of them; elsewhere one seat is waited for and the others' actions are
ignored (their masks are all 0, and PettingZoo's `sample` then gives 0). Every action of a waited-for seat is
checked against its mask before any is applied (an illegal one raises `IllegalIndexError`, naming the seat, and
changes nothing); then they are applied in the game's order, each seat's from its own view, so no seat's choice
depends on another's. Observations are the AEC environment's (`envs.aec`, the dict format with the mask beside the
vector), rewards come at the end (each seat's share of the win) and every agent leaves at once when the game ends.

PettingZoo's own `aec_to_parallel` does not fit these games: it needs an AEC environment whose agents each act once
per cycle in agent order (`is_parallelizable`), where ours waits for whichever seat the rules name next.
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium
import numpy as np
from pettingzoo import ParallelEnv

from envs.aec import SEED_BOUND, observation_space
from envs.core import IllegalIndexError, Spec, Table, spec


class parallel_env(ParallelEnv):  # type: ignore[misc]  # PettingZoo's name for a parallel environment
    """One game of `name` at `seats` (default: the minimum) with `options`, as a PettingZoo Parallel environment."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"]}

    def __init__(
        self,
        name: str,
        seats: int | None = None,
        options: dict[str, str] | None = None,
        render_mode: str | None = None,
    ) -> None:
        self.spec: Spec = spec(name, seats, options)
        self.metadata = {**parallel_env.metadata, "name": f"manaforge_{name}_parallel_v0"}  # type: ignore[misc]
        self.render_mode = render_mode
        self.possible_agents = [f"player_{seat}" for seat in range(self.spec.seats)]
        self.agents: list[str] = []
        self.observation_spaces = {agent: observation_space(self.spec, "dict") for agent in self.possible_agents}
        self.action_spaces = {agent: gymnasium.spaces.Discrete(self.spec.actions) for agent in self.possible_agents}
        self._seeds = np.random.default_rng()
        self.table: Table | None = None

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
        self.table = Table(self.spec, int(self._seeds.integers(SEED_BOUND)))
        self.agents = self.possible_agents[:]
        return self._observations(), {agent: {} for agent in self.agents}

    def _table(self) -> Table:
        if self.table is None:
            raise RuntimeError("call reset() before using the environment")
        return self.table

    def _observations(self) -> dict[str, Any]:
        table = self._table()
        return {
            agent: {"observation": table.observation(seat), "action_mask": table.mask(seat)}
            for seat, agent in enumerate(self.possible_agents)
        }

    def waiting(self) -> list[str]:
        """The agents whose actions the next `step` applies (the seats the game waits for)."""
        return [self.possible_agents[seat] for seat in self._table().pending()]

    def step(
        self, actions: dict[str, int]
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, Any]]:
        table = self._table()
        if not self.agents:
            raise RuntimeError("the game is over: call reset()")
        chosen: list[tuple[int, int]] = []
        for seat in table.pending():
            agent = self.possible_agents[seat]
            if actions.get(agent) is None:
                raise IllegalIndexError(f"{agent} is waited for and sent no action")
            index = int(actions[agent])
            if index not in table.legal(seat):
                raise IllegalIndexError(f"action {index} is not legal for {agent} now (see its action mask)")
            chosen.append((seat, index))
        for seat, index in chosen:
            if seat not in table.pending():  # the decision ended before this seat's turn came (none does today)
                break
            table.step(index, seat)
        over, cut = table.is_over(), table.is_cut_short()
        ended = over or cut
        agents = self.agents
        shares = table.shares() if over else [1.0 / self.spec.seats] * self.spec.seats  # cut short: even shares
        rewards = dict(zip(agents, shares, strict=True)) if ended else dict.fromkeys(agents, 0.0)
        terminations = dict.fromkeys(agents, over)
        truncations = dict.fromkeys(agents, cut)
        observations = self._observations()
        infos: dict[str, Any] = {agent: {} for agent in agents}
        if ended:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def render(self) -> str | None:
        """The game as the first waited-for seat sees it (the terminal client's text)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() without a render_mode: make the environment with render_mode='ansi'")
            return None
        table = self._table()
        seat = table.actor()
        game = self.spec.game
        return game.render(table.view(seat) if seat is not None else game.view(table.state, None), seat)

    def close(self) -> None:
        self.table = None
