"""The MANA BURN deck: 8 of each of five creatures, 12 of each of five spells, 100 cards.

Card ids 0..99: ids 0..39 are the creatures (kind = id // 8), ids 40..99 the spells (kind = 5 + (id - 40) // 12).
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final, NamedTuple


class Kind(IntEnum):
    """The ten cards to collect, in rulebook order."""

    BENALISH_HERO = 0
    SCRYB_SPRITES = 1
    DRUDGE_SKELETONS = 2
    MERFOLK = 3
    GOBLINS = 4
    HOLY_ARMOR = 5
    GIANT_GROWTH = 6
    RAISE_DEAD = 7
    COUNTERSPELL = 8
    INCINERATE = 9


NAMES: Final = (
    "Benalish Hero",
    "Scryb Sprites",
    "Drudge Skeletons",
    "Merfolk of the Pearl Trident",
    "Mons' Goblin Raiders",
    "Holy Armor",
    "Giant Growth",
    "Raise Dead",
    "Counterspell",
    "Incinerate",
)
CREATURE_COPIES: Final = 8
SPELL_COPIES: Final = 12
DECK_SIZE: Final = 5 * CREATURE_COPIES + 5 * SPELL_COPIES
KINDS: Final = tuple(Kind)

CREATURES: Final = frozenset(KINDS[:5])
# "the three fast effects (Incinerate, Giant Growth, and Counterspell)": playable at any time.
INSTANTS: Final = frozenset({Kind.GIANT_GROWTH, Kind.COUNTERSPELL, Kind.INCINERATE})
# "one Creature, Sorcery, or Enchantment" per turn: the creatures, Holy Armor (enchantment), Raise Dead (sorcery).
MAIN_CARDS: Final = frozenset({*CREATURES, Kind.HOLY_ARMOR, Kind.RAISE_DEAD})
# Green is Strong! takes Blue cards: Merfolk of the Pearl Trident and Counterspell are the deck's Blue cards.
BLUE: Final = frozenset({Kind.MERFOLK, Kind.COUNTERSPELL})


def _kind_of(card: int) -> Kind:
    if card < 5 * CREATURE_COPIES:
        return KINDS[card // CREATURE_COPIES]
    return KINDS[5 + (card - 5 * CREATURE_COPIES) // SPELL_COPIES]


KIND_OF: Final = tuple(_kind_of(card) for card in range(DECK_SIZE))


def kind(card: int) -> Kind:
    return KIND_OF[card]


NAME_OF: Final = tuple(NAMES[k] for k in KIND_OF)


def name(card: int) -> str:
    return NAME_OF[card]


def is_creature(card: int) -> bool:
    return kind(card) in CREATURES


def is_instant(card: int) -> bool:
    return kind(card) in INSTANTS


def parse_kind(text: str) -> Kind:
    """The kind named by `text` (a card name, case-insensitive); ValueError otherwise."""
    for k, card_name in zip(KINDS, NAMES, strict=True):
        if card_name.lower() == text.strip().lower():
            return k
    raise ValueError(f"no MANA BURN card is named {text!r}")


def format_kind(k: int) -> str:
    return NAMES[k]


def distinct(cards: list[int]) -> int:
    """How many of the ten different cards `cards` holds."""
    return len({KIND_OF[c] for c in cards})


def names(cards: list[int]) -> str:
    return ", ".join(name(c) for c in cards) if cards else "nothing"


class Facts(NamedTuple):
    """What a card does, in the rulebook's words made plain (L39-L58): its type, effect and when it is played."""

    kind: str
    effect: str
    timing: str
    tags: tuple[str, ...]


# Every card is also one of the ten to collect: playing it takes it out of your collection (L21).
_CREATURE_TIMING: Final = "on your turn after you move: one Creature, Sorcery or Enchantment a turn"
_INSTANT_TIMING: Final = "any time: in answer to a die roll or a card, or on your turn after you move"
FACTS: Final = {
    Kind.BENALISH_HERO: Facts(
        "Creature", "In play: once in each Ante game, add 2 to any player's Ante roll.", _CREATURE_TIMING, ("white",)
    ),
    Kind.SCRYB_SPRITES: Facts(
        "Creature",
        "In play: re-roll your movement die once a turn for each Sprite you have; the newest roll stands.",
        _CREATURE_TIMING,
        ("green",),
    ),
    Kind.DRUDGE_SKELETONS: Facts(
        "Creature",
        "In play: you may switch paths at the Graveyard even when you only pass it, and make one false bid (a bid "
        "without discarding) in each auction for each Skeleton.",
        _CREATURE_TIMING,
        ("black",),
    ),
    Kind.MERFOLK: Facts(
        "Creature",
        "In play: when you fish (or fish back) and guess right, you take every copy of that card; each Merfolk "
        "after the first draws one more card at the Library.",
        _CREATURE_TIMING,
        ("blue",),
    ),
    Kind.GOBLINS: Facts(
        "Creature",
        "In play: when you trade or play for Ante, your opponent's card is picked at random, and one more card for "
        "each Goblin after the first; you may take the top Graveyard card when you pass it.",
        _CREATURE_TIMING,
        ("red",),
    ),
    Kind.HOLY_ARMOR: Facts(
        "Enchantment",
        "Put it on any creature in play: Incinerate cannot destroy that creature (it may destroy the Armor "
        "instead). Several Armors may protect one creature.",
        _CREATURE_TIMING,
        ("white",),
    ),
    Kind.GIANT_GROWTH: Facts(
        "Instant", "Add 3 to any player's die roll: movement, Ante or a square's roll.", _INSTANT_TIMING, ("green",)
    ),
    Kind.RAISE_DEAD: Facts("Sorcery", "Take any card from the Graveyard into your hand.", _CREATURE_TIMING, ("black",)),
    Kind.COUNTERSPELL: Facts(
        "Interrupt",
        "Counter another player's card: it does nothing and goes to the Graveyard.",
        "right after that card is played, before anyone answers it",
        ("blue", "counter"),
    ),
    Kind.INCINERATE: Facts(
        "Instant", "Destroy one creature without Holy Armor, or one Holy Armor.", _INSTANT_TIMING, ("red",)
    ),
}
