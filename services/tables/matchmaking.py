"""Matchmaking: players queue for a game and seat count; a full queue becomes a table, or bots fill the rest.

A match is handed over from its queue to its table in steps (a queue's keys and a table's lie in different slots of
a Redis Cluster: no one script can touch both), none of which can strand a player:
1. a queue script takes the match's tickets out of their queue and claims them for HANDOVER_SECONDS (the lease);
2. the match's table is made, its players' seats left open (nobody can play there yet);
3. one script matches the tickets to the table, each with its seat, only while the claim holds;
4. the players take their seats (with no token yet); the last one starts the game.
Whoever dies or stalls before step 3, the lease runs out and the next queue script on that queue (a waiting
player's WaitForMatch, a JoinQueue, a FillWithBots) hands the tickets back to their queue, but for the ticket of the
JoinQueue call that made the match (that call failed: its player never learned the ticket, and joins again). A late
step 3 is then refused, and its table, where nobody sits, is removed. After step 3, whoever reads a matched ticket
whose game has not started (the matched players' own WaitForMatch) takes the seats left: step 4 is idempotent. Each
answer that finds a ticket matched, once its game has started, carries a fresh seat token for the ticket's seat
(issued then: a seat keeps its newest few, seats.py), so no seat token is kept in clear with the ticket. So a ticket
is matched to one table at most, and every player holding a seat token sits at a game under way.
"""

from __future__ import annotations

import hashlib
import secrets
import time

from manaforge.v1.common_pb2 import GameConfig
from manaforge.v1.gateway_pb2 import QueueTicket, SeatKind, SeatRequest

from engine_core import find_game
from engine_core.bots import check_level
from services.tables import keys
from services.tables.errors import DrainingError, TableNotFoundError, TableStateError
from services.tables.metrics import QUEUE_WAIT_SECONDS
from services.tables.names import clean
from services.tables.players import BOT_RATINGS, ordinal
from services.tables.service import Tables

MAX_WAIT = 30.0  # seconds one WaitForMatch call may wait
MATCH_WINDOW = 5.0  # rating ordinal points between the players of a match at first
MATCH_WIDEN = 0.5  # ... and more by this much for every second the oldest of them has waited
HANDOVER_SECONDS = 5.0  # a match taken out of its queue is handed over to its table within this, or handed back
JOIN_ATTEMPTS = 3  # a JoinQueue whose handover was refused (it was slower than the lease) joins again this often


def closest_bot_level(ordinal_rating: float) -> str:
    """The bot level whose published rating is nearest a player's."""
    return min(BOT_RATINGS, key=lambda level: abs(ordinal(*BOT_RATINGS[level]) - ordinal_rating))


def playable(game_name: str, seats: int, options: dict[str, str]) -> GameConfig:
    """The checked config of a queue: one the game accepts and a table can be made of. Its first deal is tried too:
    a card set is looked up only then (an unknown set, or boosters too few for the seats, would otherwise be found
    only when the match's table is made)."""
    game = find_game(game_name)
    config = game.check_config(GameConfig(game=game_name, seats=seats, options=options))
    game.new_game(config, 0)
    return config


