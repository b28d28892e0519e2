"""The commit path: a move applied by the engine and stored by one compare-and-set, in one round trip when the
process's guesses are right.

A process keeps what it has learnt of each table: the table record and seat-token digests (immutable once
written), and the live version and state (from its own commits, the commits its hub receives and the conflicts
the script returns). These are only guesses: `commit.lua` checks the token, the client action id and the version,
and answers a conflict with the live state, so a retry needs no extra read. A refusal (an illegal move, a stale
version, a table not started) is never given on a guess alone: it is confirmed by a fresh read first, which also
finds an earlier answer to the same client action id.
"""

from __future__ import annotations

import hashlib
import secrets
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

from google.protobuf.message import Message
from manaforge.v1.common_pb2 import Event
from manaforge.v1.gateway_pb2 import LoggedAction
from manaforge.v1.storage_pb2 import Commit, TableRecord

from engine_core.errors import RulesError
from engine_core.game import visible_events
from engine_core.registry import AnyGame, find_game
from services.tables.errors import SeatTokenError, StaleVersionError, TableNotFoundError, TableStateError
from services.tables.followups import bank_clock, followups, takeover_after
from services.tables.metrics import COMMITS
from services.tables.rules import LocalRules, Moved, Rules
from services.tables.store import CommitResult, Live, RedisStore
from services.tables.views import pack

MAX_RETRIES = 64
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


@dataclass(frozen=True)
class Submitted:
    version: int
    events: list[Event]
    duplicate: bool


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def state_bytes(state: Message) -> bytes:
    return state.SerializeToString(deterministic=True)


