"""`make soak`: a bounded soak. Bot games, human-driven games and matchmaking run while the stack meets every fault
we know of, at random: kill -9 of any process (either gateway, the worker, the rules service, Redis, the broker), the
broker refusing publishes (out of memory), Redis and the broker paused (SIGSTOP: connections open, no answer), the
broker killed while the worker holds unacknowledged tasks and started again up to 30 s later, and a gateway killed
in the middle of a match (just after a JoinQueue reached it). At the end, the invariants are checked and a summary
printed.

    python -m deploy.soak [--minutes 30] [--seed N] [--only KIND ...]

Checked at the end: every acknowledged move is stored at the version it was acknowledged with (nothing lost);
every game's log has each version once (nothing doubled); every game finished and its replay was validated (nothing
stalled); every player who queued reached a table within STRANDED seconds (nobody stranded); the outbox holds
nothing for finished games. Celery's broker is a Redis of its own here (`Stack(broker=True)`), so that its faults
can be told apart from the game data's. Like `make run`, the soak starts again any process that exits (a worker
whose watchdog found it unhealthy). Exits 1 when an invariant does not hold.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import signal
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
from manaforge.v1 import gateway_pb2 as gw
from manaforge.v1.gateway_pb2 import LoggedAction
from manaforge.v1.storage_pb2 import GameArchive

from deploy.launcher import LOOPBACK_LIMITS, Stack
from gateway.client import Client
from services.tables import keys

BOT_GAMES = ("cardbench", "mana_burn", "manufactory", "rnd")
RETRYABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.INTERNAL)
STRANDED = 45.0  # seconds: a player who queued and kept waiting (with bots asked for after FILL_AFTER) has a table
FILL_AFTER = 15.0
FAULTS = {  # kind: weight (a gateway killed mid-match is done by the queue thread at its next match)
    "kill": 4,
    "broker refusal": 2,
    "redis pause": 1,
    "broker pause": 1,
    "broker blip while tasks are held": 2,
    "gateway killed mid-match": 2,
}


@dataclass
class Ledger:
    """What the soak's clients were told: acknowledged moves, and the tables they made."""

    acked: list[tuple[str, int, str]] = field(default_factory=list)  # (table, version, client action id)
    tables: list[str] = field(default_factory=list)
    queued: list[float] = field(default_factory=list)  # seconds each queued player waited for a table
    stranded: list[str] = field(default_factory=list)
    faults: list[str] = field(default_factory=list)  # each fault, as "kind (target, seconds)"
    lock: threading.Lock = field(default_factory=threading.Lock)
    processes: threading.Lock = field(default_factory=threading.Lock)  # one thread at a time stops or starts one


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
        play_out(stack, ledger, stop, rand, table_id, tokens)


def play_out(
    stack: Stack, ledger: Ledger, stop: threading.Event, rand: random.Random, table_id: str, tokens: list[str]
) -> None:
    """Play a table's human seats (`tokens`, by seat) to the end, recording every acknowledged move."""
    addresses = stack.gateway_addresses
    while not stop.is_set():
        view = call(addresses, rand, "view", table_id, tokens[0])
        if view.outcome.finished:
            return
        seat = view.pending.seats[0]
        view = call(addresses, rand, "view", table_id, tokens[seat])
        if not view.legal_actions:
            continue  # the seat's clock ran out meanwhile
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


def queue_games(stack: Stack, ledger: Ledger, stop: threading.Event, seed: int) -> None:
    """Two players queue for cardbench through different gateways, over and over; now and then the gateway that
    takes the second JoinQueue is killed (-9) a few milliseconds after the call reached it, mid-match. Each player
    keeps waiting (joining again when its ticket is gone), asks for bots after FILL_AFTER seconds, and must have a
    table within STRANDED seconds; the two then play it out."""
    rand = random.Random(seed)
    while not stop.is_set():
        results: dict[str, tuple[str, str, int] | None] = {}
        kill = queued_kill.is_set()
        queued_kill.clear()
        threads = [
            threading.Thread(target=queue_player, args=(stack, ledger, stop, seed + i, name, results, kill and i == 1))
            for i, name in enumerate(("cleo", "dev"))
        ]
        for i, thread in enumerate(threads):
            thread.start()
            if i == 0:
                time.sleep(rand.uniform(0.1, 1.0))  # the first waits in the queue when the second joins
        for thread in threads:
            thread.join()
        seated = {name: found for name, found in results.items() if found is not None}
        tables = {table_id for table_id, _, _ in seated.values()}
        for table_id in tables:
            tokens = {seat: token for t, token, seat in seated.values() if t == table_id}
            with ledger.lock:
                ledger.tables.append(table_id)
            if len(tokens) == 2:  # both at one table: they play it out (else bots play the others' seats)
                play_out(stack, ledger, stop, rand, table_id, [tokens[0], tokens[1]])


