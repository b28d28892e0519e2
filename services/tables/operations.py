"""What an operator sees and does (the Admin service, gateway/admin.py, over this): players' standing (muted,
banned), the maintenance notice, the audit log, ending a table, and the platform's state read from Redis (live
tables by game, queues, the outbox, gateways' and workers' heartbeats).

Keys are their own ("mf:ops:..."), one each, so they work alike on one Redis and on a cluster.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from manaforge.v1.gateway_pb2 import LoggedAction
from manaforge.v1.storage_pb2 import Commit

from engine_core import game_names
from engine_core.replay import state_digest
from services.tables import keys
from services.tables.errors import TableStateError
from services.tables.followups import commit_args
from services.tables.lookup import Lookup, no_table

STANDING = "mf:ops:standing"  # player id -> "muted" | "banned"
NOTICE = "mf:ops:notice"
AUDIT = "mf:ops:audit"  # a stream capped at AUDIT_KEEP entries
AUDIT_KEEP = 10_000
GATEWAYS = "mf:ops:gateways"  # address -> "<streams>|<draining 0/1>|<unix time>"
WORKERS = "mf:ops:workers"  # name -> unix time of its dispatcher's latest sweep
GATEWAY_GONE = 10.0  # seconds without a heartbeat before a gateway is left out (and forgotten after 10x)
WORKER_GONE = 30.0
ABORTED = "aborted by the operator"  # the reason of a table the operator ended
OPERATOR_SEAT = -1  # the seat of the operator's entry in a game's log
MAX_NOTICE = 500


def is_aborted(reason: str) -> bool:
    return reason == ABORTED


class ModeratedError(Exception):
    """A muted or banned player's call (PERMISSION_DENIED)."""


@dataclass
class Moderation:
    """Players' standing, read at most every `fresh` seconds per process (a ban takes effect within that)."""

    redis: Any
    fresh: float = 1.0
    _standing: dict[str, str] = field(default_factory=dict)
    _read_at: float = -1e9

    async def standing(self, player_id: str) -> str:
        if time.monotonic() - self._read_at > self.fresh:
            raw = await self.redis.hgetall(STANDING)
            self._standing = {k.decode(): v.decode() for k, v in raw.items()}
            self._read_at = time.monotonic()
        return self._standing.get(player_id, "")

    async def check(self, player_id: str, starts: bool) -> None:
        """Refuse a banned player's call, and a muted player's call that `starts` something (a table, a queue)."""
        standing = await self.standing(player_id) if player_id else ""
        if standing == "banned":
            raise ModeratedError("banned by the operator: this player may not use the platform")
        if standing == "muted" and starts:
            raise ModeratedError(
                "muted by the operator: this player may finish the games under way, not start new ones"
            )


