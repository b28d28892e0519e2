"""The copy `apply` makes of a live state: everything is copied but the wizards, the header's rng, pending decision
and outcome and the spell in flight, which stay shared with the state they came from until the rules change them
(copy on write).

Most steps change one wizard (a trade, a draw, a cast pays from one hand) and a wizard with its hand is a fifth of a
whole copy at two seats, more at six. So the rules take a wizard they are about to change through `own_wizard`,
which copies it first when it is still shared; on a protobuf message (the services' path) and on a live state that
shares nothing (a new game, a `Game.copy`, a bot's world) it is the wizard itself. `finish` is preceded by
`own_outcome`, a draw from the rng goes through `own_rng`, and a new pending decision (`put_pending`, which also
leaves an unchanged one alone) and a spell put in flight (`put_cast`) replace the old ones instead of changing them.

Every change to a wizard in __init__.py and spells.py goes through `own_wizard` (spells.body owns what it finds),
and keeps the wizard it returns (a wizard read before may be a shared one that another `own_wizard` has since
replaced). `Game.copy` (views, sampled worlds, bots' trials) still copies everything.
"""

from __future__ import annotations

from typing import Any

from manaforge.v1.common_pb2 import DecisionKind, Rng
from manaforge.v1.games.magicka_pb2 import MagickaCast, MagickaState, MagickaWizard

from engine_core.game import set_pending
from engine_core.live import twin

LiveState: Any = twin(MagickaState)
_Header: Any = LiveState._messages["header"]
_Wizards: Any = LiveState._repeated["wizards"]
_Creatures: Any = LiveState._repeated["creatures"]
_Beams: Any = LiveState._repeated["beams"]
_copy_creature, _copy_beam = _Creatures.item.copy, _Beams.item.copy


class SharedWizards(_Wizards):  # type: ignore[misc]
    """The wizards of a live state that may share them with another state; `owned` has bit `seat` set once that
    wizard is this state's own copy."""

    owned = 0  # a class default: making one costs no Python-level __init__


SEATS_OF: tuple[tuple[int, ...], ...] = tuple(  # the seats whose bits are set in `owned`, by its value
    tuple(seat for seat in range(8) if bits >> seat & 1) for bits in range(1 << 8)
)


def own_wizard(state: MagickaState, seat: int) -> MagickaWizard:
    """`state.wizards[seat]`, to be changed: copied first when another state may share it."""
    wizards: Any = state.wizards
    wizard: Any = wizards[seat]
    if type(wizards) is SharedWizards and not wizards.owned >> seat & 1:
        wizard = wizards[seat] = wizard.copy()
        wizards.owned |= 1 << seat
    return wizard  # type: ignore[no-any-return]


def own_outcome(state: MagickaState) -> None:
    """Before `finish`: on a live state the outcome and the pending decision are shared with the state it came from
    (the outcome is the same until the game ends), so they get their own first."""
    if type(state) is LiveState:
        header: Any = state.header
        header.outcome = header.outcome.copy()
        header.pending = header.pending.copy()


def own_rng(state: MagickaState) -> Rng:
    """`state.header.rng`, to draw from: on a live state it may be shared with the state it came from, so it is
    copied first (a step seldom draws: a reshuffle, a Mayhem Muster, a ricochet)."""
    header: Any = state.header
    if type(state) is LiveState:
        header.rng = header.rng.copy()
    return header.rng  # type: ignore[no-any-return]


def put_pending(state: MagickaState, seats: list[int], kind: DecisionKind.ValueType, prompt: str) -> None:
    """`set_pending` with some seats: nothing is written when the decision stays the same (it is present then, as
    `set_pending` would leave it), and a live state gets a new pending decision, its old one may be shared."""
    header: Any = state.header
    pending = header.pending
    if pending.kind == kind and pending.prompt == prompt and pending.seats == seats:
        return
    if type(state) is LiveState:
        header.pending = pending.copy()
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


def _copy_header(header: Any) -> Any:
    """A copy of a live header that shares its config (as every copy does) and its outcome (see `own_outcome`)."""
    n = object.__new__(_Header)
    n._set = header._set
    n.config = header.config
    n.version = header.version
    n.rng = header.rng  # copied before a draw (`own_rng`)
    n.pending = header.pending  # replaced, never changed, on a live state (`put_pending`, `own_outcome`)
    n.outcome = header.outcome
    return n


def step_copy(state: Any) -> Any:
    """A copy of the live `state` that shares its wizards and its cast (as `Game.copy` otherwise). From here on
    `state` may share them too, so its own changes (a bot stepping it in place) copy them first as well."""
    wizards = state.wizards
    if type(wizards) is SharedWizards:
        wizards.owned = 0
    else:
        state.wizards = SharedWizards(wizards)  # the same wizards: the state's content does not change
    n = object.__new__(LiveState)
    n._set = state._set
    n.header = _copy_header(state.header)
    n.wizards = SharedWizards(wizards)
    n.creatures = _Creatures(map(_copy_creature, state.creatures)) if state.creatures else _Creatures()
    n.beams = _Beams(map(_copy_beam, state.beams)) if state.beams else _Beams()
    n.element_deck = state.element_deck[:]
    n.spell_deck = state.spell_deck[:]
    n.mayhem_deck = state.mayhem_deck[:]
    n.element_discard = state.element_discard[:]
    n.spell_discard = state.spell_discard[:]
    n.mayhem_discard = state.mayhem_discard[:]
    n.element_deck_size = state.element_deck_size
    n.spell_deck_size = state.spell_deck_size
    n.mayhem_deck_size = state.mayhem_deck_size
    n.turn = state.turn
    n.turns_taken = state.turns_taken
    n.phase = state.phase
    n.exchange_open = state.exchange_open
    n.owed_elements = state.owed_elements
    n.owed_spells = state.owed_spells
    n.fire_spells = state.fire_spells
    n.next_creature = state.next_creature
    n.cast = state.cast  # never changed in place on a live state (`put_cast`, `ClearField`)
    return n


# Every field of the proto must be copied above (a field added later too).
for _copy, _type in ((step_copy, LiveState), (_copy_header, _Header)):
    _missed = set(_type.__slots__) - set(_copy.__code__.co_names)
    if _missed:
        raise RuntimeError(f"{_copy.__name__} misses {sorted(_missed)}")
