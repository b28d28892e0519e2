"""The dispatcher: claims due follow-up items from the outbox and sends each to a worker; and the sweeper, which
re-arms what an unfinished table waits for when the outbox has no item for it (belt and braces).

Every worker process runs one (any number may run: claiming is atomic), with a loop per outbox shard (keys.py). A
claimed item is leased for LEASE seconds:
if its worker dies, it comes due again and is claimed anew, so a game goes on within seconds of any crash.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from redis.exceptions import RedisError

from engine_core import find_game
from services.tables.followups import FollowUp, followups
from services.tables.keys import SHARDS
from services.tables.metrics import DISPATCHED, SWEPT
from services.tables.service import Tables

log = logging.getLogger(__name__)

LEASE = 10.0  # seconds a claimed item is left to its worker (a bot thinks for at most 2 s)
BATCH = 100
WAKE_WAIT = 0.1  # the longest an item due later (a bot's delay, a clock) waits for its shard's loop
SWEEP_EVERY = 5.0
SWEEP_PAGE = 200


class Dispatcher:
    def __init__(self, tables: Tables, send: Callable[[FollowUp], None]) -> None:
        self.tables = tables
        self.store = tables.store
        self.send = send  # hands an item to a worker (a Celery task in production)
        self.sent = 0
        self.armed = 0
        self._cursors = [0.0] * SHARDS
        self._next_sweep = [0.0] * SHARDS

    async def run(self, stop: asyncio.Event) -> None:
        await asyncio.gather(*(self.run_shard(shard, stop) for shard in range(SHARDS)))

    async def run_shard(self, shard: int, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                await self.step(shard)
            except (RedisError, OSError) as exc:
                log.warning("dispatcher, shard %d: %s; trying again", shard, exc)
                await asyncio.sleep(0.5)

    async def step(self, shard: int) -> None:
        items = await self.store.claim_due(shard, LEASE, BATCH)
        for item in items:
            await asyncio.to_thread(self.send, item)
            self.sent += 1
            DISPATCHED.inc()
        if time.monotonic() >= self._next_sweep[shard]:
            self._next_sweep[shard] = time.monotonic() + SWEEP_EVERY
            armed = await self.sweep(shard)
            self.armed += armed
            SWEPT.inc(armed)
        if not items:
            await self.store.wait_for_due(shard, WAKE_WAIT)

    async def sweep(self, shard: int) -> int:
        """One page of a shard's unfinished tables: arm what each waits for if the outbox lacks it. Returns items
        armed."""
        page = await self.store.live_tables(shard, self._cursors[shard], SWEEP_PAGE)
        self._cursors[shard] = page[-1][1] if len(page) == SWEEP_PAGE else 0.0
        armed = 0
        for table_id, _ in page:
            record = await self.store.table_record(table_id)
            live = await self.store.live(table_id)
            if record is None or live is None:
                await self.store.forget_table(table_id)
                continue
            if live.finished:
                await self.store.forget_table(table_id)
            if not live.started:
                continue
            game = find_game(record.config.game)
            state = game.state_from_bytes(live.state)
            if live.finished and await self.store.verdict(table_id):
                continue  # validated: nothing left to do
            armed += await self.store.arm_missing(table_id, followups(record, game, state), live.version)
        return armed
