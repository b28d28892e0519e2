"""The parts of a design: the four categories, what a drawn card offers, and the free-text limits.

Pure helpers over `MagicCard` and `RndDesign`, shared by the rules, the card frame and the bot.
"""

from __future__ import annotations

from collections.abc import Iterable
from operator import attrgetter
from typing import Final, NamedTuple

from manaforge.v1.cards_pb2 import MagicCard
from manaforge.v1.games.rnd_pb2 import RndAward, RndCategory, RndDesign

from engine_core.cards import format_card, is_creature, memo_by_content
from engine_core.errors import MalformedActionError
from engine_core.games.rnd.twins import add_copy

COST: Final = RndCategory.RND_CATEGORY_COST
TYPE: Final = RndCategory.RND_CATEGORY_TYPE
TEXT: Final = RndCategory.RND_CATEGORY_TEXT
POWER_TOUGHNESS: Final = RndCategory.RND_CATEGORY_POWER_TOUGHNESS
CATEGORIES: Final = (COST, TYPE, TEXT, POWER_TOUGHNESS)
CATEGORY_NAMES: Final = {
    COST: "casting cost",
    TYPE: "card type",
    TEXT: "card text",
    POWER_TOUGHNESS: "power and toughness",
}

MOST_POWERFUL: Final = RndAward.RND_AWARD_MOST_POWERFUL
LEAST_FUNCTIONAL: Final = RndAward.RND_AWARD_LEAST_FUNCTIONAL
MOST_FLAVORFUL: Final = RndAward.RND_AWARD_MOST_FLAVORFUL
AWARDS: Final = (MOST_POWERFUL, LEAST_FUNCTIONAL, MOST_FLAVORFUL)
AWARD_NAMES: Final = {
    MOST_POWERFUL: "most powerful",
    LEAST_FUNCTIONAL: "least functional",
    MOST_FLAVORFUL: "most flavorful",
}

# Free-text limits. The art box of the card frame is ART_WIDTH x ART_LINES characters.
NAME_MAX: Final = 30
FLAVOUR_MAX: Final = 160
ART_WIDTH: Final = 32
ART_LINES: Final = 8


def card_text(card: MagicCard) -> str:
    """The card's "card text": its rules text from an imported set file, else (built-in pool) its keywords."""
    return card.text or ", ".join(card.keywords)


def type_needs_power_toughness(card: MagicCard) -> bool:
    """A creature, or a vehicle (an artifact that becomes a creature), has a power and toughness box."""
    return is_creature(card) or "Vehicle" in card.subtypes


def _has_cost(card: MagicCard) -> bool:
    return bool(card.mana_cost)


def _has_type(card: MagicCard) -> bool:
    return bool(card.type_line)


def _has_text(card: MagicCard) -> bool:
    return bool(card_text(card))


def _has_power_toughness(card: MagicCard) -> bool:
    return bool(card.power and card.toughness)


HAS_CATEGORY: Final = {COST: _has_cost, TYPE: _has_type, TEXT: _has_text, POWER_TOUGHNESS: _has_power_toughness}


def card_categories(card: MagicCard) -> frozenset[RndCategory.ValueType]:
    """The categories a card can be copied for (those it has)."""
    return frozenset(category for category, has in HAS_CATEGORY.items() if has(card))


class CardFacts(NamedTuple):
    """What the rules ask of a drawn card, at every step."""

    categories: frozenset[RndCategory.ValueType]  # card_categories()
    drawn_line: str  # the card as a drawn card's event shows it: the card, and its text when it has one
    text: str  # card_text()
    needs_power_toughness: bool  # type_needs_power_toughness()


def _card_facts(card: MagicCard) -> CardFacts:
    text = card_text(card)
    line = f"{format_card(card)}{'; text: ' + text if text else ''}"
    return CardFacts(card_categories(card), line, text, type_needs_power_toughness(card))


card_facts: Final = memo_by_content(_card_facts)  # remembered per card


