"""The Celery app: bot moves, response-window timers and replay validation, over a Redis broker, JSON messages.

    celery -A services.workers.app worker --loglevel=info

The app object only holds configuration (no connection is made at import); the table service each task uses is
built once per worker process, on first use, by gateway.bootstrap.
"""

from __future__ import annotations

from celery import Celery

from gateway.bootstrap import Settings, build_tables
from gateway.tables import Tables
from services.workers.scheduler import BOT_MOVE, RESPONSE_TIMEOUT, VALIDATE_REPLAY


def make_celery(broker_url: str) -> Celery:
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


app = make_celery(Settings.from_env().redis_url)
_tables: Tables | None = None


def tables() -> Tables:
    global _tables
    if _tables is None:
        _tables = build_tables(Settings.from_env())
    return _tables


@app.task(name=BOT_MOVE)
def bot_move(table_id: str, seat: int, version: int) -> bool:
    """Move for a bot seat, if the game still waits for it at `version` (a late duplicate does nothing)."""
    return tables().play_bot(table_id, seat, version)


@app.task(name=RESPONSE_TIMEOUT)
def response_timeout(table_id: str, seat: int, version: int) -> bool:
    """Pass for a seat that did not answer a response window in time."""
    return tables().expire(table_id, seat, version)


@app.task(name=VALIDATE_REPLAY)
def validate_replay(table_id: str) -> str:
    """Re-run a finished game from its seed and log; the verdict is stored with the table."""
    return str(tables().validate_replay(table_id))
