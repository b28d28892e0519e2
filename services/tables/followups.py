"""Follow-up work: what must happen after a commit (a bot's decision, a response timer, a replay validation),
recorded by the same atomic script that stores the commit, so no process can die between the two.

The outbox (one per shard, keys.py) is a Redis sorted set of items scored by the time they are due (milliseconds,
Redis's own clock). A table's items are replaced at each of its commits (the script removes the items armed by the
commit before). A dispatcher claims due items by pushing their due time a lease ahead, sends each to a worker, and
the worker removes the item when its work is done: an item whose worker died comes due again when the lease runs
out. Every item names what it is for (kind, table, version, seat), and its work re-reads the table and does nothing
once the game has moved on, so running one twice is harmless.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from manaforge.v1.gateway_pb2 import SeatKind
from manaforge.v1.storage_pb2 import TableRecord

from engine_core.registry import AnyGame

KINDS = ("bot", "timer", "clock", "validate", "archive", "abandon")
TAKEOVER_AFTER = 3  # decisions run out in a row before a seat is away (TimeControl.takeover_after 0)
TAKEOVER_LEVEL = "heuristic"


@dataclass(frozen=True)
class FollowUp:
    kind: str  # bot | timer (a response window's pass) | clock (a decision made for a seat whose time ran out)
    #            | validate | archive (a validated game's live keys) | abandon (a table never started)
    table_id: str
    version: int
    seat: int = -1

    def format(self) -> str:
        return f"{self.kind}|{self.table_id}|{self.version}|{self.seat}"

    @classmethod
    def parse(cls, item: str | bytes) -> FollowUp:
        text = item.decode() if isinstance(item, bytes) else item
        kind, table_id, version, seat = text.split("|")
        if kind not in KINDS:
            raise ValueError(f"unknown follow-up kind {kind!r}")
        return cls(kind, table_id, int(version), int(seat))


def bot_levels(record: TableRecord) -> dict[int, str]:
    """The bot seats of a table and their levels (bots are seated when the table is made, never later)."""
    return {s.seat: s.bot_level for s in record.seats if s.kind == SeatKind.SEAT_KIND_BOT}


def followups(record: TableRecord, game: AnyGame, state: Any) -> list[tuple[FollowUp, float]]:
    """What the game waits for after a commit, and in how many seconds each is due: a bot's move, a timer for a seat
    that may answer a response window, or the validation of a finished game."""
    header = game.header(state)
    version = header.version
    if header.outcome.finished:
        return [(FollowUp("validate", record.table_id, version), 0.0)]
    bots = bot_levels(record)
    due = []
    for seat in header.pending.seats:
        if seat in bots:
            due.append((FollowUp("bot", record.table_id, version, seat), record.bot_delay_seconds))
        elif record.response_timeout_seconds > 0 and game.timeout_action(state, seat) is not None:
            due.append((FollowUp("timer", record.table_id, version, seat), record.response_timeout_seconds))
        elif record.time_control.decision_seconds > 0 or record.time_control.bank_seconds > 0:
            # in bank mode the scripts replace the delay with the seat's bank
            due.append((FollowUp("clock", record.table_id, version, seat), record.time_control.decision_seconds))
    return due


def bank_clock(record: TableRecord) -> str:
    """The table's bank clock as the scripts take it: "bank seconds,increment seconds" ("0,0": per decision)."""
    control = record.time_control
    return f"{control.bank_seconds:g},{control.increment_seconds:g}" if control.bank_seconds > 0 else "0,0"


def takeover_after(record: TableRecord) -> int:
    return record.time_control.takeover_after or TAKEOVER_AFTER


def script_args(items: list[tuple[FollowUp, float]]) -> list[Any]:
    """The follow-ups as the scripts take them: a count, then item and delay in milliseconds pairs."""
    args: list[Any] = [len(items)]
    for item, delay in items:
        args += [item.format(), int(delay * 1000)]
    return args


def commit_args(record: TableRecord, game: AnyGame, state: Any) -> list[Any]:
    """What commit.lua takes of a commit's follow-ups (its ARGV from 12 on, before the events): the table's bank
    clock, the decisions run out in a row that make a seat away, then the follow-ups of `state`."""
    return [bank_clock(record), takeover_after(record), *script_args(followups(record, game, state))]
