"""Matchmaking's queues and tickets. A queue (keys.queue), its handovers and its tickets share a hash tag: the
scripts read the tickets of their queue. A match taken out of a queue is claimed for `lease` seconds: handed over to
its table (`hand_over`) within them, or handed back to the queue by any later queue script
(lua/queue_handovers.lua)."""

from __future__ import annotations

from typing import Any

from services.tables import keys as k
from services.tables.store.base import MAX_BLOCK, StoreBase

TICKET_TTL = 60.0  # seconds a waiting ticket lives without a WaitForMatch (its player is gone)
MATCHED_TICKET_TTL = 3600.0  # seconds a matched ticket keeps its table for its player


def _queue_keys(queue: str) -> list[str]:
    return [queue, k.handovers_of(queue), k.handed_over_of(queue)]


class Queues(StoreBase):
    async def queue_join(
        self, queue: str, ticket_id: str, needed: int, window: float, widen: float, claim: str, lease: float
    ) -> tuple[list[str], int]:
        """Queue `ticket_id` ("": only look for a match) and take out a match if the queue has one, claimed as
        `claim`. Returns the match's tickets (or none) and how many wait."""
        args: list[Any] = [ticket_id, needed, k.tickets_of(queue), window, widen, claim, int(lease * 1000)]
        matched, waiting = await self._script(self._queue_join, keys=_queue_keys(queue), args=args)
        return [t.decode() for t in matched or []], int(waiting)

    async def queue_take(self, queue: str, ticket_id: str, seats: int, claim: str, lease: float) -> list[str]:
        """Take a waiting ticket and up to `seats` - 1 others out of the queue, claimed as `claim` (none: the ticket
        is not waiting)."""
        args = [ticket_id, seats, k.tickets_of(queue), claim, int(lease * 1000)]
        taken = await self._script(self._queue_take, keys=_queue_keys(queue), args=args)
        return [t.decode() for t in taken or []]

    async def hand_over(self, queue: str, claim: str, table_id: str, seats: list[tuple[str, int]]) -> bool:
        """Match the claimed tickets to their table, each (ticket, seat), if the claim still holds; else (False) its
        tickets wait in their queue again."""
        args: list[Any] = [claim, k.tickets_of(queue), table_id, int(MATCHED_TICKET_TTL)]
        args += [x for seat in seats for x in seat]
        status = await self._script(self._queue_hand_over, keys=_queue_keys(queue), args=args)
        return bool(status == b"ok")

    async def hand_back(self, queue: str, claim: str) -> None:
        """The claimed tickets wait in their queue again, now (the match's table could not be made)."""
        await self._script(self._queue_hand_over, keys=_queue_keys(queue), args=[claim, k.tickets_of(queue), ""])

    async def queue_length(self, queue: str) -> int:
        return int(await self.redis.llen(queue))

    async def save_ticket(self, ticket_id: str, fields: dict[str, Any], ttl: float = TICKET_TTL) -> None:
        pipe = self._batch()
        pipe.hset(k.ticket(ticket_id), mapping=fields)
        pipe.expire(k.ticket(ticket_id), int(ttl))
        await pipe.execute()

    async def keep_ticket(self, ticket_id: str) -> bool:
        """A waiting player is still there: its ticket lives TICKET_TTL seconds more. False: it is gone."""
        return bool(await self.redis.expire(k.ticket(ticket_id), int(TICKET_TTL)))

    async def leave_queue(self, queue: str, ticket_id: str) -> tuple[str, str]:
        """Remove a ticket that is not matched: ("left", ""), ("matched", its table id) or ("unknown", "")."""
        args = [ticket_id, k.tickets_of(queue)]
        status, *table = await self._script(self._queue_leave, keys=_queue_keys(queue), args=args)
        return status.decode(), table[0].decode() if table and table[0] else ""

    async def ticket(self, ticket_id: str) -> dict[str, str]:
        """A ticket's fields ({} for an unknown or expired ticket, or an id that is no ticket's)."""
        if not k.is_ticket_id(ticket_id):
            return {}
        found = await self.redis.hgetall(k.ticket(ticket_id))
        return {name.decode(): value.decode() for name, value in found.items()}

    async def forget_ticket_token(self, ticket_id: str) -> None:
        """Remove the seat token a ticket matched by an earlier release keeps in clear (this one keeps none)."""
        await self.redis.hdel(k.ticket(ticket_id), "token")

    async def notify_ticket(self, ticket_id: str) -> None:
        key = k.ticket_ready(ticket_id)
        pipe = self._batch()
        pipe.rpush(key, 1)
        pipe.expire(key, 3600)
        await pipe.execute()

    async def wait_ticket(self, ticket_id: str, timeout: float) -> None:
        await self.blocking.blpop([k.ticket_ready(ticket_id)], timeout=min(timeout, MAX_BLOCK))
