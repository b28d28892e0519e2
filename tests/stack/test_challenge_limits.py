"""Challenge floods, against the real stack (one Redis, and a Redis Cluster): the limits of open challenges hold
under concurrent calls through both gateways (per challenger, per challenged player, one at a time from one player
to another); a declined challenger waits before challenging the same player again, longer after each decline; a
player refuses challenges from everyone or for some games, and the challenger is told so."""

from __future__ import annotations

import contextlib
import re
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import grpc
import manaforge_sdk as mf
import pytest
from manaforge.v1 import gateway_pb2 as gw
from manaforge.v1.common_pb2 import GameConfig

from deploy.launcher import Stack
from gateway.client import Client
from services.tables.challenges import Challenges
from services.tables.errors import QuotaError
from services.tables.portal import Portal
from services.tables.service import Tables
from tests.stack.helpers import rpc_error
from tests.stack.test_terminal_games import spawn

pytestmark = pytest.mark.timeout(240)

SENT = 20  # open challenges from one player (docs/players.md)
RECEIVED = 20  # open challenges for one player
COOLDOWN = 60  # seconds a declined challenger waits, at the first decline


@dataclass
class Account:
    player_id: str
    name: str
    key: str
    clients: list[Client]  # one per gateway process

    @property
    def client(self) -> Client:
        return self.clients[0]


@pytest.fixture
def register(stack: Stack) -> Iterator[Callable[[str], Account]]:
    """Registers players, each with a client on every gateway; all closed at the end."""
    with contextlib.ExitStack() as closing:

        def made(prefix: str) -> Account:
            with Client(stack.gateway_addresses[0]) as anonymous:
                player = anonymous.stub.RegisterPlayer(gw.RegisterPlayerRequest(name=f"{prefix}{uuid.uuid4().hex[:8]}"))
            clients = [
                closing.enter_context(Client(address, player=(player.player_id, player.secret_key)))
                for address in stack.gateway_addresses
            ]
            return Account(player.player_id, player.name, player.secret_key, clients)

        yield made


def challenge(whom: str, game: str = "cardbench") -> gw.CreateChallengeRequest:
    return gw.CreateChallengeRequest(player_id=whom, config=GameConfig(game=game, seats=2))


def said(refusal: grpc.RpcError) -> str:
    return refusal.details() or ""


def at_once(calls: Sequence[Callable[[], Any]]) -> tuple[list[Any], list[grpc.RpcError]]:
    """Every call started together (one thread each): what they returned, and the refusals."""
    made: list[Any] = []
    refused: list[grpc.RpcError] = []
    with ThreadPoolExecutor(len(calls)) as pool:
        for future in [pool.submit(call) for call in calls]:
            try:
                made.append(future.result())
            except grpc.RpcError as exc:
                refused.append(exc)
    return made, refused


def test_sixty_concurrent_challenges_from_one_account_to_one_player_make_one(
    register: Callable[[str], Account],
) -> None:
    ann, bob = register("ann"), register("bob")
    calls = [partial(ann.clients[n % 2].stub.CreateChallenge, challenge(bob.player_id)) for n in range(60)]
    made, refused = at_once(calls)
    assert len(made) == 1, f"{len(made)} challenges made from one player to another at once"
    assert {exc.code() for exc in refused} == {grpc.StatusCode.RESOURCE_EXHAUSTED}
    assert f"challenge limit: a challenge from you to {bob.name} is waiting already" in said(refused[0])
    assert len(bob.client.stub.ListChallenges(gw.ListChallengesRequest()).received) == 1


def test_concurrent_challenges_hold_the_limit_of_each_challenger(register: Callable[[str], Account]) -> None:
    ann = register("ann")
    others = [register("opp") for _ in range(SENT + 10)]
    calls = [partial(ann.clients[n % 2].stub.CreateChallenge, challenge(o.player_id)) for n, o in enumerate(others)]
    made, refused = at_once(calls)
    assert len(made) == SENT
    assert {exc.code() for exc in refused} == {grpc.StatusCode.RESOURCE_EXHAUSTED}
    assert f"challenge limit: {SENT} challenges from you are waiting already" in said(refused[0])
    assert len(ann.client.stub.ListChallenges(gw.ListChallengesRequest()).sent) == SENT


