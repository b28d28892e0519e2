"""What the PettingZoo and OpenSpiel wrappers share: a game's spaces at one config (`Spec`) and one game being played
(`Table`), with each seat's observation built from that seat's view alone.

A seat's observation is `Game.view(state, seat)` encoded by `engine_core.spaces.ViewEncoder`; the legal action
indices of the seat to act are located in the same view (`Spaces.index`). The full state is read for nothing else
than the seat to act, the legal actions it has and the outcome, as a player would be told them.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from manaforge.v1.common_pb2 import GameConfig

from engine_core.game import Game
from engine_core.live import SHARED, Twin
from engine_core.registry import find_game
from engine_core.rng import new_rng, shuffle
from engine_core.spaces import LIMIT, Spaces, ViewEncoder, encoder_for, is_card_field, legal_indices

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


def unforeseen(game: AnyGame, state: Any, seed: int) -> Any:
    """A copy of `state` that no seat can tell from it but whose future is drawn anew: the header rng seeded with
    `seed`, and the cards no seat can see (`Game.hidden_cards` of every seat: a deck, a face-down pile nobody saw)
    dealt again with that rng among the places of their own pile (the cards found in the same fields: a deck, one
    seat's library, never a spell deck's card into the element deck). Every card reference in the state (a field
    marked as a card id) is relabelled by one permutation of those cards, so the state stays consistent and each
    seat's view is the same (the facts of a card, a catalogue's `id`-keyed faces, stay with the card's id). The
    true state is left as it is. What it cannot undo: a seat that saw a card go back into a hidden pile (a card put
    on top of a library) knows more than its view now shows; this re-deal forgets it (a view holds what a seat
    knows now)."""
    seats = game.header(state).config.seats
    hidden = set.intersection(*(set(game.hidden_cards(state, seat)) for seat in range(seats)))
    state = game.live(state)
    state = state.copy() if isinstance(state, Twin) else game.copy(state)  # sharing nothing (Game.copy may share)
    rng = game.header(state).rng
    rng.seed, rng.counter = new_rng(seed).seed, 0
    fields = _card_fields(state.DESCRIPTOR, False)
    if 0 in hidden and _has_zero_card(state, fields):  # a card field holding 0 may mean "none": card 0 stays put
        hidden.discard(0)
    places: dict[int, set[str]] = {card: set() for card in hidden}
    _places(state, fields, "", places)
    piles: dict[frozenset[str], list[int]] = {}  # cards found in the same places (a deck, one seat's library)
    for card in sorted(hidden):
        piles.setdefault(frozenset(places[card]), []).append(card)
    mapping: dict[int, int] = {}
    for cards in piles.values():
        dealt = cards[:]
        shuffle(rng, dealt)
        mapping.update(zip(cards, dealt, strict=True))
    if any(card != dealt for card, dealt in mapping.items()):
        _relabel(state, fields, mapping)
    return state


Fields = tuple[tuple[FieldDescriptor, "Fields | None"], ...]
"""A message's fields that hold card ids: (a card-id field, None) or (a message field, its own such fields)."""


@cache
def _card_fields(descriptor: Descriptor, is_keyed: bool) -> Fields:
    """The fields of `descriptor` that hold card ids, directly or inside, but not a card message's own `id` (where
    `is_keyed`: a catalogue's face, whose id is not a place) nor anything inside a shared catalogue message."""
    found: list[tuple[FieldDescriptor, Fields | None]] = []
    for fd in descriptor.fields:
        inner_type = fd.message_type
        if fd.type == FieldDescriptor.TYPE_MESSAGE and inner_type is not None:
            if inner_type.GetOptions().map_entry or inner_type.full_name in SHARED:
                continue
            is_inner_keyed = bool(fd.is_repeated and is_card_field(fd) and "id" in inner_type.fields_by_name)
            inner = _card_fields(inner_type, is_inner_keyed)
            if inner:
                found.append((fd, inner))
        elif is_card_field(fd) and not (is_keyed and fd.name == "id"):
            found.append((fd, None))
    return tuple(found)


def _elements(message: Any, fd: FieldDescriptor) -> Any:
    value = getattr(message, fd.name)
    return value if fd.is_repeated else (value,) if message.HasField(fd.name) else ()


def _has_zero_card(message: Any, fields: Fields) -> bool:
    """Whether a singular card field without presence holds 0 (where 0 may mean "none")."""
    for fd, inner in fields:
        if inner is not None:
            if any(_has_zero_card(element, inner) for element in _elements(message, fd)):
                return True
        elif not fd.is_repeated and not fd.has_presence and getattr(message, fd.name) == 0:
            return True
    return False


def _places(message: Any, fields: Fields, path: str, found: dict[int, set[str]]) -> None:
    """Where each card of `found` lies: the paths of the fields holding it ("players.1.library")."""
    for fd, inner in fields:
        if inner is not None:
            for i, element in enumerate(_elements(message, fd)):
                _places(element, inner, f"{path}{fd.name}.{i}.", found)
        elif fd.is_repeated or not fd.has_presence or message.HasField(fd.name):
            value = getattr(message, fd.name)
            for card in value if fd.is_repeated else (value,):
                places = found.get(card)
                if places is not None:
                    places.add(path + fd.name)


