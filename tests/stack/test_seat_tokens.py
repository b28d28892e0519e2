"""Seat tokens are bounded: a seat keeps its newest few live tokens (a new one from RejoinTable, a matched ticket or
the Events stream retires the oldest), a retired token is refused at every gateway with a message that says why,
Events reconnects add no token, and no seat token is kept in clear in Redis (a matched queue ticket included)."""

from __future__ import annotations

import threading
from typing import Any

import grpc
from manaforge.v1 import gateway_pb2 as gw
from manaforge.v1.common_pb2 import GameConfig

from deploy.launcher import Stack
from gateway.client import Client
from services.tables import keys
from services.tables.seats import MAX_SEAT_TOKENS
from tests.stack.helpers import first_legal, play, rpc_error

Metadata = tuple[tuple[str, str | bytes], ...]


def credentials(player: gw.Player) -> Metadata:
    return (("x-player-id", player.player_id), ("x-player-key", player.secret_key))


def against_a_bot(client: Client, name: str) -> tuple[gw.Player, str, str]:
    """A registered player at seat 0 of a cardbench table, a random bot at seat 1: (player, table id, seat token)."""
    player = client.stub.RegisterPlayer(gw.RegisterPlayerRequest(name=name))
    created = client.stub.CreateTable(
        gw.CreateTableRequest(
            config=GameConfig(game="cardbench", seats=2),
            seats=[gw.SeatRequest(), gw.SeatRequest(bot=True, bot_level="random")],
        ),
        metadata=credentials(player),
    )
    return player, created.table.table_id, created.seat_token


def live_tokens(stack: Stack, table_id: str) -> int:
    """The seat tokens stored for the table (its every seat)."""
    return int(stack.data_redis().hlen(keys.table_keys(table_id)["tokens"]))


def rejoin(client: Client, player: gw.Player, table_id: str) -> str:
    rejoined = client.stub.RejoinTable(gw.RejoinTableRequest(table_id=table_id), metadata=credentials(player))
    return str(rejoined.seat_token)


def assert_retired(client: Client, table_id: str, token: str) -> None:
    """The token is refused for a view, a move and a watch, each saying it was replaced by a newer one."""
    for refused in (
        rpc_error(client.view, table_id, token),
        rpc_error(client.submit, table_id, token, play(0)),
        rpc_error(lambda: next(client.watch(table_id, token))),
    ):
        assert refused.code() == grpc.StatusCode.UNAUTHENTICATED, refused.details()
        assert "replaced by a newer one" in refused.details() and "RejoinTable" in refused.details()


def test_rejoin_retires_the_oldest_token_at_every_gateway(stack: Stack, client: Client, client_b: Client) -> None:
    player, table_id, first = against_a_bot(client, "Tokia")
    for gateway in (client, client_b):  # both gateways know the first token (and may keep it in their caches)
        assert gateway.view(table_id, first).seat == 0
    fresh = [rejoin(client, player, table_id) for _ in range(MAX_SEAT_TOKENS)]
    for gateway in (client, client_b):
        assert_retired(gateway, table_id, first)
        for token in fresh:  # the newest MAX_SEAT_TOKENS all still work
            assert gateway.view(table_id, token).seat == 0
    done = client_b.submit(table_id, fresh[0], first_legal(client_b, table_id, fresh[0]))
    assert done.version == 1
    fresh.append(rejoin(client_b, player, table_id))
    for gateway in (client, client_b):  # the oldest of the four, just used to move, is retired in turn
        assert_retired(gateway, table_id, fresh[0])
    unknown = rpc_error(client.view, table_id, "never-a-token")
    assert unknown.code() == grpc.StatusCode.UNAUTHENTICATED and "replaced" not in unknown.details()


def test_two_thousand_rejoins_leave_a_few_tokens(stack: Stack, client: Client) -> None:
    player, table_id, _ = against_a_bot(client, "Rejoina")
    last = ""
    for _ in range(2000):
        last = rejoin(client, player, table_id)
    assert live_tokens(stack, table_id) == MAX_SEAT_TOKENS  # the bot's seat has none (before: 2,001 here)
    assert client.view(table_id, last).seat == 0


def events_started(client: Client, player: gw.Player, table_id: str) -> gw.GameStarted:
    """Open the player's Events stream, read until it announces the table's game, and close it (a reconnect)."""
    stream = client.stub.Events(gw.EventsRequest(), metadata=credentials(player), timeout=20)
    found: list[gw.GameStarted] = []
    try:
        for event in stream:
            if event.WhichOneof("kind") == "game_started" and event.game_started.table_id == table_id:
                found.append(event.game_started)
                break
    finally:
        stream.cancel()  # type: ignore[no-untyped-call]
    assert found, "the Events stream announces the game under way"
    return found[0]


