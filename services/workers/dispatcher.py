"""The dispatcher: claims due follow-up items from the outbox and sends each to a worker; and the sweeper, which
re-arms what an unfinished table waits for when the outbox has no item for it (belt and braces).

Every worker process runs one (any number may run: claiming is atomic), with a loop per outbox shard (keys.py) that
claims, sends and sweeps, woken by a commit that arms an item due at once, and a ticker that claims the items due
later (a bot's delay, a clock) of every shard at once, every TICK seconds. A claimed item is leased for LEASE
seconds: if its worker dies, it comes due again and is claimed anew, so a game goes on within seconds of any crash.

A loop (a shard's or the ticker) must never end while the worker runs: whatever a step raises (Redis gone, the broker
refusing a publish, a bug), the loop logs it, waits (BACKOFF_FIRST doubling up to BACKOFF_CAP) and goes on; the items
it had claimed and not sent yet are sent first when it goes on (or come due again when their lease runs out).
`failing` says which loops are dead or stuck (no step begun for `stuck_after` seconds): the worker exits then
(app.py), and its supervisor starts it again.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
from collections.abc import Awaitable, Callable

from prometheus_client import Counter
from redis.exceptions import RedisError

from engine_core import find_game
from services.tables.errors import TableNotFoundError
from services.tables.followups import FollowUp, followups
from services.tables.keys import SHARDS
from services.tables.metrics import DISPATCHED, SWEPT
from services.tables.operations import worker_seen
from services.tables.service import Tables

log = logging.getLogger(__name__)

LEASE = 10.0  # seconds a claimed item is left to its worker (a bot thinks for at most 2 s)
BATCH = 100
WORKER_NAME = f"{socket.gethostname()}:{os.getpid()}"  # in the operator's console
TICK = 0.1  # the longest an item due later (a bot's delay, a clock) waits to be claimed (by the ticker)
WAKE_WAIT = 1.0  # the longest a shard's loop waits for a wake-up (an item due at once) before it claims anyway
TICKER = SHARDS  # the ticker's index among the loops (after the shards')
SWEEP_EVERY = 5.0
SWEEP_PAGE = 200
BACKOFF_FIRST = 0.2  # seconds a loop waits after a failed step, doubled after each further failure...
BACKOFF_CAP = 2.0  # ...up to this

STEP_FAILURES = Counter("manaforge_dispatcher_failures_total", "Dispatcher steps that failed (and were tried again)")


class Dispatcher:
    def __init__(self, tables: Tables, send: Callable[[FollowUp], None], stuck_after: float) -> None:
        self.tables = tables
        self.store = tables.store
        self.send = send  # hands an item to a worker (a Celery task in production)
        self.sent = 0
        self.armed = 0
        self._cursors = [0.0] * SHARDS
        self._next_sweep = [0.0] * SHARDS
        self._unsent: list[tuple[float, list[FollowUp]]] = [(0.0, [])] * (SHARDS + 1)  # claimed, not sent (and when)
        self._began = [time.monotonic()] * (SHARDS + 1)  # when each loop (shards, then the ticker) began a step
        self.stuck_after = (
            stuck_after  # a loop that has begun no step for this long is stuck (its calls time out sooner)
        )
        self._loops: list[asyncio.Task[None]] = []
        self._stop = asyncio.Event()

    def start(self, stop: asyncio.Event) -> None:
        """One loop per shard and the ticker on the running event loop, until `stop` is set."""
        self._stop = stop
        self._began = [time.monotonic()] * (SHARDS + 1)
        loop = asyncio.get_running_loop()
        self._loops = [loop.create_task(self.run_loop(shard, stop)) for shard in range(SHARDS + 1)]
        log.info("dispatcher started", extra={"fields": {"shards": SHARDS}})

    def failing(self) -> list[str]:
        """What is wrong with the loops, if anything: one line per dead or stuck shard (empty once stopping)."""
        if self._stop.is_set():
            return []
        now = time.monotonic()
        wrong = []
        for shard, loop in enumerate(self._loops):
            name = "the ticker" if shard == TICKER else f"shard {shard}"
            if loop.done():
                wrong.append(f"{name}: its loop ended")
            elif now - self._began[shard] > self.stuck_after:
                wrong.append(f"{name}: no step begun for {now - self._began[shard]:.0f} s")
        return wrong

    async def run_loop(self, shard: int, stop: asyncio.Event) -> None:
        """A shard's loop (or the ticker's, `shard` TICKER) until `stop` is set."""
        failures = 0
        while not stop.is_set():
            self._began[shard] = time.monotonic()
            try:
                await (self.tick() if shard == TICKER else self.step(shard))
            except Exception as exc:  # anything: this loop must go on while the worker runs
                failures += 1
                STEP_FAILURES.inc()
                pause = min(BACKOFF_CAP, BACKOFF_FIRST * 2 ** min(failures - 1, 16))
                if failures & (failures - 1) == 0:  # the 1st, 2nd, 4th, 8th... in a row: a long fault logs little
                    fields = {"shard": shard, "error": f"{type(exc).__name__}: {exc}", "failures": failures}
                    log.warning("dispatcher step failed; trying again", extra={"fields": {**fields, "retry_in": pause}})
                await asyncio.sleep(pause)
            else:
                if failures:
                    log.info("dispatcher going on", extra={"fields": {"shard": shard, "after_failures": failures}})
                failures = 0

    async def step(self, shard: int) -> None:
        items = await self.dispatch(shard, lambda: self.store.claim_due(shard, LEASE, BATCH))
        if time.monotonic() >= self._next_sweep[shard]:
            self._next_sweep[shard] = time.monotonic() + SWEEP_EVERY
            armed = await self.sweep(shard)
            self.armed += armed
            SWEPT.inc(armed)
            if shard == 0:  # the worker's heartbeat, for the operator's console
                await worker_seen(self.store.redis, WORKER_NAME)
        if not items:
            await self.store.wait_for_due(shard, WAKE_WAIT)

    async def tick(self) -> None:
        """Claim and send the due items of every shard (those due later than their commit: nothing wakes a shard's
        loop for them), then wait TICK seconds."""

        async def claim_all() -> list[FollowUp]:
            claimed = await asyncio.gather(*(self.store.claim_due(shard, LEASE, BATCH) for shard in range(SHARDS)))
            return [item for items in claimed for item in items]

        await self.dispatch(TICKER, claim_all)
        await asyncio.sleep(TICK)

    async def dispatch(self, loop: int, claim: Callable[[], Awaitable[list[FollowUp]]]) -> list[FollowUp]:
        """Send what loop `loop` claimed and has not sent yet, else what `claim` claims now. Returns the items."""
        claimed_at, items = self._unsent[loop]
        if not items or time.monotonic() - claimed_at > LEASE:  # an item whose lease ran out is the outbox's again
            claimed_at, items = time.monotonic(), await claim()
        for i, item in enumerate(items):
            self._unsent[loop] = claimed_at, items[i:]  # what a failed send leaves for the next step
            await asyncio.to_thread(self.send, item)
            self.sent += 1
            DISPATCHED.inc()
        self._unsent[loop] = 0.0, []
        return items

    async def sweep(self, shard: int) -> int:
        """One page of a shard's unfinished tables: arm what each waits for if the outbox lacks it. Returns items
        armed. A table it cannot read (a bug, not Redis) is logged and passed over: it keeps no other from its turn."""
        page = await self.store.live_tables(shard, self._cursors[shard], SWEEP_PAGE)
        self._cursors[shard] = page[-1][1] if len(page) == SWEEP_PAGE else 0.0
        armed = 0
        for table_id, _ in page:
            try:
                armed += await self.sweep_table(table_id)
            except (RedisError, OSError):
                raise
            except Exception as exc:
                fields = {"table_id": table_id, "error": f"{type(exc).__name__}: {exc}"}
                log.warning("sweeper passed over a table", exc_info=True, extra={"fields": fields})
        return armed

    async def sweep_table(self, table_id: str) -> int:
        """Arm what one table waits for and the outbox lacks. A table waiting for no follow-up (every seat a
        player's, no clock) costs one read: its record is this process's cached copy (a record never changes)."""
        live = await self.store.live(table_id)
        try:
            record = await self.tables.lookup.record(table_id) if live is not None else None
        except TableNotFoundError:
            record = None
        if record is None or live is None:
            await self.store.forget_table(table_id)
            return 0
        if live.finished:
            await self.store.forget_table(table_id)
        if not live.started:
            return 0
        game = find_game(record.config.game)
        state = game.state_from_bytes(live.state)
        if live.finished and await self.store.verdict(table_id):
            return 0  # validated: nothing left to do
        waits_for = followups(record, game, state)
        return await self.store.arm_missing(table_id, waits_for, live.version) if waits_for else 0
