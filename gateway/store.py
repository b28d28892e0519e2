"""Redis adapter: where tables, live states, action logs and event streams are kept.

Every key of one table carries the hash tag `{<table id>}`, so one Lua script can touch them all on any node of a
Redis Cluster. The live state changes only through `commit.lua`, an atomic versioned compare-and-set.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from typing import Any

import redis
from manaforge.v1.common_pb2 import Event
from manaforge.v1.gateway_pb2 import LoggedAction
from manaforge.v1.storage_pb2 import TableRecord


def _lua(name: str) -> str:
    return resources.files("gateway").joinpath("lua", name).read_text()


@dataclass(frozen=True)
class Live:
    """A table's live state as stored: the version, the last event seq and the serialized game state."""

    version: int
    seq: int
    state: bytes
    started: bool
    finished: bool


@dataclass(frozen=True)
class CommitResult:
    status: str  # ok | dup | conflict
    version: int = 0
    first_seq: int = 0
    last_seq: int = 0


def _keys(table_id: str) -> dict[str, str]:
    tag = f"mf:{{{table_id}}}"
    return {
        "record": f"{tag}:record",
        "live": f"{tag}:live",
        "log": f"{tag}:log",
        "events": f"{tag}:events",
        "done": f"{tag}:done",
        "seats": f"{tag}:seats",
        "tokens": f"{tag}:tokens",
        "channel": f"{tag}:channel",
    }


