"""How the worker holds on to its broker (Celery over Redis) through a broker blip: two classes Celery is configured
to use instead of its own (scheduler.py), each a small change.

`Transport`: kombu's Redis transport with a fault of kombu 5.7.0 and Celery 5.7.0 worked around. When the worker
loses its broker connection while it holds unacknowledged tasks, Celery's consumer first collects the connection
(kombu closes its channels, then detaches the transport from the connection) and then closes it again
(`Consumer.on_connection_error_after_connected`, new in Celery 5.7.0). A channel whose first close stopped early (its
pending BRPOP read failed on the dead socket) is closed a second time; it then tries to put its unacknowledged tasks
back, needs a Redis client, and reads the host from the detached transport: `AttributeError: 'NoneType' object has no
attribute 'hostname'` in `Channel._connparams`. That is not one of the connection errors Celery's cleanup ignores,
so the worker stopped ("Unrecoverable error") on some blips and not on others. Here a channel of a detached transport
raises redis' ConnectionError instead, what the put-back meets anyway with the broker gone: Celery ignores it and
reconnects. The tasks stay in the broker's unacknowledged set (handed out again after the visibility timeout) and
their outbox items come due again when their lease runs out. kombu 5.7.0 and Celery 5.7.0 are the latest releases:
drop this class when one fixes it (tests/stack/test_worker_faults.py shows whether it still matters).

`Consumer`: Celery's consumer, trying to reconnect every RECONNECT_EVERY seconds while the broker is away. Celery
waits 2 s longer after each failed attempt (2, 4, 6... up to 30 s), so after an outage of 30 s it could wait 12 s
more before it took tasks again; this one takes them again within RECONNECT_EVERY seconds of the broker's return.
"""

from __future__ import annotations

import functools
from typing import Any

from celery.worker.consumer import Consumer as CeleryConsumer
from kombu.transport import redis as kombu_redis
from redis.exceptions import ConnectionError as RedisConnectionError

TRANSPORT = "services.workers.broker:Transport"  # Celery's broker_transport setting
CONSUMER = "services.workers.broker:Consumer"  # Celery's worker_consumer setting
RECONNECT_EVERY = 2.0  # seconds between two attempts to reach the broker again


class Channel(kombu_redis.Channel):
    def _connparams(self, asynchronous: bool = False) -> dict[str, Any]:
        transport = self.connection
        if transport is None or transport.client is None:
            raise RedisConnectionError("the broker connection is closed")
        params: dict[str, Any] = super()._connparams(asynchronous=asynchronous)  # type: ignore[no-untyped-call]
        return params


class Transport(kombu_redis.Transport):
    Channel = Channel


class Consumer(CeleryConsumer):  # type: ignore[misc]
    def ensure_connected(self, conn: Any) -> Any:
        conn.ensure_connection = functools.partial(
            conn.ensure_connection, interval_start=RECONNECT_EVERY, interval_step=0, interval_max=RECONNECT_EVERY
        )
        return super().ensure_connected(conn)