def any_card_has(cards: Iterable[MagicCard], category: RndCategory.ValueType) -> bool:
    """Whether some card has the category: read from the cards, as the first one or two usually do."""
    return any(map(HAS_CATEGORY[category], cards))


def filled(design: RndDesign) -> set[int]:
    return {copy.category for copy in design.copies[:]}


_WANTED: Final = (COST, TYPE, TEXT)
_WANTED_WITH_BODY: Final = (COST, TYPE, TEXT, POWER_TOUGHNESS)


def open_categories(design: RndDesign) -> list[RndCategory.ValueType]:
    """The categories still to fill; power and toughness opens once a type that needs it is copied."""
    return list(wanted_categories(design))


_category_of: Final = attrgetter("category")
_OPEN: Final[dict[tuple[bool | int, ...], tuple[RndCategory.ValueType, ...]]] = {}
OPEN_LIMIT: Final = 1024  # a client may send any categories: bounded


def wanted_categories(design: RndDesign) -> tuple[RndCategory.ValueType, ...]:
    """`open_categories` as a tuple, remembered per (needs power and toughness, the filled categories in order)."""
    copies = design.copies
    if not copies:
        return _WANTED_WITH_BODY if design.needs_power_toughness else _WANTED
    key = (design.needs_power_toughness, *map(_category_of, copies))
    wanted = _OPEN.get(key)
    if wanted is None:
        if len(_OPEN) >= OPEN_LIMIT:
            _OPEN.clear()
        done = key[1:]
        wanted = _OPEN[key] = tuple(c for c in (_WANTED_WITH_BODY if key[0] else _WANTED) if c not in done)
    return wanted


def copy_category(design: RndDesign, card: MagicCard, category: RndCategory.ValueType, designer: int) -> None:
    if category == COST:
        design.mana_cost = card.mana_cost
    elif category == TYPE:
        design.type_line = card.type_line
        design.needs_power_toughness = card_facts(card).needs_power_toughness
    elif category == TEXT:
        design.text = card_facts(card).text
    elif category == POWER_TOUGHNESS:
        design.power, design.toughness = card.power, card.toughness
    add_copy(design.copies, category, designer, card.name)


def check_text(what: str, text: str, max_chars: int, *, max_lines: int = 1, max_width: int = 0) -> None:
    """Free text is plain data: printable characters (newlines only where several lines are allowed), not blank,
    bounded in size. Raises MalformedActionError naming the limit."""
    if len(text) > max_chars:
        raise MalformedActionError("text length", f"the {what} is at most {max_chars} characters, not {len(text)}")
    checked = text.replace("\n", "") if max_lines > 1 else text
    for char in "" if checked.isprintable() else text:  # look for the culprit only when there is one
        if char == "\n" and max_lines > 1:
            continue
        if not char.isprintable():
            raise MalformedActionError(
                "text characters",
                f"the {what} holds only printable characters"
                f"{'' if max_lines > 1 else ' on one line'}; U+{ord(char):04X} is not allowed",
            )
    if not text.strip():
        raise MalformedActionError("text required", f"the {what} may not be blank")
    lines = text.split("\n")
    if len(lines) > max_lines:
        raise MalformedActionError("text lines", f"the {what} is at most {max_lines} lines, not {len(lines)}")
    if max_width and any(len(line) > max_width for line in lines):
        raise MalformedActionError("text width", f"each line of the {what} is at most {max_width} characters")


def check_art(art: str) -> None:
    check_text("art", art, ART_WIDTH * ART_LINES + ART_LINES, max_lines=ART_LINES, max_width=ART_WIDTH)


def check_name(name: str) -> None:
    check_text("card name", name, NAME_MAX)


def check_flavour(flavour: str) -> None:
    check_text("flavor text", flavour, FLAVOUR_MAX)


def design_title(design: RndDesign, index: int) -> str:
    return design.name or f"card {index + 1}"
