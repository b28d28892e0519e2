"""What the PettingZoo and OpenSpiel wrappers share: a game's spaces at one config (`Spec`) and one game being played
(`Table`), with each seat's observation built from that seat's view alone.

A seat's observation is `Game.view(state, seat)` encoded by `engine_core.spaces.ViewEncoder`; the legal action
indices of the seat to act are located in the same view (`Spaces.index`). The full state is read for nothing else
than the seat to act, the legal actions it has and the outcome, as a player would be told them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
from manaforge.v1.common_pb2 import GameConfig

from engine_core.game import Game
from engine_core.registry import find_game
from engine_core.spaces import LIMIT, Spaces, ViewEncoder, encoder_for

AnyGame = Game[Any, Any]


class IllegalIndexError(ValueError):
    """An action index that is not legal for the seat to act (its mask holds 0 there)."""


@dataclass(frozen=True)
class Spec:
    """A game at one config: its action space and observation encoder."""

    game: AnyGame
    config: GameConfig
    spaces: Spaces
    encoder: ViewEncoder

    @property
    def seats(self) -> int:
        return self.config.seats

    @property
    def actions(self) -> int:
        return self.spaces.actions.size

    @property
    def observations(self) -> int:
        return self.encoder.size

    @property
    def limit(self) -> float:
        """Every observation value lies within +-limit."""
        return LIMIT


def spec(name: str, seats: int | None = None, options: dict[str, str] | None = None) -> Spec:
    """The spec of game `name` with `seats` (default: its minimum) and `options` (default: its defaults)."""
    return _spec(name, seats, tuple(sorted((options or {}).items())))


@cache
def _spec(name: str, seats: int | None, options: tuple[tuple[str, str], ...]) -> Spec:
    game = find_game(name)
    config = game.check_config(GameConfig(game=name, seats=seats or game.info.min_seats, options=dict(options)))
    return Spec(game, config, game.spaces(config), encoder_for(game, config))


def shares(game: AnyGame, state: Any) -> list[float]:
    """Each seat's share of the win, as `make arena` counts it: 1/k for each of k winners; where every seat wins and
    the game scores (R&D's credits), each seat's part of the scores. Before the end: nothing."""
    seats = game.header(state).config.seats
    outcome = game.outcome(state)
    if not outcome.finished:
        return [0.0] * seats
    winners = set(outcome.winners)
    scores = list(outcome.scores)
    if len(winners) == seats and len(scores) == seats and sum(scores) > 0:
        return [score / sum(scores) for score in scores]
    if not winners:
        return [1.0 / seats] * seats
    return [1.0 / len(winners) if seat in winners else 0.0 for seat in range(seats)]


class Table:
    """One game played through action indices. `state` is the engine's live state; views, legal indices and
    observations are made once per version and seat."""

    def __init__(self, spec: Spec, seed: int, state: Any = None) -> None:
        self.spec = spec
        game = spec.game
        self.state = game.new_game(spec.config, seed, live=True) if state is None else game.live(state)
        self._version = -1
        self._views: dict[int, Any] = {}
        self._legal: dict[int, dict[int, Any]] = {}

    def _fresh(self) -> None:
        version = self.spec.game.header(self.state).version
        if version != self._version:
            self._version = version
            self._views.clear()
            self._legal.clear()

    def view(self, seat: int) -> Any:
        self._fresh()
        view = self._views.get(seat)
        if view is None:
            view = self._views[seat] = self.spec.game.view(self.state, seat)
        return view

    def actor(self) -> int | None:
        """The seat to act (the first the game lists, where several decide at once), or None once the game is over."""
        pending = self.spec.game.pending_seats(self.state)
        return pending[0] if pending else None

    def legal(self, seat: int) -> dict[int, Any]:
        """The seat's legal actions by index (where several share an index, the first the rules list), in the
        rules' order; empty when the seat is not to act."""
        self._fresh()
        found = self._legal.get(seat)
        if found is None:
            found = {}
            if seat == self.actor():
                spec = self.spec
                view = self.view(seat)
                for action in spec.game.legal_actions(self.state, seat):
                    found.setdefault(spec.spaces.index(view, seat, action), action)
            self._legal[seat] = found
        return found

    def observation(self, seat: int) -> np.ndarray[Any, np.dtype[np.float32]]:
        indices, values = self.spec.encoder.encode(self.view(seat), seat)
        vector = np.zeros(self.spec.observations, dtype=np.float32)
        vector[indices] = values
        return vector

    def mask(self, seat: int) -> np.ndarray[Any, np.dtype[np.int8]]:
        mask = np.zeros(self.spec.actions, dtype=np.int8)
        mask[list(self.legal(seat))] = 1
        return mask

    def step(self, index: int) -> None:
        seat = self.actor()
        if seat is None:
            raise IllegalIndexError("the game is over")
        action = self.legal(seat).get(index)
        if action is None:
            known = 0 <= index < self.spec.actions
            raise IllegalIndexError(
                f"action {index} is not legal for seat {seat} now (see its action mask; "
                f"{index} is {self.spec.spaces.actions.name(index) if known else 'out of range'})"
            )
        self.state, _ = self.spec.game.apply(self.state, seat, action)

    def is_over(self) -> bool:
        return self.spec.game.is_terminal(self.state)

    def is_cut_short(self) -> bool:
        """The game's action bound reached without an end (the engines' conformance tests say it never is)."""
        game = self.spec.game
        return not game.is_terminal(self.state) and game.header(self.state).version >= game.info.max_actions

    def shares(self) -> list[float]:
        return shares(self.spec.game, self.state)

    def describe(self, seat: int, index: int) -> str:
        """The action at `index` for the seat, in words (the rules' description), after its index name."""
        name = self.spec.spaces.actions.name(index)
        action = self.legal(seat).get(index)
        return name if action is None else f"{name}: {self.spec.game.describe(self.state, action)}"
