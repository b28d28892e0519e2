"""A player's inbox: what happens to them across all their tables, as one stream (the gateway's Events).

- Challenge events (received, accepted, declined) are kept in a capped Redis stream per player (the last KEPT,
  for KEPT_SECONDS after the last one): a client resumes after the cursor of the last one it had.
- Game events: game started (with the seat token the player's key gives that seat: the same on every reconnect, so
  a reconnect adds no token; seating.py), your turn, game ended. A new stream announces every game under way again
  (and your turn where it is), so a client that lost its stream loses no game.

Nothing is polled: an idle stream costs no Redis command. A stream reads the durable state once when it opens (its
challenge events after its cursor, the player's WATCHED newest tables), then follows pushes through the process's
hub (fanout.py), whose one pub/sub connection (one per primary on a cluster) carries them:
- the commits of the player's games under way, on their tables' channels: a commit names its version and carries
  the whole state, so your turn and the game's end are read from it, with no command;
- the notices of the SHARDS shards (keys.notices): the seat that starts a table names its players in the same atomic
  step (lua/claim_seat.lua, on the table's shard), and a new challenge event names its player (`tell`, on the
  player's shard). A notice only says where to look: the stream reads that table, or its challenge events, once.
Whatever pub/sub may have dropped is read again: a table's resubscription (the hub's RESYNC) rereads that table, a
notices channel's rereads everything, as the opening did; SETTLE seconds after opening the stream looks once more
(a seat taken while it opened may be listed after its first look). A stream that ends resumes from its cursor.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from typing import Any

from manaforge.v1.common_pb2 import Header
from manaforge.v1.gateway_pb2 import GameEnded, GameStarted, PlayerEvent, YourTurn
from redis.exceptions import RedisError

from engine_core import find_game
from engine_core.errors import InvalidConfigError
from services.tables.directory import Directory
from services.tables.errors import DrainingError, TableNotFoundError
from services.tables.fanout import DRAIN, RESYNC, Follower, Hub
from services.tables.keys import SHARDS, notices, shard_of
from services.tables.players import Players
from services.tables.seating import Seating

KEPT = 200  # challenge events kept per player
KEPT_SECONDS = 24 * 3600  # how long a player's kept events outlive the last one
WATCHED = 20  # the player's newest tables looked at when a stream opens, and games one stream follows at most
SETTLE = 2.0  # seconds after opening, a stream's second (and last) look at the player's newest tables
BATCH = 50  # challenge events read per command
log = logging.getLogger(__name__)
CURSOR = re.compile(r"^\d{1,20}-\d{1,20}$")
READ = object()  # a mailbox's mark: read this table's durable state


def _key(player_id: str) -> str:
    return f"mf:player:{player_id}:events"


class Mailbox:
    """One Events stream's marks, set by pushes and taken by the stream: the tables to look at (with the newest
    commit heard of each, or READ), whether its challenge events or everything are to be read again. An idle
    stream waits on one future here."""

    __slots__ = ("_waiter", "draining", "events", "everything", "player_id", "tables")

    def __init__(self, player_id: str) -> None:
        self.player_id = player_id
        self.tables: dict[str, Any] = {}  # table id -> the newest commit heard of (views.Published), or READ
        self.events = False
        self.everything = True  # the first look
        self.draining = False
        self._waiter: asyncio.Future[None] | None = None

    def mark(self, table_id: str, item: Any) -> None:
        if item is RESYNC or self.tables.get(table_id, item) is READ:
            item = READ
        self.tables[table_id] = item
        self.wake()

    def wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def is_marked(self) -> bool:
        return bool(self.tables) or self.events or self.everything or self.draining

    async def wait(self, timeout: float | None) -> None:
        if self.is_marked():
            return
        self._waiter = asyncio.get_running_loop().create_future()
        try:
            await asyncio.wait_for(self._waiter, timeout)
        except TimeoutError:
            pass
        finally:
            self._waiter = None


class Relay(Follower):
    """The hub's follower of one table for every Events stream of this process that follows it: each commit (or
    RESYNC) marks their mailboxes, with no queue and no task of its own."""

    __slots__ = ("mailboxes", "ready")

    def __init__(self, table_id: str) -> None:
        super().__init__(table_id)
        self.mailboxes: set[Mailbox] = set()
        self.ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()  # subscribed

    def push(self, item: Any) -> bool:
        if item is not DRAIN:  # (the streams are told to drain as the notices' listener)
            for mailbox in self.mailboxes:
                mailbox.mark(self.table_id, item)
        return False


class Bell:
    """This process's Events streams, by player, and the pushes they follow: the notices channels (subscribed
    at the first stream, for the life of the process) and one Relay per table followed."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.streams: dict[str, set[Mailbox]] = {}
        self.relays: dict[str, Relay] = {}
        self._listening: asyncio.Future[None] | None = None

    async def enter(self, player_id: str) -> Mailbox:
        """A new stream's mailbox, once the notices are subscribed: nothing told from then on is missed."""
        mailbox = Mailbox(player_id)
        self.streams.setdefault(player_id, set()).add(mailbox)
        try:
            listening = self._listening
            if listening is None or (listening.done() and (listening.cancelled() or listening.exception())):
                listening = self._listening = asyncio.ensure_future(self._listen())
            await asyncio.shield(listening)
        except BaseException:
            self.leave(mailbox)
            raise
        return mailbox

    async def _listen(self) -> None:
        await asyncio.gather(*(self.hub.listen(notices(shard), self) for shard in range(SHARDS)))

    def leave(self, mailbox: Mailbox, followed: Iterable[str] = ()) -> None:
        """The stream ended: it hears nothing more, of its player or of the tables it `followed`."""
        mine = self.streams.get(mailbox.player_id)
        if mine is not None:
            mine.discard(mailbox)
            if not mine:
                del self.streams[mailbox.player_id]
        for table_id in followed:
            self.unfollow(mailbox, table_id)

    async def follow(self, mailbox: Mailbox, table_id: str) -> None:
        """Mark `mailbox` with each commit of `table_id` from now on (once subscribed)."""
        relay = self.relays.get(table_id)
        if relay is None:
            relay = self.relays[table_id] = Relay(table_id)
            try:
                await self.hub.follow(table_id, relay)
            except BaseException as exc:
                if self.relays.get(table_id) is relay:
                    del self.relays[table_id]
                relay.ready.set_exception(exc if isinstance(exc, Exception) else RedisError("subscription abandoned"))
                relay.ready.exception()  # retrieved: the other streams waiting for it get it from `ready`
                raise
            relay.ready.set_result(None)
        relay.mailboxes.add(mailbox)
        try:
            await asyncio.shield(relay.ready)
        except BaseException:
            self.unfollow(mailbox, table_id)
            raise

    def unfollow(self, mailbox: Mailbox, table_id: str) -> None:
        relay = self.relays.get(table_id)
        if relay is None:
            return
        relay.mailboxes.discard(mailbox)
        if not relay.mailboxes and relay.ready.done():
            del self.relays[table_id]
            self.hub.leave(relay)

    # ----- the notices channels (fanout.Listener) -------------------------------------------------------------

    def notice(self, data: bytes) -> None:
        """ "t|<table id>|<player id>,...": a table of theirs started; "e|<player id>": a new challenge event."""
        kind, _, rest = data.decode(errors="replace").partition("|")
        if kind == "t":
            table_id, _, players = rest.partition("|")
            for player_id in players.split(","):
                for mailbox in self.streams.get(player_id, ()):
                    mailbox.events = True  # what was told before the game started comes before its game_started
                    mailbox.mark(table_id, READ)
        elif kind == "e":
            for mailbox in self.streams.get(rest, ()):
                mailbox.events = True
                mailbox.wake()

    def resync(self) -> None:
        for mailboxes in self.streams.values():
            for mailbox in mailboxes:
                mailbox.everything = True
                mailbox.wake()

    def drain(self) -> None:
        for mailboxes in self.streams.values():
            for mailbox in mailboxes:
                mailbox.draining = True
                mailbox.wake()


