"""Challenges in the terminal client, as a person types them (docs/terminal.md): a person challenges a bot account
written with the SDK and plays the game to its end; a person waiting in the lobby sees a challenge come, declines it
with a reason, and the challenger reads the reason; both list what waits for them."""

from __future__ import annotations

import random
import re
import threading
import uuid
from pathlib import Path

import manaforge_sdk as mf
import pytest
from manaforge.v1 import gateway_pb2 as gw
from manaforge.v1.common_pb2 import GameConfig

from deploy.launcher import Stack
from tests.stack.test_terminal_games import Player, Terminal, spawn

pytestmark = [pytest.mark.parametrize("stack", ["redis"], indirect=True), pytest.mark.timeout(180)]


def register(stack: Stack, home: Path, prefix: str) -> str:
    name = f"{prefix}{uuid.uuid4().hex[:6]}"
    done = spawn(stack, home, "register", name)
    done.expect(f"registered as {name}")
    assert done.finish() == 0
    return name


def bot_account(stack: Stack) -> mf.Client:
    client = mf.connect(stack.gateway_addresses[0])
    made = client.stub.RegisterPlayer(gw.RegisterPlayerRequest(name=f"rando{uuid.uuid4().hex[:6]}"))
    client._use(mf.Credentials(made.player_id, made.secret_key, made.name))
    assert client.upgrade_to_bot().bot
    return client


def random_move(view: mf.View, legal_actions: mf.LegalActions) -> mf.Action:
    action, _ = random.choice(legal_actions)
    return action


def test_a_person_challenges_a_bot_account_from_the_terminal_and_plays_it_to_the_end(
    stack: Stack, tmp_path: Path
) -> None:
    bot = bot_account(stack)
    name = bot.me().name
    results: list[mf.Result] = []
    serving = threading.Thread(target=lambda: results.extend(mf.serve(bot, random_move, games=1)), daemon=True)
    serving.start()
    ann = register(stack, tmp_path, "ann")
    person = spawn(stack, tmp_path, "challenge", name, "cardbench", "--clock", "60")
    person.expect(rf"challenge \w+ sent to {name}: cardbench, 2 seats, 60 s a decision\. Waiting for {name}'s answer")
    person.expect(rf"{name} accepted: table (\w+), you are seat 0")
    table_id = person.group(1)
    _, verdict = Player(person, random.Random(7), ann).play()
    assert verdict.startswith("valid"), verdict
    assert f"{name} (bot account)" in person.seen.getvalue()  # the table says who the bot account is
    assert person.finish() == 0
    serving.join(30)
    assert [r.table_id for r in results] == [table_id]
    bot.close()


