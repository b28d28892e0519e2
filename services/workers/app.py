"""The Celery app: follow-up work (bot moves, response timers, replay validation) over a Redis broker, JSON
messages, and in every worker process a dispatcher that claims due items from the outbox and sends them here.

    celery -A services.workers.app worker --loglevel=info

The app object only holds configuration (no connection is made at import). Each worker process builds the table
service once, on an event loop of its own (a Portal): tasks are plain threads that wait on it.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from celery.signals import worker_ready, worker_shutting_down

from services import observability
from services.bootstrap import Settings, build_tables
from services.tables.followups import FollowUp
from services.tables.portal import Portal
from services.tables.service import Tables
from services.workers.dispatcher import Dispatcher
from services.workers.scheduler import FOLLOW_UP, make_celery

app = make_celery(Settings.from_env().redis_url)
_service: tuple[Portal, Tables] | None = None
_lock = threading.Lock()
_stop: asyncio.Event | None = None


def service() -> tuple[Portal, Tables]:
    global _service
    with _lock:
        if _service is None:
            portal = Portal()

            async def build() -> Tables:
                return build_tables(Settings.from_env())

            _service = portal, portal.run(build())
        return _service


@app.task(name=FOLLOW_UP)
def follow_up(item: str) -> bool:
    """One follow-up item: a bot's move, a timer's pass, a replay validation (a late or repeated one does nothing)."""
    portal, tables = service()
    return portal.run(tables.follow_up(FollowUp.parse(item)))


def send(item: FollowUp) -> None:
    app.send_task(FOLLOW_UP, args=[item.format()])


@worker_ready.connect
def start_dispatcher(**_: Any) -> None:
    """The worker is up: run its dispatcher on the service's event loop."""
    global _stop
    observability.configure("worker")
    portal, tables = service()

    async def begin() -> None:
        global _stop
        _stop = asyncio.Event()
        asyncio.get_running_loop().create_task(Dispatcher(tables, send).run(_stop))

    portal.run(begin())


@worker_shutting_down.connect
def stop_dispatcher(**_: Any) -> None:
    if _stop is not None and _service is not None:
        _service[0].loop.call_soon_threadsafe(_stop.set)
