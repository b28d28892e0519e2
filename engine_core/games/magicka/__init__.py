"""Magicka Mayhem: The Card Game — 2 to 6 wizards hurl spells built from Element cards until one is left standing.

Each wizard starts with 20 Health, 5 Element and 3 Spell cards. A turn: draw 2 Elements and 1 Spell, optionally
exchange cards (all discards first, then every replacement at once), then cast spell card spells and snap spells,
repair barriers and attack with creatures, then discard down to 10 cards. Spell card spells (but not summons) pass
a Mayhem Muster. In Spell vs. Spell mode the target may answer a spell with a snap spell: counter, disrupt or
reflect. Rules, card design (a reconstruction) and every decision: RULES.md beside this file.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import MutableSequence
from dataclasses import replace
from functools import lru_cache
from typing import Any, Final, NamedTuple, cast

from manaforge.v1.common_pb2 import CardFacts, Event, GameConfig, Rng
from manaforge.v1.games.magicka_pb2 import (
    MagickaAction,
    MagickaActionType,
    MagickaCast,
    MagickaPayment,
    MagickaPhase,
    MagickaState,
    MagickaTarget,
    MagickaWizard,
)
from mypy_extensions import mypyc_attr

from engine_core import rng
from engine_core.bots.budget import Budget, by_seats
from engine_core.errors import IllegalActionError, MalformedActionError
from engine_core.game import RESPONSE, TURN, Game, GameInfo, Option, event, finish, options
from engine_core.games.magicka import bot, spells, text
from engine_core.games.magicka.cards import (
    ANSWER,
    ARCANE,
    ATTACK,
    CAST_SNAP,
    CAST_SPELL,
    CATALOGUE,
    DISCARD,
    DRAW_REPLACEMENTS,
    EARTH,
    ELEMENT_BY_KIND,
    ELEMENTS,
    END_TURN,
    FIRE,
    LIGHTNING,
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
    card_facts,
    card_name,
    element_card,
    element_name,
    elements_text,
    kind_name,
    kind_of,
    missing_elements,
)
from engine_core.games.magicka.payment import (
    KINDS_OF,
    MASKS,
    Needs,
    Payment,
    mask,
    packed_payments,
    payment_problem,
    payments,
    remember,
    value,
)
from engine_core.games.magicka.sharing import (
    own_pile,
    own_rng,
    own_wizard,
    put_cast,
    put_pending,
    step_copy,
)
from engine_core.games.magicka.spells import (
    FULL,
    HALF,
    SNAP_EXTRA,
    SNAP_NAMES,
    SNAP_TEXT,
    STARTING_HEALTH,
    body,
    controller,
    creature_target,
    find_creature,
    target_name,
    wizard_target,
)
from engine_core.live import changed_indices, clone
from engine_core.spaces import ActionSpace, Spaces

TRADES: Final = (TRADE_SPELL_FOR_ELEMENTS, TRADE_ELEMENTS_FOR_SPELL, TRADE_ELEMENT, TRADE_SPELL)
MAIN: Final = MagickaPhase.MAGICKA_PHASE_MAIN
DISCARDING: Final = MagickaPhase.MAGICKA_PHASE_DISCARD
RESPONDING: Final = MagickaPhase.MAGICKA_PHASE_RESPONSE
ACTION_NAME: Final = MagickaAction.DESCRIPTOR.full_name
_STEP_ACTIONS: Final = {RESPONDING: (ANSWER, PASS), DISCARDING: (DISCARD,)}  # the only actions of these steps

DEAL_ELEMENTS: Final = 5
DEAL_SPELLS: Final = 3
DRAW_ELEMENTS: Final = 2
DRAW_SPELLS: Final = 1
HAND_LIMIT: Final = 10
_KIND_OF: Final = CATALOGUE.kind_of
_KIND: Final[tuple[int, ...]] = tuple(_KIND_OF.get(card, -1) for card in range(max(_KIND_OF) + 1))  # by card id
_CARD_NAMES: Final = {card: card_name(card) for card in _KIND_OF}
_CACHE: Final = 1 << 12
ROUND_LIMITS: Final = ("50", "100", "200")
# A turn holds at most ~200 actions (13 cards in hand at its start, each trade, cast, answer and discard uses a card,
# 26 cards at most after trades, 6 creatures); the round limit bounds the turns.
ACTIONS_PER_TURN: Final = 200
MAX_SEATS: Final = 6
_TURN_PROMPTS: Final = tuple(f"seat {seat}: exchange, cast, attack or end the turn" for seat in range(MAX_SEATS))

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


def is_spell_vs_spell(state: MagickaState) -> bool:
    return options(state)["mode"] == "spell_vs_spell"


def hand_size(state: MagickaState, seat: int) -> int:
    wizard = state.wizards[seat]
    return len(wizard.elements) + len(wizard.spells)


def element_kinds(state: MagickaState, seat: int) -> Counter[int]:
    return Counter(map(_KIND_OF.__getitem__, state.wizards[seat].elements[:]))


def spell_kinds(state: MagickaState, seat: int) -> Counter[int]:
    return Counter(map(_KIND_OF.__getitem__, state.wizards[seat].spells[:]))


def _take(cards: MutableSequence[int], kind: int) -> int:
    """Remove and return the lowest-id card of `kind` from a hand."""
    kinds = _KIND
    card = -1
    for held in cards[:]:  # a loop without a list: half the cost of min() over a comprehension for a hand
        if kinds[held] == kind and (card < 0 or held < card):
            card = held
    if card < 0:
        raise ValueError(f"no card of kind {kind} in the hand")  # the callers check the hand first
    cards.remove(card)
    return card


# The exchanges, by action type: (Spell cards given?, cards given, Element cards owed, Spell cards owed).
_EXCHANGES: Final[dict[int, tuple[bool, int, int, int]]] = {
    TRADE_SPELL_FOR_ELEMENTS: (True, 1, 2, 0),
    TRADE_ELEMENTS_FOR_SPELL: (False, 2, 0, 1),
    TRADE_ELEMENT: (False, 1, 1, 0),
    TRADE_SPELL: (True, 1, 0, 1),
}


def _holds(cards: MutableSequence[int], kinds: tuple[int, ...]) -> bool:
    """Whether a hand holds a card of each of `kinds` (two of a kind named twice)."""
    held = [_KIND[card] for card in cards[:]]
    if len(kinds) == 1:
        return kinds[0] in held
    return all([held.count(kind) >= kinds.count(kind) for kind in kinds])


def _sync_counts(state: MagickaState) -> None:
    wizards = state.wizards
    for seat in changed_indices(wizards):  # the others are shared, and synced when they changed
        wizard = wizards[seat]
        elements, spell_cards = len(wizard.elements), len(wizard.spells)
        if wizard.element_count != elements or wizard.spell_count != spell_cards:
            wizard.element_count, wizard.spell_count = elements, spell_cards
    state.element_deck_size = len(state.element_deck)
    state.spell_deck_size = len(state.spell_deck)
    state.mayhem_deck_size = len(state.mayhem_deck)


def _draw(state: MagickaState, seat: int, elements: int, spell_cards: int, events: list[Event]) -> None:
    """Draw from the top; 'When a card deck runs out of cards, simply reshuffle the Discarded cards and continue.'
    The counts are synced after the step (`_after_action`, `_setup`)."""
    wizard = own_wizard(state, seat)
    drawn: list[int] = []
    for deck_name, discard_name, hand, n, what in (
        ("element_deck", "element_discard", wizard.elements, elements, "Element"),
        ("spell_deck", "spell_discard", wizard.spells, spell_cards, "Spell"),
    ):
        if not n:
            continue
        deck = own_pile(state, deck_name)
        for _ in range(n):
            if not deck and getattr(state, discard_name):
                rng.shuffle_into(own_rng(state), deck, own_pile(state, discard_name))
                events.append(event("DeckReshuffled", f"the {what} discards were shuffled into a new {what} deck"))
            if deck:
                card = deck.pop()
                hand.append(card)
                drawn.append(card)
    if drawn:
        names = ", ".join(map(_CARD_NAMES.__getitem__, drawn))
        events.append(event("CardsDrawn", f"seat {seat} drew {len(drawn)} card(s)", actor=seat))
        events.append(event("CardsDrawn", f"you drew {names}", actor=seat, audience=seat, cards=drawn))


def _pay(state: MagickaState, seat: int, payment: Payment) -> list[int]:
    wizard = own_wizard(state, seat)
    paid = [_take(wizard.elements, kind) for kind, _ in payment]
    own_pile(state, "element_discard").extend(paid)
    return paid


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


FLAT: Final = Budget(
    iterations=1000, actions=540, evaluate_after=10, search="flat", rollout="heuristic", max_rollout_actions=200
)
"""The flat search at two seats; the other table sizes change a few of its settings (`bot_budget`)."""


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


@mypyc_attr(native_class=False)  # compiled by `make engines`; its class attributes stay Python's
class Magicka(Game[MagickaState, MagickaAction]):
    info = GameInfo(
        name="magicka",
        title="Magicka Mayhem",
        min_seats=2,
        max_seats=MAX_SEATS,
        description="Wizards build spells from Element cards; Mayhem makes them go wrong. Last wizard standing wins.",
        options=(
            Option(
                "mode",
                "spellmageddon",
                ("spellmageddon", "spell_vs_spell"),
                "Spellmageddon (simple) or Spell vs. Spell (snap spells answer spells: counter, disrupt, reflect)",
            ),
            Option(
                "mayhem",
                "coin",
                ("coin", "minimum", "maximum", "none"),
                "Mayhem Muster: coin flip (heads: Mayhem), Minimum Mayhem (a d6 showing 1), Maximum Mayhem (every "
                "spell), or none",
            ),
            Option(
                "counter",
                "pair",
                ("pair", "any"),
                "Spell vs. Spell: a counter's Element must oppose an Element the spell holds two of (pair), or any "
                "Element of the spell (any)",
            ),
            Option(
                "round_limit",
                "100",
                ROUND_LIMITS,
                "platform bound: after this many rounds the standing wizard with the most Health wins",
            ),
        ),
        max_actions=int(ROUND_LIMITS[-1]) * MAX_SEATS * ACTIONS_PER_TURN,
        extra={
            "golden": "magicka_spell_vs_spell,2,mode=spell_vs_spell,mayhem=maximum;magicka_minimum,4,mayhem=minimum",
        },
    )
    # Flat search over the heuristic's own playouts, each cut after 10 actions and scored by the evaluation (rollout
    # policy improvement); fewer actions from four seats up, where a step costs more. docs/bots.md has the figures.
    bot_budget = by_seats(
        {
            2: FLAT,
            4: replace(FLAT, actions=400),
        }
    )
    state_type = MagickaState
    action_type = MagickaAction

    step_copy = staticmethod(step_copy)  # `apply`'s copy shares the wizards until the rules change one (sharing.py)

    def spaces(self, config: GameConfig) -> Spaces:
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

    # ----- setup and turns --------------------------------------------------------------------------------------

    def _setup(self, state: MagickaState) -> None:
        seats = state.header.config.seats
        state.element_deck.extend(CATALOGUE.element_ids)
        state.spell_deck.extend(CATALOGUE.spell_ids)
        state.mayhem_deck.extend(CATALOGUE.mayhem_ids)
        for deck in (state.element_deck, state.spell_deck, state.mayhem_deck):
            rng.shuffle(state.header.rng, deck)
        for _ in range(seats):
            wizard = state.wizards.add(health=STARTING_HEALTH)
            wizard.elements.extend(state.element_deck[-DEAL_ELEMENTS:])
            del state.element_deck[-DEAL_ELEMENTS:]
            wizard.spells.extend(state.spell_deck[-DEAL_SPELLS:])
            del state.spell_deck[-DEAL_SPELLS:]
        _begin_turn(state, 0, [])
        _sync_counts(state)

    # ----- legal actions ----------------------------------------------------------------------------------------

    def _legal_actions(self, state: MagickaState, seat: int) -> list[MagickaAction]:
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

    # ----- applying actions -------------------------------------------------------------------------------------

    def _apply(self, state: MagickaState, seat: int, action: MagickaAction) -> list[Event]:
        move = _move(action)
        phase, type_ = state.phase, move.type
        expected = _STEP_ACTIONS.get(phase)
        if expected is not None and type_ not in expected:
            raise IllegalActionError(
                "turn step",
                "a spell awaits an answer (snap spell) or a pass"
                if phase == RESPONDING
                else "'Discard excess cards at END of Turn': discard down to 10 cards first",
            )
        if expected is None and type_ in (ANSWER, PASS, DISCARD):
            raise IllegalActionError("turn step", "there is no spell to answer and no discard is due")
        if type_ in _EXCHANGES:  # one hand changes (synced there); no deck, health, standing or turn
            return _apply_trade(state, seat, action, move)
        if type_ == DRAW_REPLACEMENTS:  # the deck and the hand change; no one's health, standing or turn
            events = _apply_draw_replacements(state, seat, action, move)
            _sync_counts(state)
            return events
        if type_ == END_TURN:
            events = _apply_end_turn(state, seat, action, move)
        elif type_ == CAST_SNAP:
            events = _apply_cast_snap(state, seat, action, move)
        elif type_ == CAST_SPELL:
            events = _apply_cast_spell(state, seat, action, move)
        elif type_ == ATTACK:
            events = _apply_attack(state, seat, action, move)
        elif type_ == REPAIR:
            events = _apply_repair(state, seat, action, move)
        elif type_ == PASS:
            events = _apply_pass(state, seat, action, move)
        elif type_ == ANSWER:
            events = _apply_answer(state, seat, action, move)
        elif type_ == DISCARD:
            events = _apply_discard(state, seat, action, move)
        else:  # no other type passes `_move`'s field check
            raise MalformedActionError("action type", "choose an action type")
        _after_action(state, events)
        return events

    # ----- views ------------------------------------------------------------------------------------------------

    def _redact(self, view: MagickaState, seat: int | None) -> None:
        for deck in (view.element_deck, view.spell_deck, view.mayhem_deck):
            del deck[:]
        for other, wizard in enumerate(view.wizards):
            if other != seat:
                del wizard.elements[:]
                del wizard.spells[:]

    def cards(self, state: MagickaState) -> list[int]:
        found = [
            *state.element_deck,
            *state.spell_deck,
            *state.mayhem_deck,
            *state.element_discard,
            *state.spell_discard,
            *state.mayhem_discard,
            *(c.card for c in state.creatures),
        ]
        for wizard in state.wizards:
            found += [*wizard.elements, *wizard.spells]
        if state.HasField("cast"):
            found.append(state.cast.card)
        return found

    def hidden_cards(self, state: MagickaState, seat: int | None) -> set[int]:
        hidden = {*state.element_deck, *state.spell_deck, *state.mayhem_deck}
        for other, wizard in enumerate(state.wizards):
            if other != seat:
                hidden.update(wizard.elements)
                hidden.update(wizard.spells)
        return hidden

    def timeout_action(self, state: MagickaState, seat: int) -> MagickaAction | None:
        """An absent wizard lets the spell through when the response window's timer runs out."""
        if state.phase == RESPONDING and seat in state.header.pending.seats:
            return MagickaAction(type=PASS)
        return None

    def _catalogue(self, config: GameConfig) -> list[CardFacts]:
        return [card_facts(card) for card in sorted(CATALOGUE.kind_of)]

    def card_notes(self, state: MagickaState, seat: int, legal: list[MagickaAction] | None = None) -> dict[int, str]:
        """Why each Spell card in `seat`'s hand that no legal action casts cannot be cast now (a card the exchange
        could trade still gets its note: it says what casting it takes): the Elements its hand lacks ("needs Fire and
        Fire"), else the moment ("not your turn")."""
        wizard = state.wizards[seat]
        if state.header.outcome.finished or wizard.dead or not wizard.spells:
            return {}
        pending = seat in state.header.pending.seats
        used: set[int] = set()
        if legal is None:
            legal = self.legal_actions(state, seat) if pending else []
        for action in legal:
            if action.type == CAST_SPELL:
                used.add(action.spell)
        paying = [element_card(card) for card in wizard.elements]
        notes: dict[int, str] = {}
        for card in wizard.spells:
            kind = kind_of(card)
            if kind in used:
                continue
            missing = missing_elements(SPELL_BY_KIND[kind].cost, paying)
            if missing:
                notes[card] = f"needs {elements_text(missing)}"
            elif state.turn != seat:
                notes[card] = "not your turn"
            elif state.phase == RESPONDING:
                notes[card] = "only a snap spell may answer a spell"
            elif state.owed_elements or state.owed_spells:
                notes[card] = "draw the cards your exchange owes first"
            else:
                notes[card] = "nothing it can be cast at now"
        return notes

    def describe(self, state: MagickaState, action: MagickaAction) -> str:
        return describe_action(state, action)

    def render(self, view: MagickaState, seat: int | None) -> str:
        return text.render(view, seat, HAND_LIMIT)

    # ----- bots -------------------------------------------------------------------------------------------------

    def sample_world(self, view: MagickaState, seat: int, rng_: Rng) -> MagickaState:
        return bot.sample_world(self, view, seat, rng_)

    def heuristic_action(self, view: MagickaState, seat: int, legal: list[MagickaAction], rng_: Rng) -> MagickaAction:
        return bot.heuristic_action(view, seat, legal, rng_)

    def evaluate(self, state: MagickaState) -> list[float]:
        """Health plus half the attack and health of the creatures controlled; a dead wizard has no chance."""
        strengths = [float(wizard.health + wizard.barrier) for wizard in state.wizards]
        for creature in state.creatures:
            if creature.health > 0:
                strengths[creature.controller] += (creature.attack + creature.health) / 2
        chances = self.win_chances(strengths, 5.0)
        alive = [0.0 if wizard.dead else chance for wizard, chance in zip(state.wizards, chances, strict=True)]
        total = sum(alive)
        return [chance / total for chance in alive] if total else chances


