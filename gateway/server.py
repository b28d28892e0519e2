"""The gRPC front door (grpc.aio): the Gateway service, made of its calls by concern (gateway/calls/), and the
operator's Admin service (gateway/admin.py) on one server, with health checking and reflection; a running gateway's
health follows Redis, and it drains gracefully.

One event loop serves every call and stream of the process: no thread per call.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
from grpc_health.v1 import health_pb2
from grpc_health.v1._async import HealthServicer as AioHealthServicer
from manaforge.v1 import gateway_pb2

from gateway import admin
from gateway.calls.challenges import ChallengeCalls
from gateway.calls.live import LiveCalls
from gateway.calls.players import PlayerCalls
from gateway.calls.tables import TableCalls
from gateway.limits import MAX_MESSAGE, Limits
from gateway.wire import add_service
from services import observability
from services.edge import aio_health_and_reflection
from services.tables.operations import Moderation
from services.tables.service import Tables
from services.tls import listen

SERVICE = gateway_pb2.DESCRIPTOR.services_by_name["Gateway"]
# Requests are at most MAX_MESSAGE bytes (gRPC refuses larger ones before reading them).
# Calls arriving faster than the event loop takes them wait in gRPC's queue, which cancels what does not fit (its
# default of 1,000 cancelled about one in twelve of 2,000 streams opened at once): room for a reconnecting crowd.
SERVER_OPTIONS = [
    ("grpc.max_receive_message_length", MAX_MESSAGE),
    ("grpc.server.max_pending_requests", 10_000),
    ("grpc.server.max_pending_requests_hard_limit", 20_000),
]
HEALTH_EVERY = 1.0  # seconds between the health check's pings of Redis
HEALTH_PING = 2.0
DRAIN_GRACE = 10.0  # seconds calls in flight may take to finish when a gateway stops
RETRY_AFTER = 2.0  # seconds a client is told to wait before trying again while Redis is unreachable
UNREACHABLE = (
    f"the game store (Redis) is unreachable from this gateway: nothing was done; retry in {RETRY_AFTER:g} s "
    "(or on another gateway)"
)
CUT = (
    f"the game store (Redis) stopped answering during this call: it may or may not have been applied; retry in "
    f"{RETRY_AFTER:g} s (a move retried with the same client_action_id is applied once)"
)
PUSHBACK = (("grpc-retry-pushback-ms", str(int(RETRY_AFTER * 1000))),)  # gRPC's retry hint, in the trailers
log = logging.getLogger(__name__)

Kind = tuple[bool, bool]  # a method's (client streaming, server streaming)
KINDS: dict[str, Kind] = {
    f"/{service.full_name}/{method.name}": (method.client_streaming, method.server_streaming)
    for service in (SERVICE, admin.SERVICE)
    for method in service.methods
}


class RedisWatch:
    """Whether this gateway's Redis answered its latest health ping (Gateway._watch_redis keeps it), and the unary
    calls under way, which are ended at once when it stops answering."""

    def __init__(self) -> None:
        self.is_reachable = True
        self.calls: set[asyncio.Task[Any]] = set()
        self.cut: set[asyncio.Task[Any]] = set()

    def lost(self) -> None:
        """Redis stopped answering: every unary call under way is ended now (UNAVAILABLE), not at its deadline."""
        self.is_reachable = False
        for task in self.calls:
            self.cut.add(task)
            task.cancel()

    def is_cut(self, task: asyncio.Task[Any]) -> bool:
        """Whether `task` was cancelled by `lost` (else by its client, or the server stopping)."""
        if task not in self.cut:
            return False
        self.cut.discard(task)
        task.uncancel()
        return True


class FailFast(grpc.aio.ServerInterceptor):  # type: ignore[type-arg]
    """While Redis is unreachable, every call but health and reflection is answered at once: UNAVAILABLE with a
    retry hint (the message, and gRPC's `grpc-retry-pushback-ms` trailer). A unary call under way when the health
    ping finds Redis gone is ended too, instead of waiting on Redis until the client's deadline."""

    def __init__(self, watch: RedisWatch) -> None:
        self.watch = watch
        self._guarded: dict[str, tuple[grpc.RpcMethodHandler[Any, Any], grpc.RpcMethodHandler[Any, Any]]] = {}

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any]]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any]:
        method = str(details.method)
        kind = KINDS.get(method)
        if kind is None:  # health, reflection
            return await continuation(details)
        if not self.watch.is_reachable:
            return _unavailable(method, kind, UNREACHABLE)
        task = asyncio.current_task()
        assert task is not None
        self.watch.calls.add(task)  # the interceptors after this one may wait on Redis too (moderation)
        try:
            handler = await continuation(details)
        except asyncio.CancelledError:
            if not self.watch.is_cut(task):
                raise
            return _unavailable(method, kind, CUT)
        finally:
            self.watch.calls.discard(task)
        if handler is None or kind != (False, False):
            return handler
        guarded = self._guarded.get(method)
        if guarded is None or guarded[0] is not handler:  # not the method's own handler: a moderation refusal
            guarded = (handler, self._guard(method, handler))
            if not self._guarded.get(method):
                self._guarded[method] = guarded
        return guarded[1]

    def _guard(self, method: str, handler: grpc.RpcMethodHandler[Any, Any]) -> grpc.RpcMethodHandler[Any, Any]:
        """`handler` (unary), ended with UNAVAILABLE when Redis is lost while it runs."""
        behavior, watch = handler.unary_unary, self.watch
        assert behavior is not None

        async def guarded(request: Any, context: Any) -> Any:
            task = asyncio.current_task()
            assert task is not None
            watch.calls.add(task)
            try:
                return await behavior(request, context)
            except asyncio.CancelledError:
                if not watch.is_cut(task):
                    raise
                _refused(method, CUT)
                await context.abort(grpc.StatusCode.UNAVAILABLE, CUT, trailing_metadata=PUSHBACK)
            finally:
                watch.calls.discard(task)
                watch.cut.discard(task)  # cut as it finished: nothing to end

        return grpc.unary_unary_rpc_method_handler(
            guarded, request_deserializer=handler.request_deserializer, response_serializer=handler.response_serializer
        )


