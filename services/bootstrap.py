"""The one place where the parts are wired: settings from the environment, Redis, the scheduler, the tables."""

from __future__ import annotations

import os
from dataclasses import dataclass

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError, TimeoutError

from services.tables.multiplex import Multiplexed
from services.tables.ports import Scheduler
from services.tables.service import Tables
from services.tables.store import RedisStore

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
RETRIES = 6  # a command that meets a dropped connection is tried again for about 2 s (commits are idempotent)
REDIS_CONNECTIONS = 256  # per process; a caller waits for a free connection beyond that


@dataclass(frozen=True)
class Settings:
    redis_url: str = DEFAULT_REDIS_URL
    response_timeout: float = 30.0  # seconds a seat has to answer a response window before it passes
    bot_delay: float = 0.0  # seconds a bot waits before moving
    bot_time_cap: float = 2.0  # seconds a bot may think, whatever its level's budget
    card_sets: str = ""  # a directory of MTGJSON set files to import

    @classmethod
    def from_env(cls) -> Settings:
        env = os.environ
        return cls(
            redis_url=env.get("REDIS_URL", DEFAULT_REDIS_URL),
            response_timeout=float(env.get("MANAFORGE_RESPONSE_TIMEOUT", "30")),
            bot_delay=float(env.get("MANAFORGE_BOT_DELAY", "0")),
            bot_time_cap=float(env.get("MANAFORGE_BOT_TIME_CAP", "2")),
            card_sets=env.get("MANAFORGE_CARD_SETS", ""),
        )


def load_card_sets(directory: str) -> list[str]:
    if not directory:
        return []
    from services.cardsets import load_card_sets as load

    return load(directory)


def redis_client(url: str) -> aioredis.Redis:
    """An asyncio Redis client (hiredis parser when installed) with a bounded connection pool."""
    pool = aioredis.BlockingConnectionPool.from_url(
        url,
        max_connections=REDIS_CONNECTIONS,
        timeout=10,
        retry=Retry(ExponentialBackoff(cap=0.5, base=0.02), RETRIES),
        retry_on_error=[ConnectionError, TimeoutError],
    )
    return aioredis.Redis(connection_pool=pool)


def build_tables(settings: Settings, scheduler: Scheduler | None = None) -> Tables:
    """Tables over Redis, with bots, timers and replay validation sent to the Celery workers. Call it on the event
    loop that will use the tables."""
    from services.workers.scheduler import CeleryScheduler, make_celery

    load_card_sets(settings.card_sets)
    return Tables(
        RedisStore(redis_client(settings.redis_url), Multiplexed(settings.redis_url)),
        scheduler or CeleryScheduler(make_celery(settings.redis_url)),
        response_timeout=settings.response_timeout,
        bot_delay=settings.bot_delay,
        bot_time_cap=settings.bot_time_cap,
    )