# ----- text ---------------------------------------------------------------------------------------------------------


@lru_cache(maxsize=_CACHE)
def _payment_text(payment: Payment) -> str:
    return ", ".join(f"{kind_name(k)} as {element_name(e)}" for k, e in payment) or "nothing"


def describe_action(state: MagickaState, action: MagickaAction) -> str:
    """The action in words, distinct among one decision's choices; a cast at the acting wizard says "at yourself"
    (with a warning when it hurts), a snap spell says what it does."""
    payment = _payment_of(action)
    seats = state.header.pending.seats
    actor = seats[0] if len(seats) == 1 else -1
    own = not action.target.creature and action.target.seat == actor
    aim = "yourself" if own else target_name(state, action.target)
    kinds = ", ".join(kind_name(k) for k in action.kinds)
    t = action.type
    if t == TRADE_SPELL_FOR_ELEMENTS:
        return f"exchange {kinds} for 2 Element cards"
    if t == TRADE_ELEMENTS_FOR_SPELL:
        return f"exchange {kinds} for 1 Spell card"
    if t in (TRADE_ELEMENT, TRADE_SPELL):
        return f"exchange {kinds} for a new card"
    if t == DRAW_REPLACEMENTS:
        return "draw the replacement cards"
    if t == CAST_SPELL:
        spell = SPELL_BY_KIND.get(action.spell)
        extra = f" (+{action.extra} {element_name(spell.upgrade)})" if action.extra and spell else ""
        hurts = own and spell is not None and spell.type in (SpellType.DAMAGE, SpellType.BEAM)
        warning = " (it hurts you!)" if hurts else ""
        return f"cast {kind_name(action.spell)}{extra} at {aim}{warning} with {_payment_text(payment)}"
    if t == CAST_SNAP:
        extra = f" (+{action.extra})" if action.extra else ""
        what = SNAP_TEXT.get(action.element, "")
        hurts = own and action.element in (EARTH, LIGHTNING, ARCANE, FIRE)
        warning = " (it hurts you!)" if hurts else ""
        return (
            f"cast {SNAP_NAMES.get(action.element, '?')}{extra} ({what}) at {aim}{warning} "
            f"with {_payment_text(payment)}"
        )
    if t == REPAIR:
        return f"repair {action.extra} point(s) of the barrier on {aim} with {_payment_text(payment)}"
    if t == ATTACK:
        creature = find_creature(state, action.creature)
        attacker = target_name(state, creature_target(creature)) if creature else f"creature #{action.creature}"
        return f"{attacker} attacks {aim}"
    if t == DISCARD:
        return f"discard {kinds}"
    if t == ANSWER:
        what = SNAP_TEXT.get(action.element, "")
        return f"answer with {SNAP_NAMES.get(action.element, '?')} ({what}) paying {_payment_text(payment)}"
    if t == PASS:
        return "pass (let the spell through)"
    return "end the turn" if t == END_TURN else "?"


