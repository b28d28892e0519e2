"""Redis adapter (asyncio): where tables, live states, action logs and event streams are kept.

Every key of one table carries the hash tag `{<table id>}`, so one Lua script can touch them all on any node of a
Redis Cluster. The live state changes only through `commit.lua`, an atomic versioned compare-and-set that also
checks the seat token and the client action id: a submit is one round trip when the caller's cache is right.
"""

from __future__ import annotations

import asyncio
import time
import zlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from importlib import resources
from typing import Any

import redis.asyncio as aioredis
from manaforge.v1.common_pb2 import Event
from manaforge.v1.gateway_pb2 import LoggedAction, Seat, SeatKind
from manaforge.v1.storage_pb2 import GameArchive, TableRecord
from redis.asyncio.cluster import RedisCluster
from redis.commands.core import CoreCommands
from redis.exceptions import ConnectionError, RedisError

from services.tables import keys as k
from services.tables.followups import FollowUp, script_args
from services.tables.keys import SHARDS, channel, shard_of
from services.tables.multiplex import ClusterMultiplexed, Multiplexed

LIVE_FIELDS = ["version", "seq", "state", "started", "finished", "deadlines"]
HOT_RETRIES = 6
TICKET_TTL = 60.0  # seconds a waiting ticket lives without a WaitForMatch (its player is gone)
MATCHED_TICKET_TTL = 3600.0  # seconds a matched ticket keeps its table for its player


class NotReplicatedError(RedisError):
    """A commit stored on the primary but not yet on enough replicas: not acknowledged (UNAVAILABLE, retry)."""


MAX_BLOCK = 30.0  # the longest any command may wait inside Redis (BLPOP)


def _lua(name: str) -> str:
    return resources.files("services.tables").joinpath("lua", name).read_text()


@dataclass(frozen=True)
class Live:
    """A table's live state as stored: the version, the last event seq and the serialized game state."""

    version: int
    seq: int
    state: bytes
    started: bool
    finished: bool
    deadlines: bytes = b""  # a Deadlines message: when each pending decision will be made for its seat

    @classmethod
    def parse(cls, fields: list[Any]) -> Live | None:
        version, seq, state, started, finished, *rest = fields
        if version is None:
            return None
        deadlines = rest[0] if rest and rest[0] else b""
        return cls(int(version), int(seq), state or b"", started == b"1", finished == b"1", deadlines)


@dataclass(frozen=True)
class CommitResult:
    """What the compare-and-set said: `ok` or `dup` (with the version and event seqs of the move), `conflict` (with
    the live state now), `token` (the token holds no such seat) or `missing` (no such table)."""

    status: str
    version: int = 0
    first_seq: int = 0
    last_seq: int = 0
    live: Live | None = None


def occupant_of(seat: Seat) -> str:
    """How the seats hash names a seat's occupant ("bot:<level>", "player:<id>:<name>" or "human:<name>")."""
    if seat.kind == SeatKind.SEAT_KIND_BOT:
        return f"bot:{seat.bot_level}"
    return f"player:{seat.player_id}:{seat.name}" if seat.player_id else f"human:{seat.name}"


_keys = k.table_keys


def pairs(flat: list[Any]) -> list[tuple[Any, Any]]:
    """A flat reply [k1, v1, k2, v2, ...] (HGETALL, a stream entry's fields) as pairs."""
    return list(zip(flat[::2], flat[1::2], strict=True))


class Batch(CoreCommands):
    """Commands recorded through redis-py's command methods (`batch.hset(...)`), run by `execute()` as one atomic
    step: the batch script on the node of their slot. Replies are Redis's own (HGETALL: a flat list)."""

    def __init__(self, run: Callable[[list[tuple[Any, ...]]], Awaitable[list[Any]]]) -> None:
        self.commands: list[tuple[Any, ...]] = []
        self._run = run

    def execute_command(self, *args: Any, **options: Any) -> Batch:
        self.commands.append(args)
        return self

    async def execute(self) -> list[Any]:
        return await self._run(self.commands) if self.commands else []


def _result(detail: bytes, status: str) -> CommitResult:
    version, first, last = (int(x) for x in detail.split(b":"))
    return CommitResult(status, version, first, last)


