"""The copy `apply` makes of a live state (engine_core.live.step_copier): it shares the catalogue, the players (each
with its constructions) and the header's parts with the state it came from; a step changes one hand. So every rule
takes a player with `own_player` before changing it, and the rng with `engine_core.live.own_part` before a shuffle.
On a protobuf message (the services' path) and on a live state that shares nothing `own_player` gives the player.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from manaforge.v1.games.blueprints_pb2 import BlueprintsPlayer, BlueprintsState

from engine_core.live import owner, step_copier, twin

LiveState: Final = twin(BlueprintsState)
step_copy: Final = step_copier(
    LiveState, items=("players",), share=("catalogue", "header.rng", "header.pending", "header.outcome")
)
own_player: Final[Callable[[BlueprintsState, int], BlueprintsPlayer]] = owner(
    LiveState, "players", items=("constructions",)
)
