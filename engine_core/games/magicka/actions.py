"""Magicka's actions: the fields each may set, each message read once (`Move`), and the legal actions of a seat,
built from prebuilt, shared messages (callers never change one) and remembered per hand; the action space."""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import Any, Final, NamedTuple, cast

from manaforge.v1.common_pb2 import GameConfig
from manaforge.v1.games.magicka_pb2 import (
    MagickaAction,
    MagickaActionType,
    MagickaPayment,
    MagickaPhase,
    MagickaState,
    MagickaTarget,
    MagickaWizard,
)

from engine_core.errors import MalformedActionError
from engine_core.game import options
from engine_core.games.magicka.cards import (
    ANSWER,
    ATTACK,
    CAST_SNAP,
    CAST_SPELL,
    CATALOGUE,
    DISCARD,
    DRAW_REPLACEMENTS,
    ELEMENT_BY_KIND,
    ELEMENTS,
    END_TURN,
    OPPOSES,
    PASS,
    REPAIR,
    SHIELD,
    SPELL_BY_KIND,
    TRADE_ELEMENT,
    TRADE_ELEMENTS_FOR_SPELL,
    TRADE_SPELL,
    TRADE_SPELL_FOR_ELEMENTS,
    Element,
    SpellCard,
    SpellType,
)
from engine_core.games.magicka.payment import (
    KINDS_OF,
    MASKS,
    Needs,
    Payment,
    mask,
    packed_payments,
    payments,
    remember,
    value,
)
from engine_core.games.magicka.spells import (
    SNAP_EXTRA,
)
from engine_core.spaces import ActionSpace, Spaces

TRADES: Final = (TRADE_SPELL_FOR_ELEMENTS, TRADE_ELEMENTS_FOR_SPELL, TRADE_ELEMENT, TRADE_SPELL)
MAIN: Final = MagickaPhase.MAGICKA_PHASE_MAIN
DISCARDING: Final = MagickaPhase.MAGICKA_PHASE_DISCARD
RESPONDING: Final = MagickaPhase.MAGICKA_PHASE_RESPONSE
ACTION_NAME: Final = MagickaAction.DESCRIPTOR.full_name
_STEP_ACTIONS: Final = {RESPONDING: (ANSWER, PASS), DISCARDING: (DISCARD,)}  # the only actions of these steps

_KIND_OF: Final = CATALOGUE.kind_of
_KIND: Final[tuple[int, ...]] = tuple(_KIND_OF.get(card, -1) for card in range(max(_KIND_OF) + 1))  # by card id
_CACHE: Final = 1 << 12
MAX_SEATS: Final = 6

# The fields each action type may set: anything else makes the action malformed.
FIELDS: Final[dict[int, frozenset[str]]] = {
    **{t: frozenset({"type", "kinds"}) for t in (*TRADES, DISCARD)},
    DRAW_REPLACEMENTS: frozenset({"type"}),
    END_TURN: frozenset({"type"}),
    PASS: frozenset({"type"}),
    CAST_SPELL: frozenset({"type", "spell", "payment", "target", "extra"}),
    CAST_SNAP: frozenset({"type", "element", "payment", "target", "extra"}),
    REPAIR: frozenset({"type", "payment", "target", "extra"}),
    ATTACK: frozenset({"type", "creature", "target"}),
    ANSWER: frozenset({"type", "element", "payment"}),
}


# ----- small helpers ------------------------------------------------------------------------------------------------


def element_kinds(state: MagickaState, seat: int) -> Counter[int]:
    return Counter(map(_KIND_OF.__getitem__, state.wizards[seat].elements[:]))


def spell_kinds(state: MagickaState, seat: int) -> Counter[int]:
    return Counter(map(_KIND_OF.__getitem__, state.wizards[seat].spells[:]))


def _payment_of(action: MagickaAction) -> Payment:
    return tuple(sorted((p.kind, p.element) for p in action.payment))


class Move(NamedTuple):
    """An action's fields, read once from its message (`_move`)."""

    type: int
    kinds: tuple[int, ...]
    spell: int
    element: Element
    payment: Payment  # sorted
    extra: int
    creature: int
    target: tuple[int, int]  # (seat, creature number)


def _check_fields(action: MagickaAction) -> None:
    allowed = FIELDS.get(action.type)
    if allowed is None:
        raise MalformedActionError("action type", "choose an action type")
    extra = {fd.name for fd, _ in action.ListFields()} - allowed
    if extra:
        raise MalformedActionError("action fields", f"this action does not take {', '.join(sorted(extra))}")


