"""The table service: what players do (create, join, submit, view, watch) over the rules and the store, and the
follow-up work the workers do (bot moves, timers, replay validation).

Pure rules come from engine_core; storage is the injected RedisStore and the fan-out the injected Hub. What must
follow a commit is recorded by the commit itself (followups.py), never asked for afterwards. The gRPC gateway and
the Celery workers both use this service; it knows neither.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import secrets
import time
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Any

from google.protobuf.any_pb2 import Any as AnyMessage
from manaforge.v1.common_pb2 import GameConfig
from manaforge.v1.gateway_pb2 import Deadline, GameLog, Seat, SeatKind, SeatRequest, SeatView, Table, TimeControl
from manaforge.v1.rules_pb2 import GameInfo
from manaforge.v1.storage_pb2 import Commit, Deadlines, GameArchive, TableRecord

from engine_core import GAMES, find_game
from engine_core.bots import check_level, choose_action
from engine_core.errors import InvalidConfigError
from engine_core.game import visible_events
from engine_core.registry import AnyGame
from engine_core.replay import LoggedStep, Verdict, replay
from services.tables.commit import Committer, Submitted, state_bytes, token_digest
from services.tables.errors import (
    DrainingError,
    OutOfRangeError,
    StaleVersionError,
    TableNotFoundError,
    TableStateError,
)
from services.tables.fanout import DRAIN, RESYNC, Hub
from services.tables.followups import (
    TAKEOVER_LEVEL,
    FollowUp,
    bank_clock,
    bot_levels,
    followups,
    takeover_after,
)
from services.tables.metrics import BOT_SECONDS, FANOUT_SECONDS, FOLLOW_UPS, VERDICTS
from services.tables.players import GUEST_NAME, Players
from services.tables.rules import Rules
from services.tables.store import Live, RedisStore
from services.tables.views import Published, game_info, seat_view, watch_update

Flags = tuple[bool, bool]  # (rendered text, legal actions) in each update
MAX_DECISION_SECONDS = 7 * 24 * 3600.0


@dataclass(frozen=True)
class Retention:
    """How long what is done is kept (seconds)."""

    archive_after: float = 60.0  # a validated game's live keys stay this long (spectators see the end), then fold
    archive_ttl: float = 30 * 24 * 3600.0  # an archived game is kept this long
    open_table_seconds: float = 3600.0  # a table whose seats are not all taken by then is removed


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
    ) -> None:
        self.store = store
        self.committer = Committer(store, rules)
        self.players = Players(store.redis)
        self.hub = hub or Hub(store.pubsub_connection, self.decode)
        self.hub.decode = self.decode
        self.response_timeout = response_timeout
        self.bot_delay = bot_delay
        self.bot_time_cap = bot_time_cap  # a bot's search stops after this many seconds, whatever its budget
        self.retention = retention or Retention()
        self.decision_seconds = decision_seconds  # the default clock of a table that asks for none

    async def close(self) -> None:
        await self.committer.rules.close()
        await self.hub.stop()
        await self.store.close()

    # ----- games and tables ------------------------------------------------------------------------------------

    def list_games(self) -> list[GameInfo]:
        return [game_info(game) for game in GAMES]

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
            response_timeout_seconds=self.response_timeout if response_timeout is None else response_timeout,
            bot_delay_seconds=self.bot_delay if bot_delay is None else bot_delay,
            created_at=time.time(),
            seats=_seats(occupants, checked.seats, only_taken=True),  # the bots: fixed at creation
            time_control=self._time_control(time_control),
        )
        open_seats = checked.seats - len(occupants)
        first = followups(record, game, state)
        await self.store.create_table(record, state_bytes(state), occupants, listed and open_seats > 0, first)
        self.committer.records.put(record.table_id, record)
        if open_seats:  # a table nobody comes to is removed after a while
            await self.store.arm(FollowUp("abandon", record.table_id, 0), self.retention.open_table_seconds)
        seat, token = -1, ""
        if (player_name or player_id) and open_seats:
            _, seat, token = await self.join_table(record.table_id, player_name, player_id=player_id)
        return await self.table(record.table_id), seat, token

    def _time_control(self, asked: TimeControl | None) -> TimeControl:
        """The clock a table plays with: what was asked, within bounds, else the platform's default."""
        if asked is None or not asked.ByteSize():
            return TimeControl(decision_seconds=self.decision_seconds)
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
        self, table_id: str, player_name: str, seat: int | None = None, player_id: str = "", token: str = ""
    ) -> tuple[Table, int, str]:
        """Take a seat: as a registered player (`player_id`, already authenticated; the seat is theirs for good), or
        as a guest under `player_name` (not a registered player's name, nor a bot's). `token`: the seat token, when
        the caller chose it (matchmaking's, so any process can finish a handover); else a new one."""
        record = await self.committer.record(table_id)
        name = _clean_name(player_name)
        if not player_id and (refusal := await self.players.guest_refusal(name)):
            raise TableStateError(refusal)
        token = token or secrets.token_urlsafe(24)
        wanted = -1 if seat is None else seat
        if not -1 <= wanted < record.config.seats:
            raise InvalidConfigError("seat", f"seat {wanted} does not exist at a {record.config.seats}-seat table")
        digest = token_digest(token)
        live = await self.store.live(table_id)
        if live is None:
            raise TableNotFoundError(f"unknown table: no table {table_id!r}")
        game = find_game(record.config.game)
        first = followups(record, game, game.state_from_bytes(live.state))  # armed if this seat starts play
        occupant = f"player:{player_id}:{name}" if player_id else f"human:{name}"
        status, taken = await self.store.claim_seat(
            table_id, record.config.seats, wanted, occupant, digest, first, bank_clock(record)
        )
        if status == "taken":
            raise TableStateError(f"seat taken: seat {taken} is already occupied")
        if status == "full":
            raise TableStateError("table full: every seat is taken")
        self.committer.tokens.put((table_id, digest), taken)
        self.committer.forget(table_id)  # the table may have started: read its live state afresh next time
        if player_id:
            await self.players.sat_at(player_id, table_id, record.created_at)
        return await self.table(table_id), taken, token

    async def rejoin(self, table_id: str, player_id: str) -> tuple[Table, int, str]:
        """A fresh seat token for the calling player's own seat (from any client; earlier tokens stay valid)."""
        occupants = await self.store.occupants(table_id)
        mine = [seat for seat, occupant in occupants.items() if occupant.startswith(f"player:{player_id}:")]
        if not mine:
            await self.committer.record(table_id)
            raise TableStateError("rejoin: you hold no seat at this table")
        token = secrets.token_urlsafe(24)
        await self.store.add_token(table_id, token_digest(token), mine[0])
        await self.store.present(
            table_id, mine[0], (await self.committer.record(table_id)).time_control.decision_seconds
        )
        return await self.table(table_id), mine[0], token

    async def _loaded(self, table_id: str) -> tuple[TableRecord, Live, AnyGame]:
        """A table's record, live state (or its archive's) and game; NOT_FOUND when there is no such table."""
        record = await self.committer.record(table_id)
        live = await self.store.live(table_id)
        if live is None:
            raise TableNotFoundError(f"unknown table: no table {table_id!r}")
        return record, live, find_game(record.config.game)

    async def table(self, table_id: str) -> Table:
        record, live, game = await self._loaded(table_id)
        header = game.header(game.state_from_bytes(live.state))
        occupants = await self.store.occupants(table_id)
        away = await self.store.absences(table_id, record.config.seats)
        table = Table(
            table_id=table_id,
            config=record.config,
            started=live.started,
            version=live.version,
            pending=header.pending,
            outcome=header.outcome,
            replay_verdict=await self.store.verdict(table_id),
            spectators=await self.store.spectators(table_id),
            time_control=record.time_control,
        )
        table.seats.extend(_seats(occupants, record.config.seats, [n >= takeover_after(record) for n in away]))
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

    # ----- actions --------------------------------------------------------------------------------------------

    async def seat_of(self, table_id: str, token: str) -> int:
        return await self.committer.seat_of(table_id, token)

    async def submit(
        self, table_id: str, token: str, action: AnyMessage, client_action_id: str = "", expected: int | None = None
    ) -> Submitted:
        record = await self.committer.record(table_id)
        seat = await self.committer.seat_of(table_id, token)
        game = find_game(record.config.game)
        parsed = game.action_from_any(action)
        parsed.DiscardUnknownFields()  # only what the game reads is stored and logged
        done, _ = await self.committer.submit(record, game, seat, parsed, client_action_id, expected, token)
        return done

    # ----- follow-up work (run by the workers) ----------------------------------------------------------------

    async def follow_up(self, item: FollowUp) -> bool:
        """Do one follow-up item, then take it out of the outbox. Safe to run twice or late: each kind re-reads the
        table and does nothing once the game has moved on. Returns whether it changed the game."""
        if item.kind == "bot":
            acted = await self.play_bot(item.table_id, item.seat, item.version)
        elif item.kind == "timer":
            acted = await self.expire(item.table_id, item.seat, item.version)
        elif item.kind == "clock":
            acted = await self.take_over(item.table_id, item.seat, item.version)
        elif item.kind == "validate":
            if (await self.validate_replay(item.table_id)).ok:
                await self.rate(item.table_id)
            await self.store.arm(FollowUp("archive", item.table_id, item.version), self.retention.archive_after)
            acted = False
        elif item.kind == "archive":
            acted = await self.archive(item.table_id)
        else:
            acted = await self.abandon(item.table_id)
        await self.store.done_with(item)
        FOLLOW_UPS.labels(item.kind, str(acted).lower()).inc()
        return acted

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
        return await self._act_for(record, game, seat, action, f"{kind}:{version}", version)

    async def expire(self, table_id: str, seat: int, version: int) -> bool:
        """Take the timeout action (e.g. pass) for a seat that did not answer in time at `version`."""
        waiting = await self._waiting_for(table_id, seat, version)
        if waiting is None:
            return False
        record, game, state = waiting
        action = game.timeout_action(state, seat)
        return action is not None and await self._act_for(record, game, seat, action, f"timeout:{version}", version)

    async def _waiting_for(self, table_id: str, seat: int, version: int) -> tuple[TableRecord, AnyGame, Any] | None:
        """The table, game and state if the game is still at `version` with `seat` pending; None when it moved on."""
        record, live, game = await self._loaded(table_id)
        state = game.state_from_bytes(live.state)
        if live.version != version or seat not in game.pending_seats(state):
            return None
        return record, game, state

    async def _act_for(
        self, record: TableRecord, game: AnyGame, seat: int, action: Any, action_id: str, version: int
    ) -> bool:
        """Submit a scheduled action (bot move, timeout) once, only at `version`. Returns whether it landed."""
        try:
            done, _ = await self.committer.submit(record, game, seat, action, action_id, expected=version)
        except StaleVersionError:
            return False
        return not done.duplicate

    async def validate_replay(self, table_id: str) -> Verdict:
        """Re-run the game from its seed and log; store and return the verdict."""
        record, live, game = await self._loaded(table_id)
        steps = [LoggedStep(a.seat, a.action.value, a.state_digest) for a in await self.store.action_log(table_id)]
        verdict = await asyncio.to_thread(replay, game, record.config, record.seed, steps, live.state)
        await self.store.set_verdict(table_id, str(verdict))
        VERDICTS.labels(record.config.game, "valid" if verdict.ok else "invalid").inc()
        return verdict

    async def rate(self, table_id: str) -> bool:
        """Rate a validated game's registered players, once (ranks from the scores, else winners first)."""
        record, live, game = await self._loaded(table_id)
        result = game.header(game.state_from_bytes(live.state)).outcome
        n = record.config.seats
        if len(result.scores) == n:
            ranks = [1 + sum(other > mine for other in result.scores) for mine in result.scores]
        else:
            ranks = [1 if seat in result.winners else 2 for seat in range(n)]
        occupants = await self.store.occupants(table_id)
        seats = [_rated_as(occupants.get(seat, "")) for seat in range(n)]
        return await self.players.rate_game(table_id, record.config.game, seats, ranks)

    # ----- retention ------------------------------------------------------------------------------------------

    async def archive(self, table_id: str) -> bool:
        """Fold a finished, validated game into one compact record kept `archive_ttl` seconds, and remove its live
        keys, events, ids and listings. Returns whether it archived (False: already archived, or not finished)."""
        record, live, occupants, tokens = await self.store.gather(table_id)
        if record is None or live is None or not live.finished:
            return False
        archive = GameArchive(
            record=record,
            seats=_seats(occupants, record.config.seats),
            version=live.version,
            seq=live.seq,
            state=live.state,
            actions=await self.store.action_log(table_id),
            events=await self.store.events(table_id, 1),
            verdict=await self.store.verdict(table_id),
            token_seats=tokens,
            archived_at=time.time(),
        )
        await self.store.archive(table_id, archive, self.retention.archive_ttl)
        self.committer.forget(table_id)
        return True

    async def abandon(self, table_id: str) -> bool:
        """Remove a table whose seats were never all taken. Returns whether it did."""
        live = await self.store.live(table_id)
        if live is None or live.started:
            return False
        record = await self.committer.record(table_id)
        await self.store.discard(table_id, record.config.game)
        self.committer.records.pop(table_id)
        return True

    # ----- views and streams ----------------------------------------------------------------------------------

    async def view(self, table_id: str, token: str = "") -> SeatView:
        seat = await self.seat_of(table_id, token) if token else None
        if seat is not None:  # the player is here: their clock runs in full again (the view shows the new deadline)
            record = await self.committer.record(table_id)
            await self.store.present(table_id, seat, record.time_control.decision_seconds)
        record, live, game = await self._loaded(table_id)
        state = game.state_from_bytes(live.state)
        return seat_view(table_id, game, state, seat, live.seq, deadlines=_deadlines(live))

    def decode(self, table_id: str, data: bytes) -> Published:
        """A commit received by the hub: decoded once for every watcher of the table in this process, and kept
        as this process's guess of the table's live state."""
        commit = Commit.FromString(data)
        record = self.committer.records.get(table_id)
        if record is None:
            return Published(commit)
        game = find_game(record.config.game)
        published = Published(commit, game.state_from_bytes(commit.state))
        self.committer.learn_commit(table_id, commit, published.state(game))
        return published

    async def watch(
        self, table_id: str, token: str = "", after_seq: int = 0, flags: Flags = (True, True)
    ) -> AsyncGenerator[bytes, None]:
        """The seat's updates, encoded: first everything after `after_seq`, then each commit as it lands, until the
        game is over. Every event the seat may see arrives once and in order, whatever is dropped on the way."""
        record = await self.committer.record(table_id)
        seat = await self.seat_of(table_id, token) if token else None
        game = find_game(record.config.game)
        follower = await self.hub.follow(table_id)
        if seat is None:
            await self.store.spectating(table_id, 1)
        else:
            await self.store.present(table_id, seat, record.time_control.decision_seconds)
        try:
            caught = await self._catch_up(table_id, game, seat, after_seq, -1, flags)
            assert caught is not None
            last, version, finished, update = caught
            yield update
            while not finished:
                item = await follower.next()
                if item is DRAIN:
                    raise DrainingError(
                        f"gateway draining: reconnect to any gateway with after_seq={last} to resume with no gap"
                    )
                if item is RESYNC or item.version > version + 1:  # something was missed: read the durable log
                    caught = await self._catch_up(table_id, game, seat, last, version, flags)
                    if caught is not None:
                        last, version, finished, update = caught
                        yield update
                    continue
                if item.version <= version:
                    continue  # already sent by a catch-up
                update = item.update(table_id, game, seat, flags)
                last, version = item.commit.last_seq, item.version
                finished = game.is_terminal(item.state(game))
                FANOUT_SECONDS.observe(time.monotonic() - item.received)
                yield update
        finally:
            self.hub.leave(follower)
            if seat is None:
                with contextlib.suppress(Exception):  # best effort: the count is a hint for listings
                    await self.store.spectating(table_id, -1)

    async def _catch_up(
        self, table_id: str, game: AnyGame, seat: int | None, after_seq: int, version: int, flags: Flags
    ) -> tuple[int, int, bool, bytes] | None:
        """The update covering everything after `after_seq`; None when the table is still at `version`."""
        events, live = await self.store.snapshot(table_id, min(after_seq, 2**62))
        if live is None:
            raise TableNotFoundError(f"unknown table: no table {table_id!r}")
        if after_seq > live.seq:
            raise OutOfRangeError(f"after_seq: {after_seq} is past the table's last event ({live.seq})")
        if live.version == version:
            return None
        state = game.state_from_bytes(live.state)
        update = watch_update(table_id, game, state, seat, live.seq, events, flags, _deadlines(live))
        return live.seq, live.version, game.is_terminal(state), update

    async def log(self, table_id: str) -> GameLog:
        record, live, _ = await self._loaded(table_id)
        if not live.finished:
            raise TableStateError("game log: the log is published once the game is finished")
        events = await self.store.events(table_id, 1)
        return GameLog(
            table=await self.table(table_id),
            seed=record.seed,
            actions=await self.store.action_log(table_id),
            events=visible_events(events, None),
        )


