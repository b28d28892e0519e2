"""Where the fan-out hub (fanout.py) subscribes table channels: one Redis, or the nodes of a Redis Cluster.

Plain pub/sub (PUBLISH, SUBSCRIBE): on a cluster every published message is broadcast to every node, so one
connection to any node sees every channel. Sharded pub/sub (SPUBLISH, SSUBSCRIBE): a message stays on the shard of
its channel's slot (a table's channel shares its keys' hash tag, keys.py), so the hub subscribes each channel on the
primary that owns its slot, one connection per primary, and routes its channels again when a slot moves or a
replica takes over (`refresh`).

MANAFORGE_SHARDED_PUBSUB picks the mode (`pubsub_mode`): `on` (the default on a cluster: `auto`) publishes and
subscribes sharded; `off` on one Redis is plain pub/sub, and `off` on a cluster is the bridge of a rolling upgrade
from 0.2.0 (which PUBLISHes and SUBSCRIBEs): it publishes both ways and subscribes both ways, so a process set `off`
feeds, and hears, both a 0.2.0 process and one set `on` (the hub drops the second copy of a commit by its version).
"""

from __future__ import annotations

import contextlib
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.exceptions import RedisError


def pubsub_mode(setting: str, cluster: bool) -> tuple[str, tuple[bool, ...]]:
    """How commits are published ("p": PUBLISH, "s": SPUBLISH, "ps": both; commit.lua) and how their channels are
    subscribed (False: SUBSCRIBE, True: SSUBSCRIBE), for the setting's value ("auto", "on" or "off")."""
    if setting == "on" or (setting == "auto" and cluster):
        return "s", (True,)
    if cluster:
        return "ps", (False, True)  # off on a cluster: the upgrade's bridge
    return "p", (False,)


def version_of(data: bytes) -> int:
    """The version of a published commit, read from its first bytes (Commit field 1, a varint, serialized first)
    without decoding the rest; -1 when it does not start there (version 0, or not a commit): decode it whole."""
    if len(data) < 2 or data[0] != 0x08:
        return -1
    version = shift = 0
    for byte in data[1:11]:
        version |= (byte & 0x7F) << shift
        if byte < 0x80:
            return version
        shift += 7
    return -1


class Routes:
    def __init__(self, client: Any, kinds: tuple[bool, ...] = (False,)) -> None:
        self._client = client
        self.kinds = kinds  # how each channel is subscribed: SUBSCRIBE (False), SSUBSCRIBE (True), or both
        self._turn = 0

    @property
    def is_cluster(self) -> bool:
        return isinstance(self._client, RedisCluster)

    def node_of(self, name: str, sharded: bool) -> str:
        """The node ("host:port") whose connection carries channel `name` subscribed that way; "" for any node (plain
        pub/sub, or one Redis)."""
        if not (sharded and self.is_cluster):
            return ""
        return str(self._client.get_node_from_key(name).name)

    def connection(self, node: str) -> aioredis.Connection:
        """A new connection (not yet connected) to `node`. For "" on a cluster, each new connection goes to the next
        node, which moves a plain subscriber off a node that died."""
        if not self.is_cluster:  # the pool's own class: a Unix socket's (unix://) or TLS's (rediss://) as the URL says
            pool = self._client.connection_pool
            single: aioredis.Connection = pool.connection_class(**pool.connection_kwargs)
            return single
        if node:
            host, _, port = node.rpartition(":")
            kwargs = self._client.nodes_manager.connection_kwargs
            target = self._client.get_node(node_name=node) or ClusterNode(host, int(port), **kwargs)
        else:
            nodes = self._client.get_nodes()
            self._turn += 1
            target = nodes[self._turn % len(nodes)]
        connection: aioredis.Connection = target.connection_class(**target.connection_kwargs)
        return connection

    async def refresh(self) -> None:
        """Read the cluster's slot map again (after a subscriber's node was lost or gave its channels up)."""
        if self.is_cluster:
            with contextlib.suppress(RedisError):  # no node answered yet: the subscriber retries, and refreshes again
                await self._client.nodes_manager.initialize()
