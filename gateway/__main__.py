"""Run a gateway process:  python -m gateway --address 127.0.0.1:50051  (its settings: services/settings.py).

One asyncio event loop (uvloop unless MANAFORGE_UVLOOP=0) serves every call and stream of the process.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys

from redis.exceptions import RedisError

from gateway.limits import Limits
from gateway.server import serve
from services import observability
from services.bootstrap import checked_tables
from services.settings import Settings, settings_at_start
from services.tables.layout import LayoutError
from services.tls import server_credentials

EX_CONFIG = 78  # the exit status of a gateway that refuses its store's layout (sysexits.h)


async def run(address: str, settings: Settings) -> None:
    stopping = asyncio.Event()  # SIGTERM at any stage: while waiting for Redis too (a container's PID 1 included)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopping.set)
    starting = asyncio.ensure_future(checked_tables(settings))
    stopped = asyncio.ensure_future(stopping.wait())
    await asyncio.wait([starting, stopped], return_when=asyncio.FIRST_COMPLETED)
    if not starting.done():
        starting.cancel()  # checked_tables closes what it opened
        await asyncio.gather(starting, return_exceptions=True)
        print("gateway: stopped before serving (SIGTERM while starting)", file=sys.stderr, flush=True)
        return
    stopped.cancel()
    try:
        tables = starting.result()
    except LayoutError as exc:
        print(f"gateway: not starting: {exc}", file=sys.stderr, flush=True)
        raise SystemExit(EX_CONFIG) from None
    except RedisError as exc:
        print(f"gateway: not starting: Redis did not answer: {exc}", file=sys.stderr, flush=True)
        raise SystemExit(1) from None
    limits = Limits.from_settings(settings)
    gateway = await serve(
        tables,
        address,
        limits,
        settings.operator_key,
        settings.gateway_reuseport,
        credentials=server_credentials(settings),
        name=settings.gateway_name,
        stopping=stopping,  # also set by the operator's DrainGateway
    )
    observability.name("gateway", settings, gateway.name)
    print(f"gateway on port {gateway.port}: {gateway.name}{' (TLS)' if settings.is_tls else ''}", flush=True)
    await stopping.wait()
    await gateway.drain()


def main() -> None:
    parser = argparse.ArgumentParser(description="Manaforge gateway")
    parser.add_argument("--address", default="127.0.0.1:50051")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, observability.stop_at_once)  # until the event loop takes SIGTERM over
    settings = settings_at_start()
    observability.configure("gateway", settings)
    if settings.uvloop:
        import uvloop

        uvloop.run(run(args.address, settings))
    else:
        asyncio.run(run(args.address, settings))


if __name__ == "__main__":
    main()
