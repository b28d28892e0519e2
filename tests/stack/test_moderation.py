"""A mute that holds (docs/operations.md, "mute / ban / clear"): against the real stack, a muted player can start or
join nothing (no table, no queue, no challenge sent or accepted) and is told why and until when, keeps the games
under way, and a mute with a duration ends by itself. And every Gateway method is classified for a mute."""

from __future__ import annotations

import calendar
import os
import re
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
from manaforge.v1 import admin_pb2, gateway_pb2
from manaforge.v1.admin_pb2_grpc import AdminStub
from manaforge.v1.common_pb2 import GameConfig

from deploy.launcher import LOOPBACK_LIMITS, Stack
from gateway import admin as console
from gateway.client import Client
from tests.stack.helpers import first_legal, rpc_error

KEY = "test-operator-key-moderation"
OPERATOR = (("x-operator-key", KEY), ("x-operator-name", "mona"))
UNTIL = re.compile(r"until (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) UTC")


@pytest.fixture(scope="module", params=["redis", "cluster"])
def ops_stack(request: pytest.FixtureRequest) -> Iterator[Stack]:
    settings = {**LOOPBACK_LIMITS, "MANAFORGE_OPERATOR_KEY": KEY}
    cluster = 3 if request.param == "cluster" else 0
    with Stack(gateways=2, worker_concurrency=2, response_timeout=30.0, settings=settings, cluster=cluster) as running:
        yield running


@pytest.fixture
def admin(ops_stack: Stack) -> Iterator[AdminStub]:
    with grpc.insecure_channel(ops_stack.gateway_addresses[0]) as channel:
        yield AdminStub(channel)


