"""PettingZoo environments (the AEC API) for every registered game.

    from envs import aec
    env = aec.env("manasurge", seats=3)              # OrderEnforcingWrapper(raw_env(...)); options={...} too
    env.reset(seed=42)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else env.action_space(agent).sample(observation["action_mask"])
        env.step(action)

Agents are `player_0` .. `player_{n-1}`, one per seat. An observation (`obs_format="dict"`, the default, as
PettingZoo's classic card games) is a dict: `observation`, the seat's view encoded as a float32 vector
(engine_core.spaces.ViewEncoder), and `action_mask`, an int8 vector over the game's fixed action space (`Discrete`),
1 at each legal action of the agent to act (all 0 for the others). With `obs_format="box"` the
observation is the float32 vector itself (a `Box` space) and the mask is `infos[agent]["action_mask"]` (the 5th
value of `env.last()`), the form PettingZoo's `api_test` checks without warnings. The agent to
act is the seat the game waits for (the first it lists, where several seats decide at once: votes, face-down
offers). The reward comes at the end: each seat's share of the win (1/k for each of k winners; R&D's credits where
every seat wins), so the rewards of a game sum to 1. `reset(seed=s)` makes the game's seed from `s` (the same `s`,
the same game); `reset()` without a seed draws the next game from the last seeded sequence. docs/envs.md says more.
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from envs.core import Spec, Table, spec

SEED_BOUND = 1 << 63
OBS_FORMATS = ("dict", "box")


def observation_space(spec: Spec, obs_format: str) -> gymnasium.spaces.Space[Any]:
    """A seat's observation space: the vector's `Box`, inside a `Dict` beside the mask for "dict"."""
    vector = gymnasium.spaces.Box(-spec.limit, spec.limit, (spec.observations,), np.float32)
    if obs_format == "box":
        return vector
    if obs_format == "dict":
        mask = gymnasium.spaces.Box(0, 1, (spec.actions,), np.int8)
        return gymnasium.spaces.Dict({"observation": vector, "action_mask": mask})
    raise ValueError(f"obs_format {obs_format!r} is not one of {', '.join(OBS_FORMATS)}")


class raw_env(AECEnv):  # type: ignore[misc]  # PettingZoo's name for the unwrapped environment
    """One game of `name` at `seats` (default: the minimum) with `options`, as a PettingZoo AEC environment."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(
        self,
        name: str,
        seats: int | None = None,
        options: dict[str, str] | None = None,
        render_mode: str | None = None,
        obs_format: str = "dict",
    ) -> None:
        super().__init__()
        self.spec: Spec = spec(name, seats, options)
        self.obs_format = obs_format
        self.metadata = {**raw_env.metadata, "name": f"manaforge_{name}_v0"}  # type: ignore[misc]
        self.render_mode = render_mode
        self.possible_agents = [f"player_{seat}" for seat in range(self.spec.seats)]
        self.observation_spaces = {agent: observation_space(self.spec, obs_format) for agent in self.possible_agents}
        self._no_actions = np.zeros(self.spec.actions, np.int8)
        self._no_actions.flags.writeable = False
        self.action_spaces = {agent: gymnasium.spaces.Discrete(self.spec.actions) for agent in self.possible_agents}
        self._seeds = np.random.default_rng()
        self.table: Table | None = None

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
        self.table = Table(self.spec, int(self._seeds.integers(SEED_BOUND)))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self._agent_to_act()
        self._inform()

    def _inform(self) -> None:
        """With obs_format "box": each agent's mask in its info (the agent to act's legal actions, else none)."""
        if self.obs_format == "box":
            table = self._table()
            selected = self.agent_selection
            for agent, info in self.infos.items():
                info["action_mask"] = (
                    table.mask(self.possible_agents.index(agent)) if agent == selected else self._no_actions
                )

    def _table(self) -> Table:
        if self.table is None:
            raise RuntimeError("call reset() before using the environment")
        return self.table

    def _agent_to_act(self) -> str:
        seat = self._table().actor()
        return self.possible_agents[0 if seat is None else seat]

    def observe(self, agent: str) -> Any:
        table, seat = self._table(), self.possible_agents.index(agent)
        if self.obs_format == "box":
            return table.observation(seat)
        mask = table.mask(seat) if seat == table.actor() else self._no_actions.copy()
        return {"observation": table.observation(seat), "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to act: None is an action only for an agent whose game is over")
        table = self._table()
        table.step(int(action))
        if table.is_over() or table.is_cut_short():
            ended = self.terminations if table.is_over() else self.truncations
            for agent_, share in zip(self.possible_agents, table.shares(), strict=True):
                self.rewards[agent_] = share
                ended[agent_] = True
            self._accumulate_rewards()
            self.agent_selection = self.agents[0]
        else:
            self.agent_selection = self._agent_to_act()
        self._inform()

    def render(self) -> str | None:
        """The game as the seat to act sees it (the terminal client's text)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() without a render_mode: make the environment with render_mode='ansi'")
            return None
        table = self._table()
        seat = table.actor()
        game = self.spec.game
        return (
            game.render(table.view(seat), seat) if seat is not None else game.render(game.view(table.state, None), None)
        )

    def close(self) -> None:
        self.table = None


def env(
    name: str,
    seats: int | None = None,
    options: dict[str, str] | None = None,
    render_mode: str | None = None,
    obs_format: str = "dict",
) -> Any:
    """`raw_env` inside PettingZoo's OrderEnforcingWrapper, as PettingZoo's own environments come."""
    return wrappers.OrderEnforcingWrapper(raw_env(name, seats, options, render_mode, obs_format))
