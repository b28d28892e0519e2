"""What an operator sees: Prometheus metrics from every service, one JSON log line per refusal (no secrets), and a
health check that tells the truth about Redis."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from manaforge.v1 import gateway_pb2 as gw
from manaforge.v1 import rules_pb2
from manaforge.v1.common_pb2 import GameConfig
from manaforge.v1.rules_pb2_grpc import RulesServiceStub

from deploy.launcher import LOOPBACK_LIMITS, Stack, wait_for_redis
from gateway.client import Client
from tests.stack.helpers import cardbench_table, first_legal, play, rpc_error, scrape, value


@pytest.fixture(scope="module")
def observed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    logs = tmp_path_factory.mktemp("logs")
    collecting = {**LOOPBACK_LIMITS, "MANAFORGE_GC_THRESHOLDS": "500,10,10"}  # young collections in a short test
    with Stack(gateways=1, metrics=True, log_dir=str(logs), settings=collecting) as running:
        yield running


def test_every_service_reports_its_work(observed: Stack) -> None:
    with Client(observed.gateway_addresses[0]) as client:
        table_id, ann, bob = cardbench_table(client)
        watcher = client.watch(table_id, bob)
        next(watcher)
        client.submit(table_id, ann, first_legal(client, table_id, ann))
        next(watcher)
        rpc_error(client.submit, table_id, bob, play(99))  # no such card: refused
        bots = client.create_table("cardbench", 2, bots={0: "random", 1: "random"}).table.table_id
        client.wait_finished(bots, 60)
    with grpc.insecure_channel(observed.rules_address) as channel:
        RulesServiceStub(channel).NewGame(rules_pb2.NewGameRequest(config=GameConfig(game="cardbench", seats=2)))
    gateway = scrape(observed, "gateway-0")
    assert value(gateway, "manaforge_call_seconds_count", service="gateway", method="SubmitAction") >= 2
    assert value(gateway, "manaforge_refusals_total", method="SubmitAction", code="FAILED_PRECONDITION") >= 1
    assert value(gateway, "manaforge_commits_total", game="cardbench", result="ok") >= 1
    assert value(gateway, "manaforge_fanout_seconds_count") >= 1
    assert value(gateway, "manaforge_gc_pause_seconds_count", generation="0") >= 1  # services/collector.py
    worker = scrape(observed, "worker")
    assert value(worker, "manaforge_bot_decision_seconds_count", game="cardbench", level="random") >= 100
    assert value(worker, "manaforge_replay_verdicts_total", game="cardbench", verdict="valid") >= 1
    assert value(worker, "manaforge_follow_ups_total", kind="bot") >= 100
    assert value(worker, "manaforge_dispatched_total") >= 100
    assert value(worker, "manaforge_gc_pause_seconds_count", generation="0") >= 1
    rules = scrape(observed, "rules")
    assert value(rules, "manaforge_call_seconds_count", service="rules", method="NewGame") >= 1


def test_a_refusal_is_one_json_line_with_the_table_and_reason_and_no_token(observed: Stack) -> None:
    with Client(observed.gateway_addresses[0]) as client:
        table_id, ann, bob = cardbench_table(client)
        rpc_error(client.submit, table_id, bob, first_legal(client, table_id, ann))  # out of turn
        # a matched ticket's id gives its seat token: a refusal about it names its queue only
        ticket = client.stub.JoinQueue(gw.JoinQueueRequest(game="cardbench", seats=2, player_name="cy"))
        client.stub.FillWithBots(gw.FillWithBotsRequest(ticket_id=ticket.ticket_id))
        rpc_error(client.stub.LeaveQueue, gw.LeaveQueueRequest(ticket_id=ticket.ticket_id))
    time.sleep(0.3)
    lines = (Path(observed.log_dir) / "gateway-0.log").read_text().splitlines()
    refusals = [json.loads(line) for line in lines if line.startswith("{") and table_id in line]
    assert any(
        r["event"] == "refused" and r["code"] == "FAILED_PRECONDITION" and "turn order" in r["reason"] for r in refusals
    )
    assert all(r["service"] == "gateway" and r["table_id"] == table_id for r in refusals)
    log_text = "\n".join(lines)
    assert ann not in log_text and bob not in log_text  # seat tokens never reach the log
    queue, _, secret = ticket.ticket_id.rpartition("~")
    assert f'"ticket_id": "{queue}~..."' in log_text and secret not in log_text


def test_the_worker_logs_json_lines(observed: Stack) -> None:
    """The worker's log lines reach its output as JSON lines, like every other process's (they were written into
    the stream Celery had redirected to its own logger, and never came out)."""
    deadline = time.monotonic() + 10
    while True:
        lines = (Path(observed.log_dir) / "worker.log").read_text().splitlines()
        started = [json.loads(line) for line in lines if line.startswith("{") and "dispatcher started" in line]
        if started or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert [(s["service"], s["level"], s["event"], s["shards"]) for s in started] == [
        ("worker", "info", "dispatcher started", 16)
    ]


def test_health_is_not_serving_while_redis_is_down(observed: Stack) -> None:
    def status() -> int:
        with grpc.insecure_channel(observed.gateway_addresses[0]) as channel:
            return int(health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=2).status)

    assert status() == health_pb2.HealthCheckResponse.SERVING
    redis_process = observed.processes.pop("redis")
    redis_process.kill()
    redis_process.wait(5)
    try:
        deadline = time.monotonic() + 10
        while status() != health_pb2.HealthCheckResponse.NOT_SERVING:
            assert time.monotonic() < deadline, "health still SERVING with Redis down"
            time.sleep(0.2)
    finally:
        observed.start_redis(int(observed.redis_url.rsplit(":", 1)[1].split("/")[0]))
        wait_for_redis(observed.redis_url)
    deadline = time.monotonic() + 10
    while status() != health_pb2.HealthCheckResponse.SERVING:
        assert time.monotonic() < deadline, "health not SERVING again with Redis back"
        time.sleep(0.2)
