"""The fan-out hub's pub/sub connections (fanout.py): a `Link` is one connection to one Redis node, carrying a set of
table channels. redis-py opens and authenticates the connection; the link then reads its pushes with hiredis straight
from the socket (as multiplex.py reads the commit connection's replies).

A link subscribes its channels with SUBSCRIBE, or with SSUBSCRIBE for sharded pub/sub (then on the node that owns
their slot: store/pubsub.py). Redis confirms each subscription; the hub hands a watcher updates only once its table's
is confirmed. Whenever channels may have missed messages (the connection dropped and came back, or they were moved
here from another node) the link sends a PING after subscribing them, and once its PONG comes (every subscription
before it confirmed) the hub tells their watchers to resynchronise from the durable stream.

A sharded link also ends its connection when the node gives a channel up on its own (Redis pushes `sunsubscribe`
when the channel's slot moves away, or when a failover makes the node a replica) or answers MOVED. Before it
connects again, the hub routes its channels again (`Owner.reroute`): those now owned by another node move to that
node's link; a link left with no channel ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Callable, Iterable
from typing import Protocol

import hiredis
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError, RedisError

log = logging.getLogger(__name__)

BATCH = 1000  # channels per (re)subscribing command


class ChannelGivenUp(RedisError):
    """The node unsubscribed a sharded channel on its own: its slot moved, or the node is a replica now."""


class Owner(Protocol):
    """What a link reports to its hub."""

    def message(self, name: bytes, data: bytes) -> None: ...
    def subscribed(self, link: Link, name: str) -> None: ...
    def resync(self, names: Iterable[str]) -> None: ...
    async def reroute(self, link: Link) -> None: ...


class Link:
    def __init__(self, node: str, sharded: bool, connect: Callable[[], aioredis.Connection], owner: Owner) -> None:
        self.node = node  # "host:port", or "" for any node
        self.sharded = sharded
        self._subscribe, self._unsubscribe = ("SSUBSCRIBE", "SUNSUBSCRIBE") if sharded else ("SUBSCRIBE", "UNSUBSCRIBE")
        self._connect = connect
        self._owner = owner
        self.names: set[str] = set()  # the channels this link carries
        self.stale: set[str] = set()  # channels whose watchers resync once subscribed on the next connection
        self.given_up: set[str] = set()  # channels the node unsubscribed on its own: it no longer owns their slots
        self._outstanding: dict[str, int] = {}  # subscribe commands sent on this connection, not yet confirmed
        self._leaving: dict[str, int] = {}  # unsubscribe commands sent on this connection, not yet confirmed
        self._resyncs: deque[list[str]] = deque()  # per PING sent, the channels to resync at its PONG
        self._conn: aioredis.Connection | None = None
        self._connected = asyncio.Event()
        self.task: asyncio.Task[None] | None = None
        self.reconnects = 0

    def start(self) -> None:
        if self.task is None:
            self.task = asyncio.get_running_loop().create_task(self._run(), name=f"fanout-link-{self.node}")

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
            self.task = None

    async def add(self, names: list[str], stale: bool) -> None:
        """Carry `names` from now on (`stale`: their watchers may have missed messages, and resync once subscribed).
        While there is no connection, the next one subscribes them."""
        self.names.update(names)
        conn = self._conn
        if conn is None or not self._connected.is_set():
            if stale:
                self.stale.update(names)
            return
        commands = self._subscribing(names)
        if stale:
            self._resyncs.append(names)
            commands.append(("PING",))
        await self._send(conn, commands)

    def remove(self, name: str) -> None:
        """Carry `name` no more: it is unsubscribed at the loop's next turn, unless it was added again meanwhile."""
        self.names.discard(name)
        self.stale.discard(name)
        asyncio.get_running_loop().create_task(self._leave(name))

    async def _leave(self, name: str) -> None:
        conn = self._conn
        if name not in self.names and conn is not None and self._connected.is_set():
            self._leaving[name] = self._leaving.get(name, 0) + 1
            await self._send(conn, [(self._unsubscribe, name)])

    def _subscribing(self, names: list[str]) -> list[tuple[str, ...]]:
        """The commands that subscribe `names`, counted to be confirmed: SUBSCRIBE takes a batch of channels, and
        SSUBSCRIBE one (on a cluster, one command's channels must share a slot)."""
        for name in names:
            self._outstanding[name] = self._outstanding.get(name, 0) + 1
        if self.sharded:
            return [(self._subscribe, name) for name in names]
        return [(self._subscribe, *names[start : start + BATCH]) for start in range(0, len(names), BATCH)]

    async def _send(self, conn: aioredis.Connection, commands: list[tuple[str, ...]]) -> None:
        try:
            await conn.send_packed_command(conn.pack_commands(commands), check_health=False)
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
                self._leaving.clear()
                self._resyncs.clear()
                self._connected.set()
                names, stale = list(self.names), list(self.stale)
                self.stale.clear()
                commands = self._subscribing(names)  # everything this link carries
                if stale:
                    self._resyncs.append(stale)
                    commands.append(("PING",))
                if commands:
                    await conn.send_packed_command(conn.pack_commands(commands), check_health=False)
                delay = 0.05
                await self._read(conn)
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError) as exc:
                log.warning("pub/sub connection to %s lost (%s); reconnecting", self.node or "redis", exc)
            finally:
                self._connected.clear()
                self._conn = None
                self.stale.update(self.names)  # whatever came meanwhile is missed: resync once subscribed again
                with contextlib.suppress(Exception):
                    await conn.disconnect(nowait=True)
            self.reconnects += 1
            if self.sharded:
                await self._owner.reroute(self)  # the slots' owners may have changed
                if not self.names:
                    self.task = None
                    return
            await asyncio.sleep(delay)
            delay = min(delay * 2, 1.0)

    async def _read(self, conn: aioredis.Connection) -> None:
        """Read the connection's pushes with hiredis straight from its socket (as multiplex.py reads replies): every
        message a read brought is handled in one step, without redis-py's parser chain."""
        stream: asyncio.StreamReader | None = conn._reader  # redis-py's own, once connected (pinned version)
        if stream is None:
            raise ConnectionError("pub/sub connection not open")
        parser = hiredis.Reader()
        owner = self._owner
        while True:
            data = await stream.read(65536)
            if not data:
                raise ConnectionError("redis closed the pub/sub connection")
            parser.feed(data)
            while (reply := parser.gets()) is not False:
                if isinstance(reply, hiredis.ReplyError):
                    raise RedisError(str(reply))
                kind = reply[0] if isinstance(reply, list) else reply
                if kind == b"message" or kind == b"smessage":
                    owner.message(reply[1], reply[2])
                elif kind == b"subscribe" or kind == b"ssubscribe":
                    self._confirmed(reply[1].decode())
                elif kind == b"sunsubscribe" and not self._left(reply[1].decode()):
                    self.given_up.add(reply[1].decode())
                    raise ChannelGivenUp(f"{reply[1].decode()} given up by {self.node}")
                elif (kind == b"pong" or kind == b"PONG") and self._resyncs:
                    owner.resync(self._resyncs.popleft())  # every subscription before it confirmed: resync them

    def _confirmed(self, name: str) -> None:
        left = self._outstanding.get(name, 0) - 1
        if left > 0:
            self._outstanding[name] = left
            return
        self._outstanding.pop(name, None)
        self._owner.subscribed(self, name)

    def _left(self, name: str) -> bool:
        """An unsubscribe this link asked for (False: Redis's own)."""
        asked = self._leaving.get(name, 0)
        if asked > 1:
            self._leaving[name] = asked - 1
        else:
            self._leaving.pop(name, None)
        return asked > 0
