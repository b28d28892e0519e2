"""Batched games (envs.vector): each row is the game's own observation and mask, games restart when they end, an
illegal index steps nothing; Gymnasium's SyncVectorEnv over the single-agent environment."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest

from envs.aec import SEED_BOUND
from envs.core import IllegalIndexError, Table, spec
from envs.single import SingleAgentEnv
from envs.vector import VectorGames


def _first_legal(masks: Any) -> Any:
    return np.argmax(masks, axis=1)


def test_each_row_is_its_games_observation_and_mask_and_games_restart() -> None:
    games = VectorGames("cardbench", n=3)
    observations, masks, seats = games.reset(seed=5)
    seeds = np.random.default_rng(5)
    tables = [Table(spec("cardbench"), int(seeds.integers(SEED_BOUND))) for _ in range(3)]
    ended = 0
    for _ in range(120):  # a cardbench game is 100 actions: each game ends once
        actions = _first_legal(masks)
        for i, table in enumerate(tables):
            seat = table.actor()
            assert seat is not None and seat == seats[i]
            assert np.array_equal(observations[i], table.observation(seat))
            assert np.array_equal(masks[i], table.mask(seat))
        for table, action in zip(tables, actions, strict=True):
            table.step(int(action))
        observations, masks, seats, rewards, ends = games.step(actions)
        for i in map(int, np.flatnonzero(ends)):
            assert rewards[i].sum() == pytest.approx(1.0)
            assert list(rewards[i]) == tables[i].shares()
            tables[i] = Table(spec("cardbench"), int(seeds.integers(SEED_BOUND)))
            ended += 1
        assert not rewards[~ends].any()
    assert ended == 3


def test_an_illegal_index_steps_no_game() -> None:
    games = VectorGames("manasurge", n=4, seats=3)
    observations, masks, _ = games.reset(seed=1)
    before = observations.copy()
    actions = _first_legal(masks)
    actions[2] = int(np.flatnonzero(masks[2] == 0)[0])
    with pytest.raises(IllegalIndexError, match=f"game 2: action {actions[2]} is not legal"):
        games.step(actions)
    assert np.array_equal(games.observations, before)
    with pytest.raises(ValueError, match="3 actions for 4 games"):
        games.step(actions[:3])


def test_gymnasiums_vector_api_batches_the_single_agent_env() -> None:
    envs = gymnasium.vector.SyncVectorEnv([lambda: SingleAgentEnv("manasurge", 2, opponents="heuristic")] * 4)
    observations, _ = envs.reset(seed=3)
    assert observations["observation"].shape == (4, spec("manasurge", 2).observations)
    for _ in range(5):
        actions = _first_legal(observations["action_mask"])
        observations, rewards, *_ = envs.step(actions)
        assert rewards.shape == (4,)
    envs.close()
