"""What leaves the server: a seat's view of a state (the engine's per-seat view, rendered), and watch updates.

A commit's update for one seat is built once per process and shared, encoded, by every watcher of that seat.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from manaforge.v1.common_pb2 import CardNote, Event
from manaforge.v1.gateway_pb2 import Deadline, SeatView, WatchUpdate
from manaforge.v1.rules_pb2 import LegalAction
from manaforge.v1.storage_pb2 import Commit

from engine_core.game import visible_events
from engine_core.registry import AnyGame
from services.edge import game_info as game_info  # the table service's ListGames answers as the rules service's
from services.edge import pack as pack  # re-exported: services/tables/commit.py


def card_notes(game: AnyGame, state: Any, seat: int | None, legal: list[Any] | None = None) -> list[CardNote]:
    """Why each of `seat`'s own cards that no legal action uses cannot be used now (none for a spectator)."""
    if seat is None:
        return []
    return [CardNote(card=card, note=note) for card, note in sorted(game.card_notes(state, seat, legal).items())]


def seat_view(
    table_id: str,
    game: AnyGame,
    state: Any,
    seat: int | None,
    seq: int,
    text: bool = True,
    legal: bool = True,
    deadlines: Sequence[Deadline] = (),
) -> SeatView:
    """`seat`'s view (None: the public view), with its rendered text and legal actions unless left out."""
    view = game.view(state, seat)
    header = game.header(state)
    actions = game.legal_actions(state, seat) if seat is not None else []  # the card notes read them too
    return SeatView(
        table_id=table_id,
        seat=-1 if seat is None else seat,
        version=header.version,
        view=pack(view),
        text=game.render(view, seat) if text else "",
        pending=header.pending,
        outcome=header.outcome,
        legal_actions=[LegalAction(action=pack(a), text=game.describe(state, a)) for a in actions] if legal else [],
        seq=seq,
        deadlines=deadlines,
        card_notes=card_notes(game, state, seat, actions),
    )


def watch_update(
    table_id: str,
    game: AnyGame,
    state: Any,
    seat: int | None,
    seq: int,
    events: list[Event],
    flags: tuple[bool, bool],
    deadlines: Sequence[Deadline] = (),
) -> bytes:
    """One encoded WatchUpdate: the seat's share of `events` and its view after them. `flags`: (text, legal)."""
    update = WatchUpdate(
        seq=seq,
        events=visible_events(events, seat),
        view=seat_view(table_id, game, state, seat, seq, *flags, deadlines=deadlines),
    )
    return update.SerializeToString()


class Published:
    """A commit as the hub received it: decoded once per process, its per-seat updates built once and shared."""

    __slots__ = ("_state", "_updates", "commit", "received")

    def __init__(self, commit: Commit, state: Any = None) -> None:
        self.commit = commit
        self._state = state
        self.received = time.monotonic()  # when the hub got it (for the fan-out latency)
        self._updates: dict[tuple[int | None, bool, bool], bytes] = {}

    @property
    def version(self) -> int:
        return self.commit.version

    def state(self, game: AnyGame) -> Any:
        if self._state is None:
            self._state = game.state_from_bytes(self.commit.state)
        return self._state

    def update(self, table_id: str, game: AnyGame, seat: int | None, flags: tuple[bool, bool]) -> bytes:
        key = (seat, *flags)
        encoded = self._updates.get(key)
        if encoded is None:
            encoded = watch_update(
                table_id,
                game,
                self.state(game),
                seat,
                self.commit.last_seq,
                list(self.commit.events),
                flags,
                self.commit.deadlines,
            )
            self._updates[key] = encoded
        return encoded