def test_events_reconnects_add_no_seat_token(stack: Stack, client: Client, client_b: Client) -> None:
    player, table_id, _ = against_a_bot(client, "Evenia")
    before = live_tokens(stack, table_id)
    handed = {events_started(gateway, player, table_id).seat_token for gateway in (client, client_b) * 5}
    assert live_tokens(stack, table_id) <= before + 1  # one token for Events, however often it reconnects
    assert len(handed) == 1  # the same token every time, from every gateway
    assert client_b.view(table_id, handed.pop()).seat == 0


def ticket_fields(stack: Stack, ticket_id: str) -> dict[bytes, bytes]:
    return dict(stack.data_redis().hgetall(keys.ticket(ticket_id)))


def test_a_matched_ticket_keeps_no_seat_token_in_clear(stack: Stack, client: Client, client_b: Client) -> None:
    ticket = client.stub.JoinQueue(gw.JoinQueueRequest(game="cardbench", seats=2, player_name="queuer"))
    matched = client_b.stub.FillWithBots(gw.FillWithBotsRequest(ticket_id=ticket.ticket_id, bot_level="random"))
    assert matched.matched and matched.seat_token
    stored = ticket_fields(stack, ticket.ticket_id)
    assert stored, "the matched ticket is kept (for its player's WaitForMatch)"
    values = b" ".join(stored.values())
    assert matched.seat_token.encode() not in values and b"token" not in stored
    assert client.view(matched.table_id, matched.seat_token).seat == matched.seat
    again = [client.stub.WaitForMatch(gw.WaitForMatchRequest(ticket_id=ticket.ticket_id)).seat_token for _ in range(10)]
    assert all(again) and live_tokens(stack, matched.table_id) <= MAX_SEAT_TOKENS  # bounded however often it asks
    assert client_b.view(matched.table_id, again[-1]).seat == matched.seat


def test_a_ticket_matched_by_the_previous_release_hands_its_seat_over(stack: Stack, client: Client) -> None:
    """A ticket stored by the previous release (its seat token in clear) is read compatibly: its player gets a
    working token, and the clear one is removed from the ticket."""
    ticket = client.stub.JoinQueue(gw.JoinQueueRequest(game="cardbench", seats=2, player_name="oldie"))
    matched = client.stub.FillWithBots(gw.FillWithBotsRequest(ticket_id=ticket.ticket_id, bot_level="random"))
    stack.data_redis().hset(keys.ticket(ticket.ticket_id), "token", matched.seat_token)  # as 0.x stored it
    read = client.stub.WaitForMatch(gw.WaitForMatchRequest(ticket_id=ticket.ticket_id))
    assert read.matched and client.view(read.table_id, read.seat_token).seat == matched.seat
    assert b"token" not in ticket_fields(stack, ticket.ticket_id)


def test_a_watch_with_a_retired_token_ends(stack: Stack, client: Client, client_b: Client) -> None:
    """An open Watch stream under a token that is retired meanwhile shows no move after the retirement."""
    player, table_id, first = against_a_bot(client, "Watchia")
    updates = client_b.watch(table_id, first)
    opening = next(updates)
    assert opening.view.version == 0
    seen: list[Any] = []
    failure: list[grpc.RpcError] = []

    def read() -> None:
        try:
            seen.extend(updates)
        except grpc.RpcError as exc:
            failure.append(exc)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    fresh = [rejoin(client, player, table_id) for _ in range(MAX_SEAT_TOKENS)]
    client.submit(table_id, fresh[-1], first_legal(client, table_id, fresh[-1]))
    reader.join(20)
    assert not reader.is_alive(), "the stream ends"
    assert failure and failure[0].code() == grpc.StatusCode.UNAUTHENTICATED, failure
    assert "replaced by a newer one" in (failure[0].details() or "")
    assert not seen, "no update after the token was retired"


def test_tokens_kept_by_the_previous_release_are_retired_first(stack: Stack, client: Client) -> None:
    """A table whose seat gathered tokens under the previous release (every one kept, none listed): the first new
    token retires all but the newest few, the unlisted ones first."""
    player, table_id, first = against_a_bot(client, "Oldtimer")
    stored = keys.table_keys(table_id)["tokens"]
    stack.data_redis().hset(stored, mapping={f"{n:064x}": 0 for n in range(50)})  # as 0.x's RejoinTable left them
    assert live_tokens(stack, table_id) == 51
    fresh = rejoin(client, player, table_id)
    assert live_tokens(stack, table_id) == MAX_SEAT_TOKENS
    assert client.view(table_id, fresh).seat == 0 and client.view(table_id, first).seat == 0  # the listed ones stay
