"""The table service's Scheduler port, carried out by Celery tasks (sent by name: no task code is imported)."""

from __future__ import annotations

from celery import Celery

BOT_MOVE = "manaforge.bot_move"
RESPONSE_TIMEOUT = "manaforge.response_timeout"
VALIDATE_REPLAY = "manaforge.validate_replay"


class CeleryScheduler:
    def __init__(self, celery: Celery) -> None:
        self.celery = celery

    def bot_turn(self, table_id: str, seat: int, version: int, delay: float) -> None:
        self.celery.send_task(BOT_MOVE, args=[table_id, seat, version], countdown=delay or None)

    def response_timeout(self, table_id: str, seat: int, version: int, delay: float) -> None:
        self.celery.send_task(RESPONSE_TIMEOUT, args=[table_id, seat, version], countdown=delay)

    def validate_replay(self, table_id: str) -> None:
        self.celery.send_task(VALIDATE_REPLAY, args=[table_id])
