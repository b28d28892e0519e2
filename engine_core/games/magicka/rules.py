"""Magicka's rules: each action applied (`apply`), validated before it changes anything, then the turn's next step
(turns.py). Module functions, not methods: the compiled code calls them directly, where a method of the
(non-native) game class is looked up and called as a Python callable. Every change to a wizard or a pile takes it
first (sharing.py)."""

from __future__ import annotations

from collections.abc import MutableSequence
from typing import Final

from manaforge.v1.common_pb2 import Event
from manaforge.v1.games.magicka_pb2 import (
    MagickaAction,
    MagickaCast,
    MagickaState,
)

from engine_core.errors import IllegalActionError, MalformedActionError
from engine_core.game import RESPONSE, event, options
from engine_core.games.magicka import spells
from engine_core.games.magicka.cards import (
    ANSWER,
    ATTACK,
    CAST_SNAP,
    CAST_SPELL,
    DISCARD,
    DRAW_REPLACEMENTS,
    END_TURN,
    FIRE,
    PASS,
    REPAIR,
    SHIELD,
    SPELL_BY_KIND,
    TRADE_ELEMENT,
    TRADE_ELEMENTS_FOR_SPELL,
    TRADE_SPELL,
    TRADE_SPELL_FOR_ELEMENTS,
    SpellType,
    card_name,
)
from engine_core.games.magicka.moves import (
    _KIND,
    _STEP_ACTIONS,
    DISCARDING,
    MAIN,
    RESPONDING,
    TRADES,
    Move,
    Target,
    _cast_needs,
    _move,
    answer_kind,
)
from engine_core.games.magicka.payment import (
    Needs,
    Payment,
    payment_problem,
)
from engine_core.games.magicka.sharing import (
    own_pile,
    own_wizard,
    put_cast,
    put_pending,
)
from engine_core.games.magicka.spells import (
    FULL,
    HALF,
    SNAP_EXTRA,
    SNAP_NAMES,
    body,
    controller,
    target_name,
    wizard_target,
)
from engine_core.games.magicka.text import _payment_text
from engine_core.games.magicka.turns import (
    _CARD_NAMES,
    HAND_LIMIT,
    _after_action,
    _begin_turn,
    _draw,
    _next_seat,
    _sync_counts,
    hand_size,
    is_spell_vs_spell,
)
from engine_core.live import clone


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


def _pay(state: MagickaState, seat: int, payment: Payment) -> list[int]:
    wizard = own_wizard(state, seat)
    paid = [_take(wizard.elements, kind) for kind, _ in payment]
    own_pile(state, "element_discard").extend(paid)
    return paid


def apply(state: MagickaState, seat: int, action: MagickaAction) -> list[Event]:
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
