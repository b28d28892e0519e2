"""The gRPC front door: a thin servicer over the table service, with health checking and reflection."""

from __future__ import annotations

from concurrent import futures
from typing import Any

import grpc
import redis
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from manaforge.v1 import gateway_pb2, gateway_pb2_grpc, rules_pb2
from manaforge.v1.gateway_pb2 import (
    CreateTableResponse,
    JoinTableResponse,
    ListTablesResponse,
    SubmitActionResponse,
)

from gateway.grpc_errors import register, streaming, unary
from gateway.metrics import ACTIONS, SUBMIT_SECONDS
from gateway.tables import SeatTokenError, StaleVersionError, TableNotFoundError, Tables, TableStateError

register(TableNotFoundError, grpc.StatusCode.NOT_FOUND)
register(SeatTokenError, grpc.StatusCode.UNAUTHENTICATED)
register(StaleVersionError, grpc.StatusCode.ABORTED)
register(TableStateError, grpc.StatusCode.FAILED_PRECONDITION)
register(redis.exceptions.ConnectionError, grpc.StatusCode.UNAVAILABLE)  # storage unreachable: try again
register(redis.exceptions.TimeoutError, grpc.StatusCode.UNAVAILABLE)


class GatewayServicer(gateway_pb2_grpc.GatewayServicer):
    def __init__(self, tables: Tables) -> None:
        self.tables = tables

    @unary
    def ListGames(self, request: rules_pb2.ListGamesRequest, context: Any) -> rules_pb2.ListGamesResponse:
        return rules_pb2.ListGamesResponse(games=self.tables.list_games())

    @unary
    def CreateTable(self, request: gateway_pb2.CreateTableRequest, context: Any) -> CreateTableResponse:
        table, seat, token = self.tables.create_table(request.config, list(request.seats), request.player_name)
        return CreateTableResponse(table=table, seat=seat, seat_token=token)

    @unary
    def ListTables(self, request: gateway_pb2.ListTablesRequest, context: Any) -> ListTablesResponse:
        return ListTablesResponse(tables=self.tables.list_tables(request.game))

    @unary
    def GetTable(self, request: gateway_pb2.GetTableRequest, context: Any) -> gateway_pb2.Table:
        return self.tables.table(request.table_id)

    @unary
    def JoinTable(self, request: gateway_pb2.JoinTableRequest, context: Any) -> JoinTableResponse:
        seat = request.seat if request.HasField("seat") else None
        table, seat, token = self.tables.join_table(request.table_id, request.player_name, seat)
        return JoinTableResponse(table=table, seat=seat, seat_token=token)

    @unary
    def JoinQueue(self, request: gateway_pb2.JoinQueueRequest, context: Any) -> gateway_pb2.QueueTicket:
        return self.tables.join_queue(request.game, request.seats, request.player_name, dict(request.options))

    @unary
    def WaitForMatch(self, request: gateway_pb2.WaitForMatchRequest, context: Any) -> gateway_pb2.QueueTicket:
        return self.tables.wait_for_match(request.ticket_id, request.timeout_seconds)

    @unary
    def FillWithBots(self, request: gateway_pb2.FillWithBotsRequest, context: Any) -> gateway_pb2.QueueTicket:
        return self.tables.fill_with_bots(request.ticket_id, request.bot_level)

    @unary
    def SubmitAction(self, request: gateway_pb2.SubmitActionRequest, context: Any) -> SubmitActionResponse:
        expected = request.expected_version if request.HasField("expected_version") else None
        with SUBMIT_SECONDS.time():
            try:
                done = self.tables.submit(
                    request.table_id, request.seat_token, request.action, request.client_action_id, expected
                )
            except Exception:
                ACTIONS.labels("refused").inc()
                raise
        ACTIONS.labels("duplicate" if done.duplicate else "accepted").inc()
        return SubmitActionResponse(version=done.version, events=done.events, duplicate=done.duplicate)

    @unary
    def GetView(self, request: gateway_pb2.GetViewRequest, context: Any) -> gateway_pb2.SeatView:
        return self.tables.view(request.table_id, request.seat_token)

    @streaming
    def Watch(self, request: gateway_pb2.WatchRequest, context: Any) -> Any:
        yield from self.tables.watch(request.table_id, request.seat_token, request.after_seq, context.is_active)

    @unary
    def GetLog(self, request: gateway_pb2.GetLogRequest, context: Any) -> gateway_pb2.GameLog:
        return self.tables.log(request.table_id)


def serve(tables: Tables, address: str, max_workers: int = 256) -> tuple[grpc.Server, int]:
    """Start the gateway on `address` ("127.0.0.1:0" picks a free port). Returns the server and its port."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=max_workers))
    gateway_pb2_grpc.add_GatewayServicer_to_server(GatewayServicer(tables), server)
    add_health_and_reflection(server, gateway_pb2.DESCRIPTOR.services_by_name["Gateway"].full_name)
    port = server.add_insecure_port(address)
    server.start()
    return server, port


def add_health_and_reflection(server: grpc.Server, service_name: str) -> health.HealthServicer:
    checker = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(checker, server)
    for name in ("", service_name):
        checker.set(name, health_pb2.HealthCheckResponse.SERVING)
    reflection.enable_server_reflection(
        (service_name, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME), server
    )
    return checker
