"""The live path at scale, against the real stack: many watchers on one gateway, a dropped pub/sub connection,
stale caches, the Play stream, and dropped Redis connections on the commit path."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import grpc
import pytest
from manaforge.v1 import gateway_pb2 as gw
from manaforge.v1.games.cardbench_pb2 import CardbenchAction, CardbenchState
from manaforge.v1.gateway_pb2_grpc import GatewayStub

from deploy.launcher import Stack
from gateway.client import Client
from services.edge import pack
from services.tables import fanout
from services.tables.portal import Portal
from tests.stack.helpers import cardbench_table, first_legal, hand, play, rpc_error


def visible_seqs(store: Any, table_id: str, seat: int | None) -> list[int]:
    """The seqs of every stored event `seat` may see (None: a spectator sees public events only)."""
    return [e.seq for e in store.events(table_id, 1) if not e.HasField("audience") or e.audience == seat]


def check_stream(updates: list[gw.WatchUpdate], store: Any, table_id: str, seat: int | None) -> None:
    """Every event the watcher may see arrived once and in order, and its views only moved forward to the end."""
    seqs = [e.seq for u in updates for e in u.events]
    assert seqs == visible_seqs(store, table_id, seat)
    versions = [u.view.version for u in updates]
    assert versions == sorted(set(versions)), f"a view repeated or went back: {versions}"
    live = store.live(table_id)
    assert versions[-1] == live.version


async def collect(stub: Any, request: gw.WatchRequest, until: Callable[[gw.WatchUpdate], bool]) -> list[gw.WatchUpdate]:
    updates = []
    async for update in stub.Watch(request):
        updates.append(update)
        if until(update):
            break
    return updates


def play_moves(client: Client, table_id: str, tokens: list[str], moves: int, pause: float = 0.0) -> None:
    for _ in range(moves):
        seat = client.table(table_id).pending.seats[0]
        client.submit(table_id, tokens[seat], first_legal(client, table_id, tokens[seat]))
        time.sleep(pause)


def test_two_thousand_watchers_on_one_gateway_each_get_every_update_once_in_order(stack: Stack, store: Any) -> None:
    address = stack.gateway_addresses[0]
    moves = 12
    with Client(address) as client:
        tables = [cardbench_table(client) for _ in range(20)]

    async def run() -> list[tuple[str, int | None, list[gw.WatchUpdate]]]:
        channels = [grpc.aio.insecure_channel(address) for _ in range(4)]
        stubs = [GatewayStub(c) for c in channels]
        watchers = []
        for i in range(2000):
            table_id, ann, bob = tables[i % len(tables)]
            seat, token = [(None, ""), (0, ann), (1, bob)][i % 3]
            request = gw.WatchRequest(table_id=table_id, seat_token=token, without_text=i % 2 == 0)
            task = collect(stubs[i % len(stubs)], request, lambda u: u.view.version >= moves)
            watchers.append((table_id, seat, asyncio.ensure_future(task)))
        await asyncio.sleep(1.0)  # every stream open (their first updates on the way) before the moves start
        loop = asyncio.get_running_loop()
        with Client(stack.gateway_addresses[1]) as mover:  # moves through the other gateway: pub/sub carries them
            for table_id, ann, bob in tables:
                await loop.run_in_executor(None, play_moves, mover, table_id, [ann, bob], moves)
        results = await asyncio.wait_for(asyncio.gather(*(task for _, _, task in watchers)), 120)
        for channel in channels:
            await channel.close(grace=None)
        return [(table_id, seat, updates) for (table_id, seat, _), updates in zip(watchers, results, strict=True)]

    results = asyncio.run(run())
    assert len(results) == 2000
    for table_id, seat, updates in results:
        check_stream(updates, store, table_id, seat)
        assert updates[-1].view.version == moves


def test_watchers_carry_on_when_the_gateways_pubsub_connection_is_killed(stack: Stack, store: Any) -> None:
    address = stack.gateway_addresses[0]
    with Client(address) as client:
        table_id, ann, bob = cardbench_table(client)

    async def run() -> list[list[gw.WatchUpdate]]:
        async with grpc.aio.insecure_channel(address) as channel:
            stub = GatewayStub(channel)
            requests = [gw.WatchRequest(table_id=table_id, seat_token=t) for t in ("", ann, bob)]
            tasks = [asyncio.ensure_future(collect(stub, r, lambda u: u.view.version >= 30)) for r in requests]
            await asyncio.sleep(0.5)
            loop = asyncio.get_running_loop()
            with Client(stack.gateway_addresses[1]) as mover:
                await loop.run_in_executor(None, play_moves, mover, table_id, [ann, bob], 10, 0.01)
                killed = stack.kill_redis_clients("pubsub")
                assert killed >= 1  # the hub of the watchers' gateway (and any other gateway's that follows a table)
                await loop.run_in_executor(None, play_moves, mover, table_id, [ann, bob], 20, 0.01)
            return list(await asyncio.wait_for(asyncio.gather(*tasks), 60))

    for seat, updates in zip((None, 0, 1), asyncio.run(run()), strict=True):
        check_stream(updates, store, table_id, seat)


def test_play_streams_carry_on_when_the_gateways_pubsub_connection_is_killed(stack: Stack, store: Any) -> None:
    """A Play stream reads its seat's hub inbox itself: after a lost pub/sub connection it rereads the gap from the
    durable Stream, as a Watch stream does, and gets every event once, in order."""
    address = stack.gateway_addresses[0]
    with Client(address) as client:
        table_id, ann, bob = cardbench_table(client)

    async def updates(stub: Any, token: str) -> list[gw.WatchUpdate]:
        call = stub.Play()
        await call.write(gw.PlayRequest(watch=gw.WatchRequest(table_id=table_id, seat_token=token)))
        seen = []
        async for message in call:
            seen.append(message.update)
            if message.update.view.version >= 30:
                call.cancel()
                break
        return seen

    async def run() -> list[list[gw.WatchUpdate]]:
        async with grpc.aio.insecure_channel(address) as channel:
            stub = GatewayStub(channel)
            tasks = [asyncio.ensure_future(updates(stub, token)) for token in (ann, bob)]
            await asyncio.sleep(0.5)
            loop = asyncio.get_running_loop()
            with Client(stack.gateway_addresses[1]) as mover:  # moves through the other gateway: pub/sub carries them
                await loop.run_in_executor(None, play_moves, mover, table_id, [ann, bob], 10, 0.01)
                assert stack.kill_redis_clients("pubsub") >= 1
                await loop.run_in_executor(None, play_moves, mover, table_id, [ann, bob], 20, 0.01)
            return list(await asyncio.wait_for(asyncio.gather(*tasks), 60))

    for seat, seen in zip((0, 1), asyncio.run(run()), strict=True):
        check_stream(seen, store, table_id, seat)


def test_a_stale_cached_state_never_lets_a_move_land_on_an_old_version(stack: Stack, store: Any, tables: Any) -> None:
    with Client(stack.gateway_addresses[0]) as a, Client(stack.gateway_addresses[1]) as b:
        table_id, ann, bob = cardbench_table(a)
        a.submit(table_id, ann, play(hand(a, table_id, ann)[0]))  # gateway A now believes version 1
        kept = hand(b, table_id, bob)[1]  # a card bob holds at version 1 and still holds later
        b.submit(table_id, bob, play(hand(b, table_id, bob)[0]))  # versions 2 and 3 pass A by (no watcher there)
        b.submit(table_id, ann, play(hand(b, table_id, ann)[0]))
        # At A's stale version 1 it is bob's turn and `kept` is in his hand: the move is legal on the guess, so only
        # the compare-and-set can catch it; it must land on version 3, as version 4.
        done = a.submit(table_id, bob, play(kept))
        assert done.version == 4
    log = store.action_log(table_id)
    assert [x.version for x in log] == [1, 2, 3, 4] and [x.seat for x in log] == [0, 1, 0, 1]
    assert tables.validate_replay(table_id).ok  # every stored state follows from the one before


def test_play_stream_carries_actions_and_updates_and_answers_refusals_in_band(stack: Stack, store: Any) -> None:
    address = stack.gateway_addresses[0]
    with Client(address) as client:
        table_id, ann, bob = cardbench_table(client)

    async def seat(stub: Any, me: int, token: str, refuse_once: bool) -> list[gw.PlayUpdate]:
        call = stub.Play()
        await call.write(gw.PlayRequest(watch=gw.WatchRequest(table_id=table_id, seat_token=token)))
        seen = []
        async for message in call:
            seen.append(message)
            if message.HasField("result"):
                continue
            view = message.update.view
            if view.pending.seats == [me] and not view.outcome.finished:  # read on: the stream ends once done
                state = CardbenchState()
                view.view.Unpack(state)
                if refuse_once:  # a card not in hand first: refused with the rule, the stream goes on
                    missing = next(c for c in range(52) if c not in state.hands[me].cards)
                    await call.write(gw.PlayRequest(action=gw.SubmitActionRequest(action=play(missing))))
                    refuse_once = False
                card = state.hands[me].cards[0]
                action = gw.SubmitActionRequest(
                    action=pack(CardbenchAction(card=card)), client_action_id=f"v{view.version}"
                )
                await call.write(gw.PlayRequest(action=action))
        return seen

    async def run() -> list[list[gw.PlayUpdate]]:
        async with grpc.aio.insecure_channel(address) as channel:
            stub = GatewayStub(channel)
            return list(await asyncio.wait_for(asyncio.gather(seat(stub, 0, ann, True), seat(stub, 1, bob, False)), 60))

    ann_seen, bob_seen = asyncio.run(run())
    results = [m.result for m in ann_seen if m.HasField("result")]
    assert results[0].code == grpc.StatusCode.FAILED_PRECONDITION.value[0] and "play from hand" in results[0].message
    assert all(r.code == 0 for r in results[1:]) and len(results) == 51
    assert [r.response.version for r in results[1:]] == list(range(1, 100, 2))
    for me, seen in ((0, ann_seen), (1, bob_seen)):
        check_stream([m.update for m in seen if m.HasField("update")], store, table_id, me)


def test_play_stream_with_results_in_updates_answers_each_action_once(stack: Stack, store: Any) -> None:
    """results_in_updates: an applied move is answered inside the update of its commit (one message, not two);
    a refusal and a duplicate, which make no update, still get a result; every action is answered exactly once."""
    address = stack.gateway_addresses[0]
    with Client(address) as client:
        table_id, ann, bob = cardbench_table(client)

    async def seat(stub: Any, me: int, token: str, odd_ones: bool) -> tuple[list[gw.PlayUpdate], int]:
        call = stub.Play()
        opening = gw.WatchRequest(table_id=table_id, seat_token=token, results_in_updates=True)
        await call.write(gw.PlayRequest(watch=opening))
        seen, sent, first_id = [], 0, ""
        async for message in call:
            seen.append(message)
            if message.HasField("result"):
                continue
            view = message.update.view
            if view.pending.seats == [me] and not view.outcome.finished:
                state = CardbenchState()
                view.view.Unpack(state)
                if odd_ones and first_id:  # a card not in hand (refused), then the first move again (a duplicate)
                    missing = next(c for c in range(52) if c not in state.hands[me].cards)
                    await call.write(gw.PlayRequest(action=gw.SubmitActionRequest(action=play(missing))))
                    again = gw.SubmitActionRequest(action=play(state.hands[me].cards[0]), client_action_id=first_id)
                    await call.write(gw.PlayRequest(action=again))
                    sent, odd_ones = sent + 2, False
                card = state.hands[me].cards[0]
                action_id = f"v{view.version}"
                first_id = first_id or action_id
                action = gw.SubmitActionRequest(action=pack(CardbenchAction(card=card)), client_action_id=action_id)
                await call.write(gw.PlayRequest(action=action))
                sent += 1
        return seen, sent

    async def run() -> list[tuple[list[gw.PlayUpdate], int]]:
        async with grpc.aio.insecure_channel(address) as channel:
            stub = GatewayStub(channel)
            return list(await asyncio.wait_for(asyncio.gather(seat(stub, 0, ann, True), seat(stub, 1, bob, False)), 60))

    (ann_seen, ann_sent), (bob_seen, bob_sent) = asyncio.run(run())
    for me, seen, sent in ((0, ann_seen, ann_sent), (1, bob_seen, bob_sent)):
        updates = [m for m in seen if m.HasField("update")]
        check_stream([m.update for m in updates], store, table_id, me)
        folded = [m for m in updates if m.HasField("answered")]
        results = [m.result for m in seen if m.HasField("result")]
        assert len(folded) + len(results) == sent == (52 if me == 0 else 50)  # every action answered once
        assert len(folded) == 50  # every applied move answered by its own update: no message of its own
        for m in folded:
            answer, version = m.answered, m.update.view.version
            assert answer.code == 0 and answer.response.version == version and not answer.response.duplicate
            assert answer.client_action_id == f"v{version - 1}" and not answer.response.events
            assert version % 2 == (1 if me == 0 else 0)  # only the mover's own update carries the answer
    refused, duplicate = (m.result for m in ann_seen if m.HasField("result"))
    assert refused.code == grpc.StatusCode.FAILED_PRECONDITION.value[0] and "play from hand" in refused.message
    assert duplicate.code == 0 and duplicate.response.duplicate and duplicate.response.version == 1
    assert not [m for m in bob_seen if m.HasField("result")]


def test_first_play_message_must_be_watch(stack: Stack) -> None:
    async def run() -> grpc.StatusCode:
        async with grpc.aio.insecure_channel(stack.gateway_addresses[0]) as channel:
            call = GatewayStub(channel).Play()  # type: ignore[call-arg]
            await call.write(gw.PlayRequest(action=gw.SubmitActionRequest()))
            try:
                async for _ in call:
                    pass
            except grpc.aio.AioRpcError as exc:
                assert "first message must be `watch`" in (exc.details() or "")
                return exc.code()
            return grpc.StatusCode.OK

    assert asyncio.run(run()) == grpc.StatusCode.INVALID_ARGUMENT


def test_moves_land_once_when_redis_drops_every_client_connection(stack: Stack, store: Any) -> None:
    with Client(stack.gateway_addresses[0]) as client:
        table_id, ann, bob = cardbench_table(client)
        tokens = [ann, bob]
        for move in range(20):
            if move % 5 == 4:  # every gateway's pool and commit connection, and the hubs, dropped at once
                stack.kill_redis_clients("normal")
            seat = move % 2
            done = client.submit(table_id, tokens[seat], first_legal(client, table_id, tokens[seat]), f"drop-{move}")
            assert done.version == move + 1 and not done.duplicate
        again = rpc_error(client.submit, table_id, ann, play(99), "drop-19")  # bob's id, but ann's seat: no answer
        assert again.code() == grpc.StatusCode.FAILED_PRECONDITION
    log = store.action_log(table_id)
    assert [x.version for x in log] == list(range(1, 21))


def test_a_stopping_gateway_ends_its_streams_with_where_to_resume_and_nothing_is_missed(
    stack: Stack, store: Any
) -> None:
    with Client(stack.gateway_addresses[0]) as client:
        table_id, ann, bob = cardbench_table(client)
        play_moves(client, table_id, [ann, bob], 4)
    with Client(stack.gateway_addresses[1]) as leaving:
        stream = leaving.watch(table_id, ann)
        updates = [next(stream)]
        stack.restart("gateway-1")  # SIGTERM: the gateway drains
        error = rpc_error(lambda: updates.extend(stream))
    assert error.code() == grpc.StatusCode.UNAVAILABLE and "gateway draining" in error.details()
    resume = int(error.details().split("after_seq=")[1].split()[0])
    assert resume == updates[-1].seq
    with Client(stack.gateway_addresses[0]) as client:
        play_moves(client, table_id, [ann, bob], 4)
        for update in client.watch(table_id, ann, after_seq=resume):
            updates.append(update)
            if update.view.version >= 8:
                break
    check_stream(updates, store, table_id, 0)


def test_a_watcher_that_falls_behind_rereads_the_gap_and_gets_every_event_once(
    stack: Stack, store: Any, direct_tables: Any, portal: Portal, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A watcher that does not read while commits land (its inbox limit lowered to 3 here) is told to resynchronise
    instead of queueing more: it reads what it missed from the durable stream, so nothing is lost or repeated."""
    monkeypatch.setattr(fanout, "INBOX_LIMIT", 3)
    with Client(stack.gateway_addresses[0]) as client:
        table_id, ann, bob = cardbench_table(client)

        async def watch() -> list[gw.WatchUpdate]:
            updates = direct_tables.watch(table_id)  # a spectator on this process's hub
            received = [await anext(updates)]
            await asyncio.get_running_loop().run_in_executor(None, play_moves, client, table_id, [ann, bob], 10)
            live = await direct_tables.store.live(table_id)
            while received[-1].version < live.version:
                received.append(await asyncio.wait_for(anext(updates), 10))
            await updates.aclose()
            return [gw.WatchUpdate.FromString(update.encoded) for update in received]

        updates = portal.run(watch(), 60)
    assert len(updates) < 1 + 10  # a catch-up covered several commits: the inbox did overflow
    check_stream(updates, store, table_id, None)


