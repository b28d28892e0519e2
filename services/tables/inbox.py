"""A player's inbox: what happens to them across all their tables, as one stream (the gateway's Events).

- Challenge events (received, accepted, declined) are kept in a capped Redis stream per player (the last KEPT,
  for KEPT_SECONDS after the last one): a client resumes after the cursor of the last one it had.
- Game events are read from the player's tables as they stand (the newest WATCHED of them, looked at every `poll`
  seconds): game started (with the seat token the player's key gives that seat: the same on every reconnect, so a
  reconnect adds no token; seating.py), your turn, game ended. A new stream announces every game under
  way again (and your turn where it is), so a client that lost its stream loses no game.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

from manaforge.v1.gateway_pb2 import GameEnded, GameStarted, PlayerEvent, YourTurn

from engine_core.errors import InvalidConfigError
from services.tables.directory import Directory
from services.tables.errors import DrainingError, TableNotFoundError
from services.tables.players import Players
from services.tables.seating import Seating

KEPT = 200  # challenge events kept per player
KEPT_SECONDS = 24 * 3600  # how long a player's kept events outlive the last one
WATCHED = 20  # the player's newest tables looked at
CURSOR = re.compile(r"^\d{1,20}-\d{1,20}$")


def _key(player_id: str) -> str:
    return f"mf:player:{player_id}:events"


@dataclass
class _Seen:
    """What one stream has told of one table."""

    live: tuple[int, bool, bool] = (-1, False, False)  # version, started, finished when last looked at
    started: bool = False
    turn: int = -1  # the version of the last your-turn sent
    done: bool = False


@dataclass
class _Tables:
    seen: dict[str, _Seen] = field(default_factory=dict)
    first: bool = True  # the first look: games already over are not announced


class Inbox:
    def __init__(self, players: Players, directory: Directory, seating: Seating, poll: float = 0.5) -> None:
        self.players = players
        self.directory = directory
        self.seating = seating
        self.store = seating.store
        self.redis = players.redis
        self.poll = poll

    async def tell(self, player_id: str, event: PlayerEvent) -> None:
        key = _key(player_id)
        await self.redis.xadd(key, {"e": event.SerializeToString()}, maxlen=KEPT, approximate=False)
        await self.redis.expire(key, KEPT_SECONDS)

    async def follow(
        self,
        player_id: str,
        after: str,
        opening: list[PlayerEvent],
        draining: Callable[[], bool] = lambda: False,
        player_key: str = "",
    ) -> AsyncIterator[PlayerEvent]:
        """The player's events for as long as the caller reads: from after `after` (a cursor), or, without one,
        `opening` (the challenges waiting for them) and what comes from now on. The first event is a bare cursor:
        the stream is live from there. Once `draining()` (the process is stopping) it ends with DrainingError."""
        if after and not CURSOR.match(after):
            raise InvalidConfigError("after", "a PlayerEvent.cursor this stream gave")
        cursor = after or await self._end(player_id)
        yield PlayerEvent(cursor=cursor)  # the stream is live: nothing from here on is missed
        for event in opening:
            event.cursor = cursor
            yield event
        tables = _Tables()
        while True:
            if draining():
                raise DrainingError("gateway draining: open Events on another gateway, after your last cursor")
            for entry_id, fields in await self.redis.xrange(_key(player_id), min=f"({cursor}", count=50):
                cursor = entry_id.decode()
                event = PlayerEvent.FromString(fields[b"e"])
                event.cursor = cursor
                yield event
            for event in await self._games(player_id, tables, player_key):
                yield event
            await asyncio.sleep(self.poll)

    async def _end(self, player_id: str) -> str:
        last = await self.redis.xrevrange(_key(player_id), count=1)
        return str(last[0][0].decode()) if last else "0-0"

    async def _games(self, player_id: str, tables: _Tables, player_key: str = "") -> list[PlayerEvent]:
        events: list[PlayerEvent] = []
        newest = [table_id for table_id, _ in await self.players.tables(player_id, None, WATCHED)]
        for table_id in newest:
            seen = tables.seen.setdefault(table_id, _Seen())
            if seen.done:
                continue
            live = await self.store.live(table_id)
            if live is None:
                seen.done = True
                continue
            now = (live.version, live.started, live.finished)
            if now == seen.live:
                continue
            seen.live = now
            try:
                table = await self.directory.table(table_id)
            except TableNotFoundError:
                seen.done = True
                continue
            mine = [s.seat for s in table.seats if s.player_id == player_id]
            if not mine:
                seen.done = True
                continue
            seat = mine[0]
            if table.outcome.finished:
                seen.done = True
                if not tables.first:
                    events.append(
                        PlayerEvent(game_ended=GameEnded(table_id=table_id, seat=seat, outcome=table.outcome))
                    )
                continue
            if table.started and not seen.started:
                seen.started = True
                _, _, token = await self.seating.rejoin(table_id, player_id, player_key)
                started = GameStarted(table_id=table_id, seat=seat, seat_token=token, config=table.config)
                events.append(PlayerEvent(game_started=started))
            if table.started and seat in table.pending.seats and seen.turn != table.version:
                seen.turn = table.version
                events.append(PlayerEvent(your_turn=YourTurn(table_id=table_id, seat=seat, version=table.version)))
        for table_id in set(tables.seen) - set(newest):
            del tables.seen[table_id]  # no longer among the newest: forgotten (the stream's memory stays bounded)
        tables.first = False
        return events
