"""Opening boosters: pure functions of a card set and the game's rng."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate

from manaforge.v1.cards_pb2 import MagicCard
from manaforge.v1.common_pb2 import Rng

from engine_core import rng as random
from engine_core.cards.card import COLORS
from engine_core.cards.cardset import CardSet, SheetDraws


def draft_booster(card_set: CardSet, rng: Rng) -> list[MagicCard]:
    """One draft booster: a layout drawn by weight, then each sheet's cards (no card twice from one sheet).

    Cards are copies of the templates with id 0; a foil sheet's cards have `foil` set."""
    layout = card_set.layouts[_weighted_index(rng, [layout.weight for layout in card_set.layouts])]
    templates = card_set.cards
    booster: list[MagicCard] = []
    for sheet_name, count in layout.contents:
        foil = card_set.sheet(sheet_name).foil
        for index in _draw_sheet(card_set.sheet_draws[sheet_name], count, rng):
            card = MagicCard()
            card.CopyFrom(templates[index])
            card.foil = foil
            booster.append(card)
    return booster


def open_packs(card_set: CardSet, rng: Rng, packs: int) -> list[MagicCard]:
    """`packs` draft boosters, one after another, with card ids 0..n-1 in that order."""
    cards = [card for _ in range(packs) for card in draft_booster(card_set, rng)]
    for card_id, card in enumerate(cards):
        card.id = card_id
    return cards


def sample_faces(card_set: CardSet, rng: Rng, count: int, packs: int) -> list[MagicCard]:
    """`count` card faces from freshly opened boosters (`packs` at a time), shuffled: stand-ins for unseen cards
    when a bot deals a world it cannot see (ids are left for the caller to set)."""
    faces: list[MagicCard] = []
    while len(faces) < count:
        faces += open_packs(card_set, rng, max(1, packs))
    random.shuffle(rng, faces)
    return faces[:count]


def _draw_sheet(sheet: SheetDraws, count: int, rng: Rng) -> list[int]:
    """`count` distinct card indices from a sheet by weight; with colour balancing (`sheet.by_color` is empty
    without it), one card of each colour first (while the count allows and the sheet has a card of that colour)."""
    taken: list[int] = []  # positions in sheet.cards
    if sheet.by_color and count >= len(COLORS):
        # colour groups do not overlap, so a colour's draw does not depend on the cards taken before it
        taken = [positions[_index(rng, weights, sheet.weight)] for positions, weights in sheet.by_color]
    drawn = [sheet.cards[position] for position in taken]
    cards, weights = list(sheet.cards), list(sheet.weights)
    for position in sorted(taken, reverse=True):
        del cards[position], weights[position]
    while len(drawn) < count and cards:
        position = _index(rng, weights, sheet.weight)
        drawn.append(cards.pop(position))
        del weights[position]
    return drawn


def _index(rng: Rng, weights: Sequence[int], weight: int) -> int:
    """`_weighted_index`, by one division when every weight is `weight` (0: they differ); the same draw."""
    if weight:
        return random.randbelow(rng, len(weights) * weight) // weight
    return _weighted_index(rng, weights)


def _weighted_index(rng: Rng, weights: Sequence[int]) -> int:
    """The index whose slice of [0, sum of weights) holds a uniform point: the first whose running total is above
    it (one draw)."""
    totals = list(accumulate(weights))
    return bisect_right(totals, random.randbelow(rng, totals[-1] if totals else 0))
