"""Many games of one kind stepped in one call, with batched observations and masks (self-play).

    from envs.vector import VectorGames
    games = VectorGames("manasurge", n=64, seats=3)
    observations, masks, seats = games.reset(seed=42)    # (64, size) float32, (64, actions) int8, (64,) int
    while training:
        actions = policy(observations, masks)              # one legal index per game, for the seat to act in it
        observations, masks, seats, rewards, ends = games.step(actions)

Each row is one game: the observation and mask of the seat to act in it (`seats[i]`), encoded as in the PettingZoo
environments (one shared encoder, written straight into the batch's rows). `step` applies each game's action for its
seat to act; a game that ends gives `rewards[i]` (each seat's share of the win, a row of `seats` values; zeros for
the games that go on) and `ends[i] = True`, and starts again at once with the next seed (auto-reset), so the row
then holds the new game's first decision. Seeds: `reset(seed=s)` seeds one generator from which every game's seed is
drawn. An illegal index raises `IllegalIndexError` naming the game, before any game is stepped.

The arrays returned are the batch's own buffers, overwritten by the next `step`: copy what you keep.

For one seat against the platform's bots, Gymnasium's own vector API fits: `gymnasium.vector.SyncVectorEnv` of
`envs.single.SingleAgentEnv`s batches their observations (tested).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.aec import SEED_BOUND
from envs.core import IllegalIndexError, Table, spec

Array = np.ndarray[Any, Any]


class VectorGames:
    """`n` games of `name` at `seats` (default: the minimum) with `options`, stepped together."""

    def __init__(self, name: str, n: int, seats: int | None = None, options: dict[str, str] | None = None) -> None:
        if n < 1:
            raise ValueError(f"n {n}: at least one game")
        self.spec = spec(name, seats, options)
        self.n = n
        self.observations = np.zeros((n, self.spec.observations), np.float32)
        self.masks = np.zeros((n, self.spec.actions), np.int8)
        self.seats = np.zeros(n, np.int64)
        self.rewards = np.zeros((n, self.spec.seats), np.float32)
        self.ends = np.zeros(n, bool)
        self._seeds = np.random.default_rng()
        self.tables: list[Table] = []

    def reset(self, seed: int | None = None) -> tuple[Array, Array, Array]:
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
        self.tables = [self._new() for _ in range(self.n)]
        for i in range(self.n):
            self._observe(i)
        return self.observations, self.masks, self.seats

    def _new(self) -> Table:
        return Table(self.spec, int(self._seeds.integers(SEED_BOUND)))

    def _observe(self, i: int) -> None:
        table = self.tables[i]
        seat = table.actor()
        row, mask = self.observations[i], self.masks[i]
        row.fill(0.0)
        mask.fill(0)
        if seat is None:
            return
        self.seats[i] = seat
        self.spec.encoder.into(table.view(seat), seat, row)
        mask[list(table.legal(seat))] = 1

    def step(self, actions: Any) -> tuple[Array, Array, Array, Array, Array]:
        if not self.tables:
            raise RuntimeError("call reset() before step()")
        chosen = [int(action) for action in np.asarray(actions).reshape(-1)]
        if len(chosen) != self.n:
            raise ValueError(f"{len(chosen)} actions for {self.n} games")
        for i, index in enumerate(chosen):
            if not 0 <= index < self.spec.actions or not self.masks[i, index]:
                raise IllegalIndexError(f"game {i}: action {index} is not legal for seat {self.seats[i]} now")
        self.rewards.fill(0.0)
        self.ends.fill(False)
        for i, index in enumerate(chosen):
            table = self.tables[i]
            table.step(index)
            if table.is_over() or table.is_cut_short():
                self.rewards[i] = table.shares() if table.is_over() else 1.0 / self.spec.seats
                self.ends[i] = True
                self.tables[i] = self._new()
            self._observe(i)
        return self.observations, self.masks, self.seats, self.rewards, self.ends
