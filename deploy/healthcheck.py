"""Container health checks that need no shell variable (podman sets no HOSTNAME; its checks run no shell).

    manaforge-healthcheck grpc 127.0.0.1:50051   # grpc.health.v1 Check of the overall service: SERVING or exit 1
    manaforge-healthcheck worker                 # this host's Celery worker answers a ping through the broker
    manaforge-healthcheck http 127.0.0.1:8443    # the web edge serves its page (HTTPS when MANAFORGE_TLS_CA is set)

gRPC and HTTP: over TLS when MANAFORGE_TLS_CA is set (gRPC with MANAFORGE_TLS_CLIENT_CERT/KEY under mutual TLS), as
our own processes call each other (docs/settings.md). The worker: its node is `celery@<host name>` (Celery's default
name), the host name read from the kernel (the pod's name under podman and Kubernetes), not from the environment.
Exit status 0 when healthy, 1 otherwise, with one line saying why.
"""

from __future__ import annotations

import argparse
import socket
import ssl
import sys
import urllib.request
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.settings import SYSTEM_STORE, settings_at_start


def channel(address: str) -> grpc.Channel:
    settings = settings_at_start()
    if not settings.tls_ca:
        return grpc.insecure_channel(address)
    roots = None if settings.tls_ca == SYSTEM_STORE else Path(settings.tls_ca).read_bytes()
    cert = Path(settings.tls_client_cert).read_bytes() if settings.tls_client_cert else None
    key = Path(settings.tls_client_key).read_bytes() if settings.tls_client_key else None
    return grpc.secure_channel(address, grpc.ssl_channel_credentials(roots, key, cert))


def grpc_serving(address: str, timeout: float) -> str:
    """Empty when the server at `address` answers SERVING, else why not."""
    try:
        with channel(address) as open_channel:
            answer = health_pb2_grpc.HealthStub(open_channel).Check(health_pb2.HealthCheckRequest(), timeout=timeout)
    except grpc.RpcError as exc:
        return f"{address}: {exc.code().name}: {exc.details()}"
    status = health_pb2.HealthCheckResponse.ServingStatus
    return "" if answer.status == status.SERVING else f"{address}: {status.Name(answer.status)}"


def page_served(address: str, timeout: float) -> str:
    """Empty when the web edge at `address` serves its page, else why not."""
    settings = settings_at_start()
    context = None
    if settings.tls_ca:
        context = ssl.create_default_context(cafile=None if settings.tls_ca == SYSTEM_STORE else settings.tls_ca)
    url = f"{'https' if context else 'http'}://{address}/"
    try:
        with urllib.request.urlopen(url, timeout=timeout, context=context) as page:
            page.read()
    except OSError as exc:
        return f"{url}: {exc}"
    return ""


def worker_alive(timeout: float) -> str:
    """Empty when this host's Celery worker answers a ping through the broker, else why not."""
    from services.workers.app import app  # the broker's settings; imported only for this check

    node = f"celery@{socket.gethostname()}"
    answers = app.control.inspect(destination=[node], timeout=timeout).ping() or {}
    return "" if node in answers else f"{node} did not answer a ping within {timeout:.0f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kind", choices=("grpc", "http", "worker"))
    parser.add_argument("address", nargs="?", default="127.0.0.1:50051", help="grpc, http: host:port of the server")
    parser.add_argument("--timeout", type=float, default=5.0)
    args = parser.parse_args()
    if args.kind == "grpc":
        why = grpc_serving(args.address, args.timeout)
    elif args.kind == "http":
        why = page_served(args.address, args.timeout)
    else:
        why = worker_alive(args.timeout)
    if why:
        sys.exit(f"unhealthy: {why}")
    print("healthy")


if __name__ == "__main__":
    main()
