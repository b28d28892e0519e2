"""The gRPC front door (grpc.aio): a thin servicer over the table service, with health checking and reflection.

One event loop serves every call and stream of the process: no thread per call. Watch updates arrive already
encoded (one encoding per commit and seat, shared by every watcher of that seat), so every response serializer
here passes bytes through.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Iterator
from typing import Any, TypeVar

import grpc
from grpc_health.v1 import health_pb2
from grpc_health.v1._async import HealthServicer as AioHealthServicer
from manaforge.v1 import gateway_pb2, rules_pb2
from manaforge.v1.gateway_pb2 import (
    ActionResult,
    CreateTableResponse,
    JoinTableResponse,
    ListTablesResponse,
    PlayRequest,
    PlayUpdate,
    SubmitActionResponse,
)

from engine_core import find_game
from engine_core.errors import MalformedActionError
from gateway import admin
from gateway.limits import (
    MAX_ID,
    MAX_MESSAGE,
    MAX_TOKEN,
    Buckets,
    LimitError,
    Limits,
    RateLimitedError,
    Streams,
    check_range,
    check_request,
    check_text,
)
from gateway.metrics import ACTIONS, SUBMIT_SECONDS, WATCHERS
from gateway.wire import add_service, as_field
from services import observability
from services.edge import (
    aio_health_and_reflection,
    aio_streaming,
    aio_unary,
    catalogue,
    message_of,
    register,
    status_of,
)
from services.tables.errors import (
    DrainingError,
    NotYoursError,
    OutOfRangeError,
    QuotaError,
    SeatTokenError,
    StaleVersionError,
    TableNotFoundError,
    TableStateError,
)
from services.tables.lookup import Lru
from services.tables.matchmaking import MAX_WAIT, Matchmaker
from services.tables.operations import Moderation
from services.tables.players import key_digest
from services.tables.service import Tables

SERVICE = gateway_pb2.DESCRIPTOR.services_by_name["Gateway"]
T = TypeVar("T")
# The table service's refusals and the limits', beside the engine's and the storage's the edge knows.
for error, code in [
    (TableStateError, grpc.StatusCode.FAILED_PRECONDITION),
    (StaleVersionError, grpc.StatusCode.ABORTED),
    (SeatTokenError, grpc.StatusCode.UNAUTHENTICATED),
    (OutOfRangeError, grpc.StatusCode.OUT_OF_RANGE),
    (DrainingError, grpc.StatusCode.UNAVAILABLE),
    (TableNotFoundError, grpc.StatusCode.NOT_FOUND),
    (LimitError, grpc.StatusCode.INVALID_ARGUMENT),
    (RateLimitedError, grpc.StatusCode.RESOURCE_EXHAUSTED),
    (NotYoursError, grpc.StatusCode.PERMISSION_DENIED),
    (QuotaError, grpc.StatusCode.RESOURCE_EXHAUSTED),
]:
    register(error, code)
# Requests are at most MAX_MESSAGE bytes (gRPC refuses larger ones before reading them).
# Calls arriving faster than the event loop takes them wait in gRPC's queue, which cancels what does not fit (its
# default of 1,000 cancelled about one in twelve of 2,000 streams opened at once): room for a reconnecting crowd.
SERVER_OPTIONS = [
    ("grpc.max_receive_message_length", MAX_MESSAGE),
    ("grpc.server.max_pending_requests", 10_000),
    ("grpc.server.max_pending_requests_hard_limit", 20_000),
]
HEALTH_EVERY = 1.0  # seconds between the health check's pings of Redis
HEALTH_PING = 2.0
DRAIN_GRACE = 10.0  # seconds calls in flight may take to finish when a gateway stops
OUTBOX_LIMIT = 64  # messages waiting to go out on one Play stream; beyond that its updates wait in the hub
EVENT_STREAMS = 3  # Events streams one player may hold open on one gateway
log = logging.getLogger(__name__)


class GatewayServicer:
    SERVICE_NAME = "gateway"  # in logs and metrics

    def __init__(self, tables: Tables, limits: Limits | None = None) -> None:
        self.tables = tables
        self.matchmaker = Matchmaker(tables)
        self.limits = limits or Limits()
        self.buckets = Buckets()
        self.streams = Streams()
        self.verified: Lru[str, str] = Lru(100_000)  # player id -> key digest this process has checked
        self.bot_accounts: Lru[str, bool] = Lru(100_000)  # players known to be bot accounts (that is for good)
        self.event_streams = Streams()  # Events streams per player

    async def _player(self, context: Any, required: bool = False) -> str:
        """The calling player's id from the call's metadata (x-player-id, x-player-key); "" for a guest."""
        metadata = dict(context.invocation_metadata() or ())
        player_id, key = str(metadata.get("x-player-id", "")), str(metadata.get("x-player-key", ""))
        if not player_id:
            if required:
                raise SeatTokenError("player: send x-player-id and x-player-key (RegisterPlayer gives them)")
            return ""
        check_text("x-player-id", player_id, MAX_ID)
        check_text("x-player-key", key, MAX_TOKEN)
        digest = key_digest(key)
        if self.verified.get(player_id) != digest:
            try:
                await self.tables.players.authenticate(player_id, key)
            except SeatTokenError:
                self._rate("failed token checks", context, self.limits.token_failures_per_minute)
                raise
            self.verified.put(player_id, digest)
        if await self._is_bot(player_id):  # a bot account's calls are limited beside its address's
            self.buckets.take("calls of this bot account", f"bot:{player_id}", self.limits.bot_calls_per_minute)
        return player_id

    async def _is_bot(self, player_id: str) -> bool:
        if self.bot_accounts.get(player_id):
            return True
        if await self.tables.players.is_bot(player_id):
            self.bot_accounts.put(player_id, True)
            return True
        return False

    @aio_unary
    async def RegisterPlayer(self, request: gateway_pb2.RegisterPlayerRequest, context: Any) -> gateway_pb2.Player:
        self._rate("registrations", context, self.limits.tables_per_minute)
        return await self.tables.players.register(request.name)

    @aio_unary
    async def GetPlayer(self, request: gateway_pb2.GetPlayerRequest, context: Any) -> gateway_pb2.Player:
        player_id = request.player_id or await self._player(context, required=True)
        return await self.tables.players.player(player_id)

    @aio_unary
    async def RejoinTable(self, request: gateway_pb2.RejoinTableRequest, context: Any) -> JoinTableResponse:
        player_id = await self._player(context, required=True)
        table, seat, token = await self.tables.rejoin(request.table_id, player_id)
        return JoinTableResponse(table=table, seat=seat, seat_token=token)

    @aio_unary
    async def GetLeaderboard(self, request: gateway_pb2.GetLeaderboardRequest, context: Any) -> gateway_pb2.Leaderboard:
        find_game(request.game)
        check_range("seats", request.seats, 1, 64)
        check_range("limit", request.limit, 0, 100)
        entries = await self.tables.players.leaderboard(request.game, request.seats, request.limit or 20, request.bots)
        return gateway_pb2.Leaderboard(entries=entries)

    def _rate(self, kind: str, context: Any, per_minute: float) -> None:
        self.buckets.take(kind, self._address(context), per_minute)

    def _address(self, context: Any) -> str:
        return self.limits.client_address(context.peer(), context.invocation_metadata())

    async def _token_checked(self, context: Any, call: Awaitable[T]) -> T:
        """A call that checks a seat token: repeated failures from one address are refused for a while."""
        try:
            return await call
        except SeatTokenError:
            self._rate("failed token checks", context, self.limits.token_failures_per_minute)
            raise

    @contextlib.contextmanager
    def _stream(self, context: Any) -> Iterator[None]:
        address = self._address(context)
        self.streams.enter(address, self.limits.streams)
        WATCHERS.inc()
        try:
            yield
        finally:
            WATCHERS.dec()
            self.streams.leave(address)

    @aio_unary
    async def ListGames(self, request: rules_pb2.ListGamesRequest, context: Any) -> rules_pb2.ListGamesResponse:
        notice = await self.tables.operations.notice()  # the operator's maintenance notice (gateway/admin.py)
        return rules_pb2.ListGamesResponse(games=self.tables.list_games(), notice=notice)

    @aio_unary
    async def GetCatalogue(self, request: rules_pb2.GetCatalogueRequest, context: Any) -> bytes:
        return catalogue(request.config)  # encoded once per config (services/edge.py)

    @aio_unary
    async def CreateTable(self, request: gateway_pb2.CreateTableRequest, context: Any) -> CreateTableResponse:
        self._rate("tables created", context, self.limits.tables_per_minute)
        game = find_game(request.config.game)
        if len(request.seats) > game.info.max_seats:
            raise LimitError(f"seats: at most {game.info.max_seats} seat requests for {game.info.title}")
        clock = request.time_control if request.HasField("time_control") else None
        player_id = await self._player(context)
        table, seat, token = await self.tables.create_table(
            request.config, list(request.seats), request.player_name, player_id, time_control=clock
        )
        return CreateTableResponse(table=table, seat=seat, seat_token=token)

    @aio_unary
    async def ListTables(self, request: gateway_pb2.ListTablesRequest, context: Any) -> ListTablesResponse:
        check_range("page_size", request.page_size, 0, 100)
        player_id = await self._player(context, required=True) if request.mine else ""
        tables, token = await self.tables.list_tables(
            request.game, request.in_progress, request.page_size or 50, request.page_token, player_id
        )
        return ListTablesResponse(tables=tables, next_page_token=token)

    @aio_unary
    async def GetTable(self, request: gateway_pb2.GetTableRequest, context: Any) -> gateway_pb2.Table:
        return await self.tables.table(request.table_id)

    @aio_unary
    async def JoinTable(self, request: gateway_pb2.JoinTableRequest, context: Any) -> JoinTableResponse:
        seat = request.seat if request.HasField("seat") else None
        player_id = await self._player(context)
        table, seat, token = await self.tables.join_table(request.table_id, request.player_name, seat, player_id)
        return JoinTableResponse(table=table, seat=seat, seat_token=token)

    @aio_unary
    async def CheckName(self, request: gateway_pb2.CheckNameRequest, context: Any) -> gateway_pb2.NameCheck:
        self._rate("name checks", context, self.limits.tables_per_minute)
        refusal = await self.tables.players.guest_refusal(request.player_name.strip())
        return gateway_pb2.NameCheck(free=not refusal, reason=refusal)

    @aio_unary
    async def JoinQueue(self, request: gateway_pb2.JoinQueueRequest, context: Any) -> gateway_pb2.QueueTicket:
        self._rate("queue joins", context, self.limits.queue_joins_per_minute)
        player_id = await self._player(context)
        return await self.matchmaker.join_queue(
            request.game, request.seats, request.player_name, dict(request.options), player_id, request.allow_bots
        )

    @aio_unary
    async def WaitForMatch(self, request: gateway_pb2.WaitForMatchRequest, context: Any) -> gateway_pb2.QueueTicket:
        check_range("timeout_seconds", request.timeout_seconds, 0.0, MAX_WAIT)
        return await self.matchmaker.wait_for_match(request.ticket_id, request.timeout_seconds)

    @aio_unary
    async def FillWithBots(self, request: gateway_pb2.FillWithBotsRequest, context: Any) -> gateway_pb2.QueueTicket:
        return await self.matchmaker.fill_with_bots(request.ticket_id, request.bot_level)

    @aio_unary
    async def LeaveQueue(self, request: gateway_pb2.LeaveQueueRequest, context: Any) -> gateway_pb2.QueueTicket:
        return await self.matchmaker.leave_queue(request.ticket_id)

    @aio_unary
    async def SubmitAction(self, request: gateway_pb2.SubmitActionRequest, context: Any) -> SubmitActionResponse:
        return await self._token_checked(context, self._submit(request.table_id, request.seat_token, request))

    async def _submit(
        self, table_id: str, token: str, request: gateway_pb2.SubmitActionRequest
    ) -> SubmitActionResponse:
        expected = request.expected_version if request.HasField("expected_version") else None
        started = time.perf_counter()
        try:
            done = await self.tables.submit(table_id, token, request.action, request.client_action_id, expected)
        except Exception:
            ACTIONS.labels("refused").inc()
            raise
        SUBMIT_SECONDS.observe(time.perf_counter() - started)
        ACTIONS.labels("duplicate" if done.duplicate else "accepted").inc()
        return SubmitActionResponse(version=done.version, events=done.events, duplicate=done.duplicate)

    @aio_unary
    async def GetView(self, request: gateway_pb2.GetViewRequest, context: Any) -> gateway_pb2.SeatView:
        return await self._token_checked(context, self.tables.view(request.table_id, request.seat_token))

    @aio_streaming
    async def Watch(self, request: gateway_pb2.WatchRequest, context: Any) -> AsyncIterator[bytes]:
        flags = (not request.without_text, not request.without_legal_actions)
        with self._stream(context):
            updates = self.tables.watch(request.table_id, request.seat_token, request.after_seq, flags)
            async for update in await self._first(context, updates):
                yield update.encoded

    async def _first(self, context: Any, updates: AsyncGenerator[T, None]) -> AsyncIterator[T]:
        """`updates` once its first one (after the token check) is there: a failed token check counts."""
        first = await self._token_checked(context, anext(updates))

        async def rest() -> AsyncIterator[T]:
            yield first
            async for update in updates:
                yield update

        return rest()

    @aio_streaming
    async def Play(self, requests: AsyncIterator[PlayRequest], context: Any) -> AsyncIterator[bytes]:
        with self._stream(context):
            async for message in self._play(requests, context):
                yield message

    async def _play(self, requests: AsyncIterator[PlayRequest], context: Any) -> AsyncIterator[bytes]:
        opening = await anext(aiter(requests), None)
        if opening is None or opening.WhichOneof("kind") != "watch":
            raise MalformedActionError("play stream", "the first message must be `watch` (the table and seat token)")
        watch = opening.watch
        flags = (not watch.without_text, not watch.without_legal_actions)
        folding = watch.results_in_updates
        outbox: asyncio.Queue[tuple[str, Any]] = asyncio.Queue(OUTBOX_LIMIT)
        owed = 0  # actions not answered yet: the stream ends only once none is owed
        # results_in_updates: an applied action is answered by the update of its commit, whichever of the two (the
        # update, the action's result) reaches this loop first
        wanted: dict[str, int] = {}  # client action ids of this stream's actions in flight -> how many
        folded: dict[str, int] = {}  # client action id -> the version whose update answered it, result not yet here
        waiting: dict[int, ActionResult] = {}  # version -> an applied action's result, its update not yet here
        shown = 0  # the last table version an update of this stream showed

        async def pump() -> None:
            updates = self.tables.watch(watch.table_id, watch.seat_token, watch.after_seq, flags)
            try:
                async for update in await self._first(context, updates):
                    await outbox.put(("send", update))
                await outbox.put(("finished", None))
            except Exception as exc:
                await outbox.put(("error", exc))
            finally:
                await updates.aclose()

        async def act() -> None:
            nonlocal owed
            try:
                async for request in requests:
                    owed += 1  # until it is answered (below)
                    action_id = request.action.client_action_id
                    if folding and action_id:
                        wanted[action_id] = wanted.get(action_id, 0) + 1
                    result = await self._result(watch, request)
                    await outbox.put(("result", result))
                await outbox.put(("closed", None))
            except Exception as exc:
                await outbox.put(("error", exc))

        def answer(result: ActionResult) -> bytes | None:
            """`result` as a message of its own, or None when an update answered it (or will)."""
            nonlocal owed
            action_id, version = result.client_action_id, result.response.version
            if folding and action_id in wanted:
                wanted[action_id] -= 1
                if not wanted[action_id]:
                    del wanted[action_id]
            if folding and result.code == 0 and folded.get(action_id) == version:  # (a duplicate: of that commit)
                del folded[action_id]
                owed -= 1
                return None
            if folding and result.code == 0 and not result.response.duplicate and version > shown:
                waiting[version] = result  # its update is still to come
                return None
            owed -= 1
            return PlayUpdate(result=result).SerializeToString()

        def unanswered() -> Iterator[bytes]:
            """The results still waiting for an update that will not come: as messages of their own."""
            nonlocal owed
            for version in sorted(waiting):
                owed -= 1
                yield PlayUpdate(result=waiting.pop(version)).SerializeToString()

        tasks = [asyncio.ensure_future(pump()), asyncio.ensure_future(act())]
        finished = False
        try:
            while True:
                kind, item = await outbox.get()
                if kind == "send":
                    for version in [v for v in waiting if v < item.version]:  # passed over by a catch-up
                        owed -= 1
                        yield PlayUpdate(result=waiting.pop(version)).SerializeToString()
                    shown = max(shown, item.version)
                    result = waiting.pop(item.version, None)
                    if result is not None:
                        owed -= 1
                    elif item.answers and item.answers in wanted and item.answers not in folded:
                        folded[item.answers] = item.version  # its result is on the way: it is answered here
                        result = ActionResult(client_action_id=item.answers)
                        result.response.version = item.version
                    if result is None:
                        yield as_field(1, item.encoded)
                    else:
                        result.response.ClearField("events")  # they are the update's
                        yield as_field(1, item.encoded) + as_field(3, result.SerializeToString())
                elif kind == "result":
                    if (message := answer(item)) is not None:
                        yield message
                elif kind == "error":
                    raise item
                elif kind == "closed":
                    for message in unanswered():
                        yield message
                    return
                else:
                    finished = True
                    for message in unanswered():  # no update follows the last one
                        yield message
                if finished and owed == 0 and outbox.empty():
                    return
        finally:
            for task in tasks:
                task.cancel()

    async def _result(self, watch: gateway_pb2.WatchRequest, request: PlayRequest) -> ActionResult:
        """One action of a Play stream, answered in-band: the status SubmitAction would give, and its message."""
        if request.WhichOneof("kind") != "action":
            code, message = grpc.StatusCode.INVALID_ARGUMENT, "play stream: after the first message, only actions"
            return ActionResult(code=code.value[0], message=message)
        action = request.action
        try:
            check_request(action)
            response = await self._submit(watch.table_id, watch.seat_token, action)
        except Exception as exc:
            known = status_of(exc)
            code, message = (
                (known, message_of(exc)) if known is not None else (grpc.StatusCode.INTERNAL, "internal error")
            )
            if known is None:
                observability.failed("gateway", "Play", action)
            else:
                observability.refused("gateway", "Play", action, code.name, message)
            return ActionResult(client_action_id=action.client_action_id, code=code.value[0], message=message)
        return ActionResult(client_action_id=action.client_action_id, response=response)

    @aio_unary
    async def UpgradeToBot(self, request: gateway_pb2.UpgradeToBotRequest, context: Any) -> gateway_pb2.Player:
        player_id = await self._player(context, required=True)
        return await self.tables.upgrade_to_bot(player_id)

    @aio_unary
    async def CreateChallenge(self, request: gateway_pb2.CreateChallengeRequest, context: Any) -> gateway_pb2.Challenge:
        self._rate("challenges", context, self.limits.tables_per_minute)
        check_text("player_id", request.player_id, MAX_ID)
        player_id = await self._player(context, required=True)
        return await self.tables.create_challenge(player_id, request)

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

    @aio_streaming
    async def Events(self, request: gateway_pb2.EventsRequest, context: Any) -> AsyncIterator[bytes]:
        check_text("after", request.after, MAX_ID)
        player_id = await self._player(context, required=True)
        self.event_streams.enter(player_id, EVENT_STREAMS, "this player (Events)")
        try:
            with self._stream(context):
                async for event in self.tables.events(player_id, request.after):
                    yield event.SerializeToString()
        finally:
            self.event_streams.leave(player_id)

    @aio_unary
    async def GetLog(self, request: gateway_pb2.GetLogRequest, context: Any) -> gateway_pb2.GameLog:
        return await self.tables.log(request.table_id)


class Gateway:
    """A running gateway: its gRPC server, health and the table service under it."""

    def __init__(
        self, server: grpc.aio.Server, port: int, health: AioHealthServicer, tables: Tables, stopping: asyncio.Event
    ) -> None:
        self.stopping = stopping  # set when the operator drains this gateway (Admin.DrainGateway)
        self.heartbeat: asyncio.Task[None] | None = None
        self.server = server
        self.port = port
        self.health = health
        self.tables = tables
        self.draining = False
        self.serving = True
        self._watch = asyncio.get_running_loop().create_task(self._watch_redis())

    async def _watch_redis(self) -> None:
        """NOT_SERVING while Redis does not answer (a load balancer then sends players elsewhere)."""
        while not self.draining:
            try:
                await asyncio.wait_for(self.tables.store.redis.ping(), HEALTH_PING)
                serving = True
            except Exception:
                serving = False
            if serving != self.serving and not self.draining:
                self.serving = serving
                status = (
                    health_pb2.HealthCheckResponse.SERVING if serving else health_pb2.HealthCheckResponse.NOT_SERVING
                )
                for name in ("", SERVICE.full_name):
                    await self.health.set(name, status)
                log.warning(
                    "redis %s: health %s", "back" if serving else "unreachable", "SERVING" if serving else "NOT_SERVING"
                )
            await asyncio.sleep(HEALTH_EVERY)

    async def drain(self, grace: float = DRAIN_GRACE) -> None:
        """Stop gracefully: report NOT_SERVING, end every Watch and Play stream with UNAVAILABLE and the sequence
        number to resume from (on another gateway), refuse new calls, and let calls in flight (a submit) finish
        within `grace` seconds."""
        self.draining = True
        await self.health.enter_graceful_shutdown()
        self.tables.hub.drain()
        self._watch.cancel()
        if self.heartbeat:
            self.heartbeat.cancel()
        await self.server.stop(grace)
        await self.tables.close()


async def serve(
    tables: Tables, address: str, limits: Limits | None = None, operator_key: str = "", reuseport: bool = False
) -> Gateway:
    """Start the gateway on `address` ("127.0.0.1:0" picks a free port), with the operator's Admin service
    (gateway/admin.py) beside it. `reuseport`: other gateway processes may listen on the same address (SO_REUSEPORT;
    the kernel spreads new connections among them); otherwise an address in use is refused."""
    limits = limits or Limits()
    options = [("grpc.so_reuseport", int(reuseport)), *SERVER_OPTIONS]
    server = grpc.aio.server(options=options, interceptors=[admin.Moderating(Moderation(tables.store.redis))])
    servicer = GatewayServicer(tables, limits)
    add_service(server, servicer, SERVICE)
    stopping = asyncio.Event()
    console = admin.AdminServicer(
        tables, operator_key, lambda: asyncio.get_running_loop().call_later(0.2, stopping.set)
    )
    add_service(server, console, admin.SERVICE)
    health = await aio_health_and_reflection(server, SERVICE.full_name)
    port = server.add_insecure_port(address)
    if port == 0:
        raise OSError(f"cannot listen on {address}")
    console.address = f"{address.rsplit(':', 1)[0]}:{port}"
    await server.start()
    gateway = Gateway(server, port, health, tables, stopping)
    beat = admin.heartbeat(tables, console.address, servicer.streams, limits.streams, lambda: gateway.draining)
    gateway.heartbeat = asyncio.get_running_loop().create_task(beat)
    return gateway
