"""gRPC server reflection that documents: our .proto files are served as protoc built them, with their comments.

grpcio-reflection answers from the descriptors compiled into the _pb2 modules, which carry no source info, so a
client such as `grpcurl describe` would see every field but none of its documentation. `make proto` also writes
every file's descriptor with its source info (manaforge/descriptors.binpb, see deploy/protogen.py); each answer of
the standard servicer is given those copies instead. Everything else (which files, the services listed, errors)
stays grpcio-reflection's.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import grpc
import manaforge
from google.protobuf.descriptor_pb2 import FileDescriptorProto, FileDescriptorSet
from grpc_reflection.v1alpha import reflection, reflection_pb2, reflection_pb2_grpc
from grpc_reflection.v1alpha._async import ReflectionServicer as AioReflectionServicer  # = reflection.aio's

SyncReflectionServicer: Any = reflection.ReflectionServicer  # its stub types the stream as returning None

DESCRIPTOR_SET = Path(manaforge.__file__).parent / "descriptors.binpb"


@functools.cache
def documented_files() -> dict[str, bytes]:
    """Each .proto file's name -> its serialized descriptor with source info. A comment after an element is made its
    leading comment, which is the one clients show as documentation (grpcurl omits trailing comments)."""
    try:
        data = DESCRIPTOR_SET.read_bytes()
    except FileNotFoundError:
        raise FileNotFoundError(f"{DESCRIPTOR_SET} is missing: run `make proto`") from None
    files = FileDescriptorSet.FromString(data).file
    for file in files:
        for place in file.source_code_info.location:
            if place.trailing_comments and not place.leading_comments:  # `int32 seat = 1;  // ...`
                place.leading_comments, place.trailing_comments = place.trailing_comments, ""
    return {file.name: file.SerializeToString() for file in files}


def with_comments(response: reflection_pb2.ServerReflectionResponse) -> reflection_pb2.ServerReflectionResponse:
    files = response.file_descriptor_response.file_descriptor_proto
    if files:
        documented = documented_files()
        files[:] = [documented.get(FileDescriptorProto.FromString(file).name, file) for file in files]
    return response


class DocumentedReflection(SyncReflectionServicer):  # type: ignore[misc]
    def ServerReflectionInfo(self, requests: Iterable[Any], context: Any) -> Iterator[Any]:
        for response in super().ServerReflectionInfo(requests, context):
            yield with_comments(response)


class AioDocumentedReflection(AioReflectionServicer):  # type: ignore[misc]
    async def ServerReflectionInfo(self, requests: Any, context: Any) -> AsyncIterator[Any]:
        async for response in super().ServerReflectionInfo(requests, context):
            yield with_comments(response)


def enable(server: grpc.Server | grpc.aio.Server, service_names: Sequence[str]) -> None:
    """Reflection for `service_names` (plus reflection itself) on a sync or an asyncio server."""
    names = (*service_names, reflection.SERVICE_NAME)
    documented_files()  # a missing descriptor set stops the server at start, not a client later
    servicer = AioDocumentedReflection(names) if isinstance(server, grpc.aio.Server) else DocumentedReflection(names)
    reflection_pb2_grpc.add_ServerReflectionServicer_to_server(servicer, server)