_MOVES: Final[dict[bytes, Move]] = {}
_MOVES_LIMIT: Final = 1 << 15  # moves kept before the table starts again


# Every action message of the legal action tables, by index, made once and never changed (`_shared`): the tables
# hold these indices, and a legal action list becomes messages once, as it is returned (`_listed`). Tuples of ints
# are left alone by the cyclic GC (it untracks them the first time it sees them), where tuples of messages are
# walked by every full collection, and in random play the tables grow by tens of thousands of them a second, each
# growth of a quarter of what the process holds bringing on another full collection (docs/engine-speed.md).
_ACTIONS: Final[list[MagickaAction]] = []
_APPLIED: Final[list[Move | None]] = []  # each one's move, once it has been applied (`_move`)
_INDEX: Final[dict[int, int]] = {}  # id(message) -> index (the list holds the message: its id is not reused meanwhile)
_ACTIONS_LIMIT: Final = 1 << 16  # messages made before the tables start again (`_forget_actions`)


def _move(action: MagickaAction) -> Move:
    """The action's fields, with its field check passed (MalformedActionError otherwise). A message of the legal
    action tables (never changed: `_shared`) is found by identity; any other is remembered by its bytes, which is
    exact for any message and cheaper than reading its fields (a payment is a repeated message)."""
    index = _INDEX.get(id(action))
    if index is not None and _ACTIONS[index] is action:
        move = _APPLIED[index]
        if move is None:  # the first time this message is applied
            move = _APPLIED[index] = _read_move(action)
        return move
    return _read_move(action)


def _read_move(action: MagickaAction) -> Move:
    key = action.SerializeToString()
    found = _MOVES.get(key)
    if found is None:
        _check_fields(action)
        target = action.target
        found = Move(
            action.type,
            tuple(action.kinds),
            action.spell,
            action.element,
            _payment_of(action),
            action.extra,
            action.creature,
            (target.seat, target.creature),
        )
        if len(_MOVES) >= _MOVES_LIMIT:
            _MOVES.clear()
        _MOVES[key] = found
    return found


def _shared(action: MagickaAction) -> int:
    """The index of `action`, made for the legal action tables and shared from now on: never changed, so its move
    is remembered by its identity once it is applied."""
    index = len(_ACTIONS)
    _ACTIONS.append(action)
    _APPLIED.append(None)
    _INDEX[id(action)] = index
    return index


def _listed(indices: list[int]) -> list[MagickaAction]:
    """The messages of a legal action list held as indices."""
    actions = _ACTIONS
    return [actions[index] for index in indices]


def _payment_message(payment: Payment) -> list[MagickaPayment]:
    return [MagickaPayment(kind=k, element=e) for k, e in payment]


def _needs(cost: tuple[tuple[Element, int], ...], upgrade: Element, extra: int) -> dict[Element, int]:
    needs: dict[Element, int] = {}
    for element, n in cost:
        needs[element] = needs.get(element, 0) + n
    if extra:
        needs[upgrade] = needs.get(upgrade, 0) + extra
    return needs


_CAST_NEEDS: Final[dict[tuple[int, int], Needs]] = {}  # (kind, extra) -> needs (payment.py: why not an lru_cache)


def _cast_needs(kind: int, extra: int) -> Needs:
    found = _CAST_NEEDS.get((kind, extra))
    if found is None:
        spell = SPELL_BY_KIND[kind]
        found = remember(
            _CAST_NEEDS, (kind, extra), tuple(sorted(_needs(spell.cost, spell.upgrade, extra).items())), _LIMIT
        )
    return found


def answer_kind(state: MagickaState, spell: SpellCard, element: Element) -> str:
    """'disrupt', 'counter' or '' for a snap spell of `element` cast at `spell`."""
    return _answer_kind(spell, element, options(state)["counter"])


def _answer_kind(spell: SpellCard, element: Element, counter: str) -> str:
    held = dict(spell.cost)
    if held.get(element, 0) >= 2:
        return "disrupt"
    opposed = OPPOSES.get(element)
    if opposed is None:
        return ""
    if counter == "any":
        return "counter" if opposed in held else ""
    return "counter" if held.get(opposed, 0) >= 2 else ""


