"""The three locations of Urza's Blueprints and when five cards build one.

Each location asks for five cards with five different values of one kind: a card type (Mine), a colour (Power
Plant, exactly W U B R G), a mana value (Tower). A card offers the values it may stand for (a multicoloured card any
one of its colours, an Artifact Creature either of its types); a foil is wild and stands for any value. Whether a hand
builds a location is a matching problem: the non-foil cards need distinct values (Kuhn's augmenting paths on at most
six cards), and the foils fill the rest (there are always enough values left: five colours for five cards, nine
card types, unbounded mana values).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import TypeAlias

from manaforge.v1.cards_pb2 import MagicCard
from manaforge.v1.games.blueprints_pb2 import BlueprintsLocation

from engine_core.cards import COLORS, is_land, memo_by_content

MINE = BlueprintsLocation.BLUEPRINTS_LOCATION_MINE
POWER_PLANT = BlueprintsLocation.BLUEPRINTS_LOCATION_POWER_PLANT
TOWER = BlueprintsLocation.BLUEPRINTS_LOCATION_TOWER
LOCATIONS = (MINE, POWER_PLANT, TOWER)
LOCATION_NAMES = {MINE: "Mine", POWER_PLANT: "Power Plant", TOWER: "Tower"}
CARDS_PER_LOCATION = 5
CARD_TYPES = ("Artifact", "Battle", "Creature", "Enchantment", "Instant", "Kindred", "Land", "Planeswalker", "Sorcery")
COLOR_WORDS = {"W": "white", "U": "blue", "B": "black", "R": "red", "G": "green"}

Location: TypeAlias = BlueprintsLocation.ValueType
Value: TypeAlias = str


def values(card: MagicCard, location: Location) -> tuple[Value, ...]:
    """What a non-foil card may stand for in a location: its card types (Mine), its colours (Power Plant; lands
    are colorless), its mana value (Tower; lands have mana value 0)."""
    if location == MINE:
        return tuple(card.types)
    if location == POWER_PLANT:
        return () if is_land(card) else _colors_in_order(tuple(card.colors))
    return ("0",) if is_land(card) else (str(card.mana_value),)


@cache
def _colors_in_order(colors: tuple[str, ...]) -> tuple[Value, ...]:
    return tuple(color for color in COLORS if color in colors)


_ALL_VALUES: dict[Location, tuple[Value, ...]] = {
    MINE: CARD_TYPES,
    POWER_PLANT: COLORS,
    TOWER: tuple(str(value) for value in range(100)),
}


def all_values(location: Location) -> tuple[Value, ...]:
    """The values a foil may stand for, in the order a wild card takes them."""
    return _ALL_VALUES[location]


def assignment(cards: Sequence[MagicCard], location: Location) -> list[Value | None]:
    """The largest set of distinct values the cards can stand for at once: per card its value, None for a card
    left out. Foils take the values left over."""
    choices = _choices(cards, location)
    matched: dict[Value, int] = {}
    for index, card in enumerate(cards):
        if not card.foil:
            _augment(index, choices, matched, set())
    result: list[Value | None] = [None] * len(cards)
    for value, index in matched.items():
        result[index] = value
    foils = [index for index, card in enumerate(cards) if card.foil]
    spare = iter(value for value in all_values(location) if value not in matched)
    for index in foils:
        result[index] = next(spare, None)
    return result


def _choices(cards: Sequence[MagicCard], location: Location) -> list[tuple[Value, ...]]:
    """Each card's values, read once (a foil's are not needed: it is never matched)."""
    return [() if card.foil else values(card, location) for card in cards]


def _augment(index: int, choices: list[tuple[Value, ...]], matched: dict[Value, int], seen: set[Value]) -> bool:
    for value in choices[index]:
        if value in seen:
            continue
        seen.add(value)
        holder = matched.get(value)
        if holder is None or _augment(holder, choices, matched, seen):
            matched[value] = index
            return True
    return False


def progress(cards: Sequence[MagicCard], location: Location) -> int:
    """How many of the location's five places the cards fill at once (at most five)."""
    return min(CARDS_PER_LOCATION, sum(value is not None for value in assignment(cards, location)))


def builds(cards: Sequence[MagicCard], location: Location) -> bool:
    """True when exactly these five cards build the location: every non-foil card gets a value of its own (the
    foils then always find values left over), so the matching stops at the first card that cannot."""
    if len(cards) != CARDS_PER_LOCATION:
        return False
    choices: list[tuple[Value, ...]] = []  # read card by card: most hands fail early
    matched: dict[Value, int] = {}
    for index, card in enumerate(cards):
        if card.foil:
            choices.append(())
        else:
            choices.append(values(card, location))
            if not _augment(index, choices, matched, set()):
                return False
    return True


# A non-foil card's values at each location (Mine, Power Plant, Tower), read from the card once; None for a foil.
CardValues: TypeAlias = tuple[tuple[Value, ...], tuple[Value, ...], tuple[Value, ...]] | None


def _card_values(card: MagicCard) -> CardValues:
    """`values(card, location)` for the three locations, with one read of each field (None: a foil, wild)."""
    if card.foil:
        return None
    types = tuple(card.types)
    if "Land" in types:
        return types, (), ("0",)
    return types, _colors_in_order(tuple(card.colors)), (str(card.mana_value),)


card_values = memo_by_content(_card_values)  # asked of every card in hand at every discard


def builds_values(hand: tuple[CardValues, ...], location: Location) -> bool:
    """`builds` over the cards' values (`card_values`): the same matching without reading the cards again."""
    if len(hand) != CARDS_PER_LOCATION:
        return False
    at = LOCATIONS.index(location)
    choices: list[tuple[Value, ...]] = []
    matched: dict[Value, int] = {}
    for index, card in enumerate(hand):
        if card is None:
            choices.append(())
        else:
            choices.append(card[at])
            if not _augment(index, choices, matched, set()):
                return False
    return True


def describe_value(value: Value, location: Location) -> str:
    if location == POWER_PLANT:
        return COLOR_WORDS[value]
    if location == TOWER:
        return f"mana value {value}"
    return value.lower()
