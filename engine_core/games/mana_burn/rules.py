"""The MANA BURN rules as functions over the state: the driver over the rulebook's sections.

`advance` runs everything automatic until a decision is due and sets the pending seats; `legal_actions` lists a
pending seat's choices; `perform` carries out one of them. The sections live beside it, each a module (no module
imports one above it): actions.py (the vocabulary and the shared actions), turns.py (SETUP, ON YOUR TURN,
WINNING, die rolls), trading.py (Trading, Ante, Going Fishing, Auctioning Cards), squares.py (the squares),
movement.py (Movement), spells.py (playing cards, the stack, the response windows). Rule references
("Movement", "Trading", ...) are the rulebook's sections; RULES.md maps every rule to its function.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from manaforge.v1.common_pb2 import DecisionKind, Event
from manaforge.v1.games.mana_burn_pb2 import (
    ManaBurnAction,
    ManaBurnState,
)

from engine_core.errors import IllegalActionError, MalformedActionError
from engine_core.game import (
    RESPONSE,
    SIMULTANEOUS,
    TURN,
    event,
    set_pending,
)
from engine_core.games.mana_burn import board
from engine_core.games.mana_burn.actions import (
    _ACTIONS,
    _AIMED,
    ACTIONS_LIMIT,
    ANTE_ROLL,
    ARRIVED_PHASE,
    ASK_WINDOW,
    AUCTION_PHASE,
    CARD,
    CARD_WINDOW,
    CREATURE,
    CREATURE_ACTIONS,
    FALSE_BID,
    FISH_BACK_ACTIONS,
    FISH_BACK_PHASE,
    GOBLIN_PHASE,
    HERO,
    MAIN_PHASE,
    MOVE_ROLL,
    MOVING_PHASE,
    MUD_PHASE,
    NAME,
    NEXT_TURN_PHASE,
    OFFER_PHASE,
    PASS,
    PASS_ACTION,
    PATH,
    PATH_ACTIONS,
    PATH_PHASE,
    PLAY,
    REROLL,
    ROLL_WINDOW,
    ROLLED_PHASE,
    SEAT,
    SEAT_ACTIONS,
    SQUARE_PHASE,
    STEAL_PHASE,
    YES,
    YES_ACTION,
    Move,
    Phase,
    act,
    card_choices,
    creatures_of,
    first_copies,
    play_at,
)
from engine_core.games.mana_burn.cards import (
    INSTANTS,
    MAIN_CARDS,
    NAMES,
    kind,
    name,
)
from engine_core.games.mana_burn.movement import arrive, stealable, walk
from engine_core.games.mana_burn.sharing import own_player
from engine_core.games.mana_burn.spells import (
    hero_choices,
    instant_choices,
    instant_is_legal,
    main_choices,
    main_is_legal,
    play,
    reroll_choices,
    window_action,
    window_choices,
)
from engine_core.games.mana_burn.squares import (
    enter_square,
    next_wrestler,
    square_choices,
    square_decision,
    square_roll,
)
from engine_core.games.mana_burn.trading import bid, bid_choices, go_fishing, offer, settle_ante
from engine_core.games.mana_burn.turns import check_win, next_turn, to_main
from engine_core.games.mana_burn.zones import (
    bury,
    discard,
    take_graveyard,
    take_random,
)


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
        return [*card_choices(player.hand[:]), *(CREATURE_ACTIONS[c] for c in creatures_of(state, [seat]))]
    if phase == FISH_BACK_PHASE:
        return FISH_BACK_ACTIONS[:]
    return []


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


# The game's driver, and the vocabulary the tests read from here (`rules.act`, `rules.PASS`, ...).
__all__ = [
    "ACTIONS_LIMIT",
    "ASK_WINDOW",
    "CARD",
    "CARD_WINDOW",
    "CREATURE",
    "FALSE_BID",
    "HERO",
    "MOVE_ROLL",
    "NAME",
    "PASS",
    "PASS_ACTION",
    "PATH",
    "PLAY",
    "REROLL",
    "ROLL_WINDOW",
    "SEAT",
    "YES",
    "_ACTIONS",
    "_AIMED",
    "Move",
    "Phase",
    "act",
    "advance",
    "is_legal",
    "legal_actions",
    "perform",
    "play_at",
    "refusal",
]
