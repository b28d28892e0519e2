"""The card pool of the games played with Magic: The Gathering boosters.

A `CardSet` is card templates (`MagicCard`, id 0) plus how its draft boosters are made. "builtin" is the project's
own The Brothers' War pool and is always there; more sets come from MTGJSON set files, read at the edge
(services/cardsets.py) with `parse_mtgjson` and added with `register_set`. A game reads the `card_set` option
(`CARD_SET_OPTION`), finds the set and opens one booster per player with `open_packs(card_set, rng, packs)`, which
numbers the cards 0..n-1. Odds and sources: engine_core/cards/README.md.
"""

from __future__ import annotations

from engine_core.cards.booster import draft_booster, open_packs, sample_faces
from engine_core.cards.builtin import BUILTIN_CODE, builtin_set
from engine_core.cards.card import (
    COLOR_NAMES,
    COLORS,
    catalogue_card,
    format_card,
    has_type,
    is_artifact,
    is_basic_land,
    is_colorless,
    is_creature,
    is_land,
    is_monocolored,
    is_multicolored,
    mana_value_of,
    memo_by_content,
    parse_type_line,
)
from engine_core.cards.cardset import BoosterLayout, CardSet, Sheet
from engine_core.cards.mtgjson import parse_mtgjson
from engine_core.errors import InvalidConfigError
from engine_core.game import Option

CARD_SET_OPTION = Option(
    "card_set",
    BUILTIN_CODE,
    (),
    "the card set the boosters are opened from: 'builtin' (the project's The Brothers' War pool) or the code of a "
    "set file loaded by the server",
)

_SETS: dict[str, CardSet] = {}


def register_set(card_set: CardSet) -> None:
    """Make a set available to every game under its code (case-insensitive); a set with the same code is replaced.
    "builtin" cannot be replaced."""
    if card_set.code.casefold() == BUILTIN_CODE:
        raise InvalidConfigError("card set", f"the code {BUILTIN_CODE!r} is the project's own pool")
    if not card_set.layouts:
        raise InvalidConfigError("card set", f"{card_set.code} has no draft booster to open")
    _SETS[card_set.code.casefold()] = card_set


def find_set(code: str) -> CardSet:
    if code.casefold() == BUILTIN_CODE:
        return builtin_set()
    try:
        return _SETS[code.casefold()]
    except KeyError:
        known = ", ".join(set_codes())
        raise InvalidConfigError("card set", f"no card set {code!r}; the sets are {known}") from None


def set_codes() -> list[str]:
    return [BUILTIN_CODE, *(card_set.code for card_set in _SETS.values())]


__all__ = [
    "CARD_SET_OPTION",
    "COLORS",
    "COLOR_NAMES",
    "BoosterLayout",
    "CardSet",
    "Sheet",
    "builtin_set",
    "catalogue_card",
    "draft_booster",
    "find_set",
    "format_card",
    "has_type",
    "is_artifact",
    "is_basic_land",
    "is_colorless",
    "is_creature",
    "is_land",
    "is_monocolored",
    "is_multicolored",
    "mana_value_of",
    "memo_by_content",
    "open_packs",
    "parse_mtgjson",
    "parse_type_line",
    "register_set",
    "sample_faces",
    "set_codes",
]
