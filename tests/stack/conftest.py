"""The real stack for the tests: a redis-server, the rules service, two gateway processes and a Celery worker,
all started here on free loopback ports (deploy.launcher.Stack, the same launcher `make run` uses).

The tests of the shared `stack` run twice: with the game data on one Redis, and on a Redis Cluster of three primaries
with a replica each (Celery's broker then stays a plain Redis)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from deploy.launcher import LOOPBACK_LIMITS, Stack
from gateway.client import Client
from services.bootstrap import data_client
from services.tables.portal import Blocking, Portal
from services.tables.service import Tables
from services.tables.store import RedisStore


@pytest.fixture(scope="session", params=["redis", "cluster"])
def stack(request: pytest.FixtureRequest) -> Iterator[Stack]:
    cluster = 3 if request.param == "cluster" else 0
    with Stack(gateways=2, response_timeout=1.0, settings=LOOPBACK_LIMITS, cluster=cluster) as running:
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


@pytest.fixture(scope="session")
def portal() -> Iterator[Portal]:
    """An event loop on its own thread, for the tests' plain calls into the async store and tables."""
    running = Portal()
    yield running
    running.close()


@pytest.fixture(scope="session")
def direct_tables(stack: Stack, portal: Portal) -> Iterator[Tables]:
    async def build() -> Tables:
        return Tables(RedisStore(data_client(stack.data_settings())))

    built = portal.run(build())
    yield built
    portal.run(built.close())  # its hub's pub/sub links stop with it, not left pending when the loop closes


@pytest.fixture
def store(direct_tables: Tables, portal: Portal) -> Any:
    """The Redis store of the test's stack, called plainly (`store.live(table_id)`)."""
    return Blocking(direct_tables.store, portal)


@pytest.fixture
def tables(direct_tables: Tables, portal: Portal) -> Any:
    """The table service on the test's Redis: for reading and checking stored games."""
    return Blocking(direct_tables, portal)
