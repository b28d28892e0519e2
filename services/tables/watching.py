"""Watching: a seat's view (or the public one), the stream of a table's updates to a seat or a spectator, and the
finished game's log. Commits reach this process through the hub (fanout.py), decoded once for every watcher."""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncGenerator
from typing import NamedTuple

from manaforge.v1.gateway_pb2 import Deadline, GameLog, SeatView
from manaforge.v1.storage_pb2 import Commit, Deadlines

from engine_core import find_game
from engine_core.game import visible_events
from engine_core.registry import AnyGame
from services.tables.directory import Directory
from services.tables.errors import DrainingError, OutOfRangeError, TableStateError
from services.tables.fanout import DRAIN, RESYNC, Hub
from services.tables.lookup import Lookup, no_table
from services.tables.metrics import FANOUT_SECONDS
from services.tables.store import Live
from services.tables.views import Published, seat_view, watch_update

Flags = tuple[bool, bool]  # (rendered text, legal actions) in each update


class Update(NamedTuple):
    """One encoded update of a watched seat, the table version it shows and, when it shows one commit made by that
    seat's own move, the client action id the move carried ("" otherwise: a catch-up, another seat's move)."""

    version: int
    encoded: bytes
    answers: str = ""


class Watching:
    def __init__(self, lookup: Lookup, directory: Directory, hub: Hub) -> None:
        self.lookup = lookup
        self.store = lookup.store
        self.directory = directory
        self.hub = hub

    async def _seat(self, table_id: str, seat_token: str) -> int | None:
        """The seat of `seat_token`; None for a spectator (no token)."""
        return (await self.lookup.seated(table_id, seat_token))[1] if seat_token else None

    async def view(self, table_id: str, seat_token: str = "") -> SeatView:
        seat = await self._seat(table_id, seat_token)
        if seat is not None:  # the player is here: their clock runs in full again (the view shows the new deadline)
            record = await self.lookup.record(table_id)
            await self.store.present(table_id, seat, record.time_control.decision_seconds)
        record, live, game = await self.lookup.loaded(table_id)
        state = game.state_from_bytes(live.state)
        return seat_view(table_id, game, state, seat, live.seq, deadlines=_deadlines(live))

    def decode(self, table_id: str, data: bytes) -> Published:
        """A commit received by the hub: decoded once for every watcher of the table in this process, and kept
        as this process's guess of the table's live state."""
        commit = Commit.FromString(data)
        record = self.lookup.records.get(table_id)
        known = self.lookup.lives.get(table_id)
        if record is None or (known is not None and known.version >= commit.version):
            return Published(commit)  # its state is decoded when a watcher needs it (an echo of our own: never)
        game = find_game(record.config.game)
        published = Published(commit, game.state_from_bytes(commit.state))
        self.lookup.learn_commit(table_id, commit, published.state(game))
        return published

    async def watch(
        self, table_id: str, seat_token: str = "", after_seq: int = 0, flags: Flags = (True, True)
    ) -> AsyncGenerator[Update, None]:
        """The seat's updates, encoded, each with the table version it shows: first everything after `after_seq`,
        then each commit as it lands, until the game is over. Every event the seat may see arrives once and in
        order, whatever is dropped on the way."""
        record = await self.lookup.record(table_id)
        seat, retired = await self.lookup.watched(table_id, seat_token) if seat_token else (None, 0)
        game = find_game(record.config.game)
        follower = await self.hub.follow(table_id)
        if seat is None:
            await self.store.spectating(table_id, 1)
        else:
            await self.store.present(table_id, seat, record.time_control.decision_seconds)
        try:
            caught = await self._catch_up(table_id, game, seat, after_seq, -1, flags)
            assert caught is not None
            last, version, finished, _ = caught
            yield Update(version, caught[3])
            caught = None  # this watcher's own bytes: not held while it waits (shared ones are)
            while not finished:
                item = await follower.next()
                if item is DRAIN:
                    raise DrainingError(
                        f"gateway draining: reconnect to any gateway with after_seq={last} to resume with no gap"
                    )
                if item is RESYNC or item.version > version + 1:  # something was missed: read the durable log
                    if seat is not None:  # and the token may have been retired meanwhile
                        seat, retired = await self.lookup.watched(table_id, seat_token)
                    caught = await self._catch_up(table_id, game, seat, last, version, flags)
                    if caught is not None:
                        last, version, finished, _ = caught
                        yield Update(version, caught[3])
                        caught = None
                    continue
                if item.version <= version:
                    continue  # already sent by a catch-up
                if seat is not None and item.commit.tokens_retired > retired:  # is this watch's token one of them?
                    seat, retired = await self.lookup.watched(table_id, seat_token)
                update = item.update(table_id, game, seat, flags)
                last, version = item.commit.last_seq, item.version
                finished = game.is_terminal(item.state(game))
                FANOUT_SECONDS.observe(time.monotonic() - item.received)
                mine = seat is not None and item.commit.seat == seat
                yield Update(version, update, item.commit.client_action_id if mine else "")
        finally:
            self.hub.leave(follower)
            if seat is None:
                with contextlib.suppress(Exception):  # best effort: the count is a hint for listings
                    await self.store.spectating(table_id, -1)

    async def _catch_up(
        self, table_id: str, game: AnyGame, seat: int | None, after_seq: int, version: int, flags: Flags
    ) -> tuple[int, int, bool, bytes] | None:
        """The update covering everything after `after_seq`; None when the table is still at `version`."""
        events, live = await self.store.snapshot(table_id, min(after_seq, 2**62))
        if live is None:
            raise no_table(table_id)
        if after_seq > live.seq:
            raise OutOfRangeError(f"after_seq: {after_seq} is past the table's last event ({live.seq})")
        if live.version == version:
            return None
        state = game.state_from_bytes(live.state)
        update = watch_update(table_id, game, state, seat, live.seq, events, flags, _deadlines(live))
        return live.seq, live.version, game.is_terminal(state), update

    async def log(self, table_id: str) -> GameLog:
        record, live, _ = await self.lookup.loaded(table_id)
        if not live.finished:
            raise TableStateError("game log: the log is published once the game is finished")
        events = await self.store.events(table_id, 1)
        return GameLog(
            table=await self.directory.table(table_id),
            seed=record.seed,
            actions=await self.store.action_log(table_id),
            events=visible_events(events, None),
        )


def _deadlines(live: Live) -> list[Deadline]:
    return list(Deadlines.FromString(live.deadlines).deadlines) if live.deadlines else []
