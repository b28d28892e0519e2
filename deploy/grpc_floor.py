"""The floor under the gateway's CPU per move: what gRPC Python alone costs on the peers' workload.

    python -m deploy.grpc_floor [--matches 1,16,64] [--seconds 5] [--size 300]

A grpc.aio server on uvloop (as the gateway runs) that does nothing but relay: each seat of a match holds one
bidirectional stream, as a Play stream; a seat's move (one inbound message) is answered by one update to each of the
two seats (two outbound messages, the mover's result folded into its own, as `results_in_updates` does), and the
other seat moves as soon as its update arrives. No Redis, no rules, no views: the messages are `--size` bytes of
opaque payload. The server's CPU per move (utime+stime over a timed window) is the least a gRPC Python gateway can
spend on this workload, whatever the rest of it does; the load runs in a process of its own on the same machine.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import time
from collections.abc import AsyncIterator
from typing import Any

import grpc
import psutil
import uvloop

from deploy.connections import percentile

METHOD = "/floor.Relay/Play"
MOVES_PER_MATCH = 100


def serve(port: Any) -> None:
    """The relay server: a match is two streams; a move from one seat is an update to both."""

    async def run() -> None:
        seats: dict[bytes, list[asyncio.Queue[bytes]]] = {}

        async def play(requests: AsyncIterator[bytes], context: Any) -> AsyncIterator[bytes]:
            first = await anext(aiter(requests))
            match = first[:16]
            inbox: asyncio.Queue[bytes] = asyncio.Queue()
            seats.setdefault(match, []).append(inbox)
            yield b"joined"

            async def moves() -> None:
                async for move in requests:
                    for queue in seats.get(match, ()):
                        queue.put_nowait(move)

            task = asyncio.ensure_future(moves())
            try:
                while True:
                    yield await inbox.get()
            finally:
                task.cancel()
                seats[match].remove(inbox)
                if not seats[match]:
                    del seats[match]

        server = grpc.aio.server()
        handler = grpc.stream_stream_rpc_method_handler(play)
        server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler("floor.Relay", {"Play": handler})])
        port.value = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        await server.wait_for_termination()

    uvloop.run(run())


async def load(port: int, matches: int, seconds: float, warmup: float, size: int) -> tuple[int, list[float]]:
    """Matches of MOVES_PER_MATCH moves, one after the other per slot; moves and latencies inside the window."""
    start = time.time() + warmup
    end = start + seconds
    moved = 0
    latencies: list[float] = []
    payload = b"x" * max(0, size - 24)

    async def match(slot: int, number: int) -> None:
        nonlocal moved
        name = f"{slot:08d}{number:08d}".encode()
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            relay: Any = channel.stream_stream(METHOD)  # type: ignore[call-arg]  # bytes in, bytes out
            calls = [relay() for _ in range(2)]
            for call in calls:
                await call.write(name)
                await call.read()  # joined
            sent = time.time()
            await calls[0].write(name + b"%08d" % 0 + payload)
            for move in range(1, MOVES_PER_MATCH):
                mover = move % 2
                await calls[1 - mover].read()  # the mover's own update
                await calls[mover].read()  # the other seat sees the move: now it moves
                now = time.time()
                if start <= sent and now <= end:
                    moved += 1
                    latencies.append((now - sent) * 1000)
                sent = time.time()
                await calls[mover].write(name + b"%08d" % move + payload)
            for call in calls:
                call.cancel()

    async def slot(n: int) -> None:
        number = 0
        while time.time() < end:
            await match(n, number)
            number += 1

    await asyncio.gather(*(slot(n) for n in range(matches)))
    return moved, latencies


def load_process(port: int, matches: int, seconds: float, warmup: float, size: int, out: Any) -> None:
    out.put(uvloop.run(load(port, matches, seconds, warmup, size)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", default="1,16,64")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--size", type=int, default=300, help="bytes of a move and of an update")
    args = parser.parse_args()
    context = multiprocessing.get_context("spawn")
    port: Any = context.Value("i", 0)
    server = context.Process(target=serve, args=(port,), daemon=True)
    server.start()
    while not port.value:
        time.sleep(0.05)
    cpu = psutil.Process(server.pid)
    try:
        for matches in (int(m) for m in args.matches.split(",")):
            out: Any = context.Queue()
            loader = context.Process(
                target=load_process, args=(port.value, matches, args.seconds, args.warmup + 1.0, args.size, out)
            )
            loader.start()
            time.sleep(args.warmup + 1.0)
            before = sum(cpu.cpu_times()[:2])
            time.sleep(args.seconds)
            used = sum(cpu.cpu_times()[:2]) - before
            moved, latencies = out.get(timeout=120)
            loader.join(10)
            print(
                f"{matches:>3} matches  {moved / args.seconds:>7,.0f} moves/s  p50 {percentile(latencies, 50):6.2f} ms"
                f"  p99 {percentile(latencies, 99):6.2f} ms  relay CPU {used * 1000 / max(1, moved):.3f} ms/move",
                flush=True,
            )
    finally:
        server.kill()


if __name__ == "__main__":
    main()
