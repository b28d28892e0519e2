"""Nothing is lost: an acknowledged move survives a crash of Redis itself (append-only file, fsync on every write)."""

from __future__ import annotations

import signal
from pathlib import Path

import grpc
import redis
from manaforge.v1.gateway_pb2 import LoggedAction

from deploy.launcher import LOOPBACK_LIMITS, Stack
from gateway.client import Client
from services.tables import keys
from tests.stack.helpers import cardbench_table, first_legal, rpc_error


def test_an_acknowledged_move_survives_a_redis_crash(tmp_path: Path) -> None:
    with Stack(redis_dir=str(tmp_path / "redis")) as stack:
        with Client(stack.gateway_addresses[0]) as client:
            table_id, ann, bob = cardbench_table(client)
            acked = client.submit(table_id, ann, first_legal(client, table_id, ann))
        stack.restart("redis", crash=True)  # kill -9 right after the acknowledgement
        with Client(stack.gateway_addresses[0]) as client:
            assert client.table(table_id).version == acked.version
            assert client.submit(table_id, bob, first_legal(client, table_id, bob)).version == acked.version + 1


def test_with_a_replica_every_acknowledged_move_survives_the_loss_of_the_primary() -> None:
    """MANAFORGE_REDIS_REPLICAS=1: a move is acknowledged once the replica has it (WAIT), so a replica promoted after
    the primary's death holds every acknowledged move."""
    with Stack(replica=True, settings=dict(LOOPBACK_LIMITS)) as stack:
        acked: list[tuple[str, int, str]] = []
        with Client(stack.gateway_addresses[0]) as client:
            tables = [cardbench_table(client) for _ in range(3)]
            for move in range(10):
                for table_id, ann, bob in tables:
                    token = (ann, bob)[move % 2]
                    cid = f"m{move}"
                    done = client.submit(table_id, token, first_legal(client, table_id, token), client_action_id=cid)
                    acked.append((table_id, done.version, cid))
            table_id, ann, _ = tables[0]
            late = first_legal(client, table_id, ann)
            stack.processes["redis-replica"].send_signal(signal.SIGSTOP)  # the replica stops taking writes
            try:
                stalled = rpc_error(client.submit, table_id, ann, late, "late")
                assert stalled.code() == grpc.StatusCode.UNAVAILABLE and "replication" in stalled.details()
            finally:
                stack.processes["redis-replica"].send_signal(signal.SIGCONT)
            done = client.submit(table_id, ann, late, client_action_id="late")
            assert done.version == 11 and done.duplicate  # stored once by the first try, acknowledged by the retry
            acked.append((table_id, done.version, "late"))
        stack.processes.pop("redis").kill()  # the primary dies right after the last acknowledgement
        replica = redis.Redis.from_url(stack.replica_url)
        replica.replicaof("NO", "ONE")  # promoted
        for table_id, version, cid in acked:
            stored = replica.lindex(keys.table_keys(table_id)["log"], version - 1)
            assert stored is not None, f"move {cid} of {table_id} lost with the primary"
            assert LoggedAction.FromString(stored).client_action_id == cid  # type: ignore[arg-type]
