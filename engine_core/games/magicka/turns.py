"""Magicka's turns: the setup, the deal and the draws, a turn begun (beams, frozen skips, the draw), the step after
every action (deaths, the end of the game, whose decision is next) and the counts a view shows. Module functions,
not methods: the compiled code calls them directly. Every change to a wizard or a pile takes it first (sharing.py)."""

from __future__ import annotations

from typing import Final

from manaforge.v1.common_pb2 import Event
from manaforge.v1.games.magicka_pb2 import (
    MagickaState,
)

from engine_core import rng
from engine_core.game import TURN, event, finish, options
from engine_core.games.magicka import spells
from engine_core.games.magicka.cards import (
    CATALOGUE,
    card_name,
)
from engine_core.games.magicka.moves import (
    _KIND_OF,
    DISCARDING,
    MAIN,
    MAX_SEATS,
    RESPONDING,
)
from engine_core.games.magicka.sharing import (
    own_pile,
    own_rng,
    own_wizard,
    put_pending,
)
from engine_core.games.magicka.spells import (
    STARTING_HEALTH,
)
from engine_core.live import changed_indices

DEAL_ELEMENTS: Final = 5
DEAL_SPELLS: Final = 3
DRAW_ELEMENTS: Final = 2
DRAW_SPELLS: Final = 1
HAND_LIMIT: Final = 10
_CARD_NAMES: Final = {card: card_name(card) for card in _KIND_OF}
ROUND_LIMITS: Final = ("50", "100", "200")
# A turn holds at most ~200 actions (13 cards in hand at its start, each trade, cast, answer and discard uses a card,
# 26 cards at most after trades, 6 creatures); the round limit bounds the turns.
ACTIONS_PER_TURN: Final = 200
_TURN_PROMPTS: Final = tuple(f"seat {seat}: exchange, cast, attack or end the turn" for seat in range(MAX_SEATS))


def is_spell_vs_spell(state: MagickaState) -> bool:
    return options(state)["mode"] == "spell_vs_spell"


def hand_size(state: MagickaState, seat: int) -> int:
    wizard = state.wizards[seat]
    return len(wizard.elements) + len(wizard.spells)


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


def setup(state: MagickaState) -> None:
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
