"""Seating: a table made (its bots seated, its clock checked), a seat taken by a player or a guest under a seat
token, and a new seat token for a registered player's own seat (each seat keeps its newest few: seats.py)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass

from manaforge.v1.common_pb2 import GameConfig
from manaforge.v1.gateway_pb2 import SeatRequest, Table, TimeControl
from manaforge.v1.storage_pb2 import TableRecord

from engine_core import find_game
from engine_core.bots import check_level
from engine_core.errors import InvalidConfigError
from services.tables.commit import state_bytes
from services.tables.directory import Directory
from services.tables.errors import TableStateError
from services.tables.followups import TAKEOVER_LEVEL, bank_clock, followups
from services.tables.lookup import Lookup, hash_seat_token, no_table
from services.tables.names import clean
from services.tables.players import Players
from services.tables.retention import Retention
from services.tables.seats import is_players, occupant_for, seats_of

MAX_DECISION_SECONDS = 7 * 24 * 3600.0
BOT_GAMES_KEPT = 30 * 24 * 3600  # seconds a bot account's list of games under way lives after its last game


@dataclass(frozen=True)
class TableDefaults:
    """What a table plays with when its maker asks for nothing else."""

    response_timeout: float = 30.0  # seconds a seat may take to answer a response window
    bot_delay: float = 0.0  # seconds before a bot moves
    decision_seconds: float = 120.0  # the clock of a table that asks for none


class Seating:
    def __init__(
        self,
        lookup: Lookup,
        players: Players,
        directory: Directory,
        defaults: TableDefaults,
        retention: Retention,
        bot_games: int = 8,
    ) -> None:
        self.bot_games = bot_games  # games under way a bot account may play at once
        self.lookup = lookup
        self.store = lookup.store
        self.players = players
        self.directory = directory
        self.defaults = defaults
        self.retention = retention

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
        """A new table. `listed`: shown by ListTables while a seat is open (a matchmaking table is not: its seats
        are kept for the matched players)."""
        game = find_game(config.game)
        checked = game.check_config(config)
        if player_name and not player_id:  # a guest's name refused before a table is made for them
            await self.players.check_guest_name(clean(player_name))
        if seats and len(seats) != checked.seats:
            raise InvalidConfigError("seats", f"{len(seats)} seat requests for a {checked.seats}-seat table")
        requests = list(seats) or [SeatRequest() for _ in range(checked.seats)]
        occupants = {i: f"bot:{check_level(r.bot_level)}" for i, r in enumerate(requests) if r.bot}
        seed = secrets.randbits(63)
        state = game.new_game(checked, seed)
        record = TableRecord(
            table_id=secrets.token_hex(8),
            config=checked,
            seed=seed,
            response_timeout_seconds=self.defaults.response_timeout if response_timeout is None else response_timeout,
            bot_delay_seconds=self.defaults.bot_delay if bot_delay is None else bot_delay,
            created_at=time.time(),
            seats=seats_of(occupants, checked.seats, only_taken=True),  # the bots: fixed at creation
            time_control=self.time_control(time_control),
        )
        open_seats = checked.seats - len(occupants)
        first = followups(record, game, state)
        abandon = self.retention.open_table_seconds if open_seats else None  # a table nobody comes to is removed
        await self.store.create_table(record, state_bytes(state), occupants, listed and open_seats > 0, first, abandon)
        self.lookup.records.put(record.table_id, record)
        seat, seat_token = -1, ""
        if (player_name or player_id) and open_seats:
            _, seat, seat_token = await self.join_table(record.table_id, player_name, player_id=player_id)
        return await self.directory.table(record.table_id), seat, seat_token

    def time_control(self, asked: TimeControl | None) -> TimeControl:
        """The clock a table plays with: what was asked, within bounds, else the platform's default."""
        if asked is None or not asked.ByteSize():
            return TimeControl(decision_seconds=self.defaults.decision_seconds)
        limits = (
            0 <= asked.decision_seconds <= MAX_DECISION_SECONDS
            and 0 <= asked.bank_seconds <= MAX_DECISION_SECONDS
            and 0 <= asked.increment_seconds <= 3600
            and 0 <= asked.takeover_after <= 100
        )
        if not limits:
            raise InvalidConfigError(
                "time control",
                f"decision_seconds and bank_seconds 0-{MAX_DECISION_SECONDS:g}, increment_seconds 0-3600,"
                " takeover_after 0-100",
            )
        checked = TimeControl()
        checked.CopyFrom(asked)
        checked.takeover_level = check_level(asked.takeover_level or TAKEOVER_LEVEL)
        return checked

    async def join_table(
        self,
        table_id: str,
        player_name: str,
        seat: int | None = None,
        player_id: str = "",
        seat_token: str = "",
        with_token: bool = True,
    ) -> tuple[Table, int, str]:
        """Take a seat: as a registered player (`player_id`, already authenticated; the seat is theirs for good,
        under their own registered name, whatever `player_name` says), or as a guest under `player_name` (one that
        looks like no registered player's name, no bot's and no reserved word: names.py). `seat_token`: the seat
        token, when the caller chose it (matchmaking's, so any process can finish a handover); else a new one."""
        record = await self.lookup.record(table_id)
        if player_id:
            name = await self.players.name_of(player_id)
        else:
            name = clean(player_name)
            await self.players.check_guest_name(name)
        # with_token False: the seat of a matched ticket, taken with no token (each read of the ticket issues one)
        seat_token = (seat_token or secrets.token_urlsafe(24)) if with_token else ""
        wanted = -1 if seat is None else seat
        if not -1 <= wanted < record.config.seats:
            raise InvalidConfigError("seat", f"seat {wanted} does not exist at a {record.config.seats}-seat table")
        token_digest = hash_seat_token(seat_token) if seat_token else ""
        live = await self.store.live(table_id)
        if live is None:
            raise no_table(table_id)
        game = find_game(record.config.game)
        first = followups(record, game, game.state_from_bytes(live.state))  # armed if this seat starts play
        bot_account = await self.players.is_bot(player_id)
        if bot_account:
            await self._enter_bot_game(player_id, table_id)
        occupant = occupant_for(player_id, name, bot_account)
        status, taken = await self.store.claim_seat(
            table_id, record.config.seats, wanted, occupant, token_digest, first, bank_clock(record)
        )
        if status != "ok" and bot_account:
            await self.store.redis.zrem(_bot_games_key(player_id), table_id)
        if status == "taken":
            raise TableStateError(f"seat taken: seat {taken} is already occupied")
        if status == "full":
            raise TableStateError("table full: every seat is taken")
        if token_digest:
            self.lookup.seats.put((table_id, token_digest), taken)
        self.lookup.forget(table_id)  # the table may have started: read its live state afresh next time
        if player_id:
            await self.players.sat_at(player_id, table_id, record.created_at)
        return await self.directory.table(table_id), taken, seat_token

    async def rejoin(self, table_id: str, player_id: str, player_key: str = "") -> tuple[Table, int, str]:
        """A seat token for the calling player's own seat, from any client: a fresh one, or with `player_key` (the
        player's own key, checked by the caller: the Events stream) the one that key gives the seat, the same every
        time, so a stream that reconnects adds no token. Either becomes the seat's newest; past MAX_SEAT_TOKENS the
        oldest is retired (seats.py)."""
        occupants = await self.store.occupants(table_id)
        mine = [seat for seat, occupant in occupants.items() if is_players(occupant, player_id)]
        if not mine:
            await self.lookup.record(table_id)
            raise TableStateError("rejoin: you hold no seat at this table")
        seat_token = keyed_seat_token(player_key, table_id, mine[0]) if player_key else secrets.token_urlsafe(24)
        await self.store.issue_token(table_id, mine[0], hash_seat_token(seat_token))
        await self.store.present(table_id, mine[0], (await self.lookup.record(table_id)).time_control.decision_seconds)
        return await self.directory.table(table_id), mine[0], seat_token

    async def fresh_token(self, table_id: str, seat: int) -> str:
        """A fresh seat token for a taken seat (a matched ticket's, for its holder); "" when the seat is not taken."""
        seat_token = secrets.token_urlsafe(24)
        return seat_token if await self.store.issue_token(table_id, seat, hash_seat_token(seat_token)) else ""

    async def games_under_way(self, player_id: str) -> int:
        """A bot account's games not yet finished (finished or removed ones leave its list as they are seen)."""
        key = _bot_games_key(player_id)
        under_way = 0
        for raw in await self.store.redis.zrange(key, 0, -1):
            live = await self.store.live(raw.decode())
            if live is None or live.finished:
                await self.store.redis.zrem(key, raw)
            else:
                under_way += 1
        return under_way

    def busy_message(self) -> str:
        return f"busy: a bot account plays at most {self.bot_games} games at once (MANAFORGE_BOT_GAMES)"

    async def is_busy(self, player_id: str) -> bool:
        return await self.games_under_way(player_id) >= self.bot_games

    async def _enter_bot_game(self, player_id: str, table_id: str) -> None:
        """Count a table among a bot account's games under way, within its limit (the table is added first and
        taken out again past the limit, so two joins at once cannot both pass)."""
        key = _bot_games_key(player_id)
        await self.store.redis.zadd(key, {table_id: time.time()})
        await self.store.redis.expire(key, BOT_GAMES_KEPT)
        if await self.games_under_way(player_id) > self.bot_games:
            await self.store.redis.zrem(key, table_id)
            raise TableStateError(self.busy_message())


def keyed_seat_token(player_key: str, table_id: str, seat: int) -> str:
    """The seat token a player's key gives one of their seats (an HMAC: the token tells nothing of the key, and
    only the key's holder, or the server during one of their calls, can make it)."""
    mac = hmac.new(player_key.encode(), f"manaforge seat token|{table_id}|{seat}".encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(mac.digest()[:24]).decode()


def _bot_games_key(player_id: str) -> str:
    return f"mf:player:{player_id}:games"
