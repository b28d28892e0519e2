"""The stored layout's version (services/tables/layout.py): a gateway and a worker start only on the layout their
release reads, a store of release 0.1.0 (no layout key) is taken as layout 1, and `python -m deploy.migrate` runs
the migration steps in order, once each. Against a real redis-server and real gateway and worker processes."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from deploy.launcher import ROOT, Stack, free_port, wait_for_grpc, wait_for_redis
from services.bootstrap import redis_client
from services.tables import keys as k
from services.tables.layout import LAYOUT, LayoutError, Migration, check_layout, migrate
from services.tables.portal import Portal


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    stack = Stack()
    stack.start_redis()
    wait_for_redis(stack.redis_url)
    try:
        yield stack.redis_url
    finally:
        stack.stop()


@pytest.fixture
def data(redis_url: str) -> redis.Redis:
    client = redis.Redis.from_url(redis_url)
    client.flushdb()
    return client


def process(redis_url: str, *args: str) -> subprocess.Popen[str]:
    env = dict(os.environ, REDIS_URL=redis_url, PYTHONUNBUFFERED="1")
    return subprocess.Popen(
        [sys.executable, *args], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def finished(running: subprocess.Popen[str], timeout: float = 60) -> str:
    """The process's output once it has exited by itself (killed, and the test failed, when it has not)."""
    try:
        return running.communicate(timeout=timeout)[0]
    except subprocess.TimeoutExpired:
        running.kill()
        out = running.communicate()[0]
        raise AssertionError(f"still running after {timeout} s:\n{out[-2000:]}") from None


def test_a_gateway_refuses_a_newer_layout_and_records_its_own_in_a_store_without_one(
    data: redis.Redis, redis_url: str
) -> None:
    data.set(k.layout(), LAYOUT + 1)
    refused = process(redis_url, "-m", "gateway", "--address", f"127.0.0.1:{free_port()}")
    out = finished(refused)
    assert refused.returncode == 78, out
    assert f"layout {LAYOUT + 1}, newer than layout {LAYOUT} that this release reads" in out
    assert data.get(k.layout()) == str(LAYOUT + 1).encode()  # nothing changed

    data.delete(k.layout())  # a store of release 0.1.0: no layout key
    address = f"127.0.0.1:{free_port()}"
    serving = process(redis_url, "-m", "gateway", "--address", address)
    try:
        wait_for_grpc(address)
        assert data.get(k.layout()) == str(LAYOUT).encode()
    finally:
        serving.terminate()
        serving.communicate(timeout=30)


def test_a_gateway_started_before_its_redis_waits_for_it() -> None:
    stack = Stack()
    port = free_port()
    address = f"127.0.0.1:{free_port()}"
    gateway = process(f"redis://127.0.0.1:{port}/0", "-m", "gateway", "--address", address)
    try:
        time.sleep(5)  # longer than the Redis client's own retries of one command (about 2 s)
        assert gateway.poll() is None
        stack.start_redis(port)
        wait_for_grpc(address, timeout=30)
        assert redis.Redis.from_url(stack.redis_url).get(k.layout()) == str(LAYOUT).encode()
    finally:
        gateway.terminate()
        gateway.communicate(timeout=30)
        stack.stop()


def test_a_worker_refuses_a_newer_layout(data: redis.Redis, redis_url: str) -> None:
    data.set(k.layout(), LAYOUT + 1)
    worker = process(
        redis_url,
        *("-m", "celery", "-A", "services.workers.app", "worker", "--pool", "threads", "--concurrency", "1"),
        *("--loglevel", "warning", "--without-gossip", "--without-mingle", "--without-heartbeat"),
    )
    out = finished(worker, 90)
    assert worker.returncode == 78, out
    assert f"layout {LAYOUT + 1}, newer than layout {LAYOUT}" in out


async def _rename(client: Any) -> None:
    """A step for the test: the old key's value moves to a new key (again: nothing to do)."""
    if await client.exists("old"):
        await client.rename("old", "new")


def test_migration_steps_run_in_order_once_and_a_newer_layout_is_left_alone(data: redis.Redis, redis_url: str) -> None:
    portal = Portal()
    client = redis_client(redis_url)
    steps = {2: Migration(2, "old -> new", _rename), 3: Migration(3, "mark", lambda c: c.set("marked", 1))}
    said: list[str] = []
    try:
        data.set("old", "value")  # a store of layout 1 (no key)
        with pytest.raises(LayoutError, match="older than layout 3 that this release reads: run `python -m deploy"):
            portal.run(check_layout(client, known=3))
        assert [s.to for s in portal.run(migrate(client, known=3, steps=steps, say=said.append))] == [2, 3]
        assert said == ["layout 1 -> 2: old -> new", "layout 2 -> 3: mark"]
        assert (data.get("new"), data.get("marked"), data.get(k.layout())) == (b"value", b"1", b"3")
        assert portal.run(migrate(client, known=3, steps=steps)) == []  # already there: nothing runs
        assert portal.run(check_layout(client, known=3)) == 3

        data.set(k.layout(), 4)
        with pytest.raises(LayoutError, match="layout 4, newer than layout 3: nothing to migrate"):
            portal.run(migrate(client, known=3, steps=steps))
        data.set(k.layout(), 1)
        with pytest.raises(LayoutError, match="no migration step to layout 2"):
            portal.run(migrate(client, known=3, steps={3: steps[3]}))
        assert data.get(k.layout()) == b"1"  # a gap in the steps: nothing ran
    finally:
        portal.run(client.aclose())
        portal.close()


def test_the_migrate_command_says_where_the_data_is(data: redis.Redis, redis_url: str) -> None:
    checked = process(redis_url, "-m", "deploy.migrate", "--check")
    out = finished(checked)
    assert (checked.returncode, out.splitlines()[0]) == (0, f"stored layout 1; this release reads layout {LAYOUT}")
    assert data.get(k.layout()) is None  # --check changes nothing
    run = process(redis_url, "-m", "deploy.migrate")
    out = finished(run)
    assert run.returncode == 0 and f"0 migration step(s) run; the data is in layout {LAYOUT}" in out, out
    assert data.get(k.layout()) == str(LAYOUT).encode()
    data.set(k.layout(), LAYOUT + 1)
    refused = process(redis_url, "-m", "deploy.migrate")
    out = finished(refused)
    assert refused.returncode == 1 and f"layout {LAYOUT + 1}, newer than layout {LAYOUT}" in out, out
