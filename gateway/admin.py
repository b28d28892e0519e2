"""The operator's console on every gateway's port: the Admin gRPC service (proto/manaforge/v1/admin.proto), the
moderation of players' calls (a server interceptor), and the gateway's heartbeat, which also keeps the gauges the
alert rules watch (deploy/prometheus/alerts.yml) up to date. docs/operations.md says what an operator does."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
from manaforge.v1 import admin_pb2, gateway_pb2
from prometheus_client import REGISTRY

from gateway.limits import MAX_ID, LimitError, check_range, check_text
from gateway.metrics import OUTBOX_ITEMS, OUTBOX_LAG, REDIS_UP, STREAMS_BUSIEST, STREAMS_LIMIT
from services import observability
from services.edge import aio_unary, register
from services.tables.errors import TableNotFoundError, TableStateError
from services.tables.operations import MAX_NOTICE, KeyGuard, KeyLock, ModeratedError, Moderation, Standing
from services.tables.service import Tables

SERVICE = admin_pb2.DESCRIPTOR.services_by_name["Admin"]
GATEWAY_SERVICE = gateway_pb2.DESCRIPTOR.services_by_name["Gateway"]
GATEWAY = GATEWAY_SERVICE.full_name
# Every Gateway method is in one of these two sets (tests/stack/test_moderation.py checks it against the proto); a
# method in neither is refused to a muted player, as in the first. A muted player may not start anything new: a
# game, a seat at one, a queue ticket, a challenge (a chat message, once there is chat, goes here too) ...
MUTED_MAY_NOT = frozenset(
    {"CreateTable", "JoinTable", "JoinQueue", "FillWithBots", "CreateChallenge", "AcceptChallenge"}
)
# ... and keeps what was under way when the mute came: the games (look, watch, play, rejoin the own seat), a queue
# ticket (wait for its match, or leave), the answers to challenges received (decline), and the reads.
MUTED_MAY = frozenset(
    {
        *("ListGames", "GetCatalogue", "ListTables", "GetTable", "GetLog", "GetLeaderboard", "CheckName"),
        *("SubmitAction", "GetView", "Watch", "Play", "RejoinTable", "Events"),
        *("WaitForMatch", "LeaveQueue"),
        *("RegisterPlayer", "GetPlayer", "UpgradeToBot"),
        *("DeclineChallenge", "ListChallenges", "SetChallengePreferences", "GetChallengePreferences"),
    }
)
MAX_STANDING_SECONDS = 10 * 365 * 86_400
GENERIC = gateway_pb2.DeclineReason.DECLINE_REASON_GENERIC
WITHDRAWN = "withdrawn: the challenger was muted by the operator"  # a muted player's challenge, declined for them
HEARTBEAT_EVERY = 2.0
STANDINGS = {admin_pb2.STANDING_UNSPECIFIED: "", admin_pb2.STANDING_MUTED: "muted", admin_pb2.STANDING_BANNED: "banned"}
log = logging.getLogger(__name__)


class OperatorKeyMissingError(Exception):
    """An Admin call without the operator key (UNAUTHENTICATED)."""


class OperatorKeyWrongError(Exception):
    """An Admin call with a wrong key, or to a gateway with no key configured (PERMISSION_DENIED)."""


class OperatorKeyLockedError(Exception):
    """An Admin call while the gateways lock the key it presents, or every key, after wrong keys
    (RESOURCE_EXHAUSTED)."""


register(OperatorKeyMissingError, grpc.StatusCode.UNAUTHENTICATED)
register(OperatorKeyWrongError, grpc.StatusCode.PERMISSION_DENIED)
register(OperatorKeyLockedError, grpc.StatusCode.RESOURCE_EXHAUSTED)
register(ModeratedError, grpc.StatusCode.PERMISSION_DENIED)


class AdminServicer:
    SERVICE_NAME = "admin"  # in logs and metrics

    def __init__(self, tables: Tables, operator_key: str, drain: Callable[[], object], address: str = "") -> None:
        self.tables = tables
        self.operations = tables.operations
        self.operator_key = operator_key
        self.drain = drain  # starts this gateway's drain (after the answer has gone out)
        self.address = address
        self.guard = KeyGuard(tables.store.redis)

    async def _operator(self, context: Any) -> str:
        """Who calls (for the audit log), once their key is checked: refused unchecked while the gateways lock it
        (or every key) after wrong keys, and counted (by its digest, at every gateway) when wrong."""
        metadata = dict(context.invocation_metadata() or ())
        key = str(metadata.get("x-operator-key", ""))
        if not key:
            raise OperatorKeyMissingError("operator key: send the metadata x-operator-key (MANAFORGE_OPERATOR_KEY)")
        if not self.operator_key:
            raise OperatorKeyWrongError("operator key: this gateway has none configured (MANAFORGE_OPERATOR_KEY)")
        digest = hmac.new(self.operator_key.encode(), key.encode(), hashlib.sha256).hexdigest()[:32]
        if locked := await self.guard.attempt(digest):
            raise OperatorKeyLockedError(self._locked(locked))
        if not hmac.compare_digest(key.encode(), self.operator_key.encode()):
            if locking := await self.guard.wrong(digest):
                await self._lock_recorded(locking, digest, context.peer())
            raise OperatorKeyWrongError("operator key: wrong key")
        await self.guard.right(digest)
        name = str(metadata.get("x-operator-name", "")) or "operator"
        check_text("x-operator-name", name, 64)
        return f"{name} ({context.peer()})"

    def _locked(self, lock: KeyLock) -> str:
        guard, left = self.guard, f"{lock.seconds:.0f} s"
        if lock.is_for_all():
            return (
                f"operator key: {guard.tries} wrong keys in {guard.window:.0f} s at the gateways; every Admin call is"
                f" refused, the right key too, for {left} more"
            )
        return (
            f"operator key: this key was wrong {guard.tries_one} times in {guard.window:.0f} s; it is refused"
            f" unchecked for {left} more"
        )

    async def _lock_recorded(self, lock: KeyLock, digest: str, peer: str) -> None:
        """A lock this gateway set: in the audit log and the JSON log."""
        guard = self.guard
        if lock.is_for_all():
            what = (
                f"Admin locked for {lock.seconds:.0f} s at every gateway, every key: {guard.tries} wrong operator keys"
                f" in {guard.window:.0f} s (the last from {peer})"
            )
        else:
            what = (
                f"operator key {digest[:12]}... locked for {lock.seconds:.0f} s at every gateway: wrong"
                f" {guard.tries_one} times in {guard.window:.0f} s (the last from {peer})"
            )
        await self.operations.audit(f"gateway {self.address}", "OperatorKeyLocked", what)
        fields = {"lock": lock.scope, "key_digest": digest[:12], "peer": peer, "seconds": lock.seconds}
        log.warning("operator key locked", extra={"fields": fields})

    async def _done(self, who: str, action: str, what: str) -> admin_pb2.AdminResult:
        await self.operations.audit(who, action, what)
        log.warning("operator action", extra={"fields": {"action": action, "what": what}})
        return admin_pb2.AdminResult(done=what)

    @aio_unary
    async def GetOverview(self, request: admin_pb2.GetOverviewRequest, context: Any) -> admin_pb2.Overview:
        await self._operator(context)
        ops = self.operations
        overview = admin_pb2.Overview(notice=await ops.notice(fresh=0.0))
        for game, (playing, waiting) in sorted((await ops.tables_by_game()).items()):
            overview.tables.add(game=game, playing=playing, open=waiting)
        for tag, waiting_count, waited in await ops.queues():
            overview.queues.add(queue=tag, waiting=waiting_count, oldest_wait_seconds=waited)
        overview.outbox_items, overview.outbox_lag_seconds = await ops.outbox()
        for address, streams, draining, ago in await ops.gateways():
            overview.gateways.add(address=address, streams=streams, draining=draining, seen_seconds_ago=ago)
        overview.streams_online = sum(g.streams for g in overview.gateways)
        for name, ago in await ops.workers():
            overview.workers.add(name=name, seen_seconds_ago=ago)
        overview.errors.update(errors_seen())
        for player_id, standing in sorted((await ops.standings()).items()):
            (overview.banned if standing.kind == "banned" else overview.muted).append(player_id)
            if standing.until:
                overview.standing_until[player_id] = standing.until
        return overview

    @aio_unary
    async def EndTable(self, request: admin_pb2.EndTableRequest, context: Any) -> admin_pb2.AdminResult:
        who = await self._operator(context)
        check_text("table_id", request.table_id, MAX_ID)
        version = await self.operations.end_table(request.table_id)
        return await self._done(who, "EndTable", f"table {request.table_id} aborted at version {version}")

    @aio_unary
    async def SetPlayerStanding(
        self, request: admin_pb2.SetPlayerStandingRequest, context: Any
    ) -> admin_pb2.AdminResult:
        who = await self._operator(context)
        check_text("player_id", request.player_id, MAX_ID)
        check_text("reason", request.reason, MAX_NOTICE)
        kind = STANDINGS.get(request.standing)
        if kind is None:
            raise LimitError(f"standing: one of {', '.join(admin_pb2.Standing.keys())}, not {request.standing}")
        check_range("duration_seconds", request.duration_seconds, 0, MAX_STANDING_SECONDS)
        if request.duration_seconds and not kind:
            raise LimitError("duration_seconds: only with a mute or a ban (clearing lasts)")
        name = await self.tables.players.player(request.player_id)  # NOT_FOUND for an unknown player
        now = time.time()
        until = now + request.duration_seconds if request.duration_seconds else 0.0
        standing = Standing(kind, until, request.reason.strip()) if kind else None
        await self.operations.set_standing(request.player_id, standing)
        said = f"player {name.name} ({request.player_id}) "
        said += f"{kind} {standing.term(now)}" if standing else "in good standing"
        said += f": {request.reason}" if request.reason else ""
        if standing and (withdrawn := await self._withdraw_challenges(request.player_id)):
            said += f" ({withdrawn} challenge{'s' * (withdrawn > 1)} sent withdrawn)"
        return await self._done(who, "SetPlayerStanding", said)

    async def _withdraw_challenges(self, player_id: str) -> int:
        """A muted or banned player's challenges still waiting are declined for their recipients (who are told
        why): accepting one would start a game. Returns how many."""
        withdrawn = 0
        for challenge in await self.tables.challenges.pending_for(player_id, "out"):
            with contextlib.suppress(TableNotFoundError, TableStateError):  # answered or expired meanwhile
                await self.tables.challenges.decline(
                    challenge.challenged_id, challenge.challenge_id, GENERIC, WITHDRAWN
                )
                withdrawn += 1
        return withdrawn

    @aio_unary
    async def DrainGateway(self, request: admin_pb2.DrainGatewayRequest, context: Any) -> admin_pb2.AdminResult:
        who = await self._operator(context)
        result = await self._done(who, "DrainGateway", f"gateway {self.address} draining")
        self.drain()
        return result

    @aio_unary
    async def SetNotice(self, request: admin_pb2.SetNoticeRequest, context: Any) -> admin_pb2.AdminResult:
        who = await self._operator(context)
        check_text("text", request.text, MAX_NOTICE)
        await self.operations.set_notice(request.text.strip())
        said = f"notice posted: {request.text.strip()}" if request.text.strip() else "notice cleared"
        return await self._done(who, "SetNotice", said)

    @aio_unary
    async def GetAuditLog(self, request: admin_pb2.GetAuditLogRequest, context: Any) -> admin_pb2.AuditLog:
        await self._operator(context)
        check_range("limit", request.limit, 0, 500)
        entries = await self.operations.audit_log(request.limit or 50)
        return admin_pb2.AuditLog(
            entries=[
                admin_pb2.AuditEntry(id=i, at=float(f["at"]), who=f["who"], action=f["action"], what=f["what"])
                for i, f in entries
            ]
        )


def errors_seen() -> dict[str, float]:
    """This process's counters of failed calls: refusals by status, unexpected errors, Redis errors, and commits that
    were not stored."""
    wanted = {
        "manaforge_refusals_total": "code",
        "manaforge_errors_total": "",
        "manaforge_redis_errors_total": "",
        "manaforge_commits_total": "result",
    }
    out: dict[str, float] = {}
    for family in REGISTRY.collect():
        for sample in family.samples:
            if sample.name not in wanted:
                continue
            label = wanted[sample.name]
            if sample.name == "manaforge_commits_total" and sample.labels.get("result") == "ok":
                continue
            key = sample.name.removesuffix("_total") + (f":{sample.labels[label]}" if label else "")
            out[key] = out.get(key, 0.0) + sample.value
    return out


class Moderating(grpc.aio.ServerInterceptor):  # type: ignore[type-arg]
    """Refuse, before the handler runs, a banned player's every Gateway call and a muted player's calls that start
    something (every Gateway method not in MUTED_MAY): PERMISSION_DENIED naming the rule, the reason and its end. The
    player is the call's x-player-id."""

    def __init__(self, moderation: Moderation) -> None:
        self.moderation = moderation

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any]]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any]:
        handler = await continuation(details)
        method = str(details.method)
        if handler is None or not method.startswith(f"/{GATEWAY}/"):
            return handler
        metadata = dict(details.invocation_metadata or ())
        player_id = str(metadata.get("x-player-id", ""))
        if not player_id or len(player_id) > MAX_ID:
            return handler
        try:
            await self.moderation.check(player_id, method.rsplit("/", 1)[1] not in MUTED_MAY)
        except ModeratedError as exc:
            observability.refused("gateway", method.rsplit("/", 1)[1], None, "PERMISSION_DENIED", str(exc))
            return refusing(handler, str(exc))
        except Exception:  # Redis away: the call itself will say so
            return handler
        return handler


