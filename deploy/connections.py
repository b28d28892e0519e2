"""The connection run of `make bench`: one gateway process holding many Watch streams (spectators spread over many
tables) while a few tables play, with the gateway's memory per stream and the latency of SubmitAction and ListGames
meanwhile. The spectators live in their own processes (one per SPECTATORS_PER_PROCESS streams), so the calls timed
here do not queue behind them. On its own:

    python -m deploy.connections --streams 50000    # a stack of one gateway; about 3 GB of memory in all at 50,000
"""

from __future__ import annotations

import asyncio
import multiprocessing
import time
from collections.abc import Callable
from multiprocessing.synchronize import Event as EventType
from typing import TYPE_CHECKING, Any

import grpc
import psutil
from manaforge.v1 import gateway_pb2 as gw
from manaforge.v1.common_pb2 import GameConfig
from manaforge.v1.games.cardbench_pb2 import CardbenchAction, CardbenchState
from manaforge.v1.gateway_pb2_grpc import GatewayStub
from manaforge.v1.rules_pb2 import ListGamesRequest

from services.edge import pack

if TYPE_CHECKING:
    from manaforge.v1.gateway_pb2_grpc import GatewayAsyncStub

STREAMS_PER_CHANNEL = 500
SPECTATORS_PER_PROCESS = 12_500
OPENING = 200  # streams of one spectator process opened and not yet answered: the gateway is never flooded


