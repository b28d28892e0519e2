"""The client SDK (sdk/, manaforge_sdk) against the real stack: the example bot plays a rated game to its end; the
bot runner carries a game across gateway restarts and a lost answer with no move lost or made twice; bad input
gets a clear error; the package installs on its own into a fresh virtual environment."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import grpc
import manaforge_sdk as mf
import pytest
from manaforge.v1.common_pb2 import DecisionKind
from manaforge.v1.games.cardbench_pb2 import CardbenchAction, CardbenchState
from manaforge.v1.games.rnd_pb2 import RndAction

from deploy.launcher import Stack

# A client's tests: one storage layout is enough (the shared stack also runs on a Redis Cluster for the server's).
pytestmark = pytest.mark.parametrize("stack", ["redis"], indirect=True)

ROOT = Path(__file__).resolve().parents[2]
MOVES = 100  # a cardbench match


def unique(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:8]}"


def wait_rated(client: mf.Client, game: str, seats: int, timeout: float = 20.0) -> Any:
    """The player's rating for the game and seat count, once the validated game has been rated."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ratings = [r for r in client.me().ratings if (r.game, r.seats) == (game, seats) and r.games > 0]
        if ratings:
            return ratings[0]
        time.sleep(0.1)
    raise AssertionError(f"no rating for {game} at {seats} seats after {timeout} s")


