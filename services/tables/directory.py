"""What there is to play and how each table stands: the games, a table as the clients see it, the listings."""

from __future__ import annotations

from manaforge.v1.gateway_pb2 import Table
from manaforge.v1.rules_pb2 import GameInfo

from engine_core import GAMES, find_game
from engine_core.errors import InvalidConfigError
from services.tables.errors import TableNotFoundError
from services.tables.followups import takeover_after
from services.tables.lookup import Lookup
from services.tables.players import Players
from services.tables.seats import seats_of
from services.tables.store.records import Standing
from services.tables.views import game_info


class Directory:
    def __init__(self, lookup: Lookup, players: Players) -> None:
        self.lookup = lookup
        self.store = lookup.store
        self.players = players

    def list_games(self) -> list[GameInfo]:
        return [game_info(game) for game in GAMES]

    async def table(self, table_id: str) -> Table:
        record = await self.lookup.record(table_id)
        standing = await self.store.standing(table_id, record.config.seats)
        if standing is None:  # no live state: the archive's, the long way
            record, live, _ = await self.lookup.loaded(table_id)
            standing = Standing(
                live,
                await self.store.occupants(table_id),
                await self.store.absences(table_id, record.config.seats),
                await self.store.verdict(table_id),
                await self.store.spectators(table_id),
            )
        game = find_game(record.config.game)
        live = standing.live
        header = game.header(game.state_from_bytes(live.state))
        table = Table(
            table_id=table_id,
            config=record.config,
            started=live.started,
            version=live.version,
            pending=header.pending,
            outcome=header.outcome,
            replay_verdict=standing.verdict,
            spectators=standing.spectators,
            time_control=record.time_control,
        )
        away = [n >= takeover_after(record) for n in standing.absences]
        table.seats.extend(seats_of(standing.occupants, record.config.seats, away))
        return table

    async def list_tables(
        self,
        game_name: str = "",
        in_progress: bool = False,
        page_size: int = 50,
        page_token: str = "",
        player_id: str = "",
    ) -> tuple[list[Table], str]:
        """Open tables (or games under way), newest first, of one game or all, a page at a time. Returns the
        page and the token of the next one ("" after the last)."""
        if game_name:
            find_game(game_name)
        try:
            before = float(page_token) if page_token else None
        except ValueError:
            raise InvalidConfigError("page_token", "not a token a ListTables answer gave") from None
        if player_id:  # the player's own tables
            found = await self.players.tables(player_id, before, page_size)
        else:
            found = await self.store.page("playing" if in_progress else "open", game_name, before, page_size)
        tables = []
        for table_id, _ in found:
            try:
                tables.append(await self.table(table_id))
            except TableNotFoundError:
                continue  # removed since it was listed
        return tables, (repr(found[-1][1]) if len(found) == page_size else "")
