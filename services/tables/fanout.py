"""The fan-out hub: one pub/sub connection per process, shared by every watcher of every table it serves.

The first watcher of a table subscribes its channel (and waits for Redis to confirm, so nothing published after
its catch-up read is missed); the last one to leave unsubscribes. Each published commit is decoded once (by the
injected `decode`) and the same object is handed to every watcher of that table in this process. A commit this
process made itself is handed to its watchers at once (`hand_over`), unless a commit before it is still on its way
through pub/sub (made elsewhere, and known here from a conflict answer): then it waits for that one (or for its own
echo), so watchers get every commit in order, one update each. Its echo from pub/sub is dropped by its version
(every item has one). Watchers also drop any version they already have, and one that comes after a gap makes its
watcher read the gap from the durable stream. A watcher that
falls behind, and every watcher when the pub/sub connection drops, is told to resynchronise: it reads what it
missed from the table's durable event stream, so a watcher never loses or repeats an update.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections import deque
from collections.abc import Callable
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from services.tables.errors import DrainingError
from services.tables.keys import channel, table_of_channel

log = logging.getLogger(__name__)

RESYNC = object()  # read what you missed from the durable stream
DRAIN = object()  # this process is shutting down: end the stream, the client resumes elsewhere
INBOX_LIMIT = 256  # updates queued for one watcher before it is told to resynchronise instead
CONFIRM_TIMEOUT = 5.0


class Follower:
    """One watcher's inbox: decoded commits of its table, in order, or RESYNC. An idle watcher holds no queue and
    no waiter (a gateway holds tens of thousands of them): the queue exists while something waits in it, the waiter
    while its reader waits."""

    __slots__ = ("_waiter", "items", "table_id")

    def __init__(self, table_id: str) -> None:
        self.table_id = table_id
        self.items: deque[Any] | None = None
        self._waiter: asyncio.Future[None] | None = None

    def push(self, item: Any) -> None:
        items = self.items
        if items is None:
            items = self.items = deque()
        elif item is DRAIN:  # goes first, whatever is queued: the stream ends and its client resumes elsewhere
            items.clear()
        elif len(items) >= INBOX_LIMIT:  # a slow reader: drop its backlog, it rereads the stream
            items.clear()
            item = RESYNC
        items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def next(self) -> Any:
        while not self.items:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        item = self.items.popleft()
        if not self.items:
            self.items = None
        return item


class Hub:
    def __init__(self, connect: Callable[[], aioredis.Connection], decode: Callable[[str, bytes], Any]) -> None:
        self._connect = connect  # a new pub/sub connection (not yet connected), to any node that sees every channel
        self.decode = decode  # (table id, published bytes) -> the object every watcher of the table receives
        self._followers: dict[str, set[Follower]] = {}
        self._outstanding: dict[str, int] = {}  # SUBSCRIBE commands sent on this connection, not yet confirmed
        self._confirmed: dict[str, asyncio.Future[None]] = {}
        self._last: dict[str, int] = {}  # followed table -> the last version its watchers here were handed
        self._held: dict[str, Any] = {}  # followed table -> a commit made here, waiting for the one before it
        self._conn: aioredis.Connection | None = None
        self._connected = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.reconnects = 0
        self.draining = False

    # ----- lifecycle ------------------------------------------------------------------------------------------

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="fanout-hub")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self._conn is not None:
            await self._conn.disconnect()

    @property
    def tables(self) -> int:
        return len(self._followers)

    @property
    def watchers(self) -> int:
        return sum(len(f) for f in self._followers.values())

    # ----- followers ------------------------------------------------------------------------------------------

    def drain(self) -> None:
        """Shutting down: every watcher is told to end its stream, and no new one is taken."""
        self.draining = True
        for followers in self._followers.values():
            for follower in followers:
                follower.push(DRAIN)

    async def follow(self, table_id: str) -> Follower:
        """A new inbox for `table_id`, registered once Redis confirms the table's subscription."""
        if self.draining:
            raise DrainingError("gateway draining: connect to another gateway")
        self.start()
        follower = Follower(table_id)
        followers = self._followers.setdefault(table_id, set())
        followers.add(follower)
        name = channel(table_id)
        if len(followers) == 1:
            self._confirmed[name] = asyncio.get_running_loop().create_future()
            await self._send("SUBSCRIBE", name)
        try:
            await asyncio.wait_for(asyncio.shield(self._confirmed[name]), CONFIRM_TIMEOUT)
        except TimeoutError:
            self.leave(follower)
            raise RedisError("redis did not confirm the subscription in time") from None
        except BaseException:
            self.leave(follower)
            raise
        return follower

    def leave(self, follower: Follower) -> None:
        followers = self._followers.get(follower.table_id)
        if followers is None or follower not in followers:
            return
        followers.discard(follower)
        if not followers:
            del self._followers[follower.table_id]
            self._last.pop(follower.table_id, None)
            self._held.pop(follower.table_id, None)
            name = channel(follower.table_id)
            confirmed = self._confirmed.pop(name, None)
            if confirmed is not None and not confirmed.done():
                confirmed.cancel()
            asyncio.get_running_loop().create_task(self._send("UNSUBSCRIBE", name))

    # ----- the connection -------------------------------------------------------------------------------------

    async def _send(self, command: str, name: str) -> None:
        """Send on the live connection (counting SUBSCRIBEs to confirm); while there is none, the reconnect will
        subscribe every followed table."""
        conn = self._conn
        if conn is None or not self._connected.is_set():
            return
        if command == "SUBSCRIBE":
            self._outstanding[name] = self._outstanding.get(name, 0) + 1
        try:
            await conn.send_packed_command(conn.pack_command(command, name), check_health=False)
        except (RedisError, OSError) as exc:
            log.warning("pub/sub send failed (%s); the reader reconnects", exc)

    async def _run(self) -> None:
        delay = 0.05
        while True:
            conn = self._connect()
            try:
                await conn.connect()  # type: ignore[no-untyped-call]
                self._conn = conn
                self._outstanding.clear()
                self._connected.set()
                names = [channel(t) for t in self._followers]
                for start in range(0, len(names), 1000):  # resubscribe everything this process follows
                    batch = names[start : start + 1000]
                    for name in batch:
                        self._outstanding[name] = self._outstanding.get(name, 0) + 1
                    await conn.send_packed_command(conn.pack_command("SUBSCRIBE", *batch), check_health=False)
                if self.reconnects:
                    await conn.send_packed_command(conn.pack_command("PING"), check_health=False)
                delay = 0.05
                await self._read(conn)
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError) as exc:
                log.warning("pub/sub connection lost (%s); reconnecting", exc)
            finally:
                self._connected.clear()
                self._conn = None
                with contextlib.suppress(Exception):
                    await conn.disconnect(nowait=True)
            self.reconnects += 1
            await asyncio.sleep(delay)
            delay = min(delay * 2, 1.0)

    async def _read(self, conn: aioredis.Connection) -> None:
        while True:
            reply = await conn.read_response(timeout=math.inf, push_request=True)
            kind = reply[0] if isinstance(reply, list) else reply
            if kind == b"message":
                self._deliver(table_of_channel(reply[1]), reply[2])
            elif kind == b"subscribe":
                self._subscribed(reply[1].decode())
            elif kind == b"pong":  # after a reconnect: every resubscription is confirmed; resync every watcher
                self._last.clear()
                self._held.clear()
                for followers in self._followers.values():
                    for follower in followers:
                        follower.push(RESYNC)

    def _subscribed(self, name: str) -> None:
        left = self._outstanding.get(name, 0) - 1
        if left > 0:
            self._outstanding[name] = left
            return
        self._outstanding.pop(name, None)
        confirmed = self._confirmed.get(name)
        if confirmed is not None and not confirmed.done():
            confirmed.set_result(None)

    def hand_over(self, table_id: str, item: Any) -> None:
        """A commit this process made (decoded, with its `version`): to the table's watchers here at once, or once
        the commit before it has come through pub/sub; its own echo from pub/sub is then dropped."""
        followers = self._followers.get(table_id)
        if not followers:
            return
        last = self._last.get(table_id)
        if last is not None and item.version > last + 1:
            self._held[table_id] = item  # a commit made elsewhere comes first
            return
        self._push(table_id, followers, item)

    def _push(self, table_id: str, followers: set[Follower], item: Any) -> None:
        if item.version <= self._last.get(table_id, -1):
            return  # they have it
        self._last[table_id] = item.version
        for follower in followers:
            follower.push(item)
        held = self._held.get(table_id)
        if held is not None and held.version <= item.version + 1:
            del self._held[table_id]
            self._push(table_id, followers, held)

    def _deliver(self, table_id: str, data: bytes) -> None:
        followers = self._followers.get(table_id)
        if not followers:
            return
        try:
            item = self.decode(table_id, data)
        except Exception:
            log.exception("undecodable commit on table %s: its watchers resynchronise", table_id)
            for follower in followers:
                follower.push(RESYNC)
            return
        held = self._held.get(table_id)
        if held is not None and held.version == item.version:  # its own echo, and the one before never came:
            item = self._held.pop(table_id)  # its watchers read the gap from the stream
        self._push(table_id, followers, item)  # an echo of one handed over is dropped there
