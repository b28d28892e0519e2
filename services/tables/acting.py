"""Acting for a seat: a bot's move for a bot seat, a bot of the table's takeover level for a seat whose time ran
out, and the timeout action of a response window nobody answered."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import time
from typing import Any

from manaforge.v1.storage_pb2 import TableRecord

from engine_core.bots import choose_action
from engine_core.registry import AnyGame
from services.tables.followups import TAKEOVER_LEVEL, bot_levels
from services.tables.lookup import Lookup
from services.tables.metrics import BOT_SECONDS
from services.tables.playing import Playing


def bot_seed(secret: int, kind: str, version: int, seat: int) -> int:
    """The seed of a bot's decision for `seat` at `version` (`kind`: "bot" for a bot seat, "clock" for a takeover):
    an HMAC of the table's secret seed, so that nothing a client sees before the game ends gives it away."""
    digest = hmac.new(secret.to_bytes(8, "big"), f"{kind}:{version}:{seat}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big")


class Acting:
    def __init__(self, lookup: Lookup, playing: Playing, bot_time_cap: float = 2.0) -> None:
        self.lookup = lookup
        self.playing = playing
        self.bot_time_cap = bot_time_cap  # a bot's search stops after this many seconds, whatever its budget

    async def play_bot(self, table_id: str, seat: int, version: int) -> bool:
        """Move for a bot seat if the game still waits for it at `version`. Returns whether it moved."""
        waiting = await self._waiting_for(table_id, seat, version)
        if waiting is None:
            return False
        record, game, state = waiting
        level = bot_levels(record).get(seat)
        if level is None:
            return False
        return await self._bot_decides(record, game, state, seat, version, level, "bot")

    async def take_over(self, table_id: str, seat: int, version: int) -> bool:
        """The seat's time for the decision at `version` ran out: a bot of the table's takeover level decides for it.
        Each such decision counts toward the seat being away (then its bot decides at once, until its player is
        back)."""
        waiting = await self._waiting_for(table_id, seat, version)
        if waiting is None:
            return False
        record, game, state = waiting
        level = record.time_control.takeover_level or TAKEOVER_LEVEL
        return await self._bot_decides(record, game, state, seat, version, level, "clock")

    async def expire(self, table_id: str, seat: int, version: int) -> bool:
        """Take the timeout action (e.g. pass) for a seat that did not answer in time at `version`."""
        waiting = await self._waiting_for(table_id, seat, version)
        if waiting is None:
            return False
        record, game, state = waiting
        action = game.timeout_action(state, seat)
        return action is not None and await self.playing.act_for(
            record, game, seat, action, f"timeout:{version}", version
        )

    async def _bot_decides(
        self, record: TableRecord, game: AnyGame, state: Any, seat: int, version: int, level: str, kind: str
    ) -> bool:
        """A bot of `level` decides for `seat` at `version` and the move is submitted once, under the server's id
        `<kind>:<version>`. Its randomness comes from the table's secret seed (revealed only with the finished
        game's log), so nothing a client sees lets it predict the choice, and anyone can recompute it afterwards.
        Its time is the operator's cap (`bot_time_cap`): a cap below the level's tuned time scales the search down
        (`time_left`), so it still completes; `stop` is the hard bound."""
        started = time.monotonic()
        deadline = started + self.bot_time_cap
        action = await asyncio.to_thread(  # the search may be long: the event loop stays free
            choose_action,
            game,
            state,
            seat,
            level,
            bot_seed(record.seed, kind, version, seat),
            stop=lambda: time.monotonic() > deadline,
            time_left=self.bot_time_cap,  # a cap under the level's tuned time scales its search down, whole
        )
        BOT_SECONDS.labels(record.config.game, level).observe(time.monotonic() - started)
        return await self.playing.act_for(record, game, seat, action, f"{kind}:{version}", version)

    async def _waiting_for(self, table_id: str, seat: int, version: int) -> tuple[TableRecord, AnyGame, Any] | None:
        """The table, game and state if the game is still at `version` with `seat` pending; None when it moved on."""
        record, live, game = await self.lookup.loaded(table_id)
        state = game.state_from_bytes(live.state)
        if live.version != version or seat not in game.pending_seats(state):
            return None
        return record, game, state
