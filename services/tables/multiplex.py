"""One Redis connection shared by every coroutine of a process for the hot path (the commit script).

Redis answers the commands of one connection in the order it received them, so concurrent callers can queue their
commands as they come and take their replies in order: no pool checkout, no lock. The commands queued during one
turn of the event loop go out in one write at its end, so under load many commits share one system call each way
(what ioredis calls auto-pipelining). Commands are packed and replies parsed by hiredis. When the
connection drops, every caller still waiting gets a ConnectionError and the next command reconnects; the callers
retry (the commit script is idempotent: every commit carries an id it is recorded under).
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections import deque
from typing import Any
from urllib.parse import quote

import hiredis
from redis.asyncio.connection import SSLConnection, parse_url
from redis.crc import key_slot
from redis.exceptions import ConnectionError, NoScriptError, ResponseError


def encode(args: tuple[Any, ...]) -> bytes:
    """A command in the Redis protocol (RESP): an array of bulk strings (str, bytes or int arguments)."""
    return bytes(hiredis.pack_command(args))


class Multiplexed:
    def __init__(self, url: str) -> None:
        """`url`: redis://[[user]:password@]host[:port][/db], rediss:// (TLS, the server's certificate checked as
        Python's default context checks it) or unix://[[user]:password@]/path/to/socket[?db=N], as redis-py reads
        them (REDIS_URL)."""
        given = parse_url(url)  # redis-py's own reading, as its pooled clients read the same REDIS_URL
        self.host = given.get("host") or "127.0.0.1"
        self.port = given.get("port") or 6379
        self.socket = given.get("path", "")  # a Unix socket's path instead of host:port
        self.tls = given.get("connection_class") is SSLConnection
        self.db = given.get("db") or 0
        self.where = self.socket or f"{self.host}:{self.port}"
        self.password = given.get("password")
        self.username = given.get("username")
        self._writer: asyncio.StreamWriter | None = None
        self._queued: list[bytes] = []  # commands packed this turn of the loop, written together at its end
        self._pending: deque[asyncio.Future[Any]] = deque()
        self._reader_task: asyncio.Task[None] | None = None
        self._connecting: asyncio.Lock | None = None

    async def _connect(self) -> asyncio.StreamWriter:
        if self._connecting is None:
            self._connecting = asyncio.Lock()
        async with self._connecting:
            if self._writer is not None:
                return self._writer
            try:
                opening = (
                    asyncio.open_unix_connection(self.socket)
                    if self.socket
                    else asyncio.open_connection(
                        self.host, self.port, ssl=ssl.create_default_context() if self.tls else None
                    )
                )
                reader, writer = await asyncio.wait_for(opening, 5)
            except (OSError, TimeoutError) as exc:
                raise ConnectionError(f"redis at {self.where} unreachable: {exc}") from exc
            self._writer = writer
            self._queued = []  # the last connection's, if any, went with it (its callers were failed)
            self._reader_task = asyncio.get_running_loop().create_task(self._read(reader, writer))
            setup: list[tuple[Any, ...]] = []
            if self.password:
                setup.append(("AUTH", self.username, self.password) if self.username else ("AUTH", self.password))
            if self.db:
                setup.append(("SELECT", self.db))
            for command in setup:
                await self._send(writer, command)
            return writer

    def _send(self, writer: asyncio.StreamWriter, args: tuple[Any, ...]) -> asyncio.Future[Any]:
        """Queue a command for `writer`'s connection; its reply comes to the returned future."""
        if writer.is_closing():  # the reader has not seen it yet
            if self._writer is writer:
                self._writer = None
            raise ConnectionError("redis connection lost")
        queued = self._queued
        queued.append(encode(args))
        loop = asyncio.get_running_loop()
        if len(queued) == 1:
            loop.call_soon(self._flush, writer, queued)
        future: asyncio.Future[Any] = loop.create_future()
        self._pending.append(future)
        return future

    def _flush(self, writer: asyncio.StreamWriter, queued: list[bytes]) -> None:
        """Write the commands queued this turn in one system call. A failed write closes the connection: the reader
        then fails every caller still waiting with a ConnectionError."""
        data = b"".join(queued)
        queued.clear()
        if writer is not self._writer:
            return  # that connection is gone, and its callers with it
        try:
            writer.write(data)
        except RuntimeError:  # uvloop: the transport is closed (Redis dropped us); the reader has not seen it yet
            self._writer = None
            writer.close()

    async def execute(self, *args: Any) -> Any:
        writer = self._writer or await self._connect()
        return await self._send(writer, args)

    async def evalsha(
        self, sha: str, script: str, keys: list[str], args: list[Any], then: tuple[Any, ...] = ()
    ) -> tuple[Any, Any]:
        """Run a script by its digest (sending its body once if the server does not have it yet), with `then`, a
        command sent right behind it without waiting (e.g. WAIT). Returns both replies (None without `then`)."""
        writer = self._writer or await self._connect()
        script_reply = self._send(writer, ("EVALSHA", sha, len(keys), *keys, *args))
        then_reply = self._send(writer, then) if then else None
        try:
            first = await script_reply
        except NoScriptError:
            if then_reply is not None:
                await then_reply
            return await self.evalsha_body(script, keys, args, then)
        return first, (await then_reply if then_reply is not None else None)

    async def evalsha_body(
        self, script: str, keys: list[str], args: list[Any], then: tuple[Any, ...]
    ) -> tuple[Any, Any]:
        first = await self.execute("EVAL", script, len(keys), *keys, *args)
        return first, (await self.execute(*then) if then else None)

    async def _read(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        parser = hiredis.Reader()
        error: Exception = ConnectionError("redis closed the connection")
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                parser.feed(data)
                while (reply := parser.gets()) is not False:
                    future = self._pending.popleft()
                    if future.done():
                        continue
                    if isinstance(reply, hiredis.ReplyError):
                        message = str(reply)
                        exc = NoScriptError(message) if message.startswith("NOSCRIPT") else ResponseError(message)
                        future.set_exception(exc)
                    else:
                        future.set_result(reply)
        except (OSError, hiredis.ProtocolError) as exc:
            error = ConnectionError(f"redis connection lost: {exc}")
        finally:
            if self._writer is writer:
                self._writer = None
            while self._pending:
                future = self._pending.popleft()
                if not future.done():
                    future.set_exception(error)
            writer.close()

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        if self._reader_task is not None:
            self._reader_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader_task


CLUSTER_RETRY_SECONDS = 10.0  # how long a command waits out a failover (a replica is promoted within seconds)


class ClusterMultiplexed:
    """The same shared connections on a Redis Cluster: one per primary, each script sent to the primary that serves
    its first key's slot (all its keys share that slot: keys.py). The slot map comes from CLUSTER SLOTS and is read
    again whenever a node is unreachable or answers MOVED, ASK, TRYAGAIN or CLUSTERDOWN (a failover, a resharding);
    the command is then sent again, for up to CLUSTER_RETRY_SECONDS."""

    def __init__(self, seeds: list[str], password: str | None = None) -> None:
        self.seeds = list(seeds)
        self.auth = f":{quote(password, safe='')}@" if password else ""
        self.nodes: dict[str, Multiplexed] = {}
        self.slots: list[str] = []  # slot -> "host:port" of its primary ([] : read the map again)
        self._refreshing: asyncio.Lock | None = None

    def _node(self, address: str) -> Multiplexed:
        if address not in self.nodes:
            self.nodes[address] = Multiplexed(f"redis://{self.auth}{address}/0")
        return self.nodes[address]

    async def refresh(self) -> None:
        if self._refreshing is None:
            self._refreshing = asyncio.Lock()
        async with self._refreshing:
            if self.slots:
                return  # another caller read it meanwhile
            for address in [*self.nodes, *(s for s in self.seeds if s not in self.nodes)]:
                try:
                    reply = await asyncio.wait_for(self._node(address).execute("CLUSTER", "SLOTS"), 2)
                except (ConnectionError, ResponseError, OSError, TimeoutError):
                    continue
                slots = [""] * 16384
                for start, end, primary, *_ in reply:
                    slots[start : end + 1] = [f"{primary[0].decode()}:{primary[1]}"] * (end - start + 1)
                if all(slots):
                    self.slots = slots
                    return
            raise ConnectionError("no node of the Redis Cluster gave a slot map covering every slot")

    async def evalsha(
        self, sha: str, script: str, keys: list[str], args: list[Any], then: tuple[Any, ...] = ()
    ) -> tuple[Any, Any]:
        slot = key_slot(keys[0].encode())
        deadline = asyncio.get_running_loop().time() + CLUSTER_RETRY_SECONDS
        delay = 0.05
        while True:
            try:
                if not self.slots:
                    await self.refresh()
                return await self._node(self.slots[slot]).evalsha(sha, script, keys, args, then)
            except ResponseError as exc:
                if not str(exc).startswith(("MOVED", "ASK", "TRYAGAIN", "CLUSTERDOWN")):
                    raise
                error: Exception = exc
            except ConnectionError as exc:
                error = exc
            self.slots = []
            if asyncio.get_running_loop().time() + delay > deadline:
                raise ConnectionError(f"redis cluster: {error}") from error
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.5)

    async def close(self) -> None:
        for node in self.nodes.values():
            await node.close()