# ----- legal action messages ----------------------------------------------------------------------------------------
# Legal actions are built from small keys and remembered, so a playout does not rebuild the same messages (or search
# the same payments) at every step. The messages are shared between calls: never mutate one.
#
# A hand's Element cards are read once per call as one packed int (payment.py): the cards of the kinds that can pay
# for an Element (or a spell) are then `packed & mask`, a small exact key that is cheap to make and to hash.

Aim = int  # a target as one int, `_aim(seat, creature number; 0 for the wizard)`: a cheaper key than a pair
Target = tuple[int, int]  # a target as (seat, creature number), as an applied move names it (`Move.target`)
_SEAT_BITS: Final = 3
_SEAT_MASK: Final = (1 << _SEAT_BITS) - 1
if MAX_SEATS > 1 << _SEAT_BITS:
    raise ValueError("an aim holds the seat in its low _SEAT_BITS bits")


def _aim(seat: int, number: int) -> Aim:
    return number << _SEAT_BITS | seat


Hand = tuple[tuple[int, int], ...]  # sorted (Element card kind, count) pairs of a hand, or of the kinds that matter
Actions = tuple[int, ...]  # action messages, as their indices in `_ACTIONS`
_LIMIT: Final = 1 << 14  # lists kept per table before it starts again
_PASS: Final = _shared(MagickaAction(type=PASS))
_END_TURN: Final = _shared(MagickaAction(type=END_TURN))
_DRAW_REPLACEMENTS: Final = _shared(MagickaAction(type=DRAW_REPLACEMENTS))
_NIBBLE: Final[tuple[int, ...]] = tuple(  # by card id: 1 in an Element card's kind's 4 bits of a packed hand, else 0
    1 << 4 * CATALOGUE.kind_of[card] if CATALOGUE.kind_of.get(card, -1) in ELEMENT_BY_KIND else 0
    for card in range(max(CATALOGUE.kind_of) + 1)
)
# The packed cards that can pay for each spell kind (its cost and upgrade Elements), and for each snap spell.
_SPELL_MASK: Final[dict[int, int]] = {
    kind: mask(k for e in {*dict(spell.cost), *([spell.upgrade] if spell.upgrade else [])} for k in KINDS_OF[e])
    for kind, spell in SPELL_BY_KIND.items()
}
_SNAP_MASKS: Final[tuple[tuple[Element, int], ...]] = tuple((e, MASKS[e]) for e in ELEMENTS)
_SHIELD_MASK: Final = MASKS[SHIELD]
# A packed hand of one card worth 1: it pays no snap spell (two of an Element), so the snap loop skips it unlisted.
_LONE_ONES: Final = frozenset(1 << 4 * kind for kind, card in ELEMENT_BY_KIND.items() if card.value == 1)
_SUMMONS: Final = frozenset(kind for kind, spell in SPELL_BY_KIND.items() if spell.type is SpellType.SUMMON)


def _packed(elements: list[int]) -> int:
    """A hand's Element cards packed (payment.pack), indexed by card id: cheaper than counting its kinds."""
    packed = 0
    for card in elements:
        packed += _NIBBLE[card]
    return packed


def _hand(state: MagickaState, seat: int) -> Hand:
    return tuple(sorted(element_kinds(state, seat).items()))


def _targets(state: MagickaState) -> tuple[tuple[Aim, ...], list[tuple[Aim, int]]]:
    """spells.targets as keys: every living wizard and creature, wizards first; and, in the same order, those whose
    barrier a Shield may repair, with the points each misses. One pass over the wizards and the creatures."""
    aims: list[Aim] = []
    hurt: list[tuple[Aim, int]] = []
    for seat, wizard in enumerate(state.wizards[:]):
        if not wizard.dead:
            aim = _WIZARD_AIMS[seat]
            aims.append(aim)
            if wizard.barrier:
                hurt.append((aim, wizard.barrier_max - wizard.barrier))
    for creature in state.creatures[:]:
        aim = _aim(creature.controller, creature.number)
        aims.append(aim)
        if creature.barrier:
            hurt.append((aim, creature.barrier_max - creature.barrier))
    return tuple(aims), hurt


_WIZARD_AIMS: Final[tuple[Aim, ...]] = tuple(_aim(seat, 0) for seat in range(MAX_SEATS))
_OWN_AIM: Final[tuple[tuple[Aim], ...]] = tuple((aim,) for aim in _WIZARD_AIMS)  # a summon's only aim


def _target(aim: Aim) -> MagickaTarget:
    return MagickaTarget(seat=aim & _SEAT_MASK, creature=aim >> _SEAT_BITS)


