"""The table service's refusals; each maps to one gRPC status at the edge, and the message names the rule."""

from __future__ import annotations


class TableError(Exception):
    """A request the table service refuses; the message names the rule."""


class TableNotFoundError(TableError):
    pass


class SeatTokenError(TableError):
    pass


class StaleVersionError(TableError):
    pass


class TableStateError(TableError):
    """The table cannot do this now (seat taken, table full, not started, ticket already matched)."""


class OutOfRangeError(TableError):
    """A number past what the table has (a resume point after its last event)."""


class DrainingError(TableError):
    """This process is shutting down: the client should resume on another gateway (UNAVAILABLE)."""


class NotYoursError(TableError):
    """The caller may not do this to another player's thing (accept a challenge made to someone else), or is not
    the kind of player the call is for (a person calling what only bot accounts may)."""


class QuotaError(TableError):
    """A per-player bound is reached (pending challenges, event streams): RESOURCE_EXHAUSTED."""
