"""What an operator sees and does (the Admin service, gateway/admin.py, over this): players' standing (muted,
banned), the maintenance notice, the audit log, ending a table, and the platform's state read from Redis (live
tables by game, queues, the outbox, gateways' and workers' heartbeats).

Keys are their own ("mf:ops:..."), one each, so they work alike on one Redis and on a cluster.
"""

from __future__ import annotations

import json
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

STANDING = "mf:ops:standing"  # player id -> "muted" | "banned", or a Standing as JSON (with an end or a reason)
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


# Deletes a player's standing only if it is still the one read (an expired one; not one the operator set since).
FORGET_EXPIRED = """
if redis.call('hget', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('hdel', KEYS[1], ARGV[1]) end
return 0
"""


@dataclass(frozen=True)
class Standing:
    """A player's standing: "muted" or "banned", until a unix time (0: until the operator clears it), and the
    operator's reason (told to the player)."""

    kind: str
    until: float = 0.0
    reason: str = ""

    def is_over(self, now: float) -> bool:
        return bool(self.until) and now >= self.until

    def encode(self) -> str:
        """The plain word when there is nothing more (what earlier releases read), else JSON."""
        if not self.until and not self.reason:
            return self.kind
        return json.dumps({"standing": self.kind, "until": self.until, "reason": self.reason})

    @classmethod
    def decode(cls, raw: str) -> Standing:
        if not raw.startswith("{"):
            return cls(raw)
        fields = json.loads(raw)
        return cls(str(fields["standing"]), float(fields.get("until", 0.0)), str(fields.get("reason", "")))

    def term(self, now: float) -> str:
        """How long it lasts, in words: "until 2026-12-07 15:00:00 UTC (in 10 min)" or "until cleared"."""
        if not self.until:
            return "until cleared"
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(self.until))
        return f"until {stamp} UTC (in {_span(self.until - now)})"


