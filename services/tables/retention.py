"""What follows a finished game, and what is kept: its replay validated and its registered players rated, then
folded into one archive after a while; a table never started removed."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from manaforge.v1.storage_pb2 import GameArchive, TableRecord

from engine_core.registry import AnyGame
from engine_core.replay import LoggedStep, Verdict, replay
from services.tables.followups import FollowUp
from services.tables.lookup import Lookup
from services.tables.metrics import VERDICTS
from services.tables.operations import ABORTED, OPERATOR_SEAT, is_aborted
from services.tables.players import Players
from services.tables.seats import rated_as, seats_of
from services.tables.store.base import Live

Loaded = tuple[TableRecord, Live, AnyGame]  # a table's record, live state and game (Lookup.loaded)


@dataclass(frozen=True)
class Retention:
    """How long what is done is kept (seconds)."""

    archive_after: float = 60.0  # a validated game's live keys stay this long (spectators see the end), then fold
    archive_ttl: float = 30 * 24 * 3600.0  # an archived game is kept this long
    open_table_seconds: float = 3600.0  # a table whose seats are not all taken by then is removed


class Finishing:
    def __init__(self, lookup: Lookup, players: Players, retention: Retention) -> None:
        self.lookup = lookup
        self.store = lookup.store
        self.players = players
        self.retention = retention

    async def validated(self, table_id: str, version: int) -> bool:
        """A finished game: validate its replay, rate it when valid, and arm its archiving. Changes no game."""
        loaded = await self.lookup.loaded(table_id)  # read once for both
        verdict = await self.validate_replay(table_id, loaded)
        if verdict.ok and not verdict.detail:  # a game the operator ended (its verdict says so) is never rated
            await self.rate(table_id, loaded)
        await self.store.arm(FollowUp("archive", table_id, version), self.retention.archive_after)
        return False

    async def validate_replay(self, table_id: str, loaded: Loaded | None = None) -> Verdict:
        """Re-run the game from its seed and log; store and return the verdict."""
        record, live, game = loaded or await self.lookup.loaded(table_id)
        steps = [LoggedStep(a.seat, a.action.value, a.state_digest) for a in await self.store.action_log(table_id)]
        aborted = bool(steps) and steps[-1].seat == OPERATOR_SEAT  # the operator's end: the steps before it replay
        final = None if aborted else live.state
        verdict = await asyncio.to_thread(
            replay, game, record.config, record.seed, steps[:-1] if aborted else steps, final
        )
        if aborted and verdict.ok:
            verdict = Verdict(True, verdict.actions, detail=f"then {ABORTED}")
        await self.store.set_verdict(table_id, str(verdict))
        VERDICTS.labels(record.config.game, "valid" if verdict.ok else "invalid").inc()
        return verdict

    async def rate(self, table_id: str, loaded: Loaded | None = None) -> bool:
        """Rate a validated game's registered players, once (ranks from the scores, else winners first)."""
        record, live, game = loaded or await self.lookup.loaded(table_id)
        result = game.header(game.state_from_bytes(live.state)).outcome
        if is_aborted(result.reason):
            return False
        n = record.config.seats
        if len(result.scores) == n:
            ranks = [1 + sum(other > mine for other in result.scores) for mine in result.scores]
        else:
            ranks = [1 if seat in result.winners else 2 for seat in range(n)]
        occupants = await self.store.occupants(table_id)
        seats = [rated_as(occupants.get(seat, "")) for seat in range(n)]
        return await self.players.rate_game(table_id, record.config.game, seats, ranks)

    async def archive(self, table_id: str) -> bool:
        """Fold a finished, validated game into one compact record kept `archive_ttl` seconds, and remove its live
        keys, events, ids and listings. Returns whether it archived (False: already archived, or not finished)."""
        record, live, occupants, token_seats, verdict, actions, events = await self.store.gather(table_id)
        if record is None or live is None or not live.finished:
            return False
        archive = GameArchive(
            record=record,
            seats=seats_of(occupants, record.config.seats),
            version=live.version,
            seq=live.seq,
            state=live.state,
            verdict=verdict,
            token_seats=token_seats,
            archived_at=time.time(),
        )
        await self.store.archive(table_id, archive, self.retention.archive_ttl, actions, events)
        self.lookup.forget(table_id)
        return True

    async def abandon(self, table_id: str) -> bool:
        """Remove a table whose seats were never all taken. Returns whether it did."""
        live = await self.store.live(table_id)
        if live is None or live.started:
            return False
        record = await self.lookup.record(table_id)
        await self.store.discard(table_id, record.config.game)
        self.lookup.records.pop(table_id)
        return True