def test_the_first_bot_plays_a_rated_game_to_its_end_and_registers_once(stack: Stack, tmp_path: Path) -> None:
    name = unique("first")
    env = {**os.environ, "MANAFORGE_GATEWAY": stack.gateway_addresses[0], "MANAFORGE_HOME": str(tmp_path)}
    example = str(ROOT / "examples" / "first_bot.py")
    ran = subprocess.run([sys.executable, example, name], env=env, capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.splitlines()
    table_id = lines[0].removeprefix("table ").removesuffix(": playing seat 0")
    assert lines[1].startswith(("seat 0 won, ", "seat 0 lost, ", "seat 0 drew, ")), lines
    assert lines[2].startswith("replay: valid: "), lines
    saved = mf.credentials_path(stack.gateway_addresses[0], name).relative_to(Path.home() / ".config" / "manaforge")
    path = tmp_path / saved
    assert path.stat().st_mode & 0o777 == 0o600
    credentials = mf.Credentials.load(path)
    assert credentials is not None and credentials.name == name
    with mf.connect(stack.gateway_addresses[0], credentials) as client:
        log = client.log(table_id)
        assert log.table.outcome.finished and len(log.actions) == MOVES
        assert [s.name for s in log.table.seats] == [name, "bot (heuristic)"]
        assert log.table.seats[0].player_id == credentials.player_id
        assert wait_rated(client, "cardbench", 2).games == 1
    # a second run plays under the saved registration (registering the name again would be refused)
    again = subprocess.run([sys.executable, example, name], env=env, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    with mf.connect(stack.gateway_addresses[0], credentials) as client:
        assert wait_rated(client, "cardbench", 2, timeout=0.1).games >= 1
        deadline = time.monotonic() + 20
        while wait_rated(client, "cardbench", 2).games < 2:
            assert time.monotonic() < deadline, "the second game was not rated"
            time.sleep(0.1)


class LostAnswer(grpc.RpcError):
    """What a client sees when a gateway goes away after a move landed, before its answer arrived."""

    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.UNAVAILABLE

    def details(self) -> str:
        return "the answer was lost"


class LoseOneAnswer(grpc.UnaryUnaryClientInterceptor):  # type: ignore[type-arg]
    """Makes the next SubmitAction (once armed) land on the gateway, then loses its answer."""

    def __init__(self) -> None:
        self.armed = False
        self.lost = 0

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        answer = continuation(details, request)
        if self.armed and details.method.endswith("/SubmitAction"):
            answer.result()  # it landed
            self.armed = False
            self.lost += 1
            raise LostAnswer()
        return answer


def test_the_runner_carries_a_game_across_gateway_restarts_and_a_lost_answer(stack: Stack) -> None:
    lose = LoseOneAnswer()
    restarts: list[threading.Thread] = []
    decisions = 0

    def restart_after_a_second() -> None:
        time.sleep(1.0)
        stack.restart("gateway-0")

    def bot(view: CardbenchState, legal_actions: mf.LegalActions) -> mf.Action:
        nonlocal decisions
        decisions += 1
        if decisions == 5:  # a graceful restart (SIGTERM: the gateway drains its streams) while the bot thinks
            stack.restart("gateway-0")
        elif decisions == 10:  # the gateway is down as the move is sent: it is sent again once it is back
            stopped = stack.processes["gateway-0"]
            stopped.terminate()
            stopped.wait(10)
            restarts.append(threading.Thread(target=restart_after_a_second))
            restarts[-1].start()
        elif decisions == 15:  # the move lands but its answer is lost: sent again with its id, it lands once
            lose.armed = True
        return legal_actions[0][0]

    seen: list[Any] = []  # a spectator's updates, on the same gateway

    def spectate(table_id: str) -> None:
        with mf.connect(stack.gateway_addresses[0]) as spectator:
            seen.extend(spectator.watch(table_id))

    with mf.connect(stack.gateway_addresses[0], interceptors=[lose]) as client:
        seat = client.create_table("cardbench", bots={1: "random"}, name="runner (guest)")
        spectator = threading.Thread(target=spectate, args=(seat.table_id,))
        spectator.start()
        before = stack.processes["gateway-0"].pid
        result = client.play(seat.table_id, seat.token, bot)
        for thread in [*restarts, spectator]:
            thread.join(30)
        assert stack.processes["gateway-0"].pid != before  # the gateway did restart under the game
        assert lose.lost == 1
        log = client.log(seat.table_id)
    assert result.outcome.finished and result.seat == 0
    ours = [a for a in log.actions if a.seat == 0]
    # every decision the bot made landed once, under the id the runner sent it with, and nothing else
    assert decisions == len(result.moves) == len(ours) == MOVES // 2
    assert [a.client_action_id for a in ours] == result.moves
    assert len(set(result.moves)) == len(result.moves)
    assert [a.version for a in log.actions] == list(range(1, MOVES + 1))
    # the spectator's stream, resumed after its last update across the restarts: every public event once, in order
    assert [e.seq for e in log.events] == [e.seq for update in seen for e in update.events]
    assert [u.seq for u in seen] == sorted({u.seq for u in seen}) and seen[-1].view.outcome.finished


def test_a_vote_chosen_before_other_seats_voted_still_lands(stack: Stack) -> None:
    """R&D's votes are taken at the same time: a bot that votes a moment after the others voted (its view older than
    their votes) has its vote counted, not refused as stale and asked again."""
    decisions = {0: 0, 1: 0, 2: 0}
    results: dict[int, mf.Result] = {}

    def voter(seat: int) -> mf.Bot:
        def bot(view: Any, legal_actions: mf.LegalActions) -> mf.Action:
            decisions[seat] += 1
            if view.header.pending.kind == DecisionKind.DECISION_KIND_SIMULTANEOUS:
                time.sleep(0.3 * seat)  # seat 0 votes first; the others chose on the view from before its vote
            return legal_actions[0][0]

        return bot

    def play(seat: mf.Seat) -> None:
        with mf.connect(stack.gateway_addresses[0]) as client:
            results[seat.seat] = client.play(seat.table_id, seat.token, voter(seat.seat))

    with mf.connect(stack.gateway_addresses[0]) as client:
        seats = [client.create_table("rnd", 3, name="ann (guest)")]
        seats += [client.join(seats[0].table_id, name=f"{name} (guest)") for name in ("bob", "cy")]
        players = [threading.Thread(target=play, args=(seat,)) for seat in seats]
        for player in players:
            player.start()
        for player in players:
            player.join(60)
        table = client.wait_verdict(seats[0].table_id)
        log = client.log(seats[0].table_id)
    assert table.replay_verdict.startswith("valid"), table.replay_verdict
    votes = [a for a in log.actions if RndAction.FromString(a.action.value).WhichOneof("choice") == "vote"]
    assert len(votes) == 9  # three awards, three seats
    for seat, result in results.items():
        assert result.outcome.finished
        # every decision the bot made landed, under the id the runner sent it with: none was thrown away
        assert decisions[seat] == len(result.moves), (seat, decisions, [len(r.moves) for r in results.values()])
        assert [a.client_action_id for a in log.actions if a.seat == seat] == result.moves


def test_a_queue_filled_with_a_bot_and_the_greedy_example_plays_its_highest_card(stack: Stack) -> None:
    from examples.greedy_cardbench import Greedy, rank

    greedy = Greedy()
    asked: list[list[int]] = []

    def watched(view: CardbenchState, legal_actions: list[tuple[CardbenchAction, str]]) -> mf.Action:
        asked.append([action.card for action, _ in legal_actions])
        return greedy(view, legal_actions)

    with mf.connect(stack.gateway_addresses[0]) as client:
        seat = client.queue("cardbench", 2, fill_after=0, bot_level="random", name="greedy (guest)")
        table = client.table(seat.table_id)
        assert table.seats[1 - seat.seat].bot_level == "random" and table.seats[seat.seat].name == "greedy (guest)"
        result = client.play(seat.table_id, seat.token, watched)
    assert result.outcome.finished and len(asked) == len(greedy.played) == MOVES // 2
    assert all(rank(card) == max(rank(c) for c in cards) for card, cards in zip(greedy.played, asked, strict=True))
    assert result.outcome.scores[seat.seat] == sum(rank(card) for card in greedy.played)


def test_a_bad_seat_token_or_table_is_a_clear_error_and_changes_nothing(stack: Stack) -> None:
    asked = []

    def bot(view: mf.View, legal_actions: mf.LegalActions) -> mf.Action:
        asked.append(view)
        return legal_actions[0][0]

    with mf.connect(stack.gateway_addresses[0]) as client:
        seat = client.create_table("cardbench", bots={1: "random"}, name="tokens (guest)")
        with pytest.raises(mf.SeatTokenRefused, match="seat token: this token holds no seat at this table"):
            client.play(seat.table_id, "not-a-seat-token", bot)
        with pytest.raises(mf.TableNotFound, match=r"UNKNOWN-TABLE"):
            client.play("UNKNOWN-TABLE", seat.token, bot)
        assert not asked and client.table(seat.table_id).version == 0


def test_an_action_the_rules_refuse_is_the_bots_error_named_by_the_rule(stack: Stack) -> None:
    def bot(view: CardbenchState, legal_actions: mf.LegalActions) -> mf.Action:
        hand = set(view.hands[0].cards)
        return CardbenchAction(card=next(card for card in range(52) if card not in hand))

    with mf.connect(stack.gateway_addresses[0]) as client:
        seat = client.create_table("cardbench", bots={1: "random"}, name="cheat (guest)")
        with pytest.raises(mf.IllegalAction, match=r"version 0: .*hand") as refused:
            client.play(seat.table_id, seat.token, bot)
        assert refused.value.code == grpc.StatusCode.FAILED_PRECONDITION
        assert client.table(seat.table_id).version == 0


def test_the_sdk_installs_on_its_own_into_a_fresh_venv_and_talks_to_the_gateway(stack: Stack, tmp_path: Path) -> None:
    """`pip install ./sdk` as a user runs it: pip's own index settings (as `make install` uses them); the build
    generates the protobuf modules from proto/. The venv has no Manaforge platform code, only the SDK."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = str(venv / "bin" / "python")
    installed = subprocess.run(
        [python, "-m", "pip", "install", "--quiet", str(ROOT / "sdk")], capture_output=True, text=True, timeout=300
    )
    assert installed.returncode == 0, installed.stderr
    script = (
        "import importlib.util, manaforge_sdk as mf\n"
        "assert importlib.util.find_spec('engine_core') is None and importlib.util.find_spec('gateway') is None\n"
        f"with mf.connect({stack.gateway_addresses[0]!r}) as client:\n"
        "    print(sorted(g.name for g in client.games()))\n"
    )
    ran = subprocess.run([python, "-c", script], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert "'cardbench'" in ran.stdout and "'mana_burn'" in ran.stdout
    assert (venv / "lib" / "python3.11" / "site-packages" / "manaforge_sdk" / "py.typed").exists()
