"""The MANA BURN rules as functions over the state: the turn, movement, squares, response windows and cards.

`advance` runs everything automatic until a decision is due and sets the pending seats; `legal_actions` lists a
pending seat's choices; `perform` carries out one of them. Rule references ("Movement", "Trading", ...) are the
rulebook's sections; RULES.md maps every rule to its function here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Final

from manaforge.v1.common_pb2 import DecisionKind, Event
from manaforge.v1.games.mana_burn_pb2 import (
    ManaBurnAction,
    ManaBurnCreature,
    ManaBurnMove,
    ManaBurnPhase,
    ManaBurnRollPurpose,
    ManaBurnState,
    ManaBurnTrigger,
)

from engine_core import rng
from engine_core.errors import IllegalActionError, MalformedActionError
from engine_core.game import (
    RESPONSE,
    SIMULTANEOUS,
    TURN,
    event,
    finish,
    options,
    seat_count,
    seats_text,
    set_pending,
)
from engine_core.games.mana_burn import board
from engine_core.games.mana_burn.board import GRAVEYARD, LIBRARY, SQUARES, Effect
from engine_core.games.mana_burn.cards import (
    BLUE,
    CREATURES,
    DECK_SIZE,
    INSTANTS,
    KIND_OF,
    KINDS,
    MAIN_CARDS,
    NAMES,
    Kind,
    distinct,
    kind,
    name,
    names,
)
from engine_core.games.mana_burn.sharing import own_creature, own_player
from engine_core.games.mana_burn.zones import (
    bury,
    count_in_play,
    discard,
    draw,
    find_armor,
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


# ----- setup, turns, the end ----------------------------------------------------------------------------------------


def deal(state: ManaBurnState) -> None:
    """SETUP: shuffle, three cards each, every pawn on the Library. Seat 0 plays first."""
    n = seat_count(state)
    for field in ("library", "graveyard", "mana_burn", "players", "rolls", "stack", "windows", "auction"):
        state.ClearField(field)
    state.library.extend(range(DECK_SIZE))
    rng.shuffle(state.header.rng, state.library)
    for _ in range(n):
        player = state.players.add(square=LIBRARY, choosing=True)
        player.hand.extend(state.library[-HAND_SIZE:])
        del state.library[-HAND_SIZE:]
    state.direction = 1
    state.active = n - 1
    state.turns = 0
    state.phase = NEXT_TURN_PHASE
    state.last_bidder = state.opponent = state.kind = NONE
    state.steps = state.rerolls_used = state.count = state.square = state.decider = 0
    state.main_played = state.fishing_back = False


def turn_limit(state: ManaBurnState) -> int:
    return int(options(state)["turn_limit"])


def next_turn(state: ManaBurnState, events: list[Event]) -> None:
    """ON YOUR TURN: the next seat in turn order (skipping a turn Crazy Abu! cost) rolls for movement."""
    n = seat_count(state)
    if state.turns >= turn_limit(state) * n:
        end_by_count(state, events, f"the {turn_limit(state)}-round limit was reached")
        return
    seat = state.active
    while True:
        seat = (seat + state.direction) % n
        player = state.players[seat]
        if player.skip_turns == 0:
            break
        own_player(state, seat).skip_turns -= 1
        events.append(event("TurnSkipped", f"seat {seat} skipped a turn (Crazy Abu!)", actor=seat))
    state.active = seat
    state.turns += 1
    state.rerolls_used = 0
    state.main_played = False
    events.append(event("TurnBegan", f"turn {state.turns}: seat {seat}", actor=seat))
    roll(state, [seat], MOVE_ROLL, events)


def end_by_count(state: ManaBurnState, events: list[Event], reason: str) -> None:
    """The turn-limit variant: the most different cards in hand wins (ties share the win)."""
    counts = [distinct(list(p.hand)) for p in state.players]
    best = max(counts)
    winners = [s for s, c in enumerate(counts) if c == best]
    finish(state, winners, [float(c) for c in counts], f"{reason}: most different cards ({best}) wins")
    events.append(
        event(
            "GameEnded",
            f"{reason}; {seats_text(winners)} {'hold' if len(winners) > 1 else 'holds'} the most different cards "
            f"({best})",
        )
    )


def check_win(state: ManaBurnState, events: list[Event]) -> bool:
    """WINNING: one of each of the ten cards in hand, checked after every change, on anyone's turn."""
    players = state.players
    for player in players:
        if len(player.hand) >= WINNING_HAND:
            break
    else:
        return False  # nobody holds ten cards (the usual case, checked first)
    winners = [s for s, p in enumerate(players) if len(p.hand) >= len(KINDS) and distinct(list(p.hand)) == len(KINDS)]
    if not winners:
        return False
    if len(winners) > 1 and options(state)["simultaneous_win"] == "restart":
        state.restarts += 1
        for earlier in events:  # every card goes back into the deck: no event may show where one was
            del earlier.cards[:]
        events.append(event("GameRestarted", f"seats {winners} won at the same time: everyone plays again"))
        deal(state)
        return True
    counts = [float(distinct(list(p.hand))) for p in state.players]
    finish(state, winners, counts, "collected one of each of the ten cards")
    events.append(event("GameWon", f"{seats_text(winners)} collected one of each of the ten cards"))
    return True


