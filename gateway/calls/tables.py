"""The Gateway service's calls about games, tables and seats: the games and their cards, making, listing, reading,
joining and rejoining a table, and a finished game's log."""

from __future__ import annotations

from typing import Any

from manaforge.v1 import gateway_pb2, rules_pb2
from manaforge.v1.gateway_pb2 import CreateTableResponse, JoinTableResponse, ListTablesResponse

from engine_core import find_game
from gateway.calls.common import Calls
from gateway.limits import LimitError, check_range
from services.edge import aio_unary, catalogue


class TableCalls(Calls):
    @aio_unary
    async def ListGames(self, request: rules_pb2.ListGamesRequest, context: Any) -> rules_pb2.ListGamesResponse:
        notice = await self.tables.operations.notice()  # the operator's maintenance notice (gateway/admin.py)
        return rules_pb2.ListGamesResponse(games=self.tables.list_games(), notice=notice)

    @aio_unary
    async def GetCatalogue(self, request: rules_pb2.GetCatalogueRequest, context: Any) -> bytes:
        return catalogue(request.config)  # encoded once per config (services/edge.py)

    @aio_unary
    async def CreateTable(self, request: gateway_pb2.CreateTableRequest, context: Any) -> CreateTableResponse:
        self._rate("tables created", context, self.limits.tables_per_minute)
        game = find_game(request.config.game)
        if len(request.seats) > game.info.max_seats:
            raise LimitError(f"seats: at most {game.info.max_seats} seat requests for {game.info.title}")
        clock = request.time_control if request.HasField("time_control") else None
        player_id = await self._player(context)
        table, seat, token = await self.tables.create_table(
            request.config, list(request.seats), request.player_name, player_id, time_control=clock
        )
        return CreateTableResponse(table=table, seat=seat, seat_token=token)

    @aio_unary
    async def ListTables(self, request: gateway_pb2.ListTablesRequest, context: Any) -> ListTablesResponse:
        check_range("page_size", request.page_size, 0, 100)
        player_id = await self._player(context, required=True) if request.mine else ""
        tables, token = await self.tables.list_tables(
            request.game, request.in_progress, request.page_size or 50, request.page_token, player_id
        )
        return ListTablesResponse(tables=tables, next_page_token=token)

    @aio_unary
    async def GetTable(self, request: gateway_pb2.GetTableRequest, context: Any) -> gateway_pb2.Table:
        return await self.tables.table(request.table_id)

    @aio_unary
    async def JoinTable(self, request: gateway_pb2.JoinTableRequest, context: Any) -> JoinTableResponse:
        seat = request.seat if request.HasField("seat") else None
        player_id = await self._player(context)
        table, seat, token = await self.tables.join_table(request.table_id, request.player_name, seat, player_id)
        return JoinTableResponse(table=table, seat=seat, seat_token=token)

    @aio_unary
    async def RejoinTable(self, request: gateway_pb2.RejoinTableRequest, context: Any) -> JoinTableResponse:
        player_id = await self._player(context, required=True)
        table, seat, token = await self.tables.rejoin(request.table_id, player_id)
        return JoinTableResponse(table=table, seat=seat, seat_token=token)

    @aio_unary
    async def GetLog(self, request: gateway_pb2.GetLogRequest, context: Any) -> gateway_pb2.GameLog:
        return await self.tables.log(request.table_id)
