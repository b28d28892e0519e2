"""The one place where the parts are wired: settings from the environment, Redis, the scheduler, the tables."""

from __future__ import annotations

import os
from dataclasses import dataclass

import redis

from gateway.store import RedisStore
from gateway.tables import Tables

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"


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


def build_tables(settings: Settings) -> Tables:
    """Tables over Redis, with bots, timers and replay validation sent to the Celery workers."""
    from services.workers.app import make_celery
    from services.workers.scheduler import CeleryScheduler

    load_card_sets(settings.card_sets)
    client = redis.Redis.from_url(settings.redis_url)
    scheduler = CeleryScheduler(make_celery(settings.redis_url))
    return Tables(
        RedisStore(client),
        scheduler,
        response_timeout=settings.response_timeout,
        bot_delay=settings.bot_delay,
        bot_time_cap=settings.bot_time_cap,
    )
