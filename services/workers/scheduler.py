"""The Celery app's configuration, and the table service's Scheduler port carried out by Celery tasks (sent by
name: no task code is imported here)."""

from __future__ import annotations

import asyncio

from celery import Celery

BOT_MOVE = "manaforge.bot_move"
RESPONSE_TIMEOUT = "manaforge.response_timeout"
VALIDATE_REPLAY = "manaforge.validate_replay"


def make_celery(broker_url: str) -> Celery:
    """Configuration only: no connection is made until a task is sent or a worker starts."""
    celery = Celery("manaforge", broker=broker_url)
    celery.conf.update(
        task_serializer="json",
        accept_content=["json"],  # never pickle
        result_serializer="json",
        task_ignore_result=True,
        task_acks_late=True,
        worker_prefetch_multiplier=1,
        broker_connection_retry_on_startup=True,
        worker_hijack_root_logger=False,
    )
    return celery


class CeleryScheduler:
    """Sends each task from a worker thread: kombu's publish blocks, the event loop must not."""

    def __init__(self, celery: Celery) -> None:
        self.celery = celery

    async def _send(self, name: str, args: list[object], countdown: float | None = None) -> None:
        await asyncio.to_thread(self.celery.send_task, name, args=args, countdown=countdown)

    async def bot_turn(self, table_id: str, seat: int, version: int, delay: float) -> None:
        await self._send(BOT_MOVE, [table_id, seat, version], delay or None)

    async def response_timeout(self, table_id: str, seat: int, version: int, delay: float) -> None:
        await self._send(RESPONSE_TIMEOUT, [table_id, seat, version], delay)

    async def validate_replay(self, table_id: str) -> None:
        await self._send(VALIDATE_REPLAY, [table_id])
