"""Bring the stored game data to the layout this release reads (services/tables/layout.py; docs/operations.md,
Upgrading).

    python -m deploy.migrate           # run every migration step from the stored layout to this release's
    python -m deploy.migrate --check   # say which layout the data is in and what would run; change nothing

Which Redis: REDIS_URL, or MANAFORGE_REDIS_CLUSTER (the services' settings), or --redis-url. Run it once, from the
new release, before its first process starts; the previous release's processes may go on serving meanwhile (a
step keeps the data readable by the previous release). A newer layout than this release's is refused and nothing
changes. Exit status 0: the data is in this release's layout (or, with --check, already was); 1: refused or failed;
2 (--check only): a migration is needed.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from redis.exceptions import RedisError

from services.bootstrap import data_client
from services.settings import Settings, settings_at_start
from services.tables.layout import LAYOUT, MIGRATIONS, LayoutError, migrate, stored_layout


async def run(settings: Settings, check: bool) -> int:
    redis = data_client(settings)
    try:
        stored = await stored_layout(redis)
        print(f"stored layout {stored}; this release reads layout {LAYOUT}")
        if check:
            if stored > LAYOUT:
                print("newer than this release: run the release that wrote it", file=sys.stderr)
                return 1
            pending = [MIGRATIONS[n].summary for n in range(stored + 1, LAYOUT + 1) if n in MIGRATIONS]
            for line in pending:
                print(f"  would run: {line}")
            return 2 if stored < LAYOUT else 0
        steps = await migrate(redis)
        print(f"{len(steps)} migration step(s) run; the data is in layout {LAYOUT}")
        return 0
    finally:
        await redis.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="say what would run; change nothing")
    parser.add_argument("--redis-url", default="", help="this Redis instead of the settings' game data")
    args = parser.parse_args()
    settings = settings_at_start()
    if args.redis_url:
        settings = Settings(redis_url=args.redis_url)
    try:
        status = asyncio.run(run(settings, args.check))
    except (LayoutError, RedisError, OSError) as exc:
        print(f"manaforge migrate: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
    raise SystemExit(status)


if __name__ == "__main__":
    main()
