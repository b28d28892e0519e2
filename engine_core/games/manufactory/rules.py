"""Mishra's Manufactory's rules as module functions: the setup, the legal drafts, each draft applied (validated
first) and the scoring at the end. Every change to a player or a group takes it first (sharing.py)."""

from __future__ import annotations

from typing import Final

from manaforge.v1.common_pb2 import Event
from manaforge.v1.games.manufactory_pb2 import ManufactoryAction, ManufactoryPlayer, ManufactoryState

from engine_core import rng as random
from engine_core.cards import CARD_SET_OPTION, find_set
from engine_core.cards.booster import draw_faces, shared_cards
from engine_core.errors import IllegalActionError, MalformedActionError
from engine_core.game import (
    Option,
    event,
    finish,
    options,
    seat_count,
    seats_text,
    set_pending,
)
from engine_core.games.manufactory.cards import (
    COLOR_OF_GROUP,
    GROUP_NAMES,
    CardFacts,
    Draft,
    FactsTable,
    card_of,
    draft_of,
    facts_table,
)
from engine_core.games.manufactory.scoring import (
    GROUPS,
    SECOND_STILL_SCORES,
    USES_SECOND_PLACE,
    Collection,
    final_points,
    winners,
)
from engine_core.games.manufactory.sharing import (
    LiveGroup,
    LivePlayer,
    own_group,
    own_player,
    pass_turn,
)
from engine_core.live import Twin, clone

BELT_SIZE: Final = 4
FRONT: Final = 2  # belt positions 0 and 1 are the front of the line; the rest is the back
MAX_CARDS: Final = 400  # a game lasts exactly one turn per card; four boosters are about 60 cards
PROMPT: Final = "draft a card from the conveyor belt"
ACTION_NAME: Final = ManufactoryAction.DESCRIPTOR.full_name


class SeatTexts(dict[int, str]):
    """`form` with a seat filled in, by seat: made once for the seats a game can have; any other seat (in a state a
    client sent) made when asked, not kept."""

    __slots__ = ("form",)

    def __init__(self, form: str, seats: int) -> None:
        super().__init__((seat, form.format(seat)) for seat in range(seats))
        self.form = form

    def __missing__(self, seat: int) -> str:
        return self.form.format(seat)


# The events' texts of a draft, in parts made once: the seat's part, the card's (its facts), the group's part.
DRAFTED: Final = SeatTexts("seat {} drafted ", 4)
DISCARDED: Final = SeatTexts("seat {} discarded ", 4)
INTO_FRONT: Final = tuple(f" from the front of the line into their {GROUP_NAMES[group]} group" for group in GROUPS)
INTO_BACK: Final = tuple(f" from the back of the line into their {GROUP_NAMES[group]} group" for group in GROUPS)
FROM_GROUP: Final = tuple(f" from their {GROUP_NAMES[group]} group" for group in GROUPS)
FIRST_PLACE_TIE_OPTION: Final = Option(
    "first_place_tie",
    USES_SECOND_PLACE,
    (USES_SECOND_PLACE, SECOND_STILL_SCORES),
    "when players tie for a colour's largest group (each gets 2 of the 3 points): uses_second_place: the tied "
    "players fill first and second place, so nobody else scores second; second_still_scores: the next largest "
    "group still scores 2 points",
)


WIN_TIE_OPTION: Final = Option(
    "win_tie",
    "shared",
    ("shared", "most_cards"),
    "players tied for the most points: shared: all of them win; most_cards: the one who collected the most cards "
    "wins (still tied: shared)",
)


def collected(player: ManufactoryPlayer) -> list[int]:
    """Every card id a player has collected, group by group."""
    if isinstance(player, Twin):  # lists
        cards: list[int] = []
        for group in player.groups:
            cards += group.cards
        return cards
    return [card for group in player.groups[:] for card in group.cards[:]]  # slices: faster on protobuf fields


def collection(state: ManufactoryState, player: ManufactoryPlayer) -> Collection:
    """A player's six groups as mana values, for scoring."""
    return [[card_of(state, card).mana_value for card in group.cards] for group in player.groups]


def group_index(player: ManufactoryPlayer, card_id: int) -> int:
    for index, group in enumerate(player.groups):
        if card_id in group.cards:
            return index
    raise KeyError(card_id)


def points(state: ManufactoryState) -> list[int]:
    """Every player's points if the game ended now (the final score once it has)."""
    first_place_tie = options(state)[FIRST_PLACE_TIE_OPTION.name]
    return final_points([collection(state, player) for player in state.players], first_place_tie)


NEW_PLAYER: Final = LivePlayer(groups=[LiveGroup(color=COLOR_OF_GROUP[group]) for group in GROUPS])
"""A player before the first draft: six empty groups (copied for each seat at setup, never changed itself)."""


