"""ManaSurge as a player looks at it, in text: each player's stones against the goal, the round's spell rule (the
Caster card) and what the next card must follow, the cards on the table with their stones, the roles and their
powers, the seat's own hand. Seats are named only as "seat N" (clients put names there)."""

from __future__ import annotations

from typing import Final

from manaforge.v1.games.manasurge_pb2 import ManasurgeState

from engine_core.game import wrap
from engine_core.games.manasurge import rules
from engine_core.games.manasurge.cards import (
    MAGIC_NAMES,
    ROLE_NAMES,
    ROLE_TEXT,
    SPELL_NAMES,
    Magic,
    Role,
    Spell,
    card_name,
    is_magic,
    spell_name,
    stones_text,
)

WIDTH: Final = 100
RULES: Final = {
    Spell.FLYING_DAGGER: "numbers go down; who cannot follow takes 1 more penalty card",
    Spell.FIREBALL: "who cannot follow takes 2 more penalty cards",
    Spell.FREEZE: "a Freeze above it gets a stone and gives the next player a card",
    Spell.THUNDER: "a Thunder above it gets a stone and plays one more card",
    Spell.EARTHQUAKE: "if the Caster is not the one who cannot follow, everyone else takes a penalty card",
}


def render(view: ManasurgeState, seat: int | None) -> str:
    numbers = rules.numbers_of(view)
    goal = rules.winning_stones(view)
    pending = view.header.pending.seats
    if view.header.outcome.finished:
        head = f"ManaSurge · game over after round {view.round} · first to {goal} stones wins"
    else:
        whose = f" · seat {pending[0]}'s turn" if pending else ""
        head = f"ManaSurge · round {view.round} · first to {goal} stones wins{whose}"
    lines = [head]
    if view.table:
        rule = Spell(view.caster_spell)
        better = "lower" if rules.is_descending(view) else "higher"
        said = RULES[rule]
        if rule not in (Spell.FREEZE, Spell.THUNDER):
            said += f"; a {better} {SPELL_NAMES[rule]} gets a stone"
        caster_card = spell_name(view.caster_spell, view.caster_number)
        lines += _wrap(f"Round's rule: {caster_card}, seat {view.caster}'s Caster card: {said}")
        top = spell_name(view.top_spell, view.top_number)
        way = "clockwise" if view.clockwise else "counter-clockwise"
        at_stake = rules.table_stones(view) + rules.spell_bonus(view.caster_spell)
        lines += _wrap(
            f"To follow {top}: {_a(view.top_number)}, a {better} {SPELL_NAMES[Spell(view.top_spell)]}, or any Magic "
            f"card · play goes {way} ({view.reversals} of {rules.REVERSAL_LIMIT} reversals used) · who cannot "
            f"follow takes {at_stake} penalty card{'s' * (at_stake != 1)}"
        )
        played = [_played(p, numbers) for p in view.table]
        lines += _wrap("On the table: " + " · ".join(played))
    elif not view.header.outcome.finished:
        lines.append(f"Caster Token: seat {view.caster} (opens the round with a spell card and chooses the direction)")
    lines.append(f"Stones (goal {goal}):")
    for s, player in enumerate(view.players):
        bar = "■" * min(player.stones, goal) + "·" * max(0, goal - player.stones)
        over = f"+{player.stones - goal}" if player.stones > goal else ""
        cards = f"{player.hand_size} card{'s' * (player.hand_size != 1)}"
        penalty = f", {player.penalty_size} penalty face down" if player.penalty_size else ""
        lines.append(f"  {bar}{over} {stones_text(player.stones):<20} seat {s} · {cards}{penalty}")
    roles = [(s, Role(p.role)) for s, p in enumerate(view.players) if p.role]
    if roles:
        lines.append("Roles (each bends one rule for its holder):")
        for s, role in roles:
            lines += wrap(f"{ROLE_NAMES[role]} (seat {s}): {ROLE_TEXT[role]}", WIDTH, "  ", "    ")
    if seat is not None and 0 <= seat < len(view.players) and view.players[seat].hand:
        hand = ", ".join(card_name(c, numbers) for c in sorted(view.players[seat].hand))
        lines += _wrap(f"seat {seat}'s hand: {hand}")
    lines.append(f"Draw pile: {view.deck_size} cards · discard pile: {len(view.discard)}")
    return "\n".join(lines)


def _played(played: rules.Played, numbers: str) -> str:
    name = card_name(played.id, numbers)
    if is_magic(played.id) and played.spell:
        name += f" as {spell_name(played.spell, played.number)}"
    elif is_magic(played.id) and played.magic != Magic.SHADOW_MIRROR and name != MAGIC_NAMES[Magic(played.magic)]:
        name += f" as {MAGIC_NAMES[Magic(played.magic)]}"
    stones = f", {played.stones} stone{'s' * (played.stones != 1)}" if played.stones else ""
    return f"{name} (seat {played.seat}{stones})"


def _a(number: int) -> str:
    return f"{'an' if str(number).startswith('8') or number in (11, 18) else 'a'} {number}"


def _wrap(text: str) -> list[str]:
    return wrap(text, WIDTH, "", "  ")