# ----- the rules' steps ----------------------------------------------------------------------------------------
# Module functions, not methods: the compiled code calls them directly, where a method of the (non-native) game
# class is looked up and called as a Python callable.


def _begin_turn(state: MagickaState, seat: int, events: list[Event]) -> None:
    """Start `seat`'s turn: beams, frozen skips, the draw. Skipped turns pass on clockwise."""
    limit = int(options(state)["round_limit"]) * state.header.config.seats
    while True:
        if state.turns_taken >= limit:
            _finish_on_health(state, events)
            return
        state.turns_taken += 1
        state.turn, state.phase, state.fire_spells = seat, MAIN, 0
        state.exchange_open, state.owed_elements, state.owed_spells = True, 0, 0
        for beam in [b for b in state.beams if b.caster == seat]:
            if beam in state.beams:
                spells.tick_beam(state, beam, events)
        if _check_end(state, events):
            return
        wizard = state.wizards[seat]
        frozen = wizard.frozen and not wizard.dead
        for creature in state.creatures:
            if creature.controller == seat:
                creature.ready = not creature.frozen and not frozen
                creature.frozen = False
        if frozen:
            own_wizard(state, seat).frozen = False
            events.append(event("TurnSkipped", f"seat {seat} is frozen and skipped the turn", actor=seat))
            seat = _next_seat(state, seat)
            continue
        events.append(event("TurnBegan", f"seat {seat}'s turn began", actor=seat))
        if not wizard.dead:
            _draw(state, seat, DRAW_ELEMENTS, DRAW_SPELLS, events)
        put_pending(state, [seat], TURN, _TURN_PROMPTS[seat])
        return