def queue_player(
    stack: Stack,
    ledger: Ledger,
    stop: threading.Event,
    seed: int,
    name: str,
    results: dict[str, tuple[str, str, int] | None],
    kill_mid_join: bool,
) -> None:
    rand = random.Random(seed)
    addresses = stack.gateway_addresses
    started = time.monotonic()
    ticket = ""
    results[name] = None
    while not stop.is_set():
        waited = time.monotonic() - started
        if waited > STRANDED:
            with ledger.lock:
                ledger.stranded.append(f"{name} queued {waited:.0f} s ago and has no table (ticket {ticket})")
            return
        address = addresses[1] if kill_mid_join else rand.choice(addresses)
        try:
            with Client(address) as client:
                if not ticket:
                    request = gw.JoinQueueRequest(game="cardbench", seats=2, player_name=name)
                    if kill_mid_join:
                        kill_mid_join = False
                        answer = client.stub.JoinQueue.future(request)
                        time.sleep(rand.uniform(0.0, 0.02))
                        kill_and_restart(stack, ledger, "gateway-1", "gateway killed mid-match", 0.5)
                        found = answer.result()
                    else:
                        found = client.stub.JoinQueue(request)
                    ticket = found.ticket_id
                elif waited > FILL_AFTER:
                    found = client.stub.FillWithBots(gw.FillWithBotsRequest(ticket_id=ticket))
                else:
                    found = client.stub.WaitForMatch(gw.WaitForMatchRequest(ticket_id=ticket, timeout_seconds=2))
        except grpc.RpcError as exc:
            if exc.code() == grpc.StatusCode.NOT_FOUND:
                ticket = ""  # the ticket is gone (its JoinQueue's answer was lost with its gateway): join again
            elif exc.code() not in (*RETRYABLE, grpc.StatusCode.FAILED_PRECONDITION):
                raise
            time.sleep(0.2)
            continue
        if found.matched and found.seat_token:
            with ledger.lock:
                ledger.queued.append(time.monotonic() - started)
            results[name] = (found.table_id, found.seat_token, found.seat)
            return


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


def kill_and_restart(stack: Stack, ledger: Ledger, name: str, kind: str, down: float) -> None:
    """kill -9 of one process, started again `down` seconds later as `make run` would."""
    with ledger.processes:
        stack.processes[name].kill()
        note(ledger, f"{kind} ({name}, {down:.1f} s)")
        time.sleep(down)
        stack.restart(name)


def note(ledger: Ledger, fault: str) -> None:
    with ledger.lock:
        ledger.faults.append(fault)
    print(f"  {time.strftime('%H:%M:%S')} {fault}", flush=True)


def paused(stack: Stack, ledger: Ledger, name: str, kind: str, seconds: float) -> None:
    """SIGSTOP of a Redis for `seconds`: its connections stay open and nothing answers."""
    with ledger.processes:
        process = stack.processes[name]
        process.send_signal(signal.SIGSTOP)
        note(ledger, f"{kind} ({name}, {seconds:.1f} s)")
        try:
            time.sleep(seconds)
        finally:
            process.send_signal(signal.SIGCONT)


