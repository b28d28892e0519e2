"""Map domain errors to gRPC status codes, in one place shared by every servicer."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import grpc

from engine_core.errors import (
    GameOverError,
    IllegalActionError,
    InvalidConfigError,
    MalformedActionError,
    NotYourTurnError,
    RulesError,
    UnknownGameError,
)

F = TypeVar("F", bound=Callable[..., Any])

STATUS: list[tuple[type[Exception], grpc.StatusCode]] = [
    (MalformedActionError, grpc.StatusCode.INVALID_ARGUMENT),
    (InvalidConfigError, grpc.StatusCode.INVALID_ARGUMENT),
    (UnknownGameError, grpc.StatusCode.INVALID_ARGUMENT),
    (NotYourTurnError, grpc.StatusCode.FAILED_PRECONDITION),
    (IllegalActionError, grpc.StatusCode.FAILED_PRECONDITION),
    (GameOverError, grpc.StatusCode.FAILED_PRECONDITION),
    (RulesError, grpc.StatusCode.FAILED_PRECONDITION),
]


def register(error: type[Exception], code: grpc.StatusCode) -> None:
    """More specific mappings go first (the gateway adds its table errors)."""
    STATUS.insert(0, (error, code))


def status_of(exc: Exception) -> grpc.StatusCode | None:
    for error, code in STATUS:
        if isinstance(exc, error):
            return code
    return None


def _abort_if_known(exc: Exception, context: grpc.ServicerContext) -> None:
    """Abort the call with the error's status and message; re-raise an error that has no status."""
    code = status_of(exc)
    if code is None:
        raise exc
    context.abort(code, str(exc))


def unary(method: F) -> F:
    """Answer a known error with its status and message; anything else stays an INTERNAL error."""

    @functools.wraps(method)
    def wrapper(self: Any, request: Any, context: grpc.ServicerContext) -> Any:
        try:
            return method(self, request, context)
        except Exception as exc:
            _abort_if_known(exc, context)

    return wrapper  # type: ignore[return-value]


def streaming(method: F) -> F:
    @functools.wraps(method)
    def wrapper(self: Any, request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        try:
            yield from method(self, request, context)
        except Exception as exc:
            _abort_if_known(exc, context)

    return wrapper  # type: ignore[return-value]
