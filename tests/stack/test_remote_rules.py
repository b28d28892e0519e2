"""The rules service on the move path: gateways and workers send every move to two rules processes (round robin),
one of which is killed mid-run, and every game still plays to a valid end."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest

from deploy.launcher import LOOPBACK_LIMITS, Stack
from gateway.client import Client
from tests.stack.helpers import cardbench_table, first_legal, hand, play, rpc_error, scrape, value


@pytest.fixture(scope="module")
def remote() -> Iterator[Stack]:
    with Stack(gateways=1, rules=2, rules_on_move_path=True, metrics=True, settings=dict(LOOPBACK_LIMITS)) as running:
        yield running


def test_games_play_through_two_rules_processes_while_one_is_killed(remote: Stack) -> None:
    with Client(remote.gateway_addresses[0]) as client:
        bot_tables = [client.create_table("mana_burn", 2, bots={0: "random", 1: "random"}) for _ in range(3)]
        table_id, ann, bob = cardbench_table(client)
        tokens = [ann, bob]
        for move in range(60):
            if move == 20:
                remote.processes["rules-1"].kill()  # mid-run: moves in flight there go to the other
            seat = move % 2
            done = client.submit(table_id, tokens[seat], first_legal(client, table_id, tokens[seat]))
            assert done.version == move + 1
        for created in bot_tables:
            table = client.wait_finished(created.table.table_id, 120)
            assert table.replay_verdict.startswith("valid")
    moves = value(scrape(remote, "rules"), "manaforge_call_seconds_count", service="rules", method="Move")
    assert moves >= 40  # the surviving rules process took every move after the kill


def test_a_refusal_from_the_rules_service_names_the_rule(remote: Stack) -> None:
    with Client(remote.gateway_addresses[0]) as client:
        table_id, ann, bob = cardbench_table(client)
        missing = next(c for c in range(52) if c not in hand(client, table_id, ann))
        refused = rpc_error(client.submit, table_id, ann, play(missing))
        assert refused.code() == grpc.StatusCode.FAILED_PRECONDITION and refused.details().startswith("play from hand:")
        out_of_turn = rpc_error(client.submit, table_id, bob, first_legal(client, table_id, ann))
        assert out_of_turn.code() == grpc.StatusCode.FAILED_PRECONDITION and "turn order" in out_of_turn.details()
        assert client.table(table_id).version == 0
