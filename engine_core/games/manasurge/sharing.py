"""The copy `apply` makes of a live state (engine_core.live.step_copier): it shares the players, the cards on the table
and the header's rng, pending decision and outcome with the state it came from; most steps change one hand. So every
rule takes a player (`own_player`) or a card on the table (`own_played`) before changing it, and keeps the one it
gets (one read before may be a shared one since replaced); the rng is taken with `engine_core.live.own_part` before a
shuffle. On a protobuf message (the services' path) and on a live state that shares nothing they give the part.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from manaforge.v1.games.manasurge_pb2 import ManasurgePlayed, ManasurgePlayer, ManasurgeState

from engine_core.live import owner, step_copier, twin

LiveState: Final = twin(ManasurgeState)
step_copy: Final = step_copier(
    LiveState, items=("players", "table"), share=("header.rng", "header.pending", "header.outcome")
)
own_player: Final[Callable[[ManasurgeState, int], ManasurgePlayer]] = owner(LiveState, "players")
own_played: Final[Callable[[ManasurgeState, int], ManasurgePlayed]] = owner(LiveState, "table")