# ----- the driver ---------------------------------------------------------------------------------------------------


def advance(state: ManaBurnState, events: list[Event]) -> None:
    """Run the automatic steps until the game waits for a decision (or ends); set the pending seats."""
    while not state.header.outcome.finished:
        if check_win(state, events):
            continue
        if state.windows:
            window = state.windows[-1]
            set_pending(state, [window.queue[0]], RESPONSE, window_prompt(state))
            return
        step = AUTOMATIC.get(state.phase)
        if step is None:
            seats, kind_ = deciders(state)
            set_pending(state, seats, kind_, PROMPTS[state.phase])
            return
        step(state, events)


def deciders(state: ManaBurnState) -> tuple[list[int], DecisionKind.ValueType]:
    if state.phase == OFFER_PHASE:
        return [s for s, p in enumerate(state.players) if p.offering], SIMULTANEOUS
    if state.phase in (SQUARE_PHASE, AUCTION_PHASE, MUD_PHASE):
        return [state.decider], TURN
    if state.phase == FISH_BACK_PHASE:
        return [state.opponent], TURN
    return [state.active], TURN


PROMPTS: Final = {
    PATH_PHASE: "choose the path to leave by",
    GOBLIN_PHASE: "your Goblins may take the top card of the Graveyard as you pass",
    STEAL_PHASE: "choose whose hand to draw a random card from",
    SQUARE_PHASE: "follow the square's instruction",
    OFFER_PHASE: "choose a card to lay face down",
    AUCTION_PHASE: "bid (discard a card), make a false bid, or pass",
    MUD_PHASE: "M.U.D. Wrestling: discard a card or sacrifice a creature",
    FISH_BACK_PHASE: "fish back: name a card, or decline",
    MAIN_PHASE: "play a card, or end your turn",
}


def window_prompt(state: ManaBurnState) -> str:
    window = state.windows[-1]
    if window.trigger == CARD_WINDOW:
        top = state.stack[-1]
        return f"answer seat {top.seat}'s {name(top.card)} with an instant, or pass"
    if window.trigger == ASK_WINDOW:
        return f"you are asked for {NAMES[state.kind]}: play instants first, or pass to answer"
    return "answer the die roll with an instant, or pass (the roller's pass lets the roll stand)"


# ----- die rolls and response windows ------------------------------------------------------------------------------


def roll(state: ManaBurnState, seats: list[int], purpose: ManaBurnRollPurpose.ValueType, events: list[Event]) -> None:
    """Roll one die per seat; every other seat may answer in turn order, the active seat last (its pass settles)."""
    del state.rolls[:]
    for seat in seats:
        value = rng.roll(state.header.rng, DIE)
        state.rolls.add(seat=seat, value=value, purpose=purpose)
        events.append(event("DieRolled", f"seat {seat} rolled {value}", actor=seat))
    state.phase = ROLLED_PHASE
    state.windows.add(trigger=ROLL_WINDOW, queue=roll_queue(state))


def roll_queue(state: ManaBurnState) -> list[int]:
    return [*order_after(state, state.active), state.active]


def reopen_roll_window(state: ManaBurnState) -> None:
    """A roll changed: wait for the dust to settle, everyone answers again."""
    for window in state.windows:
        if window.trigger == ROLL_WINDOW:
            del window.queue[:]
            window.queue.extend(roll_queue(state))


def open_card_window(state: ManaBurnState, seat: int) -> None:
    state.windows.add(trigger=CARD_WINDOW, queue=order_after(state, seat))


def pass_window(state: ManaBurnState, events: list[Event]) -> None:
    window = state.windows[-1]
    del window.queue[0]
    if window.queue:
        return
    trigger = window.trigger
    state.windows.pop()
    if trigger == CARD_WINDOW:
        resolve(state, events)
    elif trigger == ASK_WINDOW:
        answer_fishing(state, events)


def roll_stands(state: ManaBurnState, events: list[Event]) -> None:
    """The die roll's window closed: the roll stands and takes effect."""
    rolls = [(r.seat, r.value) for r in state.rolls]
    purpose = state.rolls[0].purpose
    del state.rolls[:]
    to_main(state)
    if purpose == MOVE_ROLL:
        state.steps = rolls[0][1]
        state.phase = MOVING_PHASE
    elif purpose == ANTE_ROLL:
        settle_ante(state, rolls, events)
    else:
        square_roll(state, rolls[0][1], events)


# ----- movement -----------------------------------------------------------------------------------------------------


