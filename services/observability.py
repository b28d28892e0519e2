"""Logs and metrics every service shares: one JSON line per refused request and per error (with the table id and the
reason, never a token), and the Prometheus metrics server (its port and address are settings: services/settings.py)."""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any

from prometheus_client import Counter, Gauge, Histogram, start_http_server

from services import collector, version
from services.settings import Settings

REFUSALS = Counter(
    "manaforge_refusals_total", "Requests refused, by service, method and gRPC status", ["service", "method", "code"]
)
ERRORS = Counter("manaforge_errors_total", "Requests that failed with an unexpected error", ["service", "method"])
CALL_SECONDS = Histogram(
    "manaforge_call_seconds",
    "Time to answer a unary call, by service and method",
    ["service", "method"],
    buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.5, 1.0, 5.0),
)
BUILD_INFO = Gauge(
    "manaforge_build_info",
    "1, labelled with the version and commit this process runs, its role and its name (a gateway's identity)",
    ["version", "commit", "role", "name"],
)
REDIS_ERRORS = Counter("manaforge_redis_errors_total", "Requests that failed because Redis did not answer", ["service"])

log = logging.getLogger("manaforge")


class JsonLines(logging.Formatter):
    """One JSON object per line: time, level, service, message, and the record's `fields`."""

    def __init__(self, service: str) -> None:
        super().__init__()
        self.service = service

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "service": self.service,
            "event": record.getMessage(),
        }
        line.update(getattr(record, "fields", {}))
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str)


def configure(service: str, settings: Settings) -> None:
    """JSON lines on stderr for this process, its metrics on its metrics port when it has one, its garbage
    collector's thresholds (services/collector.py), and its version: in the metrics and the first log line."""
    log_json_lines(service, settings.log_level)
    serve_metrics(settings)
    collector.tune(settings.gc_thresholds)
    announce(service, settings)


def announce(service: str, settings: Settings) -> None:
    """This process's version and commit: manaforge_build_info, and a log line (its first, from configure)."""
    name(service, settings, "")
    running = {"version": version.version(), "commit": version.commit(settings.commit), "tls": settings.is_tls}
    log.info("starting", extra={"fields": running})


def name(service: str, settings: Settings, named: str) -> None:
    """manaforge_build_info of this process, under the name it is known by (a gateway's identity, once it listens)."""
    _running["commit"] = version.commit(settings.commit)
    BUILD_INFO.clear()
    BUILD_INFO.labels(version.version(), _running["commit"], service, named).set(1)


_running = {"commit": ""}  # the commit of this process once configured (else found at the first ask)


def version_metadata() -> tuple[tuple[str, str], ...]:
    """The version and commit this process runs, as call metadata (the health answer's)."""
    return (("manaforge-version", version.version()), ("manaforge-commit", _running["commit"] or version.commit()))


def log_json_lines(service: str, level: str) -> None:
    """Every log record of this process at `level` or above as one JSON line on stderr."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonLines(service))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)


def serve_metrics(settings: Settings) -> None:
    """This process's Prometheus metrics on settings.metrics_port, when it has one."""
    if settings.metrics_port:  # HTTPS with the process's certificate when it has one (no client certificate asked)
        start_http_server(
            settings.metrics_port,
            addr=settings.metrics_address,
            certfile=settings.tls_cert or None,
            keyfile=settings.tls_key or None,
        )


def stop_at_once(signum: int, frame: object) -> None:
    """A process's SIGTERM handler before its event loop serves (loading, waiting for Redis): exit now, status 0.
    Installed explicitly because a container's first process (PID 1) ignores a signal it has no handler for."""
    raise SystemExit(0)


def request_fields(request: Any) -> dict[str, Any]:
    """What a log line may say of a request: its ids, never its secrets."""
    fields: dict[str, Any] = {}
    for name in ("table_id", "ticket_id", "client_action_id", "game"):
        value = getattr(request, name, None)
        if isinstance(value, str) and value:
            fields[name] = value[:64]
    if "ticket_id" in fields:  # a ticket id gives its seat token to whoever holds it: only its queue is written
        fields["ticket_id"] = fields["ticket_id"].rpartition("~")[0] + "~..."
    return fields


def refused(service: str, method: str, request: Any, code: str, message: str, redis_down: bool = False) -> None:
    REFUSALS.labels(service, method, code).inc()
    if redis_down:
        REDIS_ERRORS.labels(service).inc()
    log.info(
        "refused", extra={"fields": {"method": method, "code": code, "reason": message, **request_fields(request)}}
    )


def failed(service: str, method: str, request: Any) -> None:
    ERRORS.labels(service, method).inc()
    log.exception("error", extra={"fields": {"method": method, **request_fields(request)}})
