"""Retention: a finished, validated game folded into one compressed archive (every read falls back to it, see
base.py), and a table never started removed."""

from __future__ import annotations

import zlib

from manaforge.v1.storage_pb2 import GameArchive, TableRecord

from services.tables import keys as k
from services.tables.keys import shard_of
from services.tables.store.base import LIVE_FIELDS, Live, StoreBase, pairs, unlist


class Archives(StoreBase):
    async def gather(self, table_id: str) -> tuple[TableRecord | None, Live | None, dict[int, str], dict[str, int]]:
        """Everything to archive but the log and events: record, live state, occupants, token digests."""
        keys = k.table_keys(table_id)
        pipe = self._batch()
        pipe.get(keys["record"])
        pipe.hmget(keys["live"], LIVE_FIELDS)
        pipe.hgetall(keys["seats"])
        pipe.hgetall(keys["tokens"])
        record, fields, seats, tokens = await pipe.execute()
        return (
            TableRecord.FromString(record) if record is not None else None,
            Live.parse(fields),
            {int(k): v.decode() for k, v in pairs(seats)},
            {k.decode(): int(v) for k, v in pairs(tokens)},
        )

    async def archive(self, table_id: str, archive: GameArchive, ttl: float) -> None:
        """Keep `archive` for `ttl` seconds and remove every live key of the table, in one step."""
        keys = k.table_keys(table_id)
        pipe = self._batch()
        pipe.set(keys["archive"], zlib.compress(archive.SerializeToString(), 6), ex=max(1, int(ttl)))
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
