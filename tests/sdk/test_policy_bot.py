"""The bridge back (envs.bridge): a policy `(observation, action_mask) -> index` plays on the platform through the
SDK's runner, and at every decision it sees exactly the observation and mask the environments give its seat at the
same state of the same game (the game replayed offline from its log and revealed seed)."""

from __future__ import annotations

import threading
from typing import Any

import manaforge_sdk as mf
import numpy as np
import pytest

from deploy.launcher import Stack
from engine_core.registry import find_game
from envs.bridge import policy_bot
from envs.core import Table, spec

pytestmark = [pytest.mark.parametrize("stack", ["redis"], indirect=True), pytest.mark.timeout(300)]
GAME_TIME = 120.0
# a game of plain cards, one with a catalogue of Magic cards and card ids by belt place, one with secret votes
CASES = [("manasurge", 3), ("manufactory", 2), ("rnd", 3)]


class Recorder:
    """A policy bot that records, at each decision, the view's version and config and what the policy saw."""

    def __init__(self) -> None:
        self.seen: list[tuple[int, Any, np.ndarray[Any, Any], np.ndarray[Any, Any]]] = []
        self.picks = np.random.default_rng(4)
        self.bot = policy_bot(self.policy)
        self.view: Any = None

    def policy(self, observation: np.ndarray[Any, Any], mask: np.ndarray[Any, Any]) -> int:
        self.seen.append((self.view.header.version, self.view.header.config, observation.copy(), mask.copy()))
        legal = np.flatnonzero(mask)
        return int(legal[self.picks.integers(len(legal))])

    def for_seat(self, seat: int) -> Any:
        inner = self.bot.for_seat(seat)

        def bot(view: Any, legal: list[tuple[Any, str]]) -> Any:
            self.view = view
            return inner(view, legal)

        return bot

    def __call__(self, view: Any, legal: list[tuple[Any, str]]) -> Any:
        raise TypeError("played through for_seat")


@pytest.mark.parametrize(("name", "seats"), CASES, ids=[f"{name}-{seats}" for name, seats in CASES])
def test_online_and_offline_observations_are_identical_step_by_step(stack: Stack, name: str, seats: int) -> None:
    recorder = Recorder()
    results: list[mf.Result] = []
    with mf.connect(stack.gateway_addresses[0]) as client:
        seat = client.create_table(name, seats, {i: "random" for i in range(1, seats)}, name="policy bridge (guest)")
        player = threading.Thread(
            target=lambda: results.append(client.play(seat.table_id, seat.token, recorder)), daemon=True
        )
        player.start()
        player.join(GAME_TIME)
        assert results and not results[0].failed, f"the policy bot did not finish its game: {results}"
        log = client.log(seat.table_id)
    assert len(recorder.seen) >= 3
    game = find_game(name)
    config = recorder.seen[0][1]
    offline = spec(name, seats, dict(config.options))
    state = game.new_game(config, log.seed, live=True)
    actions = iter(log.actions)
    pending = next(actions, None)
    for version, _, observation, mask in recorder.seen:
        while pending is not None and pending.version <= version:
            state, _ = game.apply(state, pending.seat, mf.unpack(pending.action))
            pending = next(actions, None)
        table = Table(offline, 0, state)
        assert game.header(state).version == version
        assert np.array_equal(observation, table.observation(seat.seat)), f"observation at version {version}"
        assert np.array_equal(mask, table.mask(seat.seat)), f"mask at version {version}"
