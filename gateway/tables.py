"""The table service: what players do (create, join, queue, submit, view, watch) over the rules and the store.

Pure rules come from engine_core; storage is the injected RedisStore; bots, timers and replay validation are asked
of the injected Scheduler (Celery in production). Used by the gRPC gateway and by the Celery workers alike.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from google.protobuf.any_pb2 import Any as AnyMessage
from google.protobuf.message import Message
from manaforge.v1.common_pb2 import Event, GameConfig
from manaforge.v1.gateway_pb2 import (
    GameLog,
    LoggedAction,
    QueueTicket,
    Seat,
    SeatKind,
    SeatRequest,
    SeatView,
    Table,
    WatchUpdate,
)
from manaforge.v1.rules_pb2 import GameInfo, LegalAction, OptionInfo
from manaforge.v1.storage_pb2 import Commit, TableRecord

from engine_core import GAMES, find_game
from engine_core.bots import bot_levels, check_level, choose_action
from engine_core.errors import InvalidConfigError
from engine_core.game import Game, visible_events
from engine_core.replay import LoggedStep, Verdict, replay, state_digest
from gateway.store import Live, RedisStore, iter_messages

AnyGame = Game[Any, Any]
MAX_RETRIES = 64


# ----- errors: each maps to one gRPC status in the servicer -----------------------------------------------------


class TableError(Exception):
    """A request the table service refuses; the message names the rule."""


class TableNotFoundError(TableError):
    pass


class SeatTokenError(TableError):
    pass


class StaleVersionError(TableError):
    pass


class TableStateError(TableError):
    """The table cannot do this now (seat taken, table full, not started, ticket already matched)."""


class Scheduler(Protocol):
    """Work done later, elsewhere: bot moves, response-window timers, replay validation."""

    def bot_turn(self, table_id: str, seat: int, version: int, delay: float) -> None: ...

    def response_timeout(self, table_id: str, seat: int, version: int, delay: float) -> None: ...

    def validate_replay(self, table_id: str) -> None: ...


class NullScheduler:
    """Schedules nothing: for tools that only read, and tests of the store alone."""

    def bot_turn(self, table_id: str, seat: int, version: int, delay: float) -> None:
        pass

    def response_timeout(self, table_id: str, seat: int, version: int, delay: float) -> None:
        pass

    def validate_replay(self, table_id: str) -> None:
        pass


@dataclass(frozen=True)
class Submitted:
    version: int
    events: list[Event]
    duplicate: bool


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def game_info(game: AnyGame) -> GameInfo:
    info = game.info
    return GameInfo(
        name=info.name,
        title=info.title,
        min_seats=info.min_seats,
        max_seats=info.max_seats,
        description=info.description,
        options=[
            OptionInfo(name=o.name, default_value=o.default, choices=o.choices, description=o.description)
            for o in info.options
        ],
        bot_levels=bot_levels(),
    )


def pack(message: Message) -> AnyMessage:
    packed = AnyMessage()
    packed.Pack(message)
    return packed


class Tables:
    def __init__(
        self,
        store: RedisStore,
        scheduler: Scheduler,
        *,
        response_timeout: float = 30.0,
        bot_delay: float = 0.0,
        bot_time_cap: float = 2.0,
        watch_poll: float = 1.0,
    ) -> None:
        self.store = store
        self.scheduler = scheduler
        self.response_timeout = response_timeout
        self.bot_delay = bot_delay
        self.bot_time_cap = bot_time_cap  # a bot's search stops after this many seconds, whatever its budget
        self.watch_poll = watch_poll

    # ----- games and tables ------------------------------------------------------------------------------------

    def list_games(self) -> list[GameInfo]:
        return [game_info(game) for game in GAMES]

    def create_table(
        self,
        config: GameConfig,
        seats: list[SeatRequest],
        player_name: str = "",
        response_timeout: float | None = None,
        bot_delay: float | None = None,
        listed: bool = True,
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
            seats=[_seat(seat, occupant) for seat, occupant in occupants.items()],  # the bots: fixed at creation
        )
        open_seats = checked.seats - len(occupants)
        self.store.create_table(record, _bytes(state), occupants, listed=listed and open_seats > 0)
        seat, token = -1, ""
        if player_name and open_seats:
            _, seat, token = self.join_table(record.table_id, player_name)
        elif open_seats == 0:
            self.store.mark_started(record.table_id)
            self._after_commit(record, game, state)
        return self.table(record.table_id), seat, token

    def join_table(self, table_id: str, player_name: str, seat: int | None = None) -> tuple[Table, int, str]:
        record = self._record(table_id)
        name = _clean_name(player_name)
        token = secrets.token_urlsafe(24)
        wanted = -1 if seat is None else seat
        if not -1 <= wanted < record.config.seats:
            raise InvalidConfigError("seat", f"seat {wanted} does not exist at a {record.config.seats}-seat table")
        status, taken = self.store.claim_seat(
            table_id, record.config.seats, wanted, f"human:{name}", token_digest(token)
        )
        if status == "taken":
            raise TableStateError(f"seat taken: seat {taken} is already occupied")
        if status == "full":
            raise TableStateError("table full: every seat is taken")
        live = self._live(table_id)
        if live.started:
            game = find_game(record.config.game)
            self._after_commit(record, game, game.state_from_bytes(live.state))
        return self.table(table_id), taken, token

    def table(self, table_id: str) -> Table:
        record = self._record(table_id)
        live = self._live(table_id)
        game = find_game(record.config.game)
        state = game.state_from_bytes(live.state)
        header = game.header(state)
        occupants = self.store.occupants(table_id)
        table = Table(
            table_id=table_id,
            config=record.config,
            started=live.started,
            version=live.version,
            pending=header.pending,
            outcome=header.outcome,
            replay_verdict=self.store.verdict(table_id),
        )
        for seat in range(record.config.seats):
            table.seats.append(_seat(seat, occupants.get(seat)))
        return table

    def list_tables(self, game_name: str = "") -> list[Table]:
        tables = [self.table(t) for t in self.store.open_tables()]
        return [t for t in tables if not game_name or t.config.game == game_name]

    # ----- actions --------------------------------------------------------------------------------------------

    def seat_of(self, table_id: str, token: str) -> int:
        if not token:
            raise SeatTokenError("seat token: a seat token is required to act (JoinTable returns one)")
        seat = self.store.seat_for_token(table_id, token_digest(token))
        if seat is None:
            self._record(table_id)
            raise SeatTokenError("seat token: this token holds no seat at this table")
        return seat

    def submit(
        self, table_id: str, token: str, action: AnyMessage, client_action_id: str = "", expected: int | None = None
    ) -> Submitted:
        record = self._record(table_id)
        seat = self.seat_of(table_id, token)
        game = find_game(record.config.game)
        return self.submit_as(record, game, seat, game.action_from_any(action), client_action_id, expected)

    def submit_as(
        self,
        record: TableRecord,
        game: AnyGame,
        seat: int,
        action: Message,
        client_action_id: str = "",
        expected: int | None = None,
    ) -> Submitted:
        """Apply `action` for `seat` through the compare-and-set, retrying on conflict until it lands or fails."""
        table_id = record.table_id
        if client_action_id:
            done = self.store.done_action(table_id, client_action_id)
            if done is not None:
                return self._submitted(table_id, seat, done.version, done.first_seq, done.last_seq, True)
        for _ in range(MAX_RETRIES):
            live = self._live(table_id)
            if not live.started:
                raise TableStateError("table not started: play begins when every seat is taken")
            if expected is not None and expected != live.version:
                raise StaleVersionError(
                    f"stale version: you expected version {expected}, the game is at {live.version}"
                )
            state = game.state_from_bytes(live.state)
            new_state, events = game.apply(state, seat, action)
            for i, e in enumerate(events):
                e.seq = live.seq + 1 + i
            new_bytes = _bytes(new_state)
            logged = LoggedAction(
                version=live.version + 1,
                seat=seat,
                action=pack(action),
                client_action_id=client_action_id,
                text=game.describe(state, action),
                state_digest=state_digest(new_state),
            )
            commit = Commit(
                version=live.version + 1,
                first_seq=live.seq + 1,
                last_seq=live.seq + len(events),
                state=new_bytes,
                events=events,
            )
            result = self.store.commit(
                table_id,
                live.version,
                new_bytes,
                logged,
                client_action_id,
                commit.SerializeToString(),
                game.is_terminal(new_state),
                [e.SerializeToString() for e in events],
            )
            if result.status == "conflict":
                continue
            if result.status == "dup":
                return self._submitted(table_id, seat, result.version, result.first_seq, result.last_seq, True)
            self._after_commit(record, game, new_state)
            return Submitted(result.version, visible_events(events, seat), False)
        raise StaleVersionError(f"contention: the game changed {MAX_RETRIES} times while this action was tried")

    def _submitted(self, table_id: str, seat: int, version: int, first: int, last: int, dup: bool) -> Submitted:
        events = self.store.events(table_id, first, last) if last >= first else []
        return Submitted(version, visible_events(events, seat), dup)

    def _after_commit(self, record: TableRecord, game: AnyGame, state: Any) -> None:
        """Ask for what must happen next: bot moves, response timers, replay validation of a finished game."""
        header = game.header(state)
        if header.outcome.finished:
            self.scheduler.validate_replay(record.table_id)
            return
        bots = _bot_levels(record)
        for seat in header.pending.seats:
            if seat in bots:
                self.scheduler.bot_turn(record.table_id, seat, header.version, record.bot_delay_seconds)
            elif record.response_timeout_seconds > 0 and game.timeout_action(state, seat) is not None:
                self.scheduler.response_timeout(record.table_id, seat, header.version, record.response_timeout_seconds)

    # ----- scheduled work (run by the workers) ----------------------------------------------------------------

    def play_bot(self, table_id: str, seat: int, version: int) -> bool:
        """Move for a bot seat if the game still waits for it at `version`. Returns whether it moved."""
        waiting = self._waiting_for(table_id, seat, version)
        if waiting is None or seat not in _bot_levels(waiting[0]):
            return False
        record, game, state = waiting
        bot_seed = int.from_bytes(hashlib.sha256(f"{table_id}:{version}:{seat}".encode()).digest()[:8], "big")
        deadline = time.monotonic() + self.bot_time_cap
        action = choose_action(
            game, state, seat, _bot_levels(record)[seat], bot_seed, stop=lambda: time.monotonic() > deadline
        )
        return self._act_for(record, game, seat, action, f"bot:{version}:{seat}", version)

    def expire(self, table_id: str, seat: int, version: int) -> bool:
        """Take the timeout action (e.g. pass) for a seat that did not answer in time at `version`."""
        waiting = self._waiting_for(table_id, seat, version)
        if waiting is None:
            return False
        record, game, state = waiting
        action = game.timeout_action(state, seat)
        return action is not None and self._act_for(record, game, seat, action, f"timeout:{version}:{seat}", version)

    def _waiting_for(self, table_id: str, seat: int, version: int) -> tuple[TableRecord, AnyGame, Any] | None:
        """The table, game and state if the game is still at `version` with `seat` pending; None when it moved on."""
        record = self._record(table_id)
        live = self._live(table_id)
        game = find_game(record.config.game)
        state = game.state_from_bytes(live.state)
        if live.version != version or seat not in game.pending_seats(state):
            return None
        return record, game, state

    def _act_for(
        self, record: TableRecord, game: AnyGame, seat: int, action: Message, action_id: str, version: int
    ) -> bool:
        """Submit a scheduled action (bot move, timeout) once, only at `version`. Returns whether it landed."""
        try:
            self.submit_as(record, game, seat, action, action_id, expected=version)
        except StaleVersionError:
            return False
        return True

    def validate_replay(self, table_id: str) -> Verdict:
        """Re-run the game from its seed and log; store and return the verdict."""
        record = self._record(table_id)
        live = self._live(table_id)
        game = find_game(record.config.game)
        steps = [LoggedStep(a.seat, a.action.value, a.state_digest) for a in self.store.action_log(table_id)]
        verdict = replay(game, record.config, record.seed, steps, live.state)
        self.store.set_verdict(table_id, str(verdict))
        return verdict

    # ----- views and streams ----------------------------------------------------------------------------------

    def view(self, table_id: str, token: str = "") -> SeatView:
        record = self._record(table_id)
        seat = self.seat_of(table_id, token) if token else None
        live = self._live(table_id)
        game = find_game(record.config.game)
        return self._seat_view(table_id, game, seat, game.state_from_bytes(live.state), live.seq)

    def _seat_view(self, table_id: str, game: AnyGame, seat: int | None, state: Any, seq: int) -> SeatView:
        view = game.view(state, seat)
        header = game.header(state)
        legal = game.legal_actions(state, seat) if seat is not None else []
        return SeatView(
            table_id=table_id,
            seat=-1 if seat is None else seat,
            version=header.version,
            view=pack(view),
            text=game.render(view, seat),
            pending=header.pending,
            outcome=header.outcome,
            legal_actions=[LegalAction(action=pack(a), text=game.describe(state, a)) for a in legal],
            seq=seq,
        )

    def watch(
        self, table_id: str, token: str = "", after_seq: int = 0, is_active: Callable[[], bool] = lambda: True
    ) -> Iterator[WatchUpdate]:
        """The seat's events and views: first everything after `after_seq`, then each commit as it lands."""
        record = self._record(table_id)
        seat = self.seat_of(table_id, token) if token else None
        game = find_game(record.config.game)
        pubsub = self.store.subscribe(table_id)
        try:
            last, version, finished = yield from self._catch_up(table_id, game, seat, after_seq)
            for data in iter_messages(pubsub, self.watch_poll):
                if finished or not is_active():
                    return  # the final view has been sent, or the client has gone
                if data is None:
                    continue
                commit = Commit.FromString(data)
                if commit.version <= version:
                    continue  # already sent by the catch-up
                if commit.version > version + 1:  # a message was missed: read the gap from the durable log
                    last, version, finished = yield from self._catch_up(table_id, game, seat, last)
                    if finished:
                        return
                    continue
                state = game.state_from_bytes(commit.state)
                last, version, finished = commit.last_seq, commit.version, game.is_terminal(state)
                yield WatchUpdate(
                    seq=last,
                    events=visible_events(commit.events, seat),
                    view=self._seat_view(table_id, game, seat, state, last),
                )
                if finished:
                    return
        finally:
            pubsub.close()

    def _catch_up(
        self, table_id: str, game: AnyGame, seat: int | None, after_seq: int
    ) -> Generator[WatchUpdate, None, tuple[int, int, bool]]:
        events, live = self.store.snapshot(table_id, after_seq)
        if live is None:
            raise TableNotFoundError(f"unknown table: {table_id}")
        state = game.state_from_bytes(live.state)
        yield WatchUpdate(
            seq=live.seq,
            events=visible_events(events, seat),
            view=self._seat_view(table_id, game, seat, state, live.seq),
        )
        return live.seq, live.version, game.is_terminal(state)

    def log(self, table_id: str) -> GameLog:
        record = self._record(table_id)
        live = self._live(table_id)
        if not live.finished:
            raise TableStateError("game log: the log is published once the game is finished")
        events = self.store.events(table_id, 1)
        return GameLog(
            table=self.table(table_id),
            seed=record.seed,
            actions=self.store.action_log(table_id),
            events=visible_events(events, None),
        )

    # ----- matchmaking ----------------------------------------------------------------------------------------

    def join_queue(self, game_name: str, seats: int, player_name: str, opts: dict[str, str]) -> QueueTicket:
        game = find_game(game_name)
        config = game.check_config(GameConfig(game=game_name, seats=seats, options=opts))
        queue = _queue_key(config)
        ticket_id = secrets.token_hex(8)
        self.store.save_ticket(
            ticket_id,
            {
                "name": _clean_name(player_name),
                "queue": queue,
                "config": config.SerializeToString().hex(),
                "matched": 0,
            },
        )
        matched, waiting = self.store.queue_join(queue, ticket_id, config.seats)
        if matched:
            self._seat_tickets(config, matched, "")
        return self._ticket(ticket_id, waiting)

    def wait_for_match(self, ticket_id: str, timeout: float) -> QueueTicket:
        ticket = self._ticket(ticket_id)
        if not ticket.matched:
            self.store.wait_ticket(ticket_id, max(0.0, min(timeout, 30.0)))
            ticket = self._ticket(ticket_id)
        return ticket

    def fill_with_bots(self, ticket_id: str, level: str) -> QueueTicket:
        fields = self.store.ticket(ticket_id)
        if not fields:
            raise TableNotFoundError(f"unknown ticket: {ticket_id}")
        config = GameConfig.FromString(bytes.fromhex(fields["config"]))
        taken = self.store.queue_take(fields["queue"], ticket_id, config.seats)
        if not taken:
            ticket = self._ticket(ticket_id)
            if ticket.matched:
                return ticket
            raise TableStateError("queue: this ticket is no longer waiting")
        self._seat_tickets(config, taken, check_level(level))
        return self._ticket(ticket_id)

    def _seat_tickets(self, config: GameConfig, tickets: list[str], bot_level: str) -> None:
        requests = [SeatRequest() for _ in tickets]
        requests += [SeatRequest(bot=True, bot_level=bot_level) for _ in range(config.seats - len(tickets))]
        table, _, _ = self.create_table(config, requests, listed=False)
        for ticket_id in tickets:
            name = self.store.ticket(ticket_id).get("name", "player")
            _, seat, token = self.join_table(table.table_id, name)
            self.store.save_ticket(ticket_id, {"matched": 1, "table_id": table.table_id, "seat": seat, "token": token})
            self.store.notify_ticket(ticket_id)

    def _ticket(self, ticket_id: str, waiting: int | None = None) -> QueueTicket:
        fields = self.store.ticket(ticket_id)
        if not fields:
            raise TableNotFoundError(f"unknown ticket: {ticket_id}")
        matched = fields.get("matched") == "1"
        if waiting is None:
            waiting = 0 if matched else self.store.queue_length(fields["queue"])
        return QueueTicket(
            ticket_id=ticket_id,
            matched=matched,
            table_id=fields.get("table_id", ""),
            seat=int(fields.get("seat", -1)),
            seat_token=fields.get("token", ""),
            waiting=waiting,
        )

    # ----- helpers --------------------------------------------------------------------------------------------

    def _record(self, table_id: str) -> TableRecord:
        record = self.store.table_record(table_id)
        if record is None:
            raise TableNotFoundError(f"unknown table: no table {table_id!r}")
        return record

    def _live(self, table_id: str) -> Live:
        live = self.store.live(table_id)
        if live is None:
            raise TableNotFoundError(f"unknown table: no table {table_id!r}")
        return live


