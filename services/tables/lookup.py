"""What a process knows of each table, shared by every job of the table service: the table record (immutable), the
seats of seat-token digests, and the live version and state (from its own commits, the commits its hub receives and
the conflicts the commit script returns). The seats of digests and the live state are only guesses: `commit.lua`
checks the token's digest against the live tokens, the client action id and the version, and answers a conflict with
the live state. A token retired since (a seat keeps its newest MAX_SEAT_TOKENS, seats.py) may still be remembered
here, on any gateway: a move under it is refused by the script, a view or a watch reads its token afresh (`seated`,
`watched`), and a watch under it ends at the next commit, which tells how many tokens its table has retired: so a
retired token stops working on every gateway at once.

A seat token is named `seat_token` until `hash_seat_token` makes it a `token_digest`, once per call; only digests
are kept, here and in Redis.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

from manaforge.v1.storage_pb2 import Commit, TableRecord

from engine_core.registry import AnyGame, find_game
from services.tables.errors import SeatTokenError, TableNotFoundError
from services.tables.seats import MAX_SEAT_TOKENS
from services.tables.store import Live, RedisStore

K = TypeVar("K")
V = TypeVar("V")


class Lru(Generic[K, V]):
    """A bounded map that forgets the least recently used entry first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        value = self._items.get(key)
        if value is not None:
            self._items.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        if len(self._items) > self.size:
            self._items.popitem(last=False)

    def pop(self, key: K) -> None:
        self._items.pop(key, None)

    def __len__(self) -> int:
        return len(self._items)


@dataclass(frozen=True)
class Known:
    """What this process believes a table's live state is (`confirmed`: just read from Redis, with the
    client-action-id check done)."""

    version: int
    seq: int
    state: Any
    started: bool
    finished: bool
    confirmed: bool = False


def hash_seat_token(seat_token: str) -> str:
    """The digest a seat token is kept and checked as."""
    return hashlib.sha256(seat_token.encode()).hexdigest()


def no_table(table_id: str) -> TableNotFoundError:
    return TableNotFoundError(f"unknown table: no table {table_id!r}")


class Lookup:
    def __init__(self, store: RedisStore, *, tables: int = 100_000, live_states: int = 4096) -> None:
        self.store = store
        self.records: Lru[str, TableRecord] = Lru(tables)
        self.seats: Lru[tuple[str, str], int] = Lru(tables * 4)  # (table id, token digest) -> seat: a guess
        self.lives: Lru[str, Known] = Lru(live_states)

    async def record(self, table_id: str) -> TableRecord:
        record = self.records.get(table_id)
        if record is None:
            record = await self.store.table_record(table_id)
            if record is None:
                raise no_table(table_id)
            self.records.put(table_id, record)
        return record

    async def seat_of(self, table_id: str, token_digest: str, cached: bool = False) -> int:
        """The seat a seat token's digest holds at the table, read from Redis (`cached`: this process's guess when
        it has one, for a move: the commit script checks the token itself)."""
        seat = self.seats.get((table_id, token_digest)) if cached else None
        if seat is None:
            seat = await self.store.seat_for_token(table_id, token_digest)
            if seat is None:
                self.seats.pop((table_id, token_digest))
                await self.record(table_id)
                raise await self.refusal(table_id, token_digest)
            self.seats.put((table_id, token_digest), seat)
        return seat

    async def refusal(self, table_id: str, token_digest: str) -> SeatTokenError:
        """Why a token holds no seat: retired by a newer one, or never one of this table's."""
        if await self.store.is_retired(table_id, token_digest):
            return SeatTokenError(
                "seat token: this token was replaced by a newer one (RejoinTable, a matched ticket or the Events"
                f" stream gave its seat a newer token, and a seat keeps its newest {MAX_SEAT_TOKENS}): use your"
                " newest token, or RejoinTable for a fresh one"
            )
        return SeatTokenError("seat token: this token holds no seat at this table")

    async def seated(self, table_id: str, seat_token: str, cached: bool = False) -> tuple[TableRecord, int, str]:
        """The table's record, the seat `seat_token` holds there and the token's digest (hashed here, once).
        `cached`: the seat may be this process's guess (for a move only: the commit script is the authority)."""
        record = await self.record(table_id)
        if not seat_token:
            raise SeatTokenError("seat token: a seat token is required to act (JoinTable returns one)")
        token_digest = hash_seat_token(seat_token)
        return record, await self.seat_of(table_id, token_digest, cached), token_digest

    async def watched(self, table_id: str, seat_token: str) -> tuple[int, int]:
        """For a watch under `seat_token`: its seat, read afresh, and how many tokens the table had retired then
        (once a commit shows more, the watch checks its token again)."""
        await self.record(table_id)
        if not seat_token:
            raise SeatTokenError("seat token: a seat token is required to act (JoinTable returns one)")
        token_digest = hash_seat_token(seat_token)
        seat, retired = await self.store.token_standing(table_id, token_digest)
        if seat is None:
            raise await self.refusal(table_id, token_digest)
        return seat, retired

    async def loaded(self, table_id: str) -> tuple[TableRecord, Live, AnyGame]:
        """A table's record, live state (or its archive's) and game; NOT_FOUND when there is no such table."""
        record = await self.record(table_id)
        live = await self.store.live(table_id)
        if live is None:
            raise no_table(table_id)
        return record, live, find_game(record.config.game)

    # ----- the live state this process guesses ------------------------------------------------------------------

    def learn(self, table_id: str, game: AnyGame, live: Live, confirmed: bool = False) -> Known:
        known = Known(live.version, live.seq, game.state_from_bytes(live.state), live.started, live.finished)
        self.remember(table_id, known)  # kept as a guess: only this call may treat it as confirmed
        return replace(known, confirmed=True) if confirmed else known

    def learn_commit(self, table_id: str, commit: Commit, state: Any) -> None:
        """A commit seen on pub/sub: newer than what this process knew, it becomes the guess."""
        known = self.lives.get(table_id)
        if known is None or known.version < commit.version:
            finished = bool(state.header.outcome.finished)
            self.remember(table_id, Known(commit.version, commit.last_seq, state, True, finished))

    def remember(self, table_id: str, known: Known) -> None:
        if known.finished:
            self.lives.pop(table_id)  # nothing more will be committed
        else:
            self.lives.put(table_id, known)

    def forget(self, table_id: str) -> None:
        self.lives.pop(table_id)
