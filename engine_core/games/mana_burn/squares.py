"""The squares: what each square's instruction does when a pawn stops on it, and the questions it asks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from manaforge.v1.common_pb2 import Event
from manaforge.v1.games.mana_burn_pb2 import (
    ManaBurnAction,
    ManaBurnCreature,
    ManaBurnState,
)

from engine_core import rng
from engine_core.game import (
    event,
)
from engine_core.games.mana_burn import board
from engine_core.games.mana_burn.actions import (
    ARRIVED_PHASE,
    AUCTION_PHASE,
    CREATURE,
    CREATURE_ACTIONS,
    MOVE_ROLL,
    MUD_PHASE,
    NONE,
    PASS,
    PASS_ACTION,
    SEAT,
    SEAT_ACTIONS,
    SQUARE_ROLL,
    YES,
    YES_ACTION,
    act,
    all_seats,
    card_choices,
    creatures_of,
)
from engine_core.games.mana_burn.board import GRAVEYARD, LIBRARY, SQUARES, Effect
from engine_core.games.mana_burn.cards import (
    BLUE,
    CREATURES,
    KINDS,
    Kind,
    kind,
    name,
    names,
)
from engine_core.games.mana_burn.sharing import own_player
from engine_core.games.mana_burn.trading import go_fishing, start_offer
from engine_core.games.mana_burn.turns import ask, roll, to_main
from engine_core.games.mana_burn.zones import (
    bury,
    discard,
    draw,
    find_creature,
    gain,
    give_creature,
    left_of,
    order_after,
    remove_creature,
    right_of,
    take_graveyard,
    take_library,
    take_random,
)


def enter_square(state: ManaBurnState, events: list[Event]) -> None:
    """Follow the instruction of the square the active pawn stopped on."""
    seat = state.active
    player = state.players[seat]
    state.square = player.square
    square = SQUARES[player.square]
    events.append(event("SquareReached", f"seat {seat} is on {square.name}: {square.text}", actor=seat))
    choosing = player.square in (LIBRARY, GRAVEYARD)
    if player.choosing != choosing:
        own_player(state, seat).choosing = choosing
    to_main(state)
    effect = SQUARE_EFFECTS.get(square.effect)
    if effect is not None:
        effect(state, events)


def _ask_if(state: ManaBurnState, condition: bool, count: int = 0) -> None:
    if condition:
        ask(state, state.active, count)


def _hand(state: ManaBurnState, seat: int | None = None) -> list[int]:
    return list(state.players[state.active if seat is None else seat].hand)


def _others_with_cards(state: ManaBurnState) -> list[int]:
    return [s for s in order_after(state, state.active) if state.players[s].hand]


def _draw_n(n: int) -> Callable[[ManaBurnState, list[Event]], None]:
    return lambda state, events: draw(state, state.active, n, events)


def _roll_square(state: ManaBurnState, events: list[Event]) -> None:
    roll(state, [state.active], SQUARE_ROLL, events)


def square_roll(state: ManaBurnState, value: int, events: list[Event]) -> None:
    """Major Party, Origins Tournament and Meet Mr. Suitcase read the roll (Giant Growth can push it past 12)."""
    effect = SQUARES[state.square].effect
    seat = state.active
    to_main(state)
    if effect == Effect.MAJOR_PARTY:
        if value <= 8:
            draw(state, seat, 2, events)
        else:
            _ask_if(state, bool(_hand(state)), 2)
    elif effect == Effect.TOURNAMENT:
        if value >= 8:
            draw(state, seat, 3, events)
    elif value <= 6:  # Meet Mr. Suitcase
        draw(state, seat, 1, events)
    else:
        _ask_if(state, bool(_hand(state)), 2)


def _lace(state: ManaBurnState, events: list[Event]) -> None:
    state.direction = -state.direction
    events.append(event("TurnOrderReversed", "turn order reversed: Left and Right swap"))


def _goblin_riot(state: ManaBurnState, events: list[Event]) -> None:
    """Gather every creature in play, shuffle, deal them out one by one starting with the active seat."""
    pool: list[ManaBurnCreature] = []
    for seat in range(len(state.players)):
        player = own_player(state, seat)
        pool.extend(player.creatures)
        del player.creatures[:]
    order = list(range(len(pool)))
    rng.shuffle(state.header.rng, order)
    seats = [state.active, *order_after(state, state.active)]
    for i, index in enumerate(order):
        own_player(state, seats[i % len(seats)]).creatures.append(pool[index])
    events.append(event("CreaturesShared", f"{len(pool)} creatures were shared out again at random"))


def _tantrum(state: ManaBurnState, events: list[Event]) -> None:
    if not state.graveyard or kind(state.graveyard[-1]) not in CREATURES:
        return
    doomed = kind(state.graveyard[-1])
    for player in state.players:
        for creature in [c.card for c in player.creatures if kind(c.card) == doomed]:
            bury(state, creature, events, "died in the Tantrum of God")


def _gravy_train(state: ManaBurnState, events: list[Event]) -> None:
    take_random(state, state.active, right_of(state, state.active), 2, events)


def _mana_screwed(state: ManaBurnState, events: list[Event]) -> None:
    for seat in order_after(state, state.active):
        draw(state, seat, 1, events)


def _nose_ring(state: ManaBurnState, events: list[Event]) -> None:
    if state.mana_burn:
        gain(state, state.active, [state.mana_burn.pop()], "took from the Mana Burn pile", events)


def _auction(state: ManaBurnState, events: list[Event]) -> None:
    """Auctioning Cards: X cards off the Library face up; bidding starts on the left."""
    cards = take_library(state, SQUARES[state.square].amount, events)
    if not cards:
        return
    state.auction.extend(cards)
    events.append(event("AuctionOpened", f"up for auction: {names(cards)}"))
    for seat, player in enumerate(state.players[:]):
        if player.passed or player.false_bids:
            player = own_player(state, seat)
            player.passed = False
            player.false_bids = 0
    state.last_bidder = NONE
    state.decider = left_of(state, state.active)
    state.phase = AUCTION_PHASE


def _mud(state: ManaBurnState, events: list[Event]) -> None:
    state.decider = state.active
    state.phase = MUD_PHASE
    next_wrestler(state, include_current=True)


def next_wrestler(state: ManaBurnState, include_current: bool = False) -> None:
    seats = [state.active, *order_after(state, state.active)]
    start = seats.index(state.decider) + (0 if include_current else 1)
    for seat in seats[start:]:
        if state.players[seat].hand or state.players[seat].creatures:
            state.decider = seat
            return
    to_main(state)


def _short_circuit(state: ManaBurnState, events: list[Event]) -> None:
    seats = [s for s in [state.active, *order_after(state, state.active)] if state.players[s].hand]
    start_offer(state, seats, events)


def _roll_again(state: ManaBurnState, events: list[Event]) -> None:
    roll(state, [state.active], MOVE_ROLL, events)


def _graveyard_stop(state: ManaBurnState, events: list[Event]) -> None:
    _ask_if(state, bool(state.graveyard))


SQUARE_EFFECTS: Final[dict[Effect, Callable[[ManaBurnState, list[Event]], None]]] = {
    Effect.GRAVEYARD: _graveyard_stop,
    Effect.GAME_STORE: lambda s, e: _ask_if(s, bool(_hand(s)) and bool(s.graveyard)),
    Effect.MAJOR_PARTY: _roll_square,
    Effect.TOURNAMENT: _roll_square,
    Effect.SUITCASE: _roll_square,
    Effect.RE_ENTER: _draw_n(1),
    Effect.DRAW_TWO: _draw_n(2),
    Effect.CONNECTION_LOST: lambda s, e: ask(s, s.active, 1),
    Effect.SPOOKY_VIBES: lambda s, e: _ask_if(
        s, bool(creatures_of(s, order_after(s, s.active), Kind.DRUDGE_SKELETONS))
    ),
    Effect.CRAZY_ABU: lambda s, e: _ask_if(s, bool(s.graveyard)),
    Effect.TRADE: lambda s, e: _ask_if(s, bool(_hand(s)) and bool(_others_with_cards(s))),
    Effect.ANTE: lambda s, e: _ask_if(s, bool(_hand(s)) and bool(_others_with_cards(s))),
    Effect.FISHING: lambda s, e: ask(s, s.active),
    Effect.DISCARD_ONE: lambda s, e: _ask_if(s, bool(_hand(s)), 1),
    Effect.MANA_BURN: lambda s, e: _ask_if(s, bool(_hand(s)), 1),
    Effect.AUCTION: _auction,
    Effect.ROLL_AGAIN: _roll_again,
    Effect.SHORT_CIRCUIT: _short_circuit,
    Effect.BLIND_TRADE: lambda s, e: _ask_if(s, bool(_hand(s)) and bool(s.library or s.graveyard or s.mana_burn)),
    Effect.GREEN_IS_STRONG: lambda s, e: _ask_if(s, any(kind(c) in BLUE for c in s.graveyard), 2),
    Effect.REFUND: lambda s, e: _ask_if(s, bool(creatures_of(s, all_seats(s)))),
    Effect.GOBLIN_RIOT: _goblin_riot,
    Effect.MUD_WRESTLING: _mud,
    Effect.GREEDY_YOU: lambda s, e: take_graveyard(s, s.active, 2, e),
    Effect.NOSE_RING: _nose_ring,
    Effect.LACE: _lace,
    Effect.TANTRUM: _tantrum,
    Effect.VESUVAN_SHIFT: lambda s, e: _ask_if(
        s, bool(creatures_of(s, [s.active])) and bool(creatures_of(s, order_after(s, s.active)))
    ),
    Effect.GRAVY_TRAIN: _gravy_train,
    Effect.MANA_SCREWED: _mana_screwed,
    Effect.DISLOYALTY: lambda s, e: _ask_if(s, bool(creatures_of(s, [s.active]))),
}


# The squares whose question is a card from the hand (Connection Lost adds the jump, the swaps a pass first).
HAND_SQUARES: Final = frozenset(
    {
        Effect.MAJOR_PARTY,
        Effect.SUITCASE,
        Effect.DISCARD_ONE,
        Effect.MANA_BURN,
        Effect.CONNECTION_LOST,
        Effect.GAME_STORE,
        Effect.BLIND_TRADE,
    }
)


def square_choices(state: ManaBurnState) -> list[ManaBurnAction]:
    """A square's question to `decider` (the active seat)."""
    effect = SQUARES[state.square].effect
    me = state.active
    if effect in HAND_SQUARES:
        cards = card_choices(state.players[me].hand[:])
        if effect == Effect.CONNECTION_LOST:
            cards.append(YES_ACTION)
        elif effect in (Effect.GAME_STORE, Effect.BLIND_TRADE):
            cards.insert(0, PASS_ACTION)
        return cards
    if effect in (Effect.GRAVEYARD, Effect.CRAZY_ABU):
        return [PASS_ACTION, YES_ACTION]
    if effect in (Effect.TRADE, Effect.ANTE):
        return [SEAT_ACTIONS[s] for s in _others_with_cards(state)]
    if effect == Effect.FISHING:
        return [act(SEAT, seat=s, kind=k) for s in order_after(state, me) for k in KINDS]
    if effect == Effect.GREEN_IS_STRONG:
        return [PASS_ACTION, *card_choices([c for c in state.graveyard if kind(c) in BLUE])]
    creatures = CREATURE_ACTIONS
    if effect == Effect.SPOOKY_VIBES:
        skeletons = creatures_of(state, order_after(state, me), Kind.DRUDGE_SKELETONS)
        return [PASS_ACTION, *(creatures[c] for c in skeletons)]
    if effect == Effect.REFUND:
        return [creatures[c] for c in creatures_of(state, all_seats(state))]
    if effect == Effect.DISLOYALTY:
        return [creatures[c] for c in creatures_of(state, [me])]
    # Vesuvan Shift
    theirs = creatures_of(state, order_after(state, me))
    return [act(PASS), *(act(CREATURE, target=m, other=t) for m in creatures_of(state, [me]) for t in theirs)]


