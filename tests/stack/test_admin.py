"""The operator's console against the real stack (docs/operations.md): every Admin call and what players notice of
it, and callers without the operator key refused."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from manaforge.v1 import admin_pb2, gateway_pb2
from manaforge.v1.admin_pb2_grpc import AdminStub

from deploy.launcher import LOOPBACK_LIMITS, Stack
from gateway.client import Client
from tests.stack.helpers import cardbench_table, first_legal, rpc_error, scrape, value

KEY = "test-operator-key-7f3a"
OPERATOR = (("x-operator-key", KEY), ("x-operator-name", "anna"))
MANAFORGE = str(Path(sys.executable).parent / "manaforge")


@pytest.fixture(scope="module", params=["redis", "cluster"])
def ops_stack(request: pytest.FixtureRequest) -> Iterator[Stack]:
    """Two gateways with the operator key; the game data on one Redis, then on a cluster of three primaries."""
    settings = {**LOOPBACK_LIMITS, "MANAFORGE_OPERATOR_KEY": KEY}
    cluster = 3 if request.param == "cluster" else 0
    with Stack(
        gateways=2, worker_concurrency=2, response_timeout=30.0, settings=settings, metrics=True, cluster=cluster
    ) as running:
        yield running


@pytest.fixture
def admin(ops_stack: Stack) -> Iterator[AdminStub]:
    with grpc.insecure_channel(ops_stack.gateway_addresses[0]) as channel:
        yield AdminStub(channel)


@pytest.fixture
def client(ops_stack: Stack) -> Iterator[Client]:
    with Client(ops_stack.gateway_addresses[0]) as c:
        yield c


def eventually(check: Callable[[], Any], timeout: float = 15.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        try:
            result = check()
            if result:
                return result
        except (AssertionError, grpc.RpcError):
            if time.monotonic() > deadline:
                raise
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s")
        time.sleep(0.2)


def test_a_caller_without_the_operator_key_is_refused_and_nothing_changes(admin: AdminStub, client: Client) -> None:
    before = len(admin.GetAuditLog(admin_pb2.GetAuditLogRequest(), metadata=OPERATOR).entries)
    no_key = rpc_error(admin.SetNotice, admin_pb2.SetNoticeRequest(text="free gold"))
    assert no_key.code() == grpc.StatusCode.UNAUTHENTICATED and "x-operator-key" in no_key.details()
    wrong = rpc_error(admin.SetNotice, admin_pb2.SetNoticeRequest(text="x"), metadata=(("x-operator-key", "guess"),))
    assert wrong.code() == grpc.StatusCode.PERMISSION_DENIED and "wrong key" in wrong.details()
    for i, (call, request) in enumerate(
        [
            (admin.GetOverview, admin_pb2.GetOverviewRequest()),
            (admin.GetAuditLog, admin_pb2.GetAuditLogRequest()),
            (admin.DrainGateway, admin_pb2.DrainGatewayRequest()),
            (admin.EndTable, admin_pb2.EndTableRequest(table_id="x")),
        ]
    ):  # a key of its own each: no key reaches the lock (tests/stack/test_operator_lock.py)
        assert (
            rpc_error(call, request, metadata=(("x-operator-key", f"guess-{i}"),)).code()
            == grpc.StatusCode.PERMISSION_DENIED
        )
    assert client.list_games().notice == ""
    assert len(admin.GetAuditLog(admin_pb2.GetAuditLogRequest(), metadata=OPERATOR).entries) == before


def test_the_overview_shows_tables_queues_outbox_gateways_and_workers(
    ops_stack: Stack, admin: AdminStub, client: Client
) -> None:
    table_id, token, _ = cardbench_table(client)
    client.submit(table_id, token, first_legal(client, table_id, token))
    ticket = client.stub.JoinQueue(gateway_pb2.JoinQueueRequest(game="cardbench", seats=2, player_name="dora"))
    watcher = client.watch(table_id)
    next(watcher)  # one stream open on the first gateway

    def seen() -> admin_pb2.Overview | None:
        overview = admin.GetOverview(admin_pb2.GetOverviewRequest(), metadata=OPERATOR)
        ready = overview.workers and len(overview.gateways) == 2 and overview.streams_online >= 1
        return overview if ready else None

    overview = eventually(seen)
    cardbench = next(t for t in overview.tables if t.game == "cardbench")
    assert cardbench.playing >= 1
    queue = next(q for q in overview.queues if q.queue.startswith("q.cardbench.2."))
    assert queue.waiting == 1 and queue.oldest_wait_seconds > 0
    ports = {address.rsplit(":", 1)[1] for address in ops_stack.gateway_addresses}  # named HOST:PORT (their id)
    assert {g.address.rsplit(":", 1)[1] for g in overview.gateways} == ports
    assert overview.outbox_items >= 1  # at least the open table's abandonment and the human's clock
    assert overview.outbox_lag_seconds < 10
    assert "refusals:PERMISSION_DENIED" not in overview.errors or overview.errors["refusals:PERMISSION_DENIED"] >= 0
    client.stub.LeaveQueue(gateway_pb2.LeaveQueueRequest(ticket_id=ticket.ticket_id))
    watcher.cancel()  # type: ignore[attr-defined]


def test_ending_a_table_records_an_operator_abort_that_watchers_see_and_nobody_is_rated(
    ops_stack: Stack, admin: AdminStub
) -> None:
    with Client(ops_stack.gateway_addresses[0]) as guest:
        players = [guest.stub.RegisterPlayer(gateway_pb2.RegisterPlayerRequest(name=n)) for n in ("erin", "fay")]
    seated = [Client(ops_stack.gateway_addresses[0], (p.player_id, p.secret_key)) for p in players]
    try:
        created = seated[0].create_table("cardbench", 2, player_name="erin")
        table_id = created.table.table_id
        joined = seated[1].join(table_id, "fay")
        tokens = [created.seat_token, joined.seat_token]
        for _ in range(3):
            for i, token in enumerate(tokens):
                if seated[i].view(table_id, token).legal_actions:
                    seated[i].submit(table_id, token, first_legal(seated[i], table_id, token))
        watched: list[gateway_pb2.WatchUpdate] = []
        stream = seated[1].watch(table_id, tokens[1])
        reader = threading.Thread(target=lambda: watched.extend(stream), daemon=True)
        reader.start()
        eventually(lambda: watched)
        mover = next(i for i, token in enumerate(tokens) if seated[i].view(table_id, token).legal_actions)
        unplayed = first_legal(seated[mover], table_id, tokens[mover])
        done = admin.EndTable(admin_pb2.EndTableRequest(table_id=table_id), metadata=OPERATOR)
        assert f"table {table_id} aborted" in done.done
        reader.join(15)
        assert not reader.is_alive()  # the watcher's stream ended with the game
        assert watched[-1].view.outcome.finished and watched[-1].view.outcome.reason == "aborted by the operator"
        table = seated[0].wait_finished(table_id, 30)
        assert list(table.outcome.winners) == [] and table.outcome.reason == "aborted by the operator"
        assert table.replay_verdict.startswith("valid:") and "then aborted by the operator" in table.replay_verdict
        late = rpc_error(seated[mover].submit, table_id, tokens[mover], unplayed)
        assert late.code() == grpc.StatusCode.FAILED_PRECONDITION, late.details()
        again = rpc_error(admin.EndTable, admin_pb2.EndTableRequest(table_id=table_id), metadata=OPERATOR)
        assert again.code() == grpc.StatusCode.FAILED_PRECONDITION and "already finished" in again.details()
        missing = rpc_error(admin.EndTable, admin_pb2.EndTableRequest(table_id="nosuchtable"), metadata=OPERATOR)
        assert missing.code() == grpc.StatusCode.NOT_FOUND
        time.sleep(1.0)  # a rating would have been written with the verdict
        for client, player in zip(seated, players, strict=True):
            assert not client.stub.GetPlayer(gateway_pb2.GetPlayerRequest(player_id=player.player_id)).ratings
    finally:
        for client in seated:
            client.close()


def test_a_muted_player_may_play_but_not_start_and_a_banned_player_is_refused(
    ops_stack: Stack, admin: AdminStub, client: Client
) -> None:
    player = client.stub.RegisterPlayer(gateway_pb2.RegisterPlayerRequest(name="gus"))
    with Client(ops_stack.gateway_addresses[1], (player.player_id, player.secret_key)) as gus:
        created = gus.create_table("cardbench", 2, player_name="gus")
        table_id, token = created.table.table_id, created.seat_token
        client.join(table_id, "hal")

        def standing(value: admin_pb2.Standing.ValueType) -> None:
            request = admin_pb2.SetPlayerStandingRequest(player_id=player.player_id, standing=value, reason="spam")
            admin.SetPlayerStanding(request, metadata=OPERATOR)

        standing(admin_pb2.STANDING_MUTED)
        muted = eventually(lambda: rpc_error(gus.create_table, "cardbench", 2, player_name="gus"))
        assert muted.code() == grpc.StatusCode.PERMISSION_DENIED and "muted by the operator" in muted.details()
        queued = rpc_error(
            gus.stub.JoinQueue, gateway_pb2.JoinQueueRequest(game="cardbench", seats=2, player_name="gus")
        )
        assert queued.code() == grpc.StatusCode.PERMISSION_DENIED
        assert gus.view(table_id, token).seat == 0  # the game under way goes on
        if gus.view(table_id, token).legal_actions:
            gus.submit(table_id, token, first_legal(gus, table_id, token))

        standing(admin_pb2.STANDING_BANNED)
        banned = eventually(lambda: rpc_error(gus.view, table_id, token))
        assert banned.code() == grpc.StatusCode.PERMISSION_DENIED and "banned by the operator" in banned.details()
        assert rpc_error(gus.stub.GetPlayer, gateway_pb2.GetPlayerRequest()).code() == grpc.StatusCode.PERMISSION_DENIED
        overview = admin.GetOverview(admin_pb2.GetOverviewRequest(), metadata=OPERATOR)
        assert player.player_id in overview.banned

        standing(admin_pb2.STANDING_UNSPECIFIED)
        eventually(lambda: gus.create_table("cardbench", 2, player_name="gus"))
    unknown = admin_pb2.SetPlayerStandingRequest(player_id="nobody", standing=admin_pb2.STANDING_BANNED)
    assert rpc_error(admin.SetPlayerStanding, unknown, metadata=OPERATOR).code() == grpc.StatusCode.NOT_FOUND
    entries = admin.GetAuditLog(admin_pb2.GetAuditLogRequest(limit=3), metadata=OPERATOR).entries
    assert [e.action for e in entries] == ["SetPlayerStanding"] * 3
    assert entries[0].what.endswith("in good standing: spam") and entries[0].who.startswith("anna (")


def test_a_maintenance_notice_reaches_clients_and_the_terminal_client_shows_it(
    ops_stack: Stack, admin: AdminStub, client: Client
) -> None:
    text = "Maintenance at 02:00 UTC: games pause for five minutes"
    admin.SetNotice(admin_pb2.SetNoticeRequest(text=text), metadata=OPERATOR)
    try:
        eventually(lambda: client.list_games().notice == text)
        env = {**os.environ, "MANAFORGE_GATEWAY": ops_stack.gateway_addresses[1]}
        shown = subprocess.run([MANAFORGE, "games"], capture_output=True, text=True, timeout=60, env=env)
        assert f"NOTICE: {text}" in shown.stdout.splitlines()[0]
        too_long = rpc_error(admin.SetNotice, admin_pb2.SetNoticeRequest(text="x" * 501), metadata=OPERATOR)
        assert too_long.code() == grpc.StatusCode.INVALID_ARGUMENT and "at most 500" in too_long.details()
        assert client.list_games().notice == text
    finally:
        admin.SetNotice(admin_pb2.SetNoticeRequest(text=""), metadata=OPERATOR)
    eventually(lambda: client.list_games().notice == "")
    assert admin.GetAuditLog(admin_pb2.GetAuditLogRequest(limit=1), metadata=OPERATOR).entries[0].what == (
        "notice cleared"
    )


def test_draining_a_gateway_ends_its_streams_with_a_resume_point_and_stops_it(ops_stack: Stack, client: Client) -> None:
    table_id, _, _ = cardbench_table(client)
    address = ops_stack.gateway_addresses[1]
    with Client(address) as spectator, grpc.insecure_channel(address) as channel:
        stream = spectator.watch(table_id)
        next(stream)
        done = AdminStub(channel).DrainGateway(admin_pb2.DrainGatewayRequest(), metadata=OPERATOR)
        assert done.done.startswith("gateway ") and done.done.endswith(f":{address.rsplit(':', 1)[1]} draining")
        with pytest.raises(grpc.RpcError) as ended:
            for _ in stream:
                pass
        assert ended.value.code() == grpc.StatusCode.UNAVAILABLE
    process = ops_stack.processes["gateway-1"]
    assert process.wait(30) == 0  # stopped once drained (make run's launcher, or Kubernetes, starts it again)
    assert client.table(table_id).table_id == table_id  # the other gateway serves on


def test_each_gateway_keeps_the_gauges_the_alert_rules_watch(ops_stack: Stack, client: Client) -> None:
    """deploy/prometheus/alerts.yml reads these: Redis reachable, the outbox, the busiest address' streams."""
    table_id, _, _ = cardbench_table(client)  # an outbox item: its clock
    stream = client.watch(table_id)
    next(stream)

    def gauges() -> dict[str, float]:
        samples = scrape(ops_stack, "gateway-0")
        names = ("redis_up", "outbox_items", "outbox_lag_seconds", "streams_busiest_address", "streams_limit")
        return {name: value(samples, f"manaforge_{name}") for name in names}

    seen = eventually(lambda: (g := gauges())["streams_busiest_address"] >= 1 and g["outbox_items"] >= 1 and g)
    assert seen["redis_up"] == 1 and seen["streams_limit"] == 50000 and seen["outbox_lag_seconds"] < 10
    stream.cancel()  # type: ignore[attr-defined]


