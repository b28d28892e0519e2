"""PettingZoo's own checks on every game at every table size: `api_test` (one whole game and more) and `seed_test` on
the Box observations (no warning at all), `api_test` on the default dict observations, `parallel_api_test` on the
Parallel environments; simultaneous decisions in one parallel step."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, seed_test

from engine_core import GAMES
from envs import aec, parallel
from envs.core import IllegalIndexError
from tests.envs.conftest import CONFIGS, IDS

# PettingZoo's checks warn about dict observations (its own classic games have them too, on its list of exceptions).
DICT_WARNINGS = ("Observation is not a NumPy array", "Observation space for each agent probably should be")


@pytest.mark.parametrize(("name", "seats"), CONFIGS, ids=IDS)
def test_api_and_seed_with_box_observations_warn_of_nothing(name: str, seats: int) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(aec.env(name, seats, obs_format="box"), num_cycles=1000)
        seed_test(lambda: aec.env(name, seats, obs_format="box"), num_cycles=50)
    assert [str(w.message) for w in caught] == []


@pytest.mark.parametrize("name", [game.info.name for game in GAMES])
def test_api_with_dict_observations(name: str) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(aec.env(name), num_cycles=1000)
    assert [str(w.message) for w in caught if not str(w.message).startswith(DICT_WARNINGS)] == []


@pytest.mark.parametrize(("name", "seats"), CONFIGS, ids=IDS)
def test_parallel_api(name: str, seats: int) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parallel_api_test(parallel.parallel_env(name, seats), num_cycles=1000)
    assert [str(w.message) for w in caught] == []


def test_box_observations_are_the_dict_ones_with_the_mask_in_the_infos() -> None:
    boxed, dicted = aec.raw_env("manasurge", 3, obs_format="box"), aec.raw_env("manasurge", 3)
    boxed.reset(seed=4)
    dicted.reset(seed=4)
    for _ in range(20):
        agent = boxed.agent_selection
        observation, _, _, _, info = boxed.last()
        expected = dicted.observe(agent)
        assert isinstance(observation, np.ndarray)
        assert np.array_equal(observation, expected["observation"])
        assert np.array_equal(info["action_mask"], expected["action_mask"])
        others = [boxed.infos[other]["action_mask"] for other in boxed.agents if other != agent]
        assert all(not mask.any() for mask in others)
        action = int(np.flatnonzero(info["action_mask"])[0])
        boxed.step(action)
        dicted.step(action)
    with pytest.raises(ValueError, match="obs_format 'tensor' is not one of dict, box"):
        aec.raw_env("manasurge", 3, obs_format="tensor")


def _to_votes(env: parallel.parallel_env) -> dict[str, Any]:
    """Play R&D at 4 seats (each agent its first legal action) up to its first secret vote of every seat at once."""
    observations, _ = env.reset(seed=3)
    while len(env.waiting()) < 2:
        actions = {
            a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in observations.items() if o["action_mask"].any()
        }
        observations, *_ = env.step(actions)
    return observations


def test_a_parallel_step_applies_every_waited_for_seats_action() -> None:
    env = parallel.parallel_env("rnd", 4)
    observations = _to_votes(env)
    waiting = env.waiting()
    assert waiting == env.possible_agents  # every seat votes at once
    assert all(observations[agent]["action_mask"].any() for agent in waiting)
    table = env.table
    assert table is not None
    version = table.spec.game.header(table.state).version
    actions = {agent: int(np.flatnonzero(observations[agent]["action_mask"])[-1]) for agent in waiting}
    env.step(actions)
    assert table.spec.game.header(env.table.state).version == version + len(waiting)  # type: ignore[union-attr]


def test_a_parallel_step_with_one_illegal_action_changes_nothing() -> None:
    env = parallel.parallel_env("rnd", 4)
    observations = _to_votes(env)
    table = env.table
    assert table is not None
    before = table.spec.game.message(table.state).SerializeToString(deterministic=True)
    actions = {agent: int(np.flatnonzero(observations[agent]["action_mask"])[0]) for agent in env.waiting()}
    last = env.waiting()[-1]
    actions[last] = int(np.flatnonzero(observations[last]["action_mask"] == 0)[0])
    with pytest.raises(IllegalIndexError, match=f"is not legal for {last}"):
        env.step(actions)
    del actions[last]
    with pytest.raises(IllegalIndexError, match=f"{last} is waited for and sent no action"):
        env.step(actions)
    assert table.spec.game.message(table.state).SerializeToString(deterministic=True) == before


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