def _kinds_message(type_: MagickaActionType.ValueType, *kinds: int) -> int:
    return _shared(MagickaAction(type=type_, kinds=kinds))


# Every exchange and discard message, built once: by the card kind (or the pair of kinds) it names.
_SPELL_FOR_ELEMENTS: Final = {k: _kinds_message(TRADE_SPELL_FOR_ELEMENTS, k) for k in SPELL_BY_KIND}
_SPELL_TRADE: Final = {k: _kinds_message(TRADE_SPELL, k) for k in SPELL_BY_KIND}
_ELEMENT_TRADE: Final = {k: _kinds_message(TRADE_ELEMENT, k) for k in ELEMENT_BY_KIND}
_PAIR_TRADE: Final = {
    a: {b: _kinds_message(TRADE_ELEMENTS_FOR_SPELL, a, b) for b in ELEMENT_BY_KIND} for a in ELEMENT_BY_KIND
}
_DISCARD: Final = {k: _kinds_message(DISCARD, k) for k in (*ELEMENT_BY_KIND, *SPELL_BY_KIND)}


def _hand_kinds(wizard: MagickaWizard) -> tuple[list[int], list[int]]:
    """A wizard's Element card kinds, sorted (with repeats), and its Spell card kinds, sorted (each once)."""
    kinds = _KIND_OF.__getitem__
    return sorted(map(kinds, wizard.elements[:])), sorted(set(map(kinds, wizard.spells[:])))


_FIRST_SPELL: Final = min(SPELL_BY_KIND)
if sorted(SPELL_BY_KIND) != list(range(_FIRST_SPELL, _FIRST_SPELL + len(SPELL_BY_KIND))):
    raise ValueError("Spell card kinds are numbered without gaps: they are bits of a set of kinds (_SPELL_BIT)")
_SPELL_BIT: Final[tuple[int, ...]] = tuple(  # by card id: a Spell card's kind as one bit of a set of kinds, else 0
    1 << CATALOGUE.kind_of[card] - _FIRST_SPELL if CATALOGUE.kind_of.get(card, -1) in SPELL_BY_KIND else 0
    for card in range(max(CATALOGUE.kind_of) + 1)
)


def _spell_set(wizard: MagickaWizard) -> int:
    """A wizard's Spell card kinds as a set of bits (`_SPELL_BIT`)."""
    bits = 0
    for card in wizard.spells[:]:
        bits |= _SPELL_BIT[card]
    return bits


# The Spell card kinds of a set of bits, sorted, and their two kinds of exchange, for each value of its low
# `_LOW_BITS` bits and of the bits above them: a set's parts are two tuple lookups, with no search and no memo (the
# sets held in random play are too many to remember: the tables started again every few hundred games).
_LOW_BITS: Final = 10
SpellPart = tuple[tuple[int, ...], Actions, Actions]  # kinds, spell-for-Elements exchanges, spell exchanges


def _spell_parts(first: int, count: int) -> tuple[SpellPart, ...]:
    """The parts of every set of the `count` kinds from `first` on."""
    parts: list[SpellPart] = []
    for bits in range(1 << count):
        kinds = tuple(first + i for i in range(count) if bits >> i & 1)
        parts.append((kinds, tuple(_SPELL_FOR_ELEMENTS[k] for k in kinds), tuple(_SPELL_TRADE[k] for k in kinds)))
    return tuple(parts)


_SPELL_LOW: Final = _spell_parts(_FIRST_SPELL, _LOW_BITS)
_SPELL_HIGH: Final = _spell_parts(_FIRST_SPELL + _LOW_BITS, len(SPELL_BY_KIND) - _LOW_BITS)
_LOW_MASK: Final = (1 << _LOW_BITS) - 1


# A hand's exchanges are its Spell card exchanges (above), then its Element card exchanges, remembered by its packed
# Element cards (an exchange or a draw changes one of the two parts).
_ELEMENT_TRADES: Final[dict[int, Actions]] = {}  # packed Element cards -> exchanges


def _trade_actions(packed: int, spell_bits: int, elements: list[int]) -> list[int]:
    """Every exchange from a hand's packed Element cards (the cards themselves: `elements`) and its Spell card kinds
    (`_spell_set`)."""
    low, high = _SPELL_LOW[spell_bits & _LOW_MASK], _SPELL_HIGH[spell_bits >> _LOW_BITS]
    element_part = _ELEMENT_TRADES.get(packed)
    if element_part is None:
        element_part = remember(_ELEMENT_TRADES, packed, _element_trades(elements), _LIMIT)
    return [*low[1], *high[1], *low[2], *high[2], *element_part]


