"""Magicka Mayhem as a player looks at it, in text: the wizards with their health and barriers, the creatures with
attack and health, the beams, the spell in flight, whose turn and what the turn still owes, the seat's own hand with
what each spell needs. Seats are named only as "seat N" (clients put names there)."""

from __future__ import annotations

from collections import Counter
from typing import Final

from manaforge.v1.games.magicka_pb2 import MagickaPhase, MagickaState, MagickaWizard

from engine_core.game import options, wrap
from engine_core.games.magicka import spells
from engine_core.games.magicka.cards import (
    SPELL_BY_KIND,
    card_name,
    cost_elements,
    elements_text,
    kind_of,
)

WIDTH: Final = 100
INDENT: Final = "  "
MODES: Final = {"spellmageddon": "Spellmageddon", "spell_vs_spell": "Spell vs. Spell"}
MAIN: Final = MagickaPhase.MAGICKA_PHASE_MAIN
DISCARD: Final = MagickaPhase.MAGICKA_PHASE_DISCARD
RESPONSE: Final = MagickaPhase.MAGICKA_PHASE_RESPONSE


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
    if view.phase == DISCARD:
        return f"seat {view.turn} discards down to {hand_limit} cards"
    if view.phase == RESPONSE:
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
