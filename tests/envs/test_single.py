"""The Gymnasium single-agent environment (envs.single): Gymnasium's own `check_env` on every game, seeds, the
platform's bots and policy pools as opponents, refused illegal indices."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from engine_core import GAMES
from envs.core import IllegalIndexError, Table, spec
from envs.single import SingleAgentEnv


@pytest.mark.parametrize("name", [game.info.name for game in GAMES])
def test_gymnasiums_check_env(name: str) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(SingleAgentEnv(name, seat=1, opponents="heuristic"), skip_render_check=True)
    assert [str(w.message) for w in caught] == []


def _episode(env: SingleAgentEnv, seed: int) -> tuple[list[Any], float]:
    observation, info = env.reset(seed=seed)
    seen, total = [observation["observation"]], 0.0
    while True:
        action = int(np.flatnonzero(info["action_mask"])[0])
        observation, reward, terminated, truncated, info = env.step(action)
        seen.append(observation["observation"])
        total += reward
        if terminated or truncated:
            return seen, total


def test_a_seed_replays_an_episode_against_the_platforms_bots() -> None:
    env = SingleAgentEnv("manasurge", seats=3, seat=2, opponents=["heuristic", "random"])
    first, reward = _episode(env, 7)
    again, reward_again = _episode(SingleAgentEnv("manasurge", seats=3, seat=2, opponents=["heuristic", "random"]), 7)
    assert len(first) == len(again) and all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert reward == reward_again and 0.0 <= reward <= 1.0
    other, _ = _episode(env, 8)
    assert len(other) != len(first) or any(not np.array_equal(a, b) for a, b in zip(first, other, strict=True))


def test_the_reward_is_the_seats_share_of_the_win() -> None:
    env = SingleAgentEnv("cardbench", seat=0, opponents="heuristic")
    rewards = {_episode(env, seed)[1] for seed in range(6)}
    assert rewards <= {0.0, 0.5, 1.0}
    table = env.table
    assert table is not None and table.is_over()
    assert _episode(env, 5)[1] == env.table.shares()[0]  # type: ignore[union-attr]


def test_a_policy_opponent_sees_its_seats_encoded_view_and_a_pool_draws_per_episode() -> None:
    calls: dict[str, int] = {"first": 0, "last": 0}

    def recorder(name: str, pick: int) -> Any:
        def policy(observation: np.ndarray[Any, Any], mask: np.ndarray[Any, Any]) -> int:
            table = env.table
            assert table is not None
            seat = table.actor()
            assert seat == 0  # the opponent's seat, never the agent's
            assert np.array_equal(observation, Table(spec("blueprints", 2), 0, table.state).observation(seat))
            assert np.array_equal(mask, table.mask(seat))
            calls[name] += 1
            return int(np.flatnonzero(mask)[pick])

        return policy

    env = SingleAgentEnv("blueprints", 2, seat=1, opponents=[recorder("first", 0), recorder("last", -1)])
    for seed in range(8):
        _episode(env, seed)
    assert calls["first"] > 0 and calls["last"] > 0


def test_an_illegal_index_is_refused_with_a_penalty_or_raised() -> None:
    env = SingleAgentEnv("manasurge", 2, seat=0, opponents="random")
    observation, info = env.reset(seed=1)
    table = env.table
    assert table is not None
    before = table.spec.game.message(table.state).SerializeToString()
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    again, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, False, False, True)
    assert np.array_equal(again["observation"], observation["observation"])
    assert table.spec.game.message(table.state).SerializeToString() == before
    strict = SingleAgentEnv("manasurge", 2, seat=0, opponents="random", illegal="raise")
    strict.reset(seed=1)
    with pytest.raises(IllegalIndexError, match=f"action {illegal} is not legal"):
        strict.step(illegal)
    with pytest.raises(ValueError, match="'grandmaster' is not one of random, heuristic, ismcts"):
        SingleAgentEnv("manasurge", 2, opponents="grandmaster")
