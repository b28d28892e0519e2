"""Retention: a finished, validated game folded into one compressed archive (every read falls back to it, see
base.py), and a table never started removed."""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import NamedTuple

from manaforge.v1.storage_pb2 import GameArchive, TableRecord

from services.edge import as_field
from services.tables import keys as k
from services.tables.keys import shard_of
from services.tables.store.base import LIVE_FIELDS, Live, StoreBase, pairs, unlist

ACTIONS, EVENTS = 6, 7  # GameArchive's repeated fields whose entries are stored serialized already (log, events)


class Finished(NamedTuple):
    """What a finished table's archive is made of, read in one step; the log's actions and the events as stored."""

    record: TableRecord | None
    live: Live | None
    occupants: dict[int, str]
    token_seats: dict[str, int]
    verdict: str
    actions: list[bytes]  # serialized LoggedAction messages, in order
    events: list[bytes]  # serialized Event messages, in order


def repeated(field: int, entries: Sequence[bytes]) -> bytes:
    """Serialized messages as the entries of a message's repeated field `field`, appended after its serialization."""
    return b"".join(as_field(field, entry) for entry in entries)


class Archives(StoreBase):
    async def gather(self, table_id: str) -> Finished:
        """Everything a table's archive holds, read in one step (the log and events as stored, not parsed)."""
        keys = k.table_keys(table_id)
        pipe = self._batch()
        pipe.get(keys["record"])
        pipe.hmget(keys["live"], LIVE_FIELDS)
        pipe.hgetall(keys["seats"])
        pipe.hgetall(keys["tokens"])
        pipe.hget(keys["live"], "verdict")
        pipe.lrange(keys["log"], 0, -1)
        pipe.xrange(keys["events"], "0-1", "+")
        record, fields, seats, tokens, verdict, actions, events = await pipe.execute()
        return Finished(
            TableRecord.FromString(record) if record is not None else None,
            Live.parse(fields),
            {int(k): v.decode() for k, v in pairs(seats)},
            {k.decode(): int(v) for k, v in pairs(tokens)},
            verdict.decode() if verdict else "",
            list(actions),
            [dict(pairs(entry))[b"e"] for _, entry in events],
        )

    async def archive(
        self,
        table_id: str,
        archive: GameArchive,
        ttl: float,
        actions: Sequence[bytes] = (),
        events: Sequence[bytes] = (),
    ) -> None:
        """Keep `archive` (with `actions` and `events`, serialized, appended to its own) for `ttl` seconds and remove
        every live key of the table, in one step."""
        keys = k.table_keys(table_id)
        data = archive.SerializeToString() + repeated(ACTIONS, actions) + repeated(EVENTS, events)
        pipe = self._batch()
        pipe.set(keys["archive"], zlib.compress(data, 6), ex=max(1, int(ttl)))
        pipe.delete(*(key for name, key in keys.items() if name != "archive"))
        unlist(pipe, table_id, archive.record.config.game)
        pipe.zrem(k.live_tables(shard_of(table_id)), table_id)
        await pipe.execute()

    async def discard(self, table_id: str, game: str) -> None:
        """Remove an abandoned table (never started) and its listing entries."""
        keys = k.table_keys(table_id)
        pipe = self._batch()
        pipe.delete(*keys.values())
        unlist(pipe, table_id, game)
        pipe.zrem(k.live_tables(shard_of(table_id)), table_id)
        await pipe.execute()