def _relabel(message: Any, fields: Fields, mapping: dict[int, int]) -> None:
    for fd, inner in fields:
        if inner is not None:
            for element in _elements(message, fd):
                _relabel(element, inner, mapping)
        elif fd.is_repeated:
            value = getattr(message, fd.name)
            value[:] = [mapping.get(card, card) for card in value]
        elif not fd.has_presence or message.HasField(fd.name):
            card = getattr(message, fd.name)
            setattr(message, fd.name, mapping.get(card, card))


@dataclass(frozen=True)
class Past:
    """A step of a game: the state before it, the seat that acted and the index of its action."""

    state: Any
    seat: int
    index: int


def _fold(chain: bytes, item: bytes) -> bytes:
    return hashlib.blake2b(chain + item, digest_size=32).digest()


class Table:
    """One game played through action indices. `state` is the engine's live state; views, legal indices and
    observations are made once per version and seat."""

    def __init__(self, spec: Spec, seed: int, state: Any = None, past: list[Past] | None = None) -> None:
        self.spec = spec
        game = spec.game
        self.state = game.new_game(spec.config, seed, live=True) if state is None else game.live(state)
        self._version = -1
        self._views: dict[int, Any] = {}
        self._legal: dict[int, dict[int, Any]] = {}
        self.past = past  # where kept (OpenSpiel's information states): every earlier state, its seat and action
        self.recalled: dict[int, tuple[int, bytes]] = {}  # seat -> (the next step to fold in, the chain so far)

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

    def pending(self) -> list[int]:
        """The seats the game waits for (several at a simultaneous decision), in the game's order; none once over."""
        return self.spec.game.pending_seats(self.state)

    def legal(self, seat: int) -> dict[int, Any]:
        """The seat's legal actions by index (where several share an index, the first the rules list), in the
        rules' order; empty when the game does not wait for the seat."""
        self._fresh()
        found = self._legal.get(seat)
        if found is None:
            found = {}
            if seat in self.spec.game.pending_seats(self.state):
                legal = self.spec.game.legal_actions(self.state, seat)
                found = legal_indices(self.spec.spaces, self.view(seat), seat, legal)
            self._legal[seat] = found
        return found

    def observation(self, seat: int) -> np.ndarray[Any, np.dtype[np.float32]]:
        vector = np.zeros(self.spec.observations, dtype=np.float32)
        self.spec.encoder.into(self.view(seat), seat, vector)
        return vector

    def mask(self, seat: int) -> np.ndarray[Any, np.dtype[np.int8]]:
        mask = np.zeros(self.spec.actions, dtype=np.int8)
        mask[list(self.legal(seat))] = 1
        return mask

    def step(self, index: int, seat: int | None = None) -> None:
        """Apply the action at `index` for `seat` (default: the seat to act; any seat the game waits for)."""
        if seat is None:
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
        if self.past is not None:
            self.past.append(Past(self.state, seat, index))  # the engines never change a state they step from
        self.state, _ = self.spec.game.apply(self.state, seat, action)

    def play(self, seat: int, action: Any) -> None:
        """Apply a legal action of the rules (a bot's choice) for `seat`: where several share an index, the one
        given, not the first the rules list."""
        if self.past is not None:
            index = self.spec.spaces.index(self.view(seat), seat, action)
            self.past.append(Past(self.state, seat, index))
        self.state, _ = self.spec.game.apply(self.state, seat, action)

    def recall(self, seat: int) -> bytes:
        """The seat's perfect recall as a 32-byte hash chain: the digest of its view of the first state, then after
        each step its own action (where it acted) and its view of the new state. Two histories give the same chain
        only if the seat saw the same views in the same order and took the same actions (barring a hash collision).
        Needs the past (`past` kept from the first state)."""
        if self.past is None:
            raise ValueError("this table keeps no past: make it with past=[] at the first state")
        game, past = self.spec.game, self.past
        start, chain = self.recalled.get(seat, (0, b""))  # the next step to fold in, and the chain so far
        for step in range(start, len(past) + 1):
            if step > 0 and past[step - 1].seat == seat:
                chain = _fold(chain, b"action %d" % past[step - 1].index)
            state = past[step].state if step < len(past) else self.state
            chain = _fold(chain, game.message(game.view(state, seat)).SerializeToString(deterministic=True))
        self.recalled[seat] = (len(past) + 1, chain)
        return chain

    def own_actions(self, seat: int) -> list[int]:
        """The indices of the seat's own past actions, in order (needs the past)."""
        if self.past is None:
            raise ValueError("this table keeps no past: make it with past=[] at the first state")
        return [step.index for step in self.past if step.seat == seat]

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
