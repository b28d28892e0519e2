"""The copy `apply` makes of a live state (engine_core.live.step_copier): it shares the wizards, the spell in flight
and the header's rng, pending decision and outcome with the state it came from until the rules change them (copy
on write).

Most steps change one wizard (a trade, a draw, a cast pays from one hand) and a wizard with its hand is a fifth of a
whole copy at two seats, more at six. So the rules take a wizard they are about to change through `own_wizard`,
which copies it first when it is still shared; on a protobuf message (the services' path) and on a live state that
shares nothing (a new game, a `Game.copy`, a bot's world) it is the wizard itself. A draw from the rng goes through
`own_rng`; a new pending decision (`put_pending`, which leaves an unchanged one alone; `game.set_pending` and
`game.finish` replace a live state's pending decision and outcome) and a spell put in flight (`put_cast`) replace
the old ones instead of changing them.

Every change to a wizard in __init__.py and spells.py goes through `own_wizard` (spells.body owns what it finds),
and keeps the wizard it returns (a wizard read before may be a shared one that another `own_wizard` has since
replaced). The decks and discard piles are shared the same way (`PILES`, a third of the copy's cost when they were
copied each step): every change to one takes it with `own_pile` first. `Game.copy` (views, sampled worlds, bots'
trials) still copies everything.
"""

from __future__ import annotations

from collections.abc import Callable, MutableSequence
from typing import Any, Final

from manaforge.v1.common_pb2 import DecisionKind, Rng
from manaforge.v1.games.magicka_pb2 import MagickaCast, MagickaState, MagickaWizard

from engine_core.game import set_pending
from engine_core.live import SharedList, own_part, owner, step_copier, twin

LiveState: Final[Any] = twin(MagickaState)
PILES: Final = ("element_deck", "spell_deck", "mayhem_deck", "element_discard", "spell_discard", "mayhem_discard")
step_copy: Final = step_copier(
    LiveState, items=("wizards",), share=("header.rng", "header.pending", "header.outcome", "cast"), lists=PILES
)
own_wizard: Final[Callable[[MagickaState, int], MagickaWizard]] = owner(LiveState, "wizards")


def own_rng(state: MagickaState) -> Rng:
    """`state.header.rng`, to draw from (a step seldom draws: a reshuffle, a Mayhem Muster, a ricochet)."""
    found: Rng = own_part(state, "rng")
    return found


def own_pile(state: MagickaState, name: str) -> MutableSequence[int]:
    """The deck or discard pile `name` (one of `PILES`), to be changed: its own copy first when it is a step copy's
    shared list (`engine_core.live.SharedList`); a protobuf message's field and a list the state owns as they are."""
    found: Any = getattr(state, name)
    if type(found) is SharedList and found.shared:
        found = SharedList(found)
        found.shared = False
        setattr(state, name, found)
    pile: MutableSequence[int] = found
    return pile


def put_pending(state: MagickaState, seats: list[int], kind: DecisionKind.ValueType, prompt: str) -> None:
    """`set_pending`, but nothing is written when the decision stays the same (it is present then, as `set_pending`
    would leave it)."""
    pending = state.header.pending
    if pending.kind == kind and pending.prompt == prompt and pending.seats == seats:
        return
    set_pending(state, seats, kind, prompt)


def put_cast(state: MagickaState, cast: MagickaCast) -> None:
    """Put `cast` (made for this step) in flight. A live state takes it as its own, set in its parent as `CopyFrom`
    would: its old cast may be shared with another state."""
    if type(state) is LiveState:
        cast.SetInParent()
        live: Any = state
        live.cast = cast
    else:
        state.cast.CopyFrom(cast)
