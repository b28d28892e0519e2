"""Matchmaking under faults, over the real stack (see conftest.py): a gateway that dies or stalls between taking a
match out of its queue and seating its players, and configs a queue must refuse at once.

A gateway dying mid-handover is a process of its own here (`stalled_matchmaker`): the gateway's matchmaking code
over the stack's Redis, stopped for good at a chosen point of the handover, then killed with -9. The players wait
through the stack's real gateways, as their clients would."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from manaforge.v1 import gateway_pb2 as gw
from manaforge.v1.common_pb2 import GameConfig

from deploy.launcher import ROOT, Stack
from engine_core import find_game
from gateway.client import Client
from services.tables import keys
from services.tables.matchmaking import Matchmaker, _queue_key
from services.tables.portal import Portal
from services.tables.service import Tables
from tests.stack.helpers import rpc_error

PATIENCE = 15.0  # seconds a waiting player may take to be matched again (the handover's lease is a few seconds)


def queue_of(game: str, seats: int, options: dict[str, str]) -> str:
    return _queue_key(find_game(game).check_config(GameConfig(game=game, seats=seats, options=options)))


def join(client: Client, game: str, seats: int, name: str, options: dict[str, str]) -> gw.QueueTicket:
    return client.stub.JoinQueue(gw.JoinQueueRequest(game=game, seats=seats, player_name=name, options=options))


def wait_matched(client: Client, ticket: gw.QueueTicket) -> gw.QueueTicket:
    """WaitForMatch until the ticket is matched, as a client does; fails after PATIENCE seconds."""
    deadline = time.monotonic() + PATIENCE
    while not ticket.matched:
        assert time.monotonic() < deadline, f"still waiting after {PATIENCE} s: {ticket}"
        ticket = client.stub.WaitForMatch(gw.WaitForMatchRequest(ticket_id=ticket.ticket_id, timeout_seconds=1))
    return ticket


def seated(client: Client, ticket: gw.QueueTicket) -> gw.SeatView:
    """The matched player's own view: the seat token the ticket handed over works, at the seat it named."""
    assert ticket.seat_token, "a matched ticket hands its seat token over"
    view = client.view(ticket.table_id, ticket.seat_token)
    assert view.seat == ticket.seat
    return view


@pytest.fixture
def fresh(stack: Stack) -> Iterator[Any]:
    """Empty queues (and no handovers of theirs) for the test: each test has its own queue, this is belt and braces
    for a test run again on the same stack."""

    def empty(game: str, seats: int, options: dict[str, str]) -> None:
        queue = queue_of(game, seats, options)
        stack.data_redis().delete(queue, keys.handovers_of(queue), keys.handed_over_of(queue))

    yield empty


