"""The heuristic bot's taste: which category to copy, template art, names and flavor, and how it judges cards.

Word lists and sketches are designed for this project (not taken from any card). Every output passes the free-text
checks of `design.py` (tests/engine/games/test_rnd.py checks it over many seeds).
"""

from __future__ import annotations

from typing import Final

from manaforge.v1.cards_pb2 import MagicCard
from manaforge.v1.common_pb2 import Rng
from manaforge.v1.games.rnd_pb2 import RndAward, RndCategory, RndDesign

from engine_core import rng as random
from engine_core.cards import mana_value_of
from engine_core.games.rnd.design import (
    COST,
    LEAST_FUNCTIONAL,
    MOST_POWERFUL,
    POWER_TOUGHNESS,
    TEXT,
    TYPE,
    type_needs_power_toughness,
)

SKETCHES: Final = {
    "Creature": (
        "        __/\\__",
        "   ____/ o  o \\____",
        "  /    \\  ~~  /    \\",
        " /  /\\  \\____/  /\\  \\",
        "    ||   |  |   ||",
        "         /  \\",
    ),
    "Artifact": (
        "       _______",
        "    __/  ___  \\__",
        "   |  | /   \\ |  |",
        "   |  | \\___/ |  |",
        "    \\_\\_______/_/",
        "       ||   ||",
    ),
    "Land": (
        "          /\\",
        "    /\\   /  \\    /\\",
        "   /  \\_/ /\\ \\__/  \\",
        "  /   / \\/  \\/  \\   \\",
        " ~~~~~~~~~~~~~~~~~~~~~~",
    ),
    "Enchantment": (
        "        .  *  .",
        '     *   .-"-.   *',
        "   .    /  *  \\    .",
        "     *  \\  .  /  *",
        "        '-._.-'",
        "      .   * .   .",
    ),
    "Spell": (
        "            /",
        "       ____/",
        "      /   /",
        "     /___/___",
        "        /  ",
        "       /",
    ),
}
ADJECTIVES: Final = {
    "W": ("Radiant", "Steadfast", "Sanctified"),
    "U": ("Clockwork", "Thran", "Tidal"),
    "B": ("Phyrexian", "Gloomforged", "Hollow"),
    "R": ("Molten", "Sparking", "Furious"),
    "G": ("Overgrown", "Feral", "Verdant"),
    "": ("Powerstone", "Retrofitted", "Salvaged"),
}
NOUNS: Final = {
    "Creature": ("Sentinel", "Scavenger", "Prototype", "Warden"),
    "Artifact": ("Engine", "Relic", "Contraption", "Gearbox"),
    "Land": ("Foundry", "Ruins", "Mine", "Quarry"),
    "Enchantment": ("Oath", "Blueprint", "Omen"),
    "Spell": ("Blast", "Recall", "Overload", "Gambit"),
}
SPEAKERS: Final = ("Urza", "Mishra", "Tawnos", "Ashnod", "Jodah", "Kayla bin-Kroog", "Harbin")
QUOTES: Final = (
    "It works on paper. Paper is very forgiving.",
    "Every part came from something better.",
    "Build it twice, break it once.",
    "The blueprint said nothing about this.",
    "Some inventions are best left unfinished.",
    "Power is only a matter of the right parts.",
)


def kind(type_line: str) -> str:
    """The sketch and the noun a type line gets."""
    for kind in ("Creature", "Land", "Artifact", "Enchantment"):
        if kind in type_line:
            return kind
    return "Spell"


def color(mana_cost: str) -> str:
    """The adjective a casting cost gets (its first colour, or "" for none)."""
    for color in "WUBRG":
        if "{" + color + "}" in mana_cost:
            return color
    return ""


def category_score(card: MagicCard, category: RndCategory.ValueType) -> int:
    """How glad the bot is to copy this category from this card: rare finds first, sensible costs and bodies."""
    if category == TEXT:
        return 5
    if category == POWER_TOUGHNESS:
        return 4
    if category == TYPE:
        return 3 + type_needs_power_toughness(card)
    if category == COST:
        return 3 if card.mana_value <= 4 else 1
    return 0


def sketch(design: RndDesign) -> str:
    return "\n".join(SKETCHES[kind(design.type_line)])


def card_name(design: RndDesign, rng: Rng) -> str:
    return name_for(color(design.mana_cost), kind(design.type_line), rng)


def name_for(color: str, kind: str, rng: Rng) -> str:
    """A card name from the colour's adjectives and the kind's nouns."""
    adjective = random.choice(rng, list(ADJECTIVES[color]))
    noun = random.choice(rng, list(NOUNS[kind]))
    return f"{adjective} {noun}"


def flavour(rng: Rng) -> str:
    return f'"{random.choice(rng, list(QUOTES))}" —{random.choice(rng, list(SPEAKERS))}'


# Every text the bot can write (the sketches, names and flavours above): free-text checks may skip them.
SKETCH_TEXTS: Final = frozenset("\n".join(rows) for rows in SKETCHES.values())
NAMES: Final = frozenset(
    f"{adjective} {noun}"
    for adjectives in ADJECTIVES.values()
    for adjective in adjectives
    for nouns in NOUNS.values()
    for noun in nouns
)
FLAVOURS: Final = frozenset(f'"{quote}" —{speaker}' for quote in QUOTES for speaker in SPEAKERS)


def _number(value: str) -> int:
    return int(value) if value.isdigit() else 0


def power_score(design: RndDesign) -> float:
    """Stats and abilities for the mana: the bot's idea of "most powerful"."""
    mana = mana_value_of(design.mana_cost)
    body = _number(design.power) + _number(design.toughness)
    abilities = len(design.text.split(",")) if design.text else 0
    return (body + 2 * abilities + 1) / (mana + 1)


def dysfunction_score(design: RndDesign) -> float:
    """The bot's idea of "least functional": a land with a cost, a 0-power body, a big cost for little."""
    score = -power_score(design)
    if "Land" in design.type_line and design.mana_cost:
        score += 3
    if design.needs_power_toughness and _number(design.power) == 0:
        score += 2
    return score


def flavour_score(design: RndDesign) -> float:
    return len(design.flavour) + 2 * sum(1 for char in design.art if not char.isspace())


FLAVOUR_UNIT: Final = 20.0
"""A clear preference for "most flavorful": 20 more characters of flavour, or 10 more marks of art."""


def vote_rating(award: RndAward.ValueType, design: RndDesign) -> float:
    """How the bot rates a card for an award, in units of a clear preference (its vote is drawn from a quantal
    response over the cards: bot.choice_ratings, engine_core.bots.hidden): a point of "most powerful" is a body
    point and a half per mana, about; "least functional" is on the same scale."""
    if award == MOST_POWERFUL:
        return power_score(design)
    if award == LEAST_FUNCTIONAL:
        return dysfunction_score(design)
    return flavour_score(design) / FLAVOUR_UNIT
