"""The platform on a Redis it reaches over a Unix socket (REDIS_URL=unix://...): moves commit, watchers get them, and
bots play a game to its end, on the commit connection, the hub and the worker alike (services/tables/multiplex.py
reads the URL as redis-py does)."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import redis

from deploy.launcher import Stack, redis_server_binary
from gateway.client import Client
from tests.stack.helpers import cardbench_table, first_legal


def test_a_platform_on_redis_over_a_unix_socket_plays_watches_and_runs_bots(tmp_path: Path) -> None:
    socket = tmp_path / "redis.sock"
    listening = ["--port", "0", "--unixsocket", str(socket), "--unixsocketperm", "700"]
    memory_only = ["--save", "", "--appendonly", "no", "--dir", str(tmp_path)]
    server = subprocess.Popen([redis_server_binary(), *listening, *memory_only], stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while not socket.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        url = f"unix://{socket}?db=2"
        with Stack(redis_url=url, broker=True) as stack, Client(stack.gateway_addresses[0]) as client:
            table_id, ann, bob = cardbench_table(client)
            watcher = client.watch(table_id, bob)
            first = next(watcher)
            client.submit(table_id, ann, first_legal(client, table_id, ann))
            assert next(watcher).view.version == first.view.version + 1
            bots = client.create_table("cardbench", 2, bots={0: "random", 1: "random"}).table.table_id
            assert client.wait_finished(bots, 60).replay_verdict.startswith("valid")
        stored = redis.Redis.from_url(url)
        assert any(table_id in key.decode() for key in stored.scan_iter(count=1000))  # in db 2, behind the socket
    finally:
        server.terminate()
        server.wait(10)
