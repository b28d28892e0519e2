"""The Celery app: bot moves, response-window timers and replay validation, over a Redis broker, JSON messages.

    celery -A services.workers.app worker --loglevel=info

The app object only holds configuration (no connection is made at import). Each worker process builds the table
service once, on first use, on an event loop of its own (a Portal): tasks are plain threads that wait on it.
"""

from __future__ import annotations

import threading

from services.bootstrap import Settings, build_tables
from services.tables.portal import Portal
from services.tables.service import Tables
from services.workers.scheduler import BOT_MOVE, RESPONSE_TIMEOUT, VALIDATE_REPLAY, make_celery

app = make_celery(Settings.from_env().redis_url)
_service: tuple[Portal, Tables] | None = None
_lock = threading.Lock()


def service() -> tuple[Portal, Tables]:
    global _service
    with _lock:
        if _service is None:
            portal = Portal()

            async def build() -> Tables:
                return build_tables(Settings.from_env())

            _service = portal, portal.run(build())
        return _service


@app.task(name=BOT_MOVE)
def bot_move(table_id: str, seat: int, version: int) -> bool:
    """Move for a bot seat, if the game still waits for it at `version` (a late duplicate does nothing)."""
    portal, tables = service()
    return portal.run(tables.play_bot(table_id, seat, version))


@app.task(name=RESPONSE_TIMEOUT)
def response_timeout(table_id: str, seat: int, version: int) -> bool:
    """Pass for a seat that did not answer a response window in time."""
    portal, tables = service()
    return portal.run(tables.expire(table_id, seat, version))


@app.task(name=VALIDATE_REPLAY)
def validate_replay(table_id: str) -> str:
    """Re-run a finished game from its seed and log; the verdict is stored with the table."""
    portal, tables = service()
    return str(portal.run(tables.validate_replay(table_id)))
