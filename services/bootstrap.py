"""The one place where the table service is wired from the settings (services/settings.py): Redis, the store, the
rules, the card sets, the tables.

Each process reads its settings once at start (`settings_at_start`) and hands them on: a gateway
(`gateway/__main__.py`) and a Celery worker (`services/workers/app.py`) build their tables here. The rules service
(`services/rules/server.py`) is stateless and below the table service: it loads the card sets and builds its one
servicer itself, importing nothing of this graph. The launcher (`deploy/launcher.py`: `Stack.from_settings`)
starts those processes; no product package imports deploy.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError, RedisError, TimeoutError

from services.cardsets import load_card_sets
from services.settings import Settings
from services.tables.layout import check_layout
from services.tables.multiplex import ClusterMultiplexed, Multiplexed
from services.tables.rules import RemoteRules
from services.tables.service import Retention, Tables
from services.tables.store import MAX_BLOCK, RedisStore
from services.tls import client_credentials

RETRIES = 6  # a command that meets a dropped connection is tried again for about 2 s (commits are idempotent)
REDIS_CONNECTIONS = 256  # per process; a caller waits for a free connection beyond that
BLOCKING_CONNECTIONS = 64  # for calls that wait in Redis (a WaitForMatch, a dispatcher's wake-up)
REDIS_WAIT = 60.0  # seconds a process starting before its Redis waits for it (to check the stored layout)

log = logging.getLogger(__name__)


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
    return redis_client(settings.redis(), connections, socket_timeout)


def build_store(settings: Settings) -> RedisStore:
    cluster = settings.redis_cluster
    return RedisStore(
        data_client(settings),
        ClusterMultiplexed(list(cluster), settings.redis_cluster_password)
        if cluster
        else Multiplexed(settings.redis()),
        blocking=data_client(settings, BLOCKING_CONNECTIONS, MAX_BLOCK + 5.0),
        replicas=settings.redis_replicas,
        replica_wait=settings.redis_replica_wait,
        sharded_pubsub=settings.sharded_pubsub,
    )


def build_tables(settings: Settings) -> Tables:
    """Tables over Redis, with the card sets of the settings registered. Call it on the event loop that will use
    them."""
    load_card_sets(settings.card_sets)
    return Tables(
        build_store(settings),
        rules=RemoteRules(list(settings.rules_addresses), client_credentials(settings))
        if settings.rules_addresses
        else None,
        response_timeout=settings.response_timeout,
        bot_delay=settings.bot_delay,
        bot_time_cap=settings.bot_time_cap,
        decision_seconds=settings.decision_seconds,
        bot_games=settings.bot_games,
        challenge_ttl=settings.challenge_ttl,
        retention=Retention(settings.archive_after, settings.archive_ttl, settings.open_table_seconds),
    )


async def checked_tables(settings: Settings, wait: float = REDIS_WAIT) -> Tables:
    """build_tables, once the stored data is found in the layout this release reads (services/tables/layout.py):
    else LayoutError, naming the stored layout and this release's, and nothing is served. Redis not answering yet (a
    process started before it) is waited for up to `wait` seconds, then its error is raised."""
    tables = build_tables(settings)
    deadline = time.monotonic() + wait
    try:
        while True:
            try:
                await check_layout(tables.store.redis)
                return tables
            except RedisError as exc:
                if time.monotonic() > deadline:
                    raise
                log.warning("waiting for Redis to check the stored layout", extra={"fields": {"error": str(exc)}})
                await asyncio.sleep(1.0)
    except BaseException:
        await tables.store.close()
        raise
