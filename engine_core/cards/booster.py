"""Opening boosters: pure functions of a card set and the game's rng."""

from __future__ import annotations

from manaforge.v1.cards_pb2 import MagicCard
from manaforge.v1.common_pb2 import Rng

from engine_core import rng as random
from engine_core.cards.card import COLORS
from engine_core.cards.cardset import CardSet, Sheet


def draft_booster(card_set: CardSet, rng: Rng) -> list[MagicCard]:
    """One draft booster: a layout drawn by weight, then each sheet's cards (no card twice from one sheet).

    Cards are copies of the templates with id 0; a foil sheet's cards have `foil` set."""
    layout = card_set.layouts[_weighted_index(rng, [layout.weight for layout in card_set.layouts])]
    booster: list[MagicCard] = []
    for sheet_name, count in layout.contents:
        sheet = card_set.sheet(sheet_name)
        for index in _draw_sheet(card_set, sheet, count, rng):
            card = MagicCard()
            card.CopyFrom(card_set.cards[index])
            card.foil = sheet.foil
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


def _draw_sheet(card_set: CardSet, sheet: Sheet, count: int, rng: Rng) -> list[int]:
    """`count` distinct card indices from a sheet by weight; with `balance_colors`, one card of each colour first
    (while the count allows and the sheet has a card of that colour)."""
    remaining = dict(zip(sheet.cards, sheet.weights, strict=True))
    drawn: list[int] = []
    if sheet.balance_colors and count >= len(COLORS):
        for color in COLORS:
            of_color = {i: w for i, w in remaining.items() if list(card_set.cards[i].colors) == [color]}
            if of_color:
                drawn.append(_take(of_color, remaining, rng))
    while len(drawn) < count and remaining:
        drawn.append(_take(remaining, remaining, rng))
    return drawn


def _take(candidates: dict[int, int], remaining: dict[int, int], rng: Rng) -> int:
    indices = list(candidates)
    index = indices[_weighted_index(rng, [candidates[i] for i in indices])]
    del remaining[index]
    return index


def _weighted_index(rng: Rng, weights: list[int]) -> int:
    point = random.randbelow(rng, sum(weights))
    for index, weight in enumerate(weights):
        if point < weight:
            return index
        point -= weight
    return len(weights) - 1  # not reached: point < sum(weights)
