"""Every registered game through the stack (`make bench`'s per-game section; `python -m deploy.bench --only games`).

For each game of the registry (cardbench, the reference, included), `tables` tables at the game's minimum seat count
play at once, every seat held by a scripted client as the SDK's bot runner and the terminal client play: a Watch
stream per seat (legal actions in every update, no text) and a SubmitAction per move, on a turn with the version it
was chosen at (`expected_version`; a vote or an answer to a response window without it, as the clients send them). A
seat whose decision the game waits for picks uniformly among its view's legal actions (one seeded `random.Random` per
table; no think time, no bots), so each game is played at whatever mix of actions its legal actions offer. A finished
game is followed by a new table, until the timed window ends.

Per game: moves/s (moves sent and applied inside the window), p50/p99 of a move sent -> each other seat's update
showing it, server CPU ms per move by process (utime+stime from /proc over the window), and beside them what the
rules alone cost per move in this process: `apply` plus every seat's `view` (on messages, as the services run them),
and `apply` plus every seat's encoded update as the hub builds it (view, legal actions described, card notes), so
what the gateways, Redis and the worker add for each game shows.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import random
import threading
import time
import uuid
from dataclasses import dataclass, field
from multiprocessing.queues import Queue
from typing import TYPE_CHECKING, Any

import grpc
import psutil
from manaforge.v1 import gateway_pb2 as gw
from manaforge.v1.common_pb2 import DecisionKind, GameConfig
from manaforge.v1.gateway_pb2_grpc import GatewayStub

from deploy.connections import percentile
from deploy.launcher import Stack
from deploy.peerload import Window, cpu_seconds, first_errors
from engine_core import GAMES, Game
from services.tables.views import watch_update

if TYPE_CHECKING:
    from manaforge.v1.gateway_pb2_grpc import GatewayAsyncStub


@dataclass
class GameLoad:
    """What the scripted clients of one game saw."""

    moves: int = 0  # sent and applied inside the window
    games: int = 0  # finished inside the window
    stale: int = 0  # refused because the game had moved on first (ABORTED on a turn; a vote no longer open)
    latencies_ms: list[float] = field(default_factory=list)  # a move sent -> each other seat's update showing it
    errors: list[str] = field(default_factory=list)
    cpu_seconds: float = 0.0  # the load process's own, over the window


async def play_table(
    stub: GatewayAsyncStub, game: str, seats: int, rand: random.Random, window: Window, load: GameLoad
) -> None:
    """One table of `game` played to its end by `seats` scripted seats (or until cancelled)."""
    created = await stub.CreateTable(gw.CreateTableRequest(config=GameConfig(game=game, seats=seats), player_name="p0"))
    table_id = created.table.table_id
    tokens = {created.seat: created.seat_token}
    for k in range(1, seats):
        joined = await stub.JoinTable(gw.JoinTableRequest(table_id=table_id, player_name=f"p{k}"))
        tokens[joined.seat] = joined.seat_token
    seen: dict[int, dict[int, float]] = {seat: {} for seat in tokens}  # seat -> version -> when it first saw it
    commits: list[tuple[int, int, float]] = []  # (mover, version its move made, when it was sent), in the window

    async def seat_task(seat: int) -> None:
        acted = known = -1
        async for update in stub.Watch(gw.WatchRequest(table_id=table_id, seat_token=tokens[seat], without_text=True)):
            view = update.view
            seen[seat].setdefault(view.version, time.time())
            if view.outcome.finished:
                if seat == 0 and window.holds(time.time()):
                    load.games += 1
                return
            if view.version < known or view.version <= acted or not view.legal_actions:
                continue  # from before this seat's own move, already decided at, or not this seat's decision
            acted = known = view.version
            request = gw.SubmitActionRequest(
                table_id=table_id,
                seat_token=tokens[seat],
                client_action_id=uuid.uuid4().hex,
                action=rand.choice(view.legal_actions).action,
                expected_version=view.version if view.pending.kind == DecisionKind.DECISION_KIND_TURN else None,
            )
            sent = time.time()
            try:
                done = await stub.SubmitAction(request)
            except grpc.aio.AioRpcError as error:
                late = error.code() == grpc.StatusCode.FAILED_PRECONDITION and not request.HasField("expected_version")
                if error.code() != grpc.StatusCode.ABORTED and not late:
                    raise
                load.stale += 1  # the game moved on first: the next update says where to
                continue
            known = max(known, done.version)
            if window.holds(sent, time.time()):
                load.moves += 1
                commits.append((seat, done.version, sent))

    tasks = [asyncio.ensure_future(seat_task(seat)) for seat in tokens]
    try:
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()  # one seat failed: the others would wait for its moves for ever
        for mover, version, sent in commits:
            for seat, times in seen.items():
                shown = [t for v, t in times.items() if v >= version]  # the first update at or after the commit
                if seat != mover and shown and window.holds(min(shown)):
                    load.latencies_ms.append((min(shown) - sent) * 1000)


async def drive_game(addresses: list[str], game: str, tables: int, window: Window, seed: int) -> GameLoad:
    """`tables` tables of `game` at once, each followed by a new one when its game ends, until the window ends."""
    load = GameLoad()
    seats = next(g.info.min_seats for g in GAMES if g.info.name == game)
    channels = [grpc.aio.insecure_channel(a) for a in addresses]
    stubs = [GatewayStub(c) for c in channels]
    me = psutil.Process()

    async def loop(i: int) -> None:
        rand = random.Random(seed * 1_000 + i)
        while time.time() < window.end:
            try:
                await play_table(stubs[i % len(stubs)], game, seats, rand, window, load)
            except grpc.aio.AioRpcError as error:
                if time.time() < window.end:
                    load.errors.append(f"{error.code().name}: {error.details()}")
                await asyncio.sleep(0.05)

    players = [asyncio.ensure_future(loop(i)) for i in range(tables)]
    await asyncio.sleep(max(0.0, window.start - time.time()))
    before = me.cpu_times()
    await asyncio.sleep(max(0.0, window.end - time.time()))
    after = me.cpu_times()
    load.cpu_seconds = (after.user + after.system) - (before.user + before.system)
    for task in players:
        task.cancel()  # a game still under way stops here: its moves after the window would not count
    await asyncio.gather(*players, return_exceptions=True)
    for channel in channels:
        await channel.close(grace=None)
    return load


def load_process(addresses: list[str], game: str, tables: int, window: Window, seed: int, out: Queue[Any]) -> None:
    """A load process's body: one game's tables until the window ends; the GameLoad goes to `out`."""
    import uvloop

    out.put(uvloop.run(drive_game(addresses, game, tables, window, seed)))


def rules_cost(game: Game[Any, Any], seconds: float, seed: int = 1) -> tuple[float, float]:
    """µs per move of random playouts on messages (the services' kind of state), at the minimum seat count: `apply`
    plus every seat's view, and `apply` plus every seat's encoded update (text left out, legal actions in). The
    thread's CPU time is counted, not the clock's, so time the machine gives other processes is left out."""
    rand = random.Random(seed)
    config = GameConfig(game=game.info.name, seats=game.info.min_seats)
    seats = range(game.info.min_seats)
    moves = 0
    viewed = updated = 0.0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        state = game.new_game(config, rand.getrandbits(63))
        while not game.is_terminal(state) and time.perf_counter() < deadline:
            seat = rand.choice(game.pending_seats(state))
            action = rand.choice(game.legal_actions(state, seat))
            start = time.thread_time()
            after, events = game.apply(state, seat, action)
            applied = time.thread_time()
            for s in seats:
                game.view(after, s)
            done = time.thread_time()
            for s in seats:
                watch_update("t", game, after, s, moves, events, (False, True))
            viewed += done - start
            updated += (applied - start) + time.thread_time() - done
            moves += 1
            state = after
    return viewed * 1e6 / max(1, moves), updated * 1e6 / max(1, moves)


def game_run(
    stack: Stack, game: Game[Any, Any], tables: int, seconds: float, warmup: float, seed: int = 1, spawn: bool = True
) -> dict[str, Any]:
    """One game's row: its tables played through `stack` over a `seconds` window after `warmup`. `spawn`: the load
    in a process of its own (as `make bench` runs it), else in this one (the tests)."""
    name = game.info.name
    server = {process: psutil.Process(p.pid) for process, p in stack.processes.items()}
    if spawn:
        context = multiprocessing.get_context("spawn")
        out: Any = context.Queue()
        start = time.time() + 2.0 + warmup  # the load process needs about 2 s to start
        window = Window(start, start + seconds)
        worker = context.Process(target=load_process, args=(stack.gateway_addresses, name, tables, window, seed, out))
        worker.start()
    else:
        start = time.time() + warmup
        window = Window(start, start + seconds)
        measured: list[GameLoad] = []

        async def run_here() -> None:
            measured.append(await drive_game(stack.gateway_addresses, name, tables, window, seed))

        runner = threading.Thread(target=lambda: asyncio.run(run_here()))
        runner.start()
    time.sleep(max(0.0, window.start - time.time()))
    before = {process: cpu_seconds(p) for process, p in server.items()}
    time.sleep(max(0.0, window.end - time.time()))
    after = {process: cpu_seconds(p) if p.is_running() else before[process] for process, p in server.items()}
    if spawn:
        load: GameLoad = out.get(timeout=60)
        worker.join(10)
    else:
        runner.join(60)
        load = measured[0]
    moves = max(1, load.moves)
    cpu = {process: (after[process] - before[process]) * 1000 / moves for process in server}
    return {
        "game": name,
        "seats": game.info.min_seats,
        "tables": tables,
        "moves": load.moves,
        "moves_per_s": load.moves / seconds,
        "games": load.games,
        "stale": load.stale,
        "p50": percentile(load.latencies_ms, 50),
        "p99": percentile(load.latencies_ms, 99),
        "latencies": len(load.latencies_ms),
        "cpu_ms": cpu,
        "server_cpu_ms": sum(cpu.values()),
        "load_cpu_ms": load.cpu_seconds * 1000 / moves,
        "errors": first_errors(load.errors),
    }


def games_section(
    stack: Stack, tables: int, seconds: float, warmup: float, rules_seconds: float = 2.0, spawn: bool = True
) -> list[dict[str, Any]]:
    """Every registered game's row, one game at a time (so each one's server CPU is its own)."""
    rows = []
    for game in GAMES:
        row = game_run(stack, game, tables, seconds, warmup, spawn=spawn)
        row["views_us"], row["updates_us"] = rules_cost(game, rules_seconds)
        rows.append(row)
    return rows


def games_lines(rows: list[dict[str, Any]]) -> list[str]:
    """The section's table: a row per game, the server CPU split by process below it."""
    lines = [
        f"{'game':<12} {'seats':>5} {'moves/s':>8} {'p50 ms':>7} {'p99 ms':>7} {'server CPU ms/move':>19}"
        f" {'apply+views µs':>14} {'apply+updates µs':>16} {'games':>6} {'stale':>6}"
    ]
    for row in rows:
        lines.append(
            f"{row['game']:<12} {row['seats']:>5} {row['moves_per_s']:>8,.0f} {row['p50']:>7.2f} {row['p99']:>7.2f}"
            f" {row['server_cpu_ms']:>19.3f} {row['views_us']:>14.0f} {row['updates_us']:>16.0f} {row['games']:>6}"
            f" {row['stale']:>6}"
        )
        split = "  ".join(f"{process} {ms:.3f}" for process, ms in row["cpu_ms"].items() if ms >= 0.0005)
        lines.append(f"{'':<12} CPU by process: {split}; load clients {row['load_cpu_ms']:.3f} ms/move")
        if row["errors"]:
            lines.append(f"{'':<12} errors: {'; '.join(row['errors'])}")
    return lines