def eventually(check: Callable[[], Any], timeout: float = 15.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        try:
            result = check()
            if result:
                return result
        except (AssertionError, grpc.RpcError):
            if time.monotonic() > deadline:
                raise
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s")
        time.sleep(0.2)


def registered(stack: Stack, name: str, gateway: int = 0) -> tuple[gateway_pb2.Player, Client]:
    with Client(stack.gateway_addresses[0]) as guest:
        player = guest.stub.RegisterPlayer(gateway_pb2.RegisterPlayerRequest(name=f"{name}{uuid.uuid4().hex[:6]}"))
    return player, Client(stack.gateway_addresses[gateway], (player.player_id, player.secret_key))


def set_standing(
    admin: AdminStub, player_id: str, standing: admin_pb2.Standing.ValueType, seconds: int = 0, reason: str = ""
) -> admin_pb2.AdminResult:
    request = admin_pb2.SetPlayerStandingRequest(
        player_id=player_id, standing=standing, reason=reason, duration_seconds=seconds
    )
    result: admin_pb2.AdminResult = admin.SetPlayerStanding(request, metadata=OPERATOR)
    return result


def ends_at(message: str) -> float:
    """The unix time a refusal says the mute ends."""
    found = UNTIL.search(message)
    assert found, message
    return float(calendar.timegm(time.strptime(found.group(1), "%Y-%m-%d %H:%M:%S")))


def cardbench(seats: int = 2) -> GameConfig:
    return GameConfig(game="cardbench", seats=seats)


def test_every_gateway_method_is_classified_for_a_mute() -> None:
    """A new Gateway call cannot be forgotten: it is either refused to a muted player or allowed, by name."""
    methods = {method.name for method in console.GATEWAY_SERVICE.methods}
    assert console.MUTED_MAY_NOT.isdisjoint(console.MUTED_MAY)
    assert methods == console.MUTED_MAY_NOT | console.MUTED_MAY, "classify every Gateway method in gateway/admin.py"
    starting = {"CreateTable", "JoinTable", "JoinQueue", "FillWithBots", "CreateChallenge", "AcceptChallenge"}
    assert starting <= console.MUTED_MAY_NOT
    assert {"SubmitAction", "Play", "Watch", "GetView", "RejoinTable", "LeaveQueue"} <= console.MUTED_MAY


def test_a_muted_player_can_join_or_challenge_nothing_is_told_until_when_and_finishes_games(
    ops_stack: Stack, admin: AdminStub
) -> None:
    gus_player, gus = registered(ops_stack, "gus", gateway=1)
    hal_player, hal = registered(ops_stack, "hal")
    _, ivy = registered(ops_stack, "ivy")
    try:
        # before the mute: a game under way, a challenge waiting for gus, an open table of hal's
        created = gus.create_table("cardbench", 2, player_name="gus")
        playing, token = created.table.table_id, created.seat_token
        hal.join(playing, "hal")
        waiting = ivy.stub.CreateChallenge(
            gateway_pb2.CreateChallengeRequest(player_id=gus_player.player_id, config=cardbench())
        )
        open_table = hal.create_table("cardbench", 2, player_name="hal").table.table_id
        sent_before = gus.stub.CreateChallenge(
            gateway_pb2.CreateChallengeRequest(player_id=hal_player.player_id, config=cardbench())
        )

        muted_at = time.time()
        done = set_standing(admin, gus_player.player_id, admin_pb2.STANDING_MUTED, 600, "spam in names")
        assert "muted" in done.done and "until" in done.done and "(1 challenge sent withdrawn)" in done.done

        # in force within a second at every gateway (a table made meanwhile is gus' own, and harmless here)
        eventually(lambda: rpc_error(gus.create_table, "cardbench", 2, player_name="gus"))
        for refusal in [
            rpc_error(gus.join, open_table, "gus"),
            rpc_error(
                gus.stub.CreateChallenge,
                gateway_pb2.CreateChallengeRequest(player_id=hal_player.player_id, config=cardbench()),
            ),
            rpc_error(gus.stub.AcceptChallenge, gateway_pb2.AcceptChallengeRequest(challenge_id=waiting.challenge_id)),
            rpc_error(gus.create_table, "cardbench", 2, player_name="gus"),
            rpc_error(gus.stub.JoinQueue, gateway_pb2.JoinQueueRequest(game="cardbench", seats=2, player_name="g")),
        ]:
            assert refusal.code() == grpc.StatusCode.PERMISSION_DENIED, refusal.details()
            assert "muted by the operator" in refusal.details() and "spam in names" in refusal.details()
            assert abs(ends_at(refusal.details()) - (muted_at + 600)) < 30, refusal.details()

        # the challenge gus sent before the mute was withdrawn: hal cannot start a game with gus by accepting it
        late = rpc_error(
            hal.stub.AcceptChallenge, gateway_pb2.AcceptChallengeRequest(challenge_id=sent_before.challenge_id)
        )
        assert late.code() == grpc.StatusCode.FAILED_PRECONDITION and "already declined" in late.details()
        # nothing was made: hal's seat is still open (ivy takes it), no challenge reached hal, ivy's still waits
        assert ivy.join(open_table, "ivy").seat == 1
        assert not hal.stub.ListChallenges(gateway_pb2.ListChallengesRequest()).received
        sent = ivy.stub.ListChallenges(gateway_pb2.ListChallengesRequest()).sent
        assert [c.challenge_id for c in sent] == [waiting.challenge_id] and not sent[0].table_id
        assert not gus.stub.ListChallenges(gateway_pb2.ListChallengesRequest()).sent

        # the game under way goes on: look, watch, play, rejoin the own seat
        assert gus.view(playing, token).seat == 0
        assert next(gus.watch(playing, token)).view.seat == 0
        rejoined = gus.stub.RejoinTable(gateway_pb2.RejoinTableRequest(table_id=playing))
        assert rejoined.seat == 0
        if gus.view(playing, rejoined.seat_token).legal_actions:
            gus.submit(playing, rejoined.seat_token, first_legal(gus, playing, rejoined.seat_token))

        overview = admin.GetOverview(admin_pb2.GetOverviewRequest(), metadata=OPERATOR)
        assert gus_player.player_id in overview.muted
        assert abs(overview.standing_until[gus_player.player_id] - (muted_at + 600)) < 30

        set_standing(admin, gus_player.player_id, admin_pb2.STANDING_UNSPECIFIED)
        eventually(
            lambda: (
                gus.stub.AcceptChallenge(gateway_pb2.AcceptChallengeRequest(challenge_id=waiting.challenge_id)).table_id
            )
        )
    finally:
        for client in (gus, hal, ivy):
            client.close()


def test_a_mute_with_a_duration_ends_by_itself(ops_stack: Stack, admin: AdminStub) -> None:
    player, kim = registered(ops_stack, "kim", gateway=1)
    try:
        set_standing(admin, player.player_id, admin_pb2.STANDING_MUTED, 3, "cool down")
        refused = eventually(lambda: rpc_error(kim.create_table, "cardbench", 2, player_name="kim"))
        assert refused.code() == grpc.StatusCode.PERMISSION_DENIED and "until" in refused.details()
        assert player.player_id in admin.GetOverview(admin_pb2.GetOverviewRequest(), metadata=OPERATOR).muted
        eventually(lambda: kim.create_table("cardbench", 2, player_name="kim").table.table_id, timeout=10)
        overview = admin.GetOverview(admin_pb2.GetOverviewRequest(), metadata=OPERATOR)
        assert player.player_id not in overview.muted and player.player_id not in overview.standing_until
    finally:
        kim.close()


def test_a_banned_player_is_told_until_when_and_bad_durations_change_nothing(
    ops_stack: Stack, admin: AdminStub
) -> None:
    player, lou = registered(ops_stack, "lou")
    try:
        for standing, seconds, code in [
            (admin_pb2.STANDING_MUTED, -1, grpc.StatusCode.OUT_OF_RANGE),
            (admin_pb2.STANDING_BANNED, 11 * 365 * 86_400, grpc.StatusCode.OUT_OF_RANGE),
            (admin_pb2.STANDING_UNSPECIFIED, 60, grpc.StatusCode.INVALID_ARGUMENT),
        ]:
            request = admin_pb2.SetPlayerStandingRequest(
                player_id=player.player_id, standing=standing, duration_seconds=seconds
            )
            bad = rpc_error(admin.SetPlayerStanding, request, metadata=OPERATOR)
            assert bad.code() == code and "duration_seconds" in bad.details(), bad.details()
        assert player.player_id not in admin.GetOverview(admin_pb2.GetOverviewRequest(), metadata=OPERATOR).muted
        lou.create_table("cardbench", 2, player_name="lou")

        set_standing(admin, player.player_id, admin_pb2.STANDING_BANNED, 3600, "abuse")
        banned = eventually(lambda: rpc_error(lou.stub.GetPlayer, gateway_pb2.GetPlayerRequest()))
        assert banned.code() == grpc.StatusCode.PERMISSION_DENIED and "banned by the operator" in banned.details()
        assert abs(ends_at(banned.details()) - (time.time() + 3600)) < 30 and "abuse" in banned.details()
        set_standing(admin, player.player_id, admin_pb2.STANDING_MUTED)  # no duration: until cleared
        muted = eventually(lambda: "muted" in (d := rpc_error(lou.create_table, "cardbench", 2).details()) and d)
        assert muted.startswith("muted by the operator until cleared: this player may finish"), muted
        assert (
            player.player_id not in admin.GetOverview(admin_pb2.GetOverviewRequest(), metadata=OPERATOR).standing_until
        )
        set_standing(admin, player.player_id, admin_pb2.STANDING_UNSPECIFIED)
    finally:
        lou.close()


def test_the_console_command_mutes_for_a_while_and_shows_until_when(ops_stack: Stack) -> None:
    player, moe = registered(ops_stack, "moe")
    moe.close()
    console_command = [sys.executable, "-m", "gateway.cli.operator", "--gateway", ops_stack.gateway_addresses[1]]
    env = {**os.environ, "MANAFORGE_OPERATOR_KEY": KEY}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*console_command, *args], capture_output=True, text=True, timeout=60, env=env)

    muted = run("mute", player.player_id, "--for", "2h", "--reason", "flooding")
    assert muted.returncode == 0, muted.stderr
    assert f"({player.player_id}) muted until " in muted.stdout and "(in 2 h): flooding" in muted.stdout
    shown = run("overview")
    assert re.search(rf"muted: .*{player.player_id} \(until \d{{4}}-\d\d-\d\d \d\d:\d\d:\d\d UTC\)", shown.stdout)
    bad = run("ban", player.player_id, "--for", "soon")
    assert bad.returncode == 2 and "a duration such as 90s, 30m, 2h or 7d" in bad.stderr
    assert run("clear", player.player_id).stdout.strip().endswith("in good standing")