def _next_seat(state: MagickaState, seat: int) -> int:
    """'Play proceeds to Wizard's left (clockwise)', skipping the fallen."""
    seats = len(state.wizards)
    for step in range(1, seats + 1):
        other = (seat + step) % seats
        if spells.is_standing(state, other):
            return other
    return seat


def _check_end(state: MagickaState, events: list[Event]) -> bool:
    """'Gameplay proceeds until one Wizard (or its Creature!) remains standing.'"""
    living = 0
    for wizard in state.wizards[:]:
        if not wizard.dead:
            living += 1
            if living > 1:
                return False  # two living wizards stand (the usual case: no need to look at the creatures)
    standing = spells.standing(state)
    if len(standing) > 1:
        return False
    scores = [float(w.health) for w in state.wizards]
    if standing:
        reason = f"seat {standing[0]} (or its creature) is the last one standing"
    else:
        reason = "every remaining wizard fell at once: a draw"
    events.append(event("GameEnded", reason))
    finish(state, standing, scores, reason)
    _sync_counts(state)
    return True


def _finish_on_health(state: MagickaState, events: list[Event]) -> None:
    standing = spells.standing(state)
    best = max(state.wizards[s].health for s in standing)
    winners = [s for s in standing if state.wizards[s].health == best]
    reason = f"the round limit of {options(state)['round_limit']} rounds was reached: most Health wins"
    events.append(event("GameEnded", reason))
    finish(state, winners, [float(w.health) for w in state.wizards], reason)


