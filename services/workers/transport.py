"""Celery's broker transport: kombu's Redis transport with one fault of kombu 5.7.0 and Celery 5.7.0 worked around.

When the worker loses its broker connection while it holds unacknowledged tasks, Celery's consumer first collects
the connection (kombu closes its channels, then detaches the transport from the connection) and then closes it
again (`Consumer.on_connection_error_after_connected`, new in Celery 5.7.0). A channel whose first close stopped
early (its pending BRPOP read failed on the dead socket) is closed a second time; it then tries to put its
unacknowledged tasks back, needs a Redis client, and reads the host from the detached transport:
`AttributeError: 'NoneType' object has no attribute 'hostname'` in `Channel._connparams`. That is not one of the
connection errors Celery's cleanup ignores, so the worker stopped ("Unrecoverable error"), on some blips and not on
others. Here a channel of a detached transport raises redis' ConnectionError instead: what the put-back would meet
anyway with the broker gone. Celery ignores it and reconnects; the tasks stay in the broker's unacknowledged set (the
broker hands them out again after the visibility timeout) and their outbox items come due again after their lease.

No kombu or Celery release fixes it yet (kombu 5.7.0 and Celery 5.7.0 are the latest): drop this module when one
does, and `tests/stack/test_worker_faults.py` shows whether it still matters.
"""

from __future__ import annotations

from typing import Any

from kombu.transport import redis as kombu_redis
from redis.exceptions import ConnectionError as RedisConnectionError

NAME = "services.workers.transport:Transport"  # Celery's broker_transport setting


class Channel(kombu_redis.Channel):  # type: ignore[misc]
    def _connparams(self, asynchronous: bool = False) -> dict[str, Any]:
        transport = self.connection
        if transport is None or transport.client is None:
            raise RedisConnectionError("the broker connection is closed")
        params: dict[str, Any] = super()._connparams(asynchronous=asynchronous)
        return params


class Transport(kombu_redis.Transport):  # type: ignore[misc]
    Channel = Channel