def _span(seconds: float) -> str:
    seconds = max(0, round(seconds))
    for unit, size in (("d", 86_400), ("h", 3_600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.1f} {unit}".replace(".0 ", " ")
    return f"{seconds} s"


async def read_standings(redis: Any, now: float) -> dict[str, Standing]:
    """Every player's standing now in force; expired ones are removed from Redis as they are seen."""
    raw = {k.decode(): v.decode() for k, v in (await redis.hgetall(STANDING)).items()}
    standings = {player_id: Standing.decode(value) for player_id, value in raw.items()}
    for player_id in [p for p, standing in standings.items() if standing.is_over(now)]:
        await redis.eval(FORGET_EXPIRED, 1, STANDING, player_id, raw[player_id])
        del standings[player_id]
    return standings


@dataclass
class Moderation:
    """Players' standing, read at most every `fresh` seconds per process (a ban takes effect within that; a mute or
    a ban with an end is over at its end, to the second)."""

    redis: Any
    fresh: float = 1.0
    _standing: dict[str, Standing] = field(default_factory=dict)
    _read_at: float = -1e9

    async def standing(self, player_id: str) -> Standing | None:
        if time.monotonic() - self._read_at > self.fresh:
            self._standing = await read_standings(self.redis, time.time())
            self._read_at = time.monotonic()
        standing = self._standing.get(player_id)
        return None if standing is None or standing.is_over(time.time()) else standing

    async def check(self, player_id: str, starts: bool) -> None:
        """Refuse a banned player's every call, and a muted player's call that `starts` something (a game, a seat at
        one, a queue, a challenge), saying why and until when."""
        standing = await self.standing(player_id) if player_id else None
        if standing is None or (standing.kind == "muted" and not starts):
            return
        why = f" ({standing.reason})" if standing.reason else ""
        term = standing.term(time.time())
        if standing.kind == "banned":
            raise ModeratedError(f"banned by the operator {term}{why}: this player may not use the platform")
        raise ModeratedError(
            f"muted by the operator {term}{why}: this player may finish the games under way (play, watch, rejoin"
            " its seats), not create or join tables, queue, or send or accept challenges"
        )


KEY_TRIES = 20  # operator keys tried and not right in KEY_WINDOW, over every gateway, before Admin locks for all
KEY_TRIES_ONE = 5  # ... of one key, before that key is refused unchecked
KEY_WINDOW = 60.0  # seconds: the window starts at its first try
KEY_LOCK = 60.0  # seconds a lock lasts

# KEYS: the lock for all, the tries of all, the key's lock, the key's tries. ARGV: window ms, tries, tries of one.
# A lock in force: {scope, ms left}. Else the try is counted (a try past a limit is not, and is refused as locked
# until its window ends: so at most the limit's keys are checked in a window, however many come at once).
KEY_TRY = """
for i, scope in ipairs({'all', 'key'}) do
  local left = redis.call('pttl', KEYS[2 * i - 1])
  if left > 0 then return {scope, left} end
end
local all, one = redis.call('incr', KEYS[2]), redis.call('incr', KEYS[4])
if all == 1 then redis.call('pexpire', KEYS[2], ARGV[1]) end
if one == 1 then redis.call('pexpire', KEYS[4], ARGV[1]) end
if all > tonumber(ARGV[2]) or one > tonumber(ARGV[3]) then
  redis.call('decr', KEYS[2])
  redis.call('decr', KEYS[4])
  if all > tonumber(ARGV[2]) then return {'all', redis.call('pttl', KEYS[2])} end
  return {'key', redis.call('pttl', KEYS[4])}
end
return {'', 0}
"""
# After a wrong key. Same KEYS; ARGV: lock ms, tries, tries of one. The lock it sets ('all', 'key'), or ''.
KEY_WRONG = """
if tonumber(redis.call('get', KEYS[2]) or '0') >= tonumber(ARGV[2]) then
  redis.call('set', KEYS[1], '1', 'PX', ARGV[1])
  redis.call('del', KEYS[2])
  return 'all'
end
if tonumber(redis.call('get', KEYS[4]) or '0') >= tonumber(ARGV[3]) then
  redis.call('set', KEYS[3], '1', 'PX', ARGV[1])
  redis.call('del', KEYS[4])
  return 'key'
end
return ''
"""
# After the right key: its try is not counted. KEYS: the tries of all, the key's tries.
KEY_RIGHT = """
for _, key in ipairs(KEYS) do
  if tonumber(redis.call('get', key) or '0') > 0 then redis.call('decr', key) end
end
return 0
"""


@dataclass(frozen=True)
class KeyLock:
    """The Admin service locked: for every key ("all") or for the key presented ("key"), `seconds` more."""

    scope: str
    seconds: float

    def is_for_all(self) -> bool:
        return self.scope == "all"


@dataclass
class KeyGuard:
    """Operator keys tried at every gateway, counted in Redis (services/tables/keys.py), by the digest of the key
    presented: after `tries_one` wrong tries of one key in `window` seconds that key is refused unchecked, and after
    `tries` wrong keys over all, every Admin call is (the right key too), each for `lock` seconds."""

    redis: Any
    tries: int = KEY_TRIES
    tries_one: int = KEY_TRIES_ONE
    window: float = KEY_WINDOW
    lock: float = KEY_LOCK

    def _keys(self, digest: str) -> list[str]:
        return [
            keys.operator_key_lock(),
            keys.operator_key_tries(),
            keys.operator_key_lock(digest),
            keys.operator_key_tries(digest),
        ]

    async def attempt(self, digest: str) -> KeyLock | None:
        """Count a try of the key, or say the lock that refuses it unchecked."""
        reply = await self.redis.eval(
            KEY_TRY, 4, *self._keys(digest), int(self.window * 1000), self.tries, self.tries_one
        )
        scope = reply[0].decode() if isinstance(reply[0], bytes) else str(reply[0])
        return KeyLock(scope, max(1, int(reply[1])) / 1000) if scope else None

    async def wrong(self, digest: str) -> KeyLock | None:
        """The key tried was wrong: the lock this sets, if it is the one too many."""
        reply = await self.redis.eval(
            KEY_WRONG, 4, *self._keys(digest), int(self.lock * 1000), self.tries, self.tries_one
        )
        scope = reply.decode() if isinstance(reply, bytes) else str(reply or "")
        return KeyLock(scope, self.lock) if scope else None

    async def right(self, digest: str) -> None:
        await self.redis.eval(KEY_RIGHT, 2, keys.operator_key_tries(), keys.operator_key_tries(digest))


class Operations:
    def __init__(self, lookup: Lookup) -> None:
        self.lookup = lookup
        self.store = lookup.store
        self.redis: Any = lookup.store.redis
        self._notice: tuple[float, str] = (-1e9, "")

    # ----- standing, notice, audit -------------------------------------------------------------------------------

    async def set_standing(self, player_id: str, standing: Standing | None) -> None:
        """Mute or ban a player (`standing`), or clear their standing (None)."""
        if standing:
            await self.redis.hset(STANDING, player_id, standing.encode())
        else:
            await self.redis.hdel(STANDING, player_id)

    async def standings(self) -> dict[str, Standing]:
        """Every player's standing now in force (expired ones are forgotten)."""
        return await read_standings(self.redis, time.time())

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
