"""MANA BURN's vocabulary: the phases, moves and windows as plain ints, the rulebook's numbers, and the shared
action messages every list of choices is built from (built once, never mutated)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from manaforge.v1.games.mana_burn_pb2 import (
    ManaBurnAction,
    ManaBurnMove,
    ManaBurnPhase,
    ManaBurnRollPurpose,
    ManaBurnState,
    ManaBurnTrigger,
)

from engine_core.game import (
    seat_count,
)
from engine_core.games.mana_burn import board
from engine_core.games.mana_burn.cards import (
    DECK_SIZE,
    INSTANTS,
    KIND_OF,
    KINDS,
    Kind,
)

Move = ManaBurnMove


Phase = ManaBurnPhase
# Plain ints for the phases (an enum wrapper's attribute lookup is slow, and phases are read at every step).
ARRIVED_PHASE: Final = Phase.MANA_BURN_PHASE_ARRIVED
AUCTION_PHASE: Final = Phase.MANA_BURN_PHASE_AUCTION
FISH_BACK_PHASE: Final = Phase.MANA_BURN_PHASE_FISH_BACK
GOBLIN_PHASE: Final = Phase.MANA_BURN_PHASE_GOBLIN
MAIN_PHASE: Final = Phase.MANA_BURN_PHASE_MAIN
MOVING_PHASE: Final = Phase.MANA_BURN_PHASE_MOVING
MUD_PHASE: Final = Phase.MANA_BURN_PHASE_MUD
NEXT_TURN_PHASE: Final = Phase.MANA_BURN_PHASE_NEXT_TURN
OFFER_PHASE: Final = Phase.MANA_BURN_PHASE_OFFER
PATH_PHASE: Final = Phase.MANA_BURN_PHASE_PATH
ROLLED_PHASE: Final = Phase.MANA_BURN_PHASE_ROLLED
SQUARE_PHASE: Final = Phase.MANA_BURN_PHASE_SQUARE
STEAL_PHASE: Final = Phase.MANA_BURN_PHASE_STEAL
PASS: Final = Move.MANA_BURN_MOVE_PASS
PLAY: Final = Move.MANA_BURN_MOVE_PLAY
REROLL: Final = Move.MANA_BURN_MOVE_REROLL
HERO: Final = Move.MANA_BURN_MOVE_HERO
PATH: Final = Move.MANA_BURN_MOVE_PATH
YES: Final = Move.MANA_BURN_MOVE_YES
CARD: Final = Move.MANA_BURN_MOVE_CARD
SEAT: Final = Move.MANA_BURN_MOVE_SEAT
CREATURE: Final = Move.MANA_BURN_MOVE_CREATURE
FALSE_BID: Final = Move.MANA_BURN_MOVE_FALSE_BID
NAME: Final = Move.MANA_BURN_MOVE_NAME

ROLL_WINDOW: Final = ManaBurnTrigger.MANA_BURN_TRIGGER_ROLL
CARD_WINDOW: Final = ManaBurnTrigger.MANA_BURN_TRIGGER_CARD
ASK_WINDOW: Final = ManaBurnTrigger.MANA_BURN_TRIGGER_ASK
MOVE_ROLL: Final = ManaBurnRollPurpose.MANA_BURN_ROLL_PURPOSE_MOVE
ANTE_ROLL: Final = ManaBurnRollPurpose.MANA_BURN_ROLL_PURPOSE_ANTE
SQUARE_ROLL: Final = ManaBurnRollPurpose.MANA_BURN_ROLL_PURPOSE_SQUARE

DIE: Final = 12
HAND_SIZE: Final = 3
LIBRARY_DRAW: Final = 2
GIANT_GROWTH_BONUS: Final = 3
HERO_BONUS: Final = 2
NONE: Final = -1
MAX_SEATS: Final = 6  # the game's max_seats


_ACTIONS: Final[dict[tuple[object, ...], ManaBurnAction]] = {}  # the actions built so far, by their fields
# A state sent to the stateless rules service may hold any ids, so the tables of shared actions are bounded: past
# this many entries a table starts again (its actions stay valid where they are held; an equal one is built anew).
ACTIONS_LIMIT: Final = 1 << 14


def act(move: ManaBurnMove.ValueType, **fields: int) -> ManaBurnAction:
    """The action message, built once and then shared: never mutate one."""
    key = (move, *fields.items())
    found = _ACTIONS.get(key)
    if found is None:
        if len(_ACTIONS) >= ACTIONS_LIMIT:
            _ACTIONS.clear()
        found = _ACTIONS[key] = ManaBurnAction(move=move, **fields)
    return found


# The hot paths compare card kinds and list the field-less actions at every step: module constants, not an enum
# attribute lookup or an `act` call each time (same values, same shared messages).
GIANT_GROWTH_KIND: Final = Kind.GIANT_GROWTH
INCINERATE_KIND: Final = Kind.INCINERATE
COUNTERSPELL_KIND: Final = Kind.COUNTERSPELL
HOLY_ARMOR_KIND: Final = Kind.HOLY_ARMOR
RAISE_DEAD_KIND: Final = Kind.RAISE_DEAD
SPRITES_KIND: Final = Kind.SCRYB_SPRITES
TARGETED: Final = frozenset({Kind.HOLY_ARMOR, Kind.RAISE_DEAD, Kind.INCINERATE, Kind.COUNTERSPELL})
WINNING_HAND: Final = len(KINDS)  # one of each card
PASS_ACTION: Final = act(PASS)
YES_ACTION: Final = act(YES)
REROLL_ACTION: Final = act(REROLL)
FALSE_BID_ACTION: Final = act(FALSE_BID)
# The other shared actions the legal lists use, by their one field (a card id, a seat, a path, a roll index).
CARD_ACTIONS: Final = tuple(act(CARD, card=c) for c in range(DECK_SIZE))
CREATURE_ACTIONS: Final = tuple(act(CREATURE, target=c) for c in range(DECK_SIZE))
PLAY_ACTIONS: Final = tuple(act(PLAY, card=c) for c in range(DECK_SIZE))
SEAT_ACTIONS: Final = tuple(act(SEAT, seat=s) for s in range(MAX_SEATS))
PATH_ACTIONS: Final = [act(PATH, path=p) for p in range(len(board.PATH_NAMES))]
FISH_BACK_ACTIONS: Final = [PASS_ACTION, *(act(NAME, kind=k) for k in KINDS)]
# Giant Growth on roll i (a roll is one die per rolling seat: at most two, never more than the seats).
GROW_ACTIONS: Final = {
    c: tuple(act(PLAY, card=c, roll=i) for i in range(MAX_SEATS))
    for c in range(DECK_SIZE)
    if KIND_OF[c] == Kind.GIANT_GROWTH
}
# The instants' card ids, for filtering a hand before sorting it.
IS_INSTANT: Final = tuple(KIND_OF[c] in INSTANTS for c in range(DECK_SIZE))

_AIMED: Final[dict[int, dict[int, ManaBurnAction]]] = {}  # card played -> target -> the shared action


def aimed(card: int, target: int) -> ManaBurnAction:
    """`act(PLAY, card=card, target=target)`, the one `play_at` lists."""
    found = _AIMED.get(card, {}).get(target)
    return play_at(card, [target])[0] if found is None else found


def play_at(card: int, targets: list[int]) -> list[ManaBurnAction]:
    """`act(PLAY, card=card, target=t)` for each target (a Raise Dead may have a whole Graveyard to choose from)."""
    row = _AIMED.get(card)
    if row is None:
        if len(_AIMED) >= ACTIONS_LIMIT:
            _AIMED.clear()
        row = _AIMED[card] = {}
    try:
        return [row[target] for target in targets]
    except KeyError:
        if len(row) + len(targets) > ACTIONS_LIMIT:
            row.clear()
        for target in targets:
            if target not in row:
                row[target] = act(PLAY, card=card, target=target)
        return [row[target] for target in targets]


def card_choices(cards: list[int]) -> list[ManaBurnAction]:
    """`act(CARD, card=c)` for one of each card among `cards` (`first_copies`), in id order."""
    actions = CARD_ACTIONS
    return [actions[c] for c in first_copies(cards)]


def first_copies(cards: Iterable[int]) -> list[int]:
    """`cards` sorted, one copy of each card (the lowest id): copies are the same to the rules, so a choice lists one
    and takes that one (the ids of one card are consecutive, cards.py)."""
    found: list[int] = []
    last = -1
    for card in sorted(cards):
        k = KIND_OF[card]
        if k != last:
            found.append(card)
            last = k
    return found


def is_first_copy(card: int, cards: Sequence[int]) -> bool:
    """`card` is among `cards` and no lower id of the same card is."""
    if card not in cards:
        return False
    k = KIND_OF[card]
    return all(other >= card or KIND_OF[other] != k for other in cards)


def creatures_of(state: ManaBurnState, seats: list[int], k: Kind | None = None) -> list[int]:
    """The creatures of `seats` (of kind `k`), one of each set that are the same to the rules (`creature_key`)."""
    found: list[int] = []
    keys: set[tuple[int, int, int, int]] = set()
    for s in seats:
        for c in state.players[s].creatures:
            if k is None or KIND_OF[c.card] == k:
                key = (s, KIND_OF[c.card], c.owner, len(c.armor))
                if key not in keys:
                    keys.add(key)
                    found.append(c.card)
    return found


def all_seats(state: ManaBurnState) -> list[int]:
    return list(range(seat_count(state)))
