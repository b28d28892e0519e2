"""The stateless rules service over gRPC, and both servers driven by grpcurl through reflection (an outside client):
docs/api.md's walkthrough run as written, and the proto comments served with the descriptors."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from google.protobuf.any_pb2 import Any as AnyMessage
from google.protobuf.descriptor_pb2 import FileDescriptorSet
from manaforge.v1 import rules_pb2
from manaforge.v1.common_pb2 import GameConfig
from manaforge.v1.games.cardbench_pb2 import CardbenchAction, CardbenchState
from manaforge.v1.rules_pb2_grpc import RulesServiceStub

from deploy.launcher import LOOPBACK_LIMITS, Stack
from tests.stack.helpers import rpc_error

# Tests of what an outside client sees: one storage layout is enough (the shared stack also runs on a Redis Cluster).
one_layout = pytest.mark.parametrize("stack", ["redis"], indirect=True)
GRPCURL = shutil.which("grpcurl") or str(Path(sys.executable).parent / "grpcurl")
ROOT = Path(__file__).resolve().parents[2]


def test_rules_service_plays_statelessly(stack: Stack) -> None:
    with grpc.insecure_channel(stack.rules_address) as channel:
        rules = RulesServiceStub(channel)
        state = rules.NewGame(rules_pb2.NewGameRequest(config=GameConfig(game="cardbench", seats=2), seed=5)).state
        again = rules.NewGame(rules_pb2.NewGameRequest(config=GameConfig(game="cardbench", seats=2), seed=5)).state
        assert state == again  # the same seed, the same deal
        legal = rules.LegalActions(rules_pb2.LegalActionsRequest(state=state, seat=0)).actions
        assert len(legal) == 5 and legal[0].text.startswith("play ")
        assert rules.LegalActions(rules_pb2.LegalActionsRequest(state=state, seat=1)).actions == []
        applied = rules.Apply(rules_pb2.ApplyRequest(state=state, seat=0, action=legal[0].action))
        assert [e.type for e in applied.events] == ["CardPlayed", "CardDrawn"]
        view = rules.View(rules_pb2.ViewRequest(state=applied.state, seat=1))
        seen = CardbenchState()
        view.view.Unpack(seen)
        assert list(seen.hands[0].cards) == [] and len(seen.hands[1].cards) == 5 and not seen.deck
        assert not seen.header.HasField("rng")
        out_of_turn = rpc_error(rules.Apply, rules_pb2.ApplyRequest(state=state, seat=1, action=legal[0].action))
        assert out_of_turn.code() == grpc.StatusCode.FAILED_PRECONDITION and "turn order" in out_of_turn.details()
        bad = AnyMessage()
        bad.Pack(CardbenchAction(card=99))
        illegal = rpc_error(rules.Apply, rules_pb2.ApplyRequest(state=state, seat=0, action=bad))
        assert illegal.code() == grpc.StatusCode.FAILED_PRECONDITION and "play from hand" in illegal.details()
        unknown = rpc_error(rules.NewGame, rules_pb2.NewGameRequest(config=GameConfig(game="chess", seats=2)))
        assert unknown.code() == grpc.StatusCode.INVALID_ARGUMENT and "unknown game" in unknown.details()
        too_many = rpc_error(rules.NewGame, rules_pb2.NewGameRequest(config=GameConfig(game="cardbench", seats=3)))
        assert too_many.code() == grpc.StatusCode.INVALID_ARGUMENT and "player count" in too_many.details()


def grpcurl(address: str, *args: str) -> str:
    """grpcurl -plaintext [flags...] ADDRESS [method]: the last argument is the method (or `list`)."""
    command = [GRPCURL, "-plaintext", *args[:-1], address, args[-1]]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_grpcurl_drives_the_gateway_through_reflection(stack: Stack) -> None:
    address = stack.gateway_addresses[0]
    services = grpcurl(address, "list")
    assert "manaforge.v1.Gateway" in services and "grpc.health.v1.Health" in services
    games = json.loads(grpcurl(address, "manaforge.v1.Gateway/ListGames"))
    assert "cardbench" in [g["name"] for g in games["games"]]
    request = json.dumps({"config": {"game": "cardbench", "seats": 2}, "player_name": "curl"})
    created = json.loads(grpcurl(address, "-d", request, "manaforge.v1.Gateway/CreateTable"))
    table_id, token = created["table"]["tableId"], created["seatToken"]
    joined = json.loads(
        grpcurl(address, "-d", json.dumps({"table_id": table_id, "player_name": "b"}), "manaforge.v1.Gateway/JoinTable")
    )
    assert joined["seat"] == 1
    view = json.loads(
        grpcurl(address, "-d", json.dumps({"table_id": table_id, "seat_token": token}), "manaforge.v1.Gateway/GetView")
    )
    action = view["legalActions"][0]["action"]  # an Any, resolved through reflection
    assert action["@type"] == "type.googleapis.com/manaforge.v1.games.CardbenchAction"
    submit = {"table_id": table_id, "seat_token": token, "client_action_id": "curl-1", "action": action}
    done = json.loads(grpcurl(address, "-d", json.dumps(submit), "manaforge.v1.Gateway/SubmitAction"))
    assert done["version"] == "1"
    health = json.loads(grpcurl(address, "grpc.health.v1.Health/Check"))
    assert health["status"] == "SERVING"


def test_rules_service_refuses_a_state_no_game_reaches(stack: Stack) -> None:
    with grpc.insecure_channel(stack.rules_address) as channel:
        rules = RulesServiceStub(channel)
        config = GameConfig(game="cardbench", seats=2)
        packed = rules.NewGame(rules_pb2.NewGameRequest(config=config, seed=5)).state
        state = CardbenchState()
        packed.Unpack(state)
        doubled = CardbenchState()
        doubled.CopyFrom(state)
        doubled.hands[1].cards[0] = doubled.hands[0].cards[0]  # one card in two hands
        unknown = CardbenchState()
        unknown.CopyFrom(state)
        unknown.deck[0] = 10_000  # a drawn card that does not exist
        stray = CardbenchState()
        stray.CopyFrom(state)
        stray.header.pending.seats[:] = [7]
        for broken, rule in ((doubled, "card conservation"), (unknown, "card conservation"), (stray, "pending")):
            bad = AnyMessage()
            bad.Pack(broken)
            for call, request in (
                (rules.LegalActions, rules_pb2.LegalActionsRequest(state=bad, seat=0)),
                (rules.Apply, rules_pb2.ApplyRequest(state=bad, seat=0, action=bad)),
                (rules.View, rules_pb2.ViewRequest(state=bad, seat=0)),
            ):
                refused = rpc_error(call, request)
                assert refused.code() == grpc.StatusCode.INVALID_ARGUMENT and rule in refused.details()


def walkthrough() -> str:
    """docs/api.md's grpcurl walkthrough: its indented lines, as one bash script."""
    section = (ROOT / "docs" / "api.md").read_text()
    return "".join(line[4:] + "\n" for line in section.splitlines() if line.startswith("    "))


