"""The outbox of follow-up work (see followups.py): items armed outside a commit, claimed by the dispatchers,
done by the workers, and the sweeper's belt and braces."""

from __future__ import annotations

import time

from services.tables import keys as k
from services.tables.followups import FollowUp
from services.tables.keys import shard_of
from services.tables.store.base import StoreBase


class Outbox(StoreBase):
    async def arm(self, item: FollowUp, delay: float) -> None:
        """Add one follow-up item due in `delay` seconds (outside a commit: archiving, abandoned tables)."""
        await self.redis.zadd(k.outbox(shard_of(item.table_id)), {item.format(): int((time.time() + delay) * 1000)})

    async def claim_due(self, shard: int, lease: float, limit: int) -> list[FollowUp]:
        """Claim the due items of one shard's outbox (each leased for `lease` seconds)."""
        found = await self._script(self._claim_due, keys=[k.outbox(shard)], args=[int(lease * 1000), limit])
        return [FollowUp.parse(item) for item in found]

    async def done_with(self, item: FollowUp) -> None:
        await self.redis.zrem(k.outbox(shard_of(item.table_id)), item.format())

    async def wait_for_due(self, shard: int, timeout: float) -> None:
        """Block until a commit arms an item of the shard due at once, or `timeout` seconds pass."""
        await self.blocking.blpop([k.wake(shard)], timeout=timeout)

    async def live_tables(self, shard: int, after: float, count: int) -> list[tuple[str, float]]:
        """A shard's unfinished tables created after `after` (a cursor), oldest first."""
        key = k.live_tables(shard)
        found = await self.redis.zrangebyscore(key, f"({after}", "+inf", start=0, num=count, withscores=True)
        return [(t.decode(), float(score)) for t, score in found]

    async def arm_missing(self, table_id: str, items: list[tuple[FollowUp, float]], version: int) -> int:
        """Arm follow-ups a table should have and has not (the sweeper's belt and braces), if still at `version`."""
        keys = k.table_keys(table_id)
        outbox = k.outbox(shard_of(table_id))
        pipe = self.redis.pipeline(transaction=False)
        pipe.hget(keys["live"], "version")
        pipe.zmscore(outbox, [item.format() for item, _ in items])
        current, scores = await pipe.execute()
        missing = [(item, delay) for (item, delay), score in zip(items, scores, strict=True) if score is None]
        if current is None or int(current) != version or not missing:
            return 0
        now = time.time()
        pipe = self._batch()
        pipe.zadd(outbox, {item.format(): int((now + delay) * 1000) for item, delay in missing}, nx=True)
        pipe.sadd(keys["armed"], *(item.format() for item, _ in missing))
        await pipe.execute()
        return len(missing)

    async def forget_table(self, table_id: str) -> None:
        await self.redis.zrem(k.live_tables(shard_of(table_id)), table_id)
