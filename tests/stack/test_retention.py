"""Nothing is left behind: a finished game folds into one archive record (still served), and a table nobody
comes to is removed with its listing."""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
from manaforge.v1 import gateway_pb2 as gw
from manaforge.v1.storage_pb2 import GameArchive

from deploy.launcher import LOOPBACK_LIMITS, Stack
from gateway.client import Client
from services.bootstrap import redis_client
from services.tables import keys
from services.tables.portal import Blocking
from services.tables.service import Tables
from services.tables.store import RedisStore
from tests.stack.helpers import rpc_error


@pytest.fixture(scope="module")
def short() -> Iterator[Stack]:
    settings = {**LOOPBACK_LIMITS, "MANAFORGE_ARCHIVE_AFTER": "0.5", "MANAFORGE_OPEN_TABLE_SECONDS": "1"}
    with Stack(gateways=1, settings=settings) as running:
        yield running


def table_keys(stack: Stack, table_id: str) -> list[str]:
    found: list[bytes] = stack.data_redis().keys(f"{keys.table_prefix(table_id)}:*")
    return sorted(k.decode() for k in found)


def wait_for(check: Callable[[], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline
        time.sleep(0.1)


def test_a_finished_game_is_archived_and_still_served(short: Stack, portal: Any) -> None:
    with Client(short.gateway_addresses[0]) as client:
        created = client.create_table("cardbench", 2, bots={0: "random", 1: "random"})
        table_id = created.table.table_id
        finished = client.wait_finished(table_id, 60)
        log_before = client.log(table_id)
        data = short.data_redis()
        live_keys = keys.table_keys(table_id)
        stored_events = [fields[b"e"] for _, fields in data.xrange(live_keys["events"])]
        stored_actions = data.lrange(live_keys["log"], 0, -1)
        wait_for(lambda: table_keys(short, table_id) == [keys.table_keys(table_id)["archive"]], 15)
        ttl = short.data_redis().ttl(keys.table_keys(table_id)["archive"])
        assert 0 < ttl <= 30 * 24 * 3600  # kept for a while, not for ever
        archive = GameArchive.FromString(zlib.decompress(data.get(live_keys["archive"])))
        assert [e.SerializeToString() for e in archive.events] == stored_events  # every event, in order
        assert [a.SerializeToString() for a in archive.actions] == stored_actions and len(stored_actions) == 100
        assert client.table(table_id) == finished  # the same answers as before it was archived
        assert client.log(table_id) == log_before
        assert client.view(table_id).outcome.finished
        updates = list(client.watch(table_id))
        assert len(updates) == 1 and updates[0].view.version == 100
        late = rpc_error(client.submit, table_id, "no-token", log_before.actions[0].action)
        assert late.code() == grpc.StatusCode.UNAUTHENTICATED
    tables = Blocking(Tables(RedisStore(redis_client(short.redis_url))), portal)
    verdict = tables.validate_replay(table_id)  # the archive alone replays to the same verdict
    assert verdict.ok and finished.replay_verdict == str(verdict)
    assert table_keys(short, table_id) == [keys.table_keys(table_id)["archive"]]  # and leaves nothing behind
    outbox = short.data_redis().zrange(keys.outbox(keys.shard_of(table_id)), 0, -1)
    assert not [i for i in outbox if table_id.encode() in i]  # no work left for it


def test_a_table_nobody_joins_is_removed_with_its_listing(short: Stack) -> None:
    with Client(short.gateway_addresses[0]) as client:
        created = client.create_table("cardbench", 2, player_name="waiting")
        table_id = created.table.table_id
        listed = client.stub.ListTables(gw.ListTablesRequest(game="cardbench")).tables
        assert table_id in [t.table_id for t in listed]
        wait_for(lambda: table_keys(short, table_id) == [], 15)
        listed = client.stub.ListTables(gw.ListTablesRequest(game="cardbench")).tables
        assert table_id not in [t.table_id for t in listed]
        gone = rpc_error(client.table, table_id)
        assert gone.code() == grpc.StatusCode.NOT_FOUND
