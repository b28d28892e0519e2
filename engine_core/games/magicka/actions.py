"""Magicka's legal actions of a seat (`legal_actions`): built from small keys (a hand packed into an int, the aims)
and remembered, as indices of the shared messages of moves.py, so a playout does not rebuild the same messages (or
search the same payments) at every step. Callers never change a returned message."""

from __future__ import annotations

from functools import lru_cache
from typing import Final, cast

from manaforge.v1.games.magicka_pb2 import (
    MagickaAction,
    MagickaActionType,
    MagickaState,
    MagickaTarget,
    MagickaWizard,
)

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
    PASS,
    REPAIR,
    SHIELD,
    SPELL_BY_KIND,
    TRADE_ELEMENT,
    TRADE_ELEMENTS_FOR_SPELL,
    TRADE_SPELL,
    TRADE_SPELL_FOR_ELEMENTS,
    Element,
    SpellType,
)
from engine_core.games.magicka.moves import (
    _ACTIONS,
    _ACTIONS_LIMIT,
    _APPLIED,
    _CACHE,
    _INDEX,
    _KIND,
    _KIND_OF,
    _LIMIT,
    DISCARDING,
    MAX_SEATS,
    RESPONDING,
    _answer_kind,
    _cast_needs,
    _listed,
    _payment_message,
    _shared,
    element_kinds,
)
from engine_core.games.magicka.payment import (
    KINDS_OF,
    MASKS,
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

# ----- legal action messages ----------------------------------------------------------------------------------------
# Legal actions are built from small keys and remembered, so a playout does not rebuild the same messages (or search
# the same payments) at every step. The messages are shared between calls: never mutate one.
#
# A hand's Element cards are read once per call as one packed int (payment.py): the cards of the kinds that can pay
# for an Element (or a spell) are then `packed & mask`, a small exact key that is cheap to make and to hash.

Aim = int  # a target as one int, `_aim(seat, creature number; 0 for the wizard)`: a cheaper key than a pair
_SEAT_BITS: Final = 3
_SEAT_MASK: Final = (1 << _SEAT_BITS) - 1
if MAX_SEATS > 1 << _SEAT_BITS:
    raise ValueError("an aim holds the seat in its low _SEAT_BITS bits")


def _aim(seat: int, number: int) -> Aim:
    return number << _SEAT_BITS | seat


Hand = tuple[tuple[int, int], ...]  # sorted (Element card kind, count) pairs of a hand, or of the kinds that matter
Actions = tuple[int, ...]  # action messages, as their indices in `_ACTIONS`
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