def walk(state: ManaBurnState, events: list[Event]) -> None:
    """Movement: step along the arrows; the Library draws and offers a new path; the Graveyard keeps it."""
    seat = state.active
    player = state.players[seat]
    start = player.square
    walked = 0
    while state.steps > 0:
        if player.grab:
            state.phase = GOBLIN_PHASE
            break
        if player.choosing:
            state.phase = PATH_PHASE
            break
        if not walked:
            player = own_player(state, seat)
        player.square = board.NEXT_SQUARE[player.path][player.square]
        state.steps -= 1
        walked += 1
        if player.square == LIBRARY:
            extra = max(0, count_in_play(player, Kind.MERFOLK) - 1)
            draw(state, seat, LIBRARY_DRAW + extra, events, "walked into the Library and drew")
            player.choosing = True
        elif player.square == GRAVEYARD and state.steps > 0:
            player.grab = count_in_play(player, Kind.GOBLINS) > 0 and bool(state.graveyard)
            player.choosing = count_in_play(player, Kind.DRUDGE_SKELETONS) > 0
    else:
        state.phase = ARRIVED_PHASE
    if walked:
        text = f"seat {seat} moved {walked} from {board.square_name(start)} to {board.square_name(player.square)}"
        events.append(event("PawnMoved", text, actor=seat))


def arrive(state: ManaBurnState, events: list[Event]) -> None:
    """Stopping on another's pawn steals a random card from their hand, before the square is read."""
    seat = state.active
    victims = stealable(state)
    if len(victims) > 1:
        state.phase = STEAL_PHASE
        return
    if victims:
        take_random(state, seat, victims[0], 1, events)
    enter_square(state, events)


def stealable(state: ManaBurnState) -> list[int]:
    here = state.players[state.active].square
    return [s for s in order_after(state, state.active) if state.players[s].square == here and state.players[s].hand]


# ----- squares ------------------------------------------------------------------------------------------------------


def to_main(state: ManaBurnState) -> None:
    state.phase = MAIN_PHASE


def ask(state: ManaBurnState, seat: int, count: int = 0) -> None:
    state.phase = SQUARE_PHASE
    state.decider = seat
    state.count = count


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


def _creatures(state: ManaBurnState, seats: list[int], k: Kind | None = None) -> list[int]:
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


def _all_seats(state: ManaBurnState) -> list[int]:
    return list(range(seat_count(state)))


