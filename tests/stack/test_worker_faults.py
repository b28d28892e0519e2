"""The worker under broker and Redis faults: every game goes on within seconds of the fault ending, and the worker
says what happened in JSON lines. Each test runs its own stack, with every process's output in its log directory."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import redis

from deploy.launcher import LOOPBACK_LIMITS, Stack, free_port, redis_server_binary, wait_for_redis
from gateway.client import Client
from services.tables import keys

GAMES = 16  # bot games under way when the fault starts: every shard of the outbox has work on most runs
BACK_WITHIN = 30.0  # seconds after the fault ends by which every game must have moved (the outbox lease is 10 s)


def wait_until(
    check: Callable[[], bool], timeout: float, what: str | Callable[[], str], tick: Callable[[], Any] = lambda: None
) -> float:
    """Seconds until `check` held (calling `tick` between looks); fails the test after `timeout`, saying `what`."""
    started = time.monotonic()
    while not check():
        if time.monotonic() - started > timeout:
            pytest.fail(f"not within {timeout:g} s: {what() if callable(what) else what}")
        tick()
        time.sleep(0.05)
    return time.monotonic() - started


def versions(stack: Stack, tables: list[str]) -> dict[str, int]:
    """Each table's stored version, and -1 once the game is finished (read from Redis, not through a gateway)."""
    data = stack.data_redis()
    pipe = data.pipeline(transaction=False)
    for table_id in tables:
        pipe.hmget(keys.table_keys(table_id)["live"], ["version", "finished"])
    found = {}
    for table_id, (version, finished) in zip(tables, pipe.execute(), strict=True):
        found[table_id] = -1 if version is None or finished == b"1" else int(version)
    return found


def stalled(stack: Stack, before: dict[str, int]) -> list[str]:
    """The unfinished games that have not moved since `before`."""
    now = versions(stack, list(before))
    return [t for t, v in now.items() if v != -1 and v <= before[t]]


def explain(stack: Stack, before: dict[str, int]) -> str:
    """What the stalled games wait for: their outbox items (seconds until due) and the broker's queue."""
    data, broker = stack.data_redis(), redis.Redis.from_url(stack.settings.get("CELERY_BROKER_URL", stack.redis_url))
    now = time.time() * 1000
    waiting = []
    for table_id in stalled(stack, before):
        shard = keys.shard_of(table_id)
        items = [
            (item.decode(), round((score - now) / 1000, 1))
            for item, score in data.zrange(keys.outbox(shard), 0, -1, withscores=True)
            if table_id in item.decode()
        ]
        waiting.append(f"{table_id} (shard {shard}, version {before[table_id]}): {items}")
    queued, unacked = broker.llen("celery"), broker.hlen("unacked")
    return f"{len(waiting)} stalled; queued {queued}, unacked {unacked}; " + "; ".join(waiting[:6])


def worker_lines(stack: Stack) -> list[dict[str, Any]]:
    """The worker's JSON log lines so far (its output is <log_dir>/worker.log)."""
    text = (Path(stack.log_dir) / "worker.log").read_text(errors="replace")
    lines = []
    for line in text.splitlines():
        if line.startswith("{"):
            try:
                lines.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return lines


def bot_games(client: Client, count: int) -> list[str]:
    return [client.create_table("cardbench", 2, bots={0: "random", 1: "random"}).table.table_id for _ in range(count)]