async def hold(address: str, table_ids: list[str], count: int, ready: Any, stop: EventType, first: int = 0) -> None:
    """Open `count` spectator streams spread over `table_ids` (from the `first`-th); `ready` counts those that got
    their first update."""
    channels = [grpc.aio.insecure_channel(address) for _ in range(max(1, count // STREAMS_PER_CHANNEL))]
    stubs = [GatewayStub(c) for c in channels]
    opening = asyncio.Semaphore(OPENING)

    async def spectate(i: int) -> None:
        table_id = table_ids[(first + i) % len(table_ids)]
        call = stubs[i % len(stubs)].Watch(gw.WatchRequest(table_id=table_id, without_text=True))
        answered = False
        try:
            async for _ in call:
                if not answered:
                    answered = True
                    opening.release()
                    with ready.get_lock():
                        ready.value += 1
        except grpc.aio.AioRpcError:
            pass
        finally:
            if not answered:
                opening.release()

    tasks = []
    for i in range(count):
        await opening.acquire()
        tasks.append(asyncio.ensure_future(spectate(i)))
    while not stop.is_set():
        await asyncio.sleep(0.2)
    for task in tasks:
        task.cancel()
    for channel in channels:
        await channel.close(grace=None)


def spectator_process(address: str, table_ids: list[str], count: int, ready: Any, stop: EventType, first: int) -> None:
    import uvloop

    uvloop.run(hold(address, table_ids, count, ready, stop, first))


def percentile(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] if ordered else float("nan")


async def _tables(stub: GatewayAsyncStub, count: int) -> list[tuple[str, list[str]]]:
    made = []
    for _ in range(count):
        created = await stub.CreateTable(
            gw.CreateTableRequest(config=GameConfig(game="cardbench", seats=2), player_name="a")
        )
        joined = await stub.JoinTable(gw.JoinTableRequest(table_id=created.table.table_id, player_name="b"))
        made.append((created.table.table_id, [created.seat_token, joined.seat_token]))
    return made


async def _play(
    stub: GatewayAsyncStub, table: tuple[str, list[str]], until: float, rate: float, submits: list[float]
) -> None:
    """Play one table at `rate` moves/s until `until`, timing each SubmitAction."""
    table_id, tokens = table
    move = 0
    while time.time() < until:
        seat = move % 2
        view = await stub.GetView(gw.GetViewRequest(table_id=table_id, seat_token=tokens[seat]))
        if view.outcome.finished:
            return
        state = CardbenchState()
        view.view.Unpack(state)
        request = gw.SubmitActionRequest(
            table_id=table_id,
            seat_token=tokens[seat],
            action=pack(CardbenchAction(card=state.hands[seat].cards[0])),
            client_action_id=f"c{move}",
        )
        started = time.perf_counter()
        await stub.SubmitAction(request)
        submits.append((time.perf_counter() - started) * 1000)
        move += 1
        await asyncio.sleep(1 / rate)


async def _list_games(stub: GatewayAsyncStub, until: float, samples: list[float]) -> None:
    while time.time() < until:
        started = time.perf_counter()
        await stub.ListGames(ListGamesRequest())
        samples.append((time.perf_counter() - started) * 1000)
        await asyncio.sleep(0.1)


def connection_run(
    address: str,
    gateway_pid: int,
    streams: int,
    tables: int = 100,
    playing: int = 4,
    seconds: float = 10.0,
    say: Callable[[str], None] = print,
) -> dict[str, float]:
    """Hold `streams` spectator streams on one gateway over `tables` tables, `playing` of which play at 5 moves/s
    each for `seconds`. Returns the figures (memory per stream, submit and ListGames p50/p99, ...)."""
    gateway = psutil.Process(gateway_pid)

    async def setup() -> list[tuple[str, list[str]]]:
        async with grpc.aio.insecure_channel(address) as channel:
            return await _tables(GatewayStub(channel), tables)

    made = asyncio.run(setup())
    rss_before = gateway.memory_info().rss
    context = multiprocessing.get_context("spawn")
    ready = context.Value("i", 0)
    stop = context.Event()
    processes = max(2, -(-streams // SPECTATORS_PER_PROCESS))
    ids = [t for t, _ in made]
    shares = [streams // processes + (i < streams % processes) for i in range(processes)]
    workers = [
        context.Process(target=spectator_process, args=(address, ids, share, ready, stop, sum(shares[:i])))
        for i, share in enumerate(shares)
    ]
    for worker in workers:
        worker.start()
    started = time.monotonic()
    deadline = started + 60 + streams / 200
    shown = -1
    while ready.value < streams and time.monotonic() < deadline:
        if ready.value // 5000 != shown:
            shown = ready.value // 5000
            say(f"    {ready.value:>6,} / {streams:,} streams open")
        time.sleep(0.5)
    opening_s = time.monotonic() - started
    time.sleep(2.0)  # the last ones settled
    opened = ready.value
    rss_streams = gateway.memory_info().rss
    say(f"    {opened:,} streams open; playing {playing} tables for {seconds:g} s")
    submits: list[float] = []
    listings: list[float] = []

    async def measure() -> None:
        until = time.time() + seconds
        async with grpc.aio.insecure_channel(address) as channel:
            stub = GatewayStub(channel)
            await asyncio.gather(
                *(_play(stub, table, until, 5.0, submits) for table in made[:playing]),
                _list_games(stub, until, listings),
            )

    spectators = [psutil.Process(worker.pid) for worker in workers]
    cpu_before = gateway.cpu_times()
    spectators_before = sum(_cpu(p) for p in spectators)
    machine_before = psutil.cpu_times()
    asyncio.run(measure())
    cpu_after = gateway.cpu_times()
    spectators_cpu = sum(_cpu(p) for p in spectators) - spectators_before
    machine_after = psutil.cpu_times()
    rss_after = gateway.memory_info().rss
    stop.set()
    for worker in workers:
        worker.join(30)
        if worker.is_alive():
            worker.kill()
    return {
        "streams": opened,
        "opening_s": opening_s,
        "rss_before_mib": rss_before / 2**20,
        "rss_streams_mib": rss_streams / 2**20,
        "rss_after_mib": rss_after / 2**20,
        "kib_per_stream": (rss_streams - rss_before) / max(1, opened) / 1024,
        "submit_p50_ms": percentile(submits, 50),
        "submit_p99_ms": percentile(submits, 99),
        "submits": len(submits),
        "list_games_p50_ms": percentile(listings, 50),
        "list_games_p99_ms": percentile(listings, 99),
        "gateway_cpu_s": (cpu_after.user + cpu_after.system) - (cpu_before.user + cpu_before.system),
        "spectators_cpu_s": spectators_cpu,
        "machine_idle_s": machine_after.idle - machine_before.idle,
        "window_s": seconds,
    }


def _cpu(process: psutil.Process) -> float:
    times = process.cpu_times()
    return float(times.user + times.system)


def summary(figures: dict[str, float]) -> str:
    return (
        f"  {figures['streams']:,.0f} streams (opened in {figures['opening_s']:.0f} s): gateway RSS"
        f" {figures['rss_before_mib']:.0f} -> {figures['rss_streams_mib']:.0f} MiB"
        f" ({figures['kib_per_stream']:.1f} KiB per stream); SubmitAction p50 {figures['submit_p50_ms']:.2f} ms"
        f" p99 {figures['submit_p99_ms']:.2f} ms (n={figures['submits']:.0f}); ListGames p50"
        f" {figures['list_games_p50_ms']:.2f} ms p99 {figures['list_games_p99_ms']:.2f} ms;"
        f" CPU over the {figures['window_s']:g} s: gateway {figures['gateway_cpu_s']:.1f} s, spectator processes"
        f" {figures['spectators_cpu_s']:.1f} s, the machine idle {figures['machine_idle_s']:.1f} s"
    )


def stack_settings(streams: int) -> dict[str, str]:
    """The loopback stack's settings, with room for `streams` from one address (every spectator is 127.0.0.1)."""
    from deploy.launcher import LOOPBACK_LIMITS

    room = max(int(LOOPBACK_LIMITS["MANAFORGE_LIMIT_STREAMS"]), streams + 100)
    return {**LOOPBACK_LIMITS, "MANAFORGE_LIMIT_STREAMS": str(room)}


def main() -> None:
    import argparse

    from deploy.launcher import Stack

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--streams", type=int, default=50_000, help="spectator streams (Watch) to hold")
    parser.add_argument("--seconds", type=float, default=10.0, help="how long four tables play meanwhile")
    args = parser.parse_args()
    with Stack(gateways=1, worker_concurrency=1, settings=stack_settings(args.streams)) as stack:
        print(f"connections: one gateway process holding {args.streams:,} Watch streams over 100 tables", flush=True)
        address, pid = stack.gateway_addresses[0], stack.processes["gateway-0"].pid
        print(summary(connection_run(address, pid, args.streams, seconds=args.seconds, say=print)), flush=True)


if __name__ == "__main__":
    main()
