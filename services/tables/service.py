"""The table service: one object the gRPC gateway and the Celery workers hold, wired here from one module per job
over a shared lookup of what this process knows (lookup.py). It knows neither of its callers.

- directory.py: the games, a table as the clients see it, the listings
- seating.py: making a table, taking a seat under a seat token, rejoining
- playing.py + commit.py: a move through the compare-and-set
- watching.py: views, update streams, the finished game's log
- challenges.py + inbox.py: challenges between players, and each player's event stream across their tables
- work.py: the follow-up work, one handler per kind: acting.py (bots, timers and clocks acting for a seat) and
  retention.py (replay validation, rating, archiving, abandoned tables)

Pure rules come from engine_core; storage is the injected RedisStore and the fan-out the injected Hub. What must
follow a commit is recorded by the commit itself (followups.py), never asked for afterwards.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator

from google.protobuf.any_pb2 import Any as AnyMessage
from manaforge.v1.common_pb2 import GameConfig
from manaforge.v1.gateway_pb2 import (
    Challenge,
    CreateChallengeRequest,
    GameLog,
    Player,
    PlayerEvent,
    SeatRequest,
    SeatView,
    Table,
    TimeControl,
)
from manaforge.v1.rules_pb2 import GameInfo

from engine_core.replay import Verdict
from services.tables.acting import Acting
from services.tables.challenges import Challenges
from services.tables.commit import Committer, Submitted
from services.tables.directory import Directory
from services.tables.fanout import Hub
from services.tables.followups import FollowUp
from services.tables.inbox import Inbox
from services.tables.lookup import Lookup
from services.tables.operations import Operations
from services.tables.players import Players
from services.tables.playing import Playing
from services.tables.retention import Finishing, Retention
from services.tables.rules import Rules
from services.tables.seating import Seating, TableDefaults
from services.tables.store import RedisStore
from services.tables.views import Published
from services.tables.watching import Flags, Update, Watching
from services.tables.work import Work

__all__ = ["Retention", "Tables"]


class Tables:
    def __init__(
        self,
        store: RedisStore,
        hub: Hub | None = None,
        rules: Rules | None = None,
        *,
        response_timeout: float = 30.0,
        bot_delay: float = 0.0,
        bot_time_cap: float = 2.0,
        retention: Retention | None = None,
        decision_seconds: float = 120.0,
        bot_games: int = 8,
        challenge_ttl: float = 300.0,
    ) -> None:
        self.store = store
        self.lookup = Lookup(store)
        self.players = Players(store.redis)
        self.committer = Committer(self.lookup, rules)
        self.directory = Directory(self.lookup, self.players)
        retention = retention or Retention()
        defaults = TableDefaults(response_timeout, bot_delay, decision_seconds)
        self.seating = Seating(self.lookup, self.players, self.directory, defaults, retention, bot_games)
        self.inbox = Inbox(self.players, self.directory, self.seating)
        self.challenges = Challenges(self.players, self.seating, self.inbox, challenge_ttl)
        self.playing = Playing(self.lookup, self.committer)
        self.finishing = Finishing(self.lookup, self.players, retention)
        self.work = Work(store, Acting(self.lookup, self.playing, bot_time_cap), self.finishing)
        self.hub = hub or Hub(store.pubsub, self.decode)
        self.hub.decode = self.decode
        self.committer.landed = self.hub.hand_over
        self.watching = Watching(self.lookup, self.directory, self.hub)
        self.operations = Operations(self.lookup)

    async def close(self) -> None:
        await self.committer.rules.close()
        await self.hub.stop()
        await self.store.close()

    # ----- what players do (the gateway) ----------------------------------------------------------------------

    def list_games(self) -> list[GameInfo]:
        return self.directory.list_games()

    async def list_tables(
        self,
        game_name: str = "",
        in_progress: bool = False,
        page_size: int = 50,
        page_token: str = "",
        player_id: str = "",
    ) -> tuple[list[Table], str]:
        return await self.directory.list_tables(game_name, in_progress, page_size, page_token, player_id)

    async def table(self, table_id: str) -> Table:
        return await self.directory.table(table_id)

    async def create_table(
        self,
        config: GameConfig,
        seats: list[SeatRequest],
        player_name: str = "",
        player_id: str = "",
        response_timeout: float | None = None,
        bot_delay: float | None = None,
        listed: bool = True,
        time_control: TimeControl | None = None,
    ) -> tuple[Table, int, str]:
        return await self.seating.create_table(
            config, seats, player_name, player_id, response_timeout, bot_delay, listed, time_control
        )

    async def join_table(
        self,
        table_id: str,
        player_name: str,
        seat: int | None = None,
        player_id: str = "",
        seat_token: str = "",
        with_token: bool = True,
    ) -> tuple[Table, int, str]:
        return await self.seating.join_table(table_id, player_name, seat, player_id, seat_token, with_token)

    async def rejoin(self, table_id: str, player_id: str) -> tuple[Table, int, str]:
        return await self.seating.rejoin(table_id, player_id)

    async def submit(
        self,
        table_id: str,
        seat_token: str,
        action: AnyMessage,
        client_action_id: str = "",
        expected: int | None = None,
    ) -> Submitted:
        return await self.playing.submit(table_id, seat_token, action, client_action_id, expected)

    async def view(self, table_id: str, seat_token: str = "") -> SeatView:
        return await self.watching.view(table_id, seat_token)

    def watch(
        self, table_id: str, seat_token: str = "", after_seq: int = 0, flags: Flags = (True, True)
    ) -> AsyncGenerator[Update, None]:
        return self.watching.watch(table_id, seat_token, after_seq, flags)

    def decode(self, table_id: str, data: bytes) -> Published:
        return self.watching.decode(table_id, data)

    async def log(self, table_id: str) -> GameLog:
        return await self.watching.log(table_id)

    # ----- bot accounts, challenges, each player's events ----------------------------------------------------

    async def upgrade_to_bot(self, player_id: str) -> Player:
        return await self.players.upgrade_to_bot(player_id)

    async def create_challenge(self, player_id: str, request: CreateChallengeRequest) -> Challenge:
        return await self.challenges.create(player_id, request)

    async def accept_challenge(self, player_id: str, challenge_id: str) -> Challenge:
        return await self.challenges.accept(player_id, challenge_id)

    async def decline_challenge(self, player_id: str, challenge_id: str, reason: int, text: str) -> Challenge:
        return await self.challenges.decline(player_id, challenge_id, reason, text)

    async def list_challenges(self, player_id: str) -> tuple[list[Challenge], list[Challenge]]:
        """The player's pending challenges: (received, sent), oldest first."""
        return await self.challenges.pending_for(player_id, "in"), await self.challenges.pending_for(player_id, "out")

    async def events(self, player_id: str, after: str = "", player_key: str = "") -> AsyncIterator[PlayerEvent]:
        opening = (
            [] if after else [PlayerEvent(challenge_received=c) for c in await self.challenges.pending_for(player_id)]
        )
        async for event in self.inbox.follow(player_id, after, opening, self.hub, player_key):
            yield event

    # ----- what follows a commit (the workers) ----------------------------------------------------------------

    async def follow_up(self, item: FollowUp) -> bool:
        return await self.work.follow_up(item)

    async def validate_replay(self, table_id: str) -> Verdict:
        return await self.finishing.validate_replay(table_id)

    async def rate(self, table_id: str) -> bool:
        return await self.finishing.rate(table_id)

    async def abandon(self, table_id: str) -> bool:
        return await self.finishing.abandon(table_id)
