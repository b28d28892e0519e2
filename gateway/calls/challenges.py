"""The Gateway service's calls about bot accounts and challenges: a player becoming a bot account for good, and one
player challenging another (accepted or declined; each side told on its Events stream, gateway/calls/live.py), and
what challenges a player refuses."""

from __future__ import annotations

from typing import Any

from manaforge.v1 import gateway_pb2

from gateway.calls.common import Calls
from gateway.limits import MAX_ID, check_text
from services.edge import aio_unary


class ChallengeCalls(Calls):
    @aio_unary
    async def UpgradeToBot(self, request: gateway_pb2.UpgradeToBotRequest, context: Any) -> gateway_pb2.Player:
        player_id = await self._player(context, required=True)
        return await self.tables.upgrade_to_bot(player_id)

    @aio_unary
    async def CreateChallenge(self, request: gateway_pb2.CreateChallengeRequest, context: Any) -> gateway_pb2.Challenge:
        self._rate("challenges", context, self.limits.tables_per_minute)
        check_text("player_id", request.player_id, MAX_ID)
        check_text("player_name", request.player_name, MAX_ID)
        player_id = await self._player(context, required=True)
        return await self.tables.create_challenge(player_id, request)

    @aio_unary
    async def ListChallenges(
        self, request: gateway_pb2.ListChallengesRequest, context: Any
    ) -> gateway_pb2.ListChallengesResponse:
        player_id = await self._player(context, required=True)
        received, sent = await self.tables.list_challenges(player_id)
        return gateway_pb2.ListChallengesResponse(received=received, sent=sent)

    @aio_unary
    async def SetChallengePreferences(
        self, request: gateway_pb2.ChallengePreferences, context: Any
    ) -> gateway_pb2.ChallengePreferences:
        player_id = await self._player(context, required=True)
        return await self.tables.challenges.set_preferences(player_id, request)

    @aio_unary
    async def GetChallengePreferences(
        self, request: gateway_pb2.GetChallengePreferencesRequest, context: Any
    ) -> gateway_pb2.ChallengePreferences:
        player_id = await self._player(context, required=True)
        return await self.tables.challenges.preferences(player_id)

    @aio_unary
    async def AcceptChallenge(self, request: gateway_pb2.AcceptChallengeRequest, context: Any) -> gateway_pb2.Challenge:
        check_text("challenge_id", request.challenge_id, MAX_ID)
        player_id = await self._player(context, required=True)
        return await self.tables.accept_challenge(player_id, request.challenge_id)

    @aio_unary
    async def DeclineChallenge(
        self, request: gateway_pb2.DeclineChallengeRequest, context: Any
    ) -> gateway_pb2.Challenge:
        check_text("challenge_id", request.challenge_id, MAX_ID)
        player_id = await self._player(context, required=True)
        return await self.tables.decline_challenge(player_id, request.challenge_id, request.reason, request.text)