class Stalled:
    """A process running a gateway's matchmaking (`stalled_matchmaker`), stopped for good at `point`."""

    def __init__(self, stack: Stack, point: str, call: dict[str, list[Any]]) -> None:
        code = "from tests.stack.test_matchmaking import stalled_matchmaker; stalled_matchmaker()"
        self.process = subprocess.Popen(
            [sys.executable, "-c", code, point, json.dumps(call)],
            cwd=ROOT,
            env=stack.env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def go(self) -> None:
        """Make the call, and return once the process stopped at its point."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write("go\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        assert line.strip() == "stalled", f"the matchmaker did not reach its point: {line!r}"

    def kill(self) -> None:
        self.process.kill()  # -9: nothing of the process runs again
        self.process.wait(10)


def stalled_matchmaker() -> None:
    """Run in a process of its own by `Stalled`: a gateway's matchmaking over the stack's Redis (from the
    environment) that stops for good at one point of a handover. argv: the point ("before the table",
    "after the table" or "seating"), and the call as JSON: {"join": [game, seats, name, options]} or
    {"fill": [ticket id, bot level]}. Made once a line arrives on stdin; prints "stalled" at the point."""
    from services.bootstrap import build_store
    from services.settings import Settings

    point, call = sys.argv[1], json.loads(sys.argv[2])

    async def stop() -> None:
        print("stalled", flush=True)
        await asyncio.Event().wait()

    class Stalling(Tables):
        async def create_table(self, *args: Any, **kwargs: Any) -> Any:
            if point == "before the table":
                await stop()
            made = await super().create_table(*args, **kwargs)
            if point == "after the table":
                await stop()
            return made

        async def join_table(self, *args: Any, **kwargs: Any) -> Any:
            if point == "seating":
                await stop()
            return await super().join_table(*args, **kwargs)

    async def main() -> None:
        matchmaker = Matchmaker(Stalling(build_store(Settings.from_env())))
        await asyncio.to_thread(sys.stdin.readline)
        if "join" in call:
            await matchmaker.join_queue(*call["join"])
        else:
            await matchmaker.fill_with_bots(*call["fill"])
        print("finished without stalling", flush=True)

    asyncio.run(main())


@pytest.mark.parametrize("point", ["before the table", "after the table"])
def test_a_join_killed_before_its_handover_hands_the_waiting_player_back(
    stack: Stack, client: Client, client_b: Client, fresh: Any, point: str
) -> None:
    options = {"turn_limit": "15" if point == "before the table" else "60"}  # a queue of each test's own
    fresh("mana_burn", 2, options)
    dying = Stalled(stack, point, {"join": ["mana_burn", 2, "bob", options]})
    ann = join(client, "mana_burn", 2, "ann", options)
    assert not ann.matched and ann.waiting == 1
    dying.go()  # bob's JoinQueue took ann and bob out of the queue for a match, then its gateway died
    dying.kill()
    bob = join(client_b, "mana_burn", 2, "bob", options)  # bob's call failed: his client joins again
    ann, bob = wait_matched(client, ann), wait_matched(client_b, bob)
    assert ann.table_id == bob.table_id and {ann.seat, bob.seat} == {0, 1}
    table = client.table(ann.table_id)
    assert table.started and sorted(s.name for s in table.seats) == ["ann", "bob"]
    seated(client, ann), seated(client_b, bob)


def test_a_handover_killed_while_seating_is_finished_by_the_waiting_player(
    stack: Stack, client: Client, fresh: Any
) -> None:
    options = {"turn_limit": "30", "simultaneous_win": "share"}
    fresh("mana_burn", 2, options)
    dying = Stalled(stack, "seating", {"join": ["mana_burn", 2, "bob", options]})
    ann = join(client, "mana_burn", 2, "ann", options)
    dying.go()  # the table is made, then its gateway died while seating the players
    dying.kill()
    ann = wait_matched(client, ann)
    table = client.table(ann.table_id)
    assert table.started and sorted(s.name for s in table.seats) == ["ann", "bob"]
    seated(client, ann)


def test_fill_with_bots_takes_back_a_ticket_from_a_dead_handover(stack: Stack, client: Client, fresh: Any) -> None:
    fresh("manasurge", 3, {})
    ann = join(client, "manasurge", 3, "ann", {})
    dying = Stalled(stack, "before the table", {"fill": [ann.ticket_id, "random"]})
    dying.go()  # ann's FillWithBots took her out of the queue, then its gateway died
    dying.kill()
    filled = client.stub.FillWithBots(gw.FillWithBotsRequest(ticket_id=ann.ticket_id, bot_level="random"))
    assert filled.matched  # her client asks again, elsewhere: not "no longer waiting", a table
    table = client.table(filled.table_id)
    assert table.started and sorted(s.kind for s in table.seats) == [gw.SEAT_KIND_HUMAN] + [gw.SEAT_KIND_BOT] * 2
    seated(client, filled)


def test_a_slow_gateway_whose_handover_was_taken_back_seats_nobody(
    client: Client, client_b: Client, direct_tables: Tables, portal: Portal, store: Any, fresh: Any
) -> None:
    """A gateway that takes a match out of the queue, then stalls past the handover's lease and carries on: the
    players are handed back meanwhile, and what the slow gateway made must seat nobody."""
    fresh("manasurge", 2, {})
    go_on = asyncio.Event()
    made: list[str] = []

    class Slow(Tables):
        async def create_table(self, *args: Any, **kwargs: Any) -> Any:
            if not made:  # its first table only
                await go_on.wait()
            table, seat, token = await super().create_table(*args, **kwargs)
            made.append(table.table_id)
            return table, seat, token

    slow = Matchmaker(Slow(direct_tables.store))
    ann = join(client, "manasurge", 2, "ann", {})
    bob_call = asyncio.run_coroutine_threadsafe(slow.join_queue("manasurge", 2, "bob", {}), portal.loop)
    try:
        deadline = time.monotonic() + PATIENCE
        while True:  # bob's slow gateway took ann out of the queue: she is back in it within a few seconds
            assert time.monotonic() < deadline, "ann was not handed back to the queue"
            ann = client.stub.WaitForMatch(gw.WaitForMatchRequest(ticket_id=ann.ticket_id, timeout_seconds=1))
            assert not ann.matched
            if ann.waiting == 1:
                break
    finally:
        portal.loop.call_soon_threadsafe(go_on.set)  # the slow gateway carries on: it makes its table
    bob = bob_call.result(PATIENCE)
    ann = wait_matched(client, ann)
    assert bob.matched and ann.table_id == bob.table_id and {ann.seat, bob.seat} == {0, 1}
    first = made[0]
    assert ann.table_id != first and store.live(first) is None and not store.occupants(first)
    refused = rpc_error(client.stub.GetTable, gw.GetTableRequest(table_id=first))
    assert refused.code() == grpc.StatusCode.NOT_FOUND
    assert sorted(s.name for s in client.table(ann.table_id).seats) == ["ann", "bob"]
    seated(client, ann), seated(client_b, bob)


def test_a_queue_refuses_a_card_set_no_table_can_be_made_of(stack: Stack, client: Client) -> None:
    options = {"card_set": "nope"}
    refused = rpc_error(
        client.stub.JoinQueue, gw.JoinQueueRequest(game="manufactory", seats=2, player_name="ann", options=options)
    )
    assert refused.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "card set" in refused.details() and "'nope'" in refused.details()
    assert stack.data_redis().llen(queue_of("manufactory", 2, options)) == 0
    unknown = rpc_error(
        client.stub.JoinQueue, gw.JoinQueueRequest(game="manufactory", seats=2, player_name="ann", options={"x": "1"})
    )
    assert unknown.code() == grpc.StatusCode.INVALID_ARGUMENT and "'x'" in unknown.details()


def test_fill_with_bots_of_an_unknown_level_leaves_the_ticket_waiting(
    client: Client, client_b: Client, fresh: Any
) -> None:
    fresh("magicka", 2, {})
    ann = join(client, "magicka", 2, "ann", {})
    refused = rpc_error(client.stub.FillWithBots, gw.FillWithBotsRequest(ticket_id=ann.ticket_id, bot_level="god"))
    assert refused.code() == grpc.StatusCode.INVALID_ARGUMENT and "bot level" in refused.details()
    ann = client.stub.WaitForMatch(gw.WaitForMatchRequest(ticket_id=ann.ticket_id, timeout_seconds=0))
    assert not ann.matched and ann.waiting == 1
    bob = join(client_b, "magicka", 2, "bob", {})
    assert bob.matched and wait_matched(client, ann).table_id == bob.table_id