class Operations:
    def __init__(self, lookup: Lookup) -> None:
        self.lookup = lookup
        self.store = lookup.store
        self.redis: Any = lookup.store.redis
        self._notice: tuple[float, str] = (-1e9, "")

    # ----- standing, notice, audit -------------------------------------------------------------------------------

    async def set_standing(self, player_id: str, standing: str) -> None:
        if standing:
            await self.redis.hset(STANDING, player_id, standing)
        else:
            await self.redis.hdel(STANDING, player_id)

    async def standings(self) -> dict[str, str]:
        return {k.decode(): v.decode() for k, v in (await self.redis.hgetall(STANDING)).items()}

    async def set_notice(self, text: str) -> None:
        if text:
            await self.redis.set(NOTICE, text)
        else:
            await self.redis.delete(NOTICE)
        self._notice = (-1e9, "")

    async def notice(self, fresh: float = 1.0) -> str:
        """The maintenance notice, read at most every `fresh` seconds per process."""
        read_at, text = self._notice
        if time.monotonic() - read_at > fresh:
            raw = await self.redis.get(NOTICE)
            text = raw.decode() if raw else ""
            self._notice = (time.monotonic(), text)
        return text

    async def audit(self, who: str, action: str, what: str) -> None:
        entry = {"at": f"{time.time():.3f}", "who": who, "action": action, "what": what}
        await self.redis.xadd(AUDIT, entry, maxlen=AUDIT_KEEP, approximate=True)

    async def audit_log(self, limit: int) -> list[tuple[str, dict[str, str]]]:
        entries = await self.redis.xrevrange(AUDIT, count=limit)
        return [(i.decode(), {k.decode(): v.decode() for k, v in fields.items()}) for i, fields in entries]

    # ----- ending a table ----------------------------------------------------------------------------------------

    async def end_table(self, table_id: str) -> int:
        """Finish a table now with the result "aborted by the operator" (no winner; never rated): a commit like a
        move's, logged as the operator's (seat -1), so watchers see the end and the game is validated and archived
        as any other. Returns the version it ended at."""
        for _ in range(16):
            record, live, game = await self.lookup.loaded(table_id)
            if live.finished:
                raise TableStateError(f"end table: {table_id} is already finished")
            state = game.state_from_bytes(live.state)
            header = game.header(state)
            header.version = live.version + 1
            header.pending.Clear()
            header.outcome.Clear()
            header.outcome.finished = True
            header.outcome.reason = ABORTED
            data = state.SerializeToString(deterministic=True)
            logged = LoggedAction(
                version=live.version + 1, seat=OPERATOR_SEAT, text=ABORTED, state_digest=state_digest(state)
            )
            commit = Commit(version=live.version + 1, first_seq=live.seq + 1, last_seq=live.seq, state=data)
            result = await self.store.commit(
                table_id,
                live.version,
                OPERATOR_SEAT,
                "",
                f"~operator-end-{live.version}",
                data,
                logged.SerializeToString(),
                commit.SerializeToString(),
                True,
                [],
                commit_args(record, game, state),
                record.config.game,
            )
            if result.status in ("ok", "dup"):
                self.lookup.forget(table_id)
                return result.version
            if result.status != "conflict":
                raise no_table(table_id)
        raise TableStateError("end table: the game kept changing; try again")

    # ----- what the platform is doing ----------------------------------------------------------------------------

    async def tables_by_game(self) -> dict[str, tuple[int, int]]:
        """game -> (tables being played, tables waiting for players)."""
        names = list(game_names())
        pipe = self.redis.pipeline(transaction=False)
        for name in names:
            for shard in range(keys.SHARDS):
                pipe.zcard(keys.listing("playing", name, shard))
                pipe.zcard(keys.listing("open", name, shard))
        counts = await pipe.execute()
        out = {}
        for i, name in enumerate(names):
            mine = counts[i * 2 * keys.SHARDS : (i + 1) * 2 * keys.SHARDS]
            out[name] = (sum(mine[0::2]), sum(mine[1::2]))
        return out

    async def outbox(self) -> tuple[int, float]:
        """(items waiting over every shard, seconds the most overdue one has been due; 0 when none is)."""
        pipe = self.redis.pipeline(transaction=False)
        for shard in range(keys.SHARDS):
            pipe.zcard(keys.outbox(shard))
            pipe.zrange(keys.outbox(shard), 0, 0, withscores=True)
        replies = await pipe.execute()
        now_ms = time.time() * 1000
        items = sum(replies[0::2])
        firsts = [first[0][1] for first in replies[1::2] if first]
        lag = max(0.0, (now_ms - min(firsts)) / 1000) if firsts else 0.0
        return int(items), lag

    async def queues(self) -> list[tuple[str, int, float]]:
        """(queue tag, tickets waiting, seconds the first has waited) of every queue with someone in it."""
        out = []
        async for key in self.redis.scan_iter(match="mf:{q.*}:queue", count=1000):
            name = key.decode() if isinstance(key, bytes) else key
            tickets = await self.redis.lrange(name, 0, -1)
            if not tickets:
                continue
            first = tickets[0].decode()
            joined = await self.redis.hget(keys.ticket(first), "joined") if keys.is_ticket_id(first) else None
            waited = max(0.0, time.time() - float(joined)) if joined else 0.0
            out.append((name[len("mf:{") : -len("}:queue")], len(tickets), waited))
        return sorted(out)

    async def gateway_seen(self, address: str, streams: int, draining: bool) -> None:
        await self.redis.hset(GATEWAYS, address, f"{streams}|{int(draining)}|{time.time():.3f}")

    async def gateways(self) -> list[tuple[str, int, bool, float]]:
        """(address, streams, draining, seconds since its heartbeat) of the gateways seen lately."""
        now = time.time()
        out = []
        for address, value in (await self.redis.hgetall(GATEWAYS)).items():
            streams, draining, at = value.decode().split("|")
            ago = now - float(at)
            if ago > 10 * GATEWAY_GONE:
                await self.redis.hdel(GATEWAYS, address)
            elif ago <= GATEWAY_GONE:
                out.append((address.decode(), int(streams), draining == "1", ago))
        return sorted(out)

    async def workers(self) -> list[tuple[str, float]]:
        """(name, seconds since its dispatcher's latest sweep) of the workers seen lately."""
        now = time.time()
        out = []
        for name, at in (await self.redis.hgetall(WORKERS)).items():
            ago = now - float(at)
            if ago > 10 * WORKER_GONE:
                await self.redis.hdel(WORKERS, name)
            elif ago <= WORKER_GONE:
                out.append((name.decode(), ago))
        return sorted(out)


async def worker_seen(redis: Any, name: str) -> None:
    """A worker's heartbeat (its dispatcher calls it at each sweep of shard 0)."""
    await redis.hset(WORKERS, name, f"{time.time():.3f}")
