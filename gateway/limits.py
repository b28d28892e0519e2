"""What one client may make a gateway hold or do: request sizes and shapes checked before any work, and rates and
concurrent streams limited per client address. Every refusal names the limit; a rate refusal says when to retry.

The limits are settings (MANAFORGE_LIMIT_*, services/settings.py), so an operator behind a proxy that shares one
address among many players, or a benchmark on loopback, can raise them.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from dataclasses import dataclass, fields
from typing import Any

from google.protobuf.message import Message

from services.settings import Settings
from services.tables.errors import OutOfRangeError

MAX_MESSAGE = 64 * 1024  # bytes in any request (gRPC refuses larger ones before they are read)
MAX_ID = 64  # table ids, ticket ids
MAX_TOKEN = 128
MAX_ACTION_ID = 128
MAX_NAME = 64  # player names are cut to 40 printable characters, longer input is refused
MAX_OPTIONS = 16
MAX_OPTION_TEXT = 64
MAX_ACTION = 16 * 1024  # an action's encoded size (free text included)
EXCERPT = 200  # characters of any refusal message


class LimitError(Exception):
    """A request over a size or shape limit (INVALID_ARGUMENT; a number out of its range is OUT_OF_RANGE)."""


class RateLimitedError(Exception):
    """Too many requests of one kind from one address (RESOURCE_EXHAUSTED); the message says when to retry."""


def excerpt(text: str, limit: int = EXCERPT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def check_text(name: str, value: str, limit: int) -> None:
    if len(value) > limit:
        raise LimitError(f"{name}: at most {limit} characters, not {len(value)}")


def check_range(name: str, value: float, low: float, high: float) -> None:
    if not (math.isfinite(value) and low <= value <= high):
        raise OutOfRangeError(f"{name}: must be between {low:g} and {high:g}")


def check_request(request: Message) -> None:
    """The common fields of every gateway request, wherever they appear."""
    for field, value in request.ListFields():
        if field.name == "table_id" or field.name == "ticket_id":
            check_text(field.name, value, MAX_ID)
        elif field.name == "seat_token":
            check_text(field.name, value, MAX_TOKEN)
        elif field.name == "client_action_id":
            check_text(field.name, value, MAX_ACTION_ID)
        elif field.name in ("player_name", "game", "bot_level"):
            check_text(field.name, value, MAX_NAME)
        elif field.name == "options":
            if len(value) > MAX_OPTIONS:
                raise LimitError(f"options: at most {MAX_OPTIONS}, not {len(value)}")
            for key, text in value.items():
                check_text("option name", key, MAX_OPTION_TEXT)
                check_text(f"option {excerpt(key, 20)}", text, MAX_OPTION_TEXT)
        elif field.name == "action" and field.message_type is not None and field.message_type.name == "Any":
            if value.ByteSize() > MAX_ACTION:
                raise LimitError(f"action: at most {MAX_ACTION} bytes encoded, not {value.ByteSize()}")
        elif field.message_type is not None and not field.is_repeated:
            check_request(value)


@dataclass(frozen=True)
class Limits:
    """Per client address, per gateway process. Rates are per minute with bursts of a tenth of a minute's worth."""

    tables_per_minute: float = 120.0
    queue_joins_per_minute: float = 120.0
    token_failures_per_minute: float = 60.0
    streams: int = 1000  # concurrent Watch and Play streams
    bot_calls_per_minute: float = 600.0  # calls of one bot account, beside its address's limits
    # Hosts of edges (the browser client's web edge) whose calls carry their client's address in x-forwarded-for:
    # the limits count that address instead of the edge's. None: no edge is believed.
    trusted_edges: tuple[str, ...] = ()

    def client_address(self, peer: str, metadata: Any) -> str:
        """The address the limits count: the caller's, or, behind a trusted edge, the one it forwards."""
        address = address_of(peer)
        if self.trusted_edges and address.split(":", 1)[-1].strip("[]") in self.trusted_edges:
            for key, value in metadata or ():
                if key == "x-forwarded-for" and value:
                    return f"forwarded:{value.split(',')[0].strip()[:64]}"
        return address

    @classmethod
    def from_settings(cls, settings: Settings) -> Limits:
        """The limits of `settings` (each field is the setting limit_<field>)."""
        return cls(**{f.name: getattr(settings, f"limit_{f.name}") for f in fields(cls)})


class Buckets:
    """Token buckets per (kind, address); the least recently used addresses are forgotten past `size`."""

    def __init__(self, size: int = 100_000) -> None:
        self.size = size
        self._buckets: OrderedDict[tuple[str, str], tuple[float, float]] = OrderedDict()

    def take(self, kind: str, address: str, per_minute: float) -> None:
        rate = per_minute / 60.0
        burst = max(1.0, per_minute / 10.0)
        now = time.monotonic()
        tokens, last = self._buckets.get((kind, address), (burst, now))
        tokens = min(burst, tokens + (now - last) * rate)
        if tokens < 1.0:
            wait = (1.0 - tokens) / rate
            raise RateLimitedError(f"rate limit: too many {kind} from your address; retry in {wait:.1f} s")
        self._buckets[(kind, address)] = (tokens - 1.0, now)
        self._buckets.move_to_end((kind, address))
        if len(self._buckets) > self.size:
            self._buckets.popitem(last=False)


class Streams:
    """Concurrent streams per address."""

    def __init__(self) -> None:
        self.open: dict[str, int] = {}

    def enter(self, address: str, limit: int, whose: str = "your address") -> None:
        if self.open.get(address, 0) >= limit:
            raise RateLimitedError(f"stream limit: {limit} streams already open from {whose}; close one first")
        self.open[address] = self.open.get(address, 0) + 1

    def leave(self, address: str) -> None:
        left = self.open.get(address, 1) - 1
        if left:
            self.open[address] = left
        else:
            self.open.pop(address, None)


def address_of(peer: str) -> str:
    """The client's address without its port ("ipv4:127.0.0.1:5555" -> "ipv4:127.0.0.1")."""
    host, _, _ = peer.rpartition(":")
    return host or peer