if sorted(ELEMENT_BY_KIND) != list(range(len(ELEMENT_BY_KIND))):
    raise ValueError("Element card kinds are numbered from 0 without gaps: they index _PAIR_ROWS")
_PAIR_ROWS: Final[tuple[tuple[int, ...], ...]] = tuple(  # the pair exchanges by kind, then by kind
    tuple(_PAIR_TRADE[first][second] for second in sorted(ELEMENT_BY_KIND)) for first in sorted(ELEMENT_BY_KIND)
)


def _element_trades(elements: list[int]) -> Actions:
    """Each Element card kind of a hand for a new card (by kind), then each pair of cards for a Spell card."""
    held = [_KIND[card] for card in elements]  # read from the cards: no big-int arithmetic on the packed hand
    kinds = sorted(set(held))
    legal = [_ELEMENT_TRADE[kind] for kind in kinds]
    count = len(kinds)
    for i in range(count):  # index loops: list operations the compiler knows, where map() and slices are generic
        first = kinds[i]
        row = _PAIR_ROWS[first]
        if held.count(first) >= 2:
            legal.append(row[first])
        for j in range(i + 1, count):
            legal.append(row[kinds[j]])
    return tuple(legal)


# Every paid action message (a cast, a snap spell, a repair) is built once and shared: a row holds the actions of
# one spell (or Element), payment and extra by aim. The lists below are remembered per spell or Element, the cards
# that can pay for it and the aims, and in random play many of those keys are new while the actions they list repeat.
# The messages above are made at import and kept when the tables start again; every one made from here on is not.
_STATIC: Final = len(_ACTIONS)


class _Row:
    """The actions of `type` paying `payment` with `extra`, by aim (`at`), each made when first asked for; `what` is
    the spell kind of a cast, the Element of a snap spell, 0 for a repair. A native class holding a plain dictionary
    of ints: the cyclic GC untracks such a dictionary, where a dictionary subclass (and the instance dictionary it
    had) stayed tracked, and a memo that grows all game long adds its objects to every full collection."""

    def __init__(self, type_: MagickaActionType.ValueType, what: int, payment: Payment, extra: int) -> None:
        self.type = type_
        self.what = what
        self.payment = payment
        self.extra = extra
        self.template: MagickaAction | None = None  # the action without its target, made at the first aim
        self.by_aim: dict[Aim, int] = {}

    def at(self, aim: Aim) -> int:
        found = self.by_aim.get(aim)
        if found is None:
            template = self.template
            if template is None:
                template = self.template = self._without_target()
            made = MagickaAction()
            made.CopyFrom(template)  # a copy in C: a sixth of the cost of building the message and its payment again
            target = made.target
            target.SetInParent()
            target.seat, target.creature = aim & _SEAT_MASK, aim >> _SEAT_BITS
            found = self.by_aim[aim] = _shared(made)
        return found

    def _without_target(self) -> MagickaAction:
        type_, what, payment_message = self.type, self.what, _payment_message(self.payment)
        if type_ == CAST_SPELL:
            return MagickaAction(type=type_, spell=what, payment=payment_message, extra=self.extra)
        if type_ == CAST_SNAP:
            return MagickaAction(type=type_, element=cast(Element, what), payment=payment_message, extra=self.extra)
        return MagickaAction(type=type_, payment=payment_message, extra=self.extra)


_ROWS: Final[dict[tuple[MagickaActionType.ValueType, int, Payment, int], _Row]] = {}
_ROWS_LIMIT: Final = 1 << 15  # rows kept before the table starts again


def _row(type_: MagickaActionType.ValueType, what: int, payment: Payment, extra: int) -> _Row:
    key = (type_, what, payment, extra)
    found = _ROWS.get(key)
    if found is None:
        if len(_ROWS) >= _ROWS_LIMIT:
            _ROWS.clear()
        found = _ROWS[key] = _Row(type_, what, payment, extra)
    return found


_ATTACKS: Final[dict[tuple[int, Aim], int]] = {}


def _attack_action(creature: int, aim: Aim) -> int:
    found = _ATTACKS.get((creature, aim))
    if found is None:
        if len(_ATTACKS) >= _LIMIT:
            _ATTACKS.clear()
        found = _ATTACKS[creature, aim] = _shared(MagickaAction(type=ATTACK, creature=creature, target=_target(aim)))
    return found


