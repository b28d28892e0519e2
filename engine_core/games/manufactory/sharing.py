"""The copy of a live state (engine_core.live.step_copier) that shares the parts a step does not change, copied on
write.

A step changes one player's collection (at most two of its six groups) and the pending seat, but a full copy of a
live state copies every player, group and header part (most of the copy). So a live state's copy shares with the
state it was made from its catalogue list, its players and its header's config, rng, pending decision and outcome,
and the rules never change a shared part of a live state in place:

- a player is taken with `own_player` (a copy holding the same groups) and a group with `own_group` (a copy with
  its own card list), then changed;
- the header's pending decision and outcome are replaced by new ones (`pass_turn`, `set_pending`, `finish`), and
  its rng is cleared (`ClearField`) before it is set again;
- the catalogue list is replaced, not changed, in a view (`_redact`) and a sampled world; a catalogue list that
  never changes keeps its cards' facts with it (`facts_table`).

Every copy made before stays as it was: `Game.apply` still never changes its input, and a bot's in-place step
(`ismcts.step` on a copy) changes nothing it shares. On a protobuf message (the services' path) `own_player` and
`own_group` give the part itself. Manufactory's `copy` is this copy too (views, sampled worlds and bots' trials
share as `apply` does).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from manaforge.v1.common_pb2 import Pending
from manaforge.v1.games.manufactory_pb2 import ManufactoryGroup, ManufactoryPlayer, ManufactoryState

from engine_core.game import TURN, set_pending
from engine_core.live import Twin, owner, step_copier, twin

LiveState: Final[Any] = twin(ManufactoryState)
LivePlayer: Final[Any] = twin(ManufactoryPlayer)
LiveGroup: Final[Any] = twin(ManufactoryGroup)
LivePending: Final[Any] = twin(Pending)
_new: Final = object.__new__

step_copy: Final = step_copier(
    LiveState,
    items=("players",),
    share=("catalogue", "header.config", "header.rng", "header.pending", "header.outcome"),
)
own_player: Final[Callable[[ManufactoryState, int], ManufactoryPlayer]] = owner(LiveState, "players", items=("groups",))
own_group: Final[Callable[[ManufactoryPlayer, int], ManufactoryGroup]] = owner(LivePlayer, "groups")


def pass_turn(state: ManufactoryState, seat: int, prompt: str) -> None:
    """`set_pending(state, [seat], prompt=prompt)`; on a live state into a new pending decision (the old one may be
    shared), made in one step."""
    header = state.header
    if isinstance(header, Twin):
        live: Any = header  # (mypy narrows `header` to a bare Twin)
        live.pending = pending = _new(LivePending)
        pending._set = True  # as set_pending's SetInParent
        pending.seats = [seat]
        pending.kind = TURN
        pending.prompt = prompt
    else:
        set_pending(state, [seat], prompt=prompt)
