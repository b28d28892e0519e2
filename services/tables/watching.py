"""Watching: a seat's view (or the public one), the stream of a table's updates to a seat or a spectator, and the
finished game's log. Commits reach this process through the hub (fanout.py), decoded once for every watcher."""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncGenerator
from typing import Any, NamedTuple

from manaforge.v1.gateway_pb2 import Deadline, GameLog, SeatView
from manaforge.v1.storage_pb2 import Commit, Deadlines

from engine_core import find_game
from engine_core.game import visible_events
from engine_core.registry import AnyGame
from services.tables.directory import Directory
from services.tables.errors import DrainingError, OutOfRangeError, TableStateError
from services.tables.fanout import DRAIN, RESYNC, Follower, Hub
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
        feed, first = await self.feed(table_id, seat_token, after_seq, flags)
        try:
            yield first
            del first  # this watcher's own bytes: not held while it waits (shared ones are)
            while not feed.finished:
                update = await feed.take(await feed.follower.next())
                if update is not None:
                    yield update
        finally:
            await feed.close()

    async def feed(
        self, table_id: str, seat_token: str = "", after_seq: int = 0, flags: Flags = (True, True)
    ) -> tuple[Feed, Update]:
        """The seat's feed of updates and its first one (everything after `after_seq`): for a reader that waits
        for its hub inbox itself (a Play stream waits for it and for its own results together)."""
        record = await self.lookup.record(table_id)
        seat = await self._seat(table_id, seat_token)
        game = find_game(record.config.game)
        follower = await self.hub.follow(table_id)
        try:
            if seat is None:
                await self.store.spectating(table_id, 1)
            else:
                await self.store.present(table_id, seat, record.time_control.decision_seconds)
        except BaseException:
            self.hub.leave(follower)
            raise
        feed = Feed(self, table_id, game, seat, flags, follower)
        try:
            first = await feed.catch_up(after_seq, -1)
        except BaseException:
            await feed.close()
            raise
        assert first is not None
        return feed, first

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


class Feed:
    """One watcher's updates of a table: the items of its hub inbox (`follower`) made into its encoded updates, in
    order and once each, a gap read from the durable Stream. Its reader waits for the inbox as it likes."""

    __slots__ = ("finished", "flags", "follower", "game", "last", "seat", "table_id", "version", "watching")

    def __init__(
        self, watching: Watching, table_id: str, game: AnyGame, seat: int | None, flags: Flags, follower: Follower
    ) -> None:
        self.watching = watching
        self.table_id = table_id
        self.game = game
        self.seat = seat
        self.flags = flags
        self.follower = follower
        self.last = 0  # the last event sequence number shown
        self.version = -1  # the table version shown
        self.finished = False  # the game is over: no update follows

    async def take(self, item: Any) -> Update | None:
        """The update an item of the inbox makes; None when it makes none (its version was shown already)."""
        if item is DRAIN:
            raise DrainingError(
                f"gateway draining: reconnect to any gateway with after_seq={self.last} to resume with no gap"
            )
        if item is RESYNC or item.version > self.version + 1:  # something was missed: read the durable log
            return await self.catch_up(self.last, self.version)
        if item.version <= self.version:
            return None  # already sent by a catch-up
        game, seat = self.game, self.seat
        update = item.update(self.table_id, game, seat, self.flags)
        commit = item.commit
        self.last, self.version = commit.last_seq, item.version
        self.finished = game.is_terminal(item.state(game))
        FANOUT_SECONDS.observe(time.monotonic() - item.received)
        return Update(item.version, update, commit.client_action_id if seat is not None and commit.seat == seat else "")

    async def catch_up(self, after_seq: int, version: int) -> Update | None:
        """The update covering everything after `after_seq`; None when the table is still at `version`."""
        table_id, game = self.table_id, self.game
        events, live = await self.watching.store.snapshot(table_id, min(after_seq, 2**62))
        if live is None:
            raise no_table(table_id)
        if after_seq > live.seq:
            raise OutOfRangeError(f"after_seq: {after_seq} is past the table's last event ({live.seq})")
        if live.version == version:
            return None
        state = game.state_from_bytes(live.state)
        update = watch_update(table_id, game, state, self.seat, live.seq, events, self.flags, _deadlines(live))
        self.last, self.version, self.finished = live.seq, live.version, game.is_terminal(state)
        return Update(live.version, update)

    async def close(self) -> None:
        """Leaves the hub."""
        self.watching.hub.leave(self.follower)
        if self.seat is None:
            with contextlib.suppress(Exception):  # best effort: the count is a hint for listings
                await self.watching.store.spectating(self.table_id, -1)
