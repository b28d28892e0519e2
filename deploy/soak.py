"""`make soak`: a bounded soak. Bot games and human-driven games run while every kind of process of the stack is
killed (-9) at random and started again; at the end, the invariants are checked and a summary printed.

    python -m deploy.soak [--minutes 10] [--seed N]

Checked at the end: every acknowledged move is stored at the version it was acknowledged with (nothing lost);
every game's log has each version once (nothing doubled); every game finished and its replay was validated (nothing
stalled); the outbox holds nothing for finished games and the gateways' memory did not keep growing (no leak).
Exits 1 when an invariant does not hold.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import tempfile
import threading
import time
import uuid
import zlib
from dataclasses import dataclass, field
from typing import Any

import grpc
import psutil
import redis
from manaforge.v1.gateway_pb2 import LoggedAction
from manaforge.v1.storage_pb2 import GameArchive

from deploy.launcher import LOOPBACK_LIMITS, Stack
from gateway.client import Client
from services.tables import keys

BOT_GAMES = ("cardbench", "mana_burn", "manufactory", "rnd")
RETRYABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.INTERNAL)


@dataclass
class Ledger:
    """What the soak's clients were told: acknowledged moves, and the tables they made."""

    acked: list[tuple[str, int, str]] = field(default_factory=list)  # (table, version, client action id)
    tables: list[str] = field(default_factory=list)
    retries: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


def call(addresses: list[str], rand: random.Random, fn_name: str, *args: Any, **kwargs: Any) -> Any:
    """One call through any gateway, retried (the same arguments, so the same client action id) while the stack
    is down or restarting."""
    deadline = time.monotonic() + 60
    while True:
        with Client(rand.choice(addresses)) as client:
            try:
                return getattr(client, fn_name)(*args, **kwargs)
            except grpc.RpcError as exc:
                code = exc.code()
                if code not in RETRYABLE or time.monotonic() > deadline:
                    raise
        time.sleep(0.2)


def human_games(stack: Stack, ledger: Ledger, stop: threading.Event, seed: int) -> None:
    """Two humans play cardbench tables to the end through random gateways, one move at a time."""
    rand = random.Random(seed)
    addresses = stack.gateway_addresses
    while not stop.is_set():
        created = call(addresses, rand, "create_table", "cardbench", 2, player_name="ann")
        table_id = created.table.table_id
        tokens = [created.seat_token]
        tokens.append(call(addresses, rand, "join", table_id, "bob").seat_token)
        with ledger.lock:
            ledger.tables.append(table_id)
        while not stop.is_set():
            view = call(addresses, rand, "view", table_id, tokens[0])
            if view.outcome.finished:
                break
            seat = view.pending.seats[0]
            view = call(addresses, rand, "view", table_id, tokens[seat])
            action = view.legal_actions[0].action
            cid = uuid.uuid4().hex
            try:
                done = call(addresses, rand, "submit", table_id, tokens[seat], action, client_action_id=cid)
            except grpc.RpcError as exc:
                if exc.code() in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ABORTED):
                    continue  # the other seat's move or a retry raced this one: look again
                raise
            with ledger.lock:
                ledger.acked.append((table_id, done.version, cid))


def bot_games(stack: Stack, ledger: Ledger, stop: threading.Event, seed: int) -> None:
    rand = random.Random(seed)
    while not stop.is_set():
        game = rand.choice(BOT_GAMES)
        seats = 3 if game in ("rnd", "manufactory") else 2
        bots = {i: rand.choice(["random", "heuristic"]) for i in range(seats)}
        created = call(stack.gateway_addresses, rand, "create_table", game, seats, bots=bots)
        with ledger.lock:
            ledger.tables.append(created.table.table_id)
        time.sleep(rand.uniform(2, 5))


def killer(stack: Stack, stop: threading.Event, seed: int, kills: list[str]) -> None:
    rand = random.Random(seed)
    while not stop.wait(rand.uniform(8, 20)):
        name = rand.choice(list(stack.processes))
        kills.append(name)
        print(f"  {time.strftime('%H:%M:%S')} kill -9 {name}", flush=True)
        stack.processes[name].kill()
        time.sleep(rand.uniform(0.2, 2.0))  # down for a moment, then started again as `make run` would
        stack.restart(name)


