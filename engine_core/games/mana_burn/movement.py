"""Movement: the pawn walks the arrows; the Library draws and offers a new path; stopping on another pawn steals."""

from __future__ import annotations

from manaforge.v1.common_pb2 import Event
from manaforge.v1.games.mana_burn_pb2 import (
    ManaBurnState,
)

from engine_core.game import (
    event,
)
from engine_core.games.mana_burn import board
from engine_core.games.mana_burn.actions import ARRIVED_PHASE, GOBLIN_PHASE, LIBRARY_DRAW, PATH_PHASE, STEAL_PHASE
from engine_core.games.mana_burn.board import GRAVEYARD, LIBRARY
from engine_core.games.mana_burn.cards import (
    Kind,
)
from engine_core.games.mana_burn.sharing import own_player
from engine_core.games.mana_burn.squares import enter_square
from engine_core.games.mana_burn.zones import (
    count_in_play,
    draw,
    order_after,
    take_random,
)


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
