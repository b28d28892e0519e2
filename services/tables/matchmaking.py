"""Matchmaking: players queue for a game and seat count; a full queue becomes a table, or bots fill the rest."""

from __future__ import annotations

import hashlib
import secrets
import time

from manaforge.v1.common_pb2 import GameConfig
from manaforge.v1.gateway_pb2 import QueueTicket, SeatRequest

from engine_core import find_game
from engine_core.bots import check_level
from services.tables import keys
from services.tables.errors import TableNotFoundError, TableStateError
from services.tables.metrics import QUEUE_WAIT_SECONDS
from services.tables.players import BOT_RATINGS, ordinal
from services.tables.service import Tables
from services.tables.store import MATCHED_TICKET_TTL

MAX_WAIT = 30.0  # seconds one WaitForMatch call may wait
MATCH_WINDOW = 5.0  # rating ordinal points between the players of a match at first
MATCH_WIDEN = 0.5  # ... and more by this much for every second the oldest of them has waited


def closest_bot_level(ordinal_rating: float) -> str:
    """The bot level whose published rating is nearest a player's."""
    return min(BOT_RATINGS, key=lambda level: abs(ordinal(*BOT_RATINGS[level]) - ordinal_rating))


class Matchmaker:
    """Players whose ratings are within `window` (ordinal points) of each other are matched; the window widens by
    `widen` a second for as long as the oldest of them has waited."""

    def __init__(self, tables: Tables, window: float = MATCH_WINDOW, widen: float = MATCH_WIDEN) -> None:
        self.tables = tables
        self.store = tables.store
        self.window = window
        self.widen = widen

    async def join_queue(
        self, game_name: str, seats: int, player_name: str, opts: dict[str, str], player_id: str = ""
    ) -> QueueTicket:
        game = find_game(game_name)
        config = game.check_config(GameConfig(game=game_name, seats=seats, options=opts))
        if not player_id and await self.tables.players.name_taken(player_name):
            raise TableStateError(f"player name: {player_name!r} is a registered player's or a bot's")
        queue = _queue_key(config)
        ticket_id = keys.new_ticket_id(_queue_tag(config), secrets.token_hex(8))
        await self.store.save_ticket(
            ticket_id,
            {
                "name": player_name,
                "player": player_id,
                "rating": await self._ordinal(player_id, config),
                "queue": queue,
                "config": config.SerializeToString().hex(),
                "matched": 0,
                "joined": time.time(),
            },
        )
        matched, waiting = await self.store.queue_join(queue, ticket_id, config.seats, self.window, self.widen)
        if matched:
            await self._seat_tickets(config, matched, "")
        return await self._ticket(ticket_id, waiting)

    async def wait_for_match(self, ticket_id: str, timeout: float) -> QueueTicket:
        """Wait up to `timeout` seconds for the ticket's table, looking for a match each second (the rating window
        widens while players wait)."""
        ticket = await self._ticket(ticket_id)
        if ticket.matched:
            return ticket
        await self.store.keep_ticket(ticket_id)  # the player is still there
        fields = await self.store.ticket(ticket_id)
        config = GameConfig.FromString(bytes.fromhex(fields["config"]))
        deadline = time.monotonic() + max(0.0, min(timeout, MAX_WAIT))
        while True:
            matched, _ = await self.store.queue_join(fields["queue"], "", config.seats, self.window, self.widen)
            if matched:
                await self._seat_tickets(config, matched, "")
            left = deadline - time.monotonic()
            if matched or left <= 0:
                return await self._ticket(ticket_id)
            await self.store.wait_ticket(ticket_id, min(1.0, left))
            ticket = await self._ticket(ticket_id)
            if ticket.matched:
                return ticket

    async def fill_with_bots(self, ticket_id: str, level: str) -> QueueTicket:
        fields = await self.store.ticket(ticket_id)
        if not fields:
            raise TableNotFoundError(f"unknown ticket: {ticket_id}")
        config = GameConfig.FromString(bytes.fromhex(fields["config"]))
        taken = await self.store.queue_take(fields["queue"], ticket_id, config.seats)
        if not taken:
            ticket = await self._ticket(ticket_id)
            if ticket.matched:
                return ticket
            raise TableStateError("queue: this ticket is no longer waiting")
        if not level:  # bots of a level comparable to the player's rating
            level = closest_bot_level(float(fields.get("rating", 0) or 0))
        await self._seat_tickets(config, taken, check_level(level))
        return await self._ticket(ticket_id)

    async def leave_queue(self, ticket_id: str) -> QueueTicket:
        """Take a waiting ticket out of its queue for good."""
        fields = await self.store.ticket(ticket_id)
        if not fields:
            raise TableNotFoundError(f"unknown ticket: {ticket_id} (it may have expired)")
        if fields.get("matched") == "1":
            raise TableStateError(f"queue: this ticket is already matched to table {fields.get('table_id', '')}")
        await self.store.leave_queue(fields["queue"], ticket_id)
        return QueueTicket(ticket_id=ticket_id, matched=False, waiting=await self.store.queue_length(fields["queue"]))

    async def _seat_tickets(self, config: GameConfig, tickets: list[str], bot_level: str) -> None:
        requests = [SeatRequest() for _ in tickets]
        requests += [SeatRequest(bot=True, bot_level=bot_level) for _ in range(config.seats - len(tickets))]
        table, _, _ = await self.tables.create_table(config, requests, listed=False)
        for ticket_id in tickets:
            fields = await self.store.ticket(ticket_id)
            name = fields.get("name", "player")
            QUEUE_WAIT_SECONDS.labels(config.game).observe(max(0.0, time.time() - float(fields.get("joined", 0) or 0)))
            _, seat, token = await self.tables.join_table(table.table_id, name, player_id=fields.get("player", ""))
            await self.store.save_ticket(
                ticket_id,
                {"matched": 1, "table_id": table.table_id, "seat": seat, "token": token},
                MATCHED_TICKET_TTL,
            )
            await self.store.notify_ticket(ticket_id)

    async def _ordinal(self, player_id: str, config: GameConfig) -> float:
        if not player_id:
            return 0.0  # a guest plays at the default rating's ordinal
        return (await self.tables.players.rating(player_id, config.game, config.seats)).ordinal

    async def _ticket(self, ticket_id: str, waiting: int | None = None) -> QueueTicket:
        fields = await self.store.ticket(ticket_id)
        if not fields:
            raise TableNotFoundError(f"unknown ticket: {ticket_id}")
        matched = fields.get("matched") == "1"
        if waiting is None:
            waiting = 0 if matched else await self.store.queue_length(fields["queue"])
        # The seat token is in every answer that finds the ticket matched, for as long as the ticket lives: an answer
        # lost on its way (a reload, a closed tab, two calls in flight) loses no seat. The ticket id is the holder's
        # capability, as a seat token is: only JoinQueue's caller has it, and logs never write it whole.
        return QueueTicket(
            ticket_id=ticket_id,
            matched=matched,
            table_id=fields.get("table_id", ""),
            seat=int(fields.get("seat", -1)),
            seat_token=fields.get("token", "") if matched else "",
            waiting=waiting,
        )


def _queue_tag(config: GameConfig) -> str:
    options = ",".join(f"{k}={v}" for k, v in sorted(config.options.items()))
    return keys.queue_tag(config.game, config.seats, hashlib.sha256(options.encode()).hexdigest()[:12])


def _queue_key(config: GameConfig) -> str:
    return keys.queue(_queue_tag(config))
