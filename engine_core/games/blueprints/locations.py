"""The three locations of Urza's Blueprints and when five cards build one.

Each location asks for five cards with five different values of one kind: a card type (Mine), a colour (Power
Plant, exactly W U B R G), a mana value (Tower). A card offers the values it may stand for (a multicoloured card any
one of its colours, an Artifact Creature either of its types); a foil is wild and stands for any value. Whether a hand
builds a location is a matching problem: the non-foil cards need distinct values (Kuhn's augmenting paths on at most
six cards), and the foils fill the rest (there are always enough values left: five colours for five cards, nine
card types, unbounded mana values).
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from functools import cache
from typing import Final, TypeAlias

from manaforge.v1.cards_pb2 import MagicCard
from manaforge.v1.games.blueprints_pb2 import BlueprintsLocation

from engine_core.cards import COLORS, is_land, memo_by_content

MINE: Final = BlueprintsLocation.BLUEPRINTS_LOCATION_MINE
POWER_PLANT: Final = BlueprintsLocation.BLUEPRINTS_LOCATION_POWER_PLANT
TOWER: Final = BlueprintsLocation.BLUEPRINTS_LOCATION_TOWER
LOCATIONS: Final = (MINE, POWER_PLANT, TOWER)
LOCATION_NAMES: Final = {MINE: "Mine", POWER_PLANT: "Power Plant", TOWER: "Tower"}
CARDS_PER_LOCATION: Final = 5
CARD_TYPES: Final = (
    "Artifact",
    "Battle",
    "Creature",
    "Enchantment",
    "Instant",
    "Kindred",
    "Land",
    "Planeswalker",
    "Sorcery",
)
COLOR_WORDS: Final = {"W": "white", "U": "blue", "B": "black", "R": "red", "G": "green"}

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


_ALL_VALUES: Final[dict[Location, tuple[Value, ...]]] = {
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


card_values: Final = memo_by_content(_card_values)  # asked of every card in hand at every discard


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


# A non-foil card's values at each location (Mine, Power Plant, Tower) as bit masks, one bit per value, and flags:
# bit `at` when the card may stand for more than one value at location `at`, bit 3 + `at` when for none; None for a
# foil. Read from the card once. Five cards build a location when their non-foil cards get distinct values: with one
# value each (nearly every card), when their masks do not overlap; otherwise the matching decides (`builds_values`).
CardMasks: TypeAlias = tuple[int, int, int, int] | None

_BITS: Final[dict[Value, int]] = {}  # a value's bit: a few dozen in all (card types, colours, mana values)
# More only from cards a client made up (the rules service plays any state it is sent): past this many the bits, and
# the masks made of them, start again.
BITS_LIMIT: Final = 1 << 10


def _bit(value: Value) -> int:
    bit = _BITS.get(value)
    if bit is None:
        bit = _BITS[value] = 1 << len(_BITS)
    return bit


def _card_masks(card: MagicCard) -> CardMasks:
    values = _card_values(card)
    if values is None:
        return None
    masks = [sum({_bit(value) for value in location}) for location in values]
    flags = 0
    for at, mask in enumerate(masks):
        if not mask:
            flags |= 1 << (3 + at)
        elif mask & (mask - 1):
            flags |= 1 << at
    return masks[0], masks[1], masks[2], flags


card_masks: Final = memo_by_content(_card_masks)  # asked of every card in hand at every discard


def new_builds(cards: Sequence[MagicCard], done: Container[Location]) -> list[Location]:
    """The locations not in `done` that exactly these cards build (`builds`), from the cards' masks: one pass over
    the hand for the three locations."""
    if len(cards) != CARDS_PER_LOCATION:
        return []
    if len(_BITS) >= BITS_LIMIT:  # here, before any mask of this hand is read: they all use the same bits
        _BITS.clear()
        card_masks.clear()
    mine = power_plant = tower = flags = count = 0
    for card in cards:
        masks = card_masks(card)
        if masks is None:
            continue  # a foil: wild
        a, b, c, f = masks
        mine |= a
        power_plant |= b
        tower |= c
        flags |= f
        count += 1
    found = []
    for at, union in enumerate((mine, power_plant, tower)):
        location = LOCATIONS[at]
        if location in done or flags >> (3 + at) & 1 or union.bit_count() < count:
            continue  # built already, a card with no value here, or fewer values than cards (Hall's condition)
        if not flags >> at & 1 or builds_values(tuple(card_values(card) for card in cards), location):
            found.append(location)  # one value per card, all distinct; or a matching
    return found


def describe_value(value: Value, location: Location) -> str:
    if location == POWER_PLANT:
        return COLOR_WORDS[value]
    if location == TOWER:
        return f"mana value {value}"
    return value.lower()