def test_concurrent_challenges_hold_the_limit_of_each_challenged_player(register: Callable[[str], Account]) -> None:
    bob = register("bob")
    others = [register("opp") for _ in range(RECEIVED + 10)]
    calls = [partial(o.clients[n % 2].stub.CreateChallenge, challenge(bob.player_id)) for n, o in enumerate(others)]
    made, refused = at_once(calls)
    assert len(made) == RECEIVED
    assert {exc.code() for exc in refused} == {grpc.StatusCode.RESOURCE_EXHAUSTED}
    assert f"challenge limit: {RECEIVED} challenges are waiting for {bob.name} already" in said(refused[0])
    assert len(bob.client.stub.ListChallenges(gw.ListChallengesRequest()).received) == RECEIVED


def test_a_player_who_declines_everything_hears_once_from_one_hostile_account(
    register: Callable[[str], Account],
) -> None:
    """The flood of the audit: one account challenging again as soon as it is declined, for five seconds."""
    ann, bob, cid = register("ann"), register("bob"), register("cid")
    received, refusals = 0, []
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            made = ann.client.stub.CreateChallenge(challenge(bob.player_id))
        except grpc.RpcError as exc:
            refusals.append(exc)
            time.sleep(0.05)
            continue
        received += 1
        bob.client.stub.DeclineChallenge(gw.DeclineChallengeRequest(challenge_id=made.challenge_id))
    assert received == 1
    assert {exc.code() for exc in refusals} == {grpc.StatusCode.RESOURCE_EXHAUSTED}
    found = re.search(
        rf"{bob.name} declined your last challenge: you may challenge them again in (\d+) s", said(refusals[-1])
    )
    assert found is not None, said(refusals[-1])
    assert COOLDOWN - 6 <= int(found.group(1)) <= COOLDOWN
    cid.client.stub.CreateChallenge(challenge(bob.player_id))  # another player is not held back
    ann.client.stub.CreateChallenge(challenge(cid.player_id))  # nor is the declined one, with another player


def test_declined_as_not_this_game_the_challenger_waits_only_to_offer_that_game(
    register: Callable[[str], Account],
) -> None:
    ann, bob = register("ann"), register("bob")
    made = ann.client.stub.CreateChallenge(challenge(bob.player_id, "mana_burn"))
    bob.client.stub.DeclineChallenge(
        gw.DeclineChallengeRequest(challenge_id=made.challenge_id, reason=gw.DECLINE_REASON_GAME)
    )
    refusal = rpc_error(ann.client.stub.CreateChallenge, challenge(bob.player_id, "mana_burn"))
    assert refusal.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert f"{bob.name} declined your last challenge to mana_burn: you may challenge them to mana_burn again in" in (
        refusal.details()
    )
    ann.client.stub.CreateChallenge(challenge(bob.player_id, "cardbench"))  # another game is welcome


def test_the_cool_down_doubles_at_each_decline_up_to_its_cap_and_an_accepted_challenge_ends_it(
    register: Callable[[str], Account], direct_tables: Tables, portal: Portal
) -> None:
    """A table service of short cool-downs (1 s, up to 4 s) on the stack's Redis."""
    quick = Challenges(
        direct_tables.players, direct_tables.seating, direct_tables.inbox, cooldown=1.0, longest_cooldown=4.0
    )
    ann, bob = register("ann"), register("bob")

    def decline_one() -> None:
        made = portal.run(quick.create(ann.player_id, challenge(bob.player_id)))
        portal.run(quick.decline(bob.player_id, made.challenge_id, gw.DECLINE_REASON_LATER, ""))

    def waits() -> int:
        with pytest.raises(QuotaError) as refused:
            portal.run(quick.create(ann.player_id, challenge(bob.player_id)))
        found = re.search(r"again in (\d+) s", str(refused.value))
        assert found is not None, refused.value
        return int(found.group(1))

    seen = []
    for _ in range(4):
        decline_one()
        seen.append(waits())
        time.sleep(seen[-1] + 0.2)
    assert seen == [1, 2, 4, 4]
    made = portal.run(quick.create(ann.player_id, challenge(bob.player_id)))
    portal.run(quick.accept(bob.player_id, made.challenge_id))
    decline_one()  # accepted once: the next decline is a first one again
    assert waits() == 1


