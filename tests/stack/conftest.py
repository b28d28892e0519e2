"""The real stack for the tests: a redis-server, the rules service, two gateway processes and a Celery worker,
all started here on free loopback ports (deploy.launcher.Stack, the same launcher `make run` uses)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis

from deploy.launcher import Stack
from gateway.client import Client
from gateway.store import RedisStore
from gateway.tables import NullScheduler, Tables


@pytest.fixture(scope="session")
def stack() -> Iterator[Stack]:
    with Stack(gateways=2, response_timeout=1.0) as running:
        yield running


@pytest.fixture
def client(stack: Stack) -> Iterator[Client]:
    with Client(stack.gateway_addresses[0]) as c:
        yield c


@pytest.fixture
def client_b(stack: Stack) -> Iterator[Client]:
    """A client of the second gateway process."""
    with Client(stack.gateway_addresses[1]) as c:
        yield c


@pytest.fixture
def store(stack: Stack) -> RedisStore:
    return RedisStore(redis.Redis.from_url(stack.redis_url))


@pytest.fixture
def tables(store: RedisStore) -> Tables:
    """The table service on the test's Redis, scheduling nothing: for reading and checking stored games."""
    return Tables(store, NullScheduler())
