"""Magicka Mayhem as a player looks at it, in text: the wizards with their health and barriers, the creatures with
attack and health, the beams, the spell in flight, whose turn and what the turn still owes, the seat's own hand with
what each spell needs. Seats are named only as "seat N" (clients put names there)."""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import Final

from manaforge.v1.games.magicka_pb2 import (
    MagickaAction,
    MagickaState,
    MagickaWizard,
)

from engine_core.game import options, wrap
from engine_core.games.magicka import spells
from engine_core.games.magicka.cards import (
    ANSWER,
    ARCANE,
    ATTACK,
    CAST_SNAP,
    CAST_SPELL,
    DISCARD,
    DRAW_REPLACEMENTS,
    EARTH,
    END_TURN,
    FIRE,
    LIGHTNING,
    PASS,
    REPAIR,
    SPELL_BY_KIND,
    TRADE_ELEMENT,
    TRADE_ELEMENTS_FOR_SPELL,
    TRADE_SPELL,
    TRADE_SPELL_FOR_ELEMENTS,
    SpellType,
    card_name,
    cost_elements,
    element_card,
    element_name,
    elements_text,
    kind_name,
    kind_of,
    missing_elements,
)
from engine_core.games.magicka.moves import _CACHE, DISCARDING, MAIN, RESPONDING, _payment_of
from engine_core.games.magicka.payment import (
    Payment,
)
from engine_core.games.magicka.spells import (
    SNAP_NAMES,
    SNAP_TEXT,
    creature_target,
    find_creature,
    target_name,
)

WIDTH: Final = 100
INDENT: Final = "  "
MODES: Final = {"spellmageddon": "Spellmageddon", "spell_vs_spell": "Spell vs. Spell"}


def render(view: MagickaState, seat: int | None, hand_limit: int) -> str:
    opts = options(view)
    n = len(view.wizards)
    rounds = f"round {max(1, (view.turns_taken + n - 1) // n)} of {opts['round_limit']}"
    mode = MODES.get(opts["mode"], opts["mode"])
    if view.header.outcome.finished:
        head = f"Magicka Mayhem ({mode}) · game over in {rounds}"
    else:
        head = f"Magicka Mayhem ({mode}) · {rounds} · {_turn(view, hand_limit)}"
    lines = [
        head,
        f"Last wizard standing wins. Decks: {view.element_deck_size} Element, {view.spell_deck_size} Spell, "
        f"{view.mayhem_deck_size} Mayhem cards",
        "Wizards:",
    ]
    for s, wizard in enumerate(view.wizards):
        lines += wrap(f"seat {s}: {_wizard(wizard)}", WIDTH, INDENT, INDENT * 3)
    if view.creatures:
        lines.append("Creatures:")
        for c in view.creatures:
            flags = [f for f, on in (("wet", c.wet), ("frozen", c.frozen)) if on]
            if c.ready:
                flags.append("ready to attack")
            barrier = f", barrier {c.barrier} of {c.barrier_max}" if c.barrier else ""
            lines.append(
                f"{INDENT}{spells.target_name(view, spells.creature_target(c))}: attack {c.attack}, "
                f"health {c.health} of {c.max_health}{barrier}" + "".join(f", {flag}" for flag in flags)
            )
    for b in view.beams:
        lines.append(
            f"Beam: seat {b.caster}'s {SPELL_BY_KIND[b.spell].name} at {spells.target_name(view, b.target)}, "
            f"{b.damage} damage a turn, {b.turns_left} more turn{'s' * (b.turns_left != 1)}"
        )
    if view.HasField("cast"):
        flying = view.cast
        damage = f", {flying.damage} damage" if flying.damage else ""
        lines.append(
            f"Spell in flight: seat {flying.caster}'s {SPELL_BY_KIND[flying.spell].name} at "
            f"{spells.target_name(view, flying.target)}{damage}{' (reflected)' if flying.reflected else ''}"
            " · other wizards may answer it with a snap spell"
        )
    if seat is not None and 0 <= seat < n:
        lines += _hand(view.wizards[seat], seat)
    owed = _owed(view)
    if owed:
        lines += wrap(owed, WIDTH, "", INDENT)
    return "\n".join(lines)


def _turn(view: MagickaState, hand_limit: int) -> str:
    if view.phase == DISCARDING:
        return f"seat {view.turn} discards down to {hand_limit} cards"
    if view.phase == RESPONDING:
        waiting = list(view.header.pending.seats)
        return f"seat {view.turn}'s turn; " + (
            f"seat {waiting[0]} may answer the spell" if len(waiting) == 1 else "the spell may be answered"
        )
    return f"seat {view.turn}'s turn"


def _wizard(wizard: MagickaWizard) -> str:
    if wizard.dead:
        return "defeated"
    said = [f"{wizard.health} health"]
    if wizard.barrier:
        said.append(f"barrier {wizard.barrier} of {wizard.barrier_max}")
    if wizard.wet:
        said.append("wet")
    if wizard.frozen:
        said.append("frozen (skips the next turn)")
    held = wizard.element_count + wizard.spell_count
    said.append(f"{held} cards in hand ({wizard.element_count} Element, {wizard.spell_count} Spell)")
    return ", ".join(said)


def _hand(wizard: MagickaWizard, seat: int) -> list[str]:
    if wizard.dead or not (wizard.elements or wizard.spells):
        return []
    counts = Counter(card_name(c) for c in sorted(wizard.elements))
    elements = ", ".join(name + (f" ×{count}" if count > 1 else "") for name, count in counts.items())
    lines = [f"seat {seat}'s hand:", *wrap(f"Elements: {elements or 'none'}", WIDTH, INDENT, INDENT * 3)]
    spell_counts = Counter(kind_of(card) for card in wizard.spells)
    for kind, count in spell_counts.items():
        spell = SPELL_BY_KIND[kind]
        does = f"summons a creature, attack {spell.attack}, health {spell.health}" if spell.attack else spell.text
        copies = f" ×{count}" if count > 1 else ""
        needs = elements_text(cost_elements(spell.cost))
        lines += wrap(f"{spell.name}{copies} (needs {needs}): {does}", WIDTH, INDENT, INDENT * 3)
    return lines


def _owed(view: MagickaState) -> str:
    """What the turn still owes, in words: the replacements of this turn's exchanges."""
    if view.header.outcome.finished or view.phase != MAIN:
        return ""
    owed = [
        f"{count} {kind} card{'s' * (count != 1)}"
        for count, kind in ((view.owed_elements, "Element"), (view.owed_spells, "Spell"))
        if count
    ]
    if owed:
        return (
            f"seat {view.turn} exchanged cards and is owed {' and '.join(owed)} as replacements: exchange more, "
            "or draw them, before casting"
        )
    if view.exchange_open:
        return f"seat {view.turn} may still exchange cards (until the first spell is cast)"
    return ""


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


def card_notes(state: MagickaState, seat: int, legal: list[MagickaAction]) -> dict[int, str]:
    """Why each Spell card in `seat`'s hand that no legal action casts cannot be cast now (a card the exchange
    could trade still gets its note: it says what casting it takes): the Elements its hand lacks ("needs Fire and
    Fire"), else the moment ("not your turn")."""
    wizard = state.wizards[seat]
    if state.header.outcome.finished or wizard.dead or not wizard.spells:
        return {}
    used: set[int] = set()
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
