"""What idle Events streams cost one gateway, and how soon a your_turn reaches a stream after the commit.

    python -m deploy.events_cost [--streams 0,1000,10000] [--seconds 30] [--turns 40]

A stack with two gateways (and a worker) on a Redis of its own. For each count: that many registered players, each
holding one Events stream open on the first gateway, in pairs at a started two-seat cardbench table (a game under
way for every stream, nobody moving). Over `--seconds`: that gateway process's CPU (% of one core, psutil) and the
commands Redis processed a second (INFO stats' total_commands_processed; the row with 0 streams is the stack's own
floor: the worker's broker polls, the sweeper). Then `--turns` moves, one at a time on tables of the held players,
made on the second gateway (the commit reaches the first through pub/sub): the time from sending the move to the
first `your_turn` of its version on a held stream (p50, p90). The machine's load average is printed beside each
row: a shared machine's figures move with it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from typing import Any

import grpc
import psutil
from manaforge.v1 import gateway_pb2 as gw
from manaforge.v1.common_pb2 import GameConfig
from manaforge.v1.gateway_pb2_grpc import GatewayStub

from deploy.launcher import LOOPBACK_LIMITS, Stack

STREAMS_PER_CHANNEL = 500  # HTTP/2 streams per client connection
OPENING = 100  # calls in flight while setting up


def credentials(player: gw.Player) -> tuple[tuple[str, str], ...]:
    return (("x-player-id", player.player_id), ("x-player-key", player.secret_key))


class Held:
    """The players of one measurement, their tables and their open Events streams."""

    def __init__(self, address: str, count: int) -> None:
        self.channels = [grpc.aio.insecure_channel(address) for _ in range(max(1, count // STREAMS_PER_CHANNEL + 1))]
        self.count = count
        self.players: list[gw.Player] = []
        self.tokens: dict[str, str] = {}  # player id -> seat token
        self.table_of: dict[str, str] = {}  # player id -> table id
        self.turns: dict[tuple[str, int], float] = {}  # (table id, version) -> when a your_turn of it first came
        self.open = 0
        self.failed: list[str] = []  # why streams that never opened were refused
        self.tasks: list[asyncio.Task[None]] = []

    def stub(self, i: int) -> Any:  # its calls are awaitable (grpc.aio): typed loosely
        return GatewayStub(self.channels[i % len(self.channels)])

    async def setup(self, run: str) -> None:
        gate = asyncio.Semaphore(OPENING)

        async def register(i: int) -> gw.Player:
            async with gate:
                player: gw.Player = await self.stub(i).RegisterPlayer(gw.RegisterPlayerRequest(name=f"ev{run}x{i}"))
                return player

        self.players = list(await asyncio.gather(*(register(i) for i in range(self.count))))

        async def pair(i: int) -> None:
            a, b = self.players[i], self.players[i + 1]
            async with gate:
                created = await self.stub(i).CreateTable(
                    gw.CreateTableRequest(config=GameConfig(game="cardbench", seats=2), seats=[gw.SeatRequest()] * 2),
                    metadata=credentials(a),
                )
                table_id = created.table.table_id
                joined = await self.stub(i).JoinTable(gw.JoinTableRequest(table_id=table_id), metadata=credentials(b))
            self.tokens[a.player_id], self.tokens[b.player_id] = created.seat_token, joined.seat_token
            self.table_of[a.player_id] = self.table_of[b.player_id] = table_id

        await asyncio.gather(*(pair(i) for i in range(0, self.count - 1, 2)))

    async def hold(self) -> None:
        """Every player's Events stream, open and read until closed."""
        ready = asyncio.Semaphore(OPENING)

        async def one(i: int, player: gw.Player) -> None:
            await ready.acquire()
            call = self.stub(i).Events(gw.EventsRequest(), metadata=credentials(player))
            first = True
            try:
                async for event in call:
                    if first:
                        first = False
                        self.open += 1
                        ready.release()
                    if event.WhichOneof("kind") == "your_turn":
                        key = (event.your_turn.table_id, event.your_turn.version)
                        self.turns.setdefault(key, time.perf_counter())
            except grpc.aio.AioRpcError as exc:
                if first:
                    self.failed.append(f"{exc.code().name}: {exc.details()}")
                    ready.release()

        self.tasks = [asyncio.ensure_future(one(i, p)) for i, p in enumerate(self.players)]
        while self.open + len(self.failed) < self.count:
            await asyncio.sleep(0.2)

    async def turn_latency(self, turns: int, mover: GatewayStub) -> list[float]:
        """Moves one at a time on the held players' tables, made on another gateway (the commit reaches this one
        through pub/sub); seconds from sending each move to its your_turn on a held stream."""
        seconds: list[float] = []
        for i in range(min(turns, self.count // 2)):
            player = self.players[2 * i]
            table_id, token = self.table_of[player.player_id], self.tokens[player.player_id]
            stub: Any = mover
            view = await stub.GetView(gw.GetViewRequest(table_id=table_id, seat_token=token))
            if not view.legal_actions:
                player = self.players[2 * i + 1]
                token = self.tokens[player.player_id]
                view = await stub.GetView(gw.GetViewRequest(table_id=table_id, seat_token=token))
            if not view.legal_actions:
                continue
            action = view.legal_actions[0].action
            sent = time.perf_counter()
            done = await stub.SubmitAction(gw.SubmitActionRequest(table_id=table_id, seat_token=token, action=action))
            deadline = time.perf_counter() + 10
            while (table_id, done.version) not in self.turns and time.perf_counter() < deadline:
                await asyncio.sleep(0.001)
            if (table_id, done.version) in self.turns:
                seconds.append(self.turns[table_id, done.version] - sent)
        return seconds

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        for channel in self.channels:
            await channel.close(grace=None)


def commands(stack: Stack) -> int:
    return int(stack.data_redis().info("stats")["total_commands_processed"])


async def measure(stack: Stack, count: int, seconds: float, turns: int, run: str) -> str:
    held = Held(stack.gateway_addresses[0], count)
    try:
        await held.setup(run)
        await held.hold()
        await asyncio.sleep(5)  # the streams' opening reads (and their second look, SETTLE later) are done
        gateway = psutil.Process(stack.processes["gateway-0"].pid)
        cpu_before, ops_before, started = sum(gateway.cpu_times()[:2]), commands(stack), time.perf_counter()
        await asyncio.sleep(seconds)
        elapsed = time.perf_counter() - started
        cpu = (sum(gateway.cpu_times()[:2]) - cpu_before) / elapsed * 100
        ops = (commands(stack) - ops_before) / elapsed
        load = os.getloadavg()[0]
        async with grpc.aio.insecure_channel(stack.gateway_addresses[1]) as other:
            latency = await held.turn_latency(turns, GatewayStub(other)) if count >= 2 else []
        turn = (
            f"your_turn p50 {statistics.median(latency) * 1000:7.1f} ms"
            f" p90 {statistics.quantiles(latency, n=10)[-1] * 1000:7.1f} ms ({len(latency)} moves)"
            if len(latency) >= 2
            else "your_turn -"
        )
        refused = f" ({len(held.failed)} refused: {held.failed[0]})" if held.failed else ""
        return (
            f"{held.open:6d} idle Events streams{refused}: gateway {cpu:5.1f}% of a core, redis {ops:7.0f} commands/s,"
            f" {turn}   (load average {load:.2f})"
        )
    finally:
        await held.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--streams", default="0,1000,10000", help="idle Events streams held, one run each")
    parser.add_argument("--seconds", type=float, default=30.0, help="the idle window of each run")
    parser.add_argument("--turns", type=int, default=40, help="moves timed to their your_turn, each run")
    args = parser.parse_args()
    settings = {**LOOPBACK_LIMITS, "MANAFORGE_LIMIT_STREAMS": "60000"}
    counts = [int(n) for n in args.streams.split(",")]

    async def runs(stack: Stack) -> None:  # one event loop for every run: grpc.aio stays bound to its first
        for run, count in enumerate(counts):
            print(await measure(stack, count, args.seconds, args.turns, str(run)), flush=True)

    with Stack(gateways=2, settings=settings) as stack:  # streams on the first, moves made on the second
        asyncio.run(runs(stack))


if __name__ == "__main__":
    main()