def _after_action(state: MagickaState, events: list[Event]) -> None:
    """Check the end; give the turn on when the turn wizard's side has fallen; else wait for the turn wizard."""
    if _check_end(state, events):
        return
    phase = state.phase
    if phase == RESPONDING:
        _sync_counts(state)
        return
    if phase == DISCARDING:
        put_pending(state, [state.turn], TURN, f"seat {state.turn}: discard down to {HAND_LIMIT} cards")
        _sync_counts(state)
        return
    if not spells.is_standing(state, state.turn):
        _begin_turn(state, _next_seat(state, state.turn), events)
    else:
        state.phase = MAIN
        put_pending(state, [state.turn], TURN, _TURN_PROMPTS[state.turn])
    _sync_counts(state)


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


def _require_caster(state: MagickaState, seat: int, type_: int) -> None:
    if state.wizards[seat].dead:
        raise IllegalActionError("dead is dead", "'A Wizard with ZERO Health' cannot cast or exchange")
    if type_ not in TRADES and (state.owed_elements or state.owed_spells):
        raise IllegalActionError(
            "no piecemeal exchanging", "'all exchange cards must be Discarded BEFORE drawing replacement cards'"
        )


def _require_target(state: MagickaState, target: Target) -> None:
    """A living wizard, or a creature named with its controller's seat."""
    seat, number = target
    if number:
        creature = spells.find_creature(state, number)
        standing = creature is not None and creature.controller == seat
    else:
        standing = 0 <= seat < len(state.wizards) and not state.wizards[seat].dead
    if not standing:
        raise IllegalActionError("target", "the target must be a living wizard or creature")


