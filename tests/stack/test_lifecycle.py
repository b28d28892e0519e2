"""A process's life as an operator sees it: SIGTERM honoured while a gateway still waits for Redis (as a container's
first process, which ignores a signal it has no handler for), calls answered UNAVAILABLE at once with a retry hint
while Redis does not answer (and those under way as it stopped, within seconds), an open table never stored without
its removal, each gateway known by its own name (host and port) in the overview, metrics and audit,
and every process saying which version and commit it runs."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import grpc
import psutil
import pytest
import redis
from grpc_health.v1 import health_pb2, health_pb2_grpc
from manaforge.v1 import admin_pb2
from manaforge.v1.admin_pb2_grpc import AdminStub
from manaforge.v1.common_pb2 import GameConfig
from manaforge.v1.gateway_pb2 import CreateTableRequest

from deploy.launcher import LOOPBACK_LIMITS, ROOT, Stack, free_port
from gateway.client import Client
from services.settings import Settings
from services.version import version
from tests.stack.helpers import scrape

OPERATOR_KEY = "lifecycle-operator-key"
OPERATOR = (("x-operator-key", OPERATOR_KEY), ("x-operator-name", "tester"))


@pytest.fixture(scope="module")
def lively() -> Iterator[Stack]:
    settings = {**LOOPBACK_LIMITS, "MANAFORGE_OPERATOR_KEY": OPERATOR_KEY, "MANAFORGE_COMMIT": "0123456789abcdef"}
    with Stack(gateways=2, metrics=True, settings=settings) as running:
        yield running


def health(address: str) -> tuple[int, dict[str, str]]:
    with grpc.insecure_channel(address) as channel:
        answer, call = health_pb2_grpc.HealthStub(channel).Check.with_call(health_pb2.HealthCheckRequest(), timeout=5)
        return answer.status, dict(call.initial_metadata())


@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs unshare (util-linux) for a PID namespace")
def test_a_gateway_waiting_for_redis_stops_at_sigterm_even_as_the_first_process() -> None:
    env = {**os.environ, "REDIS_URL": f"redis://127.0.0.1:{free_port()}/0", "PYTHONUNBUFFERED": "1"}
    command = ["unshare", "--pid", "--fork", "--map-root-user", "--kill-child"]
    started = subprocess.Popen(
        [*command, sys.executable, "-m", "gateway", "--address", f"127.0.0.1:{free_port()}"],
        cwd=ROOT,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert started.stderr is not None
        for line in started.stderr:  # nothing listens at REDIS_URL: it waits, saying so each second
            if "waiting for Redis" in line:
                break
        gateway = psutil.Process(started.pid).children()[0]  # PID 1 of its namespace, as in a container
        gateway.send_signal(signal.SIGTERM)
        assert started.wait(timeout=5) == 0
    finally:
        if started.poll() is None:
            started.kill()
            started.wait(5)


def test_each_gateway_is_known_by_its_host_and_port_in_the_overview_metrics_and_audit(lively: Stack) -> None:
    names = {Settings().gateway_name(int(address.rsplit(":", 1)[1])) for address in lively.gateway_addresses}
    assert len(names) == 2 and not any(name.startswith(("0.0.0.0", "127.0.0.1")) for name in names)
    with grpc.insecure_channel(lively.gateway_addresses[0]) as channel:
        admin = AdminStub(channel)
        deadline = time.monotonic() + 20
        while {
            g.address for g in admin.GetOverview(admin_pb2.GetOverviewRequest(), metadata=OPERATOR).gateways
        } != names:
            assert time.monotonic() < deadline, "both gateways' heartbeats under their names"
            time.sleep(0.2)
    for i in range(2):
        samples = scrape(lively, f"gateway-{i}")
        labels = [dict(ls) for (name, ls), _ in samples.items() if name == "manaforge_build_info"]
        assert labels == [
            {
                "version": version(),
                "commit": "0123456789abcdef",
                "role": "gateway",
                "name": Settings().gateway_name(int(lively.gateway_addresses[i].rsplit(":", 1)[1])),
            }
        ]


def test_every_process_says_its_version(lively: Stack) -> None:
    assert version() not in ("", "0.2.0", "unknown")  # HEAD is not the release it follows
    for address in [lively.rules_address, *lively.gateway_addresses]:
        status, metadata = health(address)
        assert status == health_pb2.HealthCheckResponse.SERVING
        assert metadata["manaforge-version"] == version() and metadata["manaforge-commit"] == "0123456789abcdef"
    worker = ("commit", "0123456789abcdef"), ("name", ""), ("role", "worker"), ("version", version())
    deadline = time.monotonic() + 30
    while True:  # the worker serves its metrics once it is ready
        try:
            assert scrape(lively, "worker").get(("manaforge_build_info", worker)) == 1.0
            break
        except OSError:
            assert time.monotonic() < deadline
            time.sleep(0.3)
    shown = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "manaforge"), "--version"],
        env={**os.environ, "MANAFORGE_COMMIT": "fedcba9876543210"},
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert shown.stdout.strip() == f"manaforge {version()} (commit fedcba987654)"


def test_calls_fail_fast_with_a_retry_hint_while_redis_does_not_answer(lively: Stack) -> None:
    redis = lively.processes["redis"]
    address = lively.gateway_addresses[0]
    with Client(address) as client:
        client.games()
        redis.send_signal(signal.SIGSTOP)  # its connections stay open; nothing answers
        try:
            began = time.monotonic()  # a call under way as Redis stops: ended once the health ping misses (~3 s)
            with pytest.raises(grpc.RpcError) as cut:
                client.stub.CreateTable(CreateTableRequest(config=GameConfig(game="cardbench", seats=2)), timeout=30)
            ended = time.monotonic() - began
            deadline = time.monotonic() + 15
            while health(address)[0] != health_pb2.HealthCheckResponse.NOT_SERVING:
                assert time.monotonic() < deadline, "the gateway's health follows Redis"
                time.sleep(0.2)
            asked = time.monotonic()
            with pytest.raises(grpc.RpcError) as refused:
                client.stub.CreateTable.with_call(
                    CreateTableRequest(config=GameConfig(game="cardbench", seats=2)), timeout=30
                )
            answered = time.monotonic() - asked
        finally:
            redis.send_signal(signal.SIGCONT)
    assert cut.value.code() == grpc.StatusCode.UNAVAILABLE and ended < 6.0, f"{cut.value.code()} after {ended:.1f} s"
    assert "may or may not have been applied; retry in 2 s" in (cut.value.details() or "")
    error = refused.value
    assert error.code() == grpc.StatusCode.UNAVAILABLE
    assert answered < 2.0, f"answered after {answered:.1f} s"
    assert "nothing was done" in (error.details() or "")
    assert "retry in" in (error.details() or "")
    trailers = {item.key: str(item.value) for item in error.trailing_metadata() or ()}
    assert trailers["grpc-retry-pushback-ms"] == "2000"
    deadline = time.monotonic() + 20
    while True:  # Redis back: calls are served again
        try:
            with Client(address) as client:
                assert client.create_table("cardbench", 2).table.table_id
            break
        except grpc.RpcError:
            assert time.monotonic() < deadline
            time.sleep(0.3)


def test_an_open_table_is_stored_with_its_removal_in_one_atomic_step(lively: Stack) -> None:
    """Redis gone between two writes of CreateTable left an open table that nothing would ever remove: the table and
    its removal (`abandon`, after MANAFORGE_OPEN_TABLE_SECONDS) are now written by one script, which runs whole or
    not at all."""
    with redis.Redis.from_url(lively.redis_url).monitor() as monitor:  # type: ignore[no-untyped-call]
        with Client(lively.gateway_addresses[0]) as client:
            table_id = client.create_table("cardbench", 2).table.table_id  # no one seated: both seats open
        while True:
            seen = monitor.next_command()
            if f"abandon|{table_id}|" in seen["command"]:
                break
    command = seen["command"]  # the first command to name the removal: the script that stores the table
    assert command.startswith("EVALSHA") and f"{table_id}:record" in command, command
