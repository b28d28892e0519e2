"""The copy `apply` makes of a live state (engine_core.live.step_copier): everything is copied but the players (and
their creatures) and the header's pending decision and outcome, which stay shared with the state they came from
until the rules change them (copy on write).

Most steps change one player or none (a pass in a response window, a path chosen), and a player with its hand,
offer and creatures is about half of a whole copy. So the rules take a player they are about to change through
`own_player`, which copies it first when it is still shared; on a protobuf message (the services' path) and on a
live state that shares nothing (a new game, a `Game.copy`, a bot's world) it is the player itself. A player's copy
shares its creatures in turn, so a creature is changed (its Holy Armors) through `own_creature`. `set_pending` and
`finish` replace a live state's pending decision and outcome, never change them.

Every change to a player or to one of its creatures in rules.py and zones.py goes through these, and keeps the
player it returns (a player read before may be a shared one that another `own_player` has since replaced).
`Game.copy` (views, sampled worlds, bots' trials) still copies everything.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from manaforge.v1.games.mana_burn_pb2 import ManaBurnCreature, ManaBurnPlayer, ManaBurnState

from engine_core.live import owner, step_copier, twin

LiveState: Final[Any] = twin(ManaBurnState)
_Player: Final[Any] = LiveState._repeated["players"].item

step_copy: Final = step_copier(LiveState, items=("players",), share=("header.pending", "header.outcome"))
own_player: Final[Callable[[ManaBurnState, int], ManaBurnPlayer]] = owner(LiveState, "players", items=("creatures",))
_own_creature: Final[Callable[[ManaBurnPlayer, int], ManaBurnCreature]] = owner(_Player, "creatures")


def own_creature(state: ManaBurnState, seat: int, index: int) -> ManaBurnCreature:
    """`state.players[seat].creatures[index]`, to be changed: copied first when another state may share it."""
    return _own_creature(own_player(state, seat), index)
