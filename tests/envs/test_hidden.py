"""Hidden information on the environments' paths: a seat's observation (PettingZoo's and OpenSpiel's) is built from
that seat's view alone. Two states that differ only in what the seat cannot see (another hand, the deck, the rng)
give it the same observation, tested as the gateway's views are: on states spread over a random playout of every
game, each seat against a world `sample_world` deals from its view (every card hidden from it dealt again)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from engine_core import GAMES, Game
from engine_core.conformance import Chooser
from engine_core.rng import new_rng
from envs import aec, spiel
from envs.core import Table, spec

STEPS = 6  # states checked per game, spread over one playout


def _states(game: Game[Any, Any], seats: int) -> list[Any]:
    table = Table(spec(game.info.name, seats), 11)
    rand = Chooser(11)
    states = []
    while not table.is_over():
        states.append(table.state)
        seat = table.actor()
        assert seat is not None
        table.step(rand.choice(sorted(table.legal(seat))))
    step = max(1, len(states) // STEPS)
    return states[::step]


@pytest.mark.parametrize("game", GAMES, ids=[g.info.name for g in GAMES])
def test_an_observation_does_not_change_with_what_its_seat_cannot_see(game: Game[Any, Any]) -> None:
    seats = game.info.min_seats
    spec_ = spec(game.info.name, seats)
    redealt = 0
    for i, state in enumerate(_states(game, seats)):
        for seat in range(seats):
            world = game.sample_world(game.view(state, seat), seat, new_rng(1000 * i + seat))
            game.header(world).rng.counter += 12345  # and another rng
            ours, theirs = Table(spec_, 0, state), Table(spec_, 0, world)
            assert np.array_equal(ours.observation(seat), theirs.observation(seat))
            assert sorted(ours.legal(seat)) == sorted(theirs.legal(seat))
            # the worlds differ where the seat cannot see: a leaky encoding (of the state, not the view) would tell
            full_ours, _ = spec_.encoder.encode(state, seat)
            full_theirs, _ = spec_.encoder.encode(world, seat)
            redealt += sorted(full_ours) != sorted(full_theirs)
    if any(game.hidden_cards(state, 0) for state in _states(game, seats)):
        assert redealt, "no world differed from the true state: the check would not catch a leak"


@pytest.mark.parametrize("name", ["manasurge", "magicka"])
def test_pettingzoo_and_openspiel_observations_are_the_seats_encoded_view(name: str) -> None:
    env = aec.raw_env(name, 3)
    env.reset(seed=2)
    table = env.table
    assert table is not None
    state = spiel.load(name, 3).new_initial_state()
    state.adopt(Table(table.spec, 0, table.spec.game.copy(table.state)))
    game = table.spec.game
    for seat, agent in enumerate(env.possible_agents):
        indices, values = table.spec.encoder.encode(game.view(table.state, seat), seat)
        expected = np.zeros(table.spec.observations, np.float32)
        expected[indices] = values
        assert np.array_equal(env.observe(agent)["observation"], expected)
        assert np.array_equal(np.asarray(state.observation_tensor(seat), np.float32), expected)
