"""Copies of live Manufactory states that share the parts a step does not change, copied on write.

A step changes one player's collection (at most two of its six groups) and the pending seat, but a full copy of a
live state copies every player, group and header part (most of the copy). So a live state's copy (`shared_copy`)
shares with the state it was made from its catalogue list, its player objects and its header's rng, pending
decision and outcome, and the rules never change a shared part of a live state in place:

- a player is taken with `own_player` (a new player object holding the same groups) and a group with `own_group`
  (a new group with its own card list), then changed;
- the header's pending decision and outcome are replaced by new ones (`pass_turn`, `set_pending`, `finish`), and
  its rng is cleared (`ClearField`) before it is set again;
- the catalogue list is replaced, not changed, in a view (`_redact`) and a sampled world; a catalogue list that
  never changes keeps its cards' facts with it (`facts_table`).

Every copy made before stays as it was: `Game.apply` still never changes its input, and a bot's in-place step
(`ismcts.step` on a copy) changes nothing it shares. On a protobuf message (the services' path) `own_player` and
`own_group` give the part itself (`Game.copy` copies the whole message).
"""

from __future__ import annotations

from typing import Any, Final

from manaforge.v1.common_pb2 import Header, Pending
from manaforge.v1.games.manufactory_pb2 import ManufactoryGroup, ManufactoryPlayer, ManufactoryState

from engine_core.game import TURN, set_pending
from engine_core.live import Twin, twin

LiveState: Final[Any] = twin(ManufactoryState)
LivePlayer: Final[Any] = twin(ManufactoryPlayer)
LiveGroup: Final[Any] = twin(ManufactoryGroup)
LiveHeader: Final[Any] = twin(Header)
LivePending: Final[Any] = twin(Pending)
_new: Final = object.__new__

# The copies below name every field: a field added to the schema must be added to them.
_FIELDS: Final = {
    LiveState: ("header", "catalogue", "deck", "deck_size", "belt", "players", "discards", "first_seat"),
    LivePlayer: ("groups", "points"),
    LiveHeader: ("config", "version", "rng", "pending", "outcome"),
    LivePending: ("seats", "kind", "prompt"),
}
for _type, _names in _FIELDS.items():
    if set(_type.__slots__) != set(_names):
        raise TypeError(f"{_type.__name__} has the fields {_type.__slots__}: update manufactory/sharing.py")


def shared_copy(state: Any) -> Any:
    """A copy of a live state sharing its players and header parts with it (never changed in place)."""
    new = _new(LiveState)
    new._set = state._set
    header = state.header
    new.header = new_header = _new(LiveHeader)
    new_header._set = header._set
    new_header.config = header.config
    new_header.version = header.version
    new_header.rng = header.rng
    new_header.pending = header.pending
    new_header.outcome = header.outcome
    new.catalogue = state.catalogue
    new.deck = state.deck[:]
    new.deck_size = state.deck_size
    new.belt = state.belt[:]
    new.players = type(state.players)(state.players)
    new.discards = state.discards[:]
    new.first_seat = state.first_seat
    return new


def own_player(state: ManufactoryState, seat: int) -> ManufactoryPlayer:
    """The seat's player, to be changed: on a live state a new player object (its groups still shared)."""
    player = state.players[seat]
    if not isinstance(player, Twin):
        return player
    owned = _new(LivePlayer)
    owned._set = player._set
    owned.groups = type(player.groups)(player.groups)
    owned.points = player.points
    state.players[seat] = owned
    return owned


def own_group(player: ManufactoryPlayer, index: int) -> ManufactoryGroup:
    """A group of a player taken with `own_player`, to be changed: on a live state a copy with its own cards."""
    group = player.groups[index]
    if not isinstance(group, Twin):
        return group
    owned: ManufactoryGroup = group.copy()
    player.groups[index] = owned
    return owned


def pass_turn(state: ManufactoryState, seat: int, prompt: str) -> None:
    """`set_pending(state, [seat], prompt=prompt)`; on a live state into a new pending decision (the old one may be
    shared), made in one step."""
    header = state.header
    if isinstance(header, Twin):
        header.pending = pending = _new(LivePending)
        pending._set = True  # as set_pending's SetInParent
        pending.seats = [seat]
        pending.kind = TURN
        pending.prompt = prompt
    else:
        set_pending(state, [seat], prompt=prompt)
