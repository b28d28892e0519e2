"""The table service's outbound port: work done later, elsewhere (Celery workers in production)."""

from __future__ import annotations

from typing import Protocol


class Scheduler(Protocol):
    """Bot moves, response-window timers, replay validation: asked for after the commit that calls for them."""

    async def bot_turn(self, table_id: str, seat: int, version: int, delay: float) -> None: ...

    async def response_timeout(self, table_id: str, seat: int, version: int, delay: float) -> None: ...

    async def validate_replay(self, table_id: str) -> None: ...


class NullScheduler:
    """Schedules nothing: for tools that only read, and tests of the store alone."""

    async def bot_turn(self, table_id: str, seat: int, version: int, delay: float) -> None:
        pass

    async def response_timeout(self, table_id: str, seat: int, version: int, delay: float) -> None:
        pass

    async def validate_replay(self, table_id: str) -> None:
        pass