def aimed(script: str, gateway: str, rules: str) -> str:
    """The walkthrough's lines aimed at these servers, with this test's tools (the venv running the tests)."""
    for written, here in (
        ("127.0.0.1:50051", gateway),
        ("127.0.0.1:50061", rules),
        (".venv/bin/grpcurl ", f"{GRPCURL} "),
        (".venv/bin/python ", f"{sys.executable} "),
    ):
        script = script.replace(written, here)
    return script


def test_the_readme_walkthrough_runs_as_written(tmp_path: Path) -> None:
    """On a stack of its own: the README's reader registers Ann first (its terminal lines), and the shared stack's
    tests play as "ann"."""
    script = walkthrough()
    assert script.count("grpcurl") >= 10 and "127.0.0.1:50051" in script and "127.0.0.1:50061" in script
    with Stack(settings=LOOPBACK_LIMITS) as stack:
        # what the README's terminal section has a reader do first: the name Ann is then a registered player's
        manaforge = str(Path(sys.executable).parent / "manaforge")
        registered = subprocess.run(
            [manaforge, "--gateway", stack.gateway_addresses[0], "register", "Ann"],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "MANAFORGE_HOME": str(tmp_path)},
        )
        assert registered.returncode == 0, registered.stderr
        script = aimed(script, stack.gateway_addresses[0], stack.rules_address)
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT
        )
    assert done.returncode == 0, done.stderr + done.stdout[-2000:]
    out = done.stdout
    assert "manaforge.v1.Gateway" in out and "// one per seat; empty: every seat open for humans" in out
    assert '"tableId"' in out and '"legalActions"' in out and '"prompt": "play a card"' in out
    submitted = re.search(r'^\{\n  "version": "1"', out, re.MULTILINE)  # SubmitAction's answer: the first move
    assert submitted, out
    assert "rpc GetOutcome" in out and "rpc LegalActions" in out  # the rules service's methods, as described
    assert '"type": "CardPlayed"' in out and '"text": "seat 0 played ' in out  # Apply's events


