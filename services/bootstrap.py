"""The one place where the parts are wired: settings from the environment, Redis, the tables."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError, TimeoutError

from services.tables.multiplex import ClusterMultiplexed, Multiplexed
from services.tables.rules import RemoteRules
from services.tables.service import Retention, Tables
from services.tables.store import MAX_BLOCK, RedisStore

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
RETRIES = 6  # a command that meets a dropped connection is tried again for about 2 s (commits are idempotent)
REDIS_CONNECTIONS = 256  # per process; a caller waits for a free connection beyond that
BLOCKING_CONNECTIONS = 64  # for calls that wait in Redis (a WaitForMatch, a dispatcher's wake-up)


@dataclass(frozen=True)
class Settings:
    redis_url: str = DEFAULT_REDIS_URL  # the Celery broker, and the game data unless redis_cluster names a cluster
    redis_cluster: tuple[str, ...] = ()  # seed nodes ("host:port") of a Redis Cluster that holds the game data
    redis_cluster_password: str = ""  # the cluster's password (requirepass), if it has one
    response_timeout: float = 30.0  # seconds a seat has to answer a response window before it passes
    bot_delay: float = 0.0  # seconds a bot waits before moving
    bot_time_cap: float = 2.0  # seconds a bot may think, whatever its level's budget
    card_sets: str = ""  # a directory of MTGJSON set files to import
    rules_addresses: tuple[str, ...] = ()  # rules services for every move (empty: the engine runs in-process)
    archive_after: float = 60.0  # seconds a validated game stays live before it is archived
    archive_ttl: float = 30 * 24 * 3600.0  # seconds an archived game is kept
    open_table_seconds: float = 3600.0  # seconds before a table whose seats were never all taken is removed
    decision_seconds: float = 120.0  # a table's default clock per decision (0: none)
    redis_replicas: int = 0  # acknowledge a move once this many replicas have it (WAIT); 0: once the primary has it
    redis_replica_wait: float = 0.1  # seconds to wait for them before answering UNAVAILABLE (retry)

    @classmethod
    def from_env(cls) -> Settings:
        env = os.environ
        return cls(
            redis_url=env.get("REDIS_URL", DEFAULT_REDIS_URL),
            redis_cluster=tuple(a for a in env.get("MANAFORGE_REDIS_CLUSTER", "").split(",") if a),
            redis_cluster_password=env.get("MANAFORGE_REDIS_CLUSTER_PASSWORD", ""),
            response_timeout=float(env.get("MANAFORGE_RESPONSE_TIMEOUT", "30")),
            bot_delay=float(env.get("MANAFORGE_BOT_DELAY", "0")),
            bot_time_cap=float(env.get("MANAFORGE_BOT_TIME_CAP", "2")),
            card_sets=env.get("MANAFORGE_CARD_SETS", ""),
            rules_addresses=tuple(a for a in env.get("MANAFORGE_RULES_ADDRESSES", "").split(",") if a),
            archive_after=float(env.get("MANAFORGE_ARCHIVE_AFTER", "60")),
            archive_ttl=float(env.get("MANAFORGE_ARCHIVE_TTL", str(30 * 24 * 3600))),
            open_table_seconds=float(env.get("MANAFORGE_OPEN_TABLE_SECONDS", "3600")),
            decision_seconds=float(env.get("MANAFORGE_DECISION_SECONDS", "120")),
            redis_replicas=int(env.get("MANAFORGE_REDIS_REPLICAS", "0")),
            redis_replica_wait=float(env.get("MANAFORGE_REDIS_REPLICA_WAIT", "0.1")),
        )


def load_card_sets(directory: str) -> list[str]:
    if not directory:
        return []
    from services.cardsets import load_card_sets as load

    return load(directory)


class Connection(aioredis.Connection):
    """redis-py's asyncio connection, opened again before a command is written when its socket was closed under it
    while it sat in the pool (Redis restarted, CLIENT KILL, a proxy's idle timeout). Nothing was sent on it, so this
    is always safe; without it, uvloop raised RuntimeError ("the handler is closed") at the write, which redis-py does
    not retry, and a cluster client's retries drew one dead pooled connection after another (UNKNOWN to a player)."""

    async def send_packed_command(self, command: Any, check_health: bool = True) -> None:
        writer, reader = self._writer, self._reader
        if writer is not None and (writer.transport.is_closing() or (reader is not None and reader.at_eof())):
            await self.disconnect(nowait=True)  # closed, or Redis said goodbye (a FIN leaves the socket half open)
        await super().send_packed_command(command, check_health)


def redis_client(url: str, connections: int = REDIS_CONNECTIONS, socket_timeout: float = 5.0) -> aioredis.Redis:
    """An asyncio Redis client (hiredis parser when installed) with a bounded connection pool; a command that gets
    no answer within `socket_timeout` seconds fails (UNAVAILABLE at the edge)."""
    pool = aioredis.BlockingConnectionPool.from_url(
        url,
        max_connections=connections,
        socket_timeout=socket_timeout,
        timeout=10,
        retry=Retry(ExponentialBackoff(cap=0.5, base=0.02), RETRIES),
        retry_on_error=[ConnectionError, TimeoutError],
        connection_class=Connection,
    )
    return aioredis.Redis(connection_pool=pool)


def cluster_client(seeds: tuple[str, ...] | list[str], connections: int = REDIS_CONNECTIONS, password: str = "") -> Any:
    """An asyncio Redis Cluster client: it learns the nodes from any seed, routes each command to the node of its
    key's slot, and reads the slot map again after a failover (MOVED, or a node gone)."""
    addresses = [seed.rsplit(":", 1) for seed in seeds]
    nodes = [ClusterNode(host, int(port), connection_class=Connection) for host, port in addresses]
    client = RedisCluster(
        startup_nodes=nodes,
        max_connections=connections,  # per node
        # no socket timeout: with one, redis-py 8.1's cluster client loses commands that share a new connection
        # ("'NoneType' object has no attribute 'writelines'"); a dead node on loopback or a LAN resets the connection
        socket_timeout=None,
        retry=Retry(ExponentialBackoff(cap=0.5, base=0.05), 20),  # about 10 s: a failover takes a few seconds
        retry_on_error=[ConnectionError, TimeoutError],
        reinitialize_steps=1,
        password=password or None,
    )
    client.nodes_manager.connection_kwargs["connection_class"] = Connection  # the nodes it discovers
    return client


def data_client(settings: Settings, connections: int = REDIS_CONNECTIONS, socket_timeout: float = 5.0) -> Any:
    """The client of the game data: the Redis Cluster when one is configured, else the Redis at redis_url."""
    if settings.redis_cluster:
        return cluster_client(settings.redis_cluster, connections, settings.redis_cluster_password)
    return redis_client(settings.redis_url, connections, socket_timeout)


def build_store(settings: Settings) -> RedisStore:
    cluster = settings.redis_cluster
    return RedisStore(
        data_client(settings),
        ClusterMultiplexed(list(cluster), settings.redis_cluster_password)
        if cluster
        else Multiplexed(settings.redis_url),
        blocking=data_client(settings, BLOCKING_CONNECTIONS, MAX_BLOCK + 5.0),
        replicas=settings.redis_replicas,
        replica_wait=settings.redis_replica_wait,
    )


def build_tables(settings: Settings) -> Tables:
    """Tables over Redis. Call it on the event loop that will use them."""
    load_card_sets(settings.card_sets)
    return Tables(
        build_store(settings),
        rules=RemoteRules(list(settings.rules_addresses)) if settings.rules_addresses else None,
        response_timeout=settings.response_timeout,
        bot_delay=settings.bot_delay,
        bot_time_cap=settings.bot_time_cap,
        decision_seconds=settings.decision_seconds,
        retention=Retention(settings.archive_after, settings.archive_ttl, settings.open_table_seconds),
    )
