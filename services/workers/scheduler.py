"""The Celery app's configuration and task names (no task code is imported here)."""

from __future__ import annotations

from celery import Celery

from services.workers import broker

FOLLOW_UP = "manaforge.follow_up"
VISIBILITY_TIMEOUT = 30  # seconds before the broker hands an unacknowledged task to another worker
BROKER_TIMEOUT = 10  # seconds a broker command (a publish, an ack) may take: a broker gone without a word fails it


def make_celery(broker_url: str) -> Celery:
    """Configuration only: no connection is made until a task is sent or a worker starts.

    Tasks are acknowledged late (after they ran), so a task held by a worker that dies is delivered again after
    VISIBILITY_TIMEOUT seconds (the broker looks for such tasks every 10 s); the outbox's own lease
    (services/workers/dispatcher.py) brings it back sooner."""
    celery = Celery("manaforge", broker=broker_url)
    celery.conf.update(
        broker_transport=broker.TRANSPORT,  # kombu's Redis transport with a fault worked around (broker.py)
        worker_consumer=broker.CONSUMER,  # Celery's consumer, reconnecting at a steady pace (broker.py)
        task_serializer="json",
        accept_content=["json"],  # never pickle
        result_serializer="json",
        task_ignore_result=True,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        broker_connection_retry_on_startup=True,
        broker_connection_retry=True,
        broker_connection_max_retries=None,
        broker_channel_error_retry=True,  # a broker refusing a write (out of memory) restarts the consumer only
        broker_transport_options={
            "visibility_timeout": VISIBILITY_TIMEOUT,
            "unacked_restore_throttle": 1,  # look for tasks past their visibility timeout every 10 s, not 100 s
            "socket_timeout": BROKER_TIMEOUT,
            "socket_connect_timeout": BROKER_TIMEOUT,
        },
        worker_hijack_root_logger=False,
        worker_redirect_stdouts=False,  # the worker's logs are JSON lines on stderr (app.py: log_json_lines)
    )
    return celery
