"""The gateway as players use it, over real gRPC, Redis and Celery (see conftest.py)."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
import uuid
from typing import Any

import grpc
from google.protobuf.any_pb2 import Any as AnyMessage
from manaforge.v1 import gateway_pb2 as gw
from manaforge.v1.common_pb2 import GameConfig
from manaforge.v1.games.cardbench_pb2 import CardbenchState

from deploy.launcher import Stack, free_port
from engine_core import find_game
from engine_core.conformance import card_refs
from gateway.client import Client
from services.tables import keys
from tests.stack.helpers import cardbench_table, first_legal, hand, play, rpc_error


def stored(store: Any, table_id: str) -> bytes:
    live = store.live(table_id)
    assert live is not None
    return bytes(live.state)


def test_list_games_names_every_registered_game_with_player_range(client: Client) -> None:
    games = {g.name: g for g in client.games()}
    assert games["cardbench"].min_seats == 2 and games["cardbench"].max_seats == 2
    assert "random" in games["cardbench"].bot_levels


def test_a_move_is_acknowledged_with_its_events(client: Client) -> None:
    table_id, ann, _ = cardbench_table(client)
    card = hand(client, table_id, ann)[0]
    done = client.submit(table_id, ann, play(card))
    assert done.version == 1 and not done.duplicate
    assert [e.type for e in done.events] == ["CardPlayed", "CardDrawn"]  # the draw is private to ann: she sees it
    assert client.table(table_id).pending.seats == [1]


def test_retry_with_the_same_client_action_id_is_applied_once(client: Client, store: Any) -> None:
    table_id, ann, _ = cardbench_table(client)
    action = play(hand(client, table_id, ann)[0])
    first = client.submit(table_id, ann, action, client_action_id="retry-1")
    again = client.submit(table_id, ann, action, client_action_id="retry-1")
    assert again.duplicate and not first.duplicate
    assert (again.version, list(again.events)) == (first.version, list(first.events))
    assert client.table(table_id).version == 1
    assert len(store.action_log(table_id)) == 1


def test_stale_expected_version_is_aborted_and_changes_nothing(client: Client, store: Any) -> None:
    table_id, ann, bob = cardbench_table(client)
    client.submit(table_id, ann, first_legal(client, table_id, ann))
    before = stored(store, table_id)
    err = rpc_error(client.submit, table_id, bob, first_legal(client, table_id, bob), expected_version=0)
    assert err.code() == grpc.StatusCode.ABORTED
    assert "stale version" in err.details() and "at 1" in err.details()
    assert stored(store, table_id) == before


def test_missing_invalid_and_other_seat_tokens_are_refused(client: Client, store: Any) -> None:
    table_id, ann, bob = cardbench_table(client)
    before = stored(store, table_id)
    action = first_legal(client, table_id, ann)
    missing = rpc_error(client.submit, table_id, "", action)
    assert missing.code() == grpc.StatusCode.UNAUTHENTICATED and "seat token" in missing.details()
    invalid = rpc_error(client.submit, table_id, "not-a-token", action)
    assert invalid.code() == grpc.StatusCode.UNAUTHENTICATED and "holds no seat" in invalid.details()
    other_seat = rpc_error(client.submit, table_id, bob, action)  # bob's valid token, but it is ann's turn
    assert other_seat.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "turn order" in other_seat.details() and "seat 1 may not act now" in other_seat.details()
    token_of_other_table = cardbench_table(client)[1]
    foreign = rpc_error(client.submit, table_id, token_of_other_table, action)
    assert foreign.code() == grpc.StatusCode.UNAUTHENTICATED
    assert stored(store, table_id) == before


def test_illegal_and_malformed_actions_name_the_rule_and_change_nothing(client: Client, store: Any) -> None:
    table_id, ann, _ = cardbench_table(client)
    before = stored(store, table_id)
    not_in_hand = next(c for c in range(52) if c not in hand(client, table_id, ann))
    illegal = rpc_error(client.submit, table_id, ann, play(not_in_hand))
    assert illegal.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert illegal.details().startswith("play from hand:")
    wrong_type = AnyMessage()
    wrong_type.Pack(GameConfig(game="x"))
    malformed = rpc_error(client.submit, table_id, ann, wrong_type)
    assert malformed.code() == grpc.StatusCode.INVALID_ARGUMENT and "action type" in malformed.details()
    garbage = AnyMessage(type_url=play(0).type_url, value=b"\xff\xff\xff")
    undecodable = rpc_error(client.submit, table_id, ann, garbage)
    assert undecodable.code() == grpc.StatusCode.INVALID_ARGUMENT and "encoding" in undecodable.details()
    unknown = rpc_error(client.submit, "no-such-table", ann, play(0))
    assert unknown.code() == grpc.StatusCode.NOT_FOUND
    assert stored(store, table_id) == before
    assert client.table(table_id).version == 0


def test_sixteen_racing_clients_lose_and_double_no_move(stack: Stack, store: Any) -> None:
    with Client(stack.gateway_addresses[0]) as setup:
        table_id, ann, bob = cardbench_table(setup)
    accepted: list[int] = []
    lock = threading.Lock()

    def racer(i: int) -> None:
        """Race the seat's seven other clients for every move of the seat until the game reaches version 24 (not a
        fixed number of looks, which a slow machine could spend while the other seat moves)."""
        token = ann if i % 2 == 0 else bob
        deadline = time.monotonic() + 30
        with Client(stack.gateway_addresses[i % 2]) as c:
            while time.monotonic() < deadline:
                view = c.view(table_id, token)
                if view.outcome.finished or view.version >= 24:
                    return
                if not view.legal_actions:
                    time.sleep(0.002)
                    continue
                try:
                    done = c.submit(table_id, token, view.legal_actions[0].action, client_action_id=uuid.uuid4().hex)
                except grpc.RpcError as exc:
                    assert exc.code() in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ABORTED), exc
                    continue
                with lock:
                    accepted.append(done.version)

    threads = [threading.Thread(target=racer, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    live = store.live(table_id)
    assert live is not None
    assert sorted(accepted) == list(range(1, live.version + 1))  # every accepted move once, versions gap-free
    log = store.action_log(table_id)
    assert [a.version for a in log] == list(range(1, live.version + 1))
    events = store.events(table_id, 1)
    assert [e.seq for e in events] == list(range(1, live.seq + 1))
    assert live.version >= 8  # the race made progress


def test_resume_after_a_dropped_stream_has_no_gap(client: Client, store: Any) -> None:
    table_id, ann, bob = cardbench_table(client)
    stream = client.watch(table_id, ann)
    first = next(stream)
    assert first.seq == 0 and first.view.version == 0
    client.submit(table_id, ann, first_legal(client, table_id, ann))
    update = next(stream)
    seen = [e.seq for e in update.events]
    stream.cancel()  # type: ignore[attr-defined]
    for _ in range(3):  # moves made while ann is away
        for token in (bob, ann):
            client.submit(table_id, token, first_legal(client, table_id, token))
    resumed = next(client.watch(table_id, ann, after_seq=update.seq))
    seen += [e.seq for e in resumed.events]
    hers = [e.seq for e in store.events(table_id, 1) if not e.HasField("audience") or e.audience == 0]
    assert seen == hers  # every event she may see, once, in order
    assert resumed.view.version == 7
    assert all(e.audience == 0 for e in resumed.events if e.HasField("audience"))


def test_one_game_played_through_two_gateway_processes(client: Client, client_b: Client) -> None:
    table_id, ann, bob = cardbench_table(client)
    watch_a = client.watch(table_id, "")  # a spectator on gateway A
    assert next(watch_a).view.version == 0
    for _ in range(5):
        client.submit(table_id, ann, first_legal(client, table_id, ann))
        client_b.submit(table_id, bob, first_legal(client_b, table_id, bob))
    versions = [next(watch_a).view.version for _ in range(10)]
    assert versions == list(range(1, 11))  # B's moves reach A's watcher too, in order
    assert client.view(table_id, ann).version == client_b.view(table_id, bob).version == 10


def test_no_view_or_event_shows_another_seats_hidden_cards(client: Client, store: Any) -> None:
    game = find_game("cardbench")
    table_id, ann, bob = cardbench_table(client)
    updates: dict[int, list[gw.WatchUpdate]] = {0: [], 1: []}
    streams = {0: client.watch(table_id, ann), 1: client.watch(table_id, bob)}

    def follow(seat: int) -> None:
        for update in streams[seat]:
            updates[seat].append(update)

    threads = [threading.Thread(target=follow, args=(seat,)) for seat in (0, 1)]
    for t in threads:
        t.start()
    tokens = [ann, bob]
    while not client.table(table_id).outcome.finished:
        pending = client.table(table_id).pending.seats[0]
        client.submit(table_id, tokens[pending], first_legal(client, table_id, tokens[pending]))
    for t in threads:
        t.join(30)
    record = store.table_record(table_id)
    assert record is not None
    states = [game.new_game(record.config, record.seed)]
    for logged in store.action_log(table_id):
        states.append(game.apply(states[-1], logged.seat, game.action_from_any(logged.action))[0])
    for seat, seen in updates.items():
        assert seen[-1].view.version == 100
        for update in seen:
            view = CardbenchState()
            update.view.view.Unpack(view)
            hidden = game.hidden_cards(states[update.view.version], seat)
            shown = card_refs(view).union(*(card_refs(e) for e in update.events))
            assert not shown & hidden, f"seat {seat} saw hidden cards {shown & hidden}"
            assert not view.header.HasField("rng")


def test_matchmaking_forms_a_table_when_enough_players_wait(client: Client, client_b: Client) -> None:
    first = client.stub.JoinQueue(gw.JoinQueueRequest(game="cardbench", seats=2, player_name="ann"))
    assert not first.matched and first.waiting == 1
    second = client_b.stub.JoinQueue(gw.JoinQueueRequest(game="cardbench", seats=2, player_name="bob"))
    assert second.matched
    first = client.stub.WaitForMatch(gw.WaitForMatchRequest(ticket_id=first.ticket_id, timeout_seconds=5))
    assert first.matched and first.table_id == second.table_id
    assert {first.seat, second.seat} == {0, 1}
    table = client.table(first.table_id)
    assert table.started and [s.name for s in table.seats] == ["ann", "bob"]
    token = first.seat_token if first.seat == 0 else second.seat_token
    assert client.submit(first.table_id, token, first_legal(client, first.table_id, token)).version == 1
    again = client.stub.WaitForMatch(gw.WaitForMatchRequest(ticket_id=second.ticket_id, timeout_seconds=1))
    assert again.matched and again.seat == second.seat  # an answer lost on its way loses no seat: a fresh token,
    assert client.view(again.table_id, again.seat_token).seat == second.seat  # (none is kept in clear with the ticket)
    assert client.view(second.table_id, second.seat_token).seat == second.seat  # and the earlier one still works


def test_tables_with_open_seats_are_listed_until_full(client: Client, tables: Any) -> None:
    created = client.create_table("cardbench", 2, player_name="ann")
    table_id = created.table.table_id

    def listed() -> list[str]:
        return [t.table_id for t in client.stub.ListTables(gw.ListTablesRequest(game="cardbench")).tables]

    assert table_id in listed()
    client.join(table_id, "bob")
    assert table_id not in listed()
    kept, _, _ = tables.create_table(GameConfig(game="cardbench", seats=2), [], listed=False)
    assert kept.table_id not in listed()  # matchmaking keeps its seats for the matched players


def test_a_waiting_player_can_fill_the_table_with_bots(client: Client) -> None:
    ticket = client.stub.JoinQueue(gw.JoinQueueRequest(game="cardbench", seats=2, player_name="solo"))
    assert not ticket.matched
    filled = client.stub.FillWithBots(gw.FillWithBotsRequest(ticket_id=ticket.ticket_id, bot_level="random"))
    assert filled.matched
    table = client.table(filled.table_id)
    assert sorted(s.kind for s in table.seats) == [gw.SEAT_KIND_HUMAN, gw.SEAT_KIND_BOT]
    token = filled.seat_token
    while not client.table(filled.table_id).outcome.finished:  # the bot answers every move of ours
        view = client.view(filled.table_id, token)
        if view.legal_actions:
            client.submit(filled.table_id, token, view.legal_actions[0].action)
    assert client.wait_finished(filled.table_id, 30).replay_verdict.startswith("valid")


def test_bot_game_finishes_and_is_replay_validated(client: Client) -> None:
    created = client.create_table("cardbench", 2, bots={0: "random", 1: "random"})
    table = client.wait_finished(created.table.table_id, 60)
    assert table.version == 100 and table.replay_verdict.startswith("valid: 100 actions")
    log = client.log(created.table.table_id)
    assert len(log.actions) == 100 and log.seed != 0
    assert all(not e.HasField("audience") for e in log.events)  # the published log holds public events only


def test_a_tampered_log_is_caught_with_the_first_diverging_action(client: Client, store: Any, tables: Any) -> None:
    created = client.create_table("cardbench", 2, bots={0: "random", 1: "random"})
    table_id = created.table.table_id
    client.wait_finished(table_id, 60)
    assert tables.validate_replay(table_id).ok
    log = store.action_log(table_id)
    tampered = log[41]
    other = next(a for a in log[41:] if a.seat == tampered.seat and a.action != tampered.action)
    tampered.action.CopyFrom(other.action)
    store.replace_logged_action(table_id, 41, tampered)
    verdict = tables.validate_replay(table_id)
    assert not verdict.ok and verdict.diverged_at == 42
    assert client.table(table_id).replay_verdict.startswith("invalid: action #42 diverges")


def test_the_log_of_a_running_game_is_not_published(client: Client) -> None:
    table_id, _, _ = cardbench_table(client)
    err = rpc_error(client.log, table_id)
    assert err.code() == grpc.StatusCode.FAILED_PRECONDITION and "once the game is finished" in err.details()


def test_an_acknowledged_move_survives_a_gateway_restart(stack: Stack, store: Any) -> None:
    with Client(stack.gateway_addresses[1]) as c:
        table_id, ann, bob = cardbench_table(c)
        done = c.submit(table_id, ann, first_legal(c, table_id, ann))
    stack.restart("gateway-1")
    with Client(stack.gateway_addresses[1]) as c:
        assert c.table(table_id).version == done.version
        assert c.submit(table_id, bob, first_legal(c, table_id, bob)).version == done.version + 1


def test_listing_is_newest_first_per_game_paged_and_shows_games_to_watch(client: Client) -> None:
    def page(game: str, token: str = "", in_progress: bool = False) -> gw.ListTablesResponse:
        request = gw.ListTablesRequest(game=game, page_size=3, page_token=token, in_progress=in_progress)
        return client.stub.ListTables(request)

    made = [client.create_table("manasurge", 2, player_name="p").table.table_id for _ in range(4)]
    for _ in range(150):  # a flood of another game's tables hides none of these
        client.create_table("cardbench", 2, player_name="flood")
    first = page("manasurge")
    assert [t.table_id for t in first.tables] == made[::-1][:3] and first.next_page_token
    second = page("manasurge", first.next_page_token)
    assert second.tables[0].table_id == made[0]
    assert all(t.config.game == "manasurge" for t in [*first.tables, *second.tables])
    table_id = cardbench_table(client)[0]
    watching = client.watch(table_id)
    next(watching)
    under_way = page("cardbench", in_progress=True)
    assert under_way.tables[0].table_id == table_id and under_way.tables[0].spectators == 1
    assert table_id not in [t.table_id for t in page("cardbench").tables]
    bad = rpc_error(client.stub.ListTables, gw.ListTablesRequest(page_size=500))
    assert bad.code() == grpc.StatusCode.OUT_OF_RANGE


def test_a_player_who_leaves_or_vanishes_from_a_queue_is_never_matched(stack: Stack, client: Client) -> None:
    def join(name: str) -> gw.QueueTicket:
        return client.stub.JoinQueue(gw.JoinQueueRequest(game="manufactory", seats=2, player_name=name))

    gone = join("gone")
    left = client.stub.LeaveQueue(gw.LeaveQueueRequest(ticket_id=gone.ticket_id))
    assert not left.matched
    vanished = join("vanished")  # then never calls WaitForMatch: its ticket lapses (made to lapse now)
    stack.data_redis().expire(keys.ticket(vanished.ticket_id), 1)
    time.sleep(1.2)
    stays = join("stays")
    assert not stays.matched and stays.waiting == 1
    arrives = join("arrives")
    assert arrives.matched
    table = client.table(arrives.table_id)
    assert sorted(s.name for s in table.seats) == ["arrives", "stays"]
    refused = rpc_error(client.stub.LeaveQueue, gw.LeaveQueueRequest(ticket_id=arrives.ticket_id))
    assert refused.code() == grpc.StatusCode.FAILED_PRECONDITION and "already matched" in refused.details()
    unknown = rpc_error(client.stub.LeaveQueue, gw.LeaveQueueRequest(ticket_id=gone.ticket_id))
    assert unknown.code() == grpc.StatusCode.NOT_FOUND


def test_queues_match_close_ratings_first_and_widen_the_window_with_waiting(
    stack: Stack, direct_tables: Any, portal: Any
) -> None:
    from services.tables.matchmaking import Matchmaker
    from services.tables.portal import Blocking

    matchmaker = Blocking(Matchmaker(direct_tables, window=5.0, widen=20.0), portal)
    board = stack.data_redis()
    ids = []
    for name, mu in (("Strong", 60.0), ("Weak", 10.0)):
        player = direct_tables.players
        registered = portal.run(player.register(name + uuid.uuid4().hex[:6]))
        board.hset(f"mf:player:{registered.player_id}:rating:blueprints:2", mapping={"mu": mu, "sigma": 2.0})
        ids.append(registered.player_id)
    strong = matchmaker.join_queue("blueprints", 2, "s", {}, ids[0])
    weak = matchmaker.join_queue("blueprints", 2, "w", {}, ids[1])
    assert not strong.matched and not weak.matched  # 50 points apart: too far at first
    waited = matchmaker.wait_for_match(weak.ticket_id, 4.0)  # the window widens 20 points a second
    deadline = time.monotonic() + 10
    while not waited.matched:
        assert time.monotonic() < deadline
        waited = matchmaker.wait_for_match(weak.ticket_id, 1.0)
    assert waited.table_id


def test_gateway_processes_share_one_address_only_with_reuseport(stack: Stack) -> None:
    """MANAFORGE_GATEWAY_REUSEPORT=1: several gateway processes listen on one address (a pod uses all its cores) and
    any of them serves it; without it a gateway on an address in use stops at start."""
    address = f"127.0.0.1:{free_port()}"

    def start(reuseport: str) -> subprocess.Popen[str]:
        env = {**stack.env(), "MANAFORGE_GATEWAY_REUSEPORT": reuseport}
        command = [sys.executable, "-m", "gateway", "--address", address]
        return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

    sharing = [start("1"), start("1")]
    try:
        for process in sharing:
            assert process.stdout is not None and "gateway on port" in process.stdout.readline()
        assert start("0").wait(60) != 0  # the address is taken
        with Client(address) as client:
            assert "cardbench" in {g.name for g in client.games()}
        sharing[0].terminate()
        sharing[0].wait(30)
        with Client(address) as client:  # the other one serves every new connection now
            assert "cardbench" in {g.name for g in client.games()}
    finally:
        for process in sharing:
            process.kill()
            process.wait(10)