def square_decision(state: ManaBurnState, action: ManaBurnAction, events: list[Event]) -> None:
    effect = SQUARES[state.square].effect
    me = state.active
    to_main(state)
    if action.move == PASS:
        events.append(event("Declined", f"seat {me} declined", actor=me))
        return
    if effect in (Effect.MAJOR_PARTY, Effect.SUITCASE, Effect.DISCARD_ONE, Effect.CONNECTION_LOST):
        if action.move == YES:
            _jump(state, events)
            return
        discard(state, me, action.card, events)
        _ask_if(state, state.count > 1 and bool(_hand(state)), state.count - 1)
    elif effect == Effect.MANA_BURN:
        own_player(state, me).hand.remove(action.card)
        state.mana_burn.append(action.card)
        events.append(event("CardBurned", f"seat {me} put a card face down on the Mana Burn pile", actor=me))
    elif effect == Effect.GAME_STORE:
        taken = [state.graveyard.pop() for _ in range(min(2, len(state.graveyard)))]
        discard(state, me, action.card, events, "swapped away")
        gain(state, me, taken, "took from the Graveyard", events, public=True)
    elif effect == Effect.BLIND_TRADE:
        own_player(state, me).hand.remove(action.card)
        taken = take_library(state, 2, events)
        state.library.insert(0, action.card)
        events.append(event("CardSwapped", f"seat {me} put a card under the Library", actor=me))
        gain(state, me, taken, "took from the top of the Library", events)
    elif effect == Effect.GRAVEYARD:
        take_graveyard(state, me, 1, events)
    elif effect == Effect.CRAZY_ABU:
        own_player(state, me).skip_turns += 1
        take_graveyard(state, me, 3, events)
    elif effect in (Effect.TRADE, Effect.ANTE):
        state.opponent = action.seat
        start_offer(state, [me, action.seat], events)
    elif effect == Effect.FISHING:
        go_fishing(state, action.seat, action.kind, False, events)
    elif effect == Effect.GREEN_IS_STRONG:
        state.graveyard.remove(action.card)
        gain(state, me, [action.card], "took from the Graveyard", events, public=True)
        more = any(kind(c) in BLUE for c in state.graveyard)
        _ask_if(state, state.count > 1 and more, state.count - 1)
    elif effect == Effect.SPOOKY_VIBES:
        give_creature(state, action.target, me)
        events.append(event("CreatureStolen", f"seat {me} stole {name(action.target)}"))
    elif effect == Effect.REFUND:
        creature = remove_creature(state, action.target)
        state.graveyard.extend(creature.armor)
        gain(state, creature.owner, [creature.card], "got a creature back (Refund? Refund?)", events, public=True)
    elif effect == Effect.DISLOYALTY:
        to = left_of(state, me)
        give_creature(state, action.target, to)
        events.append(event("CreatureGiven", f"seat {me} gave {name(action.target)} to seat {to}"))
    else:  # Vesuvan Shift
        theirs = find_creature(state, action.other)
        if theirs is None:
            raise ValueError("Vesuvan Shift target left play")
        give_creature(state, action.target, theirs[0])
        give_creature(state, action.other, me)
        text = f"seat {me} swapped {name(action.target)} for seat {theirs[0]}'s {name(action.other)}"
        events.append(event("CreaturesSwapped", text))


def _jump(state: ManaBurnState, events: list[Event]) -> None:
    player = own_player(state, state.active)
    player.square = board.RE_ENTER_SQUARE
    player.path = board.INTERNET
    events.append(event("PawnJumped", f"seat {state.active} jumped to Re-Enter the Internet", actor=state.active))
    state.phase = ARRIVED_PHASE