def fault(stack: Stack, ledger: Ledger, rand: random.Random) -> None:
    """One fault, chosen at random by FAULTS' weights."""
    kind = rand.choices(list(FAULTS), weights=list(FAULTS.values()))[0]
    broker = redis.Redis.from_url(stack.broker_url, socket_timeout=5)
    if kind == "kill":
        kill_and_restart(stack, ledger, rand.choice(list(stack.processes)), kind, rand.uniform(0.2, 2.0))
    elif kind == "broker refusal":
        seconds = rand.uniform(2, 10)
        broker.config_set("maxmemory-policy", "noeviction")
        broker.config_set("maxmemory", 1)  # every publish refused: "OOM command not allowed"
        note(ledger, f"{kind} (broker, {seconds:.1f} s)")
        try:
            time.sleep(seconds)
        finally:
            broker.config_set("maxmemory", 0)
    elif kind == "redis pause":
        paused(stack, ledger, "redis", kind, rand.uniform(1, 8))
    elif kind == "broker pause":
        paused(stack, ledger, "broker", kind, rand.uniform(1, 8))
    elif kind == "broker blip while tasks are held":
        deadline = time.monotonic() + 10
        while int(broker.hlen("unacked")) == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        kill_and_restart(stack, ledger, "broker", kind, rand.choice([1.0, 3.0, 10.0, 30.0]))
    else:
        queued_kill.set()  # the queue thread kills the gateway itself, just after its JoinQueue reached it


queued_kill = threading.Event()


def killer(stack: Stack, ledger: Ledger, stop: threading.Event, seed: int) -> None:
    rand = random.Random(seed)
    while not stop.wait(rand.uniform(8, 20)):
        fault(stack, ledger, rand)


def reviver(stack: Stack, ledger: Ledger, stop: threading.Event) -> None:
    """What `make run` does: start again any process that exited (a worker whose watchdog found it unhealthy)."""
    while not stop.wait(0.5):
        with ledger.processes:
            for name in stack.revive(say=lambda _: None):
                note(ledger, f"exited by itself ({name}), started again")


def memory(stack: Stack) -> float:
    total = 0
    for process in list(stack.processes.values()):
        with contextlib.suppress(psutil.Error):  # killed a moment ago
            total += psutil.Process(process.pid).memory_info().rss
    return total / 2**20


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", choices=list(FAULTS), action="append", help="these faults only (repeatable)")
    args = parser.parse_args()
    for kind in list(FAULTS):
        if args.only and kind not in args.only:
            del FAULTS[kind]
    ledger = Ledger()
    settings = {**LOOPBACK_LIMITS, "MANAFORGE_DECISION_SECONDS": "20"}
    with (
        tempfile.TemporaryDirectory(prefix="manaforge-soak-") as tmp,
        Stack(
            gateways=2, worker_concurrency=2, response_timeout=1.0, redis_dir=tmp, broker=True, settings=settings
        ) as stack,
    ):
        print(f"soak: {args.minutes:g} min, a fault every 8-20 s, seed {args.seed}", flush=True)
        stop = threading.Event()
        threads = [threading.Thread(target=human_games, args=(stack, ledger, stop, args.seed + i)) for i in range(3)]
        threads.append(threading.Thread(target=bot_games, args=(stack, ledger, stop, args.seed + 10)))
        threads.append(threading.Thread(target=queue_games, args=(stack, ledger, stop, args.seed + 30)))
        threads.append(threading.Thread(target=killer, args=(stack, ledger, stop, args.seed + 20)))
        threads.append(threading.Thread(target=reviver, args=(stack, ledger, stop)))
        for thread in threads:
            thread.start()
        end = time.monotonic() + args.minutes * 60
        while time.monotonic() < end:
            time.sleep(min(30.0, max(0.0, end - time.monotonic())))
            print(
                f"  {time.strftime('%H:%M:%S')} {len(ledger.tables)} tables, {len(ledger.acked)} human moves,"
                f" {len(ledger.queued)} players seated from the queue, stack memory {memory(stack):.0f} MiB",
                flush=True,
            )
        stop.set()
        for thread in threads:
            thread.join(120)
        failures = check(stack, ledger)
        failures += ledger.stranded
        kinds: dict[str, int] = {}
        for item in ledger.faults:
            kinds[item.split(" (")[0]] = kinds.get(item.split(" (")[0], 0) + 1
        waits = sorted(ledger.queued) or [0.0]
        print(
            f"\nsoak summary: {len(ledger.tables)} tables, {len(ledger.acked)} acknowledged human moves, "
            f"{len(ledger.queued)} players seated from the queue (longest wait {waits[-1]:.1f} s), "
            f"{len(ledger.faults)} faults: " + ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
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