# The casts (or snap spells) of a spell kind (or Element) paid from the packed cards that can pay for it, by the aims,
# then by the spell kind or Element (spell kinds 100.. and Elements 1..8 never collide), then by the packed payers:
# nested dictionaries, so that a lookup hashes a small int and an int, and allocates no tuple to do it.
_PAID: Final[dict[tuple[Aim, ...], dict[int, dict[int, Actions]]]] = {}
_REPAIRS: Final[dict[tuple[Aim, int, int], Actions]] = {}  # (aim, points missing, packed Shield payers) -> repairs
# The rows of a spell kind or snap Element (each upgrade, each payment), in list order, by the packed cards that can
# pay: the lists above repeat these for each aim, and they miss more often (the aims change when a creature comes or
# goes).
Rows = tuple[_Row, ...]
_CAST_OPTIONS: Final[dict[tuple[int, int], Rows]] = {}
_SNAP_OPTIONS: Final[dict[tuple[Element, int], Rows]] = {}


def _forget_actions() -> None:
    """Start the tables again, once `_ACTIONS_LIMIT` messages have been made: the messages made at import stay, and
    every table that may hold another is emptied. Called only between legal action lists, so no list being made
    holds an index that goes."""
    del _ACTIONS[_STATIC:]
    del _APPLIED[_STATIC:]
    _INDEX.clear()
    _INDEX.update({id(action): index for index, action in enumerate(_ACTIONS)})
    for table in (_ROWS, _PAID, _REPAIRS, _ATTACKS, _CAST_OPTIONS, _SNAP_OPTIONS):
        table.clear()
    _answer_actions.cache_clear()


def _cast_options(kind: int, payers: int) -> Rows:
    """Each upgrade and each payment of spell `kind` from the packed cards that can pay for it."""
    found = _CAST_OPTIONS.get((kind, payers))
    if found is None:
        upgrade = SPELL_BY_KIND[kind].upgrade
        top = value(payers & MASKS[upgrade]) if upgrade else 0
        found = tuple(
            _row(CAST_SPELL, kind, payment, extra)
            for extra in range(top + 1)
            for payment in packed_payments(_cast_needs(kind, extra), payers)
        )
        remember(_CAST_OPTIONS, (kind, payers), found, _LIMIT)
    return found


def _snap_options(element: Element, payers: int) -> Rows:
    """Each snap spell of `element` (two of it, more for the snaps that take extra) and each payment for it."""
    found = _SNAP_OPTIONS.get((element, payers))
    if found is None:
        total = value(payers)
        top = -1 if total < 2 else total - 2 if element in SNAP_EXTRA else 0
        found = tuple(
            _row(CAST_SNAP, element, payment, extra)
            for extra in range(top + 1)
            for payment in packed_payments(((element, 2 + extra),), payers)
        )
        remember(_SNAP_OPTIONS, (element, payers), found, _LIMIT)
    return found


def _paid_table(aims: tuple[Aim, ...]) -> dict[int, dict[int, Actions]]:
    """The paid action lists for `aims`, by spell kind or Element, then by packed payers."""
    found = _PAID.get(aims)
    if found is None:
        found = remember(_PAID, aims, {}, _LIMIT)
    return found


def _paid_part(table: dict[int, dict[int, Actions]], what: int) -> dict[int, Actions]:
    """The part of an aims' table for one spell kind or Element."""
    found = table.get(what)
    if found is None:
        found = table[what] = {}
    return found


def _paid_for(part: dict[int, Actions], payers: int, aims: tuple[Aim, ...], rows: Rows) -> Actions:
    """The casts (or snap spells) of a spell kind (or Element) paid from `payers`, at each aim: every row of its
    options (`_cast_options`, `_snap_options`) in order, each at every aim; remembered in `part`, the aims' table for
    the spell kind (or Element), by the payers."""
    listed: list[int] = []
    for row in rows:
        for aim in aims:
            listed.append(row.at(aim))
    found: Actions = remember(part, payers, tuple(listed), _LIMIT)
    return found


def _repair_actions(aim: Aim, missing: int, shields: int) -> Actions:
    return tuple(
        _row(REPAIR, 0, payment, amount).at(aim)
        for amount in range(1, missing + 1)
        for payment in packed_payments(((SHIELD, amount),), shields)
    )


