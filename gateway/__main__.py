"""Run a gateway process:  python -m gateway --address 127.0.0.1:50051  (REDIS_URL names the Redis server)."""

from __future__ import annotations

import argparse
import os
import signal

from prometheus_client import start_http_server

from gateway.bootstrap import Settings, build_tables
from gateway.server import serve


def main() -> None:
    parser = argparse.ArgumentParser(description="Manaforge gateway")
    parser.add_argument("--address", default="127.0.0.1:50051")
    args = parser.parse_args()
    metrics_port = os.environ.get("MANAFORGE_METRICS_PORT")
    if metrics_port:
        start_http_server(int(metrics_port), addr="127.0.0.1")
    server, port = serve(build_tables(Settings.from_env()), args.address)
    print(f"gateway on port {port}", flush=True)
    signal.signal(signal.SIGTERM, lambda *_: server.stop(2))
    server.wait_for_termination()


if __name__ == "__main__":
    main()
