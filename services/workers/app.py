"""The Celery app: follow-up work (bot moves, response timers, replay validation) over a Redis broker, JSON
messages, and in every worker process a dispatcher that claims due items from the outbox and sends them here.

    celery -A services.workers.app worker --loglevel=info

The app object only holds configuration (no connection is made at import). Each worker process builds the table
service once, on an event loop of its own (a Portal): tasks are plain threads that wait on it. A watchdog thread
makes a worker that can no longer move every game exit, so that its supervisor starts it again (`watch`).
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from typing import Any

from celery.bootsteps import RUN
from celery.signals import setup_logging, worker_ready, worker_shutting_down

from services import collector, observability
from services.bootstrap import checked_tables
from services.settings import settings_at_start
from services.tables.followups import FollowUp
from services.tables.layout import LayoutError
from services.tables.portal import Portal
from services.tables.service import Tables
from services.workers.dispatcher import Dispatcher
from services.workers.scheduler import FOLLOW_UP, make_celery

log = logging.getLogger(__name__)

WATCH_EVERY = 1.0  # seconds between two looks at the worker's health
STOP_GRACE = 25.0  # seconds a worker asked to stop may take to finish its tasks (Kubernetes waits 30)
UNHEALTHY = 70  # the exit status of an unhealthy worker (EX_SOFTWARE)
EX_CONFIG = 78  # the exit status of a worker that refuses its store's layout (services/tables/layout.py)

SETTINGS = settings_at_start()  # read once, when the worker imports its app
app = make_celery(SETTINGS.redis())
_service: tuple[Portal, Tables] | None = None
_lock = threading.Lock()
_stop: asyncio.Event | None = None  # ends the dispatcher's loops
_stopping = threading.Event()  # the worker was asked to stop (SIGTERM, Ctrl-C)


def service() -> tuple[Portal, Tables]:
    global _service
    with _lock:
        if _service is None:
            portal = Portal()

            async def build() -> Tables:
                return await checked_tables(SETTINGS)

            _service = portal, portal.run(build())
        return _service


@app.task(name=FOLLOW_UP)
def follow_up(item: str) -> bool:
    """One follow-up item: a bot's move, a timer's pass, a replay validation (a late or repeated one does nothing)."""
    portal, tables = service()
    return portal.run(tables.follow_up(FollowUp.parse(item)))


def send(item: FollowUp) -> None:
    app.send_task(FOLLOW_UP, args=[item.format()])


@setup_logging.connect
def log_json_lines(loglevel: int | None = None, **_: Any) -> None:
    """The worker's logging is ours: with a receiver of this signal Celery installs no handler of its own and does
    not redirect stdout and stderr into its loggers (where JSON lines written to stderr were lost). Celery's own
    records (a lost broker connection, an unrecoverable error) become JSON lines too, at the command's --loglevel."""
    observability.log_json_lines("worker", SETTINGS.log_level)
    if loglevel:
        logging.getLogger("celery").setLevel(loglevel)


@worker_ready.connect
def start_dispatcher(sender: Any, **_: Any) -> None:
    """The worker is up (`sender` is its Celery consumer): serve its metrics, run its dispatcher on the service's
    event loop, and watch the worker's health from a thread of its own."""
    observability.serve_metrics(SETTINGS)
    observability.announce("worker", SETTINGS)  # its version: in its metrics and logs
    collector.tune(SETTINGS.gc_thresholds)
    try:
        portal, tables = service()
    except LayoutError as exc:
        log.critical("worker not starting", extra={"fields": {"reason": str(exc), "status": EX_CONFIG}})
        os._exit(EX_CONFIG)
    except Exception as exc:  # Redis never came (Celery would only log a receiver's error and run on, unable to work)
        log.critical("worker not starting", extra={"fields": {"reason": repr(exc), "status": UNHEALTHY}})
        os._exit(UNHEALTHY)
    dispatcher = Dispatcher(tables, send, SETTINGS.worker_stuck_after)

    async def begin() -> None:
        global _stop
        _stop = asyncio.Event()
        dispatcher.start(_stop)

    portal.run(begin())
    threading.Thread(target=watch, args=(dispatcher, sender.controller), name="watchdog", daemon=True).start()


def watch(dispatcher: Dispatcher, worker: Any) -> None:
    """A worker that cannot move every game exits, and its supervisor (`make run`, Kubernetes) starts it again:
    when a dispatcher loop ended or began no step for a minute (MANAFORGE_WORKER_STUCK_AFTER seconds: a hung call, a
    blocked event loop), when Celery's worker stopped without being asked to (an "Unrecoverable error": it takes no
    more tasks, and its shutdown can hang), or when a stop it was asked for takes more than STOP_GRACE seconds. It
    logs why and exits with status UNHEALTHY. Nothing is lost: its claimed items and unacknowledged tasks come back."""
    asked_to_stop = 0.0
    while True:
        time.sleep(WATCH_EVERY)
        if _stopping.is_set():
            asked_to_stop = asked_to_stop or time.monotonic()
            late = time.monotonic() - asked_to_stop > STOP_GRACE
            failing = [f"still stopping after {STOP_GRACE:g} s"] if late else []
        else:
            failing = dispatcher.failing()
            if worker.blueprint.state != RUN:
                failing.append("Celery's worker stopped (its error is logged above)")
        if failing:
            log.critical("worker unhealthy, exiting", extra={"fields": {"failing": failing, "status": UNHEALTHY}})
            os._exit(UNHEALTHY)


@worker_shutting_down.connect
def stop_dispatcher(**_: Any) -> None:
    _stopping.set()
    if _stop is not None and _service is not None:
        _service[0].loop.call_soon_threadsafe(_stop.set)