def test_a_player_refuses_challenges_from_everyone_or_for_a_game(
    stack: Stack, register: Callable[[str], Account]
) -> None:
    ann, bob = register("ann"), register("bob")
    stub = bob.client.stub
    assert stub.GetChallengePreferences(gw.GetChallengePreferencesRequest()).accept_from in (
        gw.CHALLENGES_FROM_UNSPECIFIED,
        gw.CHALLENGES_FROM_EVERYONE,
    )
    stored = stub.SetChallengePreferences(gw.ChallengePreferences(refused_games=["mana_burn"]))
    assert list(stored.refused_games) == ["mana_burn"]
    refusal = rpc_error(ann.client.stub.CreateChallenge, challenge(bob.player_id, "mana_burn"))
    assert refusal.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert refusal.details() == f"{bob.name} does not accept challenges for mana_burn"
    made = ann.client.stub.CreateChallenge(challenge(bob.player_id, "cardbench"))  # other games still come
    bob.client.stub.AcceptChallenge(gw.AcceptChallengeRequest(challenge_id=made.challenge_id))

    stub.SetChallengePreferences(gw.ChallengePreferences(accept_from=gw.CHALLENGES_FROM_NOBODY))
    refusal = rpc_error(ann.client.stub.CreateChallenge, challenge(bob.player_id))
    assert refusal.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert refusal.details() == f"{bob.name} does not accept challenges"
    read = stub.GetChallengePreferences(gw.GetChallengePreferencesRequest())
    assert read.accept_from == gw.CHALLENGES_FROM_NOBODY and list(read.refused_games) == []

    bad = rpc_error(stub.SetChallengePreferences, gw.ChallengePreferences(refused_games=["no_such_game"]))
    assert bad.code() == grpc.StatusCode.INVALID_ARGUMENT and "no_such_game" in bad.details()
    assert stub.GetChallengePreferences(gw.GetChallengePreferencesRequest()).accept_from == gw.CHALLENGES_FROM_NOBODY

    with mf.connect(stack.gateway_addresses[0]) as sdk:  # the SDK's way
        sdk._use(mf.Credentials(bob.player_id, bob.key, bob.name))
        assert sdk.refuse_challenges().accept_from == gw.CHALLENGES_FROM_EVERYONE
    ann.client.stub.CreateChallenge(challenge(bob.player_id))  # welcome again


@pytest.mark.parametrize("stack", ["redis"], indirect=True)
def test_a_person_refuses_challenges_from_the_terminal(
    stack: Stack, register: Callable[[str], Account], tmp_path: Path
) -> None:
    def typed(*words: str, said: str) -> None:
        terminal = spawn(stack, tmp_path, *words)
        terminal.expect(said)
        assert terminal.finish() == 0

    ann, bob = register("ann"), f"bob{uuid.uuid4().hex[:6]}"
    typed("register", bob, said=f"registered as {bob}")
    typed("refuse", "mana_burn", "rnd", said="you refuse challenges for mana_burn, rnd; you take the others")
    rnd = gw.CreateChallengeRequest(player_name=bob, config=GameConfig(game="rnd", seats=3))
    assert rpc_error(ann.client.stub.CreateChallenge, rnd).details() == f"{bob} does not accept challenges for rnd"
    typed("refuse", "all", said=r"you refuse every challenge \(`manaforge refuse none` takes them again\)")
    typed("refuse", said="you refuse every challenge")
    typed("refuse", "none", said="you take every challenge")
    ann.client.stub.CreateChallenge(rnd)