def setup(state: ManufactoryState) -> None:
    header = state.header
    seats = seat_count(state)
    card_set = find_set(options(state)[CARD_SET_OPTION.name])
    faces = draw_faces(card_set, header.rng, seats)  # the boosters' cards, as `open_packs` opens them
    random.shuffle(header.rng, faces)  # ids in shuffled order: an id tells nothing of its pack or slot
    pool = shared_cards(card_set, faces[:MAX_CARDS])  # never changed: the same messages from game to game
    state.catalogue.extend(pool)
    state.deck.extend(range(len(pool)))
    random.shuffle(header.rng, state.deck)
    for _ in range(BELT_SIZE):
        _refill(state)
    for _ in range(seats):
        state.players.append(clone(NEW_PLAYER))
    state.first_seat = random.randbelow(header.rng, seats)
    set_pending(state, [state.first_seat], prompt=PROMPT)


def _refill(state: ManufactoryState) -> int | None:
    """A card from the deck added to the back of the line; None when the deck is empty."""
    if not state.deck:
        return None
    card_id = state.deck.pop()
    state.belt.append(card_id)
    state.deck_size = len(state.deck)
    return card_id


def legal_actions(state: ManufactoryState, seat: int) -> list[ManufactoryAction]:
    legal: list[ManufactoryAction] = []
    cards = facts_table(state)
    belt = state.belt[:]
    for card_id in belt[:FRONT]:
        legal += cards[card_id].front
    if len(belt) > FRONT:
        discards = collected(state.players[seat])
        for card_id in belt[FRONT:]:
            for row in cards[card_id].back:  # one row per colour: the drafts by discarded card, in collection order
                legal += map(row.__getitem__, discards)
    return legal


def _check(
    state: ManufactoryState, seat: int, draft: Draft, cards: FactsTable
) -> tuple[int, int, CardFacts, tuple[int, int] | None]:
    """Refuses an illegal action (naming the rule); returns the declared group's index, the drafted card's belt
    position and facts, and the discarded card with the index of the group it leaves (None: a free draft from the
    front)."""
    card_id, color, group, discard = draft
    if group is None:
        raise MalformedActionError("declare a colour", "the action names no group (a colour or colorless)")
    belt = state.belt[:]
    if card_id not in belt:
        raise IllegalActionError("draft from the conveyor belt", f"card {card_id} is not on the conveyor belt")
    position = belt.index(card_id)
    facts = cards[card_id]
    if color not in facts.colors:
        raise IllegalActionError(
            "declare a colour",
            f"{facts.name} cannot join the {GROUP_NAMES[GROUPS[group]]} group: lands are wild, and a multicolored "
            "card can be any of its colors; any other card goes to its own colour (or colorless)",
        )
    if position < FRONT:
        if discard is not None:
            raise IllegalActionError(
                "front of the line", "the two cards at the front of the line are free: discard nothing"
            )
        return group, position, facts, None
    if discard is None:
        raise IllegalActionError(
            "back of the line",
            "a player must discard a card they've already collected to draft a card from the back of the line",
        )
    for index, pile in enumerate(state.players[seat].groups):
        if discard in pile.cards:
            return group, position, facts, (discard, index)
    raise IllegalActionError("back of the line", f"card {discard} is not a card you have already collected")


def apply(state: ManufactoryState, seat: int, action: ManufactoryAction) -> list[Event]:
    cards = facts_table(state)
    draft = draft_of(action)
    group, position, facts, leaving = _check(state, seat, draft, cards)
    player = own_player(state, seat)  # a live state's players are shared with its copies (sharing.py)
    events: list[Event] = []
    if leaving is not None:  # the price of a back-of-the-line card: a collected card leaves the game
        discard, discard_group = leaving
        own_group(player, discard_group).cards.remove(discard)
        state.discards.append(discard)
        text = f"{DISCARDED[seat]}{cards[discard].name}{FROM_GROUP[discard_group]}"
        events.append(event("CardDiscarded", text, actor=seat, cards=[discard]))
    # the card leaves the belt (the cards behind slide forward) for the declared group
    del state.belt[position]
    card_id = draft.card
    own_group(player, group).cards.append(card_id)
    text = f"{DRAFTED[seat]}{facts.text}{(INTO_FRONT if position < FRONT else INTO_BACK)[group]}"
    events.append(event("CardDrafted", text, actor=seat, cards=[card_id]))
    added = _refill(state)
    if added is not None:
        events.append(event("CardRevealed", cards[added].revealed, cards=[added]))
    if state.belt:
        pass_turn(state, (seat + 1) % seat_count(state), PROMPT)  # play passes clockwise
    else:
        events.append(_finish(state))
    return events


def _finish(state: ManufactoryState) -> Event:
    totals = points(state)
    for seat, total in enumerate(totals):
        own_player(state, seat).points = total
    counts = [len(collected(player)) for player in state.players]
    won = winners(totals, counts, options(state)[WIN_TIE_OPTION.name])
    summary = ", ".join(f"seat {seat} {total}" for seat, total in enumerate(totals))
    finish(state, won, [float(total) for total in totals], f"all cards collected: {summary}")
    said = f"{seats_text(won)} {'wins' if len(won) == 1 else 'share the win'}"
    return event("GameEnded", f"all cards have been collected; points: {summary}; {said}")