def _refused(method: str, message: str) -> None:
    observability.refused("gateway", method.rsplit("/", 1)[-1], None, "UNAVAILABLE", message, redis_down=True)


def _unavailable(method: str, kind: Kind, message: str) -> grpc.RpcMethodHandler[Any, Any]:
    """A handler of the method's kind that answers UNAVAILABLE (Redis unreachable) with the retry hint."""
    _refused(method, message)

    async def unary(request: Any, context: Any) -> None:
        await context.abort(grpc.StatusCode.UNAVAILABLE, message, trailing_metadata=PUSHBACK)

    async def streaming(request: Any, context: Any) -> AsyncIterator[bytes]:
        await context.abort(grpc.StatusCode.UNAVAILABLE, message, trailing_metadata=PUSHBACK)
        yield b""  # never reached: makes this an async generator

    client_streaming, server_streaming = kind
    if client_streaming and server_streaming:
        return grpc.stream_stream_rpc_method_handler(streaming)
    if server_streaming:
        return grpc.unary_stream_rpc_method_handler(streaming)
    if client_streaming:
        return grpc.stream_unary_rpc_method_handler(unary)
    return grpc.unary_unary_rpc_method_handler(unary)


class GatewayServicer(TableCalls, LiveCalls, PlayerCalls, ChallengeCalls):
    """The Gateway service (proto/manaforge/v1/gateway.proto): every call, one module per concern (gateway/calls/)."""