class Committer:
    def __init__(
        self, store: RedisStore, rules: Rules | None = None, *, tables: int = 100_000, live_states: int = 4096
    ) -> None:
        self.store = store
        self.rules: Rules = rules or LocalRules()  # where each move's rules run
        self.records: Lru[str, TableRecord] = Lru(tables)
        self.tokens: Lru[tuple[str, str], int] = Lru(tables * 4)
        self.lives: Lru[str, Known] = Lru(live_states)
        self.round_trips = 0  # commits plus reads done on the submit path (`make bench` reports them per move)

    # ----- what this process knows ------------------------------------------------------------------------------

    async def record(self, table_id: str) -> TableRecord:
        record = self.records.get(table_id)
        if record is None:
            record = await self.store.table_record(table_id)
            if record is None:
                raise TableNotFoundError(f"unknown table: no table {table_id!r}")
            self.records.put(table_id, record)
        return record

    async def seat_of(self, table_id: str, token: str) -> int:
        if not token:
            raise SeatTokenError("seat token: a seat token is required to act (JoinTable returns one)")
        digest = token_digest(token)
        seat = self.tokens.get((table_id, digest))
        if seat is None:
            seat = await self.store.seat_for_token(table_id, digest)
            if seat is None:
                await self.record(table_id)
                raise SeatTokenError("seat token: this token holds no seat at this table")
            self.tokens.put((table_id, digest), seat)
        return seat

    def learn(self, table_id: str, game: AnyGame, live: Live, confirmed: bool = False) -> Known:
        known = Known(live.version, live.seq, game.state_from_bytes(live.state), live.started, live.finished)
        self._remember(table_id, known)  # kept as a guess: only this call may treat it as confirmed
        return replace(known, confirmed=True) if confirmed else known

    def learn_commit(self, table_id: str, commit: Commit, state: Any) -> None:
        """A commit seen on pub/sub: newer than what this process knew, it becomes the guess."""
        known = self.lives.get(table_id)
        if known is None or known.version < commit.version:
            finished = bool(state.header.outcome.finished)
            self._remember(table_id, Known(commit.version, commit.last_seq, state, True, finished))

    def _remember(self, table_id: str, known: Known) -> None:
        if known.finished:
            self.lives.pop(table_id)  # nothing more will be committed
        else:
            self.lives.put(table_id, known)

    def forget(self, table_id: str) -> None:
        self.lives.pop(table_id)

    async def _confirm(
        self, table_id: str, game: AnyGame, seat: int, client_action_id: str, trusted: bool
    ) -> Known | CommitResult:
        """A fresh read of the live state, with this seat's earlier answer to `client_action_id` if it has one."""
        self.round_trips += 1
        live, done = await self.store.live_and_done(table_id, seat, client_action_id, trusted)
        if done is not None:
            return done
        if live is None:
            raise TableNotFoundError(f"unknown table: no table {table_id!r}")
        return self.learn(table_id, game, live, confirmed=True)

    # ----- submitting ---------------------------------------------------------------------------------------------

    async def submit(
        self,
        record: TableRecord,
        game: AnyGame,
        seat: int,
        action: Message,
        client_action_id: str = "",
        expected: int | None = None,
        token: str = "",
    ) -> tuple[Submitted, Any]:
        """Apply `action` for `seat` through the compare-and-set, retrying on conflict until it lands or is refused.
        `token`: checked by the script ('' for trusted callers: bots and timers). Returns the answer and, when the
        move was stored now, the new state (None for a duplicate)."""
        table_id = record.table_id
        digest = token_digest(token) if token else ""
        # Every commit is idempotent: without a client action id, one is made up, so a commit retried after a lost
        # reply (redis-py retries on connection errors) is answered as a duplicate, never applied twice.
        dedupe_id = client_action_id or f"~{secrets.token_hex(8)}"
        known = self.lives.get(table_id)
        if known is None:
            confirmed = await self._confirm(table_id, game, seat, dedupe_id, not token)
            if isinstance(confirmed, CommitResult):
                return await self._stored_answer(table_id, seat, confirmed), None
            known = confirmed
        for _ in range(MAX_RETRIES):
            try:
                moved = await self._move(known, game, seat, action, expected)
            except (RulesError, StaleVersionError, TableStateError):
                if known.confirmed:
                    raise
                confirmed = await self._confirm(table_id, game, seat, dedupe_id, not token)
                if isinstance(confirmed, CommitResult):
                    return await self._stored_answer(table_id, seat, confirmed), None
                known = confirmed
                continue
            new_state, new_bytes, events, finished = moved.state, moved.data, moved.events, moved.finished
            follow = followups(record, game, new_state)
            for i, e in enumerate(events):
                e.seq = known.seq + 1 + i
            commit = Commit(
                version=known.version + 1,
                first_seq=known.seq + 1,
                last_seq=known.seq + len(events),
                state=new_bytes,
                events=events,
            )
            logged = LoggedAction(
                version=known.version + 1,
                seat=seat,
                action=pack(action),
                client_action_id=client_action_id,
                text=moved.text,
                state_digest=moved.digest,
            )
            self.round_trips += 1
            result = await self.store.commit(
                table_id,
                known.version,
                seat,
                digest,
                dedupe_id,
                new_bytes,
                logged.SerializeToString(),
                commit.SerializeToString(),
                finished,
                [e.SerializeToString() for e in events],
                follow,
                record.config.game,
                bank_clock(record),
                takeover_after(record),
            )
            COMMITS.labels(record.config.game, result.status).inc()
            if result.status == "ok":
                self._remember(table_id, Known(result.version, result.last_seq, new_state, True, finished))
                return Submitted(result.version, visible_events(events, seat), False), new_state
            if result.status == "dup":
                return await self._stored_answer(table_id, seat, result), None
            if result.status == "conflict" and result.live is not None:
                known = self.learn(table_id, game, result.live, confirmed=True)
                continue
            if result.status == "token":
                self.tokens.pop((table_id, digest))
                raise SeatTokenError("seat token: this token holds no seat at this table")
            raise TableNotFoundError(f"unknown table: no table {table_id!r}")
        raise StaleVersionError(f"contention: the game changed {MAX_RETRIES} times while this action was tried")

    async def _move(self, known: Known, game: AnyGame, seat: int, action: Message, expected: int | None) -> Moved:
        if not known.started:
            raise TableStateError("table not started: play begins when every seat is taken")
        if expected is not None and expected != known.version:
            raise StaleVersionError(f"stale version: you expected version {expected}, the game is at {known.version}")
        return await self.rules.move(game, known.state, seat, action)

    async def _stored_answer(self, table_id: str, seat: int, done: CommitResult) -> Submitted:
        events = (
            await self.store.events(table_id, done.first_seq, done.last_seq) if done.last_seq >= done.first_seq else []
        )
        return Submitted(done.version, visible_events(events, seat), True)


def game_of(record: TableRecord) -> AnyGame:
    return find_game(record.config.game)
