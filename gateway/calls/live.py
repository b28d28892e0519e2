"""The Gateway service's live calls: a seat's moves and updates (SubmitAction, GetView, Watch, and Play, which
carries both on one stream) and a player's Events stream. Updates arrive already encoded (one encoding per commit and
seat, shared by every watcher of that seat) and go out as they are (gateway/wire.py)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable
from typing import Any, TypeVar

import grpc
from manaforge.v1 import gateway_pb2
from manaforge.v1.gateway_pb2 import ActionResult, PlayRequest, PlayUpdate, SubmitActionResponse

from engine_core.errors import MalformedActionError
from gateway.calls.common import Calls
from gateway.limits import MAX_ID, check_text
from gateway.metrics import ACTIONS, SUBMIT_SECONDS
from gateway.wire import as_field
from services import observability
from services.edge import aio_streaming, aio_unary, aio_writing, message_of, status_of
from services.tables.errors import SeatTokenError
from services.tables.watching import Update

T = TypeVar("T")
# The actions counter's series, looked up once (a labels() lookup per move costs more than the count)
ACCEPTED, DUPLICATE, REFUSED = (ACTIONS.labels(result) for result in ("accepted", "duplicate", "refused"))
OUTBOX_LIMIT = 64  # messages waiting to go out on one Play stream; beyond that its updates wait in the hub
EVENT_STREAMS = 3  # Events streams one player may hold open on one gateway


class Answers:
    """A Play stream's answers to its actions, each given exactly once: as a message of its own, or with
    `results_in_updates` (`folding`) an applied action inside the update of its commit, whichever of the two (the
    update, the action's result) comes first. Refusals and duplicates, which make no update, come as results."""

    __slots__ = ("folded", "folding", "owed", "shown", "waiting", "wanted")

    def __init__(self, folding: bool, shown: int) -> None:
        self.folding = folding
        self.owed = 0  # actions not answered yet: a finished game's stream ends only once none is owed
        self.shown = shown  # the last table version an update of this stream showed
        self.wanted: dict[str, int] = {}  # client action ids of this stream's actions in flight -> how many
        self.folded: dict[str, int] = {}  # client action id -> the version whose update answered it, result to come
        self.waiting: dict[int, ActionResult] = {}  # version -> an applied action's result, its update to come

    def asked(self, request: PlayRequest) -> None:
        """An action came: owed until answered."""
        self.owed += 1
        action_id = request.action.client_action_id
        if self.folding and action_id:
            self.wanted[action_id] = self.wanted.get(action_id, 0) + 1

    def result(self, result: ActionResult) -> bytes | None:
        """`result` as a message of its own, or None when an update answered it (or will)."""
        if not self.folding:
            self.owed -= 1
            return PlayUpdate(result=result).SerializeToString()
        action_id, version = result.client_action_id, result.response.version
        if action_id in self.wanted:
            self.wanted[action_id] -= 1
            if not self.wanted[action_id]:
                del self.wanted[action_id]
        if result.code == 0 and self.folded.get(action_id) == version:  # (a duplicate: of that commit)
            del self.folded[action_id]
            self.owed -= 1
            return None
        if result.code == 0 and not result.response.duplicate and version > self.shown:
            self.waiting[version] = result  # its update is still to come
            return None
        self.owed -= 1
        return PlayUpdate(result=result).SerializeToString()

    def update(self, update: Update) -> bytes:
        """`update` as its message, with the answer to this stream's action it shows, if any."""
        self.shown = max(self.shown, update.version)
        result = self.waiting.pop(update.version, None) if self.waiting else None
        if result is not None:
            self.owed -= 1
        elif update.answers and update.answers in self.wanted and update.answers not in self.folded:
            self.folded[update.answers] = update.version  # its result is on the way: it is answered here
            result = ActionResult(client_action_id=update.answers)
            result.response.version = update.version
        if result is None:
            return as_field(1, update.encoded)
        result.response.ClearField("events")  # they are the update's
        return as_field(1, update.encoded) + as_field(3, result.SerializeToString())

    def passed_over(self, version: int) -> list[bytes]:
        """The results waiting for updates that one showing `version` (a catch-up) passed over."""
        return self._flush([v for v in self.waiting if v < version]) if self.waiting else []

    def unanswered(self) -> list[bytes]:
        """The results still waiting for an update that will not come."""
        return self._flush(list(self.waiting))

    def _flush(self, versions: list[int]) -> list[bytes]:
        self.owed -= len(versions)
        return [PlayUpdate(result=self.waiting.pop(v)).SerializeToString() for v in sorted(versions)]


class LiveCalls(Calls):
    async def _token_checked(self, context: Any, call: Awaitable[T]) -> T:
        """A call that checks a seat token: repeated failures from one address are refused for a while."""
        try:
            return await call
        except SeatTokenError:
            self._rate("failed token checks", context, self.limits.token_failures_per_minute)
            raise

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
            REFUSED.inc()
            raise
        SUBMIT_SECONDS.observe(time.perf_counter() - started)
        (DUPLICATE if done.duplicate else ACCEPTED).inc()
        return SubmitActionResponse(version=done.version, events=done.events, duplicate=done.duplicate)

    @aio_unary
    async def GetView(self, request: gateway_pb2.GetViewRequest, context: Any) -> gateway_pb2.SeatView:
        return await self._token_checked(context, self.tables.view(request.table_id, request.seat_token))

    @aio_writing
    async def Watch(self, request: gateway_pb2.WatchRequest, context: Any) -> None:
        """Written by this one coroutine, holding no more than it must while idle: a gateway holds tens of
        thousands of Watch streams (docs/live-path.md, "Spectators: what one Watch stream holds")."""
        flags = (not request.without_text, not request.without_legal_actions)
        address = self._open_stream(context)
        updates = self.tables.watch(request.table_id, request.seat_token, request.after_seq, flags)
        try:
            first = await self._token_checked(context, anext(updates))
            await context.write(first.encoded)
            del first  # a catch-up, this stream's own: not kept while the stream waits
            async for update in updates:
                await context.write(update.encoded)  # shared by every watcher of the seat
        finally:
            try:
                await updates.aclose()  # leaves the hub
            finally:
                self._close_stream(address)

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
        outbox: asyncio.Queue[tuple[str, Any]] = asyncio.Queue(OUTBOX_LIMIT)
        answers = Answers(watch.results_in_updates, 0)

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
            try:
                async for request in requests:
                    answers.asked(request)  # owed until answered (below)
                    result = await self._result(watch, request)
                    await outbox.put(("result", result))
                await outbox.put(("closed", None))
            except Exception as exc:
                await outbox.put(("error", exc))

        tasks = [asyncio.ensure_future(pump()), asyncio.ensure_future(act())]
        finished = False
        try:
            while True:
                kind, item = await outbox.get()
                if kind == "send":
                    for message in answers.passed_over(item.version):
                        yield message
                    yield answers.update(item)
                elif kind == "result":
                    if (answer := answers.result(item)) is not None:
                        yield answer
                elif kind == "error":
                    raise item
                elif kind == "closed":
                    for message in answers.unanswered():
                        yield message
                    return
                else:
                    finished = True
                    for message in answers.unanswered():  # no update follows the last one
                        yield message
                if finished and not answers.owed and outbox.empty():
                    return
        finally:
            for task in tasks:
                task.cancel()

    async def _result(self, watch: gateway_pb2.WatchRequest, request: PlayRequest) -> ActionResult:
        """One action of a Play stream, answered in-band: the status SubmitAction would give, and its message."""
        if request.WhichOneof("kind") != "action":
            code, message = grpc.StatusCode.INVALID_ARGUMENT, "play stream: after the first message, only actions"
            return ActionResult(code=code.value[0], message=message)
        action = request.action  # its sizes were checked with the whole request (gateway/wire.py)
        try:
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

    @aio_streaming
    async def Events(self, request: gateway_pb2.EventsRequest, context: Any) -> AsyncIterator[bytes]:
        check_text("after", request.after, MAX_ID)
        player_id = await self._player(context, required=True)
        self.event_streams.enter(player_id, EVENT_STREAMS, "this player (Events)")
        try:
            with self._stream(context):
                key = str(dict(context.invocation_metadata() or ()).get("x-player-key", ""))  # checked by _player
                async for event in self.tables.events(player_id, request.after, key):
                    yield event.SerializeToString()
        finally:
            self.event_streams.leave(player_id)
