"""Urza's Blueprints in words: each action described, and the table as a player sees it (`render_view`)."""

from __future__ import annotations

from typing import Final

from manaforge.v1.cards_pb2 import MagicCard
from manaforge.v1.games.blueprints_pb2 import (
    BlueprintsAction,
    BlueprintsPhase,
    BlueprintsPlayer,
    BlueprintsState,
)

from engine_core.cards import COLORS
from engine_core.game import seat_count, wrap
from engine_core.games.blueprints.locations import (
    CARDS_PER_LOCATION,
    LOCATION_NAMES,
    LOCATIONS,
    MINE,
    POWER_PLANT,
    TOWER,
    Location,
    assignment,
    describe_value,
)
from engine_core.games.blueprints.rules import (
    DISCARD_PILE,
    built,
    card_name,
    card_of,
    format_card,
    hand_cards,
    round_limit,
)


def _hand_card_text(state: BlueprintsState, card: int) -> str:
    """A card of the pending seat's hand by name, told apart from others of that name: foil, seen by everyone
    (taken from the discard pile), or which copy."""
    name = card_name(state, card)
    for player in state.players:
        if card in player.hand:
            marks = ["foil"] * card_of(state, card).foil + ["the one everyone saw"] * (card in player.known)
            mine = _marks(state, player, card)
            same = [c for c in player.hand if card_name(state, c) == name and _marks(state, player, c) == mine]
            if len(same) > 1:
                marks.append(f"copy {same.index(card) + 1}")
            return name + (f" ({', '.join(marks)})" if marks else "")
    return name


def _marks(state: BlueprintsState, player: BlueprintsPlayer, card: int) -> int:
    return int(card_of(state, card).foil) + 2 * (card in player.known)


WANTS: Final = {MINE: "five card types", POWER_PLANT: "the five colours", TOWER: "five mana values"}
PHASE_WORDS: Final = {
    BlueprintsPhase.BLUEPRINTS_PHASE_DRAW: "draws",
    BlueprintsPhase.BLUEPRINTS_PHASE_DISCARD: "discards",
    BlueprintsPhase.BLUEPRINTS_PHASE_BUILD: "may build",
}


def render_view(view: BlueprintsState, seat: int | None) -> str:
    """The table as its players look at it: the race to three locations, the discard pile's top, the seat's hand and
    how close it is to each location it has not built. Seats only as "seat N"."""
    n = seat_count(view)
    rounds = f"round {max(1, (view.turn + n - 1) // n)} of {round_limit(view)}"
    pending = view.header.pending.seats
    if view.header.outcome.finished:
        head = f"Urza's Blueprints · game over in {rounds}"
    else:
        head = f"Urza's Blueprints · {rounds} · seat {pending[0]} {PHASE_WORDS.get(view.phase, 'plays')}"
    pile = view.discard_pile
    tops = [card_name(view, card) for card in pile[:-4:-1]]  # the top three, top first
    top = f"top {tops[0]}" + (f", then {', '.join(tops[1:])}" if len(tops) > 1 else "") if tops else "empty"
    lines = [
        f"{head} · first to build all three locations wins",
        "  " + " · ".join(f"{LOCATION_NAMES[loc]}: {WANTS[loc]}" for loc in LOCATIONS) + " (a foil is wild)",
    ]
    lines += wrap(f"Deck: {view.deck_size} cards · discard pile: {len(pile)}, {top}", 100, "", "  ")
    for index, player in enumerate(view.players):
        done = ", ".join(LOCATION_NAMES[c.location] for c in player.constructions) or "nothing yet"
        known = [card_name(view, card) for card in player.known] if index != seat else []
        seen = f"; seen taking {', '.join(known)}" if known else ""
        said = f"  seat {index}: built {done} ({len(player.constructions)} of 3) · {player.hand_size} cards{seen}"
        lines += wrap(said, 100, "", "      ")
    if seat is not None and 0 <= seat < n and view.players[seat].hand:
        player = view.players[seat]
        lines.append(f"seat {seat}'s hand:")
        lines += [f"  {format_card(card_of(view, card))}" for card in player.hand]
        cards = hand_cards(view, seat)
        for location in LOCATIONS:
            if location not in built(player):
                lines.append(f"  {LOCATION_NAMES[location]}: {_closeness(cards, location)}")
    return "\n".join(lines)


def _closeness(cards: list[MagicCard], location: Location) -> str:
    """How far the hand goes toward a location: "3 of 5 (green, blue, white; missing black, red)"."""
    values = sorted((value for value in assignment(cards, location) if value is not None), key=_value_order)
    have = min(len(values), CARDS_PER_LOCATION)
    if location == TOWER:
        said = f"mana values {', '.join(values)}" if values else "none yet"
    else:
        said = ", ".join(describe_value(value, location) for value in values) or "none yet"
    if location == POWER_PLANT and have < CARDS_PER_LOCATION:
        said += "; missing " + ", ".join(describe_value(c, location) for c in COLORS if c not in values)
    return f"{have} of {CARDS_PER_LOCATION} ({said})"


def _value_order(value: str) -> tuple[int, str]:
    """Mana values by number, colours in the colour wheel's order (WUBRG), card types alphabetically."""
    if value.isdigit():
        return int(value), ""
    return (COLORS.index(value), "") if value in COLORS else (0, value)


def describe(state: BlueprintsState, action: BlueprintsAction) -> str:
    choice = action.WhichOneof("choice")
    if choice == "draw":
        if action.draw == DISCARD_PILE and state.discard_pile:
            return f"take {card_name(state, state.discard_pile[-1])} from the discard pile"
        return "draw from the deck"
    if choice == "discard":
        return f"discard {_hand_card_text(state, action.discard)}"
    if choice == "build":
        names = " and ".join(LOCATION_NAMES.get(location, "?") for location in action.build.locations)
        return f"reveal the hand and build the {names}"
    return "keep the hand"
