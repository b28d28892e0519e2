"""SETUP, ON YOUR TURN and WINNING: dealing, the next turn, the end of the game, and the die rolls with the response
windows they open."""

from __future__ import annotations

from manaforge.v1.common_pb2 import Event
from manaforge.v1.games.mana_burn_pb2 import (
    ManaBurnRollPurpose,
    ManaBurnState,
)

from engine_core import rng
from engine_core.game import (
    event,
    finish,
    options,
    seat_count,
    seats_text,
)
from engine_core.games.mana_burn.actions import (
    CARD_WINDOW,
    DIE,
    HAND_SIZE,
    MAIN_PHASE,
    MOVE_ROLL,
    NEXT_TURN_PHASE,
    NONE,
    ROLL_WINDOW,
    ROLLED_PHASE,
    SQUARE_PHASE,
    WINNING_HAND,
)
from engine_core.games.mana_burn.board import LIBRARY
from engine_core.games.mana_burn.cards import (
    DECK_SIZE,
    KINDS,
    distinct,
)
from engine_core.games.mana_burn.sharing import own_player
from engine_core.games.mana_burn.zones import (
    order_after,
)


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


def to_main(state: ManaBurnState) -> None:
    state.phase = MAIN_PHASE


def ask(state: ManaBurnState, seat: int, count: int = 0) -> None:
    state.phase = SQUARE_PHASE
    state.decider = seat
    state.count = count


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
