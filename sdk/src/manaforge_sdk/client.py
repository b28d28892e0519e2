"""The client of one gateway: tables, matchmaking, players, watching and playing. Every call that may be made twice
without harm (reads, waiting for a match, a move with its client action id) is made again while the gateway is away
(restarting, draining, unreachable), for up to `patience` seconds; a refused call raises a ManaforgeError that says
what was refused and why."""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc
from google.protobuf.message import Message
from manaforge.v1 import gateway_pb2 as gw
from manaforge.v1.common_pb2 import GameConfig
from manaforge.v1.gateway_pb2_grpc import GatewayStub
from manaforge.v1.rules_pb2 import GameInfo, ListGamesRequest

from manaforge_sdk.credentials import Credentials, credentials_path
from manaforge_sdk.errors import CredentialsRefused, GatewayLost, ManaforgeError, refused
from manaforge_sdk.messages import pack
from manaforge_sdk.runner import Accept, Bot, Result
from manaforge_sdk.runner import play as play_seat
from manaforge_sdk.runner import serve as serve_account

T = TypeVar("T")

DEFAULT_PORT = 50051  # where `make run` serves the gateway
PATIENCE = 60.0  # seconds without a gateway before a call gives up
BACKOFF = (0.1, 0.25, 0.5, 1.0, 2.0)  # the pauses between tries, the last one repeated
# A restarted gateway is found again within a second or two (gRPC's own default backs off up to 120 s).
CHANNEL_OPTIONS = [("grpc.initial_reconnect_backoff_ms", 250), ("grpc.max_reconnect_backoff_ms", 2000)]


def default_address(environ: Mapping[str, str] = os.environ) -> str:
    """MANAFORGE_GATEWAY (HOST:PORT), else 127.0.0.1 on MANAFORGE_GATEWAY_PORT (50051): as the terminal client."""
    return environ.get("MANAFORGE_GATEWAY") or f"127.0.0.1:{environ.get('MANAFORGE_GATEWAY_PORT') or DEFAULT_PORT}"


@dataclass(frozen=True)
class Seat:
    """A seat taken at a table: its token authorizes the seat's moves (keep it to come back)."""

    table_id: str
    seat: int
    token: str


class _Credentials(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor):  # type: ignore[type-arg]
    """Adds a registered player's id and key to every call's metadata."""

    def __init__(self, credentials: Credentials) -> None:
        self.metadata = (("x-player-id", credentials.player_id), ("x-player-key", credentials.key))

    def _with(self, details: Any) -> Any:
        return details._replace(metadata=tuple(details.metadata or ()) + self.metadata)

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._with(details), request)

    def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._with(details), request)


class EventStream(Iterator[gw.PlayerEvent]):
    """A player's events (`Client.events`): iterate it; `cancel()`, from any thread, ends the iteration."""

    def __init__(self, open_stream: Callable[[str], tuple[Any, str]], after: str) -> None:
        self._open = open_stream  # a live Events stream, after a cursor, and its cursor (waits for the gateway)
        self._lock = threading.Lock()
        self._cancelled = False
        self._stream, self._after = open_stream(after)
        self._events = self._follow()

    def __next__(self) -> gw.PlayerEvent:
        return next(self._events)

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            self._stream.cancel()

    def _follow(self) -> Iterator[gw.PlayerEvent]:
        while True:
            try:
                for event in self._stream:
                    self._after = event.cursor or self._after
                    if event.WhichOneof("kind"):
                        yield event
                return
            except grpc.RpcError as error:
                if self._cancelled:
                    return
                if error.code() != grpc.StatusCode.UNAVAILABLE:
                    raise refused(error, "following your events") from None
            finally:
                self._stream.cancel()
            stream, self._after = self._open(self._after)  # the retry waits for the gateway, up to its patience
            with self._lock:
                self._stream = stream
                if self._cancelled:
                    stream.cancel()
                    return


def connect(
    address: str | None = None,
    player: Credentials | None = None,
    *,
    patience: float = PATIENCE,
    interceptors: Sequence[grpc.UnaryUnaryClientInterceptor | grpc.UnaryStreamClientInterceptor] = (),  # type: ignore[type-arg]
    tls: bool = False,
    ca: str | None = None,
) -> Client:
    """A client of the gateway at `address` (default: `default_address()`), as `player` when given (else a guest
    until `register`). `interceptors`: your own gRPC client interceptors (logging, tracing), outermost first.
    `tls=True`: TLS, trusting the system's CAs; `ca`: TLS, trusting this CA's PEM file (Client takes a client
    certificate too)."""
    return Client(address or default_address(), player, patience=patience, interceptors=interceptors, tls=tls, ca=ca)


