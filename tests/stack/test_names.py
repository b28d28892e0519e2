"""Names at a table, over the real stack: a registered player's seat shows their own registered name whatever a
request asks for; a guest may not take a name that looks like a bot's, a registered player's or a reserved word
(compared by the UTS #39 confusables skeleton: a Greek omicron or a Cyrillic "а" changes nothing); registration
refuses the same; names registered before the looks index existed are found all the same. And a person sitting at
an unfinished table cannot become a bot account (UpgradeToBot) until that game ends."""

from __future__ import annotations

import time
import uuid
from typing import Any

import grpc
from manaforge.v1 import gateway_pb2 as gw
from manaforge.v1.common_pb2 import GameConfig

from gateway.client import Client
from services.tables import keys
from services.tables.players import Players
from services.tables.portal import Portal
from services.tables.service import Tables
from tests.stack.helpers import rpc_error

Metadata = tuple[tuple[str, str | bytes], ...]


def credentials(player: gw.Player) -> Metadata:
    return (("x-player-id", player.player_id), ("x-player-key", player.secret_key))


def register(client: Client, name: str) -> gw.Player:
    return client.stub.RegisterPlayer(gw.RegisterPlayerRequest(name=name))


def suffix() -> str:
    """A unique tail of letters only (hex digits would look like letters: "0" like "o", "1" like "l")."""
    return "".join("ghijklmnopqrstuv"[int(c, 16)] for c in uuid.uuid4().hex[:8])


def open_table(client: Client) -> str:
    return client.create_table("cardbench", 2).table.table_id


def test_a_guest_cannot_take_a_bots_a_registered_players_or_a_reserved_words_look_alike(client: Client) -> None:
    tilda = f"Tilda{suffix()}"
    register(client, tilda)
    table_id = open_table(client)
    refusals = {
        "bοt (random)": (grpc.StatusCode.INVALID_ARGUMENT, "looks like a bot's name"),  # a Greek omicron
        "ВОТ 2 (heuristic)": (grpc.StatusCode.INVALID_ARGUMENT, "looks like a bot's name"),  # Cyrillic capitals
        "b0t": (grpc.StatusCode.INVALID_ARGUMENT, "looks like a bot's name"),
        "аdmin": (grpc.StatusCode.INVALID_ARGUMENT, "looks like the reserved word 'admin'"),  # a Cyrillic "а"
        "0PERAT0R": (grpc.StatusCode.INVALID_ARGUMENT, "looks like the reserved word 'operator'"),
        "ann (seat 1)": (grpc.StatusCode.INVALID_ARGUMENT, "looks like the reserved word 'seat'"),
        tilda.replace("l", "I"): (grpc.StatusCode.ALREADY_EXISTS, f"looks like {tilda!r}, a registered player's"),
        tilda.replace("i", "і").upper(): (grpc.StatusCode.ALREADY_EXISTS, f"looks like {tilda!r}"),  # Ukrainian і
        tilda.lower(): (grpc.StatusCode.ALREADY_EXISTS, "is a registered player's name"),
    }
    for name, (code, rule) in refusals.items():
        joined = rpc_error(client.join, table_id, name)
        assert (joined.code(), rule in joined.details()) == (code, True), (name, joined.details())
        assert "pick a name no bot, registered player or reserved word looks like" in joined.details()
        queued = rpc_error(client.stub.JoinQueue, gw.JoinQueueRequest(game="cardbench", seats=2, player_name=name))
        assert (queued.code(), queued.details()) == (code, joined.details()), name
        made = rpc_error(client.create_table, "cardbench", 2, player_name=name)
        assert (made.code(), made.details()) == (code, joined.details()), name
        check = client.stub.CheckName(gw.CheckNameRequest(player_name=name))  # the browser asks before
        assert (check.free, check.reason) == (False, joined.details()), name
    assert all(seat.kind == gw.SEAT_KIND_OPEN for seat in client.table(table_id).seats)  # nobody was seated
    for fine in ("Ann", "robot", "guest-x2k9q", "Tild", "ann (guest)", "badminton"):
        assert client.stub.CheckName(gw.CheckNameRequest(player_name=fine)) == gw.NameCheck(free=True), fine
    seated = client.join(table_id, "Ann")
    assert seated.table.seats[seated.seat].name == "Ann"


def test_a_registered_players_seat_shows_their_own_name_whatever_the_request_says(
    client: Client, client_b: Client
) -> None:
    ula = register(client, f"Ula{suffix()}")
    other = register(client, f"Vera{suffix()}")
    table_id = open_table(client)
    joined = client.stub.JoinTable(
        gw.JoinTableRequest(table_id=table_id, player_name="bot (random)"), metadata=credentials(ula)
    )
    assert joined.table.seats[joined.seat].name == ula.name
    made = client.stub.CreateTable(
        gw.CreateTableRequest(config=GameConfig(game="cardbench", seats=2), player_name=other.name),
        metadata=credentials(ula),
    )
    assert made.table.seats[made.seat].name == ula.name
    rejoined = client_b.stub.RejoinTable(gw.RejoinTableRequest(table_id=table_id), metadata=credentials(ula))
    assert rejoined.table.seats[rejoined.seat].name == ula.name
    # matchmaking: the ticket carries the name asked for, the seat shows the player's own
    ticket = client.stub.JoinQueue(
        gw.JoinQueueRequest(game="cardbench", seats=2, player_name="bot (heuristic)"),
        metadata=credentials(other),
    )
    filled = client.stub.FillWithBots(gw.FillWithBotsRequest(ticket_id=ticket.ticket_id, bot_level="random"))
    assert filled.matched
    table = client.table(filled.table_id)
    assert table.seats[filled.seat].name == other.name and table.seats[filled.seat].player_id == other.player_id