def _require_payment(state: MagickaState, seat: int, payment: Payment, needs: Needs) -> None:
    problem = payment_problem(payment, needs, [_KIND[card] for card in state.wizards[seat].elements[:]])
    if problem:
        raise IllegalActionError("element cost", f"'Combine the listed Elements to Cast the Spell': {problem}")


def _apply_trade(state: MagickaState, seat: int, action: MagickaAction, move: Move) -> list[Event]:
    type_, kinds = move.type, move.kinds
    gives_spells, want, elements_owed, spells_owed = _EXCHANGES[type_]
    _require_caster(state, seat, type_)
    if not state.exchange_open:
        raise IllegalActionError(
            "exchange", "'All Card Exchanges occur at the BEGINNING of a Wizard's Turn', before any casting"
        )
    wizard = state.wizards[seat]
    hand = wizard.spells if gives_spells else wizard.elements
    if len(kinds) != want or not _holds(hand, kinds):
        raise IllegalActionError("exchange rate", f"this exchange discards {want} card(s) of kinds in the hand")
    wizard = own_wizard(state, seat)
    if gives_spells:
        hand, pile = wizard.spells, own_pile(state, "spell_discard")
        gone = [_take(hand, k) for k in kinds]
        wizard.spell_count = len(hand)
    else:
        hand, pile = wizard.elements, own_pile(state, "element_discard")
        gone = [_take(hand, k) for k in kinds]
        wizard.element_count = len(hand)
    pile.extend(gone)
    state.owed_elements += elements_owed
    state.owed_spells += spells_owed
    names = ", ".join(map(_CARD_NAMES.__getitem__, gone))
    return [event("CardsExchanged", f"seat {seat} discarded {names} to exchange", actor=seat)]


def _apply_draw_replacements(state: MagickaState, seat: int, action: MagickaAction, move: Move) -> list[Event]:
    if state.wizards[seat].dead or not state.owed_elements + state.owed_spells:
        raise IllegalActionError("exchange", "no exchange is waiting for its replacement cards")
    events: list[Event] = []
    _draw(state, seat, state.owed_elements, state.owed_spells, events)
    state.owed_elements = state.owed_spells = 0
    state.exchange_open = False
    return events


def _apply_cast_spell(state: MagickaState, seat: int, action: MagickaAction, move: Move) -> list[Event]:
    _require_caster(state, seat, CAST_SPELL)
    spell = SPELL_BY_KIND.get(move.spell)
    wizard = own_wizard(state, seat)
    if spell is None or move.spell not in [_KIND[card] for card in wizard.spells[:]]:
        raise IllegalActionError("spell card", "'Spell Card Spells require a Spell card' from your hand")
    extra = move.extra
    if extra < 0 or (extra and not spell.upgrade):
        raise IllegalActionError("upgrade", f"{spell.name} takes no additional Elements")
    _require_target(state, move.target)
    summon = spell.type is SpellType.SUMMON
    if summon and move.target != (seat, 0):
        raise IllegalActionError("target", "a summoning spell is aimed at its caster: the creature joins them")
    payment = move.payment
    _require_payment(state, seat, payment, _cast_needs(spell.kind, extra))
    state.exchange_open = False
    card = _take(wizard.spells, spell.kind)
    _pay(state, seat, payment)
    aim = "" if summon else f" at {target_name(state, action.target)}"
    events = [
        event(
            "SpellCast",
            f"seat {seat} cast {spell.name}{aim} with {_payment_text(payment)}",
            actor=seat,
        )
    ]
    damage = spells.cast_damage(state, spell)
    if spell.count_of(FIRE) >= 2:
        state.fire_spells += 1
    if summon:  # 'Summoning Spells CANNOT be Mayhemified.'
        spells.summon(state, seat, card, spell, extra, events)
        return events
    cast = type(state.cast)(caster=seat, spell=spell.kind, card=card, target=action.target, damage=damage)
    cast.extra = extra
    _open_window(state, cast, events)
    return events


