"""Magicka's action messages read: the fields each action type may set, each message read once into a `Move`, every
shared message by its index (`_shared`, `_listed`); and the action space (`spaces`)."""

from __future__ import annotations

from collections import Counter
from typing import Any, Final, NamedTuple

from manaforge.v1.common_pb2 import GameConfig
from manaforge.v1.games.magicka_pb2 import (
    MagickaAction,
    MagickaPayment,
    MagickaPhase,
    MagickaState,
    MagickaTarget,
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
    MASKS,
    Needs,
    Payment,
    remember,
    value,
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


# ----- reading an action ---------------------------------------------------------------------------------------------


def element_kinds(state: MagickaState, seat: int) -> Counter[int]:
    return Counter(map(_KIND_OF.__getitem__, state.wizards[seat].elements[:]))


def spell_kinds(state: MagickaState, seat: int) -> Counter[int]:
    return Counter(map(_KIND_OF.__getitem__, state.wizards[seat].spells[:]))


def _payment_of(action: MagickaAction) -> Payment:
    return tuple(sorted((p.kind, p.element) for p in action.payment))


Target = tuple[int, int]  # a target as (seat, creature number), as an applied move names it (`Move.target`)


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
_LIMIT: Final = 1 << 14  # lists kept per table before it starts again
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
