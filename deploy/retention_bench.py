"""The retention run of `make bench`: Redis memory per live game and per archived game, and Redis memory while
thousands of games are played to the end and archived (it should stay flat once archives start to expire)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import grpc
import redis

from deploy.peerload import LoadResult, Window, play_match
from services.tables import keys


def table_bytes(client: redis.Redis, table_id: str) -> int:
    found: Any = client.keys(f"{keys.table_prefix(table_id)}:*")
    return sum(int(client.memory_usage(key) or 0) for key in found)


def retention_run(
    redis_url: str, gateway: str, games: int, concurrency: int = 32, say: Callable[[str], None] = print
) -> dict[str, float]:
    """Play `games` cardbench games (Play streams, `concurrency` at once) and sample Redis's used memory."""
    from manaforge.v1.gateway_pb2_grpc import GatewayStub

    client = redis.Redis.from_url(redis_url)
    samples: list[tuple[int, float]] = []
    live_bytes: list[int] = []

    async def run() -> None:
        async with grpc.aio.insecure_channel(gateway) as channel:
            stub = GatewayStub(channel)
            window = Window(time.time(), time.time() + 10_000)
            result = LoadResult()
            # one finished game's live keys (its whole log and events), before it is archived
            live_bytes.append(table_bytes(client, await play_match(stub, window, result, True, True)))
            done = 0
            lock = asyncio.Lock()

            async def worker() -> None:
                nonlocal done
                while True:
                    async with lock:
                        if done >= games:
                            return
                        done += 1
                        count = done
                    await play_match(stub, window, result, True, True)
                    if count % max(1, games // 10) == 0:
                        used = float(client.info("memory")["used_memory"]) / 2**20
                        samples.append((count, used))
                        say(f"    {count:>6,} games played: redis {used:6.1f} MiB")

            await asyncio.gather(*(worker() for _ in range(concurrency)))

    asyncio.run(run())
    time.sleep(2.0)  # the last archives are made
    archives: Any = client.keys("mf:{*}:*:archive")
    archived = [int(client.memory_usage(key) or 0) for key in archives[:200]]
    return {
        "live_kib": live_bytes[0] / 1024 if live_bytes else 0.0,
        "archived_kib": sum(archived) / max(1, len(archived)) / 1024,
        "first_mib": samples[0][1] if samples else 0.0,
        "last_mib": samples[-1][1] if samples else 0.0,
        "archives": float(len(archives)),
    }