def bot_seed(secret: int, kind: str, version: int, seat: int) -> int:
    """The seed of a bot's decision for `seat` at `version` (`kind`: "bot" for a bot seat, "clock" for a takeover):
    an HMAC of the table's secret seed, so that nothing a client sees before the game ends gives it away."""
    digest = hmac.new(secret.to_bytes(8, "big"), f"{kind}:{version}:{seat}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big")


def _seats(
    occupants: dict[int, str], count: int, away: list[bool] | None = None, only_taken: bool = False
) -> list[Seat]:
    """The seats of a table as its occupants hold them ("bot:<level>", "player:<id>:<name>", "human:<name>").
    Bots are told apart by number when there are several: "bot 1 (heuristic)", "bot 2 (heuristic)", in seat order
    (bots are seated when the table is made, so a bot's name never changes)."""
    bots = [seat for seat in range(count) if occupants.get(seat, "").startswith("bot:")]
    numbers = {seat: number for number, seat in enumerate(bots, start=1)} if len(bots) > 1 else {}
    return [
        _seat(seat, occupants.get(seat), bool(away and away[seat]), numbers.get(seat))
        for seat in range(count)
        if seat in occupants or not only_taken
    ]


def _seat(seat: int, occupant: str | None, away: bool = False, number: int | None = None) -> Seat:
    if occupant is None:
        return Seat(seat=seat, kind=SeatKind.SEAT_KIND_OPEN)
    kind, _, rest = occupant.partition(":")
    if kind == "bot":
        name = f"bot {number} ({rest})" if number else f"bot ({rest})"
        return Seat(seat=seat, kind=SeatKind.SEAT_KIND_BOT, name=name, bot_level=rest)
    if kind == "player":
        player_id, _, name = rest.partition(":")
        return Seat(seat=seat, kind=SeatKind.SEAT_KIND_HUMAN, name=name, player_id=player_id, away=away)
    return Seat(seat=seat, kind=SeatKind.SEAT_KIND_HUMAN, name=rest, away=away)


def _rated_as(occupant: str) -> str:
    """A seat's identity for ratings: a player's id, "bot:<level>", or "" for a guest."""
    kind, _, rest = occupant.partition(":")
    if kind == "player":
        return rest.partition(":")[0]
    return occupant if kind == "bot" else ""


def _deadlines(live: Live) -> list[Deadline]:
    return list(Deadlines.FromString(live.deadlines).deadlines) if live.deadlines else []


def _clean_name(name: str) -> str:
    cleaned = "".join(ch for ch in name if ch.isprintable()).strip()[:40]
    return cleaned or GUEST_NAME
