"""Run a gateway process:  python -m gateway --address 127.0.0.1:50051  (REDIS_URL names the Redis server).

One asyncio event loop (uvloop unless MANAFORGE_UVLOOP=0) serves every call and stream of the process.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal

from gateway.server import serve
from services import observability
from services.bootstrap import Settings, build_tables


async def run(address: str) -> None:
    gateway = await serve(build_tables(Settings.from_env()), address)
    print(f"gateway on port {gateway.port}", flush=True)
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopping.set)
    await stopping.wait()
    await gateway.drain()


def main() -> None:
    parser = argparse.ArgumentParser(description="Manaforge gateway")
    parser.add_argument("--address", default="127.0.0.1:50051")
    args = parser.parse_args()
    observability.configure("gateway")
    if os.environ.get("MANAFORGE_UVLOOP", "1") != "0":
        import uvloop

        uvloop.run(run(args.address))
    else:
        asyncio.run(run(args.address))


if __name__ == "__main__":
    main()
