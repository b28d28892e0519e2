"""Bot accounts and challenges against the real stack, through the SDK: a bot account written with the SDK takes a
person's challenge, plays it to the end and is rated on the bots' leaderboard; a busy bot declines with a reason;
an expired challenge is gone; bad input is refused with the status and message of the rule.

A stack of its own: challenges last CHALLENGE_TTL seconds and a bot account plays one game at a time here."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import manaforge_sdk as mf
import pytest
from manaforge.v1 import gateway_pb2 as gw

from deploy.launcher import LOOPBACK_LIMITS, Stack

ROOT = Path(__file__).resolve().parents[2]
CHALLENGE_TTL = 3.0
BOT_CALLS = 120  # per minute: a burst of 12
pytestmark = pytest.mark.timeout(90)


@pytest.fixture(scope="module")
def bot_stack() -> Iterator[Stack]:
    settings = {
        **LOOPBACK_LIMITS,
        "MANAFORGE_CHALLENGE_TTL": str(CHALLENGE_TTL),
        "MANAFORGE_BOT_GAMES": "1",
        "MANAFORGE_LIMIT_BOT_CALLS_PER_MINUTE": str(BOT_CALLS),
    }
    with Stack(gateways=1, response_timeout=1.0, settings=settings) as running:
        yield running


def player(stack: Stack, prefix: str, bot: bool = False) -> mf.Client:
    client = mf.connect(stack.gateway_addresses[0])
    credentials = client.stub.RegisterPlayer(gw.RegisterPlayerRequest(name=f"{prefix}_{uuid.uuid4().hex[:8]}"))
    client._use(mf.Credentials(credentials.player_id, credentials.secret_key, credentials.name))
    if bot:
        assert client.upgrade_to_bot().bot
    return client


def first(events: Iterator[gw.PlayerEvent], kind: str) -> Any:
    for event in events:
        if event.WhichOneof("kind") == kind:
            return getattr(event, kind)
    raise AssertionError(f"the stream ended before a {kind} event")


def refusal(call: Any, *args: Any) -> mf.ManaforgeError:
    with pytest.raises(mf.ManaforgeError) as refused:
        call(*args)
    return refused.value


def test_a_bot_account_takes_a_persons_challenge_plays_it_and_is_rated_on_the_bots_leaderboard(
    bot_stack: Stack,
) -> None:
    person, bot = player(bot_stack, "ann"), player(bot_stack, "robo", bot=True)
    assert bot.credentials is not None and person.credentials is not None
    served: list[mf.Result] = []
    runner = threading.Thread(target=lambda: served.extend(bot.serve(lambda view, legal: legal[0][0], games=1)))
    runner.start()
    events = person.events()
    challenge = person.challenge(bot.credentials.player_id, "cardbench", 2, clock=30)
    assert challenge.status == gw.CHALLENGE_STATUS_PENDING and challenge.challenged_name == bot.credentials.name
    accepted = first(events, "challenge_accepted")
    assert accepted.challenge_id == challenge.challenge_id and accepted.table_id
    started = first(events, "game_started")
    assert (started.table_id, started.seat) == (accepted.table_id, 0)
    table = person.table(started.table_id)
    assert [(s.name, s.bot_account) for s in table.seats] == [
        (person.credentials.name, False),
        (bot.credentials.name, True),
    ]
    assert first(events, "your_turn").table_id == started.table_id  # cardbench: seat 0 leads
    mine = person.play(started.table_id, started.seat_token, lambda view, legal: legal[-1][0])
    ended = first(events, "game_ended")
    assert ended.table_id == started.table_id and ended.outcome == mine.outcome
    runner.join(30)
    assert not runner.is_alive() and [r.table_id for r in served] == [started.table_id] and served[0].seat == 1
    assert person.wait_verdict(started.table_id).replay_verdict.startswith("valid")
    deadline = time.monotonic() + 20
    while not any(e.player_id == bot.credentials.player_id for e in person.leaderboard("cardbench", 2, bots=True)):
        assert time.monotonic() < deadline, "the bot account was not rated on the bots' leaderboard"
        time.sleep(0.2)
    people = [e.player_id for e in person.leaderboard("cardbench", 2)]
    assert person.credentials.player_id in people and bot.credentials.player_id not in people
    bots = [e.player_id for e in person.leaderboard("cardbench", 2, bots=True)]
    assert person.credentials.player_id not in bots
    rating = next(r for r in bot.me().ratings if r.game == "cardbench")
    assert rating.games == 1 and rating.rank >= 1


def test_a_busy_bot_declines_with_a_reason_and_an_expired_challenge_is_gone(bot_stack: Stack) -> None:
    ann, bob, bot = player(bot_stack, "ann"), player(bot_stack, "bob"), player(bot_stack, "robo", bot=True)
    assert bot.credentials is not None
    first_one = ann.challenge(bot.credentials.player_id, "cardbench", 2, clock=60)
    accepted = bot.accept(first_one.challenge_id)
    assert accepted.status == gw.CHALLENGE_STATUS_ACCEPTED and not person_table_finished(ann, accepted.table_id)
    # its one game is under way (MANAFORGE_BOT_GAMES=1): a second challenge is declined at once, as busy
    events = bob.events()
    busy = bob.challenge(bot.credentials.player_id, "cardbench", 2)
    assert busy.status == gw.CHALLENGE_STATUS_DECLINED and busy.reason == gw.DECLINE_REASON_BUSY
    assert "busy: a bot account plays at most 1 games at once" in busy.reason_text
    declined = first(events, "challenge_declined")
    assert declined.challenge_id == busy.challenge_id and declined.reason == gw.DECLINE_REASON_BUSY
    # a challenge nobody answers is gone after CHALLENGE_TTL seconds
    waiting = ann.challenge(bob.credentials.player_id if bob.credentials else "", "cardbench", 2)
    time.sleep(CHALLENGE_TTL + 0.5)
    gone = refusal(bob.accept, waiting.challenge_id)
    assert gone.code == grpc.StatusCode.NOT_FOUND
    assert f"challenge: '{waiting.challenge_id}' is unknown or has expired (a challenge lasts 3 s)" in gone.details


def person_table_finished(client: mf.Client, table_id: str) -> bool:
    table = client.table(table_id)
    assert table.started
    return table.outcome.finished


def test_bad_challenges_and_bot_only_calls_are_refused_by_the_rule(bot_stack: Stack) -> None:
    ann, bob, bot = player(bot_stack, "ann"), player(bot_stack, "bob"), player(bot_stack, "robo", bot=True)
    assert ann.credentials and bob.credentials and bot.credentials
    unknown = refusal(ann.challenge, "0123456789abcdef", "cardbench", 2)
    assert unknown.code == grpc.StatusCode.NOT_FOUND and "unknown player: '0123456789abcdef'" in unknown.details
    themselves = refusal(ann.challenge, ann.credentials.player_id, "cardbench", 2)
    assert themselves.code == grpc.StatusCode.INVALID_ARGUMENT and "cannot challenge themselves" in themselves.details
    to_bob = ann.challenge(bob.credentials.player_id, "cardbench", 2)
    for call in (bot.accept, lambda cid: bot.decline(cid, "later")):
        not_yours = refusal(call, to_bob.challenge_id)
        assert not_yours.code == grpc.StatusCode.PERMISSION_DENIED
        assert "challenge: only the challenged player may" in not_yours.details
    people_busy = refusal(bob.decline, to_bob.challenge_id, "busy")
    assert people_busy.code == grpc.StatusCode.PERMISSION_DENIED
    assert "bot account: declining as busy is for bot accounts only" in people_busy.details
    declined = bob.decline(to_bob.challenge_id, "later", "after lunch")
    assert (declined.reason, declined.reason_text) == (gw.DECLINE_REASON_LATER, "after lunch")
    again = refusal(bob.accept, to_bob.challenge_id)
    assert again.code == grpc.StatusCode.FAILED_PRECONDITION and "challenge: already declined" in again.details
    twice = refusal(bot.upgrade_to_bot)
    assert twice.code == grpc.StatusCode.FAILED_PRECONDITION and "a bot account already" in twice.details
    people_queue = refusal(bot.queue, "cardbench", 2)
    assert people_queue.code == grpc.StatusCode.FAILED_PRECONDITION
    assert "bot account: queues are for people unless they allow bots" in people_queue.details
    guest = mf.connect(bot_stack.gateway_addresses[0])
    anonymous = refusal(guest.challenge, bob.credentials.player_id, "cardbench", 2)
    assert anonymous.code == grpc.StatusCode.UNAUTHENTICATED


def test_a_bot_accounts_calls_are_limited(bot_stack: Stack) -> None:
    bot = player(bot_stack, "robo", bot=True)  # the upgrade: its first call as a bot account
    limited = None
    for _ in range(BOT_CALLS // 10 + 1):
        try:
            bot.stub.GetPlayer(gw.GetPlayerRequest())
        except grpc.RpcError as error:
            limited = error
            break
    assert limited is not None and limited.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "rate limit: too many calls of this bot account" in (limited.details() or "")


def test_the_challenge_bot_example_takes_a_challenge_and_declines_another_game(
    bot_stack: Stack, tmp_path: Path
) -> None:
    name = f"example_{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "MANAFORGE_GATEWAY": bot_stack.gateway_addresses[0], "MANAFORGE_HOME": str(tmp_path)}
    example = str(ROOT / "examples" / "challenge_bot.py")
    running = subprocess.Popen([sys.executable, example, name, "1"], env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert running.stdout is not None
        ready = running.stdout.readline()
        assert ready.startswith(f"bot account {name} (") and ready.endswith("): waiting for challenges\n"), ready
        bot_id = ready.split("(")[1].split(")")[0]
        person = player(bot_stack, "ann")
        events = person.events()
        other = person.challenge(bot_id, "mana_burn", 2)
        declined = first(events, "challenge_declined")
        assert declined.challenge_id == other.challenge_id and declined.reason == gw.DECLINE_REASON_GAME
        person.challenge(bot_id, "cardbench", 2)
        started = first(events, "game_started")
        mine = person.play(started.table_id, started.seat_token, lambda view, legal: legal[0][0])
        out, _ = running.communicate(timeout=30)
        assert running.returncode == 0
        assert out.startswith(f"table {started.table_id}: seat 1 "), out
        assert mine.outcome.finished
    finally:
        running.kill()
        running.wait()


def test_the_event_stream_resumes_across_a_gateway_restart_and_misses_nothing(bot_stack: Stack) -> None:
    ann, bob, cat = player(bot_stack, "ann"), player(bot_stack, "bob"), player(bot_stack, "cat")
    assert bob.credentials is not None
    events = bob.events()
    before = ann.challenge(bob.credentials.player_id, "cardbench", 2)
    assert first(events, "challenge_received").challenge_id == before.challenge_id
    bot_stack.restart("gateway-0")  # drains: the stream ends UNAVAILABLE and is opened again after its last cursor
    # from another player: one challenge from Ann to Bob may wait at a time (docs/players.md, Challenges)
    during = cat.challenge(bob.credentials.player_id, "cardbench", 2)
    received = first(events, "challenge_received")
    assert received.challenge_id == during.challenge_id  # the one before is not sent again, this one is not lost


def test_a_bot_account_meets_only_players_who_allow_bots_in_a_queue(bot_stack: Stack) -> None:
    ann, bot = player(bot_stack, "ann"), player(bot_stack, "robo", bot=True)
    assert ann.credentials and bot.credentials
    # a person's ticket for people only and the bot's wait in queues of their own: they are not matched
    people = ann.stub.JoinQueue(gw.JoinQueueRequest(game="blueprints", seats=2))
    bots = bot.stub.JoinQueue(gw.JoinQueueRequest(game="blueprints", seats=2, allow_bots=True))
    assert (people.matched, people.waiting, bots.matched, bots.waiting) == (False, 1, False, 1)
    for ticket, client in ((people, ann), (bots, bot)):
        client.stub.LeaveQueue(gw.LeaveQueueRequest(ticket_id=ticket.ticket_id))
    # a person who allows bots is matched with it
    seats: dict[str, mf.Seat] = {}

    def queue(name: str, client: mf.Client) -> None:
        seats[name] = client.queue("mana_burn", 2, fill_after=None, allow_bots=True)

    waiting = [threading.Thread(target=queue, args=item) for item in (("ann", ann), ("bot", bot))]
    for thread in waiting:
        thread.start()
    for thread in waiting:
        thread.join(30)
    assert seats["ann"].table_id == seats["bot"].table_id
    table = ann.table(seats["ann"].table_id)
    assert {(s.player_id, s.bot_account) for s in table.seats} == {
        (ann.credentials.player_id, False),
        (bot.credentials.player_id, True),
    }
