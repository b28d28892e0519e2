"""A card set: its card templates, the sheets its booster slots draw from, and the booster layouts.

The shape follows MTGJSON's booster data: a booster is one of several weighted layouts; a layout names how many
cards each sheet gives; a sheet is a weighted list of cards (indices into `CardSet.cards`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import accumulate

from manaforge.v1.cards_pb2 import MagicCard

from engine_core.cards.card import COLORS


@dataclass(frozen=True)
class Sheet:
    """Where one kind of booster slot draws its cards: card indices with integer weights."""

    name: str
    cards: tuple[int, ...]
    weights: tuple[int, ...]
    foil: bool = False
    balance_colors: bool = False  # the slot's cards include one of each colour first (MTGJSON `balanceColors`)


@dataclass(frozen=True)
class SheetDraws:
    """A sheet made ready to draw from, once per set: its distinct cards in order with their weights (a card listed
    twice keeps its first place and its last weight), and when the sheet balances colours, per colour that has a card,
    the positions (into `cards`) of the cards of exactly that colour and their weights. `weight` is the weight every
    card has when they all have the same positive one (most sheets), else 0. `faces` are the cards as faces
    (`face_of`: the card index and the sheet's foil), `totals` the running totals of the weights."""

    cards: tuple[int, ...]
    weights: tuple[int, ...]
    by_color: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]
    weight: int = 0
    faces: tuple[int, ...] = ()
    totals: tuple[int, ...] = ()


def face_of(index: int, foil: bool) -> int:
    """A card face as one small int: a template index and whether the card is foil (booster opening deals these)."""
    return index * 2 + foil


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
        try:
            return self.sheets_by_name[name]
        except KeyError:
            raise KeyError(f"card set {self.code} has no sheet {name!r}") from None

    @cached_property
    def sheets_by_name(self) -> dict[str, Sheet]:
        """The sheets by name (the first of a name, as `sheet` always found it)."""
        named: dict[str, Sheet] = {}
        for sheet in self.sheets:
            named.setdefault(sheet.name, sheet)
        return named

    @cached_property
    def sheet_draws(self) -> dict[str, SheetDraws]:
        """Every sheet by name, made ready to draw from (booster opening reads these, not the templates)."""
        mono = [card.colors[0] if len(card.colors) == 1 else None for card in self.cards]
        draws: dict[str, SheetDraws] = {}
        for name, sheet in self.sheets_by_name.items():
            distinct = dict(zip(sheet.cards, sheet.weights, strict=True))
            cards, weights = tuple(distinct), tuple(distinct.values())
            by_color = []
            for color in COLORS if sheet.balance_colors else ():
                positions = tuple(p for p, index in enumerate(cards) if mono[index] == color)
                if positions:
                    by_color.append((positions, tuple(weights[p] for p in positions)))
            same = weights[0] if weights and weights[0] > 0 and len(set(weights)) == 1 else 0
            faces = tuple(face_of(index, sheet.foil) for index in cards)
            draws[name] = SheetDraws(cards, weights, tuple(by_color), same, faces, tuple(accumulate(weights)))
        return draws

    @cached_property
    def layout_totals(self) -> tuple[int, ...]:
        """The running totals of the booster layouts' weights (a layout is drawn by one point below the last)."""
        return tuple(accumulate(layout.weight for layout in self.layouts))

    @cached_property
    def largest_layout(self) -> int:
        """The most cards a booster layout can give (a booster takes at most one draw for its layout and one per card;
        a slot of no cards or fewer gives none)."""
        return max((sum(max(count, 0) for _, count in layout.contents) for layout in self.layouts), default=0)

    @cached_property
    def layout_draws(self) -> tuple[tuple[tuple[SheetDraws | None, int, str], ...], ...]:
        """Per booster layout, its slots in pack order: the sheet made ready to draw from (None: the set has no sheet
        of that name), how many cards it gives, and the sheet's name."""
        draws = self.sheet_draws
        return tuple(
            tuple((draws.get(name), count, name) for name, count in layout.contents) for layout in self.layouts
        )

    @cached_property
    def face_templates(self) -> tuple[MagicCard, ...]:
        """Per face (`face_of`), the template with `foil` set: what a booster's card is a copy of (with its id)."""
        made: list[MagicCard] = []
        for card in self.cards:
            for foil in (False, True):
                template = MagicCard()
                template.CopyFrom(card)
                template.foil = foil
                made.append(template)
        return tuple(made)

    @cached_property
    def shared_faces(self) -> dict[int, MagicCard]:
        """The cards `booster.shared_cards` made (never changed), by id * len(face_templates) + face; bounded there."""
        return {}

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
