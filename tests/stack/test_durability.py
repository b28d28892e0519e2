"""Nothing is lost: an acknowledged move survives a crash of Redis itself (append-only file, fsync on every write)."""

from __future__ import annotations

from pathlib import Path

from deploy.launcher import Stack
from gateway.client import Client
from tests.stack.helpers import cardbench_table, first_legal


def test_an_acknowledged_move_survives_a_redis_crash(tmp_path: Path) -> None:
    with Stack(redis_dir=str(tmp_path / "redis")) as stack:
        with Client(stack.gateway_addresses[0]) as client:
            table_id, ann, bob = cardbench_table(client)
            acked = client.submit(table_id, ann, first_legal(client, table_id, ann))
        stack.restart("redis", crash=True)  # kill -9 right after the acknowledgement
        with Client(stack.gateway_addresses[0]) as client:
            assert client.table(table_id).version == acked.version
            assert client.submit(table_id, bob, first_legal(client, table_id, bob)).version == acked.version + 1
