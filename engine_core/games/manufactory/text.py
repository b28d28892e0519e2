"""Mishra's Manufactory in words: each draft described, and the table as a player sees it (`render_view`)."""

from __future__ import annotations

from manaforge.v1.games.manufactory_pb2 import ManufactoryAction, ManufactoryState

from engine_core.cards import is_land
from engine_core.game import options, wrap
from engine_core.games.manufactory.cards import GROUP_NAMES, GROUP_OF_COLOR, card_groups, card_of, format_card
from engine_core.games.manufactory.rules import FIRST_PLACE_TIE_OPTION, FRONT, collection
from engine_core.games.manufactory.scoring import (
    GROUPS,
    color_points,
    final_points,
    group_bonus,
    group_count,
)


def _collected_text(state: ManufactoryState, card: int) -> str:
    """A collected card by name and group, with its place among cards of that name in the group when there are
    several ("Swamp from black, copy 2")."""
    for player in state.players:
        for group in player.groups:
            if card in group.cards:
                name = card_of(state, card).name
                same = [c for c in group.cards if card_of(state, c).name == name]
                copy = f", copy {same.index(card) + 1}" if len(same) > 1 else ""
                return f"{name} from {GROUP_NAMES[GROUP_OF_COLOR[group.color]]}{copy}"
    return f"card {card}"


def render_view(view: ManufactoryState, seat: int | None) -> str:
    """The table as its players look at it: the belt (what is free, what costs a card), every player's groups with the
    points each scores now, the seat's own collection by name. Seats only as "seat N", at the ends of lines."""
    pending = view.header.pending.seats
    whose = "game over" if view.header.outcome.finished else f"seat {pending[0]}'s turn" if pending else ""
    lines = [
        f"Mishra's Manufactory · {whose} · deck: {view.deck_size} cards · {len(view.discards)} discarded",
        "Each colour: the largest group scores 3, the second largest 2; 4, 5 or 6 groups score 2, 4 or 6 more",
    ]
    if view.belt:
        lines.append("Conveyor belt (the front is free; the back costs a card you collected):")
        for place, card_id in enumerate(view.belt):
            card = card_of(view, card_id)
            end = "front" if place < FRONT else "back "
            joins = "any group (a land)" if is_land(card) else " or ".join(GROUP_NAMES[g] for g in card_groups(card))
            lines.append(f"  {place + 1}. {end}  {format_card(card)} → {joins}")
    collections = [collection(view, player) for player in view.players]
    first_place_tie = options(view)[FIRST_PLACE_TIE_OPTION.name]
    prizes = [color_points([c[index] for c in collections], first_place_tie) for index in range(len(GROUPS))]
    totals = final_points(collections, first_place_tie)
    lines.append("Collections: the cards in each group (and the points it scores now)")
    lines.append("  " + "".join(f"{GROUP_NAMES[g]:<10}" for g in GROUPS) + "groups    points")
    for s, groups in enumerate(collections):
        cells = "".join(
            f"{(f'{len(g)} ({prizes[i][s]})' if prizes[i][s] else str(len(g))) if g else '-':<10}"
            for i, g in enumerate(groups)
        )
        bonus = group_bonus(groups)
        count = f"{group_count(groups)}{f' (+{bonus})' if bonus else ''}"
        lines.append(f"  {cells}{count:<10}{totals[s]:<6}  seat {s}")
    if seat is not None and 0 <= seat < len(view.players):
        own = [
            f"{GROUP_NAMES[GROUP_OF_COLOR[group.color]]}: " + ", ".join(card_of(view, c).name for c in group.cards)
            for group in view.players[seat].groups
            if group.cards
        ]
        lines += wrap(f"seat {seat}'s collection: {' · '.join(own) or 'nothing yet'}", 100, "", "    ")
    return "\n".join(lines)


def describe(state: ManufactoryState, action: ManufactoryAction) -> str:
    """The draft in words, distinct among the legal ones: the belt slot it comes from, and the discarded card by
    its group (and which copy, when the group holds two of one name)."""
    belt = state.belt[:]
    if action.card in belt:
        name = f"{card_of(state, action.card).name} from belt slot {belt.index(action.card) + 1}"
    else:
        name = f"card {action.card}"
    text = f"draft {name} as {GROUP_NAMES.get(GROUP_OF_COLOR.get(action.color, ''), 'no colour')}"
    if action.HasField("discard"):
        text += f", discarding {_collected_text(state, action.discard)}"
    return text