def _paid_actions(
    seat: int, packed: int, spell_cards: tuple[int, ...], aims: tuple[Aim, ...], hurt: list[tuple[Aim, int]]
) -> list[int]:
    """A living wizard's casts, snap spells and repairs, in that order, from its packed Element cards, its Spell card
    kinds, the aims and the barriers to repair (each read once). Not remembered as a whole: in random play almost
    every such key is new, while its parts (per spell, per Element) repeat."""
    legal: list[int] = []
    table = _paid_table(aims)
    for kind in spell_cards:
        payers = packed & _SPELL_MASK[kind]
        if kind in _SUMMONS:  # aimed at the caster only
            own = _OWN_AIM[seat]
            part = _paid_part(_paid_table(own), kind)
            found = part.get(payers)
            if found is None:
                found = _paid_for(part, payers, own, _cast_options(kind, payers))
        else:
            part = _paid_part(table, kind)
            found = part.get(payers)
            if found is None:
                found = _paid_for(part, payers, aims, _cast_options(kind, payers))
        legal += found
    for element, payable in _SNAP_MASKS:
        payers = packed & payable
        if payers and payers not in _LONE_ONES:
            part = _paid_part(table, element)
            found = part.get(payers)
            if found is None:
                found = _paid_for(part, payers, aims, _snap_options(element, payers))
            legal += found
    if hurt:
        shields = packed & _SHIELD_MASK
        for aim, missing in hurt:
            found = _REPAIRS.get((aim, missing, shields))
            if found is None:
                found = remember(_REPAIRS, (aim, missing, shields), _repair_actions(aim, missing, shields), _LIMIT)
            legal += found
    return legal


@lru_cache(maxsize=_CACHE)
def _answer_actions(spell_kind: int, counter: str, hand: Hand) -> Actions:
    spell = SPELL_BY_KIND[spell_kind]
    counts = dict(hand)
    legal: list[int] = []
    for element in ELEMENTS:
        kind = _answer_kind(spell, element, counter)
        if not kind:
            continue
        needs = [{element: 2}] + ([{element: 2, SHIELD: 1}] if kind == "counter" else [])
        for need in needs:
            legal += [
                _shared(MagickaAction(type=ANSWER, element=element, payment=_payment_message(p)))
                for p in payments(need, counts)
            ]
    return tuple(legal)


def _attacks(state: MagickaState, seat: int, aims: tuple[Aim, ...]) -> list[int]:
    return [
        _attack_action(creature.number, aim)
        for creature in state.creatures[:]
        if creature.controller == seat and creature.ready
        for aim in aims
        if aim >> _SEAT_BITS != creature.number
    ]


def _answers(state: MagickaState, seat: int) -> list[int]:
    return list(_answer_actions(state.cast.spell, options(state)["counter"], _hand(state, seat)))


def legal_actions(state: MagickaState, seat: int) -> list[MagickaAction]:
    if len(_ACTIONS) >= _ACTIONS_LIMIT:
        _forget_actions()
    phase = state.phase
    if phase == RESPONDING:
        return _listed([*_answers(state, seat), _PASS])
    wizard = state.wizards[seat]
    if phase == DISCARDING:
        elements, spell_kinds = _hand_kinds(wizard)
        return _listed([_DISCARD[k] for k in sorted(set(elements))] + [_DISCARD[k] for k in spell_kinds])
    alive = not wizard.dead
    if alive and (state.owed_elements or state.owed_spells):
        elements = wizard.elements[:]
        legal = _trade_actions(_packed(elements), _spell_set(wizard), elements)
        legal.append(_DRAW_REPLACEMENTS)
        return _listed(legal)
    aims, hurt = _targets(state)
    if alive:
        elements = wizard.elements[:]
        packed, bits = _packed(elements), _spell_set(wizard)
        spell_cards = _SPELL_LOW[bits & _LOW_MASK][0] + _SPELL_HIGH[bits >> _LOW_BITS][0]
        legal = _trade_actions(packed, bits, elements) if state.exchange_open else []
        legal += _paid_actions(seat, packed, spell_cards, aims, hurt)
    else:
        legal = []
    if state.creatures:
        legal += _attacks(state, seat, aims)
    legal.append(_END_TURN)
    return _listed(legal)


