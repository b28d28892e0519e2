"""The floor under the gateway's memory per Watch stream: a bare grpc.aio server (this process) whose one
server-streaming method sends one message and then waits, held open `--streams` times by client processes, and the
server's resident memory per open stream. No Redis, no hub, no Manaforge code on the server side: what is left is
gRPC's own (its C core's HTTP/2 stream and call, and its Cython layer's tasks and coroutines per call).

    python -m deploy.stream_floor --streams 5000
    GRPC_EXPERIMENTS=fuse_filters python -m deploy.stream_floor   # gRPC's experiments are read from the environment
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import multiprocessing
import time
from collections.abc import AsyncIterator
from multiprocessing.synchronize import Event as EventType
from typing import Any

import grpc
import psutil

from deploy.connections import SPECTATORS_PER_PROCESS, STREAMS_PER_CHANNEL
from gateway.server import SERVER_OPTIONS

METHOD = "/floor.Floor/Hold"


async def _hold(address: str, count: int, ready: Any, stop: EventType) -> None:
    channels = [grpc.aio.insecure_channel(address) for _ in range(max(1, count // STREAMS_PER_CHANNEL))]
    opening = asyncio.Semaphore(200)

    async def one(i: int) -> None:
        call = channels[i % len(channels)].unary_stream(METHOD, None, None)(b"")
        try:
            async for _ in call:
                opening.release()
                with ready.get_lock():
                    ready.value += 1
        except grpc.aio.AioRpcError:
            opening.release()

    tasks = []
    for i in range(count):
        await opening.acquire()
        tasks.append(asyncio.ensure_future(one(i)))
    while not stop.is_set():
        await asyncio.sleep(0.2)
    for channel in channels:
        await channel.close(grace=None)


def _client(address: str, count: int, ready: Any, stop: EventType) -> None:
    import uvloop

    uvloop.run(_hold(address, count, ready, stop))


async def floor(streams: int) -> tuple[int, float]:
    """(streams held, KiB of this process's resident memory per stream)."""
    forever = asyncio.Event()

    async def hold(request: bytes, context: Any) -> AsyncIterator[bytes]:
        yield b"x" * 200
        await forever.wait()

    server = grpc.aio.server(options=SERVER_OPTIONS)
    handler = grpc.unary_stream_rpc_method_handler(hold)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("floor.Floor", {"Hold": handler}),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    me = psutil.Process()
    gc.collect()
    before = me.memory_info().rss
    context = multiprocessing.get_context("spawn")
    ready = context.Value("i", 0)
    stop = context.Event()
    processes = max(2, -(-streams // SPECTATORS_PER_PROCESS))
    shares = [streams // processes + (i < streams % processes) for i in range(processes)]
    clients = [context.Process(target=_client, args=(f"127.0.0.1:{port}", n, ready, stop)) for n in shares]
    for client in clients:
        client.start()
    deadline = time.monotonic() + 60 + streams / 200
    while ready.value < streams and time.monotonic() < deadline:
        await asyncio.sleep(0.5)
    await asyncio.sleep(2.0)
    held = ready.value
    after = me.memory_info().rss
    stop.set()
    for client in clients:
        client.join(30)
        if client.is_alive():
            client.kill()
    await server.stop(None)
    return held, (after - before) / max(1, held) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--streams", type=int, default=5000)
    args = parser.parse_args()
    import uvloop

    held, kib = uvloop.run(floor(args.streams))
    print(f"bare grpc.aio server: {held:,} streams held, {kib:.1f} KiB per stream")


if __name__ == "__main__":
    main()
