"""Players: register once, own your seats and tables, rejoin from any client, and get rated only by validated games,
each once."""

from __future__ import annotations

from typing import Any

import grpc
from manaforge.v1 import gateway_pb2 as gw
from manaforge.v1.common_pb2 import GameConfig

from gateway.client import Client
from tests.stack.helpers import first_legal, rpc_error


def credentials(player: gw.Player) -> tuple[tuple[str, str | bytes], ...]:
    return (("x-player-id", player.player_id), ("x-player-key", player.secret_key))


def against_a_bot(client: Client, player: gw.Player) -> gw.CreateTableResponse:
    """A cardbench table: the player at seat 0, a random bot at seat 1."""
    return client.stub.CreateTable(
        gw.CreateTableRequest(
            config=GameConfig(game="cardbench", seats=2),
            seats=[gw.SeatRequest(), gw.SeatRequest(bot=True, bot_level="random")],
        ),
        metadata=credentials(player),
    )


def test_names_are_unique_plain_and_reserved(client: Client) -> None:
    ana = client.stub.RegisterPlayer(gw.RegisterPlayerRequest(name="Anastasia"))
    assert ana.player_id and ana.secret_key
    taken = rpc_error(client.stub.RegisterPlayer, gw.RegisterPlayerRequest(name="anastasia"))
    assert taken.code() == grpc.StatusCode.ALREADY_EXISTS and "taken" in taken.details()
    for bad in ("bot-mimic", "x", "no spaces", "ünïcode", "Player"):  # "player": every unnamed guest
        refused = rpc_error(client.stub.RegisterPlayer, gw.RegisterPlayerRequest(name=bad))
        assert refused.code() == grpc.StatusCode.INVALID_ARGUMENT
    table_id = client.create_table("cardbench", 2).table.table_id
    for guest, code in (
        ("Anastasia", grpc.StatusCode.ALREADY_EXISTS),
        ("bot (random)", grpc.StatusCode.INVALID_ARGUMENT),
    ):
        impostor = rpc_error(client.join, table_id, guest)
        assert impostor.code() == code and "register" in impostor.details()
        check = client.stub.CheckName(gw.CheckNameRequest(player_name=guest.upper()))  # asked before, said the same
        assert not check.free and check.reason == impostor.details().replace(guest, guest.upper())
    assert client.stub.CheckName(gw.CheckNameRequest(player_name="Anastasio")) == gw.NameCheck(free=True)
    assert client.stub.GetPlayer(gw.GetPlayerRequest(), metadata=credentials(ana)).name == "Anastasia"
    guess: tuple[tuple[str, str | bytes], ...] = (("x-player-id", ana.player_id), ("x-player-key", "guess"))
    wrong = rpc_error(client.stub.GetPlayer, gw.GetPlayerRequest(), metadata=guess)
    assert wrong.code() == grpc.StatusCode.UNAUTHENTICATED


def test_a_player_rejoins_their_seat_from_another_client_and_lists_their_tables(
    client: Client, client_b: Client
) -> None:
    pia = client.stub.RegisterPlayer(gw.RegisterPlayerRequest(name="Pia"))
    created = against_a_bot(client, pia)
    table_id = created.table.table_id
    assert created.seat == 0 and created.table.seats[0].player_id == pia.player_id
    rejoined = client_b.stub.RejoinTable(gw.RejoinTableRequest(table_id=table_id), metadata=credentials(pia))
    assert rejoined.seat == 0 and rejoined.seat_token != created.seat_token
    done = client_b.submit(table_id, rejoined.seat_token, first_legal(client_b, table_id, rejoined.seat_token))
    assert done.version == 1
    other = client.stub.RegisterPlayer(gw.RegisterPlayerRequest(name="Otto"))
    stranger = rpc_error(client.stub.RejoinTable, gw.RejoinTableRequest(table_id=table_id), metadata=credentials(other))
    assert stranger.code() == grpc.StatusCode.FAILED_PRECONDITION and "no seat" in stranger.details()
    mine = client.stub.ListTables(gw.ListTablesRequest(mine=True), metadata=credentials(pia))
    assert [t.table_id for t in mine.tables] == [table_id]


def test_ratings_change_only_after_a_validated_finish_and_once(client: Client, tables: Any) -> None:
    rae = client.stub.RegisterPlayer(gw.RegisterPlayerRequest(name="Rae"))
    created = against_a_bot(client, rae)
    table_id, token = created.table.table_id, created.seat_token
    while True:
        view = client.view(table_id, token)
        if view.outcome.finished:
            break
        if view.legal_actions:
            assert not client.stub.GetPlayer(gw.GetPlayerRequest(player_id=rae.player_id)).ratings  # not yet
            client.submit(table_id, token, view.legal_actions[0].action, expected_version=view.version)
    client.wait_finished(table_id, 30)
    rated = client.stub.GetPlayer(gw.GetPlayerRequest(player_id=rae.player_id)).ratings
    for _ in range(50):  # the worker rates right after validating
        if rated:
            break
        rated = client.stub.GetPlayer(gw.GetPlayerRequest(player_id=rae.player_id)).ratings
    assert len(rated) == 1 and rated[0].game == "cardbench" and rated[0].games == 1 and rated[0].rank >= 1
    assert not tables.rate(table_id)  # a second look at the same game rates nothing
    again = client.stub.GetPlayer(gw.GetPlayerRequest(player_id=rae.player_id)).ratings
    assert again[0].games == 1 and again[0].mu == rated[0].mu
    board = client.stub.GetLeaderboard(gw.GetLeaderboardRequest(game="cardbench", seats=2))
    names = [e.name for e in board.entries]
    assert "Rae" in names and "bot (heuristic)" in names
    assert [e.rating.ordinal for e in board.entries] == sorted((e.rating.ordinal for e in board.entries), reverse=True)