def refusing(handler: grpc.RpcMethodHandler[Any, Any], message: str) -> grpc.RpcMethodHandler[Any, Any]:
    """A handler of `handler`'s kind that answers PERMISSION_DENIED with `message`."""

    async def unary(request: Any, context: Any) -> None:
        await context.abort(grpc.StatusCode.PERMISSION_DENIED, message)

    async def streaming(request: Any, context: Any) -> AsyncIterator[bytes]:
        await context.abort(grpc.StatusCode.PERMISSION_DENIED, message)
        yield b""  # never reached: makes this an async generator

    if handler.request_streaming and handler.response_streaming:
        return grpc.stream_stream_rpc_method_handler(streaming)
    if handler.response_streaming:
        return grpc.unary_stream_rpc_method_handler(streaming)
    if handler.request_streaming:
        return grpc.stream_unary_rpc_method_handler(unary)
    return grpc.unary_unary_rpc_method_handler(unary)


async def heartbeat(
    tables: Tables, address: str, streams: Any, stream_limit: int, draining: Callable[[], bool]
) -> None:
    """Every HEARTBEAT_EVERY seconds until cancelled: this gateway's streams into Redis (the console's gateways and
    players online), and the gauges of Redis being reachable, the outbox and the busiest address' streams."""
    STREAMS_LIMIT.set(stream_limit)
    while True:
        STREAMS_BUSIEST.set(max(streams.open.values(), default=0))
        try:
            await asyncio.wait_for(
                tables.operations.gateway_seen(address, sum(streams.open.values()), draining()), HEARTBEAT_EVERY
            )
            items, lag = await asyncio.wait_for(tables.operations.outbox(), HEARTBEAT_EVERY)
            OUTBOX_ITEMS.set(items)
            OUTBOX_LAG.set(lag)
            REDIS_UP.set(1)
        except Exception:
            REDIS_UP.set(0)
        await asyncio.sleep(HEARTBEAT_EVERY)