def test_a_person_in_the_lobby_declines_a_challenge_and_the_challenger_reads_why(stack: Stack, tmp_path: Path) -> None:
    homes = tmp_path / "ann", tmp_path / "bob"
    ann, bob = register(stack, homes[0], "ann"), register(stack, homes[1], "bob")
    guest = spawn(stack, homes[0], "--guest", "challenge", bob, "cardbench")
    guest.expect("challenges are between registered players: `manaforge register NAME` first")
    assert guest.finish() == 1
    nobody = spawn(stack, homes[0], "challenge", "nobody_here", "cardbench")
    nobody.expect("no registered player is called 'nobody_here' \\(NOT_FOUND\\)")
    assert nobody.finish() == 1

    lobby = spawn(stack, homes[1], "lobby")
    lobby.expect("In the lobby: challenges to you are announced here as they come")
    challenger = spawn(stack, homes[0], "challenge", bob, "mana_burn", "--option", "turn_limit=15", "--clock", "45")
    challenger.expect(rf"challenge (\w+) sent to {bob}: mana_burn, 2 seats, turn_limit=15, 45 s a decision")
    challenge_id = challenger.group(1)
    lobby.expect(
        rf"\*\* {ann} challenges you: mana_burn, 2 seats, turn_limit=15, 45 s a decision \(expires in \d+ s\):"
        r" `a (\d+)` accepts"
    )
    number = lobby.group(1)

    for home, said in ((homes[1], f"{challenge_id}  from {ann}: mana_burn"), (homes[0], f"{challenge_id}  to {bob}")):
        listed = spawn(stack, home, "challenges")
        listed.expect(re.escape(said))
        assert listed.finish() == 0

    lobby.sendline("d 9")
    lobby.expect("no challenge 9 is waiting: `l` lists them")
    lobby.sendline(f"d {number} later not tonight, sorry")
    lobby.expect(f"you declined {ann}'s challenge")
    challenger.expect(
        rf"{bob} declined your challenge \(mana_burn, 2 seats, turn_limit=15, 45 s a decision\): not now"
        r' — "not tonight, sorry"'
    )
    assert challenger.finish() == 0
    lobby.sendline("l")
    lobby.expect("no challenges waiting for your answer")
    lobby.sendline("q")
    assert lobby.finish() == 0
    after = spawn(stack, homes[0], "challenges")
    after.expect("no challenges waiting")
    assert after.finish() == 0
    cooling = spawn(stack, homes[0], "challenge", bob, "cardbench")  # declined: ann waits before challenging again
    cooling.expect(rf"{bob} declined your last challenge: you may challenge them again in \d+ s")
    assert cooling.finish() == 1

    cid = register(stack, tmp_path / "cid", "cid")
    again = spawn(stack, tmp_path / "cid", "challenge", bob, "manufactory", "--seats", "3", "--bot", "heuristic")
    again.expect(rf"challenge (\w+) sent to {bob}: manufactory, 3 seats, 120 s a decision, 1 bot \(heuristic\)\.")
    declined = spawn(stack, homes[1], "decline", again.group(1), "clock", "too", "slow", "for", "me")
    declined.expect(f"you declined {cid}'s challenge")
    assert declined.finish() == 0
    again.expect(rf"{bob} declined your challenge \(manufactory, .*\): not this clock — \"too slow for me\"")
    assert again.finish() == 0


def test_a_person_in_the_lobby_accepts_a_challenge_and_both_play_it(stack: Stack, tmp_path: Path) -> None:
    homes = tmp_path / "ann", tmp_path / "bob"
    ann, bob = register(stack, homes[0], "ann"), register(stack, homes[1], "bob")
    lobby = spawn(stack, homes[1], "lobby")
    lobby.expect("In the lobby")
    challenger: Terminal = spawn(stack, homes[0], "challenge", bob, "cardbench")
    lobby.expect(rf"\*\* {ann} challenges you: cardbench, 2 seats.*`a (\d+)` accepts")
    lobby.sendline(f"a {lobby.group(1)}")
    lobby.expect(rf"you accepted {ann}'s challenge: table (\w+), you are seat 1")
    table_id = lobby.group(1)
    challenger.expect(rf"{bob} accepted: table {table_id}, you are seat 0")
    players = [Player(challenger, random.Random(1), ann), Player(lobby, random.Random(2), bob)]
    outcomes: list[tuple[str, str]] = []
    other = threading.Thread(target=lambda: outcomes.append(players[1].play()))
    other.start()
    outcomes.append(players[0].play())
    other.join(120)
    assert len(outcomes) == 2 and all(verdict.startswith("valid") for _, verdict in outcomes), outcomes
    assert challenger.finish() == 0 and lobby.finish() == 0


def test_a_challenge_that_comes_while_a_person_sits_at_a_table_is_announced_there(stack: Stack, tmp_path: Path) -> None:
    ann = register(stack, tmp_path, "ann")
    person = spawn(stack, tmp_path, "play", "cardbench", "--clock", "120")
    person.expect(r"your move(?: \(b: back\))?> ")
    challenger = mf.connect(stack.gateway_addresses[0])
    made = challenger.stub.RegisterPlayer(gw.RegisterPlayerRequest(name=f"zed{uuid.uuid4().hex[:6]}"))
    challenger._use(mf.Credentials(made.player_id, made.secret_key, made.name))
    sent = challenger.stub.CreateChallenge(
        gw.CreateChallengeRequest(player_name=ann, config=GameConfig(game="cardbench", seats=2))
    )
    person.expect(
        rf"\*\* {made.name} challenges you: cardbench, 2 seats, 120 s a decision \(expires in \d+ s\): after this"
        rf" game, `manaforge accept {sent.challenge_id}` \(or decline\)"
    )
    person.expect(r"your move(?: \(b: back\))?> ")  # the question is asked again below the announcement
    person.sendline("q")
    person.expect("you left table")
    assert person.finish() == 0
    challenger.close()
