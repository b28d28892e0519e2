"""The game data on a Redis Cluster of three primaries, each with a replica: the keys spread over the primaries, the
loss of a primary mid-game loses no acknowledged move (its replica takes over; every commit waited for it), and a
commit's message stays on its table's shard (sharded pub/sub), through a failover too."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

import grpc
import pytest
import redis
from manaforge.v1 import gateway_pb2 as gw
from manaforge.v1.common_pb2 import Event
from manaforge.v1.gateway_pb2 import LoggedAction
from redis.crc import key_slot

from deploy.launcher import LOOPBACK_LIMITS, Stack, wait_for_cluster
from gateway.client import Client
from services.tables import keys
from tests.stack.helpers import cardbench_table, first_legal

T = TypeVar("T")
TRANSIENT = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.INTERNAL)


@pytest.fixture(scope="module")
def cluster() -> Iterator[Stack]:
    with Stack(cluster=3, gateways=2, settings=LOOPBACK_LIMITS) as running:
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
    """And a watcher on the other gateway, subscribed on the lost primary, follows the table to its new one."""
    with Client(cluster.gateway_addresses[0]) as client, ThreadPoolExecutor(1) as pool:
        table_id, ann, bob = cardbench_table(client)
        watcher = watched(pool, cluster, table_id, 30)
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
        updates = watcher.result(60)
    check_every_update(updates, cluster, table_id)
    assert primary_of(cluster, keys.table_keys(table_id)["live"]) != primary  # its replica took over
    stored = cluster.data_redis().lrange(keys.table_keys(table_id)["log"], 0, -1)
    logged = [LoggedAction.FromString(raw) for raw in stored]
    assert [(x.version, x.client_action_id) for x in logged] == acked  # every acknowledged move, once, in order
    assert [version for version, _ in acked] == list(range(1, 31))


def bus_messages(stack: Stack) -> dict[str, int]:
    """Cluster bus messages sent so far, summed over the nodes: "publish" (PUBLISH, to every node) and "publishshard"
    (SPUBLISH, to the shard's replicas)."""
    sums = {"publish": 0, "publishshard": 0}
    for node in stack.cluster_nodes:
        info: Any = redis.Redis.from_url(f"redis://{node}/0").execute_command("CLUSTER INFO")  # type: ignore[no-untyped-call]
        for kind in sums:
            sums[kind] += int(info.get(f"cluster_stats_messages_{kind}_sent", 0))
    return sums


def replica_of(stack: Stack, primary: str) -> str:
    for node in stack.cluster_nodes:
        replication = redis.Redis.from_url(f"redis://{node}/0").info("replication")
        if f"{replication.get('master_host')}:{replication.get('master_port')}" == primary:
            return node
    raise AssertionError(f"no replica of {primary}")


def watch_until(address: str, table_id: str, version: int, opened: threading.Event) -> list[gw.WatchUpdate]:
    """A spectator's Watch stream on `address` until it shows `version` (DEADLINE_EXCEEDED if it stops short)."""
    updates = []
    with Client(address) as watcher:
        for update in watcher.stub.Watch(gw.WatchRequest(table_id=table_id), timeout=30):
            updates.append(update)
            opened.set()
            if update.view.version >= version:
                return updates
    raise AssertionError(f"the stream of {table_id} ended at {updates[-1].view.version if updates else None}")


def watched(
    pool: ThreadPoolExecutor, stack: Stack, table_id: str, version: int, gateway: int = 1
) -> Future[list[gw.WatchUpdate]]:
    """A watcher on a gateway (the second one unless told), its stream open (its first update in) when this returns."""
    opened = threading.Event()
    future = pool.submit(watch_until, stack.gateway_addresses[gateway], table_id, version, opened)
    assert opened.wait(20), "the watch did not open"
    return future


def check_every_update(updates: list[gw.WatchUpdate], stack: Stack, table_id: str) -> None:
    """Every public event arrived once, in order, and the views only moved forward."""
    stored = [
        Event.FromString(fields[b"e"]) for _, fields in stack.data_redis().xrange(keys.table_keys(table_id)["events"])
    ]
    assert [e.seq for u in updates for e in u.events] == [e.seq for e in stored if not e.HasField("audience")]
    versions = [u.view.version for u in updates]
    assert versions == sorted(set(versions))


def test_a_watcher_on_another_gateway_sees_moves_on_every_primary_and_no_message_leaves_its_shard(
    cluster: Stack,
) -> None:
    moves = 6
    primaries = {primary for _, _, primary in cluster.slot_map()}
    with Client(cluster.gateway_addresses[0]) as mover:
        by_primary: dict[str, tuple[str, str, str]] = {}
        while len(by_primary) < len(primaries):  # a table on each primary
            table = cardbench_table(mover)
            by_primary.setdefault(primary_of(cluster, keys.channel(table[0])), table)
        with ThreadPoolExecutor(len(by_primary)) as pool:
            watchers = {t[0]: watched(pool, cluster, t[0], moves) for t in by_primary.values()}
            before = bus_messages(cluster)
            for table_id, ann, bob in by_primary.values():
                for move in range(moves):
                    token = (ann, bob)[move % 2]
                    mover.submit(table_id, token, first_legal(mover, table_id, token))
            streams = {table_id: watcher.result(60) for table_id, watcher in watchers.items()}
            after = bus_messages(cluster)
    for table_id, updates in streams.items():
        check_every_update(updates, cluster, table_id)
        assert updates[-1].view.version == moves
    assert after["publish"] == before["publish"]  # no message broadcast to every node
    assert after["publishshard"] > before["publishshard"]  # each went to its shard's replica only


def test_a_watcher_gets_every_update_across_a_failover_of_its_tables_primary(cluster: Stack) -> None:
    moves = 20
    with Client(cluster.gateway_addresses[0]) as mover, ThreadPoolExecutor(1) as pool:
        table_id, ann, bob = cardbench_table(mover)
        primary = primary_of(cluster, keys.channel(table_id))
        watcher = watched(pool, cluster, table_id, moves)
        for move in range(moves):
            if move == 8:  # the replica takes over (its old primary becomes its replica): the slot changes owner
                redis.Redis.from_url(f"redis://{replica_of(cluster, primary)}/0").execute_command("CLUSTER FAILOVER")  # type: ignore[no-untyped-call]
                deadline = time.monotonic() + 20
                while primary_of(cluster, keys.channel(table_id)) == primary and time.monotonic() < deadline:
                    time.sleep(0.05)
                assert primary_of(cluster, keys.channel(table_id)) != primary
            token = (ann, bob)[move % 2]
            action = retried(lambda: first_legal(mover, table_id, token))  # noqa: B023  (called at once)
            retried(lambda: mover.submit(table_id, token, action, f"across-{move}"))  # noqa: B023
        updates = watcher.result(60)
    check_every_update(updates, cluster, table_id)
    assert updates[-1].view.version == moves
    wait_for_cluster(cluster.cluster_nodes)  # the old primary back as a replica, for the tests after this one


def play(client: Client, table_id: str, tokens: tuple[str, str], moves: int) -> None:
    for _ in range(moves):
        seat = client.table(table_id).pending.seats[0]
        client.submit(table_id, tokens[seat], first_legal(client, table_id, tokens[seat]))


def test_mid_upgrade_a_gateway_set_off_feeds_and_hears_gateways_set_on_and_of_0_2_0(cluster: Stack) -> None:
    """The rolling upgrade's bridge (docs/scaling.md): the second gateway set off, the first on (auto), and a plain
    SUBSCRIBE standing for a gateway of 0.2.0. Each watcher's updates come only through pub/sub (moves through the
    other gateway), phase by phase, so a path that is missing stalls its watcher."""
    cluster.settings["MANAFORGE_SHARDED_PUBSUB"] = "off"
    cluster.restart("gateway-1")
    try:
        with Client(cluster.gateway_addresses[0]) as on, Client(cluster.gateway_addresses[1]) as off:
            table_id, ann, bob = cardbench_table(on)
            old = redis.Redis.from_url(f"redis://{cluster.cluster_nodes[0]}/0").pubsub()  # type: ignore[no-untyped-call]
            old.subscribe(keys.channel(table_id))
            with ThreadPoolExecutor(1) as pool:
                hearing_on = watched(pool, cluster, table_id, 4, gateway=1)  # the gateway set off
                play(on, table_id, (ann, bob), 4)  # SPUBLISHed only
                check_every_update(hearing_on.result(30), cluster, table_id)
                hearing_off = watched(pool, cluster, table_id, 8, gateway=0)  # the gateway set on
                play(off, table_id, (ann, bob), 4)  # PUBLISHed and SPUBLISHed
                assert hearing_off.result(30)[-1].view.version == 8
            heard, deadline = [], time.monotonic() + 1.0
            while time.monotonic() < deadline:  # what came (None: nothing yet, or the subscription's confirmation)
                message = old.get_message(ignore_subscribe_messages=True, timeout=0.1)
                heard += [message] if message is not None else []
            old.close()
        assert len(heard) == 4  # 0.2.0's gateways hear every commit of a gateway set off
    finally:
        del cluster.settings["MANAFORGE_SHARDED_PUBSUB"]
        cluster.restart("gateway-1")


def move_slot(stack: Stack, slot: int, target: str) -> None:
    """Resharding by hand: `slot` and its keys from their primary to `target`, another primary (the steps of
    `redis-cli --cluster reshard` for one slot)."""
    source = next(primary for start, end, primary in stack.slot_map() if start <= slot <= end)
    nodes = {address: redis.Redis.from_url(f"redis://{address}/0") for _, _, address in stack.slot_map()}
    ids = {address: node.execute_command("CLUSTER MYID").decode() for address, node in nodes.items()}  # type: ignore[no-untyped-call]
    nodes[target].execute_command("CLUSTER SETSLOT", slot, "IMPORTING", ids[source])  # type: ignore[no-untyped-call]
    nodes[source].execute_command("CLUSTER SETSLOT", slot, "MIGRATING", ids[target])  # type: ignore[no-untyped-call]
    host, port = target.rsplit(":", 1)
    while names := nodes[source].execute_command("CLUSTER GETKEYSINSLOT", slot, 100):  # type: ignore[no-untyped-call]
        nodes[source].execute_command("MIGRATE", host, port, "", 0, 5000, "KEYS", *names)  # type: ignore[no-untyped-call]
    for address in sorted(nodes, key=lambda a: (a != target, a != source)):  # the target first, then the source
        nodes[address].execute_command("CLUSTER SETSLOT", slot, "NODE", ids[target])  # type: ignore[no-untyped-call]


def test_a_watcher_follows_its_table_when_its_slot_moves_to_another_primary(cluster: Stack) -> None:
    moves = 12
    with Client(cluster.gateway_addresses[0]) as mover, ThreadPoolExecutor(1) as pool:
        table_id, ann, bob = cardbench_table(mover)
        slot = key_slot(keys.channel(table_id).encode())
        primary = primary_of(cluster, keys.channel(table_id))
        watcher = watched(pool, cluster, table_id, moves)
        play(mover, table_id, (ann, bob), moves // 2)
        move_slot(cluster, slot, next(p for _, _, p in cluster.slot_map() if p != primary))
        assert primary_of(cluster, keys.channel(table_id)) != primary
        for move in range(moves // 2, moves):  # the gateway learns the new owner (MOVED); a move is retried meanwhile
            token = (ann, bob)[move % 2]
            action = retried(lambda: first_legal(mover, table_id, token))  # noqa: B023  (called at once)
            retried(lambda: mover.submit(table_id, token, action, f"moved-{move}"))  # noqa: B023
        updates = watcher.result(60)
    check_every_update(updates, cluster, table_id)
    assert updates[-1].view.version == moves
