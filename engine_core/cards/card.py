"""Facts about one Magic card (`MagicCard`): the predicates the booster games ask, and a card's parsing helpers."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar, cast

from manaforge.v1.cards_pb2 import MagicCard

from engine_core.live import is_frozen

COLORS = ("W", "U", "B", "R", "G")
COLOR_NAMES = {"W": "white", "U": "blue", "B": "black", "R": "red", "G": "green"}
SUPERTYPES = frozenset({"Basic", "Legendary", "Snow", "World", "Host", "Ongoing"})
RARITIES = ("common", "uncommon", "rare", "mythic")

_SYMBOL = re.compile(r"\{([^}]*)\}")

T = TypeVar("T")
MEMO_LIMIT = 1 << 14  # entries a card memo keeps before it starts again (a few sets' cards, with their ids)


def is_land(card: MagicCard) -> bool:
    return "Land" in card.types


def is_basic_land(card: MagicCard) -> bool:
    return is_land(card) and "Basic" in card.supertypes


def is_creature(card: MagicCard) -> bool:
    return "Creature" in card.types


def is_artifact(card: MagicCard) -> bool:
    return "Artifact" in card.types


def is_colorless(card: MagicCard) -> bool:
    return not card.colors


def is_multicolored(card: MagicCard) -> bool:
    return len(card.colors) > 1


def is_monocolored(card: MagicCard) -> bool:
    return len(card.colors) == 1


def has_type(card: MagicCard, card_type: str) -> bool:
    return card_type in card.types


def mana_value_of(mana_cost: str) -> int:
    """The mana value of a printed cost: generic numbers count their value, X counts 0, every other symbol 1
    (a hybrid or Phyrexian symbol is one mana)."""
    total = 0
    for symbol in _SYMBOL.findall(mana_cost):
        if symbol.isdigit():
            total += int(symbol)
        elif symbol not in ("X", "Y", "Z"):
            total += 1
    return total


def parse_type_line(type_line: str) -> tuple[list[str], list[str], list[str]]:
    """(types, subtypes, supertypes) of a type line such as "Legendary Artifact Creature — Human Artificer"."""
    left, _, right = type_line.partition("—")
    words = left.split()
    supertypes = [word for word in words if word in SUPERTYPES]
    types = [word for word in words if word not in SUPERTYPES]
    return types, right.split(), supertypes


def catalogue_card(catalogue: Sequence[MagicCard], card_id: int) -> MagicCard:
    """A game's catalogue entry by id: in a full state id = index; a view keeps only the entries its seat may see."""
    if 0 <= card_id < len(catalogue):
        card = catalogue[card_id]
        if card.id == card_id:
            return card
    for card in catalogue:
        if card.id == card_id:
            return card
    raise KeyError(card_id)


def format_card(card: MagicCard) -> str:
    """One line for a terminal: name, cost, type line, P/T, and a star for a foil."""
    parts = [card.name]
    if card.mana_cost:
        parts.append(card.mana_cost)
    parts.append(f"({card.type_line}{', ' + card.power + '/' + card.toughness if card.power else ''})")
    return " ".join(parts) + (" *foil*" if card.foil else "")


T_co = TypeVar("T_co", covariant=True)


class CardMemo(Protocol[T_co]):
    """What `memo_by_content` gives: the remembered function, and `clear()` to forget every card."""

    def __call__(self, card: MagicCard) -> T_co: ...

    def clear(self) -> None: ...


def memo_by_content(compute: Callable[[MagicCard], T]) -> CardMemo[T]:
    """`compute(card)`, remembered per card content: for facts an engine asks of the same cards at every step.

    The key is the card's serialized bytes (equal bytes, equal card: exact for any card, a scenario's hand-made ones
    included), which costs less than reading the fields again from protobuf: a repeated field read is about half a
    microsecond, a card's serialization about a third. A card of a live state's catalogue (`engine_core.live.freeze`:
    it never changes again) is also remembered by identity, which costs a dictionary lookup."""
    memo: dict[bytes, T] = {}
    by_identity: dict[int, tuple[MagicCard, T]] = {}

    def lookup(card: MagicCard) -> T:
        known = by_identity.get(id(card))
        if known is not None and known[0] is card:
            return known[1]
        key = card.SerializeToString()
        try:
            value = memo[key]
        except KeyError:
            if len(memo) >= MEMO_LIMIT:
                memo.clear()
            value = memo[key] = compute(card)
        if is_frozen(card):
            if len(by_identity) >= MEMO_LIMIT:
                by_identity.clear()
            by_identity[id(card)] = (card, value)  # the reference keeps the id from being reused
        return value

    def clear() -> None:
        memo.clear()
        by_identity.clear()

    lookup.__doc__ = compute.__doc__
    lookup.clear = clear  # type: ignore[attr-defined]
    return cast(CardMemo[T], lookup)
