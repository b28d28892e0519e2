"""pebbles: seats take 1 or 2 pebbles from a pile of 7 in turn; whoever takes the last pebble wins.

A throwaway game: tests/stack/test_new_game.py copies the project, adds this folder, its schema and one registry line,
and plays it through every client. Nothing else of the project may need to change.
"""

from __future__ import annotations

from manaforge.v1.common_pb2 import Event
from manaforge.v1.games.pebbles_pb2 import PebblesAction, PebblesState

from engine_core.errors import IllegalActionError
from engine_core.game import Game, GameInfo, event, finish, set_pending

PILE = 7


class Pebbles(Game[PebblesState, PebblesAction]):
    info = GameInfo(
        name="pebbles",
        title="Pebbles",
        min_seats=2,
        max_seats=2,
        description="Take 1 or 2 pebbles in turn; whoever takes the last one wins.",
        max_actions=PILE,
    )
    state_type = PebblesState
    action_type = PebblesAction

    def _setup(self, state: PebblesState) -> None:
        state.pile = PILE
        state.taken.extend([0, 0])
        set_pending(state, [0], prompt="take pebbles")

    def _legal_actions(self, state: PebblesState, seat: int) -> list[PebblesAction]:
        return [PebblesAction(take=n) for n in (1, 2) if n <= state.pile]

    def _apply(self, state: PebblesState, seat: int, action: PebblesAction) -> list[Event]:
        if action.take not in (1, 2) or action.take > state.pile:
            raise IllegalActionError("take 1 or 2", f"seat {seat} cannot take {action.take} of {state.pile}")
        state.pile -= action.take
        state.taken[seat] += action.take
        events = [event("PebblesTaken", f"seat {seat} took {action.take}", actor=seat)]
        if state.pile == 0:
            finish(state, [seat], [float(n) for n in state.taken], f"seat {seat} took the last pebble")
        else:
            set_pending(state, [1 - seat], prompt="take pebbles")
        return events

    def _redact(self, view: PebblesState, seat: int | None) -> None:
        return None  # nothing is hidden

    def describe(self, state: PebblesState, action: PebblesAction) -> str:
        return f"take {action.take} pebble{'s' if action.take > 1 else ''}"

    def render(self, view: PebblesState, seat: int | None) -> str:
        return f"{view.pile} pebbles in the pile"


GAME = Pebbles()
