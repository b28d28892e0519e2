"""The Gateway service's live calls: a seat's moves and updates (SubmitAction, GetView, Watch, and Play, which
carries both on one stream) and a player's Events stream. Updates arrive already encoded (one encoding per commit and
seat, shared by every watcher of that seat) and go out as they are (gateway/wire.py)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Iterator
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

T = TypeVar("T")
# The actions counter's series, looked up once (a labels() lookup per move costs more than the count)
ACCEPTED, DUPLICATE, REFUSED = (ACTIONS.labels(result) for result in ("accepted", "duplicate", "refused"))
OUTBOX_LIMIT = 64  # messages waiting to go out on one Play stream; beyond that its updates wait in the hub
EVENT_STREAMS = 3  # Events streams one player may hold open on one gateway


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
        thousands of Watch streams (docs/live-path.md, "Connections")."""
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
                async for event in self.tables.events(player_id, request.after):
                    yield event.SerializeToString()
        finally:
            self.event_streams.leave(player_id)