def test_watchers_joining_mid_game_on_both_gateways_get_every_event_once_while_both_commit(
    stack: Stack, store: Any
) -> None:
    """Each seat moves through its own gateway, so each gateway's hub hands its own commits over (dropping their
    pub/sub echoes) and takes the other's from pub/sub; watchers join on either gateway at many points of the game."""
    addresses = stack.gateway_addresses[:2]
    moves = 30
    with Client(addresses[0]) as client:
        table_id, ann, bob = cardbench_table(client)

    async def run() -> list[tuple[int | None, list[gw.WatchUpdate]]]:
        channels = [grpc.aio.insecure_channel(a) for a in addresses]
        stubs = [GatewayStub(c) for c in channels]
        loop = asyncio.get_running_loop()
        watchers: list[tuple[int | None, asyncio.Future[list[gw.WatchUpdate]]]] = []
        with Client(addresses[0]) as a, Client(addresses[1]) as b:
            for i in range(moves):
                if i % 3 == 0:
                    for seat, token in ((None, ""), (0, ann), (1, bob)):
                        request = gw.WatchRequest(table_id=table_id, seat_token=token, without_text=True)
                        task = collect(stubs[(i // 3 + (seat or 0)) % 2], request, lambda u: u.view.version >= moves)
                        watchers.append((seat, asyncio.ensure_future(task)))
                seat = a.table(table_id).pending.seats[0]
                mover, token = (a, ann) if seat == 0 else (b, bob)
                action = first_legal(mover, table_id, token)
                await loop.run_in_executor(None, mover.submit, table_id, token, action)
        results = await asyncio.wait_for(asyncio.gather(*(task for _, task in watchers)), 60)
        for channel in channels:
            await channel.close(grace=None)
        return [(seat, updates) for (seat, _), updates in zip(watchers, results, strict=True)]

    results = asyncio.run(run())
    assert len(results) == 30
    for seat, updates in results:
        check_stream(updates, store, table_id, seat)
