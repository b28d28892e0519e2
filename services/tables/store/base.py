"""What every part of the Redis store shares: the connections, the Lua scripts, one-step batches, and the archive
that every read falls back to once a game's live keys are gone (an archived table reads as a finished one)."""

from __future__ import annotations

import zlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from importlib import resources
from typing import Any

import redis.asyncio as aioredis
from manaforge.v1.storage_pb2 import GameArchive
from redis.asyncio.cluster import RedisCluster
from redis.commands.core import CoreCommands

from services.tables import keys as k
from services.tables.keys import shard_of
from services.tables.multiplex import ClusterMultiplexed, Multiplexed
from services.tables.store.pubsub import Routes, pubsub_mode

LIVE_FIELDS = ["version", "seq", "state", "started", "finished", "deadlines"]
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


def pairs(flat: list[Any]) -> list[tuple[Any, Any]]:
    """A flat reply [k1, v1, k2, v2, ...] (HGETALL, a stream entry's fields) as pairs."""
    return list(zip(flat[::2], flat[1::2], strict=True))


def unlist(pipe: Any, table_id: str, game: str) -> None:
    """Take a table out of every listing (open and playing, all games and its own)."""
    shard = shard_of(table_id)
    for kind in ("open", "playing"):
        pipe.zrem(k.listing(kind, "", shard), table_id)
        pipe.zrem(k.listing(kind, game, shard), table_id)


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


class StoreBase:
    """The connections and scripts of one process's store (one client, a connection pool, made in bootstrap)."""

    def __init__(
        self,
        client: aioredis.Redis,
        hot: Multiplexed | ClusterMultiplexed | None = None,
        blocking: aioredis.Redis | None = None,
        replicas: int = 0,
        replica_wait: float = 0.1,
        sharded_pubsub: str = "auto",
    ) -> None:
        self.redis: Any = client  # redis-py's typing of replies is looser than ours; replies are bytes
        self.hot = hot  # the commit path's shared connection (see multiplex.py); None: the client's pool
        # With replicas > 0 a commit is acknowledged only once that many replicas have it (WAIT), so it survives the
        # loss of the primary; otherwise the caller is told to retry (its id makes the retry safe).
        self.replicas = replicas
        self.replica_wait = replica_wait
        # how commits are published (commit.lua's ARGV 11) and where the fan-out hub subscribes (store/pubsub.py)
        self.publish, kinds = pubsub_mode(sharded_pubsub, isinstance(client, RedisCluster))
        self.pubsub = Routes(client, kinds)
        self.blocking: Any = blocking or client  # for commands that wait in Redis up to MAX_BLOCK seconds
        self._commit = client.register_script(_lua("commit.lua"))
        self._claim = client.register_script(_lua("claim_seat.lua"))
        self._issue = client.register_script(_lua("issue_token.lua"))
        queue_script = _lua("queue_handovers.lua")  # what every queue script shares
        self._queue_join = client.register_script(queue_script + _lua("queue_join.lua"))
        self._queue_take = client.register_script(queue_script + _lua("queue_take.lua"))
        self._queue_hand_over = client.register_script(queue_script + _lua("queue_hand_over.lua"))
        self._queue_leave = client.register_script(queue_script + _lua("queue_leave.lua"))
        self._claim_due = client.register_script(_lua("claim_due.lua"))
        self._present = client.register_script(_lua("present.lua"))
        self._batch_script = client.register_script(_lua("batch.lua"))
        self._challenge_room = client.register_script(_lua("challenge_room.lua"))

    @property
    def is_cluster(self) -> bool:
        return isinstance(self.redis, RedisCluster)

    async def close(self) -> None:
        if self.hot is not None:
            await self.hot.close()
        if self.blocking is not self.redis:
            await self.blocking.aclose()
        await self.redis.aclose()

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

    # ----- the archive every read falls back to -----------------------------------------------------------------

    async def archived(self, table_id: str) -> GameArchive | None:
        data = await self.redis.get(k.table_keys(table_id)["archive"])
        return GameArchive.FromString(zlib.decompress(data)) if data is not None else None

    async def _archived_live(self, table_id: str) -> Live | None:
        archive = await self.archived(table_id)
        return Live(archive.version, archive.seq, archive.state, True, True) if archive is not None else None