def _open_window(state: MagickaState, cast: MagickaCast, events: list[Event]) -> None:
    """Spell vs. Spell: the target's wizard may answer a spell holding two or more of one Element."""
    spell = SPELL_BY_KIND[cast.spell]
    responder = controller(state, cast.target)
    if (
        is_spell_vs_spell(state)
        and spell.is_answerable()
        and responder != cast.caster
        and not state.wizards[responder].dead
    ):
        cast.responders[:] = [responder]
        put_cast(state, cast)
        state.phase = RESPONDING
        put_pending(state, [responder], RESPONSE, f"seat {responder}: answer {spell.name} or pass")
        return
    _resolve(state, cast, events)


def _resolve(state: MagickaState, cast: MagickaCast, events: list[Event]) -> None:
    """'Before any Spell Card Spell is able to hit its mark, it must pass Mayhem Muster.'"""
    spell = SPELL_BY_KIND[cast.spell]
    state.phase = MAIN
    state.ClearField("cast")
    own_pile(state, "spell_discard").append(cast.card)
    mayhem = options(state)["mayhem"] != "none"
    if cast.reflected and mayhem:  # 'Reflected Spell: Only NEW Target draws a Mayhem card.'
        spells.mayhem_hit(state, cast, cast.target, controller(state, cast.target), FULL, events)
    elif cast.reflected or spells.passes_muster(state):
        events.append(event("MusterPassed", f"{spell.name} passed the Mayhem Muster"))
        spells.hit(state, cast, cast.target, FULL, events)
    else:
        events.append(event("Mayhemified", f"{spell.name} failed the Mayhem Muster"))
        spells.mayhem_hit(state, cast, cast.target, cast.caster, FULL, events)


def _apply_cast_snap(state: MagickaState, seat: int, action: MagickaAction, move: Move) -> list[Event]:
    _require_caster(state, seat, CAST_SNAP)
    element, extra = move.element, move.extra
    if element not in SNAP_NAMES:
        raise IllegalActionError("snap spell", "'Snap Spells are Cast using two (2) IDENTICAL Elements'")
    if extra < 0 or (extra and element not in SNAP_EXTRA):
        raise IllegalActionError("snap spell", "only Shoddy Shield and Vitality Tonic take additional Elements")
    _require_target(state, move.target)
    payment = move.payment
    _require_payment(state, seat, payment, ((element, 2 + extra),))
    state.exchange_open = False
    _pay(state, seat, payment)
    name = SNAP_NAMES[element]
    events = [
        event(
            "SnapCast",
            f"seat {seat} cast {name} at {target_name(state, action.target)} with {_payment_text(payment)}",
            actor=seat,
        )
    ]
    if element == FIRE:
        state.fire_spells += 1
    spells.snap(state, seat, element, extra, action.target, events)
    return events


def _apply_repair(state: MagickaState, seat: int, action: MagickaAction, move: Move) -> list[Event]:
    _require_caster(state, seat, REPAIR)
    _require_target(state, move.target)
    hurt = body(state, action.target)
    missing = hurt.barrier_max - hurt.barrier if hurt and hurt.barrier else 0
    amount = move.extra
    if not 1 <= amount <= missing:
        raise IllegalActionError("barrier repair", "'repairs 1 Damage point up to INITIAL CASTING maximum'")
    payment = move.payment
    _require_payment(state, seat, payment, ((SHIELD, amount),))
    state.exchange_open = False
    _pay(state, seat, payment)
    events = [event("RepairCast", f"seat {seat} spent {_payment_text(payment)}", actor=seat)]
    spells.repair(state, action.target, amount, events)
    return events


def _apply_attack(state: MagickaState, seat: int, action: MagickaAction, move: Move) -> list[Event]:
    if state.owed_elements + state.owed_spells:
        raise IllegalActionError("no piecemeal exchanging", "draw the replacement cards first")
    creature = spells.find_creature(state, move.creature)
    if creature is None or creature.controller != seat:
        raise IllegalActionError("creature attack", "choose one of your own creatures")
    if not creature.ready:
        raise IllegalActionError(
            "creature attack",
            "'Summoned Creatures CANNOT attack on the same Turn in which they are Summoned', nor twice a turn",
        )
    _require_target(state, move.target)
    if move.target[1] == creature.number:
        raise IllegalActionError("creature attack", "a creature does not attack itself")
    state.exchange_open = False
    creature.ready = False
    name = target_name(state, spells.creature_target(creature))
    events = [event("CreatureAttacked", f"{name} attacked {target_name(state, action.target)}", actor=seat)]
    spells.deal_damage(state, action.target, creature.attack, name, events)
    return events