@dataclass
class _Seen:
    """What one stream has told of one table."""

    live: tuple[int, bool, bool] = (-1, False, False)  # version, started, finished when last looked at
    started: bool = False
    turn: int = -1  # the version of the last your-turn sent
    done: bool = False
    seat: int = -1  # the player's seat there, once looked at
    game: str = ""
    version: int = -1  # the newest version told of (a commit heard late, after a read of a later one, is old)


@dataclass
class _Tables:
    seen: dict[str, _Seen] = field(default_factory=dict)
    followed: dict[str, None] = field(default_factory=dict)  # tables whose commits mark the mailbox, oldest first
    first: bool = True  # the first look: games already over are not announced


class Inbox:
    def __init__(self, players: Players, directory: Directory, seating: Seating) -> None:
        self.players = players
        self.directory = directory
        self.seating = seating
        self.store = seating.store
        self.redis = players.redis
        self._bell: Bell | None = None  # the streams of this process (its one hub)

    async def tell(self, player_id: str, event: PlayerEvent) -> None:
        key = _key(player_id)
        await self.redis.xadd(key, {"e": event.SerializeToString()}, maxlen=KEPT, approximate=False)
        await self.redis.expire(key, KEPT_SECONDS)
        notice, name = f"e|{player_id}", notices(shard_of(player_id))  # the player's streams read it (Bell)
        if "p" in self.store.publish:
            await self.redis.publish(name, notice)
        if "s" in self.store.publish:
            await self.redis.spublish(name, notice)

    def _bell_of(self, hub: Hub) -> Bell:
        if self._bell is None or self._bell.hub is not hub:
            self._bell = Bell(hub)
        return self._bell

    async def follow(
        self, player_id: str, after: str, opening: list[PlayerEvent], hub: Hub, player_key: str = ""
    ) -> AsyncIterator[PlayerEvent]:
        """The player's events for as long as the caller reads: from after `after` (a cursor), or, without one,
        `opening` (the challenges waiting for them) and what comes from now on. The first event is a bare cursor:
        the stream is live from there. Once the hub drains (the process is stopping) it ends with DrainingError."""
        if after and not CURSOR.match(after):
            raise InvalidConfigError("after", "a PlayerEvent.cursor this stream gave")
        if hub.draining:
            raise DrainingError("gateway draining: open Events on another gateway, after your last cursor")
        bell = self._bell_of(hub)
        mailbox = await bell.enter(player_id)  # before any read: what is told from here on marks it
        tables = _Tables()
        try:
            cursor = after or await self._end(player_id)
            yield PlayerEvent(cursor=cursor)  # the stream is live: nothing from here on is missed
            for event in opening:
                event.cursor = cursor
                yield event
            settle: float | None = asyncio.get_running_loop().time() + SETTLE
            while True:
                if mailbox.draining or hub.draining:
                    raise DrainingError("gateway draining: open Events on another gateway, after your last cursor")
                everything, mailbox.everything = mailbox.everything, False
                if everything or mailbox.events:
                    mailbox.events = False
                    async for event in self._challenges(player_id, cursor):
                        cursor = event.cursor
                        yield event
                marked, mailbox.tables = mailbox.tables, {}
                looked = await self._newest(player_id, tables, bell, mailbox, player_key) if everything else []
                for event in looked:
                    yield event
                for table_id, item in marked.items():
                    for event in await self._table(player_id, table_id, item, tables, bell, mailbox, player_key):
                        yield event
                tables.first = False
                if settle is not None and asyncio.get_running_loop().time() >= settle:
                    settle, mailbox.everything = None, True
                    continue
                await mailbox.wait(None if settle is None else settle - asyncio.get_running_loop().time())
        finally:
            bell.leave(mailbox, list(tables.followed))

    async def _challenges(self, player_id: str, cursor: str) -> AsyncIterator[PlayerEvent]:
        while True:
            entries = await self.redis.xrange(_key(player_id), min=f"({cursor}", count=BATCH)
            for entry_id, fields in entries:
                cursor = entry_id.decode()
                event = PlayerEvent.FromString(fields[b"e"])
                event.cursor = cursor
                yield event
            if len(entries) < BATCH:
                return

    async def _end(self, player_id: str) -> str:
        last = await self.redis.xrevrange(_key(player_id), count=1)
        return str(last[0][0].decode()) if last else "0-0"

    async def _newest(
        self, player_id: str, tables: _Tables, bell: Bell, mailbox: Mailbox, player_key: str
    ) -> list[PlayerEvent]:
        """The player's newest tables as they stand (the opening's look, and again after a notice was missed)."""
        events: list[PlayerEvent] = []
        newest = [table_id for table_id, _ in await self.players.tables(player_id, None, WATCHED)]
        for table_id in newest:
            events.extend(await self._table(player_id, table_id, READ, tables, bell, mailbox, player_key))
        for table_id in set(tables.seen) - set(newest) - set(tables.followed):
            del tables.seen[table_id]  # no longer among the newest: forgotten (the stream's memory stays bounded)
        return events

    async def _table(
        self,
        player_id: str,
        table_id: str,
        item: Any,
        tables: _Tables,
        bell: Bell,
        mailbox: Mailbox,
        player_key: str,
    ) -> list[PlayerEvent]:
        """What one table has to tell: from a commit heard of (`item`), or read from Redis (READ)."""
        seen = tables.seen.setdefault(table_id, _Seen())
        if seen.done:
            return []
        if item is not READ and seen.started and seen.game:
            game = find_game(seen.game)
            try:
                header: Header = game.header(item.state(game))
            except Exception:  # a commit this process cannot read: the table is read instead
                log.exception("Events: undecodable commit on table %s", table_id)
            else:
                return self._told(table_id, seen, item.version, header, tables, bell, mailbox)
        live = await self.store.live(table_id)
        if live is None:
            return self._done(table_id, seen, tables, bell, mailbox)
        now = (live.version, live.started, live.finished)
        if now == seen.live:
            return []
        try:
            table = await self.directory.table(table_id)
        except TableNotFoundError:
            return self._done(table_id, seen, tables, bell, mailbox)
        mine = [s.seat for s in table.seats if s.player_id == player_id]
        if not mine:
            return self._done(table_id, seen, tables, bell, mailbox)
        seen.seat, seen.game = mine[0], table.config.game
        if table.started and not table.outcome.finished and table_id not in tables.followed:
            await self._follow(table_id, tables, bell, mailbox)  # then read again: no commit between is missed
            mailbox.tables.setdefault(table_id, READ)
            return []
        seen.live = now
        events: list[PlayerEvent] = []
        if table.started and not seen.started and not table.outcome.finished:
            seen.started = True
            _, _, token = await self.seating.rejoin(table_id, player_id, player_key)
            started = GameStarted(table_id=table_id, seat=seen.seat, seat_token=token, config=table.config)
            events.append(PlayerEvent(game_started=started))
        header = Header(pending=table.pending, outcome=table.outcome)
        return events + self._told(table_id, seen, table.version, header, tables, bell, mailbox)

    def _told(
        self, table_id: str, seen: _Seen, version: int, header: Header, tables: _Tables, bell: Bell, mailbox: Mailbox
    ) -> list[PlayerEvent]:
        """The game's end, or the player's turn, as of `version`."""
        if version < seen.version:
            return []
        seen.version = version
        if header.outcome.finished:
            first = tables.first
            self._done(table_id, seen, tables, bell, mailbox)
            if first:
                return []  # over before the stream opened: not announced
            ended = GameEnded(table_id=table_id, seat=seen.seat, outcome=header.outcome)
            return [PlayerEvent(game_ended=ended)]
        if seen.started and seen.seat in header.pending.seats and seen.turn != version:
            seen.turn = version
            return [PlayerEvent(your_turn=YourTurn(table_id=table_id, seat=seen.seat, version=version))]
        return []

    def _done(self, table_id: str, seen: _Seen, tables: _Tables, bell: Bell, mailbox: Mailbox) -> list[PlayerEvent]:
        seen.done = True
        if table_id in tables.followed:
            del tables.followed[table_id]
            bell.unfollow(mailbox, table_id)
        return []

    async def _follow(self, table_id: str, tables: _Tables, bell: Bell, mailbox: Mailbox) -> None:
        await bell.follow(mailbox, table_id)
        tables.followed[table_id] = None
        if len(tables.followed) > WATCHED:  # the oldest game followed makes room (as the newest WATCHED are looked at)
            oldest = next(iter(tables.followed))
            del tables.followed[oldest]
            bell.unfollow(mailbox, oldest)
            tables.seen.pop(oldest, None)
