"""One move by the engine with what is stored beside it: the state serialized deterministically, its digest, the
action described from the state before it. The table service's in-process rules and the rules service's Move run
exactly this, so a move is the same bytes wherever it ran."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message
from manaforge.v1.common_pb2 import Event

from engine_core.registry import AnyGame


@dataclass(frozen=True)
class Moved:
    state: Any  # the new state, parsed
    data: bytes  # ... and serialized deterministically, as stored
    events: list[Event]
    text: str  # the action described, from the state before it
    digest: str  # sha256 of `data`
    finished: bool


def move(game: AnyGame, state: Any, seat: int, action: Message) -> Moved:
    """`seat` plays `action` on `state` (the game's errors name a refused move)."""
    new_state, events = game.apply(state, seat, action)
    data = new_state.SerializeToString(deterministic=True)
    digest = hashlib.sha256(data).hexdigest()
    return Moved(new_state, data, events, game.describe(state, action), digest, game.is_terminal(new_state))