class RedisStore:
    """Tables, live states and logs in Redis. One client (connection pool) per process, made in bootstrap."""

    OPEN_TABLES = "mf:tables:open"

    def __init__(self, client: redis.Redis) -> None:
        self.redis: Any = client  # redis-py's typing of replies is looser than ours; replies are bytes
        self._commit = client.register_script(_lua("commit.lua"))
        self._claim = client.register_script(_lua("claim_seat.lua"))
        self._queue_join = client.register_script(_lua("queue_join.lua"))
        self._queue_take = client.register_script(_lua("queue_take.lua"))

    # ----- tables ---------------------------------------------------------------------------------------------

    def create_table(self, record: TableRecord, state: bytes, occupants: dict[int, str], listed: bool) -> None:
        keys = _keys(record.table_id)
        pipe = self.redis.pipeline(transaction=True)
        pipe.set(keys["record"], record.SerializeToString())
        pipe.hset(keys["live"], mapping={"version": 0, "seq": 0, "state": state, "finished": 0, "started": 0})
        if occupants:
            pipe.hset(keys["seats"], mapping={str(k): v for k, v in occupants.items()})
        if listed:
            pipe.zadd(self.OPEN_TABLES, {record.table_id: record.created_at})
        pipe.execute()

    def table_record(self, table_id: str) -> TableRecord | None:
        data = self.redis.get(_keys(table_id)["record"])
        return TableRecord.FromString(data) if data is not None else None

    def occupants(self, table_id: str) -> dict[int, str]:
        raw = self.redis.hgetall(_keys(table_id)["seats"])
        return {int(k): v.decode() for k, v in raw.items()}

    def claim_seat(self, table_id: str, seats: int, wanted: int, occupant: str, token_digest: str) -> tuple[str, int]:
        keys = _keys(table_id)
        status, seat, *rest = self._claim(
            keys=[keys["seats"], keys["tokens"], keys["live"]], args=[seats, wanted, occupant, token_digest]
        )
        if rest and int(rest[0]):
            self.redis.zrem(self.OPEN_TABLES, table_id)
        return status.decode(), int(seat)

    def mark_started(self, table_id: str) -> None:
        self.redis.hset(_keys(table_id)["live"], "started", 1)

    def seat_for_token(self, table_id: str, token_digest: str) -> int | None:
        seat = self.redis.hget(_keys(table_id)["tokens"], token_digest)
        return int(seat) if seat is not None else None

    def open_tables(self, limit: int = 100) -> list[str]:
        return [t.decode() for t in self.redis.zrange(self.OPEN_TABLES, 0, limit - 1)]

    def set_verdict(self, table_id: str, verdict: str) -> None:
        self.redis.hset(_keys(table_id)["live"], "verdict", verdict)

    def verdict(self, table_id: str) -> str:
        value = self.redis.hget(_keys(table_id)["live"], "verdict")
        return value.decode() if value else ""

    # ----- live state ----------------------------------------------------------------------------------------

    def live(self, table_id: str) -> Live | None:
        version, seq, state, started, finished = self.redis.hmget(
            _keys(table_id)["live"], ["version", "seq", "state", "started", "finished"]
        )
        if version is None:
            return None
        return Live(int(version), int(seq), state or b"", started == b"1", finished == b"1")

    def commit(
        self,
        table_id: str,
        expected_version: int,
        state: bytes,
        logged: LoggedAction,
        client_action_id: str,
        commit_message: bytes,
        finished: bool,
        events: list[bytes],
    ) -> CommitResult:
        keys = _keys(table_id)
        status, detail = self._commit(
            keys=[keys["live"], keys["log"], keys["events"], keys["done"]],
            args=[
                expected_version,
                state,
                logged.SerializeToString(),
                client_action_id,
                keys["channel"],
                commit_message,
                int(finished),
                *events,
            ],
        )
        if status == b"conflict":
            return CommitResult("conflict")
        version, first, last = (int(x) for x in detail.split(b":"))
        return CommitResult(status.decode(), version, first, last)

    def done_action(self, table_id: str, client_action_id: str) -> CommitResult | None:
        detail = self.redis.hget(_keys(table_id)["done"], client_action_id)
        if detail is None:
            return None
        version, first, last = (int(x) for x in detail.split(b":"))
        return CommitResult("dup", version, first, last)

    # ----- logs and events -----------------------------------------------------------------------------------

    def events(self, table_id: str, first_seq: int, last_seq: int | None = None) -> list[Event]:
        end = f"0-{last_seq}" if last_seq is not None else "+"
        entries = self.redis.xrange(_keys(table_id)["events"], f"0-{max(first_seq, 1)}", end)
        return [Event.FromString(fields[b"e"]) for _, fields in entries]

    def snapshot(self, table_id: str, after_seq: int) -> tuple[list[Event], Live | None]:
        """The events after `after_seq` and the live state, read atomically (no commit in between)."""
        keys = _keys(table_id)
        pipe = self.redis.pipeline(transaction=True)
        pipe.xrange(keys["events"], f"0-{after_seq + 1}", "+")
        pipe.hmget(keys["live"], ["version", "seq", "state", "started", "finished"])
        entries, (version, seq, state, started, finished) = pipe.execute()
        events = [Event.FromString(fields[b"e"]) for _, fields in entries]
        if version is None:
            return events, None
        return events, Live(int(version), int(seq), state or b"", started == b"1", finished == b"1")

    def action_log(self, table_id: str) -> list[LoggedAction]:
        return [LoggedAction.FromString(x) for x in self.redis.lrange(_keys(table_id)["log"], 0, -1)]

    def replace_logged_action(self, table_id: str, index: int, logged: LoggedAction) -> None:
        """Overwrite one log entry: only the tests use it, to prove tampering is caught."""
        self.redis.lset(_keys(table_id)["log"], index, logged.SerializeToString())

    def subscribe(self, table_id: str) -> Any:
        """A subscription to the table's channel, confirmed by the server before this returns."""
        pubsub = self.redis.pubsub()
        pubsub.subscribe(_keys(table_id)["channel"])
        while True:
            message = pubsub.get_message(timeout=5.0)
            if message is None:
                raise TimeoutError("redis did not confirm the subscription")
            if message["type"] == "subscribe":
                return pubsub

    # ----- matchmaking ---------------------------------------------------------------------------------------

    def queue_join(self, queue: str, ticket_id: str, needed: int) -> tuple[list[str], int]:
        matched, waiting = self._queue_join(keys=[queue], args=[ticket_id, needed])
        return [t.decode() for t in matched or []], int(waiting)

    def queue_take(self, queue: str, ticket_id: str, seats: int) -> list[str]:
        return [t.decode() for t in self._queue_take(keys=[queue], args=[ticket_id, seats]) or []]

    def queue_length(self, queue: str) -> int:
        return int(self.redis.llen(queue))

    def save_ticket(self, ticket_id: str, fields: dict[str, Any]) -> None:
        self.redis.hset(f"mf:ticket:{ticket_id}", mapping=fields)
        self.redis.expire(f"mf:ticket:{ticket_id}", 24 * 3600)

    def ticket(self, ticket_id: str) -> dict[str, str]:
        return {k.decode(): v.decode() for k, v in self.redis.hgetall(f"mf:ticket:{ticket_id}").items()}

    def notify_ticket(self, ticket_id: str) -> None:
        key = f"mf:ticket:{ticket_id}:ready"
        pipe = self.redis.pipeline()
        pipe.rpush(key, 1)
        pipe.expire(key, 3600)
        pipe.execute()

    def wait_ticket(self, ticket_id: str, timeout: float) -> None:
        self.redis.blpop([f"mf:ticket:{ticket_id}:ready"], timeout=timeout)


def iter_messages(pubsub: Any, timeout: float) -> Iterator[bytes | None]:
    """Messages from a pub/sub subscription; None after `timeout` seconds of silence (a chance to check liveness)."""
    while True:
        message = pubsub.get_message(timeout=timeout)
        yield message["data"] if message and message["type"] == "message" else None
