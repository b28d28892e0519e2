"""The gRPC edge every server shares (the gateway, the rules service): domain errors mapped to status codes, the
asyncio servicer wrappers that log, count and answer them, health and reflection, and the packing of what leaves a
server (a message in an Any, a game's info, a config's catalogue).

It knows the engine's errors and the storage's; a server adds its own (`register`): the gateway the table service's
and its limits'. It imports no service, so the rules service stands on engine_core and this module alone.
"""

from __future__ import annotations

import functools
import time
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeVar

import grpc
import redis
from google.protobuf.any_pb2 import Any as AnyMessage
from google.protobuf.message import Message
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer as AioHealthServicer
from manaforge.v1.common_pb2 import Catalogue, GameConfig
from manaforge.v1.rules_pb2 import GameInfo, OptionInfo

from engine_core.bots import bot_levels
from engine_core.errors import (
    GameOverError,
    IllegalActionError,
    InvalidConfigError,
    MalformedActionError,
    NotYourTurnError,
    RulesError,
    UnknownGameError,
)
from engine_core.registry import AnyGame, find_game
from services import observability
from services.reflection import enable as documented_reflection

F = TypeVar("F", bound=Callable[..., Any])

STATUS: list[tuple[type[Exception], grpc.StatusCode]] = [
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
    """A server's own errors (each registered goes ahead of those before it: register the more specific last)."""
    if (error, code) not in STATUS:
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


async def _answer(service: str, method: str, request: Any, exc: Exception, context: Any) -> None:
    """End the call with a known error's status and message (logged, counted); re-raise anything else (INTERNAL).
    Called inside the `except` that caught `exc`."""
    refusal = _refusal(service, method, request, exc)
    if refusal is None:
        raise exc
    await context.abort(*refusal)


def aio_unary(method: F) -> F:
    """Answer a known error with its status and message (logged, counted); anything else is INTERNAL (logged).
    The service in the logs and metrics is the servicer's `SERVICE_NAME` ("gateway", "rules")."""
    timers: dict[str, Any] = {}

    @functools.wraps(method)
    async def wrapper(self: Any, request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        service = self.SERVICE_NAME
        started = time.perf_counter()
        try:
            return await method(self, request, context)
        except Exception as exc:
            await _answer(service, method.__name__, request, exc, context)
        finally:
            timer = timers.get(service)
            if timer is None:
                timer = timers[service] = observability.CALL_SECONDS.labels(service, method.__name__)
            timer.observe(time.perf_counter() - started)

    return wrapper  # type: ignore[return-value]


def aio_streaming(method: F) -> F:
    @functools.wraps(method)
    async def wrapper(self: Any, request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> AsyncIterator[Any]:
        try:
            async for item in method(self, request, context):
                yield item
        except Exception as exc:
            await _answer(self.SERVICE_NAME, method.__name__, request, exc, context)

    return wrapper  # type: ignore[return-value]


def aio_writing(method: F) -> F:
    """A server-streaming call that writes its messages itself (`await context.write(...)`) and returns: one
    coroutine per stream where a generator would add a chain of them (a gateway holds tens of thousands of Watch
    streams). Known errors are answered as `aio_streaming` answers them."""

    @functools.wraps(method)
    async def wrapper(self: Any, request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        try:
            await method(self, request, context)
        except Exception as exc:
            await _answer(self.SERVICE_NAME, method.__name__, request, exc, context)

    return wrapper  # type: ignore[return-value]


class VersionedHealth(AioHealthServicer):  # type: ignore[misc]
    """gRPC health checking whose answer says which Manaforge answers: metadata manaforge-version, manaforge-commit."""

    async def Check(self, request: Any, context: Any) -> Any:
        await context.send_initial_metadata(observability.version_metadata())
        return await super().Check(request, context)


async def aio_health_and_reflection(server: grpc.aio.Server, service_name: str) -> AioHealthServicer:
    """Health checking (SERVING; its answer carries the version) and reflection on an asyncio server."""
    checker = VersionedHealth()
    health_pb2_grpc.add_HealthServicer_to_server(checker, server)
    for name in ("", service_name):
        await checker.set(name, health_pb2.HealthCheckResponse.SERVING)
    _reflection(server, service_name)
    return checker


def _reflection(server: Any, service_name: str) -> None:
    """Reflection that serves our proto files with their comments (services/reflection.py)."""
    documented_reflection(server, (service_name, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name))


def pack(message: Message) -> AnyMessage:
    packed = AnyMessage()
    packed.Pack(message)
    return packed


def as_field(number: int, encoded: bytes) -> bytes:
    """`encoded` (a message) as field `number` of an enclosing message, without decoding it again (protobuf's wire
    format: a message's serialization followed by such fields parses as that message with them set, or appended to
    when the field is repeated)."""
    return varint(number << 3 | 2) + varint(len(encoded)) + encoded


def varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def game_info(game: AnyGame) -> GameInfo:
    info = game.info
    return GameInfo(
        name=info.name,
        title=info.title,
        min_seats=info.min_seats,
        max_seats=info.max_seats,
        description=info.description,
        options=[
            OptionInfo(name=o.name, default_value=o.default, choices=o.choices, description=o.description)
            for o in info.options
        ],
        bot_levels=bot_levels(),
        how_to_play=game.how_to_play(),
    )


_CATALOGUES: dict[bytes, bytes] = {}  # GameConfig bytes -> the encoded Catalogue
CATALOGUES_LIMIT = 1 << 10  # configs kept before the record starts again (a config is the client's to choose)


def catalogue(config: GameConfig) -> bytes:
    """The encoded Catalogue of `config`'s game under its options (GetCatalogue), made once per config.
    UnknownGameError / InvalidConfigError name what is wrong with the config."""
    key = config.SerializeToString(deterministic=True)
    found = _CATALOGUES.get(key)
    if found is None:
        game = find_game(config.game)
        cards = game.catalogue(config)
        if len(_CATALOGUES) >= CATALOGUES_LIMIT:
            _CATALOGUES.clear()
        found = _CATALOGUES[key] = Catalogue(cards=cards, squares=game.board(config)).SerializeToString()
    return found
