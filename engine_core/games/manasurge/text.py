"""ManaSurge as a player looks at it, in text: each player's stones against the goal, the round's spell rule (the
Caster card) and what the next card must follow, the cards on the table with their stones, the roles and their
powers, the seat's own hand. Seats are named only as "seat N" (clients put names there)."""

from __future__ import annotations

from typing import Final

from manaforge.v1.games.manasurge_pb2 import ManasurgeAction, ManasurgeState

from engine_core.game import wrap
from engine_core.games.manasurge import actions
from engine_core.games.manasurge.actions import CARD_MOVES, Move, numbers_of
from engine_core.games.manasurge.cards import (
    DECK_SIZE,
    MAGIC_NAMES,
    NUMBERS,
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
    numbers = actions.numbers_of(view)
    goal = actions.winning_stones(view)
    pending = view.header.pending.seats
    if view.header.outcome.finished:
        head = f"ManaSurge · game over after round {view.round} · first to {goal} stones wins"
    else:
        whose = f" · seat {pending[0]}'s turn" if pending else ""
        head = f"ManaSurge · round {view.round} · first to {goal} stones wins{whose}"
    lines = [head]
    if view.table:
        rule = Spell(view.caster_spell)
        better = "lower" if actions.is_descending(view) else "higher"
        said = RULES[rule]
        if rule not in (Spell.FREEZE, Spell.THUNDER):
            said += f"; a {better} {SPELL_NAMES[rule]} gets a stone"
        caster_card = spell_name(view.caster_spell, view.caster_number)
        lines += _wrap(f"Round's rule: {caster_card}, seat {view.caster}'s Caster card: {said}")
        top = spell_name(view.top_spell, view.top_number)
        way = "clockwise" if view.clockwise else "counter-clockwise"
        at_stake = actions.table_stones(view) + actions.spell_bonus(view.caster_spell)
        lines += _wrap(
            f"To follow {top}: {_a(view.top_number)}, a {better} {SPELL_NAMES[Spell(view.top_spell)]}, or any Magic "
            f"card · play goes {way} ({view.reversals} of {actions.REVERSAL_LIMIT} reversals used) · who cannot "
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


def _played(played: actions.Played, numbers: str) -> str:
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


_NAMES: Final = {numbers: tuple(card_name(card, numbers) for card in range(DECK_SIZE)) for numbers in NUMBERS}


def card_notes(state: ManasurgeState, seat: int, legal: list[ManasurgeAction] | None = None) -> dict[int, str]:
    """Why each card of `seat`'s hand that no legal action uses cannot be played now."""
    hand = state.players[seat].hand[:]
    header = state.header
    if header.outcome.finished or not hand:
        return {}
    if seat not in header.pending.seats:
        return dict.fromkeys(hand, "not your turn")
    numbers = numbers_of(state)
    names = _NAMES[numbers]
    if legal is None:
        legal = actions.legal_actions(state, seat)
    used = {names[a.card] for a in legal if a.move in CARD_MOVES}
    step = state.step
    if step == actions.OPEN_STEP:
        why = "a round opens with a spell card"
    elif step == actions.WILD_STEP:
        why = "Wild Surge plays a spell card"
    elif step == actions.PLAY_STEP or step == actions.THUNDER_STEP:
        way = "lower" if state.caster_spell == Spell.FLYING_DAGGER else "higher"
        top = spell_name(state.top_spell, state.top_number)
        why = f"does not follow {top}: play a {top.split()[-1]} or a {way} {top.rsplit(' ', 1)[0]}"
    else:
        why = "not now: " + header.pending.prompt
    return {card: why for card in hand if names[card] not in used}


def describe(state: ManasurgeState, action: ManasurgeAction) -> str:
    numbers = numbers_of(state)
    move = action.move
    if move == Move.MANASURGE_MOVE_OPEN:
        way = "clockwise" if action.clockwise else "counter-clockwise"
        return f"open the round with {card_name(action.card, numbers)}, {way}"
    if move == Move.MANASURGE_MOVE_PLAY:
        return f"play {card_name(action.card, numbers)}"
    if move == Move.MANASURGE_MOVE_GIVE:
        seats = state.header.pending.seats
        to = f"seat {actions.next_seat(state, seats[0])}" if len(seats) == 1 else "the next player"
        return f"give {card_name(action.card, numbers)} to {to}"
    if move == Move.MANASURGE_MOVE_DISCARD:
        return f"discard {card_name(action.card, numbers)}"
    if move == Move.MANASURGE_MOVE_TARGET:
        return f"choose seat {action.target}"
    if move == Move.MANASURGE_MOVE_DECLINE:
        return "decline the ability"
    if move == Move.MANASURGE_MOVE_CONCEDE:
        return "take the penalty: no valid card"
    return "an unknown move"
