"""A card set: its card templates, the sheets its booster slots draw from, and the booster layouts.

The shape follows MTGJSON's booster data: a booster is one of several weighted layouts; a layout names how many
cards each sheet gives; a sheet is a weighted list of cards (indices into `CardSet.cards`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from manaforge.v1.cards_pb2 import MagicCard


@dataclass(frozen=True)
class Sheet:
    """Where one kind of booster slot draws its cards: card indices with integer weights."""

    name: str
    cards: tuple[int, ...]
    weights: tuple[int, ...]
    foil: bool = False
    balance_colors: bool = False  # the slot's cards include one of each colour first (MTGJSON `balanceColors`)


@dataclass(frozen=True)
class BoosterLayout:
    """One kind of booster: how many cards each sheet gives, in pack order, and how often this kind occurs."""

    weight: int
    contents: tuple[tuple[str, int], ...]

    @property
    def size(self) -> int:
        return sum(count for _, count in self.contents)


@dataclass(frozen=True)
class CardSet:
    """A pool of card templates (id 0, foil False) and how its draft boosters are made."""

    code: str
    name: str
    cards: tuple[MagicCard, ...]
    sheets: tuple[Sheet, ...] = ()
    layouts: tuple[BoosterLayout, ...] = ()

    def sheet(self, name: str) -> Sheet:
        for sheet in self.sheets:
            if sheet.name == name:
                return sheet
        raise KeyError(f"card set {self.code} has no sheet {name!r}")

    def sheet_cards(self, name: str) -> list[MagicCard]:
        return [self.cards[index] for index in self.sheet(name).cards]


def group_weights(groups: Sequence[tuple[Sequence[int], int]]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Card indices and integer weights such that each group (its cards, its share) is drawn with probability
    share / sum of shares, evenly among its cards. Empty groups are left out."""
    groups = [(cards, share) for cards, share in groups if cards and share > 0]
    if not groups:
        return (), ()
    common = math.lcm(*(len(cards) for cards, _ in groups))
    indices: list[int] = []
    weights: list[int] = []
    for cards, share in groups:
        indices += cards
        weights += [share * common // len(cards)] * len(cards)
    return tuple(indices), tuple(weights)
