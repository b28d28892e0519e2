"""The Gateway service's calls about players: registering, a player's record, a guest's name, the leaderboards,
and matchmaking (the queue, waiting for a match, filling it with bots)."""

from __future__ import annotations

from typing import Any

from manaforge.v1 import gateway_pb2

from engine_core import find_game
from gateway.calls.common import Calls
from gateway.limits import check_range
from services.edge import aio_unary
from services.tables.matchmaking import MAX_WAIT


class PlayerCalls(Calls):
    @aio_unary
    async def RegisterPlayer(self, request: gateway_pb2.RegisterPlayerRequest, context: Any) -> gateway_pb2.Player:
        self._rate("registrations", context, self.limits.tables_per_minute)
        return await self.tables.players.register(request.name)

    @aio_unary
    async def GetPlayer(self, request: gateway_pb2.GetPlayerRequest, context: Any) -> gateway_pb2.Player:
        player_id = request.player_id or await self._player(context, required=True)
        return await self.tables.players.player(player_id)

    @aio_unary
    async def CheckName(self, request: gateway_pb2.CheckNameRequest, context: Any) -> gateway_pb2.NameCheck:
        self._rate("name checks", context, self.limits.tables_per_minute)
        refusal = await self.tables.players.guest_refusal(request.player_name.strip())
        return gateway_pb2.NameCheck(free=not refusal, reason=refusal)

    @aio_unary
    async def GetLeaderboard(self, request: gateway_pb2.GetLeaderboardRequest, context: Any) -> gateway_pb2.Leaderboard:
        find_game(request.game)
        check_range("seats", request.seats, 1, 64)
        check_range("limit", request.limit, 0, 100)
        entries = await self.tables.players.leaderboard(request.game, request.seats, request.limit or 20, request.bots)
        return gateway_pb2.Leaderboard(entries=entries)

    @aio_unary
    async def JoinQueue(self, request: gateway_pb2.JoinQueueRequest, context: Any) -> gateway_pb2.QueueTicket:
        self._rate("queue joins", context, self.limits.queue_joins_per_minute)
        player_id = await self._player(context)
        return await self.matchmaker.join_queue(
            request.game, request.seats, request.player_name, dict(request.options), player_id, request.allow_bots
        )

    @aio_unary
    async def WaitForMatch(self, request: gateway_pb2.WaitForMatchRequest, context: Any) -> gateway_pb2.QueueTicket:
        check_range("timeout_seconds", request.timeout_seconds, 0.0, MAX_WAIT)
        return await self.matchmaker.wait_for_match(request.ticket_id, request.timeout_seconds)

    @aio_unary
    async def FillWithBots(self, request: gateway_pb2.FillWithBotsRequest, context: Any) -> gateway_pb2.QueueTicket:
        return await self.matchmaker.fill_with_bots(request.ticket_id, request.bot_level)

    @aio_unary
    async def LeaveQueue(self, request: gateway_pb2.LeaveQueueRequest, context: Any) -> gateway_pb2.QueueTicket:
        return await self.matchmaker.leave_queue(request.ticket_id)
