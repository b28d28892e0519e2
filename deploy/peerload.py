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
from typing import TYPE_CHECKING, Any

import grpc
import psutil
from manaforge.v1 import gateway_pb2 as gw
from manaforge.v1.common_pb2 import GameConfig
from manaforge.v1.games.cardbench_pb2 import CardbenchAction, CardbenchState
from manaforge.v1.gateway_pb2_grpc import GatewayStub

from services.edge import pack

if TYPE_CHECKING:
    from manaforge.v1.gateway_pb2_grpc import GatewayAsyncStub


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


async def play_match(
    stub: GatewayAsyncStub, window: Window, result: LoadResult, lean: bool, play: bool, folded: bool = True
) -> str:
    """One match. `play`: each seat on one Play stream (updates and moves on the same stream, as the peers' clients
    use one socket), with each move's answer inside its update when `folded` (WatchRequest.results_in_updates);
    otherwise each seat watches with Watch and moves with SubmitAction calls."""
    config = GameConfig(game="cardbench", seats=2)
    created = await stub.CreateTable(gw.CreateTableRequest(config=config, player_name="a"))
    table_id = created.table.table_id
    joined = await stub.JoinTable(gw.JoinTableRequest(table_id=table_id, player_name="b"))
    tokens = [created.seat_token, joined.seat_token]
    sent: dict[int, tuple[int, float]] = {}  # version a move produces -> (the seat that sent it, time.time())

    def seen(me: int, view: gw.SeatView) -> gw.SubmitActionRequest | None:
        """Note the other seat's move if this update shows it; the move to make if it is this seat's turn."""
        now = time.time()
        mover, moved = sent.get(view.version, (me, 0.0))
        if mover != me:
            del sent[view.version]
            if window.holds(moved, now):
                result.moves += 1
                result.latencies_ms.append((now - moved) * 1000)
        if view.outcome.finished or not view.pending.seats or view.pending.seats[0] != me:
            return None
        state = CardbenchState()
        view.view.Unpack(state)
        sent[view.version + 1] = (me, time.time())
        action = pack(CardbenchAction(card=state.hands[me].cards[0]))
        return gw.SubmitActionRequest(client_action_id=f"m{view.version}", action=action)

    def watch(me: int) -> gw.WatchRequest:
        return gw.WatchRequest(table_id=table_id, seat_token=tokens[me], without_text=lean, without_legal_actions=lean)

    async def watching_seat(me: int) -> None:
        async for update in stub.Watch(watch(me)):
            move = seen(me, update.view)
            if move is not None:
                move.table_id, move.seat_token = table_id, tokens[me]
                await stub.SubmitAction(move)

    async def playing_seat(me: int) -> None:
        call = stub.Play()  # type: ignore[call-arg]  # the stubs know only the request-iterator form
        opening = watch(me)
        opening.results_in_updates = folded
        await call.write(gw.PlayRequest(watch=opening))
        async for message in call:
            if message.answered.code:
                result.errors.append(f"answered with code {message.answered.code}")
            if message.HasField("result"):
                if message.result.code:
                    result.errors.append(f"code {message.result.code}: {message.result.message}")
                continue
            if message.update.view.outcome.finished:
                seen(me, message.update.view)
                await call.done_writing()
                return
            move = seen(me, message.update.view)
            if move is not None:
                await call.write(gw.PlayRequest(action=move))

    await asyncio.gather(*((playing_seat if play else watching_seat)(seat) for seat in (0, 1)))
    if window.holds(time.time()):
        result.matches += 1
    return table_id


async def drive(
    addresses: list[str], matches: int, window: Window, lean: bool, play: bool, folded: bool = True
) -> LoadResult:
    result = LoadResult()
    channels = [grpc.aio.insecure_channel(a) for a in addresses]
    stubs = [GatewayStub(c) for c in channels]
    me = psutil.Process()

    async def loop(i: int) -> None:
        stub = stubs[i % len(stubs)]
        while time.time() < window.end:
            try:
                await play_match(stub, window, result, lean, play, folded)
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
    _, pending = await asyncio.wait(players, timeout=10)
    for task in pending:
        task.cancel()
    for channel in channels:
        await channel.close(grace=None)
    return result


def load_process(
    addresses: list[str], matches: int, window: Window, lean: bool, play: bool, out: Queue[Any], folded: bool = True
) -> None:
    """A load process's body: `matches` concurrent matches until the window ends; its result goes to `out`."""
    import uvloop

    out.put(uvloop.run(drive(addresses, matches, window, lean, play, folded)))


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


def cpu_seconds(process: psutil.Process) -> float:
    """A server process's CPU so far: user + system time, its children's included."""
    times = process.cpu_times()
    return float(times.user + times.system + times.children_user + times.children_system)


def first_errors(errors: list[str], limit: int = 3) -> list[str]:
    return [f"{error} (x{errors.count(error)})" for error in itertools.islice(dict.fromkeys(errors), limit)]