class RedisStore:
    """Tables, live states and logs in Redis: one client (connection pool) per process, made in bootstrap."""

    # Listings: tables with an open seat ("open") and games under way ("playing"), by creation time, each for all
    # games and per game, each split over the shards (keys.py).

    def __init__(
        self,
        client: aioredis.Redis,
        hot: Multiplexed | ClusterMultiplexed | None = None,
        blocking: aioredis.Redis | None = None,
        replicas: int = 0,
        replica_wait: float = 0.1,
    ) -> None:
        self.redis: Any = client  # redis-py's typing of replies is looser than ours; replies are bytes
        self.hot = hot  # the commit path's shared connection (see multiplex.py); None: the client's pool
        # With replicas > 0 a commit is acknowledged only once that many replicas have it (WAIT), so it survives the
        # loss of the primary; otherwise the caller is told to retry (its id makes the retry safe).
        self.replicas = replicas
        self.replica_wait = replica_wait
        self._pubsub_turn = 0
        self.blocking: Any = blocking or client  # for commands that wait in Redis up to MAX_BLOCK seconds
        self._commit = client.register_script(_lua("commit.lua"))
        self._claim = client.register_script(_lua("claim_seat.lua"))
        queue_script = _lua("queue_handovers.lua")  # what every queue script shares
        self._queue_join = client.register_script(queue_script + _lua("queue_join.lua"))
        self._queue_take = client.register_script(queue_script + _lua("queue_take.lua"))
        self._queue_hand_over = client.register_script(queue_script + _lua("queue_hand_over.lua"))
        self._queue_leave = client.register_script(queue_script + _lua("queue_leave.lua"))
        self._claim_due = client.register_script(_lua("claim_due.lua"))
        self._present = client.register_script(_lua("present.lua"))
        self._batch_script = client.register_script(_lua("batch.lua"))

    @property
    def is_cluster(self) -> bool:
        return isinstance(self.redis, RedisCluster)

    def pubsub_connection(self) -> aioredis.Connection:
        """A new connection for the fan-out hub's subscriptions. On a cluster a published message reaches every node,
        so any node will do: each new connection goes to the next node, which moves the hub off a node that died."""
        if not self.is_cluster:
            return aioredis.Connection(**self.redis.connection_pool.connection_kwargs)
        nodes = self.redis.get_nodes()
        self._pubsub_turn += 1
        node = nodes[self._pubsub_turn % len(nodes)]
        connection: aioredis.Connection = node.connection_class(**node.connection_kwargs)
        return connection

    async def close(self) -> None:
        if self.hot is not None:
            await self.hot.close()
        if self.blocking is not self.redis:
            await self.blocking.aclose()
        await self.redis.aclose()

    # ----- tables ---------------------------------------------------------------------------------------------

    async def create_table(
        self,
        record: TableRecord,
        state: bytes,
        occupants: dict[int, str],
        listed: bool,
        first: list[tuple[FollowUp, float]],
    ) -> None:
        """Store a new table; `first`: the follow-ups of its first state, armed when every seat is a bot's."""
        keys = _keys(record.table_id)
        shard = shard_of(record.table_id)
        started = len(occupants) == record.config.seats
        pipe = self._batch()
        pipe.set(keys["record"], record.SerializeToString())
        pipe.hset(
            keys["live"], mapping={"version": 0, "seq": 0, "state": state, "finished": 0, "started": int(started)}
        )
        if occupants:
            pipe.hset(keys["seats"], mapping={str(k): v for k, v in occupants.items()})
        entry = {record.table_id: record.created_at}
        if listed:
            pipe.zadd(k.listing("open", "", shard), entry)
            pipe.zadd(k.listing("open", record.config.game, shard), entry)
        if started:
            pipe.zadd(k.listing("playing", "", shard), entry)
            pipe.zadd(k.listing("playing", record.config.game, shard), entry)
        pipe.zadd(k.live_tables(shard), entry)
        if started and first:
            now = time.time()
            pipe.zadd(k.outbox(shard), {item.format(): int((now + delay) * 1000) for item, delay in first})
            pipe.sadd(keys["armed"], *(item.format() for item, _ in first))
            pipe.lpush(k.wake(shard), 1)
            pipe.ltrim(k.wake(shard), 0, 63)
        await pipe.execute()

    # An archived game (retention.py) is served from its archive wherever its live keys are gone: every read below
    # falls back to it, so an archived table reads as a finished one.

    async def table_record(self, table_id: str) -> TableRecord | None:
        data = await self.redis.get(_keys(table_id)["record"])
        if data is None:
            archive = await self.archived(table_id)
            return archive.record if archive is not None else None
        return TableRecord.FromString(data)

    async def occupants(self, table_id: str) -> dict[int, str]:
        raw = await self.redis.hgetall(_keys(table_id)["seats"])
        if not raw and (archive := await self.archived(table_id)) is not None:
            return {s.seat: occupant_of(s) for s in archive.seats if s.kind != SeatKind.SEAT_KIND_OPEN}
        return {int(k): v.decode() for k, v in raw.items()}

    async def claim_seat(
        self,
        table_id: str,
        seats: int,
        wanted: int,
        occupant: str,
        token_digest: str,
        first: list[tuple[FollowUp, float]],
        bank: str = "0,0",
    ) -> tuple[str, int]:
        """Take a seat; the seat that fills the table starts play and arms `first` (the first state's follow-ups)."""
        keys = _keys(table_id)
        status, seat, *rest = await self._script(
            self._claim,
            keys=[keys["seats"], keys["tokens"], keys["live"], keys["armed"], *self._outbox(table_id)],
            args=[seats, wanted, occupant, token_digest, bank, *script_args(first)],
        )
        if rest and int(rest[0]):
            await self.started(table_id)
        return status.decode(), int(seat)

    async def started(self, table_id: str) -> None:
        """A table whose last seat was taken: from the open listings to the games under way."""
        record = await self.table_record(table_id)
        if record is None:
            return
        entry = {table_id: record.created_at}
        shard = shard_of(table_id)
        pipe = self._batch()
        pipe.zrem(k.outbox(shard), FollowUp("abandon", table_id, 0).format())  # it started: nobody abandoned it
        pipe.zrem(k.listing("open", "", shard), table_id)
        pipe.zrem(k.listing("open", record.config.game, shard), table_id)
        pipe.zadd(k.listing("playing", "", shard), entry)
        pipe.zadd(k.listing("playing", record.config.game, shard), entry)
        await pipe.execute()

    @staticmethod
    def unlist(pipe: Any, table_id: str, game: str) -> None:
        shard = shard_of(table_id)
        for kind in ("open", "playing"):
            pipe.zrem(k.listing(kind, "", shard), table_id)
            pipe.zrem(k.listing(kind, game, shard), table_id)

    async def page(self, kind: str, game: str, before: float | None, count: int) -> list[tuple[str, float]]:
        """Up to `count` entries of a listing ("open" or "playing", all games or one), newest first, created before
        `before` (None: from the newest): the newest of every shard's part."""
        top = f"({before}" if before is not None else "+inf"
        pipe = self.redis.pipeline(transaction=False)
        for shard in range(SHARDS):
            pipe.zrevrangebyscore(k.listing(kind, game, shard), top, "-inf", start=0, num=count, withscores=True)
        found = [(t.decode(), float(score)) for part in await pipe.execute() for t, score in part]
        return sorted(found, key=lambda entry: (-entry[1], entry[0]))[:count]

    @staticmethod
    def _outbox(table_id: str) -> list[str]:
        """The outbox and wake list of the table's shard."""
        shard = shard_of(table_id)
        return [k.outbox(shard), k.wake(shard)]

    async def add_token(self, table_id: str, token_digest: str, seat: int) -> None:
        await self.redis.hset(_keys(table_id)["tokens"], token_digest, seat)

    async def present(self, table_id: str, seat: int, clock: float) -> None:
        """The seat's player is here (a call with its token): if it was away, its clock runs at full length again,
        the pending decision's too (`clock` seconds from now), in one atomic step (present.lua)."""
        keys = _keys(table_id)
        outbox = k.outbox(shard_of(table_id))
        await self._script(self._present, keys=[keys["live"], keys["armed"], outbox], args=[seat, int(clock * 1000)])

    async def absences(self, table_id: str, seats: int) -> list[int]:
        """Decisions each seat let run out in a row."""
        found = await self.redis.hmget(_keys(table_id)["live"], [f"absent:{s}" for s in range(seats)])
        return [int(x or 0) for x in found]

    async def spectating(self, table_id: str, delta: int) -> None:
        """Count a spectator in (1) or out (-1); the count goes with the table's keys."""
        if not await self.redis.exists(_keys(table_id)["live"]):
            return  # an archived game: nothing to count, and no key to leave behind
        pipe = self._batch()
        pipe.incrby(_keys(table_id)["spectators"], delta)
        pipe.expire(_keys(table_id)["spectators"], 24 * 3600)  # a count left by a crashed gateway fades away
        await pipe.execute()

    async def spectators(self, table_id: str) -> int:
        return max(0, int(await self.redis.get(_keys(table_id)["spectators"]) or 0))

    async def seat_for_token(self, table_id: str, token_digest: str) -> int | None:
        seat = await self.redis.hget(_keys(table_id)["tokens"], token_digest)
        if seat is None and (archive := await self.archived(table_id)) is not None:
            return archive.token_seats.get(token_digest)
        return int(seat) if seat is not None else None

    async def set_verdict(self, table_id: str, verdict: str) -> None:
        """Store a live game's verdict (an archived game keeps the verdict it was archived with)."""
        live = _keys(table_id)["live"]
        if await self.redis.exists(live):
            await self.redis.hset(live, "verdict", verdict)

    async def verdict(self, table_id: str) -> str:
        value = await self.redis.hget(_keys(table_id)["live"], "verdict")
        if value is None and (archive := await self.archived(table_id)) is not None:
            return archive.verdict
        return value.decode() if value else ""

    # ----- live state ----------------------------------------------------------------------------------------

    async def live(self, table_id: str) -> Live | None:
        live = Live.parse(await self.redis.hmget(_keys(table_id)["live"], LIVE_FIELDS))
        return live if live is not None else await self._archived_live(table_id)

    async def _archived_live(self, table_id: str) -> Live | None:
        archive = await self.archived(table_id)
        return Live(archive.version, archive.seq, archive.state, True, True) if archive is not None else None

    async def live_and_done(
        self, table_id: str, seat: int, client_action_id: str, trusted: bool
    ) -> tuple[Live | None, CommitResult | None]:
        """The live state and, when this seat's action id was applied before, its stored result (one round trip).
        `trusted`: the id is one of the server's own (bots, timers), kept apart from clients' ids."""
        keys = _keys(table_id)
        pipe = self.redis.pipeline(transaction=False)
        pipe.hmget(keys["live"], LIVE_FIELDS)
        pipe.hget(keys["done"], f"{seat}:{'s' if trusted else 'c'}:{client_action_id}")
        fields, done = await pipe.execute()
        live = Live.parse(fields) or await self._archived_live(table_id)
        return live, (_result(done, "dup") if done is not None and client_action_id else None)

    async def commit(
        self,
        table_id: str,
        expected_version: int,
        seat: int,
        token_digest: str,
        client_action_id: str,
        state: bytes,
        logged: bytes,
        commit_message: bytes,
        finished: bool,
        events: list[bytes],
        follow: list[tuple[FollowUp, float]],
        game: str,
        bank: str = "0,0",
        takeover_after: int = 3,
    ) -> CommitResult:
        keys = _keys(table_id)
        shard = shard_of(table_id)
        names = [
            keys["live"],
            keys["log"],
            keys["events"],
            keys["done"],
            keys["tokens"],
            keys["armed"],
            k.outbox(shard),
            k.wake(shard),
            k.live_tables(shard),
            k.listing("playing", "", shard),
            k.listing("playing", game, shard),
        ]
        args: list[Any] = [
            expected_version,
            seat,
            token_digest,
            client_action_id,
            channel(table_id),
            state,
            logged,
            commit_message,
            int(finished),
            table_id,
            bank,
            takeover_after,
            *script_args(follow),
            *events,
        ]
        if self.hot is None:
            reply = await self._commit(keys=names, args=args)
        else:
            reply = await self._hot_commit(names, args)
        status = reply[0].decode()
        if status in ("ok", "dup"):
            return _result(reply[1], status)
        if status == "conflict":
            return CommitResult(status, live=Live.parse(reply[1:]))
        return CommitResult(status)

    def _batch(self) -> Any:  # a Batch (typed loosely: redis-py types its command methods for its own clients)
        """Commands to run as one atomic step (keys of one slot): redis-py's command methods, then `execute()`."""
        return Batch(self._run_batch)  # type: ignore[abstract]

    async def _run_batch(self, commands: list[tuple[Any, ...]]) -> list[Any]:
        names = list(dict.fromkeys(str(command[1]) for command in commands))
        args: list[Any] = []
        for command in commands:
            args += [len(command), *command]
        return list(await self._script(self._batch_script, names, args))

    async def _script(self, script: Any, keys: list[str], args: list[Any]) -> Any:
        """Run one of the scripts on the shared connection(s) when there are (on a cluster, the one of the node
        that serves the keys' slot), else on the client's pool."""
        if self.hot is None:
            return await script(keys=keys, args=args)
        reply, _ = await self.hot.evalsha(str(script.sha), str(script.script), keys, args)
        return reply

    async def _hot_commit(self, names: list[str], args: list[Any]) -> Any:
        """The commit script on the shared connection, tried again for about 2 s while the connection is down (a
        commit whose reply was lost is answered `dup` the second time: it carries its id)."""
        assert self.hot is not None
        delay = 0.02
        for attempt in range(HOT_RETRIES + 1):
            try:
                then = ("WAIT", self.replicas, int(self.replica_wait * 1000)) if self.replicas else ()
                reply, replicated = await self.hot.evalsha(
                    str(self._commit.sha), str(self._commit.script), names, args, then
                )
                if self.replicas and reply[0] in (b"ok", b"dup") and int(replicated) < self.replicas:
                    raise NotReplicatedError(
                        f"replication: the move reached {int(replicated)} of {self.replicas} replicas in time;"
                        " retry with the same client action id"
                    )
                return reply
            except ConnectionError:
                if attempt == HOT_RETRIES:
                    raise
                await asyncio.sleep(delay)
                delay = min(delay * 2, 0.5)
        raise AssertionError("unreachable")

    # ----- retention ---------------------------------------------------------------------------------------

    async def arm(self, item: FollowUp, delay: float) -> None:
        """Add one follow-up item due in `delay` seconds (outside a commit: archiving, abandoned tables)."""
        await self.redis.zadd(k.outbox(shard_of(item.table_id)), {item.format(): int((time.time() + delay) * 1000)})

    async def gather(self, table_id: str) -> tuple[TableRecord | None, Live | None, dict[int, str], dict[str, int]]:
        """Everything to archive but the log and events: record, live state, occupants, token digests."""
        keys = _keys(table_id)
        pipe = self._batch()
        pipe.get(keys["record"])
        pipe.hmget(keys["live"], LIVE_FIELDS)
        pipe.hgetall(keys["seats"])
        pipe.hgetall(keys["tokens"])
        record, fields, seats, tokens = await pipe.execute()
        return (
            TableRecord.FromString(record) if record is not None else None,
            Live.parse(fields),
            {int(k): v.decode() for k, v in pairs(seats)},
            {k.decode(): int(v) for k, v in pairs(tokens)},
        )

    async def archive(self, table_id: str, archive: GameArchive, ttl: float) -> None:
        """Keep `archive` for `ttl` seconds and remove every live key of the table, in one step."""
        keys = _keys(table_id)
        pipe = self._batch()
        pipe.set(keys["archive"], zlib.compress(archive.SerializeToString(), 6), ex=max(1, int(ttl)))
        pipe.delete(*(key for name, key in keys.items() if name != "archive"))
        self.unlist(pipe, table_id, archive.record.config.game)
        pipe.zrem(k.live_tables(shard_of(table_id)), table_id)
        await pipe.execute()

    async def archived(self, table_id: str) -> GameArchive | None:
        data = await self.redis.get(_keys(table_id)["archive"])
        return GameArchive.FromString(zlib.decompress(data)) if data is not None else None

    async def discard(self, table_id: str, game: str) -> None:
        """Remove an abandoned table (never started) and its listing entries."""
        keys = _keys(table_id)
        pipe = self._batch()
        pipe.delete(*keys.values())
        self.unlist(pipe, table_id, game)
        pipe.zrem(k.live_tables(shard_of(table_id)), table_id)
        await pipe.execute()

    # ----- follow-up work (see followups.py) ------------------------------------------------------------------

    async def claim_due(self, shard: int, lease: float, limit: int) -> list[FollowUp]:
        """Claim the due items of one shard's outbox (each leased for `lease` seconds)."""
        found = await self._script(self._claim_due, keys=[k.outbox(shard)], args=[int(lease * 1000), limit])
        return [FollowUp.parse(item) for item in found]

    async def done_with(self, item: FollowUp) -> None:
        await self.redis.zrem(k.outbox(shard_of(item.table_id)), item.format())

    async def wait_for_due(self, shard: int, timeout: float) -> None:
        """Block until a commit arms an item of the shard due at once, or `timeout` seconds pass."""
        await self.blocking.blpop([k.wake(shard)], timeout=timeout)

    async def live_tables(self, shard: int, after: float, count: int) -> list[tuple[str, float]]:
        """A shard's unfinished tables created after `after` (a cursor), oldest first."""
        key = k.live_tables(shard)
        found = await self.redis.zrangebyscore(key, f"({after}", "+inf", start=0, num=count, withscores=True)
        return [(t.decode(), float(score)) for t, score in found]

    async def arm_missing(self, table_id: str, items: list[tuple[FollowUp, float]], version: int) -> int:
        """Arm follow-ups a table should have and has not (the sweeper's belt and braces), if still at `version`."""
        keys = _keys(table_id)
        outbox = k.outbox(shard_of(table_id))
        pipe = self.redis.pipeline(transaction=False)
        pipe.hget(keys["live"], "version")
        pipe.zmscore(outbox, [item.format() for item, _ in items])
        current, scores = await pipe.execute()
        missing = [(item, delay) for (item, delay), score in zip(items, scores, strict=True) if score is None]
        if current is None or int(current) != version or not missing:
            return 0
        now = time.time()
        pipe = self._batch()
        pipe.zadd(outbox, {item.format(): int((now + delay) * 1000) for item, delay in missing}, nx=True)
        pipe.sadd(keys["armed"], *(item.format() for item, _ in missing))
        await pipe.execute()
        return len(missing)

    async def forget_table(self, table_id: str) -> None:
        await self.redis.zrem(k.live_tables(shard_of(table_id)), table_id)

    # ----- logs and events -----------------------------------------------------------------------------------

    async def events(self, table_id: str, first_seq: int, last_seq: int | None = None) -> list[Event]:
        end = f"0-{last_seq}" if last_seq is not None else "+"
        entries = await self.redis.xrange(_keys(table_id)["events"], f"0-{max(first_seq, 1)}", end)
        if not entries and (archive := await self.archived(table_id)) is not None:
            last = last_seq if last_seq is not None else archive.seq
            return [e for e in archive.events if first_seq <= e.seq <= last]
        return [Event.FromString(fields[b"e"]) for _, fields in entries]

    async def snapshot(self, table_id: str, after_seq: int) -> tuple[list[Event], Live | None]:
        """The events after `after_seq` and the live state, read atomically (no commit in between)."""
        keys = _keys(table_id)
        pipe = self._batch()
        pipe.xrange(keys["events"], f"0-{after_seq + 1}", "+")
        pipe.hmget(keys["live"], LIVE_FIELDS)
        entries, fields = await pipe.execute()
        live = Live.parse(fields)
        if live is None and (archive := await self.archived(table_id)) is not None:
            return [e for e in archive.events if e.seq > after_seq], await self._archived_live(table_id)
        return [Event.FromString(dict(pairs(f))[b"e"]) for _, f in entries], live

    async def action_log(self, table_id: str) -> list[LoggedAction]:
        raw = await self.redis.lrange(_keys(table_id)["log"], 0, -1)
        if not raw and (archive := await self.archived(table_id)) is not None:
            return list(archive.actions)
        return [LoggedAction.FromString(x) for x in raw]

    async def replace_logged_action(self, table_id: str, index: int, logged: LoggedAction) -> None:
        """Overwrite one log entry: only the tests use it, to prove tampering is caught."""
        await self.redis.lset(_keys(table_id)["log"], index, logged.SerializeToString())

    # ----- matchmaking ---------------------------------------------------------------------------------------
    # A queue (keys.queue), its handovers and its tickets share a hash tag: the scripts read the tickets of their
    # queue. A match taken out of a queue is claimed for `lease` seconds: handed over to its table (`hand_over`)
    # within them, or handed back to the queue by any later queue script (lua/queue_handovers.lua).

    @staticmethod
    def _queue_keys(queue: str) -> list[str]:
        return [queue, k.handovers_of(queue), k.handed_over_of(queue)]

    async def queue_join(
        self, queue: str, ticket_id: str, needed: int, window: float, widen: float, claim: str, lease: float
    ) -> tuple[list[str], int]:
        """Queue `ticket_id` ("": only look for a match) and take out a match if the queue has one, claimed as
        `claim`. Returns the match's tickets (or none) and how many wait."""
        args: list[Any] = [ticket_id, needed, k.tickets_of(queue), window, widen, claim, int(lease * 1000)]
        matched, waiting = await self._script(self._queue_join, keys=self._queue_keys(queue), args=args)
        return [t.decode() for t in matched or []], int(waiting)

    async def queue_take(self, queue: str, ticket_id: str, seats: int, claim: str, lease: float) -> list[str]:
        """Take a waiting ticket and up to `seats` - 1 others out of the queue, claimed as `claim` (none: the ticket
        is not waiting)."""
        args = [ticket_id, seats, k.tickets_of(queue), claim, int(lease * 1000)]
        taken = await self._script(self._queue_take, keys=self._queue_keys(queue), args=args)
        return [t.decode() for t in taken or []]

    async def hand_over(self, queue: str, claim: str, table_id: str, seats: list[tuple[str, int, str]]) -> bool:
        """Match the claimed tickets to their table, each (ticket, seat, seat token), if the claim still holds; else
        (False) its tickets wait in their queue again."""
        args: list[Any] = [claim, k.tickets_of(queue), table_id, int(MATCHED_TICKET_TTL)]
        args += [x for seat in seats for x in seat]
        status = await self._script(self._queue_hand_over, keys=self._queue_keys(queue), args=args)
        return bool(status == b"ok")

    async def hand_back(self, queue: str, claim: str) -> None:
        """The claimed tickets wait in their queue again, now (the match's table could not be made)."""
        await self._script(self._queue_hand_over, keys=self._queue_keys(queue), args=[claim, k.tickets_of(queue), ""])

    async def queue_length(self, queue: str) -> int:
        return int(await self.redis.llen(queue))

    async def save_ticket(self, ticket_id: str, fields: dict[str, Any], ttl: float = TICKET_TTL) -> None:
        pipe = self._batch()
        pipe.hset(k.ticket(ticket_id), mapping=fields)
        pipe.expire(k.ticket(ticket_id), int(ttl))
        await pipe.execute()

    async def keep_ticket(self, ticket_id: str) -> bool:
        """A waiting player is still there: its ticket lives TICKET_TTL seconds more. False: it is gone."""
        return bool(await self.redis.expire(k.ticket(ticket_id), int(TICKET_TTL)))

    async def leave_queue(self, queue: str, ticket_id: str) -> tuple[str, str]:
        """Remove a ticket that is not matched: ("left", ""), ("matched", its table id) or ("unknown", "")."""
        args = [ticket_id, k.tickets_of(queue)]
        status, *table = await self._script(self._queue_leave, keys=self._queue_keys(queue), args=args)
        return status.decode(), table[0].decode() if table and table[0] else ""

    async def ticket(self, ticket_id: str) -> dict[str, str]:
        """A ticket's fields ({} for an unknown or expired ticket, or an id that is no ticket's)."""
        if not k.is_ticket_id(ticket_id):
            return {}
        found = await self.redis.hgetall(k.ticket(ticket_id))
        return {name.decode(): value.decode() for name, value in found.items()}

    async def notify_ticket(self, ticket_id: str) -> None:
        key = k.ticket_ready(ticket_id)
        pipe = self._batch()
        pipe.rpush(key, 1)
        pipe.expire(key, 3600)
        await pipe.execute()

    async def wait_ticket(self, ticket_id: str, timeout: float) -> None:
        await self.blocking.blpop([k.ticket_ready(ticket_id)], timeout=min(timeout, MAX_BLOCK))