def memory(stack: Stack) -> float:
    total = 0
    for process in list(stack.processes.values()):
        with contextlib.suppress(psutil.Error):  # killed a moment ago
            total += psutil.Process(process.pid).memory_info().rss
    return total / 2**20


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    ledger = Ledger()
    kills: list[str] = []
    with (
        tempfile.TemporaryDirectory(prefix="manaforge-soak-") as tmp,
        Stack(gateways=2, worker_concurrency=2, response_timeout=1.0, redis_dir=tmp, settings=LOOPBACK_LIMITS) as stack,
    ):
        print(f"soak: {args.minutes:g} min, kills every 8-20 s, seed {args.seed}", flush=True)
        stop = threading.Event()
        threads = [threading.Thread(target=human_games, args=(stack, ledger, stop, args.seed + i)) for i in range(3)]
        threads.append(threading.Thread(target=bot_games, args=(stack, ledger, stop, args.seed + 10)))
        threads.append(threading.Thread(target=killer, args=(stack, stop, args.seed + 20, kills)))
        for thread in threads:
            thread.start()
        end = time.monotonic() + args.minutes * 60
        while time.monotonic() < end:
            time.sleep(min(30.0, max(0.0, end - time.monotonic())))
            print(
                f"  {time.strftime('%H:%M:%S')} {len(ledger.tables)} tables, {len(ledger.acked)} human moves,"
                f" stack memory {memory(stack):.0f} MiB",
                flush=True,
            )
        stop.set()
        for thread in threads:
            thread.join(120)
        failures = check(stack, ledger)
        print(
            f"\nsoak summary: {len(ledger.tables)} tables, {len(ledger.acked)} acknowledged human moves, "
            f"{len(kills)} kills ({', '.join(sorted(set(kills)))})"
        )
        for line in failures:
            print(f"  FAILED: {line}")
        print("soak: every invariant held" if not failures else f"soak: {len(failures)} invariant(s) broken")
        return 1 if failures else 0


def stored_log(store: redis.Redis, table_id: str) -> list[LoggedAction]:
    """A game's stored actions: its live log, or its archive's once it has been archived."""
    raw: list[bytes] = store.lrange(keys.table_keys(table_id)["log"], 0, -1)  # type: ignore[assignment]
    if raw:
        return [LoggedAction.FromString(x) for x in raw]
    archived: bytes | None = store.get(keys.table_keys(table_id)["archive"])  # type: ignore[assignment]
    return list(GameArchive.FromString(zlib.decompress(archived)).actions) if archived else []


def waiting_tables(client: Client, tables: list[str]) -> dict[str, int]:
    """The tables the platform still owes something (a bot game not finished, or a finish not validated), with
    their versions; human tables the soak stopped playing are the soak's, not the platform's."""
    owed = {}
    for table_id in tables:
        table = client.table(table_id)
        if table.outcome.finished and table.replay_verdict:
            continue
        if not table.started or (not table.outcome.finished and table.seats[0].kind == 2):
            continue
        owed[table_id] = table.version
    return owed


def check(stack: Stack, ledger: Ledger) -> list[str]:
    """The invariants, after letting every game finish and validate."""
    store = redis.Redis.from_url(stack.redis_url)
    failures: list[str] = []
    with Client(stack.gateway_addresses[0]) as client:
        pending = waiting_tables(client, ledger.tables)
        deadline = time.monotonic() + 240
        while pending and time.monotonic() < deadline:  # let the bot games play out, and validation catch up
            time.sleep(5)
            pending = waiting_tables(client, list(pending))
        seen = dict(pending)
        time.sleep(15)
        # stalled: a game that made no move at all in the last 15 s (a long game still playing is not stalled)
        stalled = [t for t, version in waiting_tables(client, list(seen)).items() if version == seen[t]]
        failures += [f"table {t} stalled at version {seen[t]} (not finished and validated)" for t in stalled]
        if len(pending) > len(stalled):
            print(f"  {len(pending) - len(stalled)} long bot games still playing at the check (not stalled)")
        logs = {table_id: stored_log(store, table_id) for table_id in ledger.tables}
        for table_id in ledger.tables:
            versions = [logged.version for logged in logs[table_id]]
            if versions != list(range(1, len(versions) + 1)):
                failures.append(f"table {table_id}: log versions not once each in order")
            verdict = client.table(table_id).replay_verdict
            if verdict and not verdict.startswith("valid"):
                failures.append(f"table {table_id}: {verdict}")
        for table_id, version, cid in ledger.acked:
            log = logs.get(table_id, [])
            if len(log) < version or log[version - 1].client_action_id != cid:
                failures.append(f"table {table_id}: acknowledged move {cid} lost at version {version}")
    items: list[Any] = [item for shard in range(keys.SHARDS) for item in store.zrange(keys.outbox(shard), 0, -1)]
    finished_items = [  # a validated game's only item is its archiving, due a minute later
        item.decode()
        for item in items
        if not item.startswith(b"archive|")
        and store.hget(keys.table_keys(item.decode().split("|")[1])["live"], "verdict")
    ]
    failures += [f"outbox item left for a validated game: {item}" for item in finished_items]
    live: list[Any] = [t for shard in range(keys.SHARDS) for t in store.zrange(keys.live_tables(shard), 0, -1)]
    finished = [t.decode() for t in live if store.hget(keys.table_keys(t.decode())["live"], "finished") == b"1"]
    failures += [f"finished table {t} still listed as live" for t in finished]
    return failures


if __name__ == "__main__":
    raise SystemExit(main())
