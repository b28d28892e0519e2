"""The commit path: a move applied by the rules and stored by one compare-and-set, in one round trip when the
process's guess of the live state (lookup.py) is right.

A refusal (an illegal move, a stale version, a table not started) is never given on a guess alone: it is confirmed
by a fresh read first, which also finds an earlier answer to the same client action id.
"""

from __future__ import annotations

import functools
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message
from manaforge.v1.common_pb2 import Event
from manaforge.v1.gateway_pb2 import LoggedAction
from manaforge.v1.storage_pb2 import Commit, TableRecord

from engine_core.errors import RulesError
from engine_core.game import visible_events
from engine_core.registry import AnyGame
from services.tables.errors import StaleVersionError, TableStateError
from services.tables.followups import commit_args
from services.tables.lookup import Known, Lookup, no_table
from services.tables.metrics import COMMITS
from services.tables.rules import LocalRules, Moved, Rules
from services.tables.store import CommitResult
from services.tables.views import Published, pack

MAX_RETRIES = 64


@dataclass(frozen=True)
class Submitted:
    version: int
    events: list[Event]
    duplicate: bool


@functools.cache
def counted(game: str, status: str) -> Any:
    """The commits counter's series for `game` and `status`, looked up once (both come from small fixed sets)."""
    return COMMITS.labels(game, status)


def state_bytes(state: Message) -> bytes:
    return state.SerializeToString(deterministic=True)


class Committer:
    def __init__(self, lookup: Lookup, rules: Rules | None = None) -> None:
        self.lookup = lookup
        self.store = lookup.store
        self.rules: Rules = rules or LocalRules()  # where each move's rules run
        self.round_trips = 0  # commits plus reads done on the submit path (`make bench` reports them per move)
        # Each commit this process lands, as its watchers here receive it (Tables hands it to the hub at once,
        # without waiting for Redis's pub/sub to bring it back).
        self.landed: Callable[[str, Published], None] | None = None

    async def submit(
        self,
        record: TableRecord,
        game: AnyGame,
        seat: int,
        action: Message,
        client_action_id: str = "",
        expected: int | None = None,
        token_digest: str = "",
    ) -> Submitted:
        """Apply `action` for `seat` through the compare-and-set, retrying on conflict until it lands or is refused.
        `token_digest`: the seat token's, checked by the script ("" for trusted callers: bots and timers)."""
        table_id = record.table_id
        trusted = not token_digest
        # Every commit is idempotent: without a client action id, one is made up, so a commit retried after a lost
        # reply (redis-py retries on connection errors) is answered as a duplicate, never applied twice.
        dedupe_id = client_action_id or f"~{secrets.token_hex(8)}"
        known = self.lookup.lives.get(table_id)
        if known is None:
            confirmed = await self._confirm(table_id, game, seat, dedupe_id, trusted)
            if isinstance(confirmed, CommitResult):
                return await self._stored_answer(table_id, seat, confirmed)
            known = confirmed
        for _ in range(MAX_RETRIES):
            try:
                moved = await self._move(known, game, seat, action, expected)
            except (RulesError, StaleVersionError, TableStateError):
                if known.confirmed:
                    raise
                confirmed = await self._confirm(table_id, game, seat, dedupe_id, trusted)
                if isinstance(confirmed, CommitResult):
                    return await self._stored_answer(table_id, seat, confirmed)
                known = confirmed
                continue
            events = moved.events
            for i, e in enumerate(events):
                e.seq = known.seq + 1 + i
            commit = Commit(
                version=known.version + 1,
                first_seq=known.seq + 1,
                last_seq=known.seq + len(events),
                state=moved.data,
                events=events,
                seat=seat,
                client_action_id="" if trusted else client_action_id,  # a Play stream answers it with the update
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
                token_digest,
                dedupe_id,
                moved.data,
                logged.SerializeToString(),
                commit.SerializeToString(),
                moved.finished,
                [e.SerializeToString() for e in events],
                commit_args(record, game, moved.state),
                record.config.game,
            )
            counted(record.config.game, result.status).inc()
            if result.status == "ok":
                self.lookup.remember(
                    table_id, Known(result.version, result.last_seq, moved.state, True, moved.finished)
                )
                if self.landed is not None:
                    if result.appended:
                        commit.MergeFromString(result.appended)  # as published: with the deadlines armed
                    self.landed(table_id, Published(commit, moved.state))
                return Submitted(result.version, visible_events(events, seat), False)
            if result.status == "dup":
                return await self._stored_answer(table_id, seat, result)
            if result.status == "conflict" and result.live is not None:
                known = self.lookup.learn(table_id, game, result.live, confirmed=True)
                continue
            if result.status == "token":
                self.lookup.seats.pop((table_id, token_digest))
                raise await self.lookup.refusal(table_id, token_digest)
            raise no_table(table_id)
        raise StaleVersionError(f"contention: the game changed {MAX_RETRIES} times while this action was tried")

    async def _confirm(
        self, table_id: str, game: AnyGame, seat: int, client_action_id: str, trusted: bool
    ) -> Known | CommitResult:
        """A fresh read of the live state, with this seat's earlier answer to `client_action_id` if it has one."""
        self.round_trips += 1
        live, done = await self.store.live_and_done(table_id, seat, client_action_id, trusted)
        if done is not None:
            return done
        if live is None:
            raise no_table(table_id)
        return self.lookup.learn(table_id, game, live, confirmed=True)

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
