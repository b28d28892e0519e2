"""How the gateway's handlers meet gRPC: every method registered with a coroutine of the same name, requests parsed
and checked before the handler sees them (a request that does not parse is INVALID_ARGUMENT, naming the message,
not gRPC's INTERNAL), responses passed through as bytes when they are already encoded (a Watch update is encoded
once per commit and seat), and a message wrapped as a field without decoding it again. A server-streaming method
is an async generator, or a coroutine that writes its messages itself (Watch: fewer objects per open stream)."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator
from typing import Any

import grpc
from google.protobuf import message_factory
from google.protobuf.descriptor import ServiceDescriptor
from google.protobuf.message import DecodeError, Message

from engine_core.errors import MalformedActionError
from gateway.limits import check_request
from services import observability
from services.edge import as_field as as_field  # re-exported: gateway/calls/live.py
from services.edge import message_of, status_of


def encode(message: Message | bytes) -> bytes:
    return message if isinstance(message, bytes) else bytes(message.SerializeToString())


def add_service(server: grpc.aio.Server, servicer: Any, service: ServiceDescriptor) -> None:
    """Register every method of `service` with `servicer`'s coroutine of the same name. Requests are parsed and
    checked here (a request that does not parse is INVALID_ARGUMENT, not gRPC's INTERNAL); responses may be given
    already encoded."""
    handlers = {}
    for method in service.methods:
        request_type = message_factory.GetMessageClass(method.input_type)
        call = getattr(servicer, method.name)
        if method.client_streaming:
            handlers[method.name] = grpc.stream_stream_rpc_method_handler(
                _parsing_stream(call, request_type), response_serializer=encode
            )
        elif method.server_streaming:
            parsing = _parsing_writer if inspect.iscoroutinefunction(call) else _parsing_server_stream
            handlers[method.name] = grpc.unary_stream_rpc_method_handler(
                parsing(call, request_type), response_serializer=encode
            )
        else:
            handlers[method.name] = grpc.unary_unary_rpc_method_handler(
                _parsing_unary(call, request_type), response_serializer=encode
            )
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service.full_name, handlers),))


def _parse(request_type: type[Message], data: bytes) -> Message:
    try:
        request = request_type.FromString(data)
    except DecodeError:
        raise MalformedActionError("request encoding", f"not a valid {request_type.DESCRIPTOR.full_name}") from None
    check_request(request)
    return request


async def _refuse(context: Any, exc: Exception) -> None:
    code = status_of(exc)
    if code is None:
        raise exc
    message = message_of(exc)
    observability.refused("gateway", "parse", None, code.name, message)
    await context.abort(code, message)


def _parsing_unary(call: Any, request_type: type[Message]) -> Any:
    async def handler(data: bytes, context: Any) -> Any:
        try:
            request = _parse(request_type, data)
        except Exception as exc:
            await _refuse(context, exc)
        return await call(request, context)

    return handler


def _parsing_server_stream(call: Any, request_type: type[Message]) -> Any:
    async def handler(data: bytes, context: Any) -> AsyncIterator[Any]:
        try:
            request = _parse(request_type, data)
        except Exception as exc:
            await _refuse(context, exc)
        async for item in call(request, context):
            yield item

    return handler


def _parsing_writer(call: Any, request_type: type[Message]) -> Any:
    """A server-streaming call that is a coroutine writing its messages itself (`context.write`)."""

    async def handler(data: bytes, context: Any) -> None:
        try:
            request = _parse(request_type, data)
        except Exception as exc:
            await _refuse(context, exc)
        await call(request, context)

    return handler


def _parsing_stream(call: Any, request_type: type[Message]) -> Any:
    async def handler(requests: AsyncIterator[bytes], context: Any) -> AsyncIterator[Any]:
        async def parsed() -> AsyncIterator[Message]:
            async for data in requests:
                yield _parse(request_type, data)  # a bad message ends the stream with INVALID_ARGUMENT

        async for item in call(parsed(), context):
            yield item

    return handler
