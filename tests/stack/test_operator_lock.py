"""The operator key cannot be guessed at the gateways (docs/operations.md, "Wrong operator keys"): against the real
stack of two gateways sharing one Redis (or a cluster), wrong keys are counted at every gateway together, per key
and over all; the lock refuses unchecked with the time left, is in the audit log, and ends by itself."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from manaforge.v1 import admin_pb2
from manaforge.v1.admin_pb2_grpc import AdminStub

from deploy.launcher import LOOPBACK_LIMITS, Stack
from services.bootstrap import data_client
from services.tables import keys
from services.tables.operations import KEY_LOCK, KEY_TRIES, KEY_TRIES_ONE
from services.tables.portal import Portal
from tests.stack.helpers import rpc_error

KEY = "test-operator-key-lock"
OPERATOR = (("x-operator-key", KEY), ("x-operator-name", "olga"))
LEFT = re.compile(r"for (\d+) s more")


@pytest.fixture(scope="module", params=["redis", "cluster"])
def ops_stack(request: pytest.FixtureRequest) -> Iterator[Stack]:
    settings = {**LOOPBACK_LIMITS, "MANAFORGE_OPERATOR_KEY": KEY}
    cluster = 3 if request.param == "cluster" else 0
    with Stack(gateways=2, worker_concurrency=1, settings=settings, cluster=cluster) as running:
        yield running


@pytest.fixture(scope="module")
def redis(ops_stack: Stack) -> Iterator[Any]:
    """The stack's game data, called plainly: `redis("pttl", key)`."""
    portal = Portal()
    client = portal.run(_client(ops_stack))

    def call(command: str, *args: Any) -> Any:
        return portal.run(getattr(client, command)(*args))

    yield call
    portal.run(client.aclose())
    portal.close()


async def _client(stack: Stack) -> Any:
    return data_client(stack.data_settings())


@pytest.fixture
def admins(ops_stack: Stack, redis: Any) -> Iterator[list[AdminStub]]:
    """The Admin service of each gateway, with no wrong keys counted yet (each test starts afresh)."""
    for key in (keys.operator_key_lock(), keys.operator_key_tries()):
        redis("delete", key)
    channels = [grpc.insecure_channel(address) for address in ops_stack.gateway_addresses]
    yield [AdminStub(channel) for channel in channels]
    for channel in channels:
        channel.close()
    redis("delete", keys.operator_key_lock(), keys.operator_key_tries())


def overview(admin: AdminStub, key: str) -> Any:
    return admin.GetOverview(admin_pb2.GetOverviewRequest(), metadata=(("x-operator-key", key),))


def audited(admin: AdminStub) -> list[admin_pb2.AuditEntry]:
    entries = admin.GetAuditLog(admin_pb2.GetAuditLogRequest(limit=20), metadata=OPERATOR).entries
    return [e for e in entries if e.action == "OperatorKeyLocked"]


def test_one_key_tried_too_often_at_either_gateway_is_locked_and_audited(admins: list[AdminStub]) -> None:
    before = len(audited(admins[0]))
    for i in range(KEY_TRIES_ONE):  # the same guess, at one gateway then the other
        wrong = rpc_error(overview, admins[i % 2], "guess-one")
        assert wrong.code() == grpc.StatusCode.PERMISSION_DENIED and "wrong key" in wrong.details()
    for admin in admins:
        locked = rpc_error(overview, admin, "guess-one")
        assert locked.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, locked.details()
        assert f"this key was wrong {KEY_TRIES_ONE} times" in locked.details()
        found = LEFT.search(locked.details())
        assert found and 0 < int(found.group(1)) <= KEY_LOCK, locked.details()
    assert overview(admins[1], KEY).gateways  # the right key is not that key: it goes on working
    other = rpc_error(overview, admins[0], "another-guess")
    assert other.code() == grpc.StatusCode.PERMISSION_DENIED  # nor is any other key
    entries = audited(admins[1])
    assert len(entries) == before + 1 and entries[0].who.startswith("gateway ")
    assert f"wrong {KEY_TRIES_ONE} times" in entries[0].what and "locked for 60 s" in entries[0].what


def test_many_wrong_keys_lock_every_admin_call_for_a_while_at_every_gateway(
    admins: list[AdminStub], redis: Any
) -> None:
    before = len(audited(admins[0]))
    assert overview(admins[0], KEY).gateways  # the right key does not count
    for i in range(KEY_TRIES):  # each guess different, spread over both gateways
        wrong = rpc_error(overview, admins[i % 2], f"guess-{i}")
        assert wrong.code() == grpc.StatusCode.PERMISSION_DENIED, (i, wrong.details())
    for admin in admins:
        for key in ("guess-next", KEY):  # unchecked: the right key too
            locked = rpc_error(overview, admin, key)
            assert locked.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, locked.details()
            assert f"{KEY_TRIES} wrong keys" in locked.details() and "the right key too" in locked.details()
    left = redis("pttl", keys.operator_key_lock())
    assert 0 < left <= KEY_LOCK * 1000  # it ends by itself
    redis("delete", keys.operator_key_lock())  # ... as if the cool-down were over
    assert overview(admins[1], KEY).gateways
    entries = audited(admins[0])
    assert len(entries) == before + 1 and f"{KEY_TRIES} wrong operator keys" in entries[0].what


def test_keys_sent_at_once_are_checked_at_most_to_the_limit(admins: list[AdminStub], ops_stack: Stack) -> None:
    """A hundred wrong keys at once at both gateways: no more than the limit are checked (the others are refused
    unchecked), so guessing in parallel gains nothing."""
    futures = [
        admin.GetOverview.future(admin_pb2.GetOverviewRequest(), metadata=(("x-operator-key", f"rush-{i}"),))
        for i in range(50)
        for admin in admins
    ]
    codes = []
    for future in futures:
        with pytest.raises(grpc.RpcError) as refused:
            future.result(timeout=60)
        codes.append(refused.value.code())
    assert codes.count(grpc.StatusCode.PERMISSION_DENIED) <= KEY_TRIES
    assert codes.count(grpc.StatusCode.RESOURCE_EXHAUSTED) >= len(codes) - KEY_TRIES