SQUARE_EFFECTS: Final[dict[Effect, Callable[[ManaBurnState, list[Event]], None]]] = {
    Effect.GRAVEYARD: _graveyard_stop,
    Effect.GAME_STORE: lambda s, e: _ask_if(s, bool(_hand(s)) and bool(s.graveyard)),
    Effect.MAJOR_PARTY: _roll_square,
    Effect.TOURNAMENT: _roll_square,
    Effect.SUITCASE: _roll_square,
    Effect.RE_ENTER: _draw_n(1),
    Effect.DRAW_TWO: _draw_n(2),
    Effect.CONNECTION_LOST: lambda s, e: ask(s, s.active, 1),
    Effect.SPOOKY_VIBES: lambda s, e: _ask_if(s, bool(_creatures(s, order_after(s, s.active), Kind.DRUDGE_SKELETONS))),
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
    Effect.REFUND: lambda s, e: _ask_if(s, bool(_creatures(s, _all_seats(s)))),
    Effect.GOBLIN_RIOT: _goblin_riot,
    Effect.MUD_WRESTLING: _mud,
    Effect.GREEDY_YOU: lambda s, e: take_graveyard(s, s.active, 2, e),
    Effect.NOSE_RING: _nose_ring,
    Effect.LACE: _lace,
    Effect.TANTRUM: _tantrum,
    Effect.VESUVAN_SHIFT: lambda s, e: _ask_if(
        s, bool(_creatures(s, [s.active])) and bool(_creatures(s, order_after(s, s.active)))
    ),
    Effect.GRAVY_TRAIN: _gravy_train,
    Effect.MANA_SCREWED: _mana_screwed,
    Effect.DISLOYALTY: lambda s, e: _ask_if(s, bool(_creatures(s, [s.active]))),
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
        skeletons = _creatures(state, order_after(state, me), Kind.DRUDGE_SKELETONS)
        return [PASS_ACTION, *(creatures[c] for c in skeletons)]
    if effect == Effect.REFUND:
        return [creatures[c] for c in _creatures(state, _all_seats(state))]
    if effect == Effect.DISLOYALTY:
        return [creatures[c] for c in _creatures(state, [me])]
    # Vesuvan Shift
    theirs = _creatures(state, order_after(state, me))
    return [act(PASS), *(act(CREATURE, target=m, other=t) for m in _creatures(state, [me]) for t in theirs)]


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


# ----- trading, Ante and Short Circuit: face-down choices ------------------------------------------------------------


def start_offer(state: ManaBurnState, seats: list[int], events: list[Event]) -> None:
    """Trading / Ante: both lay a card face down; an opponent's Goblins make you give at random, one per Goblin."""
    pair = len(seats) == 2 and SQUARES[state.square].effect != Effect.SHORT_CIRCUIT
    for seat in seats:
        player = own_player(state, seat)
        goblins = count_in_play(state.players[seats[1] if seat == seats[0] else seats[0]], Kind.GOBLINS) if pair else 0
        if goblins:
            hand = player.hand
            for _ in range(min(goblins, len(hand))):
                player.offer.append(hand.pop(rng.randbelow(state.header.rng, len(hand))))
            events.append(
                event("OfferedAtRandom", f"Goblins made seat {seat} put {len(player.offer)} card(s) in at random")
            )
        else:
            player.offering = True
    state.phase = OFFER_PHASE
    if not any(p.offering for p in state.players):
        reveal(state, events)


def offer(state: ManaBurnState, seat: int, card: int, events: list[Event]) -> None:
    player = own_player(state, seat)
    player.hand.remove(card)
    player.offer.append(card)
    player.offering = False
    events.append(event("CardOffered", f"seat {seat} laid a card face down", actor=seat))
    if not any(p.offering for p in state.players):
        reveal(state, events)


def _offered(state: ManaBurnState) -> list[int]:
    return [s for s in [state.active, *order_after(state, state.active)] if state.players[s].offer]


def _take_offer(state: ManaBurnState, seat: int) -> list[int]:
    cards = list(state.players[seat].offer)
    if cards:
        del own_player(state, seat).offer[:]
    return cards


def reveal(state: ManaBurnState, events: list[Event]) -> None:
    effect = SQUARES[state.square].effect
    to_main(state)
    if effect == Effect.ANTE:
        for seat, player in enumerate(state.players[:]):
            if player.heroes_used:
                own_player(state, seat).heroes_used = 0
        roll(state, [state.active, state.opponent], ANTE_ROLL, events)
    elif effect == Effect.TRADE:
        a, b = state.active, state.opponent
        given_a, given_b = _take_offer(state, a), _take_offer(state, b)
        gain(state, a, given_b, f"traded with seat {b} and received", events)
        gain(state, b, given_a, f"traded with seat {a} and received", events)
    else:  # Short Circuit
        seats = _offered(state)
        pool = [c for s in seats for c in _take_offer(state, s)]
        rng.shuffle(state.header.rng, pool)
        for seat, card in zip(seats, pool, strict=True):
            gain(state, seat, [card], "got a card back from the Short Circuit", events)


def settle_ante(state: ManaBurnState, rolls: list[tuple[int, int]], events: list[Event]) -> None:
    """Playing for Ante: the highest roll takes both stakes; a tie returns them."""
    (a, roll_a), (b, roll_b) = rolls
    stakes = {a: _take_offer(state, a), b: _take_offer(state, b)}
    if roll_a == roll_b:
        events.append(event("AnteTied", f"the Ante game tied at {roll_a}: everyone keeps their card"))
        for seat, cards in stakes.items():
            gain(state, seat, cards, "took back the Ante", events)
        return
    winner = a if roll_a > roll_b else b
    won = [*stakes[a], *stakes[b]]
    events.append(event("AnteWon", f"seat {winner} won the Ante game {max(roll_a, roll_b)} to {min(roll_a, roll_b)}"))
    gain(state, winner, won, "took the Ante", events, public=True)


# ----- fishing ------------------------------------------------------------------------------------------------------


def go_fishing(state: ManaBurnState, asked: int, k: int, back: bool, events: list[Event]) -> None:
    """Going Fishing: name a card; the asked player may first throw instants (an ASK window), then answers."""
    asker = state.opponent if back else state.active
    if not back:
        state.opponent = asked
    state.kind = k
    state.fishing_back = back
    events.append(event("WentFishing", f"seat {asker} asked seat {asked} for {NAMES[k]}", actor=asker))
    state.phase = MAIN_PHASE
    state.windows.add(trigger=ASK_WINDOW, queue=[asked])


def answer_fishing(state: ManaBurnState, events: list[Event]) -> None:
    asker, asked = (state.opponent, state.active) if state.fishing_back else (state.active, state.opponent)
    hand = state.players[asked].hand
    matches = sorted(c for c in hand if kind(c) == state.kind)
    to_main(state)
    if not matches:
        events.append(event("NoCatch", f"seat {asked} has no {NAMES[state.kind]}", actor=asked))
        if not state.fishing_back:
            state.phase = FISH_BACK_PHASE
        return
    given = matches if count_in_play(state.players[asker], Kind.MERFOLK) else matches[:1]
    hand = own_player(state, asked).hand
    for card in given:
        hand.remove(card)
    gain(state, asker, given, f"caught from seat {asked}", events, public=True)


# ----- auctions -----------------------------------------------------------------------------------------------------


def next_bidder(state: ManaBurnState) -> int | None:
    """The next seat still in the auction, or None once everyone after the last bidder has passed."""
    for seat in order_after(state, state.decider):
        if seat == state.last_bidder:
            return None
        if not state.players[seat].passed:
            return seat
    return None


def bid(state: ManaBurnState, seat: int, action: ManaBurnAction, events: list[Event]) -> None:
    if action.move == PASS:
        own_player(state, seat).passed = True
        events.append(event("AuctionPassed", f"seat {seat} passed", actor=seat))
    elif action.move == FALSE_BID:
        own_player(state, seat).false_bids += 1
        state.last_bidder = seat
        events.append(event("FalseBid", f"seat {seat} made a false bid (Drudge Skeletons)", actor=seat))
    else:
        discard(state, seat, action.card, events, "bid by discarding")
        state.last_bidder = seat
    following = next_bidder(state)
    if following is not None:
        state.decider = following
        return
    lot = list(state.auction)
    del state.auction[:]
    to_main(state)
    if state.last_bidder == NONE:
        state.graveyard.extend(lot)
        events.append(event("AuctionUnsold", "nobody bid: the cards went to the Graveyard"))
    else:
        gain(state, state.last_bidder, lot, "won the auction", events, public=True)


def bid_choices(state: ManaBurnState, seat: int) -> list[ManaBurnAction]:
    player = state.players[seat]
    acts = [PASS_ACTION, *card_choices(player.hand[:])]
    if player.false_bids < count_in_play(player, Kind.DRUDGE_SKELETONS):
        acts.append(FALSE_BID_ACTION)
    return acts


# ----- playing cards ------------------------------------------------------------------------------------------------


def instant_choices(state: ManaBurnState, seat: int, acts: list[ManaBurnAction]) -> list[ManaBurnAction]:
    """Incinerate, Giant Growth and Counterspell: at any time, as many as you like (added to `acts`)."""
    targets: list[int] | None = None
    for card in first_copies(filter(IS_INSTANT.__getitem__, state.players[seat].hand[:])):
        k = KIND_OF[card]
        if k == GIANT_GROWTH_KIND:
            acts += GROW_ACTIONS[card][: len(state.rolls)]
        elif k == INCINERATE_KIND:
            if targets is None:
                targets = incinerate_targets(state)
            acts += play_at(card, targets)
        elif can_counter(state, seat):  # Counterspell
            acts.append(aimed(card, state.stack[-1].card))
    return acts


def instant_is_legal(state: ManaBurnState, seat: int, action: ManaBurnAction) -> bool:
    """`action in instant_choices(...)`, from the one choice it could equal."""
    card = action.card
    if not is_first_copy(card, state.players[seat].hand):
        return False
    k = KIND_OF[card]
    if k == GIANT_GROWTH_KIND:
        i = action.roll
        return 0 <= i < len(state.rolls) and action == GROW_ACTIONS[card][i]
    if k == INCINERATE_KIND:
        target = action.target
        return target in incinerate_targets(state) and action == aimed(card, target)
    if k == COUNTERSPELL_KIND:
        return can_counter(state, seat) and action == aimed(card, state.stack[-1].card)
    return False


def incinerate_targets(state: ManaBurnState) -> list[int]:
    """One unarmored creature, or one Holy Armor card (the first on its creature: Armors on one creature are the same
    to the rules, and so are creatures of one kind, controller, owner and number of Armors)."""
    targets: list[int] = []
    keys: set[tuple[int, int, int, int]] = set()
    for s, player in enumerate(state.players[:]):
        for creature in player.creatures[:]:
            armor = creature.armor
            key = (s, KIND_OF[creature.card], creature.owner, len(armor))
            if key not in keys:
                keys.add(key)
                targets.append(armor[0] if armor else creature.card)
    return targets


def can_counter(state: ManaBurnState, seat: int) -> bool:
    """Counterspell: only right after the card it counters (the top card's window, before anything answers it)."""
    if not state.windows or state.windows[-1].trigger != CARD_WINDOW:
        return False
    top = state.stack[-1]
    return top.seat != seat and not top.answered and not top.countered


def main_choices(state: ManaBurnState, seat: int, acts: list[ManaBurnAction]) -> list[ManaBurnAction]:
    """After moving: at most one Creature, Sorcery (Raise Dead) or Enchantment (Holy Armor) per turn (added to
    `acts`)."""
    if state.main_played:
        return acts
    kinds = KIND_OF
    creatures: list[int] | None = None
    graveyard: list[int] | None = None
    for card in first_copies(state.players[seat].hand[:]):
        k = kinds[card]
        if k in CREATURES:
            acts.append(PLAY_ACTIONS[card])
        elif k == HOLY_ARMOR_KIND:
            if creatures is None:
                creatures = _creatures(state, _all_seats(state))
            acts += play_at(card, creatures)
        elif k == RAISE_DEAD_KIND:
            if graveyard is None:
                graveyard = first_copies(state.graveyard[:])
            acts += play_at(card, graveyard)
    return acts


def main_is_legal(state: ManaBurnState, seat: int, action: ManaBurnAction) -> bool:
    """`action in main_choices(...)`, from the one choice it could equal."""
    card = action.card
    if state.main_played or not is_first_copy(card, state.players[seat].hand):
        return False
    k = KIND_OF[card]
    if k in CREATURES:
        return action == PLAY_ACTIONS[card]
    if k == HOLY_ARMOR_KIND:
        target = action.target
        return target in _creatures(state, _all_seats(state)) and action == aimed(card, target)
    if k == RAISE_DEAD_KIND:
        target = action.target
        return is_first_copy(target, state.graveyard) and action == aimed(card, target)
    return False


def play(state: ManaBurnState, seat: int, action: ManaBurnAction, events: list[Event]) -> None:
    """The card leaves the hand for the stack; every other player may answer it in turn order."""
    if state.windows and state.windows[-1].trigger == CARD_WINDOW:
        state.stack[-1].answered = True
    card = action.card
    own_player(state, seat).hand.remove(card)
    k = KIND_OF[card]
    if k in MAIN_CARDS:
        state.main_played = True
    targeted = k in TARGETED
    grows = k == GIANT_GROWTH_KIND
    state.stack.add(
        card=card, seat=seat, target=action.target if targeted else NONE, roll=action.roll if grows else NONE
    )
    events.append(event("CardPlayed", f"seat {seat} played {name(card)}{target_text(state, action)}", actor=seat))
    open_card_window(state, seat)


def target_text(state: ManaBurnState, action: ManaBurnAction) -> str:
    k = KIND_OF[action.card]
    if k == GIANT_GROWTH_KIND:
        r = state.rolls[action.roll]
        return f" on seat {r.seat}'s roll of {r.value}"
    if k in CREATURES:
        return ""
    if k == RAISE_DEAD_KIND:
        return f" on {name(action.target)} from the Graveyard"
    return f" on {card_label(state, action.target)}"


def card_label(state: ManaBurnState, card: int) -> str:
    """A card in play named so that a player can tell it apart: whose it is, its Holy Armor, its owner when another
    seat controls it ("seat 2's Drudge Skeletons with 1 Holy Armor"); a Holy Armor by the creature it protects; a
    card on the stack by who played it."""
    where = find_creature(state, card)
    if where is not None:
        s, i = where
        creature = state.players[s].creatures[i]
        armor = f" with {len(creature.armor)} Holy Armor" if creature.armor else ""
        owner = f" (seat {creature.owner}'s card)" if creature.owner != s else ""
        return f"seat {s}'s {name(card)}{armor}{owner}"
    worn = find_armor(state, card)
    if worn is not None:
        return f"the Holy Armor on {card_label(state, state.players[worn[0]].creatures[worn[1]].card)}"
    for item in state.stack:
        if item.card == card:
            return f"seat {item.seat}'s {name(card)}"
    return name(card)


def card_controller(state: ManaBurnState, card: int) -> int | None:
    """The seat controlling a creature in play (or the creature a Holy Armor protects), or that played a card on the
    stack; None for any other card."""
    where = find_creature(state, card) or find_armor(state, card)
    if where is not None:
        return where[0]
    for item in state.stack:
        if item.card == card:
            return item.seat
    return None


def resolve(state: ManaBurnState, events: list[Event]) -> None:
    """The top card of the stack takes effect (unless countered) once its window has closed."""
    item = state.stack.pop()
    card, seat = item.card, item.seat
    k = KIND_OF[card]
    if item.countered:
        state.graveyard.append(card)
        events.append(event("CardCountered", f"seat {seat}'s {name(card)} was countered"))
        return
    if k in CREATURES:
        own_player(state, seat).creatures.add(card=card, owner=seat)
        events.append(event("CreatureEntered", f"seat {seat}'s {name(card)} came into play"))
        return
    state.graveyard.append(card)
    if k == HOLY_ARMOR_KIND:
        _armor(state, item.target, card, events)
    elif k == RAISE_DEAD_KIND:
        if item.target in state.graveyard:
            state.graveyard.remove(item.target)
            gain(state, seat, [item.target], "raised from the Graveyard", events, public=True)
    elif k == GIANT_GROWTH_KIND:
        state.rolls[item.roll].value += GIANT_GROWTH_BONUS
        r = state.rolls[item.roll]
        events.append(event("RollGrew", f"Giant Growth: seat {r.seat}'s roll is now {r.value}"))
        reopen_roll_window(state)
    elif k == COUNTERSPELL_KIND:
        for other in state.stack:
            if other.card == item.target:
                other.countered = True
    else:
        _incinerate(state, item.target, events)


def _armor(state: ManaBurnState, target: int, card: int, events: list[Event]) -> None:
    where = find_creature(state, target)
    if where is None:
        events.append(event("CardFizzled", "Holy Armor found no creature"))
        return
    state.graveyard.remove(card)
    own_creature(state, *where).armor.append(card)
    events.append(event("ArmorAttached", f"Holy Armor now protects {name(target)}"))


def _incinerate(state: ManaBurnState, target: int, events: list[Event]) -> None:
    """Incinerate destroys one unarmored creature or one Holy Armor."""
    worn = find_armor(state, target)
    if worn is not None:
        holder = own_creature(state, *worn)
        holder.armor.remove(target)
        state.graveyard.append(target)
        events.append(event("ArmorDestroyed", f"Incinerate destroyed the Holy Armor on {name(holder.card)}"))
        return
    where = find_creature(state, target)
    if where is not None and not state.players[where[0]].creatures[where[1]].armor:
        bury(state, target, events, "was Incinerated")


def hero_choices(state: ManaBurnState, seat: int) -> list[ManaBurnAction]:
    """Benalish Hero: +2 to any player's die roll, once per Ante game per Hero."""
    if not state.rolls or state.rolls[0].purpose != ANTE_ROLL:
        return []
    player = state.players[seat]
    if player.heroes_used >= count_in_play(player, Kind.BENALISH_HERO):
        return []
    return [act(HERO, roll=i) for i in range(len(state.rolls))]


def reroll_choices(state: ManaBurnState, seat: int) -> list[ManaBurnAction]:
    """Scryb Sprites: re-roll your movement die once per turn per Sprite in play."""
    if not state.rolls or state.rolls[0].purpose != MOVE_ROLL or state.rolls[0].seat != seat:
        return []
    return [REROLL_ACTION] if state.rerolls_used < count_in_play(state.players[seat], Kind.SCRYB_SPRITES) else []


def window_choices(state: ManaBurnState, seat: int) -> list[ManaBurnAction]:
    """Pass, then a re-roll (movement rolls) or the Heroes (Ante rolls), then the instants."""
    acts = [PASS_ACTION]
    rolls = state.rolls
    if rolls:
        first = rolls[0]
        purpose = first.purpose
        if purpose == MOVE_ROLL:
            if first.seat == seat and state.rerolls_used < count_in_play(state.players[seat], SPRITES_KIND):
                acts.append(REROLL_ACTION)  # reroll_choices
        elif purpose == ANTE_ROLL:
            acts += hero_choices(state, seat)
    return instant_choices(state, seat, acts)


def window_action(state: ManaBurnState, seat: int, action: ManaBurnAction, events: list[Event]) -> None:
    if action.move == PASS:
        pass_window(state, events)
    elif action.move == REROLL:
        state.rerolls_used += 1
        value = rng.roll(state.header.rng, DIE)
        state.rolls[0].value = value
        events.append(event("DieRerolled", f"seat {seat} re-rolled (Scryb Sprites): {value}", actor=seat))
        reopen_roll_window(state)
    elif action.move == HERO:
        own_player(state, seat).heroes_used += 1
        r = state.rolls[action.roll]
        r.value += HERO_BONUS
        events.append(event("HeroHelped", f"seat {seat}'s Benalish Hero added 2: seat {r.seat}'s roll is {r.value}"))
        reopen_roll_window(state)
    else:
        play(state, seat, action, events)


# ----- the other decisions ------------------------------------------------------------------------------------------


def legal_actions(state: ManaBurnState, seat: int) -> list[ManaBurnAction]:
    if state.windows:
        return window_choices(state, seat)
    phase = state.phase
    if phase == MAIN_PHASE:
        return instant_choices(state, seat, main_choices(state, seat, [PASS_ACTION]))
    if phase == PATH_PHASE:
        return PATH_ACTIONS[:]
    if phase == GOBLIN_PHASE:
        return [PASS_ACTION, YES_ACTION]
    if phase == STEAL_PHASE:
        return [SEAT_ACTIONS[s] for s in stealable(state)]
    if phase == SQUARE_PHASE:
        return square_choices(state)
    if phase == OFFER_PHASE:
        return card_choices(state.players[seat].hand[:])
    if phase == AUCTION_PHASE:
        return bid_choices(state, seat)
    if phase == MUD_PHASE:
        player = state.players[seat]
        return [*card_choices(player.hand[:]), *(CREATURE_ACTIONS[c] for c in _creatures(state, [seat]))]
    if phase == FISH_BACK_PHASE:
        return FISH_BACK_ACTIONS[:]
    return []


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


def is_legal(state: ManaBurnState, seat: int, action: ManaBurnAction) -> bool:
    """`action in legal_actions(state, seat)`; in a window and the main phase without listing: a pass is the one
    pass action, a play is compared with the one choice of its card and target (`main_is_legal`,
    `instant_is_legal`), a re-roll or a Hero with the list of its move."""
    move = action.move
    if state.windows:
        if move == PASS:
            return action is PASS_ACTION or action == PASS_ACTION
        if move == PLAY:
            return instant_is_legal(state, seat, action)
        if move == REROLL:
            return action in reroll_choices(state, seat)
        if move == HERO:
            return action in hero_choices(state, seat)
        return False
    if state.phase == MAIN_PHASE:
        if move == PASS:
            return action is PASS_ACTION or action == PASS_ACTION
        return move == PLAY and (main_is_legal(state, seat, action) or instant_is_legal(state, seat, action))
    return action in legal_actions(state, seat)


def perform(state: ManaBurnState, seat: int, action: ManaBurnAction, events: list[Event]) -> None:
    """Carry out a legal action, then run the game on to the next decision."""
    if state.windows:
        window_action(state, seat, action, events)
    else:
        PERFORM[state.phase](state, seat, action, events)
    advance(state, events)


def _main(state: ManaBurnState, seat: int, action: ManaBurnAction, events: list[Event]) -> None:
    if action.move == PASS:
        events.append(event("TurnEnded", f"seat {seat} ended the turn", actor=seat))
        state.phase = NEXT_TURN_PHASE
    else:
        play(state, seat, action, events)


def _path(state: ManaBurnState, seat: int, action: ManaBurnAction, events: list[Event]) -> None:
    player = own_player(state, seat)
    player.path = action.path
    player.choosing = False
    events.append(event("PathChosen", f"seat {seat} took the path of {board.PATH_NAMES[action.path]}", actor=seat))
    state.phase = MOVING_PHASE


def _goblin(state: ManaBurnState, seat: int, action: ManaBurnAction, events: list[Event]) -> None:
    own_player(state, seat).grab = False
    if action.move == YES:
        take_graveyard(state, seat, 1, events)
    state.phase = MOVING_PHASE


def _steal(state: ManaBurnState, seat: int, action: ManaBurnAction, events: list[Event]) -> None:
    take_random(state, seat, action.seat, 1, events)
    enter_square(state, events)


def _square(state: ManaBurnState, seat: int, action: ManaBurnAction, events: list[Event]) -> None:
    square_decision(state, action, events)


def _offer(state: ManaBurnState, seat: int, action: ManaBurnAction, events: list[Event]) -> None:
    offer(state, seat, action.card, events)


def _auction_bid(state: ManaBurnState, seat: int, action: ManaBurnAction, events: list[Event]) -> None:
    bid(state, seat, action, events)


def _wrestle(state: ManaBurnState, seat: int, action: ManaBurnAction, events: list[Event]) -> None:
    if action.move == CARD:
        discard(state, seat, action.card, events, "discarded (M.U.D. Wrestling)")
    else:
        bury(state, action.target, events, f"was sacrificed by seat {seat} (M.U.D. Wrestling)")
    next_wrestler(state)


def _fish_back(state: ManaBurnState, seat: int, action: ManaBurnAction, events: list[Event]) -> None:
    if action.move == PASS:
        events.append(event("Declined", f"seat {seat} did not fish back", actor=seat))
        to_main(state)
    else:
        go_fishing(state, state.active, action.kind, True, events)


PERFORM: Final[dict[int, Callable[[ManaBurnState, int, ManaBurnAction, list[Event]], None]]] = {
    MAIN_PHASE: _main,
    PATH_PHASE: _path,
    GOBLIN_PHASE: _goblin,
    STEAL_PHASE: _steal,
    SQUARE_PHASE: _square,
    OFFER_PHASE: _offer,
    AUCTION_PHASE: _auction_bid,
    MUD_PHASE: _wrestle,
    FISH_BACK_PHASE: _fish_back,
}

AUTOMATIC: Final[dict[int, Callable[[ManaBurnState, list[Event]], None]]] = {
    ROLLED_PHASE: roll_stands,
    MOVING_PHASE: walk,
    ARRIVED_PHASE: arrive,
    NEXT_TURN_PHASE: next_turn,
}


def refusal(state: ManaBurnState, seat: int, action: ManaBurnAction) -> IllegalActionError | MalformedActionError:
    """Why `action` is not legal now, naming the rule."""
    if action.move not in Move.values() or action.move == Move.MANA_BURN_MOVE_UNSPECIFIED:
        return MalformedActionError("action", "an action needs a move (pass, play, path, card, seat, ...)")
    hand = state.players[seat].hand
    if action.move == Move.MANA_BURN_MOVE_PLAY:
        if action.card not in hand:
            return IllegalActionError("playing cards", f"you do not hold card {action.card}")
        card = name(action.card)
        first = first_copies([c for c in hand if kind(c) == kind(action.card)])[0]
        if first != action.card:
            return IllegalActionError(
                "copies", f"copies of {card} are the same card: a choice names the first, {first}"
            )
        if state.windows and kind(action.card) not in INSTANTS:
            return IllegalActionError(
                "fast effects", f"only Incinerate, Giant Growth and Counterspell may be played now, not {card}"
            )
        if state.main_played and kind(action.card) in MAIN_CARDS:
            return IllegalActionError(
                "playing cards", "you may only play one Creature, Sorcery, or Enchantment on the same turn"
            )
        if name(action.card) == "Counterspell":
            return IllegalActionError(
                "Counterspell", "you must play this card right after the other one is played, and only on it"
            )
        return IllegalActionError("playing cards", f"{card} cannot be played on that target now")
    if state.windows:
        return IllegalActionError("response window", "answer with an instant (or Sprites, Heroes), or pass")
    if (
        action.move == Move.MANA_BURN_MOVE_CARD
        and action.card not in hand
        and state.phase != Phase.MANA_BURN_PHASE_SQUARE
    ):
        return IllegalActionError("your hand", f"you do not hold card {action.card}")
    prompt = state.header.pending.prompt or "wait"
    return IllegalActionError("legal choices", f"that is not one of the choices now: {prompt}")