def test_registration_refuses_a_look_alike_of_a_registered_name_a_bot_or_a_reserved_word(client: Client) -> None:
    tail = suffix()
    first = register(client, f"Marlo{tail}")
    for look_alike in (f"Rnarlo{tail}", f"MARL0{tail}", f"MarIo{tail}", f"marlo{tail}"):  # "rn" looks like "m"
        refused = rpc_error(register, client, look_alike)
        assert refused.code() == grpc.StatusCode.ALREADY_EXISTS, (look_alike, refused.details())
        assert f"is taken: it looks like {first.name!r}, a registered player's" in refused.details()
    for reserved, rule in (
        ("Operator", "looks like the reserved word 'operator'"),
        (f"admin_{tail}", "looks like the reserved word 'admin'"),
        ("Manaforge", "looks like the reserved word 'manaforge'"),
        ("B0tany", "starts like a bot's name"),
        ("P1ayer", "looks like 'player'"),
    ):
        refused = rpc_error(register, client, reserved)
        assert (refused.code(), rule in refused.details()) == (grpc.StatusCode.INVALID_ARGUMENT, True), reserved
    assert register(client, f"Marla{tail}").name == f"Marla{tail}"  # a name of its own


def test_names_registered_before_the_looks_index_are_found(direct_tables: Tables, portal: Portal) -> None:
    """A store of an earlier release: names without their looks. A process that starts on it indexes them once."""
    from services.tables.names import NameTakenError, looks  # (imported here: the other tests run on any release)

    redis = direct_tables.store.redis

    def register_the_old_way(name: str) -> str:  # what release 0.1.0 wrote
        player_id = uuid.uuid4().hex[:16]

        async def write() -> None:
            await redis.hsetnx(keys.player_names(), name.lower(), player_id)
            await redis.hset(f"mf:player:{player_id}", mapping={"name": name, "key": "x", "created": time.time()})

        portal.run(write())
        return player_id

    async def refusal(call: Any) -> str:
        try:
            await call
        except NameTakenError as refused:
            return str(refused)
        return ""

    old_name = f"Lowell{suffix()}"
    old_id = register_the_old_way(old_name)
    register_the_old_way("PIayer")  # "PIayer" (a capital i): before look-alikes of "player" were refused
    players = Players(redis)  # a process started after the upgrade
    assert "looks like" in portal.run(refusal(players.check_guest_name(old_name.replace("l", "I"))))
    assert old_name in portal.run(refusal(players.register(old_name.replace("o", "0"))))
    forms = sorted(looks(old_name))
    assert portal.run(redis.hmget(keys.name_looks(), forms)) == [old_id.encode()] * len(forms)
    assert portal.run(refusal(players.check_guest_name("player"))) == ""  # every unnamed guest's name stays theirs


def test_a_player_at_an_unfinished_table_cannot_become_a_bot_account_until_it_ends(
    client: Client, client_b: Client, direct_tables: Tables, portal: Portal
) -> None:
    yara, zeno = register(client, f"Yara{suffix()}"), register(client, f"Zeno{suffix()}")
    queue = gw.JoinQueueRequest(game="cardbench", seats=2)  # a people-only queue
    tickets = [client.stub.JoinQueue(queue, metadata=credentials(yara))]
    tickets.append(client_b.stub.JoinQueue(queue, metadata=credentials(zeno)))
    deadline = time.monotonic() + 30
    while not all(t.matched for t in tickets) and time.monotonic() < deadline:
        tickets = [
            client.stub.WaitForMatch(gw.WaitForMatchRequest(ticket_id=t.ticket_id, timeout_seconds=2)) for t in tickets
        ]
    assert all(t.matched for t in tickets)
    ticket = tickets[1]
    table = client.table(ticket.table_id)
    assert zeno.player_id in {seat.player_id for seat in table.seats} and table.started  # a people-only game
    refused = rpc_error(client.stub.UpgradeToBot, gw.UpgradeToBotRequest(), metadata=credentials(zeno))
    assert refused.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert f"only while seated at no unfinished table; table {ticket.table_id} has not finished" in refused.details()
    assert not client.stub.GetPlayer(gw.GetPlayerRequest(player_id=zeno.player_id)).bot  # nothing changed
    # an open table waiting for an opponent is a table too
    waiting = client.stub.CreateTable(
        gw.CreateTableRequest(config=GameConfig(game="cardbench", seats=2)), metadata=credentials(yara)
    )
    assert rpc_error(client.stub.UpgradeToBot, gw.UpgradeToBotRequest(), metadata=credentials(yara)).code() == (
        grpc.StatusCode.FAILED_PRECONDITION
    )
    portal.run(direct_tables.operations.end_table(ticket.table_id))  # the game ends (the operator ends it: unrated)
    assert client.stub.UpgradeToBot(gw.UpgradeToBotRequest(), metadata=credentials(zeno)).bot
    if tickets[0].table_id != ticket.table_id:  # (Yara was matched with someone else)
        portal.run(direct_tables.operations.end_table(tickets[0].table_id))
    assert portal.run(direct_tables.abandon(waiting.table.table_id))  # what the timer does to a table nobody joins
    assert client.stub.UpgradeToBot(gw.UpgradeToBotRequest(), metadata=credentials(yara)).bot
