"""The peers' workload, driven from load processes (`make bench` starts them): cardbench matches of 100 moves where
BOTH seats watch the table and the seat to move plays as soon as its own update arrives.

Exactly as `../shared/peers/bgio/README.md` describes it: each match is created, joined by both seats, both seats
connect and receive every update; latency is move sent -> the OTHER seat's client sees the new state; a move counts
when sent and seen inside the timed window; a new match starts after each one ends (set-up inside the window).
"""

from __future__ import annotations

import asyncio
import itertools
import time
from dataclasses import dataclass, field
from multiprocessing.queues import Queue
from typing import Any

import grpc
import psutil
from manaforge.v1 import gateway_pb2 as gw
from manaforge.v1.common_pb2 import GameConfig
from manaforge.v1.games.cardbench_pb2 import CardbenchAction, CardbenchState
from manaforge.v1.gateway_pb2_grpc import GatewayStub

from services.tables.views import pack

MOVES_PER_MATCH = 100


@dataclass
class Window:
    start: float  # time.time() at which the timed window opens
    end: float

    def holds(self, *moments: float) -> bool:
        return all(self.start <= m <= self.end for m in moments)


@dataclass
class LoadResult:
    moves: int = 0
    matches: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    cpu_seconds: float = 0.0  # this load process's utime + stime over the window
    errors: list[str] = field(default_factory=list)


async def play_match(stub: GatewayStub, window: Window, result: LoadResult, lean: bool) -> None:
    created = await stub.CreateTable(
        gw.CreateTableRequest(config=GameConfig(game="cardbench", seats=2), player_name="a")
    )
    table_id = created.table.table_id
    joined = await stub.JoinTable(gw.JoinTableRequest(table_id=table_id, player_name="b"))
    tokens = [created.seat_token, joined.seat_token]
    sent: dict[int, tuple[int, float]] = {}  # version a move produces -> (the seat that sent it, time.time())

    async def seat(me: int) -> None:
        request = gw.WatchRequest(
            table_id=table_id, seat_token=tokens[me], without_text=lean, without_legal_actions=lean
        )
        async for update in stub.Watch(request):
            seen = time.time()
            view = update.view
            version = view.version
            mover, moved = sent.get(version, (me, 0.0))
            if mover != me:  # the other seat's move, now seen here
                del sent[version]
                if window.holds(moved, seen):
                    result.moves += 1
                    result.latencies_ms.append((seen - moved) * 1000)
            if view.outcome.finished:
                return
            if view.pending.seats and view.pending.seats[0] == me:
                state = CardbenchState()
                view.view.Unpack(state)
                action = pack(CardbenchAction(card=state.hands[me].cards[0]))
                sent[version + 1] = (me, time.time())
                await stub.SubmitAction(
                    gw.SubmitActionRequest(
                        table_id=table_id, seat_token=tokens[me], action=action, client_action_id=f"m{version}"
                    )
                )

    await asyncio.gather(seat(0), seat(1))
    if window.holds(time.time()):
        result.matches += 1


async def drive(addresses: list[str], matches: int, window: Window, lean: bool) -> LoadResult:
    result = LoadResult()
    channels = [grpc.aio.insecure_channel(a) for a in addresses]
    stubs = [GatewayStub(c) for c in channels]
    me = psutil.Process()

    async def loop(i: int) -> None:
        stub = stubs[i % len(stubs)]
        while time.time() < window.end:
            try:
                await play_match(stub, window, result, lean)
            except grpc.aio.AioRpcError as exc:
                result.errors.append(f"{exc.code().name}: {exc.details()}")
                await asyncio.sleep(0.05)

    async def measure() -> None:
        await asyncio.sleep(max(0.0, window.start - time.time()))
        before = me.cpu_times()
        await asyncio.sleep(max(0.0, window.end - time.time()))
        after = me.cpu_times()
        result.cpu_seconds = (after.user + after.system) - (before.user + before.system)

    players = [asyncio.ensure_future(loop(i)) for i in range(matches)]
    await measure()
    done, pending = await asyncio.wait(players, timeout=10)
    for task in pending:
        task.cancel()
    for channel in channels:
        await channel.close()
    return result


def load_process(addresses: list[str], matches: int, window: Window, lean: bool, out: Queue[Any]) -> None:
    """A load process's body: `matches` concurrent matches until the window ends; its result goes to `out`."""
    import uvloop

    out.put(uvloop.run(drive(addresses, matches, window, lean)))


def spread(total: int, parts: int) -> list[int]:
    """`total` matches shared among `parts` load processes as evenly as can be (none empty)."""
    counts = [total // parts + (i < total % parts) for i in range(parts)]
    return [c for c in counts if c]


def merge(results: list[LoadResult]) -> LoadResult:
    merged = LoadResult()
    for r in results:
        merged.moves += r.moves
        merged.matches += r.matches
        merged.latencies_ms += r.latencies_ms
        merged.cpu_seconds += r.cpu_seconds
        merged.errors += r.errors
    return merged


def first_errors(errors: list[str], limit: int = 3) -> list[str]:
    return [f"{error} (x{errors.count(error)})" for error in itertools.islice(dict.fromkeys(errors), limit)]
