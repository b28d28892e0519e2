"""Opening boosters: pure functions of a card set and the game's rng.

A booster is drawn as card faces (`face_of`: a template index and the sheet's foil, one small int each), then the
faces are made cards: fresh copies of the set's templates (`draft_booster`, `open_packs`, `sample_faces`), or shared
cards that are never changed again, remembered per face and id (`shared_cards`, for a game's catalogue)."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence
from itertools import accumulate
from typing import Final, NoReturn

from manaforge.v1.cards_pb2 import MagicCard
from manaforge.v1.common_pb2 import Rng

from engine_core import rng as random
from engine_core.cards.card import COLORS
from engine_core.cards.cardset import CardSet, SheetDraws

SHARED_LIMIT: Final = 1 << 14  # shared cards a set keeps (per face and id) before it starts again


def draft_booster(card_set: CardSet, rng: Rng) -> list[MagicCard]:
    """One draft booster: a layout drawn by weight, then each sheet's cards (no card twice from one sheet).

    Cards are copies of the templates with id 0; a foil sheet's cards have `foil` set."""
    templates = card_set.face_templates
    return [templates[face].__deepcopy__() for face in draw_faces(card_set, rng, 1)]


def open_packs(card_set: CardSet, rng: Rng, packs: int) -> list[MagicCard]:
    """`packs` draft boosters, one after another, with card ids 0..n-1 in that order."""
    return _fresh_cards(card_set, list(enumerate(draw_faces(card_set, rng, packs))))


def sample_faces(card_set: CardSet, rng: Rng, count: int, packs: int) -> list[MagicCard]:
    """`count` card faces from freshly opened boosters (`packs` at a time), shuffled: stand-ins for unseen cards
    when a bot deals a world it cannot see (ids are left for the caller to set)."""
    numbered: list[tuple[int, int]] = []  # (id, face): each booster batch numbered as `open_packs` numbers it
    while len(numbered) < count:
        numbered += enumerate(draw_faces(card_set, rng, max(1, packs)))
    random.shuffle(rng, numbered)
    return _fresh_cards(card_set, numbered[:count])


def shared_cards(card_set: CardSet, faces: Sequence[int]) -> list[MagicCard]:
    """The cards of `faces` (`draw_faces`) with ids 0..n-1 in that order, the same as `open_packs` makes, but shared:
    the same message for the same face and id from game to game. Nobody may change them: they are for a game's
    catalogue, whose cards never change (a live state shares them between copies; a message copies them in)."""
    known = card_set.shared_faces
    width = len(card_set.face_templates)
    cards: list[MagicCard] = []
    for card_id, face in enumerate(faces):
        key = card_id * width + face
        card = known.get(key)
        if card is None:
            if len(known) >= SHARED_LIMIT:
                known.clear()
            card = known[key] = card_set.face_templates[face].__deepcopy__()
            card.id = card_id
        cards.append(card)
    return cards


def _fresh_cards(card_set: CardSet, numbered: Sequence[tuple[int, int]]) -> list[MagicCard]:
    templates = card_set.face_templates
    cards: list[MagicCard] = []
    for card_id, face in numbered:
        card = templates[face].__deepcopy__()
        card.id = card_id
        cards.append(card)
    return cards


def draw_faces(card_set: CardSet, rng: Rng, packs: int) -> list[int]:
    """The faces of `packs` draft boosters, one after another (`face_of`): per booster a layout drawn by weight, then
    each sheet's cards in the layout's order (no card twice from one sheet). `open_packs` makes them cards.

    A booster takes at most one draw for its layout and one per card, so its draws are made together (`rng.draws`)."""
    layouts, totals = card_set.layout_draws, card_set.layout_totals
    total = totals[-1] if totals else 0
    most = 1 + card_set.largest_layout
    seed, counter = rng.seed, rng.counter
    faces: list[int] = []
    for _ in range(packs):
        if total <= 0:
            _no_draw(rng, counter)
        points = iter(random.draws(seed, counter, most))
        counter += 1
        layout = layouts[bisect_right(totals, next(points) % total)]
        for sheet, count, name in layout:
            if sheet is None:
                rng.counter = counter
                card_set.sheet(name)  # the KeyError naming the set and the sheet
                raise AssertionError(name)  # pragma: no cover - sheet() raised
            counter = _draw_sheet(sheet, count, rng, points, counter, faces)
    rng.counter = counter
    return faces


def _draw_sheet(sheet: SheetDraws, count: int, rng: Rng, points: Iterator[int], counter: int, faces: list[int]) -> int:
    """Add `count` distinct faces from a sheet by weight to `faces`; with colour balancing (`sheet.by_color` is empty
    without it), one card of each colour first (while the count allows and the sheet has a card of that colour).
    Each draw is the rng's next (`counter` + 1, as `rng.randbelow`), taken from `points`: returns the last counter
    used. A sheet takes at most `count` draws."""
    weight = sheet.weight
    sheet_faces = sheet.faces
    remaining: list[int] | None = None  # the faces not drawn yet, once a draw takes one out
    weights: list[int] | None = None  # their weights, when they differ
    if sheet.by_color and count >= len(COLORS):
        # colour groups do not overlap, so a colour's draw does not depend on the cards taken before it
        taken: list[int] = []  # positions in sheet.faces
        for positions, color_weights in sheet.by_color:
            counter += 1
            point = next(points)
            if weight:
                taken.append(positions[point % (len(positions) * weight) // weight])
            else:
                color_totals = list(accumulate(color_weights))
                if color_totals[-1] <= 0:
                    _no_draw(rng, counter - 1)
                taken.append(positions[bisect_right(color_totals, point % color_totals[-1])])
        faces += [sheet_faces[position] for position in taken]
        count -= len(taken)
        remaining = list(sheet_faces)
        weights = None if weight else list(sheet.weights)
        for position in sorted(taken, reverse=True):
            del remaining[position]
            if weights is not None:
                del weights[position]
    if count <= 0:
        return counter
    if weight:  # every weight is `weight`: a position by one division
        if remaining is None and count == 1:
            counter += 1
            faces.append(sheet_faces[next(points) % (len(sheet_faces) * weight) // weight])
            return counter
        if remaining is None:
            remaining = list(sheet_faces)
        while count and remaining:
            counter += 1
            faces.append(remaining.pop(next(points) % (len(remaining) * weight) // weight))
            count -= 1
        return counter
    if remaining is None:
        if not sheet_faces:
            return counter
        if count == 1:  # the running totals made once per set
            totals = sheet.totals
            if totals[-1] <= 0:
                _no_draw(rng, counter)
            counter += 1
            faces.append(sheet_faces[bisect_right(totals, next(points) % totals[-1])])
            return counter
        remaining, weights = list(sheet_faces), list(sheet.weights)
    assert weights is not None
    while count and remaining:
        running = list(accumulate(weights))
        if running[-1] <= 0:
            _no_draw(rng, counter)
        counter += 1
        position = bisect_right(running, next(points) % running[-1])
        faces.append(remaining.pop(position))
        del weights[position]
        count -= 1
    return counter


def _no_draw(rng: Rng, counter: int) -> NoReturn:
    """A draw from nothing (no weight to draw by), as `rng.randbelow` refuses it; the draws before it are kept."""
    rng.counter = counter
    random.randbelow(rng, 0)
    raise AssertionError  # pragma: no cover - randbelow raised
