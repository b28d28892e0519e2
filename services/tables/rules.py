"""Where a move's rules run: in this process (the default), or in the stateless rules service over one long-lived
channel to several processes balanced round robin by gRPC (MANAFORGE_RULES_ADDRESSES), so rules CPU scales apart
from the gateways' connections. Either way the answer is the same `Moved`."""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

import grpc
from google.protobuf.message import Message
from manaforge.v1.rules_pb2 import MoveRequest
from manaforge.v1.rules_pb2_grpc import RulesServiceStub

from engine_core.errors import IllegalActionError, MalformedActionError
from engine_core.moves import Moved as Moved  # re-exported: services/tables/commit.py
from engine_core.moves import move
from engine_core.registry import AnyGame
from services.edge import pack

RETRIES = 3  # a move is pure: one sent to a rules process that died is sent to another


class Rules(Protocol):
    async def move(self, game: AnyGame, state: Any, seat: int, action: Message) -> Moved: ...

    async def close(self) -> None: ...


class LocalRules:
    """The engine in this process: no hop, the cheapest for light games."""

    async def move(self, game: AnyGame, state: Any, seat: int, action: Message) -> Moved:
        return move(game, state, seat, action)

    async def close(self) -> None:
        pass


def target(addresses: list[str]) -> str:
    """A gRPC target for the rules processes: literal addresses as an ipv4 list, or one DNS name whose every
    address (a Kubernetes headless Service's pods) is balanced round robin."""
    hosts = [address.rsplit(":", 1)[0] for address in addresses]
    if all(host.replace(".", "").isdigit() for host in hosts):
        return "ipv4:" + ",".join(addresses)
    if len(addresses) == 1:
        return f"dns:///{addresses[0]}"
    raise ValueError("rules addresses: a list of IPv4 addresses, or one DNS name")


class RemoteRules:
    """The rules service's Move over one channel to `addresses`, balanced round robin."""

    def __init__(self, addresses: list[str], credentials: grpc.ChannelCredentials | None = None) -> None:
        """`credentials`: TLS to the rules services (services/tls.py); None: plaintext."""
        options = [("grpc.lb_policy_name", "round_robin")]
        self.channel = (
            grpc.aio.secure_channel(target(addresses), credentials, options=options)
            if credentials
            else grpc.aio.insecure_channel(target(addresses), options=options)
        )
        self.stub = RulesServiceStub(self.channel)

    async def move(self, game: AnyGame, state: Any, seat: int, action: Message) -> Moved:
        request = MoveRequest(state=pack(state), seat=seat, action=pack(action))
        for attempt in range(RETRIES + 1):
            try:
                answer = await self.stub.Move(request, timeout=10)
                break
            except grpc.aio.AioRpcError as exc:
                code, details = exc.code(), exc.details() or ""
                if code == grpc.StatusCode.FAILED_PRECONDITION:
                    rule, _, detail = details.partition(": ")
                    raise IllegalActionError(rule, detail) from None  # the rules' refusal, named as they named it
                if code == grpc.StatusCode.INVALID_ARGUMENT:
                    rule, _, detail = details.partition(": ")
                    raise MalformedActionError(rule, detail) from None
                # UNAVAILABLE: no rules service answered; CANCELLED: the one answering stopped mid-call (a rolling
                # upgrade). A move is a pure function of the request, so asking again is safe.
                if code not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED) or attempt == RETRIES:
                    raise
                await asyncio.sleep(0.05 * (attempt + 1))
        new_state = game.state_from_bytes(answer.state)
        return Moved(new_state, answer.state, list(answer.events), answer.text, answer.state_digest, answer.finished)

    async def close(self) -> None:
        await self.channel.close(grace=None)
