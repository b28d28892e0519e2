"""The copy of a live state (engine_core.live.step_copier) and the rule each step follows: take a part before
changing it (copy on write).

A step changes few parts of a state (one design, or one ballot, the pending decision), so a copy shares the rest
with the state it came from:

- never changed once made: the faces' list (views and sampled worlds replace it with `ClearField`, never change
  it), the config, a design's filled categories and a ballot's votes (shared items: `items=` below);
- changed by few rules, which take them first: a design and a ballot (`own_design`, `own_ballot`), the rng
  (`engine_core.live.own_part`), and the results (empty until the reveal, which starts a new list with
  `ClearField`);
- replaced, never changed: the header's pending decision and outcome (`set_pending`, `pass_turn` and `finish` make
  new ones on a live state).

On a protobuf message (the services' path) the `own_` functions give the part itself. Every rule that changes a
design, a ballot, the rng, the outcome or the results goes through them (views and sampled worlds too), so no change
reaches another state: neither through `apply` nor when bots step a copy in place (`ismcts.step`). R&D's `copy` is
this copy too (views, sampled worlds and bots' trials share as `apply` does).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from manaforge.v1.common_pb2 import Pending
from manaforge.v1.games.rnd_pb2 import RndBallot, RndDesign, RndState

from engine_core.game import TURN, set_pending
from engine_core.live import Twin, owner, step_copier, twin

LiveState: Final[Any] = twin(RndState)
_Pending: Final[Any] = twin(Pending)
_new: Final = object.__new__

step_copy: Final = step_copier(
    LiveState,
    items=("designs", "ballots"),
    share=("faces", "results", "header.config", "header.rng", "header.pending", "header.outcome"),
)
own_design: Final[Callable[[RndState, int], RndDesign]] = owner(LiveState, "designs", items=("copies",))
own_ballot: Final[Callable[[RndState, int], RndBallot]] = owner(LiveState, "ballots", items=("votes",))


def pass_turn(state: Any, seat: int, prompt: str) -> None:
    """`set_pending(state, [seat], TURN, prompt)`, the most common decision, made in one step."""
    header: Any = state.header
    if not isinstance(header, Twin):
        set_pending(state, [seat], TURN, prompt)
        return
    live: Any = header  # (mypy narrows `header` to a bare Twin)
    pending = _new(_Pending)
    pending._set = True  # as set_pending's SetInParent
    pending.seats = [seat]
    pending.kind = TURN
    pending.prompt = prompt
    live.pending = pending