def test_the_readme_walkthrough_pasted_with_no_servers_says_why_without_tracebacks() -> None:
    """Pasted into a shell (which goes on after a failed line) while nothing serves: each failed call says so, and
    the lines that read its answer say the field is missing, in one line, not with a traceback."""
    with socket.socket() as one, socket.socket() as two:  # loopback ports nobody listens on
        one.bind(("127.0.0.1", 0))
        two.bind(("127.0.0.1", 0))
        nobody = [f"127.0.0.1:{s.getsockname()[1]}" for s in (one, two)]
        script = aimed(walkthrough(), *nobody)
        done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert "Traceback" not in done.stderr, done.stderr
    assert "no table.tableId: the answer is not JSON (did the call before fail?)" in done.stderr, done.stderr
    assert "no legalActions.0.action" in done.stderr and "no actions.0.action" in done.stderr, done.stderr


@one_layout
def test_reflection_serves_the_proto_comments(stack: Stack, tmp_path: Path) -> None:
    """Every comment of our proto files reaches a reflection client as the documentation (leading) comment, which
    `grpcurl describe` shows; every field of the API's messages has one."""
    built = FileDescriptorSet.FromString((ROOT / "proto" / "manaforge" / "descriptors.binpb").read_bytes())
    for address, service, file_name in (
        (stack.gateway_addresses[0], "manaforge.v1.Gateway", "manaforge/v1/gateway.proto"),
        (stack.rules_address, "manaforge.v1.RulesService", "manaforge/v1/rules.proto"),
    ):
        served_path = tmp_path / f"{service}.protoset"
        command = [GRPCURL, "-plaintext", "-protoset-out", str(served_path), address, "describe", service]
        described = subprocess.run(command, capture_output=True, text=True, timeout=60, check=True).stdout
        served = {file.name: file for file in FileDescriptorSet.FromString(served_path.read_bytes()).file}
        ours = [file for file in built.file if file.name.startswith("manaforge/") and file.name in served]
        assert file_name in served and len(ours) >= 2, sorted(served)  # the service's file and what it imports
        for file in ours:
            written = {
                tuple(place.path): place.leading_comments or place.trailing_comments
                for place in file.source_code_info.location
                if place.leading_comments or place.trailing_comments
            }
            shown = {tuple(place.path): place.leading_comments for place in served[file.name].source_code_info.location}
            missing = {path: text for path, text in written.items() if shown.get(path) != text}
            assert written and not missing, (file.name, missing)
            if file.name in (file_name, "manaforge/v1/common.proto"):  # the API's messages: every field documented
                undocumented = [
                    f"{message.name}.{field.name}"
                    for m, message in enumerate(served[file.name].message_type)
                    for f, field in enumerate(message.field)
                    if not shown.get((4, m, 2, f))  # FileDescriptorProto.message_type, DescriptorProto.field
                ]
                assert not undocumented, (file.name, undocumented)
            if file.name == file_name:  # the service's own comments, as `describe` prints them
                for path, text in written.items():
                    if path[0] == 6:  # FileDescriptorProto.service
                        assert f"// {text.strip().splitlines()[0]}" in described, (text, described)