def _apply_end_turn(state: MagickaState, seat: int, action: MagickaAction, move: Move) -> list[Event]:
    if state.owed_elements + state.owed_spells:
        raise IllegalActionError("no piecemeal exchanging", "draw the replacement cards first")
    events = [event("TurnEnded", f"seat {seat} ended the turn", actor=seat)]
    if hand_size(state, seat) > HAND_LIMIT:
        state.phase = DISCARDING
        return events
    _begin_turn(state, _next_seat(state, seat), events)
    return events


def _apply_discard(state: MagickaState, seat: int, action: MagickaAction, move: Move) -> list[Event]:
    kind = move.kinds[0] if len(move.kinds) == 1 else -1
    wizard = own_wizard(state, seat)
    if kind in [_KIND[card] for card in wizard.elements[:]]:
        card = _take(wizard.elements, kind)
        own_pile(state, "element_discard").append(card)
    elif kind in [_KIND[card] for card in wizard.spells[:]]:
        card = _take(wizard.spells, kind)
        own_pile(state, "spell_discard").append(card)
    else:
        raise IllegalActionError("hand limit", "discard one card of a kind in your hand")
    events = [event("CardDiscarded", f"seat {seat} discarded {card_name(card)}", actor=seat)]
    if hand_size(state, seat) <= HAND_LIMIT:
        _begin_turn(state, _next_seat(state, seat), events)
    else:
        state.phase = DISCARDING
    return events


def _apply_pass(state: MagickaState, seat: int, action: MagickaAction, move: Move) -> list[Event]:
    cast = clone(state.cast)
    events = [event("AnswerPassed", f"seat {seat} let {SPELL_BY_KIND[cast.spell].name} through", actor=seat)]
    _resolve(state, cast, events)
    return events


def _apply_answer(state: MagickaState, seat: int, action: MagickaAction, move: Move) -> list[Event]:
    cast = clone(state.cast)
    spell = SPELL_BY_KIND[cast.spell]
    element = move.element
    kind = answer_kind(state, spell, element) if element in SNAP_NAMES else ""
    if not kind:
        raise IllegalActionError(
            "answer",
            "counter with an opposing Element, disrupt with the same Element (two of it in the spell), or reflect "
            "with a counter + Shield",
        )
    payment = move.payment
    reflect = kind == "counter" and any(e == SHIELD for _, e in payment)
    needs = tuple(sorted({element: 2, SHIELD: 1}.items())) if reflect else ((element, 2),)
    _require_payment(state, seat, payment, needs)
    _pay(state, seat, payment)
    verb = "reflected" if reflect else "countered" if kind == "counter" else "disrupted"
    snap = SNAP_NAMES[element] + (" + Shield" if reflect else "")
    events = [
        event("SpellAnswered", f"seat {seat} {verb} {spell.name} with {snap}", actor=seat),
    ]
    if verb == "disrupted":  # 'A Disrupted Spell FAILS with NO EFFECT.'
        own_pile(state, "spell_discard").append(cast.card)
        state.ClearField("cast")
        state.phase = MAIN
    elif verb == "countered":
        _explode(state, cast, seat, events)
    else:
        _reflect(state, cast, seat, events)
    return events


def _explode(state: MagickaState, cast: MagickaCast, seat: int, events: list[Event]) -> None:
    """'The Casting Wizard AND the Target Wizard(s) experience ALL Spell Effects & HALF the Spell's Damage.'"""
    own_pile(state, "spell_discard").append(cast.card)
    state.ClearField("cast")
    state.phase = MAIN
    caster = wizard_target(cast.caster)
    for aim, drawer in ((cast.target, seat), (caster, cast.caster)):
        if options(state)["mayhem"] == "none":
            spells.hit(state, cast, aim, HALF, events)
        else:  # 'Caster AND Target BOTH draw Mayhem cards'
            spells.mayhem_hit(state, cast, aim, drawer, HALF, events)


def _reflect(state: MagickaState, cast: MagickaCast, seat: int, events: list[Event]) -> None:
    """'The incoming Spell is reflected back to the original Caster' — who may answer it again."""
    back = clone(cast)
    back.caster = seat
    back.target.CopyFrom(wizard_target(cast.caster))
    back.reflected = True
    del back.responders[:]
    state.phase = MAIN
    state.ClearField("cast")
    _open_window(state, back, events)


GAME: Final = Magicka()
