"""Playing: a player's move under their seat token, and a move the server makes for a seat (a bot's, a timeout's),
each through the commit path once."""

from __future__ import annotations

from typing import Any

from google.protobuf.any_pb2 import Any as AnyMessage
from manaforge.v1.storage_pb2 import TableRecord

from engine_core import find_game
from engine_core.registry import AnyGame
from services.tables.commit import Committer, Submitted
from services.tables.errors import StaleVersionError
from services.tables.lookup import Lookup


class Playing:
    def __init__(self, lookup: Lookup, committer: Committer) -> None:
        self.lookup = lookup
        self.committer = committer

    async def submit(
        self,
        table_id: str,
        seat_token: str,
        action: AnyMessage,
        client_action_id: str = "",
        expected: int | None = None,
    ) -> Submitted:
        """A player's move: the seat token is hashed once, its digest finds the seat and goes to the commit script,
        which checks it against the stored one."""
        record, seat, token_digest = await self.lookup.seated(table_id, seat_token, cached=True)
        game = find_game(record.config.game)
        parsed = game.action_from_any(action)
        parsed.DiscardUnknownFields()  # only what the game reads is stored and logged
        return await self.committer.submit(record, game, seat, parsed, client_action_id, expected, token_digest)

    async def act_for(
        self, record: TableRecord, game: AnyGame, seat: int, action: Any, action_id: str, version: int
    ) -> bool:
        """Submit a scheduled action (bot move, timeout) once, only at `version`. Returns whether it landed."""
        try:
            done = await self.committer.submit(record, game, seat, action, action_id, expected=version)
        except StaleVersionError:
            return False
        return not done.duplicate