class Gateway:
    """A running gateway: its gRPC server, health and the table service under it."""

    def __init__(
        self,
        server: grpc.aio.Server,
        port: int,
        health: AioHealthServicer,
        tables: Tables,
        stopping: asyncio.Event,
        name: str,
        watch: RedisWatch,
    ) -> None:
        self.stopping = stopping  # set when the operator drains this gateway (Admin.DrainGateway)
        self.heartbeat: asyncio.Task[None] | None = None
        self.server = server
        self.port = port
        self.name = name  # its identity in the overview, metrics and audit: host name and port
        self.watch = watch
        self.health = health
        self.tables = tables
        self.draining = False
        self.serving = True
        self._watch = asyncio.get_running_loop().create_task(self._watch_redis())

    async def _watch_redis(self) -> None:
        """NOT_SERVING while Redis does not answer (a load balancer then sends players elsewhere)."""
        while not self.draining:
            try:
                await asyncio.wait_for(self.tables.store.redis.ping(), HEALTH_PING)
                serving = True
            except Exception:
                serving = False
            if not serving and self.watch.is_reachable:
                self.watch.lost()  # calls under way end now, new ones are answered at once
            self.watch.is_reachable = serving
            if serving != self.serving and not self.draining:
                self.serving = serving
                status = (
                    health_pb2.HealthCheckResponse.SERVING if serving else health_pb2.HealthCheckResponse.NOT_SERVING
                )
                for name in ("", SERVICE.full_name):
                    await self.health.set(name, status)
                log.warning(
                    "redis %s: health %s", "back" if serving else "unreachable", "SERVING" if serving else "NOT_SERVING"
                )
            await asyncio.sleep(HEALTH_EVERY)

    async def drain(self, grace: float = DRAIN_GRACE) -> None:
        """Stop gracefully: report NOT_SERVING, end every Watch and Play stream with UNAVAILABLE and the sequence
        number to resume from (on another gateway), refuse new calls, and let calls in flight (a submit) finish
        within `grace` seconds."""
        self.draining = True
        await self.health.enter_graceful_shutdown()
        self.tables.hub.drain()
        self._watch.cancel()
        if self.heartbeat:
            self.heartbeat.cancel()
        await self.server.stop(grace)
        await self.tables.close()


def host_and_port(port: int) -> str:
    """A gateway's default identity: this host's name and the port it serves on."""
    return f"{socket.gethostname()}:{port}"


async def serve(
    tables: Tables,
    address: str,
    limits: Limits | None = None,
    operator_key: str = "",
    reuseport: bool = False,
    credentials: grpc.ServerCredentials | None = None,
    name: Callable[[int], str] = host_and_port,
    stopping: asyncio.Event | None = None,
) -> Gateway:
    """Start the gateway on `address` ("127.0.0.1:0" picks a free port), with the operator's Admin service
    (gateway/admin.py) beside it. `reuseport`: other gateway processes may listen on the same address (SO_REUSEPORT;
    the kernel spreads new connections among them); otherwise an address in use is refused. `credentials`: TLS only
    (services/tls.py). `name`: its identity from its port (MANAFORGE_GATEWAY_ID, else host name and port), never
    the bind address. `stopping`: set to stop it (the operator's DrainGateway sets it too)."""
    limits = limits or Limits()
    options = [("grpc.so_reuseport", int(reuseport)), *SERVER_OPTIONS]
    watch = RedisWatch()
    interceptors = [FailFast(watch), admin.Moderating(Moderation(tables.store.redis))]
    server = grpc.aio.server(options=options, interceptors=interceptors)
    servicer = GatewayServicer(tables, limits)
    add_service(server, servicer, SERVICE)
    stopping = stopping or asyncio.Event()
    console = admin.AdminServicer(
        tables, operator_key, lambda: asyncio.get_running_loop().call_later(0.2, stopping.set)
    )
    add_service(server, console, admin.SERVICE)
    health = await aio_health_and_reflection(server, SERVICE.full_name)
    port = listen(server, address, credentials)
    console.address = name(port)
    await server.start()
    gateway = Gateway(server, port, health, tables, stopping, console.address, watch)
    beat = admin.heartbeat(tables, console.address, servicer.streams, limits.streams, lambda: gateway.draining)
    gateway.heartbeat = asyncio.get_running_loop().create_task(beat)
    return gateway
