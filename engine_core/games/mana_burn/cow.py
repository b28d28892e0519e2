"""The copy `apply` makes of a live state: everything is copied but the players, which stay shared with the state
they came from until the rules change one (copy on write).

Most steps change one player or none (a pass in a response window, a path chosen), and a player with its hand,
offer and creatures is about half of a whole copy. So the rules take a player they are about to change through
`own_player`, which copies it first when it is still shared; on a protobuf message (the services' path) and on a
live state that shares nothing (a new game, a `Game.copy`, a bot's world) it is the player itself.

Every change to a player or to one of its creatures in rules.py and zones.py goes through `own_player`, and keeps
the player it returns (a player read before may be a shared one that another `own_player` has since replaced).
"""

from __future__ import annotations

from typing import Any

from manaforge.v1.games.mana_burn_pb2 import ManaBurnPlayer, ManaBurnState

from engine_core.live import twin

LiveState: Any = twin(ManaBurnState)
_Players: Any = LiveState._repeated["players"]
_Rolls, _Stack, _Windows = (LiveState._repeated[name] for name in ("rolls", "stack", "windows"))
_copy_roll, _copy_item, _copy_window = _Rolls.item.copy, _Stack.item.copy, _Windows.item.copy


class SharedPlayers(_Players):  # type: ignore[misc]
    """The players of a live state that may share them with another state; `owned` has bit `seat` set once that
    player is this state's own copy."""

    owned = 0  # a class default: making one costs no Python-level __init__


def own_player(state: ManaBurnState, seat: int) -> ManaBurnPlayer:
    """`state.players[seat]`, to be changed: copied first when another state may share it."""
    players: Any = state.players
    player: Any = players[seat]
    if type(players) is SharedPlayers and not players.owned >> seat & 1:
        player = players[seat] = player.copy()
        players.owned |= 1 << seat
    return player  # type: ignore[no-any-return]


def step_copy(state: Any) -> Any:
    """A copy of the live `state` that shares its players (as `Game.copy` otherwise). From here on `state` may share
    them too, so its own changes (a bot stepping it in place) copy them first as well."""
    players = state.players
    if type(players) is SharedPlayers:
        players.owned = 0
    else:
        state.players = SharedPlayers(players)  # the same players: the state's content does not change
    n = object.__new__(LiveState)
    n._set = state._set
    n.header = state.header.copy()
    n.library = state.library[:]
    n.library_size = state.library_size
    n.graveyard = state.graveyard[:]
    n.mana_burn = state.mana_burn[:]
    n.mana_burn_size = state.mana_burn_size
    n.players = SharedPlayers(players)
    n.active = state.active
    n.direction = state.direction
    n.turns = state.turns
    n.phase = state.phase
    n.rolls = _Rolls(map(_copy_roll, state.rolls)) if state.rolls else _Rolls()
    n.stack = _Stack(map(_copy_item, state.stack)) if state.stack else _Stack()
    n.windows = _Windows(map(_copy_window, state.windows)) if state.windows else _Windows()
    n.steps = state.steps
    n.rerolls_used = state.rerolls_used
    n.main_played = state.main_played
    n.auction = state.auction[:]
    n.last_bidder = state.last_bidder
    n.decider = state.decider
    n.square = state.square
    n.count = state.count
    n.opponent = state.opponent
    n.kind = state.kind
    n.fishing_back = state.fishing_back
    n.restarts = state.restarts
    return n


_COPIED = {name for name in step_copy.__code__.co_names if name in LiveState.__slots__}
if set(LiveState.__slots__) != _COPIED:  # a field added to ManaBurnState must be copied above
    raise RuntimeError(f"step_copy misses {sorted(set(LiveState.__slots__) - _COPIED)}")