# The action space (`spaces`). Element card kinds are 0..26 and Spell card kinds 100..118: each numbered from 0; a
# target is a wizard (its seat) or a creature (the seat count plus its place among the creatures in play).
_ELEMENT_KINDS: Final = tuple(sorted(ELEMENT_BY_KIND))
_SPELL_KINDS: Final = tuple(sorted(SPELL_BY_KIND))
_SPELL_INDEX: Final = {kind: i for i, kind in enumerate(_SPELL_KINDS)}
_CREATURES_AT_MOST: Final = sum(card.count for card in SPELL_BY_KIND.values() if card.type is SpellType.SUMMON)
_FULL_DECK: Final = sum(card.count << 4 * kind for kind, card in ELEMENT_BY_KIND.items())
_EXTRA_AT_MOST: Final = max(value(_FULL_DECK & MASKS[element]) for element in ELEMENTS)  # extras, repair points
_SIMPLE: Final = {DRAW_REPLACEMENTS: "draw_replacements", END_TURN: "end_turn", PASS: "pass"}
_TRADE_PARTS: Final = {
    TRADE_SPELL_FOR_ELEMENTS: "trade_spell_for_elements",
    TRADE_SPELL: "trade_spell",
    TRADE_ELEMENT: "trade_element",
}


def _aim_index(view: MagickaState, target: MagickaTarget) -> int:
    if not target.creature:
        return target.seat
    numbers = [creature.number for creature in view.creatures[:]]
    return len(view.wizards) + numbers.index(target.creature)


def _kind_index(kind: int) -> int:
    return _SPELL_INDEX.get(kind, kind)


def _locate(view: MagickaState, seat: int, action: MagickaAction) -> tuple[Any, ...]:
    type_ = action.type
    simple = _SIMPLE.get(type_)
    if simple is not None:
        return (simple,)
    if type_ in _TRADE_PARTS:
        return (_TRADE_PARTS[type_], _kind_index(action.kinds[0]))
    if type_ == TRADE_ELEMENTS_FOR_SPELL:
        first, second = sorted(action.kinds[:])
        return ("trade_elements_for_spell", first, second)
    if type_ == DISCARD:
        kind = action.kinds[0]
        return ("discard", len(_ELEMENT_KINDS) + _SPELL_INDEX[kind] if kind in _SPELL_INDEX else kind)
    if type_ == CAST_SPELL:
        return ("cast", _SPELL_INDEX[action.spell], action.extra, _aim_index(view, action.target))
    if type_ == CAST_SNAP:
        return ("snap", action.element - 1, action.extra, _aim_index(view, action.target))
    if type_ == REPAIR:
        return ("repair", action.extra, _aim_index(view, action.target))
    if type_ == ATTACK:
        numbers = [creature.number for creature in view.creatures[:]]
        return ("attack", numbers.index(action.creature), _aim_index(view, action.target))
    shielded = action.element != SHIELD and any(paid.element == SHIELD for paid in action.payment)
    return ("answer", action.element - 1, int(shielded))


def spaces(config: GameConfig) -> Spaces:
    """Exchanges by card kind (Element kinds 0-26, Spell kinds numbered 0-18), draw_replacements, end_turn,
    discard (a kind: Elements first), cast (spell, extra, target), snap (Element, extra, target), repair (points,
    target), attack (creature, target), answer (Element, with a Shield: 1), pass. A target is a wizard's seat, or
    the seat count plus a creature's place in play. Not exact: an index names neither the payment nor, for
    an answer, more than whether a Shield is paid; an environment pays as the rules list first."""
    elements, spells, extras = len(_ELEMENT_KINDS), len(_SPELL_KINDS), _EXTRA_AT_MOST + 1
    targets = config.seats + _CREATURES_AT_MOST
    actions = ActionSpace(
        ("trade_spell_for_elements", spells),
        ("trade_elements_for_spell", elements, elements),
        ("trade_element", elements),
        ("trade_spell", spells),
        ("draw_replacements",),
        ("discard", elements + spells),
        ("cast", spells, extras, targets),
        ("snap", len(ELEMENTS), extras, targets),
        ("repair", extras, targets),
        ("attack", _CREATURES_AT_MOST, targets),
        ("end_turn",),
        ("answer", len(ELEMENTS), 2),
        ("pass",),
    )
    return Spaces(
        actions,
        _locate,
        {"creatures": _CREATURES_AT_MOST, "beams": 12},
        exact=False,
        note="the payment is not part of an index: of the casts that differ only in the Element cards paid, an "
        "environment offers the first the rules list (plain Element cards before combination and Blended ones)",
    )
