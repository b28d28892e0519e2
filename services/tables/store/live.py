"""A table's live state and what it has done: the versioned compare-and-set of a move (commit.lua), the action
log, the event stream and the replay verdict."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from manaforge.v1.common_pb2 import Event
from manaforge.v1.gateway_pb2 import LoggedAction
from redis.exceptions import ConnectionError, RedisError

from services.tables import keys as k
from services.tables.keys import channel
from services.tables.store.base import LIVE_FIELDS, Live, StoreBase, pairs

HOT_RETRIES = 6


class NotReplicatedError(RedisError):
    """A commit stored on the primary but not yet on enough replicas: not acknowledged (UNAVAILABLE, retry)."""


@dataclass(frozen=True)
class CommitResult:
    """What the compare-and-set said: `ok` or `dup` (with the version and event seqs of the move), `conflict` (with
    the live state now), `token` (the token holds no such seat) or `missing` (no such table). `appended`: on `ok`,
    what the script appended to the commit it published (the deadlines it armed, Commit field 6)."""

    status: str
    version: int = 0
    first_seq: int = 0
    last_seq: int = 0
    live: Live | None = None
    appended: bytes = b""


def _result(detail: bytes, status: str) -> CommitResult:
    version, first, last = (int(x) for x in detail.split(b":"))
    return CommitResult(status, version, first, last)


class LiveStates(StoreBase):
    async def live(self, table_id: str) -> Live | None:
        live = Live.parse(await self.redis.hmget(k.table_keys(table_id)["live"], LIVE_FIELDS))
        return live if live is not None else await self._archived_live(table_id)

    async def live_and_done(
        self, table_id: str, seat: int, client_action_id: str, trusted: bool
    ) -> tuple[Live | None, CommitResult | None]:
        """The live state and, when this seat's action id was applied before, its stored result (one round trip).
        `trusted`: the id is one of the server's own (bots, timers), kept apart from clients' ids."""
        keys = k.table_keys(table_id)
        pipe = self.redis.pipeline(transaction=False)
        pipe.hmget(keys["live"], LIVE_FIELDS)
        pipe.hget(keys["done"], f"{seat}:{'s' if trusted else 'c'}:{client_action_id}")
        fields, done = await pipe.execute()
        live = Live.parse(fields) or await self._archived_live(table_id)
        return live, (_result(done, "dup") if done is not None and client_action_id else None)

    async def commit(
        self,
        table_id: str,
        expected_version: int,
        seat: int,
        token_digest: str,
        client_action_id: str,
        state: bytes,
        logged: bytes,
        commit_message: bytes,
        finished: bool,
        events: list[bytes],
        follow_args: list[Any],
        game: str,
    ) -> CommitResult:
        """One move through commit.lua. `token_digest`: the seat token's ("" for a trusted caller: a bot, a timer);
        `follow_args`: the follow-ups as the script takes them (followups.commit_args)."""
        args: list[Any] = [
            expected_version,
            seat,
            token_digest,
            client_action_id,
            channel(table_id),
            state,
            logged,
            commit_message,
            int(finished),
            table_id,
            self.publish,
            *follow_args,
            *events,
        ]
        names = k.commit_keys(table_id, game)
        if self.hot is None:
            reply = await self._commit(keys=names, args=args)
        else:
            reply = await self._hot_commit(names, args)
        status = reply[0].decode()
        if status == "ok":
            version, first, last = (int(x) for x in reply[1].split(b":"))
            return CommitResult(status, version, first, last, appended=reply[2])
        if status == "dup":
            return _result(reply[1], status)
        if status == "conflict":
            return CommitResult(status, live=Live.parse(reply[1:]))
        return CommitResult(status)

    async def _hot_commit(self, names: list[str], args: list[Any]) -> Any:
        """The commit script on the shared connection, tried again for about 2 s while the connection is down (a
        commit whose reply was lost is answered `dup` the second time: it carries its id)."""
        assert self.hot is not None
        delay = 0.02
        for attempt in range(HOT_RETRIES + 1):
            try:
                then = ("WAIT", self.replicas, int(self.replica_wait * 1000)) if self.replicas else ()
                reply, replicated = await self.hot.evalsha(
                    str(self._commit.sha), str(self._commit.script), names, args, then
                )
                if self.replicas and reply[0] in (b"ok", b"dup") and int(replicated) < self.replicas:
                    raise NotReplicatedError(
                        f"replication: the move reached {int(replicated)} of {self.replicas} replicas in time;"
                        " retry with the same client action id"
                    )
                return reply
            except ConnectionError:
                if attempt == HOT_RETRIES:
                    raise
                await asyncio.sleep(delay)
                delay = min(delay * 2, 0.5)
        raise AssertionError("unreachable")

    # ----- logs, events and the verdict -------------------------------------------------------------------------

    async def events(self, table_id: str, first_seq: int, last_seq: int | None = None) -> list[Event]:
        end = f"0-{last_seq}" if last_seq is not None else "+"
        entries = await self.redis.xrange(k.table_keys(table_id)["events"], f"0-{max(first_seq, 1)}", end)
        if not entries and (archive := await self.archived(table_id)) is not None:
            last = last_seq if last_seq is not None else archive.seq
            return [e for e in archive.events if first_seq <= e.seq <= last]
        return [Event.FromString(fields[b"e"]) for _, fields in entries]

    async def snapshot(self, table_id: str, after_seq: int) -> tuple[list[Event], Live | None]:
        """The events after `after_seq` and the live state, read atomically (no commit in between)."""
        keys = k.table_keys(table_id)
        pipe = self._batch()
        pipe.xrange(keys["events"], f"0-{after_seq + 1}", "+")
        pipe.hmget(keys["live"], LIVE_FIELDS)
        entries, fields = await pipe.execute()
        live = Live.parse(fields)
        if live is None and (archive := await self.archived(table_id)) is not None:
            return [e for e in archive.events if e.seq > after_seq], await self._archived_live(table_id)
        return [Event.FromString(dict(pairs(f))[b"e"]) for _, f in entries], live

    async def action_log(self, table_id: str) -> list[LoggedAction]:
        raw = await self.redis.lrange(k.table_keys(table_id)["log"], 0, -1)
        if not raw and (archive := await self.archived(table_id)) is not None:
            return list(archive.actions)
        return [LoggedAction.FromString(x) for x in raw]

    async def replace_logged_action(self, table_id: str, index: int, logged: LoggedAction) -> None:
        """Overwrite one log entry: only the tests use it, to prove tampering is caught."""
        await self.redis.lset(k.table_keys(table_id)["log"], index, logged.SerializeToString())

    async def set_verdict(self, table_id: str, verdict: str) -> None:
        """Store a live game's verdict (an archived game keeps the verdict it was archived with)."""
        live = k.table_keys(table_id)["live"]
        if await self.redis.exists(live):
            await self.redis.hset(live, "verdict", verdict)

    async def verdict(self, table_id: str) -> str:
        value = await self.redis.hget(k.table_keys(table_id)["live"], "verdict")
        if value is None and (archive := await self.archived(table_id)) is not None:
            return archive.verdict
        return value.decode() if value else ""
