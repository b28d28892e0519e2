"""PettingZoo's own checks on every game at every table size: `api_test` (one whole game and more) and `seed_test`."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from envs import aec
from envs.core import IllegalIndexError
from tests.envs.conftest import CONFIGS, IDS

# PettingZoo's checks warn about dict observations (its own classic games have them too, on its list of exceptions).
EXPECTED_WARNINGS = ("Observation is not a NumPy array", "Observation space for each agent probably should be")


@pytest.mark.parametrize(("name", "seats"), CONFIGS, ids=IDS)
def test_api_and_seed(name: str, seats: int) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(aec.env(name, seats), num_cycles=1000)
        seed_test(lambda: aec.env(name, seats), num_cycles=50)
    unexpected = [str(w.message) for w in caught if not str(w.message).startswith(EXPECTED_WARNINGS)]
    assert unexpected == []


def test_a_whole_game_pays_each_seat_its_share_of_the_win() -> None:
    env = aec.env("cardbench")
    env.reset(seed=3)
    rewards = dict.fromkeys(env.possible_agents, 0.0)
    steps = 0
    for agent in env.agent_iter():
        observation, reward, termination, truncation, _ = env.last()
        rewards[agent] += float(reward)
        env.step(None if termination or truncation else int(np.flatnonzero(observation["action_mask"])[0]))
        steps += 1
    assert steps == 100 + 2  # 100 moves, then each agent's last step
    assert sorted(rewards.values()) in ([0.0, 1.0], [0.5, 0.5])


def test_an_illegal_index_is_refused_and_changes_nothing() -> None:
    env = aec.raw_env("manasurge", 3)
    env.reset(seed=1)
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    before = env.observe(agent)["observation"].copy()
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalIndexError, match=f"action {illegal} is not legal"):
        env.step(illegal)
    assert env.agent_selection == agent
    assert np.array_equal(env.observe(agent)["observation"], before)


def test_the_same_seed_deals_the_same_game_and_another_seed_another() -> None:
    env = aec.raw_env("blueprints", 3)
    env.reset(seed=5)
    first = env.observe(env.agent_selection)["observation"].copy()
    env.reset(seed=5)
    assert np.array_equal(env.observe(env.agent_selection)["observation"], first)
    env.reset(seed=6)
    assert not np.array_equal(env.observe(env.agent_selection)["observation"], first)


def test_python_m_envs_describes_the_spaces_of_a_game() -> None:
    from envs.__main__ import describe

    lines = describe("manasurge", 3)
    assert lines[0] == "manasurge, 3 seats: 365 actions, an observation of 1,073 values"
    assert any(line.split()[:3] == ["target", "360", "3"] for line in lines)  # seats 0-2 at 360-362
    assert any(line.split()[:3] == ["table", "618", "432"] for line in lines)  # a slot per card of the 72
