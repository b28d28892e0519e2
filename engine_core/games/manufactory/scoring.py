"""Mishra's Manufactory scoring, over plain numbers: each player's groups as lists of mana values.

A `Collection` is one player's six groups in `GROUPS` order, each the list of its cards' mana values. Scoring needs
nothing else: the size of a group and its highest mana value (the tie-break).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

GROUPS: Final = ("W", "U", "B", "R", "G", "C")  # the five colours, then colorless
PRIZES: Final = (3, 2)  # "the largest group ... gets 3 points, and ... the second largest group gets 2 points"
GROUP_BONUS: Final = {4: 2, 5: 4, 6: 6}  # "four groups = 2 points, five groups = 4 points, six groups = 6 points"

# First-place ties (option `first_place_tie`): does a tie for first use up second place?
USES_SECOND_PLACE: Final = "uses_second_place"
SECOND_STILL_SCORES: Final = "second_still_scores"

Collection = Sequence[Sequence[int]]  # six groups of mana values, in GROUPS order


def group_key(mana_values: Sequence[int]) -> tuple[int, int]:
    """How a group ranks: its size, then "the card with the highest mana value breaks ties"."""
    return len(mana_values), max(mana_values, default=-1)


def split_points(prize: int, tied: int) -> int:
    """ "If there is still a tie, each tied player gets half the points, rounded up." """
    return prize if tied == 1 else -(-prize // 2)


def color_points(groups: Sequence[Sequence[int]], first_place_tie: str = USES_SECOND_PLACE) -> list[int]:
    """Each player's points for one colour, given each player's group of that colour (mana values).

    An empty group is no group and scores nothing. Players tied on size and highest mana value share a place.
    With USES_SECOND_PLACE a tie for first fills the first two places (nobody else scores second); with
    SECOND_STILL_SCORES the next group still takes second place.
    """
    keys = [group_key(group) for group in groups]
    tiers = sorted({key for key in keys if key[0] > 0}, reverse=True)
    points = [0] * len(groups)
    place = 0
    for tier in tiers:
        if place >= len(PRIZES):
            break
        holders = [seat for seat, key in enumerate(keys) if key == tier]
        for seat in holders:
            points[seat] = split_points(PRIZES[place], len(holders))
        place += len(holders) if first_place_tie == USES_SECOND_PLACE else 1
    return points


def group_count(collection: Collection) -> int:
    return sum(1 for group in collection if group)


def group_bonus(collection: Collection) -> int:
    """Points for the number of groups collected (a group needs at least one card)."""
    return GROUP_BONUS.get(group_count(collection), 0)


def final_points(collections: Sequence[Collection], first_place_tie: str = USES_SECOND_PLACE) -> list[int]:
    """Every player's total: the colour prizes of the six groups plus the group-count bonus."""
    totals = [group_bonus(collection) for collection in collections]
    for index in range(len(GROUPS)):
        for seat, points in enumerate(color_points([c[index] for c in collections], first_place_tie)):
            totals[seat] += points
    return totals


def winners(points: Sequence[int], card_counts: Sequence[int], win_tie: str) -> list[int]:
    """ "The player with the most points wins!" Ties: shared, or (win_tie "most_cards") the most cards collected."""
    best = max(points)
    tied = [seat for seat, total in enumerate(points) if total == best]
    if win_tie == "most_cards" and len(tied) > 1:
        most = max(card_counts[seat] for seat in tied)
        tied = [seat for seat in tied if card_counts[seat] == most]
    return tied