def test_the_console_command_reports_the_overview_and_refuses_without_the_key(ops_stack: Stack) -> None:
    console = [sys.executable, "-m", "gateway.cli.operator", "--gateway", ops_stack.gateway_addresses[0], "--as", "ida"]
    env = {**os.environ, "MANAFORGE_OPERATOR_KEY": KEY}
    shown = subprocess.run([*console, "overview"], capture_output=True, text=True, timeout=60, env=env)
    assert shown.returncode == 0, shown.stderr
    assert "outbox:" in shown.stdout and f":{ops_stack.gateway_addresses[0].rsplit(':', 1)[1]}: " in shown.stdout
    posted = subprocess.run([*console, "notice", "back soon"], capture_output=True, text=True, timeout=60, env=env)
    assert posted.stdout.strip() == "notice posted: back soon"
    audit = subprocess.run([*console, "audit", "--limit", "1"], capture_output=True, text=True, timeout=60, env=env)
    assert "ida (" in audit.stdout and "SetNotice: notice posted: back soon" in audit.stdout
    subprocess.run([*console, "notice", "--clear"], capture_output=True, text=True, timeout=60, env=env, check=True)
    env["MANAFORGE_OPERATOR_KEY"] = ""
    refused = subprocess.run([*console, "overview"], capture_output=True, text=True, timeout=60, env=env)
    assert refused.returncode == 1 and "UNAUTHENTICATED" in refused.stderr
