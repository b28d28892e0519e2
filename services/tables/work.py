"""The follow-up work the workers do (followups.py says what is armed and when): one handler per kind of item.
Each is safe to run twice or late: it re-reads the table and does nothing once the game has moved on."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from services.tables.acting import Acting
from services.tables.followups import KINDS, FollowUp
from services.tables.metrics import FOLLOW_UPS
from services.tables.retention import Finishing
from services.tables.store import RedisStore

Handler = Callable[[FollowUp], Awaitable[bool]]


class Work:
    def __init__(self, store: RedisStore, acting: Acting, finishing: Finishing) -> None:
        self.store = store
        self.handlers: dict[str, Handler] = {
            "bot": lambda item: acting.play_bot(item.table_id, item.seat, item.version),
            "timer": lambda item: acting.expire(item.table_id, item.seat, item.version),
            "clock": lambda item: acting.take_over(item.table_id, item.seat, item.version),
            "validate": lambda item: finishing.validated(item.table_id, item.version),
            "archive": lambda item: finishing.archive(item.table_id),
            "abandon": lambda item: finishing.abandon(item.table_id),
        }
        assert set(self.handlers) == set(KINDS), "a handler for every kind of follow-up"

    async def follow_up(self, item: FollowUp) -> bool:
        """Do one follow-up item, then take it out of the outbox. Returns whether it changed the game."""
        acted = await self.handlers[item.kind](item)
        await self.store.done_with(item)
        FOLLOW_UPS.labels(item.kind, str(acted).lower()).inc()
        return acted
