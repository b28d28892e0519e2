"""A Gymnasium environment per game: one seat for the agent, the other seats played by the platform's own bots.

    from envs.single import SingleAgentEnv
    env = SingleAgentEnv("manasurge", seats=2, seat=0, opponents="heuristic")
    observation, info = env.reset(seed=42)
    while True:
        action = env.action_space.sample(observation["action_mask"])  # or your policy
        observation, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break

The observation is the agent's seat's, encoded as in the PettingZoo environments (`envs.aec`: `obs_format="dict"`,
the default, the vector and the mask; `"box"`, the vector alone and the mask in `info["action_mask"]`); the mask is
also `env.action_masks()` (the name sb3-contrib's MaskablePPO calls). The reward comes at the end: the seat's share
of the win (0 to 1).

`opponents`: a bot level of `engine_core.bots` ("random", "heuristic", "ismcts": the platform's own players, each
seeing only its seat's view), a policy `(observation, action_mask) -> action index` seeing the same encoding as the
agent (a trained policy, `manaforge_sdk.policy`'s signature), or a list of these: a pool, from which each other seat
draws one per episode. Every draw (the deal, the pool, the bots' seeds) comes from the generator `reset(seed=...)`
seeds: the same seed, the same episode for the same actions.

An index the mask does not allow: Gymnasium's contract is that every element of the action space may be sent (its
`check_env` sends unmasked samples), so by default (`illegal="refuse"`) it changes nothing in the game, is answered
with `illegal_reward` (-1) and `info["illegal_action"] = True`, and the agent is asked again; `illegal="raise"` raises
`envs.core.IllegalIndexError` instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np

from engine_core.bots import LEVELS, check_level, choose_action
from envs.aec import SEED_BOUND, observation_space
from envs.core import IllegalIndexError, Spec, Table, spec

PolicyFunction = Callable[[np.ndarray[Any, Any], np.ndarray[Any, Any]], int]
"""(observation vector, action mask) -> a legal action index."""
Opponent = str | PolicyFunction
ILLEGAL_CHOICES = ("refuse", "raise")


class SingleAgentEnv(gymnasium.Env[Any, np.int64]):
    """Game `name` at `seats` (default: the minimum) with `options`; the agent plays `seat`, `opponents` the rest."""

    metadata = {"render_modes": ["ansi"]}  # noqa: RUF012 (gymnasium's attribute)

    def __init__(
        self,
        name: str,
        seats: int | None = None,
        seat: int = 0,
        opponents: Opponent | Sequence[Opponent] = "heuristic",
        seed: int | None = None,
        options: dict[str, str] | None = None,
        obs_format: str = "dict",
        illegal: str = "refuse",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
    ) -> None:
        self.game_spec: Spec = spec(name, seats, options)
        if not 0 <= seat < self.game_spec.seats:
            raise ValueError(
                f"seat {seat} is not a seat of a {self.game_spec.seats}-seat game (0..{self.game_spec.seats - 1})"
            )
        if illegal not in ILLEGAL_CHOICES:
            raise ValueError(f"illegal {illegal!r} is not one of {', '.join(ILLEGAL_CHOICES)}")
        pool = [opponents] if isinstance(opponents, str) or callable(opponents) else list(opponents)
        if not pool:
            raise ValueError("opponents: an empty pool")
        for opponent in pool:
            if isinstance(opponent, str):
                check_level(opponent)
            elif not callable(opponent):
                raise ValueError(f"opponent {opponent!r} is neither a bot level ({', '.join(LEVELS)}) nor a policy")
        self.pool: list[Opponent] = pool
        self.seat = seat
        self.obs_format = obs_format
        self.illegal = illegal
        self.illegal_reward = illegal_reward
        self.render_mode = render_mode
        self.observation_space = observation_space(self.game_spec, obs_format)
        self.action_space = gymnasium.spaces.Discrete(self.game_spec.actions)
        self._draws = np.random.default_rng(seed)
        self.table: Table | None = None
        self.opponents: dict[int, Opponent] = {}

    def _table(self) -> Table:
        if self.table is None:
            raise RuntimeError("call reset() before using the environment")
        return self.table

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._draws = np.random.default_rng(seed)
        self.table = Table(self.game_spec, int(self._draws.integers(SEED_BOUND)))
        others = [other for other in range(self.game_spec.seats) if other != self.seat]
        self.opponents = {other: self.pool[int(self._draws.integers(len(self.pool)))] for other in others}
        self._play_others()
        return self._observation(), self._info()

    def _play_others(self) -> None:
        """Play the other seats until the agent's seat is to act or the game is over."""
        table = self._table()
        game = self.game_spec.game
        while True:
            seat = table.actor()
            if seat is None or seat == self.seat or table.is_cut_short():
                return
            opponent = self.opponents[seat]
            if isinstance(opponent, str):
                seed = int(self._draws.integers(SEED_BOUND))
                table.play(seat, choose_action(game, table.state, seat, opponent, seed))
            else:
                table.step(int(opponent(table.observation(seat), table.mask(seat))), seat)

    def action_masks(self) -> np.ndarray[Any, np.dtype[np.bool_]]:
        """The agent's legal actions as booleans (all False once the game is over)."""
        return self._table().mask(self.seat).astype(bool)

    def _observation(self) -> Any:
        table = self._table()
        vector = table.observation(self.seat)
        if self.obs_format == "box":
            return vector
        return {"observation": vector, "action_mask": table.mask(self.seat)}

    def _info(self, illegal: bool = False) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": self._table().mask(self.seat)}
        if illegal:
            info["illegal_action"] = True
        return info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        table = self._table()
        if table.actor() is None or table.is_cut_short():
            raise RuntimeError("the episode is over: call reset()")
        index = int(action)
        if index not in table.legal(self.seat):
            if self.illegal == "raise":
                table.step(index, self.seat)  # raises IllegalIndexError naming the index
                raise IllegalIndexError(f"action {index} is not legal")  # pragma: no cover (step raised)
            return self._observation(), self.illegal_reward, False, False, self._info(illegal=True)
        table.step(index, self.seat)
        self._play_others()
        over, cut = table.is_over(), table.is_cut_short()
        reward = 0.0
        if over:
            reward = table.shares()[self.seat]
        elif cut:
            reward = 1.0 / self.game_spec.seats
        return self._observation(), reward, over, cut, self._info()

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() without a render_mode: make the environment with render_mode='ansi'")
            return None
        table = self._table()
        return self.game_spec.game.render(table.view(self.seat), self.seat)
