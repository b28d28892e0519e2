"""The game data on a Redis Cluster of three primaries, each with a replica: the keys spread over the primaries, and
the loss of a primary mid-game loses no acknowledged move (its replica takes over; every commit waited for it)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import TypeVar

import grpc
import pytest
import redis
from manaforge.v1 import gateway_pb2 as gw
from manaforge.v1.gateway_pb2 import LoggedAction
from redis.crc import key_slot

from deploy.launcher import LOOPBACK_LIMITS, Stack
from gateway.client import Client
from services.tables import keys
from tests.stack.helpers import cardbench_table, first_legal

T = TypeVar("T")
TRANSIENT = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.INTERNAL)


@pytest.fixture(scope="module")
def cluster() -> Iterator[Stack]:
    with Stack(cluster=3, gateways=1, settings=LOOPBACK_LIMITS) as running:
        yield running


def primary_of(stack: Stack, key: str) -> str:
    slot = key_slot(key.encode())
    return next(primary for start, end, primary in stack.slot_map() if start <= slot <= end)


def retried(call: Callable[[], T], seconds: float = 30.0) -> T:
    """A call tried again while the cluster fails over (UNAVAILABLE: nothing was acknowledged)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            return call()
        except grpc.RpcError as exc:
            if exc.code() not in TRANSIENT or time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def test_tables_spread_over_every_primary(cluster: Stack) -> None:
    with Client(cluster.gateway_addresses[0]) as client:
        table_ids = [client.create_table("cardbench", 2, player_name="ann").table.table_id for _ in range(48)]
        listed = client.stub.ListTables(gw.ListTablesRequest(page_size=100))
    primaries = {primary for _, _, primary in cluster.slot_map()}
    assert len(primaries) == 3
    holders = {primary_of(cluster, keys.table_keys(t)["live"]) for t in table_ids}
    assert holders == primaries  # 48 tables over 16 shards: every primary holds some
    sizes = [int(redis.Redis.from_url(f"redis://{p}/0").dbsize()) for p in sorted(primaries)]
    assert min(sizes) > 0
    assert set(table_ids) <= {t.table_id for t in listed.tables}  # one listing, read across the shards


def test_a_primary_lost_mid_game_loses_no_acknowledged_move(cluster: Stack) -> None:
    with Client(cluster.gateway_addresses[0]) as client:
        table_id, ann, bob = cardbench_table(client)
        tokens = [ann, bob]
        primary = primary_of(cluster, keys.table_keys(table_id)["live"])
        victim = f"redis-node-{cluster.cluster_nodes.index(primary)}"
        acked: list[tuple[int, str]] = []

        def replace_victim() -> None:
            """What an operator (or Kubernetes) does: once the replica has taken over, start the lost node again;
            it rejoins as the new primary's replica, and moves are acknowledged again once it has them."""
            deadline = time.monotonic() + 30
            while primary_of(cluster, keys.table_keys(table_id)["live"]) == primary and time.monotonic() < deadline:
                time.sleep(0.1)
            cluster.restart(victim)

        for move in range(30):
            if move == 10:
                cluster.processes[victim].kill()  # the primary holding this table dies at once
                threading.Thread(target=replace_victim, daemon=True).start()
            seat, cid = move % 2, f"failover-{move}"
            action = retried(lambda: first_legal(client, table_id, tokens[seat]))  # noqa: B023  (called at once)
            done = retried(lambda: client.submit(table_id, tokens[seat], action, cid))  # noqa: B023
            acked.append((done.version, cid))
    assert primary_of(cluster, keys.table_keys(table_id)["live"]) != primary  # its replica took over
    stored = cluster.data_redis().lrange(keys.table_keys(table_id)["log"], 0, -1)
    logged = [LoggedAction.FromString(raw) for raw in stored]
    assert [(x.version, x.client_action_id) for x in logged] == acked  # every acknowledged move, once, in order
    assert [version for version, _ in acked] == list(range(1, 31))