@dataclass
class Broker:
    """A Redis of its own for Celery's broker (the game data stays on the stack's Redis): it can refuse publishes,
    or stop answering, while every move is still stored."""

    url: str
    process: subprocess.Popen[bytes]

    def client(self) -> redis.Redis:
        return redis.Redis.from_url(self.url)


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    port = free_port()
    process = subprocess.Popen(
        [redis_server_binary(), "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    try:
        wait_for_redis(url)
        yield Broker(url, process)
    finally:
        process.kill()
        process.wait(5)


def test_a_broker_refusing_publishes_for_five_seconds_stops_no_game(tmp_path: Path, broker: Broker) -> None:
    """The broker refuses every write (Redis out of memory) for 5 s, while the worker takes a task it then cannot
    record as unacknowledged: every game moves again once the broker accepts publishes. Before, a failed publish
    raised kombu's OperationalError, which ended its dispatcher shard's loop for good while the worker stayed up, and
    the refused bookkeeping ended Celery's consumer ("Unrecoverable error") with the process left running."""
    settings = {**LOOPBACK_LIMITS, "CELERY_BROKER_URL": broker.url}
    with (
        Stack(
            gateways=1, worker_concurrency=1, bot_delay=0.1, settings=settings, log_dir=str(tmp_path / "logs")
        ) as stack,
        Client(stack.gateway_addresses[0]) as client,
    ):
        running = bot_games(client, GAMES)
        wait_until(lambda: min(versions(stack, running).values()) >= 2, 30, "every bot game under way")
        # tasks wait in the queue (one thread is busy): the worker takes one while the broker refuses to record it
        refusing = broker.client()
        wait_until(lambda: int(refusing.llen("celery")) >= 2, 20, "tasks waiting in the broker's queue")
        refusing.config_set("maxmemory-policy", "noeviction")
        refusing.config_set("maxmemory", 1)  # every publish is refused ("OOM command not allowed")
        refused_at = time.monotonic()
        try:
            new = bot_games(client, 24)  # each arms its first bot move: dispatched into the refusal
            time.sleep(max(0.0, 5.0 - (time.monotonic() - refused_at)))
            before = versions(stack, running + new)
        finally:
            refusing.config_set("maxmemory", 0)
        took = wait_until(
            lambda: not stalled(stack, before),
            BACK_WITHIN,
            lambda: f"every game moves once the broker is back: {explain(stack, before)}",
        )
        print(f"every game moved within {took:.1f} s of the broker accepting publishes again")
        refused = [line for line in worker_lines(stack) if line["event"] == "dispatcher step failed; trying again"]
        assert refused and "maxmemory" in refused[0]["error"], "no JSON line of the worker says what went wrong"
        assert stack.processes["worker"].poll() is None


def test_a_worker_whose_dispatcher_is_stuck_exits_and_its_successor_goes_on(tmp_path: Path, broker: Broker) -> None:
    """A publish to a broker that stopped answering (paused: its connections stay open) holds its dispatcher loop
    until the broker timeout (10 s). A loop that begins no step for MANAFORGE_WORKER_STUCK_AFTER seconds (60 unless
    set; 3 here) makes the worker say so and exit, so that its supervisor starts it again."""
    settings = {**LOOPBACK_LIMITS, "CELERY_BROKER_URL": broker.url, "MANAFORGE_WORKER_STUCK_AFTER": "3"}
    with (
        Stack(
            gateways=1, worker_concurrency=2, bot_delay=0.1, settings=settings, log_dir=str(tmp_path / "logs")
        ) as stack,
        Client(stack.gateway_addresses[0]) as client,
    ):
        games = bot_games(client, 4)
        wait_until(lambda: min(versions(stack, games).values()) >= 2, 30, "every bot game under way")
        worker = stack.processes["worker"]
        broker.process.send_signal(signal.SIGSTOP)
        try:
            wait_until(lambda: worker.poll() is not None, 30, "the stuck worker exits")
        finally:
            broker.process.send_signal(signal.SIGCONT)
        assert worker.returncode == 70
        (why,) = [line for line in worker_lines(stack) if line["event"] == "worker unhealthy, exiting"]
        assert why["level"] == "critical" and "no step begun" in " ".join(why["failing"]) and why["status"] == 70
        assert stack.revive(say=lambda _: None) == ["worker"]
        before = versions(stack, games)
        took = wait_until(
            lambda: not stalled(stack, before),
            BACK_WITHIN,
            lambda: f"every game moves with the new worker: {explain(stack, before)}",
        )
        print(f"every game moved within {took:.1f} s of the new worker's start")


def redis_blip(stack: Stack, seconds: float) -> None:
    """kill -9 of Redis, and the same Redis started again on its port `seconds` later (its append-only file kept)."""
    process = stack.processes.pop("redis")
    process.kill()
    process.wait(10)
    time.sleep(seconds)
    stack.start_redis(int(stack.redis_url.rsplit(":", 1)[1].split("/")[0]))
    wait_for_redis(stack.redis_url)


def test_redis_blips_while_the_worker_holds_tasks_stop_no_game(tmp_path: Path) -> None:
    """kill -9 of Redis (the broker and the game data) while the worker holds unacknowledged tasks, started again
    2 s later, twice: every game moves again within seconds each time, with the launcher starting again whatever
    died (as `make run` does). The worker lives through both: kombu's transport no longer ends it with an
    AttributeError on the way to reconnecting (services/workers/broker.py)."""
    with (
        Stack(
            gateways=1,
            worker_concurrency=4,
            bot_delay=0.1,
            redis_dir=str(tmp_path / "redis"),
            settings=LOOPBACK_LIMITS,
            log_dir=str(tmp_path / "logs"),
        ) as stack,
        Client(stack.gateway_addresses[0]) as client,
    ):
        games = bot_games(client, GAMES)
        wait_until(lambda: min(versions(stack, games).values()) >= 2, 30, "every bot game under way")
        restarted: list[str] = []
        for blip in range(2):
            took = blip_while_holding_tasks(stack, games, restarted)
            print(f"blip {blip + 1}: every game moved within {took:.1f} s of Redis coming back")
        assert restarted == [], "the worker exited on a Redis blip"
        assert not [line for line in worker_lines(stack) if line["event"].startswith("Unrecoverable error")]


def blip_while_holding_tasks(stack: Stack, games: list[str], restarted: list[str]) -> float:
    """One Redis blip while the worker holds a task; seconds until every unfinished game moved once Redis was back
    (the launcher starting again what died, and saying so in `restarted`)."""
    broker = redis.Redis.from_url(stack.redis_url)
    wait_until(lambda: int(broker.hlen("unacked")) > 0, 10, "the worker holds a task")
    redis_blip(stack, 2.0)
    before = versions(stack, games)
    return wait_until(
        lambda: not stalled(stack, before),
        BACK_WITHIN,
        lambda: f"every game moves once Redis is back: {explain(stack, before)}",
        tick=lambda: restarted.extend(stack.revive(say=lambda _: None)),
    )


def test_the_sweeper_passes_over_a_table_it_cannot_read(tmp_path: Path) -> None:
    """A table whose stored state cannot be read (a bug) used to end its shard's loop at the sweeper's first look:
    the sweeper must log it and go on re-arming the shard's other tables."""
    with (
        Stack(gateways=1, worker_concurrency=1, bot_delay=60.0, log_dir=str(tmp_path / "logs")) as stack,
        Client(stack.gateway_addresses[0]) as client,
    ):
        by_shard: dict[int, list[str]] = {}
        while not any(len(tables) == 2 for tables in by_shard.values()):  # two games of one shard, oldest first
            table_id = bot_games(client, 1)[0]
            by_shard.setdefault(keys.shard_of(table_id), []).append(table_id)
        unreadable, waiting = next(tables for tables in by_shard.values() if len(tables) == 2)
        data = stack.data_redis()
        data.hset(keys.table_keys(unreadable)["live"], "state", b"\xff" * 8)
        item = f"bot|{waiting}|0|0"
        assert data.zrem(keys.outbox(keys.shard_of(waiting)), item) == 1  # the outbox lost the bot's move
        wait_until(
            lambda: item in [i.decode() for i in data.zrange(keys.outbox(keys.shard_of(waiting)), 0, -1)],
            20,
            "the sweeper re-arms the other table's bot move",
        )
        passed = [line for line in worker_lines(stack) if line["event"] == "sweeper passed over a table"]
        assert {line["table_id"] for line in passed} == {unreadable}
