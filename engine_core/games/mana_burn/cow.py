"""The copy `apply` makes of a live state: everything is copied but the players (and their creatures) and the
outcome, which stay shared with the state they came from until the rules change them (copy on write).

Most steps change one player or none (a pass in a response window, a path chosen), and a player with its hand,
offer and creatures is about half of a whole copy. So the rules take a player they are about to change through
`own_player`, which copies it first when it is still shared; on a protobuf message (the services' path) and on a
live state that shares nothing (a new game, a `Game.copy`, a bot's world) it is the player itself. A player's copy
shares its creatures, so a creature is changed (its Holy Armors) through `own_creature`, and `finish` is preceded
by `own_outcome`.

Every change to a player or to one of its creatures in rules.py and zones.py goes through these, and keeps the
player it returns (a player read before may be a shared one that another `own_player` has since replaced).
`Game.copy` (views, sampled worlds, bots' trials) still copies everything.
"""

from __future__ import annotations

from typing import Any

from manaforge.v1.games.mana_burn_pb2 import ManaBurnCreature, ManaBurnPlayer, ManaBurnState

from engine_core.live import twin

LiveState: Any = twin(ManaBurnState)
_Header: Any = LiveState._messages["header"]
_Players: Any = LiveState._repeated["players"]
_Player: Any = _Players.item
_Creatures: Any = _Player._repeated["creatures"]
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
        player = players[seat] = _copy_player(player)
        players.owned |= 1 << seat
    return player  # type: ignore[no-any-return]


def own_creature(state: ManaBurnState, seat: int, index: int) -> ManaBurnCreature:
    """`state.players[seat].creatures[index]`, to be changed: on a live state a copy takes its place first (the
    players' copies share their creatures)."""
    creatures: Any = own_player(state, seat).creatures
    creature: Any = creatures[index]
    if type(state) is LiveState:
        creature = creatures[index] = creature.copy()
    return creature  # type: ignore[no-any-return]


def _copy_player(player: Any) -> Any:
    """A copy of a live player that shares its creatures (only `own_creature` changes one)."""
    n = object.__new__(_Player)
    n._set = player._set
    n.hand = player.hand[:]
    n.hand_size = player.hand_size
    n.creatures = _Creatures(player.creatures)
    n.square = player.square
    n.path = player.path
    n.choosing = player.choosing
    n.grab = player.grab
    n.skip_turns = player.skip_turns
    n.heroes_used = player.heroes_used
    n.false_bids = player.false_bids
    n.passed = player.passed
    n.offer = player.offer[:]
    n.offer_size = player.offer_size
    n.offering = player.offering
    return n


def own_outcome(state: ManaBurnState) -> None:
    """Before `finish`: on a live state the outcome is shared with the state it came from (it is the same until the
    game ends), so it gets its own first."""
    if type(state) is LiveState:
        header: Any = state.header
        header.outcome = header.outcome.copy()


def _copy_header(header: Any) -> Any:
    """A copy of a live header that shares its config (as every copy does) and its outcome (see `own_outcome`)."""
    n = object.__new__(_Header)
    n._set = header._set
    n.config = header.config
    n.version = header.version
    n.rng = header.rng.copy()
    n.pending = header.pending.copy()
    n.outcome = header.outcome
    return n


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
    n.header = _copy_header(state.header)
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


# Every field of the proto must be copied above (a field added later too).
for _copy, _type in ((step_copy, LiveState), (_copy_header, _Header), (_copy_player, _Player)):
    _missed = set(_type.__slots__) - set(_copy.__code__.co_names)
    if _missed:
        raise RuntimeError(f"{_copy.__name__} misses {sorted(_missed)}")
