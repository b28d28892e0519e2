"""Tables as stored: the record, the seats and their tokens, the listings, presence and spectators."""

from __future__ import annotations

import time
from dataclasses import dataclass

from manaforge.v1.gateway_pb2 import SeatKind
from manaforge.v1.storage_pb2 import TableRecord

from services.tables import keys as k
from services.tables.followups import FollowUp, script_args
from services.tables.keys import SHARDS, shard_of
from services.tables.seats import MAX_SEAT_TOKENS, RETIRED_KEPT, occupant_of
from services.tables.store.base import LIVE_FIELDS, Live, StoreBase, pairs


@dataclass(frozen=True)
class Standing:
    """How a live table stands, as a Table answer shows it: its live state, who sits where, each seat's decisions
    let run out in a row, its replay verdict ("" until there is one) and its spectators."""

    live: Live
    occupants: dict[int, str]
    absences: list[int]
    verdict: str
    spectators: int


class Records(StoreBase):
    # Listings: tables with an open seat ("open") and games under way ("playing"), by creation time, each for all
    # games and per game, each split over the shards (keys.py).

    async def create_table(
        self,
        record: TableRecord,
        state: bytes,
        occupants: dict[int, str],
        listed: bool,
        first: list[tuple[FollowUp, float]],
        abandon_after: float | None = None,
    ) -> None:
        """Store a new table; `first`: the follow-ups of its first state, armed when every seat is a bot's;
        `abandon_after` (seconds; None: never): its removal if its seats are not all taken by then, armed in the same
        atomic step, so no table is ever stored without it (Redis gone mid-call)."""
        keys = k.table_keys(record.table_id)
        shard = shard_of(record.table_id)
        started = len(occupants) == record.config.seats
        pipe = self._batch()
        pipe.set(keys["record"], record.SerializeToString())
        pipe.hset(
            keys["live"], mapping={"version": 0, "seq": 0, "state": state, "finished": 0, "started": int(started)}
        )
        if occupants:
            pipe.hset(keys["seats"], mapping={str(k): v for k, v in occupants.items()})
        entry = {record.table_id: record.created_at}
        if listed:
            pipe.zadd(k.listing("open", "", shard), entry)
            pipe.zadd(k.listing("open", record.config.game, shard), entry)
        if started:
            pipe.zadd(k.listing("playing", "", shard), entry)
            pipe.zadd(k.listing("playing", record.config.game, shard), entry)
        pipe.zadd(k.live_tables(shard), entry)
        if abandon_after is not None:
            due = int((time.time() + abandon_after) * 1000)
            pipe.zadd(k.outbox(shard), {FollowUp("abandon", record.table_id, 0).format(): due})
        if started and first:
            now = time.time()
            pipe.zadd(k.outbox(shard), {item.format(): int((now + delay) * 1000) for item, delay in first})
            pipe.sadd(keys["armed"], *(item.format() for item, _ in first))
            pipe.lpush(k.wake(shard), 1)
            pipe.ltrim(k.wake(shard), 0, 63)
        await pipe.execute()

    async def table_record(self, table_id: str) -> TableRecord | None:
        data = await self.redis.get(k.table_keys(table_id)["record"])
        if data is None:
            archive = await self.archived(table_id)
            return archive.record if archive is not None else None
        return TableRecord.FromString(data)

    async def standing(self, table_id: str, seats: int) -> Standing | None:
        """A live table's standing in one round trip; None when it has no live state (archived, or no such table:
        read it the long way, from the archive)."""
        keys = k.table_keys(table_id)
        batch = self._batch()
        batch.hmget(keys["live"], [*LIVE_FIELDS, "verdict", *(f"absent:{s}" for s in range(seats))])
        batch.hgetall(keys["seats"])
        batch.get(keys["spectators"])
        fields, seated, spectators = await batch.execute()
        live = Live.parse(fields[: len(LIVE_FIELDS)])
        if live is None:
            return None
        verdict, *away = fields[len(LIVE_FIELDS) :]
        return Standing(
            live,
            {int(seat): occupant.decode() for seat, occupant in pairs(seated)},
            [int(x or 0) for x in away],
            verdict.decode() if verdict else "",
            max(0, int(spectators or 0)),
        )

    async def occupants(self, table_id: str) -> dict[int, str]:
        raw = await self.redis.hgetall(k.table_keys(table_id)["seats"])
        if not raw and (archive := await self.archived(table_id)) is not None:
            return {s.seat: occupant_of(s) for s in archive.seats if s.kind != SeatKind.SEAT_KIND_OPEN}
        return {int(k): v.decode() for k, v in raw.items()}

    async def claim_seat(
        self,
        table_id: str,
        seats: int,
        wanted: int,
        occupant: str,
        token_digest: str,
        first: list[tuple[FollowUp, float]],
        bank: str = "0,0",
    ) -> tuple[str, int]:
        """Take a seat; the seat that fills the table starts play and arms `first` (the first state's follow-ups)."""
        keys = k.table_keys(table_id)
        shard = shard_of(table_id)
        status, seat, *rest = await self._script(
            self._claim,
            keys=[
                keys["seats"],
                keys["tokens"],
                keys["live"],
                keys["armed"],
                k.outbox(shard),
                k.wake(shard),
                keys["issued"],
            ],
            args=[
                seats,
                wanted,
                occupant,
                token_digest,
                bank,
                self.publish,
                k.notices(shard),
                table_id,
                *script_args(first),
            ],
        )
        if rest and int(rest[0]):
            await self.started(table_id)
        return status.decode(), int(seat)

    async def started(self, table_id: str) -> None:
        """A table whose last seat was taken: from the open listings to the games under way."""
        record = await self.table_record(table_id)
        if record is None:
            return
        entry = {table_id: record.created_at}
        shard = shard_of(table_id)
        pipe = self._batch()
        pipe.zrem(k.outbox(shard), FollowUp("abandon", table_id, 0).format())  # it started: nobody abandoned it
        pipe.zrem(k.listing("open", "", shard), table_id)
        pipe.zrem(k.listing("open", record.config.game, shard), table_id)
        pipe.zadd(k.listing("playing", "", shard), entry)
        pipe.zadd(k.listing("playing", record.config.game, shard), entry)
        await pipe.execute()

    async def page(self, kind: str, game: str, before: float | None, count: int) -> list[tuple[str, float]]:
        """Up to `count` entries of a listing ("open" or "playing", all games or one), newest first, created before
        `before` (None: from the newest): the newest of every shard's part."""
        top = f"({before}" if before is not None else "+inf"
        pipe = self.redis.pipeline(transaction=False)
        for shard in range(SHARDS):
            pipe.zrevrangebyscore(k.listing(kind, game, shard), top, "-inf", start=0, num=count, withscores=True)
        found = [(t.decode(), float(score)) for part in await pipe.execute() for t, score in part]
        return sorted(found, key=lambda entry: (-entry[1], entry[0]))[:count]

    async def issue_token(self, table_id: str, seat: int, token_digest: str) -> bool:
        """One more live token for a taken seat, retiring the seat's oldest past MAX_SEAT_TOKENS, in one step
        (issue_token.lua). False: the seat is not taken (nothing changed)."""
        keys = k.table_keys(table_id)
        done = await self._script(
            self._issue,
            keys=[keys["tokens"], keys["issued"], keys["seats"], keys["live"]],
            args=[seat, token_digest, MAX_SEAT_TOKENS, RETIRED_KEPT],
        )
        return bool(done)

    async def token_standing(self, table_id: str, token_digest: str) -> tuple[int | None, int]:
        """The seat a token's digest holds (None: none) and how many tokens the table has retired, read in one
        step: a watcher under the token checks it again once a commit shows more retired."""
        keys = k.table_keys(table_id)
        batch = self._batch()
        batch.hget(keys["tokens"], token_digest)
        batch.hget(keys["live"], "retired")
        seat, retired = await batch.execute()
        if seat is None:
            return await self.seat_for_token(table_id, token_digest), int(retired or 0)
        return int(seat), int(retired or 0)

    async def is_retired(self, table_id: str, token_digest: str) -> bool:
        """Whether the digest is one of a seat's tokens retired lately (a newer one took its place)."""
        issued = await self.redis.hgetall(k.table_keys(table_id)["issued"])
        digest = token_digest.encode()
        return any(name.startswith(b"retired:") and digest in value.split(b",") for name, value in issued.items())

    async def seat_for_token(self, table_id: str, token_digest: str) -> int | None:
        seat = await self.redis.hget(k.table_keys(table_id)["tokens"], token_digest)
        if seat is None and (archive := await self.archived(table_id)) is not None:
            return archive.token_seats.get(token_digest)
        return int(seat) if seat is not None else None

    async def present(self, table_id: str, seat: int, clock: float) -> None:
        """The seat's player is here (a call with its token): if it was away, its clock runs at full length again,
        the pending decision's too (`clock` seconds from now), in one atomic step (present.lua)."""
        keys = k.table_keys(table_id)
        outbox = k.outbox(shard_of(table_id))
        await self._script(self._present, keys=[keys["live"], keys["armed"], outbox], args=[seat, int(clock * 1000)])

    async def absences(self, table_id: str, seats: int) -> list[int]:
        """Decisions each seat let run out in a row."""
        found = await self.redis.hmget(k.table_keys(table_id)["live"], [f"absent:{s}" for s in range(seats)])
        return [int(x or 0) for x in found]

    async def spectating(self, table_id: str, delta: int) -> None:
        """Count a spectator in (1) or out (-1); the count goes with the table's keys."""
        keys = k.table_keys(table_id)
        if not await self.redis.exists(keys["live"]):
            return  # an archived game: nothing to count, and no key to leave behind
        pipe = self._batch()
        pipe.incrby(keys["spectators"], delta)
        pipe.expire(keys["spectators"], 24 * 3600)  # a count left by a crashed gateway fades away
        await pipe.execute()

    async def spectators(self, table_id: str) -> int:
        return max(0, int(await self.redis.get(k.table_keys(table_id)["spectators"]) or 0))