class Matchmaker:
    """Players whose ratings are within `window` (ordinal points) of each other are matched; the window widens by
    `widen` a second for as long as the oldest of them has waited."""

    def __init__(
        self,
        tables: Tables,
        window: float = MATCH_WINDOW,
        widen: float = MATCH_WIDEN,
        lease: float = HANDOVER_SECONDS,
    ) -> None:
        self.tables = tables
        self.store = tables.store
        self.window = window
        self.widen = widen
        self.lease = lease

    async def join_queue(
        self,
        game_name: str,
        seats: int,
        player_name: str,
        opts: dict[str, str],
        player_id: str = "",
        allow_bots: bool = False,
    ) -> QueueTicket:
        """Queue a player (or a guest). A bot account only joins a queue that allows bots (`allow_bots`), where only
        tickets that allow them are matched."""
        config = playable(game_name, seats, opts)
        if not allow_bots and await self.tables.players.is_bot(player_id):
            raise TableStateError("bot account: queues are for people unless they allow bots (JoinQueue allow_bots)")
        if player_id:  # a registered player's seat shows their own name, whatever the request says
            player_name = await self.tables.players.name_of(player_id)
        else:
            player_name = clean(player_name)
            await self.tables.players.check_guest_name(player_name)
        queue = _queue_key(config, allow_bots)
        ticket_id = keys.new_ticket_id(_queue_tag(config, allow_bots), secrets.token_hex(8))
        fields = {
            "name": player_name,
            "player": player_id,
            "rating": await self._ordinal(player_id, config),
            "queue": queue,
            "config": config.SerializeToString().hex(),
            "matched": 0,
            "joined": time.time(),
        }
        for _ in range(JOIN_ATTEMPTS):
            await self.store.save_ticket(ticket_id, fields)
            claim = secrets.token_hex(8)
            matched, waiting = await self.store.queue_join(
                queue, ticket_id, config.seats, self.window, self.widen, claim, self.lease
            )
            if not matched or await self._hand_over(config, claim, matched, "", queue):
                return await self._ticket(ticket_id, waiting)
            if await self.store.ticket(ticket_id):  # not in the match refused: it waits, or was matched since
                return await self._ticket(ticket_id)
            # this call was slower than its lease: its ticket was handed back, removed (nobody has it yet)
        raise DrainingError("queue: the match could not be handed over in time; join again")

    async def wait_for_match(self, ticket_id: str, timeout: float) -> QueueTicket:
        """Wait up to `timeout` seconds for the ticket's table, looking for a match each second (the rating window
        widens while players wait; a handover left unfinished past its lease is handed back meanwhile)."""
        ticket = await self._ticket(ticket_id)
        if ticket.matched:
            return ticket
        await self.store.keep_ticket(ticket_id)  # the player is still there
        fields = await self.store.ticket(ticket_id)
        config = GameConfig.FromString(bytes.fromhex(fields["config"]))
        deadline = time.monotonic() + max(0.0, min(timeout, MAX_WAIT))
        while True:
            claim = secrets.token_hex(8)
            matched, _ = await self.store.queue_join(
                fields["queue"], "", config.seats, self.window, self.widen, claim, self.lease
            )
            if matched:
                await self._hand_over(config, claim, matched, "", fields["queue"])
            left = deadline - time.monotonic()
            if matched or left <= 0:
                return await self._ticket(ticket_id)
            await self.store.wait_ticket(ticket_id, min(1.0, left))
            ticket = await self._ticket(ticket_id)
            if ticket.matched:
                return ticket

    async def fill_with_bots(self, ticket_id: str, level: str) -> QueueTicket:
        """A table for the ticket's player now: with the players waiting beside it, and bots in the seats left. A
        ticket in a handover is waited for (up to its lease): then it is matched, or back in its queue."""
        fields = await self.store.ticket(ticket_id)
        if not fields:
            raise TableNotFoundError(f"unknown ticket: {ticket_id}")
        config = GameConfig.FromString(bytes.fromhex(fields["config"]))
        # the level is checked before anything leaves the queue; no level: the one rated closest to the player
        level = check_level(level) if level else closest_bot_level(float(fields.get("rating", 0) or 0))
        deadline = time.monotonic() + self.lease + 1.0
        while True:
            claim = secrets.token_hex(8)
            taken = await self.store.queue_take(fields["queue"], ticket_id, config.seats, claim, self.lease)
            if taken and await self._hand_over(config, claim, taken, level, fields["queue"]):
                return await self._ticket(ticket_id)
            ticket = await self._ticket(ticket_id)
            if ticket.matched:
                return ticket
            left = deadline - time.monotonic()
            if left <= 0 or not (taken or "claim" in await self.store.ticket(ticket_id)):
                raise TableStateError("queue: this ticket is no longer waiting")
            if not taken:  # another call is handing it over: wait for its outcome
                await self.store.wait_ticket(ticket_id, min(1.0, left))

    async def leave_queue(self, ticket_id: str) -> QueueTicket:
        """Take a waiting ticket out of its queue for good (a ticket in a handover too: that handover is refused)."""
        fields = await self.store.ticket(ticket_id)
        if not fields:
            raise TableNotFoundError(f"unknown ticket: {ticket_id} (it may have expired)")
        status, table_id = await self.store.leave_queue(fields["queue"], ticket_id)
        if status == "matched":
            raise TableStateError(f"queue: this ticket is already matched to table {table_id}")
        if status == "unknown":
            raise TableNotFoundError(f"unknown ticket: {ticket_id} (it may have expired)")
        return QueueTicket(ticket_id=ticket_id, matched=False, waiting=await self.store.queue_length(fields["queue"]))

    async def _hand_over(self, config: GameConfig, claim: str, tickets: list[str], bot_level: str, queue: str) -> bool:
        """Make the table of a claimed match and hand its tickets over to it (the steps in this module's doc). False:
        the claim was handed back meanwhile (this call was slower than its lease, or one of the players left); the
        table made is removed, and the tickets wait in their queue again."""
        requests = [SeatRequest() for _ in tickets]
        requests += [SeatRequest(bot=True, bot_level=bot_level) for _ in range(config.seats - len(tickets))]
        try:
            table, _, _ = await self.tables.create_table(config, requests, listed=False)
        except Exception:
            await self.store.hand_back(queue, claim)
            raise
        open_seats = [seat.seat for seat in table.seats if seat.kind == SeatKind.SEAT_KIND_OPEN]
        seats = list(zip(tickets, open_seats, strict=True))
        if not await self.store.hand_over(queue, claim, table.table_id, seats):
            await self.tables.abandon(table.table_id)  # nobody sits there, and nobody will
            return False
        for fields in await self._seat(table.table_id, tickets):
            QUEUE_WAIT_SECONDS.labels(config.game).observe(max(0.0, time.time() - float(fields.get("joined") or 0)))
        return True

    async def _seat(self, table_id: str, tickets: list[str]) -> list[dict[str, str]]:
        """Seat the players of a match handed over to `table_id`, each at its ticket's seat (with no token: each
        read of a matched ticket issues one), and wake their WaitForMatch. Whoever finishes a handover calls it, so a
        seat taken already is left as it is. Returns the tickets' fields."""
        found = []
        for ticket_id in tickets:
            fields = await self.store.ticket(ticket_id)
            found.append(fields)
            if "seat" not in fields:
                continue  # expired: its player is gone
            seat = int(fields["seat"])
            try:
                await self.tables.join_table(
                    table_id, fields.get("name", "player"), seat, fields.get("player", ""), with_token=False
                )
            except TableStateError:
                if seat not in await self.store.occupants(table_id):
                    raise
        for ticket_id in tickets:
            await self.store.notify_ticket(ticket_id)
        return found

    async def _ordinal(self, player_id: str, config: GameConfig) -> float:
        if not player_id:
            return 0.0  # a guest plays at the default rating's ordinal
        return (await self.tables.players.rating(player_id, config.game, config.seats)).ordinal

    async def _ticket(self, ticket_id: str, waiting: int | None = None) -> QueueTicket:
        fields = await self.store.ticket(ticket_id)
        if not fields:
            raise TableNotFoundError(f"unknown ticket: {ticket_id}")
        matched = fields.get("matched") == "1"
        if matched and "match" in fields and not await self._started(fields["table_id"]):
            await self._seat(fields["table_id"], fields["match"].split(","))  # a handover its maker left unfinished
        if "token" in fields:  # matched by an earlier release, which kept the seat token in clear: no longer
            await self.store.forget_ticket_token(ticket_id)
        if waiting is None:
            waiting = 0 if matched else await self.store.queue_length(fields["queue"])
        # A fresh seat token is in every answer that finds the ticket matched, for as long as the ticket lives: an
        # answer lost on its way (a reload, a closed tab, two calls in flight) loses no seat, and asking again retires
        # the seat's oldest token past the few it keeps. The ticket id is the holder's capability, as a seat token
        # is: only JoinQueue's caller has it, and logs never write it whole.
        seat = int(fields.get("seat", -1))
        seat_token = await self.tables.seating.fresh_token(fields["table_id"], seat) if matched else ""
        return QueueTicket(
            ticket_id=ticket_id,
            matched=matched,
            table_id=fields.get("table_id", ""),
            seat=seat,
            seat_token=seat_token,
            waiting=waiting,
        )

    async def _started(self, table_id: str) -> bool:
        live = await self.store.live(table_id)
        return live is not None and live.started


def _queue_tag(config: GameConfig, allow_bots: bool = False) -> str:
    """A queue per game, seat count, options, and whether bot accounts may be matched in it."""
    options = ",".join(f"{k}={v}" for k, v in sorted(config.options.items())) + ("|bots" if allow_bots else "")
    return keys.queue_tag(config.game, config.seats, hashlib.sha256(options.encode()).hexdigest()[:12])


def _queue_key(config: GameConfig, allow_bots: bool = False) -> str:
    return keys.queue(_queue_tag(config, allow_bots))