def _bytes(state: Message) -> bytes:
    return state.SerializeToString(deterministic=True)


def _seat(seat: int, occupant: str | None) -> Seat:
    if occupant is None:
        return Seat(seat=seat, kind=SeatKind.SEAT_KIND_OPEN)
    kind, _, rest = occupant.partition(":")
    if kind == "bot":
        return Seat(seat=seat, kind=SeatKind.SEAT_KIND_BOT, name=f"bot ({rest})", bot_level=rest)
    return Seat(seat=seat, kind=SeatKind.SEAT_KIND_HUMAN, name=rest)


def _bot_levels(record: TableRecord) -> dict[int, str]:
    """The bot seats of a table and their levels (bots are seated when the table is made, never later)."""
    return {s.seat: s.bot_level for s in record.seats if s.kind == SeatKind.SEAT_KIND_BOT}


def _clean_name(name: str) -> str:
    cleaned = "".join(ch for ch in name if ch.isprintable()).strip()[:40]
    return cleaned or "player"


def _queue_key(config: GameConfig) -> str:
    options = ",".join(f"{k}={v}" for k, v in sorted(config.options.items()))
    digest = hashlib.sha256(options.encode()).hexdigest()[:12]
    return f"mf:queue:{config.game}:{config.seats}:{digest}"
