"""A small Python client of the gateway, used by the terminal client, the demo, the benchmarks and the tests."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

import grpc
from google.protobuf.any_pb2 import Any as AnyMessage
from google.protobuf.message import Message
from manaforge.v1 import gateway_pb2 as gw
from manaforge.v1.common_pb2 import CardFacts, GameConfig
from manaforge.v1.gateway_pb2_grpc import GatewayStub
from manaforge.v1.rules_pb2 import GameInfo, GetCatalogueRequest, ListGamesRequest, ListGamesResponse


def pack(message: Message) -> AnyMessage:
    packed = AnyMessage()
    packed.Pack(message)
    return packed


class _Credentials(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor):  # type: ignore[type-arg]
    """Adds a registered player's id and key to every call's metadata."""

    def __init__(self, player_id: str, key: str) -> None:
        self.metadata = (("x-player-id", player_id), ("x-player-key", key))

    def _with(self, details: Any) -> Any:
        return details._replace(metadata=tuple(details.metadata or ()) + self.metadata)

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._with(details), request)

    def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._with(details), request)


class Client:
    def __init__(
        self,
        address: str,
        player: tuple[str, str] | None = None,
        credentials: grpc.ChannelCredentials | None = None,
    ) -> None:
        """`player`: (player id, secret key) of a registered player, sent with every call. `credentials`: TLS
        (services/tls.py: channel_credentials); None: plaintext."""
        self.address = address
        self.channel = grpc.secure_channel(address, credentials) if credentials else grpc.insecure_channel(address)
        calls = grpc.intercept_channel(self.channel, _Credentials(*player)) if player else self.channel
        self.stub = GatewayStub(calls)

    def close(self) -> None:
        self.channel.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def games(self) -> list[GameInfo]:
        return list(self.list_games().games)

    def list_games(self) -> ListGamesResponse:
        """The games, and the operator's maintenance notice (empty: none)."""
        return self.stub.ListGames(ListGamesRequest())

    def catalogue(self, config: GameConfig) -> list[CardFacts]:
        """What every card of the game does under `config` (a table's config), by id."""
        return list(self.stub.GetCatalogue(GetCatalogueRequest(config=config)).cards)

    def create_table(
        self,
        game: str,
        seats: int,
        bots: dict[int, str] | None = None,
        options: dict[str, str] | None = None,
        player_name: str = "",
    ) -> gw.CreateTableResponse:
        bots = bots or {}
        requests = [gw.SeatRequest(bot=i in bots, bot_level=bots.get(i, "")) for i in range(seats)]
        config = GameConfig(game=game, seats=seats, options=options or {})
        return self.stub.CreateTable(gw.CreateTableRequest(config=config, seats=requests, player_name=player_name))

    def join(self, table_id: str, name: str, seat: int | None = None) -> gw.JoinTableResponse:
        request = gw.JoinTableRequest(table_id=table_id, player_name=name)
        if seat is not None:
            request.seat = seat
        return self.stub.JoinTable(request)

    def submit(
        self,
        table_id: str,
        token: str,
        action: AnyMessage,
        client_action_id: str | None = None,
        expected_version: int | None = None,
    ) -> gw.SubmitActionResponse:
        request = gw.SubmitActionRequest(
            table_id=table_id, seat_token=token, action=action, client_action_id=client_action_id or uuid.uuid4().hex
        )
        if expected_version is not None:
            request.expected_version = expected_version
        return self.stub.SubmitAction(request)

    def view(self, table_id: str, token: str = "") -> gw.SeatView:
        return self.stub.GetView(gw.GetViewRequest(table_id=table_id, seat_token=token))

    def table(self, table_id: str) -> gw.Table:
        return self.stub.GetTable(gw.GetTableRequest(table_id=table_id))

    def watch(self, table_id: str, token: str = "", after_seq: int = 0) -> Iterator[gw.WatchUpdate]:
        return iter(self.stub.Watch(gw.WatchRequest(table_id=table_id, seat_token=token, after_seq=after_seq)))

    def log(self, table_id: str) -> gw.GameLog:
        return self.stub.GetLog(gw.GetLogRequest(table_id=table_id))

    def wait_finished(self, table_id: str, timeout: float = 120.0, verdict: bool = True) -> gw.Table:
        """Poll until the game is finished (and, with `verdict`, replay-validated)."""
        deadline = time.monotonic() + timeout
        while True:
            table = self.table(table_id)
            if table.outcome.finished and (table.replay_verdict or not verdict):
                return table
            if time.monotonic() > deadline:
                raise TimeoutError(f"table {table_id} not finished after {timeout}s (version {table.version})")
            time.sleep(0.05)
