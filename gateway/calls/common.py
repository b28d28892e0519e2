"""What every call of the Gateway service shares: the table service, the limits a client is held to, and who is
calling (a guest, or a player whose key is checked once per process). The calls, by concern, are the sibling
modules; gateway/server.py makes them one servicer."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import grpc

from gateway.limits import MAX_ID, MAX_TOKEN, Buckets, LimitError, Limits, RateLimitedError, Streams, check_text
from gateway.metrics import WATCHERS
from services.edge import register
from services.tables.errors import (
    DrainingError,
    NotYoursError,
    OutOfRangeError,
    QuotaError,
    SeatTokenError,
    StaleVersionError,
    TableNotFoundError,
    TableStateError,
)
from services.tables.lookup import Lru
from services.tables.matchmaking import Matchmaker
from services.tables.names import NameTakenError
from services.tables.players import key_digest
from services.tables.service import Tables

# The table service's refusals and the limits', beside the engine's and the storage's the edge knows.
for error, code in [
    (TableStateError, grpc.StatusCode.FAILED_PRECONDITION),
    (StaleVersionError, grpc.StatusCode.ABORTED),
    (SeatTokenError, grpc.StatusCode.UNAUTHENTICATED),
    (OutOfRangeError, grpc.StatusCode.OUT_OF_RANGE),
    (DrainingError, grpc.StatusCode.UNAVAILABLE),
    (TableNotFoundError, grpc.StatusCode.NOT_FOUND),
    (LimitError, grpc.StatusCode.INVALID_ARGUMENT),
    (RateLimitedError, grpc.StatusCode.RESOURCE_EXHAUSTED),
    (NotYoursError, grpc.StatusCode.PERMISSION_DENIED),
    (QuotaError, grpc.StatusCode.RESOURCE_EXHAUSTED),
    (NameTakenError, grpc.StatusCode.ALREADY_EXISTS),
]:
    register(error, code)


class Calls:
    """The state the Gateway service's calls share in one process, and the checks every call may make."""

    SERVICE_NAME = "gateway"  # in logs and metrics

    def __init__(self, tables: Tables, limits: Limits | None = None) -> None:
        self.tables = tables
        self.matchmaker = Matchmaker(tables)
        self.limits = limits or Limits()
        self.buckets = Buckets()
        self.streams = Streams()
        self.verified: Lru[str, str] = Lru(100_000)  # player id -> key digest this process has checked
        self.bot_accounts: Lru[str, bool] = Lru(100_000)  # players known to be bot accounts (that is for good)
        self.event_streams = Streams()  # Events streams per player

    async def _player(self, context: Any, required: bool = False) -> str:
        """The calling player's id from the call's metadata (x-player-id, x-player-key); "" for a guest."""
        metadata = dict(context.invocation_metadata() or ())
        player_id, key = str(metadata.get("x-player-id", "")), str(metadata.get("x-player-key", ""))
        if not player_id:
            if required:
                raise SeatTokenError("player: send x-player-id and x-player-key (RegisterPlayer gives them)")
            return ""
        check_text("x-player-id", player_id, MAX_ID)
        check_text("x-player-key", key, MAX_TOKEN)
        digest = key_digest(key)
        if self.verified.get(player_id) != digest:
            try:
                await self.tables.players.authenticate(player_id, key)
            except SeatTokenError:
                self._rate("failed token checks", context, self.limits.token_failures_per_minute)
                raise
            self.verified.put(player_id, digest)
        if await self._is_bot(player_id):  # a bot account's calls are limited beside its address's
            self.buckets.take("calls of this bot account", f"bot:{player_id}", self.limits.bot_calls_per_minute)
        return player_id

    async def _is_bot(self, player_id: str) -> bool:
        if self.bot_accounts.get(player_id):
            return True
        if await self.tables.players.is_bot(player_id):
            self.bot_accounts.put(player_id, True)
            return True
        return False

    def _rate(self, kind: str, context: Any, per_minute: float) -> None:
        self.buckets.take(kind, self._address(context), per_minute)

    def _address(self, context: Any) -> str:
        return self.limits.client_address(context.peer(), context.invocation_metadata())

    @contextlib.contextmanager
    def _stream(self, context: Any) -> Iterator[None]:
        address = self._open_stream(context)
        try:
            yield
        finally:
            self._close_stream(address)

    def _open_stream(self, context: Any) -> str:
        """One more stream from the caller's address (refused past its limit); the address, for `_close_stream`."""
        address = self._address(context)
        self.streams.enter(address, self.limits.streams)
        WATCHERS.inc()
        return address

    def _close_stream(self, address: str) -> None:
        WATCHERS.dec()
        self.streams.leave(address)
