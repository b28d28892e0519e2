"""Map domain errors to gRPC status codes, in one place shared by every servicer (sync and asyncio)."""

from __future__ import annotations

import functools
import time
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeVar

import grpc
import redis
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer as AioHealthServicer

from engine_core.errors import (
    GameOverError,
    IllegalActionError,
    InvalidConfigError,
    MalformedActionError,
    NotYourTurnError,
    RulesError,
    UnknownGameError,
)
from services import observability
from services.reflection import enable as documented_reflection
from services.tables.errors import (
    DrainingError,
    OutOfRangeError,
    SeatTokenError,
    StaleVersionError,
    TableNotFoundError,
    TableStateError,
)

F = TypeVar("F", bound=Callable[..., Any])

STATUS: list[tuple[type[Exception], grpc.StatusCode]] = [
    (TableNotFoundError, grpc.StatusCode.NOT_FOUND),
    (DrainingError, grpc.StatusCode.UNAVAILABLE),
    (OutOfRangeError, grpc.StatusCode.OUT_OF_RANGE),
    (SeatTokenError, grpc.StatusCode.UNAUTHENTICATED),
    (StaleVersionError, grpc.StatusCode.ABORTED),
    (TableStateError, grpc.StatusCode.FAILED_PRECONDITION),
    (redis.exceptions.ConnectionError, grpc.StatusCode.UNAVAILABLE),  # storage unreachable: try again
    (redis.exceptions.TimeoutError, grpc.StatusCode.UNAVAILABLE),
    (redis.exceptions.RedisError, grpc.StatusCode.UNAVAILABLE),
    (MalformedActionError, grpc.StatusCode.INVALID_ARGUMENT),
    (InvalidConfigError, grpc.StatusCode.INVALID_ARGUMENT),
    (UnknownGameError, grpc.StatusCode.INVALID_ARGUMENT),
    (NotYourTurnError, grpc.StatusCode.FAILED_PRECONDITION),
    (IllegalActionError, grpc.StatusCode.FAILED_PRECONDITION),
    (GameOverError, grpc.StatusCode.FAILED_PRECONDITION),
    (RulesError, grpc.StatusCode.FAILED_PRECONDITION),
]


EXCERPT = 300  # characters of a refusal's message at most: an input echoed in it is cut short


def register(error: type[Exception], code: grpc.StatusCode) -> None:
    """An edge's own errors (more specific mappings go first)."""
    STATUS.insert(0, (error, code))


def message_of(exc: Exception) -> str:
    text = str(exc)
    return text if len(text) <= EXCERPT else text[: EXCERPT - 1] + "…"


def status_of(exc: Exception) -> grpc.StatusCode | None:
    for error, code in STATUS:
        if isinstance(exc, error):
            return code
    return None


def _refusal(service: str, method: str, request: Any, exc: Exception) -> tuple[grpc.StatusCode, str] | None:
    """The status and message for a known error (logged and counted); None for an unexpected one (logged)."""
    code = status_of(exc)
    if code is None:
        observability.failed(service, method, request)
        return None
    message = message_of(exc)
    redis_down = isinstance(exc, redis.exceptions.RedisError)
    observability.refused(service, method, request, code.name, message, redis_down)
    return code, message


def unary(method: F) -> F:
    """Answer a known error with its status and message; anything else stays an INTERNAL error."""

    timer = observability.CALL_SECONDS.labels("rules", method.__name__)

    @functools.wraps(method)
    def wrapper(self: Any, request: Any, context: grpc.ServicerContext) -> Any:
        try:
            with timer.time():
                return method(self, request, context)
        except Exception as exc:
            refusal = _refusal("rules", method.__name__, request, exc)
            if refusal is None:
                raise
            context.abort(*refusal)

    return wrapper  # type: ignore[return-value]


def aio_unary(method: F) -> F:
    timer = observability.CALL_SECONDS.labels("gateway", method.__name__)

    @functools.wraps(method)
    async def wrapper(self: Any, request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        started = time.perf_counter()
        try:
            return await method(self, request, context)
        except Exception as exc:
            refusal = _refusal("gateway", method.__name__, request, exc)
            if refusal is None:
                raise
            await context.abort(*refusal)
        finally:
            timer.observe(time.perf_counter() - started)

    return wrapper  # type: ignore[return-value]


def aio_streaming(method: F) -> F:
    @functools.wraps(method)
    async def wrapper(self: Any, request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> AsyncIterator[Any]:
        try:
            async for item in method(self, request, context):
                yield item
        except Exception as exc:
            refusal = _refusal("gateway", method.__name__, request, exc)
            if refusal is None:
                raise
            await context.abort(*refusal)

    return wrapper  # type: ignore[return-value]


def add_health_and_reflection(server: grpc.Server, service_name: str) -> health.HealthServicer:
    """Health checking (SERVING) and reflection on a sync server."""
    checker = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(checker, server)
    for name in ("", service_name):
        checker.set(name, health_pb2.HealthCheckResponse.SERVING)
    _reflection(server, service_name)
    return checker


async def aio_health_and_reflection(server: grpc.aio.Server, service_name: str) -> AioHealthServicer:
    """Health checking (SERVING) and reflection on an asyncio server."""
    checker = AioHealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(checker, server)
    for name in ("", service_name):
        await checker.set(name, health_pb2.HealthCheckResponse.SERVING)
    _reflection(server, service_name)
    return checker


def _reflection(server: Any, service_name: str) -> None:
    """Reflection that serves our proto files with their comments (services/reflection.py)."""
    documented_reflection(server, (service_name, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name))