class Client:
    """See `connect`. Use it in a `with` block, or `close()` it."""

    def __init__(
        self,
        address: str,
        player: Credentials | None = None,
        *,
        patience: float = PATIENCE,
        interceptors: Sequence[Any] = (),
        tls: bool = False,
        ca: str | None = None,
        client_cert: str | None = None,
        client_key: str | None = None,
    ) -> None:
        """TLS: `tls=True` trusts the system's CAs, `ca` a CA's PEM file of yours (implies TLS); `client_cert` and
        `client_key` (PEM files) answer a gateway that asks for a client certificate (mutual TLS)."""
        self.address = address
        self.patience = patience
        self.credentials: Credentials | None = None
        self._interceptors = tuple(interceptors)
        if tls or ca:

            def read(path: str | None) -> bytes | None:
                if not path:
                    return None  # ca: gRPC's bundled CAs (the system's, as far as it knows them)
                with open(path, "rb") as file:
                    return file.read()

            secure = grpc.ssl_channel_credentials(read(ca), read(client_key), read(client_cert))
            self._channel = grpc.secure_channel(address, secure, options=CHANNEL_OPTIONS)
        else:
            self._channel = grpc.insecure_channel(address, options=CHANNEL_OPTIONS)
        self.stub: GatewayStub  # the gateway's calls, with the player's credentials once there are any
        self._use(player)

    def _use(self, player: Credentials | None) -> None:
        self.credentials = player
        chain = (*self._interceptors, *([_Credentials(player)] if player else []))
        self.stub = GatewayStub(grpc.intercept_channel(self._channel, *chain) if chain else self._channel)

    def close(self) -> None:
        self._channel.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- players ---------------------------------------------------------------------------------------------------

    def register(self, name: str) -> Credentials:
        """Play as the registered player `name` from now on: its credentials are loaded when this machine registered
        it on this gateway before ($MANAFORGE_HOME/sdk/<address>/<name>.json), else it is registered now and they
        are saved there. Registered players' finished, validated games are rated."""
        path = credentials_path(self.address, name)
        saved = Credentials.load(path)
        if saved is not None:
            self._use(saved)
            try:
                self.me()
            except CredentialsRefused as error:
                self._use(None)
                raise CredentialsRefused(
                    f"the credentials saved for {name} in {path} are not known to the gateway at {self.address}"
                    " (another platform?): remove the file to register again",
                    error.code,
                    error.details,
                ) from error
            return saved
        request = gw.RegisterPlayerRequest(name=name)
        player = self._once(lambda: self.stub.RegisterPlayer(request), f"registering {name}")
        credentials = Credentials(player.player_id, player.secret_key, player.name)
        credentials.save(path)
        self._use(credentials)
        return credentials

    def upgrade_to_bot(self) -> gw.Player:
        """Make the registered player a bot account, for good (only before any rated game): shown as a bot at
        every table, rated on the bots' leaderboards, let into queues that allow bots only, limited in games at
        once. Challenges it takes: `manaforge_sdk.runner.serve`."""
        return self._once(lambda: self.stub.UpgradeToBot(gw.UpgradeToBotRequest()), "upgrading to a bot account")

    def leaderboard(self, game: str, seats: int, *, bots: bool = False, limit: int = 20) -> list[gw.LeaderboardEntry]:
        """The best players (or bot accounts, `bots`) of a game and seat count, best first."""
        request = gw.GetLeaderboardRequest(game=game, seats=seats, limit=limit, bots=bots)
        return list(self._retry(lambda: self.stub.GetLeaderboard(request), f"the leaderboard of {game}").entries)

    # -- challenges and events --------------------------------------------------------------------------------------

    def challenge(
        self,
        player_id: str = "",
        game: str = "",
        seats: int = 2,
        *,
        name: str = "",
        bots: Mapping[int, str] | None = None,
        options: Mapping[str, str] | None = None,
        clock: float | None = None,
    ) -> gw.Challenge:
        """Challenge the registered player `player_id`, or the one called `name` (any case, as the terminal's
        `challenge NAME`), to `game`: you take seat 0, they seat 1; `bots`: seat (2 on) -> bot level, the other seats
        open for whoever you invite (JoinTable with the table id). `clock`: seconds per decision. The answer comes as
        an event (`events()`): accepted (then the game starts) or declined (`decline_reason` names why)."""
        if not game or bool(player_id) == bool(name):
            raise ValueError("challenge(player_id or name=..., game=...): a game, and one player by id or by name")
        bots = dict(bots or {})
        request = gw.CreateChallengeRequest(
            player_id=player_id,
            player_name=name,
            config=GameConfig(game=game, seats=seats, options=dict(options or {})),
            others=[gw.SeatRequest(bot=i in bots, bot_level=bots.get(i, "")) for i in range(2, seats)],
        )
        if clock is not None:
            request.time_control.CopyFrom(gw.TimeControl(decision_seconds=clock))
        return self._once(lambda: self.stub.CreateChallenge(request), f"challenging {player_id}")

    def accept(self, challenge_id: str) -> gw.Challenge:
        """Accept a challenge made to you: the table is made (its id in the answer); `events()` brings the seat."""
        request = gw.AcceptChallengeRequest(challenge_id=challenge_id)
        return self._once(lambda: self.stub.AcceptChallenge(request), f"accepting challenge {challenge_id}")

    def decline(self, challenge_id: str, reason: str = "generic", text: str = "") -> gw.Challenge:
        """Decline a challenge made to you. `reason`: generic, later, game, time_control, no_bots, or busy (bot
        accounts only); `text`: your words to the challenger (up to 200 characters)."""
        request = gw.DeclineChallengeRequest(
            challenge_id=challenge_id, reason=gw.DeclineReason.Value(f"DECLINE_REASON_{reason.upper()}"), text=text
        )
        return self._once(lambda: self.stub.DeclineChallenge(request), f"declining challenge {challenge_id}")

    def refuse_challenges(self, *, everyone: bool = False, games: Sequence[str] = ()) -> gw.ChallengePreferences:
        """Refuse challenges from now on: all of them (`everyone`), or those for `games`; a challenger is told so.
        Each call replaces what the last one set: `refuse_challenges()` takes every challenge again."""
        accept_from = gw.CHALLENGES_FROM_NOBODY if everyone else gw.CHALLENGES_FROM_EVERYONE
        request = gw.ChallengePreferences(accept_from=accept_from, refused_games=list(games))
        return self._once(lambda: self.stub.SetChallengePreferences(request), "setting challenge preferences")

    def events(self, after: str = "") -> EventStream:
        """The registered player's events, for as long as you read: challenges received, accepted and declined,
        games started (with a seat token), your turn, games ended, across all your tables. The stream is open when
        this returns: nothing that happens after is missed. A stream the gateway drops is opened again after the
        last challenge event received; games under way are announced again then (so a game start may come twice:
        key on its table id). Its `cancel()` ends it, from any thread."""
        return EventStream(self._events, after)

    def _events(self, after: str) -> tuple[Any, str]:
        """An Events stream, once it is live (its first message, a bare cursor, has come)."""

        def opened() -> tuple[Any, str]:
            stream: Any = self.stub.Events(gw.EventsRequest(after=after))
            try:
                return stream, next(stream).cursor
            except BaseException:
                stream.cancel()
                raise

        return self._retry(opened, "following your events")

    def me(self) -> gw.Player:
        """The registered player this client plays as, with their ratings (per game and seat count)."""
        return self._retry(lambda: self.stub.GetPlayer(gw.GetPlayerRequest()), "asking for the player")

    # -- games and tables -------------------------------------------------------------------------------------------

    def games(self) -> list[GameInfo]:
        """The games of the platform: names, seat counts, variant options, how to play."""
        return list(self._retry(lambda: self.stub.ListGames(ListGamesRequest()), "listing the games").games)

    def create_table(
        self,
        game: str,
        seats: int = 0,
        bots: Mapping[int, str] | None = None,
        *,
        options: Mapping[str, str] | None = None,
        name: str = "",
        clock: float | None = None,
    ) -> Seat:
        """A new table of `game` with `seats` seats (0: the game's fewest) and you at the first seat no bot takes.
        `bots`: seat -> bot level ("random", "heuristic", "ismcts"); the other seats are open for people (the game
        starts when every seat is taken). `name`: a guest's name (a registered player plays as themself).
        `clock`: seconds per decision (0: none; None: the platform's default)."""
        seats = seats or self._game(game).min_seats
        bots = dict(bots or {})
        request = gw.CreateTableRequest(
            config=GameConfig(game=game, seats=seats, options=dict(options or {})),
            seats=[gw.SeatRequest(bot=i in bots, bot_level=bots.get(i, "")) for i in range(seats)],
            player_name=self._name(name),
        )
        if clock is not None:
            request.time_control.CopyFrom(gw.TimeControl(decision_seconds=clock))
        created = self._once(lambda: self.stub.CreateTable(request), f"creating a table of {game}")
        return Seat(created.table.table_id, created.seat, created.seat_token)

    def join(self, table_id: str, name: str = "", seat: int | None = None) -> Seat:
        """Take a seat at a table with open seats (the first open one unless `seat`)."""
        request = gw.JoinTableRequest(table_id=table_id, player_name=self._name(name))
        if seat is not None:
            request.seat = seat
        joined = self._once(lambda: self.stub.JoinTable(request), f"joining table {table_id}")
        return Seat(table_id, joined.seat, joined.seat_token)

    def rejoin(self, table_id: str) -> Seat:
        """A fresh token for the registered player's own seat at the table (from any machine)."""
        request = gw.RejoinTableRequest(table_id=table_id)
        joined = self._retry(lambda: self.stub.RejoinTable(request), f"rejoining table {table_id}")
        return Seat(table_id, joined.seat, joined.seat_token)

    def queue(
        self,
        game: str,
        seats: int,
        *,
        fill_after: float | None = 30.0,
        bot_level: str = "",
        options: Mapping[str, str] | None = None,
        name: str = "",
        allow_bots: bool = False,
    ) -> Seat:
        """Matchmaking: wait for players of `game` at a table of `seats`; after `fill_after` seconds (None: never)
        bots of `bot_level` ("": the level rated closest to you) take the seats still empty. Returns your seat.
        `allow_bots`: the queue open to bot accounts (a bot account must set it)."""
        join = gw.JoinQueueRequest(
            game=game, seats=seats, player_name=self._name(name), options=dict(options or {}), allow_bots=allow_bots
        )
        ticket = self._once(lambda: self.stub.JoinQueue(join), f"joining the queue of {game}")
        wait = gw.WaitForMatchRequest(ticket_id=ticket.ticket_id, timeout_seconds=5)
        fill = gw.FillWithBotsRequest(ticket_id=ticket.ticket_id, bot_level=bot_level)
        deadline = None if fill_after is None else time.monotonic() + fill_after
        while not ticket.matched:
            if deadline is not None and time.monotonic() >= deadline:
                ticket = self._retry(lambda: self.stub.FillWithBots(fill), "filling the table with bots")
            else:
                ticket = self._retry(lambda: self.stub.WaitForMatch(wait), "waiting for a match")
        if not ticket.seat_token and self.credentials is not None:  # the answer with the token was lost
            return self.rejoin(ticket.table_id)
        return Seat(ticket.table_id, ticket.seat, ticket.seat_token)

    def table(self, table_id: str) -> gw.Table:
        """The table: its seats, version, whose decision it is, the outcome and replay verdict once finished."""
        return self._retry(lambda: self.stub.GetTable(gw.GetTableRequest(table_id=table_id)), f"table {table_id}")

    def view(self, table_id: str, seat_token: str = "") -> gw.SeatView:
        """The seat's view (the public view without a token), with its legal actions. A call with the seat's token
        brings a seat marked away back."""
        request = gw.GetViewRequest(table_id=table_id, seat_token=seat_token)
        return self._retry(lambda: self.stub.GetView(request), f"the view of table {table_id}")

    def log(self, table_id: str) -> gw.GameLog:
        """The game's actions in order (with the seed once finished) and its public events."""
        return self._retry(lambda: self.stub.GetLog(gw.GetLogRequest(table_id=table_id)), f"the log of {table_id}")

    def wait_verdict(self, table_id: str, timeout: float = 120.0) -> gw.Table:
        """The finished table once the platform has validated its replay (a registered player's game is rated
        then)."""
        deadline = time.monotonic() + timeout
        while not (table := self.table(table_id)).replay_verdict:
            if time.monotonic() > deadline:
                raise TimeoutError(f"table {table_id} has no replay verdict after {timeout:g} s")
            time.sleep(0.1)
        return table

    # -- moves and updates ------------------------------------------------------------------------------------------

    def submit(
        self,
        table_id: str,
        seat_token: str,
        action: Message,
        *,
        client_action_id: str = "",
        expected_version: int | None = None,
    ) -> gw.SubmitActionResponse:
        """Make a move. It is sent again while the gateway is away, with the same `client_action_id` (made up when
        empty), so it lands once; with `expected_version`, it is refused (ABORTED) unless the game is still there."""
        request = gw.SubmitActionRequest(
            table_id=table_id,
            seat_token=seat_token,
            action=pack(action),
            client_action_id=client_action_id or uuid.uuid4().hex,
        )
        if expected_version is not None:
            request.expected_version = expected_version
        return self._retry(lambda: self.stub.SubmitAction(request), f"a move at table {table_id}")

    def watch(self, table_id: str, seat_token: str = "", *, with_text: bool = True) -> Iterator[gw.WatchUpdate]:
        """The table's updates (the seat's, or without a token the public ones) until the game is over: one for
        every move, also a move that adds no event (a pass in a response window), since it may hand the decision to
        the seat. A stream the gateway drops is opened again after the last update received (`after_seq`): nothing
        is missed or repeated."""
        last = 0  # the event log position of the last update yielded
        shown = -1  # the table version of the last update yielded
        away_since: float | None = None
        tries = 0
        while True:
            request = gw.WatchRequest(
                table_id=table_id, seat_token=seat_token, after_seq=last, without_text=not with_text
            )
            stream = self.stub.Watch(request)
            try:
                for update in stream:
                    away_since, tries = None, 0
                    if update.seq <= last and update.view.version <= shown and not update.events:
                        continue  # a resumed stream opens with the table as it is: no move since the last update
                    last, shown = update.seq, update.view.version
                    yield update
                return
            except grpc.RpcError as error:
                if error.code() != grpc.StatusCode.UNAVAILABLE:
                    raise refused(error, f"watching table {table_id}") from None
                away_since = away_since or time.monotonic()
                self._pause(away_since, tries, error)
                tries += 1
            finally:
                stream.cancel()  # type: ignore[no-untyped-call]

    def serve(
        self, bot: Bot, *, max_games: int = 4, accept: Accept | None = None, games: int | None = None
    ) -> list[Result]:
        """Run this bot account: take the challenges `accept` takes (all without it) and play them with `bot`; see
        `manaforge_sdk.runner.serve`."""
        return serve_account(self, bot, max_games=max_games, accept=accept, games=games)

    def play(self, table_id: str, seat_token: str, bot: Bot) -> Result:
        """Play the seat with `bot` to the end of the game and return its Result: see `manaforge_sdk.runner.play`."""
        return play_seat(self, table_id, seat_token, bot)

    # -- calls -----------------------------------------------------------------------------------------------------

    def _retry(self, make: Callable[[], T], what: str) -> T:
        """`make()`, made again while the gateway is away (for calls that may be made twice without harm)."""
        away_since: float | None = None
        tries = 0
        while True:
            try:
                return make()
            except grpc.RpcError as error:
                if error.code() != grpc.StatusCode.UNAVAILABLE:
                    raise refused(error, what) from None
                away_since = away_since or time.monotonic()
                self._pause(away_since, tries, error)
                tries += 1

    def _once(self, make: Callable[[], T], what: str) -> T:
        """`make()` made once (a call that would do its work twice if made again: a table, a seat, a player)."""
        try:
            return make()
        except grpc.RpcError as error:
            if error.code() == grpc.StatusCode.UNAVAILABLE:
                raise GatewayLost(
                    f"{what}: no gateway answered at {self.address} ({error.details()}). Is it running (`make run`)?",
                    error.code(),
                    error.details() or "",
                ) from None
            raise refused(error, what) from None

    def _pause(self, away_since: float, tries: int, error: grpc.RpcError) -> None:
        left = away_since + self.patience - time.monotonic()
        if left <= 0:
            raise GatewayLost(
                f"the gateway at {self.address} has not answered for {self.patience:g} s ({error.details()})",
                error.code(),
                error.details() or "",
            )
        if tries:  # none before the first try again: a restarted gateway may answer at once
            time.sleep(min(BACKOFF[min(tries - 1, len(BACKOFF) - 1)], left))

    def _name(self, name: str) -> str:
        return name or (self.credentials.name if self.credentials else "player")

    def _game(self, game: str) -> GameInfo:
        found = next((info for info in self.games() if info.name == game), None)
        if found is None:
            raise ManaforgeError(f"no game named {game!r} on {self.address}: games() lists them")
        return found
