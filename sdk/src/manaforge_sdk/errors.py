"""The SDK's errors: one base class, one class per thing a program may want to catch."""

from __future__ import annotations

import grpc


class ManaforgeError(Exception):
    """A call the gateway refused: `code` is its gRPC status, `details` the gateway's message (naming the rule)."""

    def __init__(self, message: str, code: grpc.StatusCode | None = None, details: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.details = details


class TableNotFound(ManaforgeError):
    """No table (or queue ticket) has this id."""


class SeatTokenRefused(ManaforgeError):
    """The seat token is not the token of a seat at this table (UNAUTHENTICATED)."""


class IllegalAction(ManaforgeError):
    """The bot's action was refused by the rules (FAILED_PRECONDITION): the bot, not the runner, is wrong."""


class CredentialsRefused(ManaforgeError):
    """The saved player id and key are not known to this gateway (UNAUTHENTICATED)."""


class GatewayLost(ManaforgeError):
    """The gateway stayed unreachable for longer than the client's patience."""


def refused(error: grpc.RpcError, what: str) -> ManaforgeError:
    """The SDK's error for a refused call; `what` says what was being done ("joining table 12ab")."""
    code, details = error.code(), error.details() or ""
    message = f"{what}: {details} ({code.name})"
    if code == grpc.StatusCode.NOT_FOUND:
        return TableNotFound(message, code, details)
    if code == grpc.StatusCode.UNAUTHENTICATED:
        if details.startswith("player"):  # the x-player-id and x-player-key metadata
            return CredentialsRefused(message, code, details)
        return SeatTokenRefused(message, code, details)
    return ManaforgeError(message, code, details)
