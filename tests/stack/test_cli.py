"""The terminal client, run as a player runs it: the `manaforge` console script with typed input."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from deploy.launcher import Stack, play_commands
from gateway import cli
from gateway.cli.reconnect import GatewayLost, Reconnector
from gateway.client import Client

# A client's tests: one storage layout is enough (the shared stack also runs on a Redis Cluster for the server's tests).
one_layout = pytest.mark.parametrize("stack", ["redis"], indirect=True)

MANAFORGE = str(Path(sys.executable).parent / "manaforge")


def run(*args: str, typed: str = "", env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [MANAFORGE, *args], input=typed, capture_output=True, text=True, timeout=120, env={**os.environ, **(env or {})}
    )


def run_cli(stack: Stack, *args: str, typed: str = "", env: dict[str, str] | None = None) -> str:
    done = run("--gateway", stack.gateway_addresses[0], *args, typed=typed, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


@one_layout
def test_games_lists_every_game_with_its_player_range(stack: Stack) -> None:
    out = run_cli(stack, "games")
    assert "cardbench" in out and "2-2 players" in out


@one_layout
def test_play_a_whole_game_against_a_bot_from_the_terminal(stack: Stack) -> None:
    out = run_cli(stack, "--name", "ann", "play", "cardbench", "--bot", "random", typed="h\nzz\n" + "1\n" * 60)
    assert "you are seat 0" in out
    assert "type a number from 1 to 5" in out  # a wrong answer is explained, not fatal
    assert "At your turn, type the number of a choice." in out  # help
    assert "\nYou: score" in out and "\nThe bot: score 0; hand 5 hidden cards" in out  # the bot's hand stays hidden
    assert "Your turn: " in out and "Waiting for you" not in out  # at your own turn, it says so
    said = re.search(
        r"\n(You won|You lost: the bot won|You shared the win with the bot|Nobody won), (\d+) to (\d+) \(.+\)\.\n", out
    )
    assert said, out[-600:]
    table_id = out.split("table ", 1)[1].split(":", 1)[0]
    assert "replay validation: valid: 100 actions" in out
    replay = run_cli(stack, "replay", table_id)
    assert replay.count(" ann: play ") == 50 and "replay validation: valid" in replay  # seats by name
    mine, theirs = int(said.group(2)), int(said.group(3))
    # the spectator's words give the winner's score first, and agree with the player's
    if said.group(1) == "You won":
        assert f"\nann won, {mine} to {theirs}" in replay  # a player's name keeps its spelling
    elif said.group(1).startswith("You lost"):
        assert f"\nThe bot won, {theirs} to {mine}" in replay
    elif said.group(1).startswith("You shared"):  # a tie: both won, and the spectator names seat 0 first
        assert mine == theirs and f" won, {mine} to {theirs}" in replay


@one_layout
def test_global_options_may_follow_the_command_and_the_address_comes_from_the_environment(stack: Stack) -> None:
    port = stack.gateway_addresses[0].rsplit(":", 1)[1]
    from_port = run("games", env={"MANAFORGE_GATEWAY_PORT": port, "MANAFORGE_GATEWAY": ""})
    assert from_port.returncode == 0 and "cardbench" in from_port.stdout, from_port.stderr
    from_address = run("tables", "--name", "zed", env={"MANAFORGE_GATEWAY": stack.gateway_addresses[0]})
    assert from_address.returncode == 0, from_address.stderr
    after = run("play", "cardbench", "--gateway", stack.gateway_addresses[0], "--name", "late", typed="q\n")
    assert after.returncode == 0, after.stderr
    table_id = after.stdout.split("table ", 1)[1].split(":", 1)[0]
    seats = run_cli(stack, "tables", "--playing", "--game", "cardbench")
    assert re.search(rf"{table_id} .*late", seats), seats  # --name after the command named the seat


@one_layout
def test_the_end_of_input_leaves_the_table_cleanly(stack: Stack) -> None:
    done = run("--gateway", stack.gateway_addresses[0], "play", "cardbench", typed="")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert "you left table" in done.stdout and "the game goes on" in done.stdout


@one_layout
def test_bad_input_gets_a_clear_message_not_a_traceback(stack: Stack) -> None:
    no_value = run("--gateway", stack.gateway_addresses[0], "play", "mana_burn", "--option", "turn_limit")
    assert no_value.returncode == 2 and "Traceback" not in no_value.stderr
    assert "'turn_limit' is not NAME=VALUE" in no_value.stderr
    unknown = run("--gateway", stack.gateway_addresses[0], "play", "chess")
    assert unknown.returncode == 1 and "no game named 'chess'" in unknown.stderr
    refused = run("--gateway", stack.gateway_addresses[0], "play", "mana_burn", "--option", "turn_limit=7")
    assert refused.returncode == 1 and "Traceback" not in refused.stderr and "turn_limit" in refused.stderr
    with socket.socket() as unused:  # a loopback port nobody listens on
        unused.bind(("127.0.0.1", 0))
        nobody = f"127.0.0.1:{unused.getsockname()[1]}"
        away = run("games", env={"MANAFORGE_GATEWAY": nobody})
    assert away.returncode == 1 and "Traceback" not in away.stderr
    assert f"cannot reach a Manaforge gateway at {nobody}" in away.stderr and "make run" in away.stderr
    bad_port = run("games", env={"MANAFORGE_GATEWAY": "", "MANAFORGE_GATEWAY_PORT": "fifty"})
    assert bad_port.returncode == 1 and "MANAFORGE_GATEWAY_PORT must be a port number" in bad_port.stderr


def help_of(*args: str) -> str:
    """What `manaforge ARGS --help` prints (in this process: the parser the console script builds)."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), pytest.raises(SystemExit) as leaving:
        cli.parser().parse_args([*args, "--help"])
    assert leaving.value.code == 0
    return printed.getvalue()


def test_version_and_help_say_what_each_command_and_option_does() -> None:
    version = run("--version")
    shown = r"manaforge \d+\.\d+\.\d+(\.dev\d+)? \(commit ([0-9a-f]{12}|unknown)\)\n"  # the version and the commit
    assert version.returncode == 0 and re.fullmatch(shown, version.stdout)
    top = help_of()
    commands = ["games", "play", "tables", "join", "queue", "watch", "replay", "register", "me", "mine", "rejoin"]
    for command in [*commands, "leaderboard"]:
        assert re.search(rf"^    {command} +\S", top, re.MULTILINE), f"{command} has no summary in --help"
        usage = help_of(command)
        options = re.findall(r"^  (-[-\w, ]+?|\w+)(?:  +(.*))?$", usage.split("options:", 1)[1], re.MULTILINE)
        assert options and all(text for _, text in options), f"{command} --help: an option without help {options}"
        positional = usage.split("positional arguments:", 1)
        if len(positional) == 2:
            for name, text in re.findall(r"^  (\w+) +(.*)$", positional[1].split("options:")[0], re.MULTILINE):
                assert text, f"{command} {name} has no help"


@one_layout
def test_a_registered_player_plays_is_rated_and_sees_the_leaderboard(stack: Stack, tmp_path: Path) -> None:
    env = {"MANAFORGE_HOME": str(tmp_path)}
    assert "registered as Cleo" in run_cli(stack, "register", "Cleo", env=env)
    assert "no rated games yet" in run_cli(stack, "me", env=env)
    assert run_cli(stack, "mine", env=env).strip() == "you have no tables yet"
    out = run_cli(stack, "play", "cardbench", "--bot", "random", "--clock", "60", typed="1\n" * 60, env=env)
    assert "your clock:" in out and "s left" in out  # the clock of each decision is shown
    assert "replay validation: valid" in out
    deadline = time.monotonic() + 20
    while "cardbench" not in (me := run_cli(stack, "me", env=env)):
        assert time.monotonic() < deadline, me
        time.sleep(0.2)
    assert "1 games" in me and "rank" in me
    board = run_cli(stack, "leaderboard", "cardbench", "--seats", "2", env=env)
    assert "Cleo" in board and "bot (heuristic)" in board
    rank = re.search(r"cardbench +2 seats .* rank (\d+)", me)
    place = re.search(r"^ *(\d+)\. Cleo ", board, re.MULTILINE)
    assert rank and place and rank.group(1) == place.group(1), (me, board)  # `me` says the leaderboard's place
    assert "cardbench" in run_cli(stack, "mine", env=env)


@one_layout
def test_the_commands_make_run_suggests_work(stack: Stack) -> None:
    for command in play_commands(stack.gateway_addresses[0]):
        words = shlex.split(command, comments=True)
        assert words[0] == ".venv/bin/manaforge"
        done = run(*words[1:], typed="q\n")
        assert done.returncode == 0 and "Traceback" not in done.stderr, (command, done.stderr)
        assert done.stdout.strip(), command
    assert "--gateway" not in play_commands("127.0.0.1:50051")[0]  # the client's own default needs no flag


def test_a_game_s_calls_give_up_with_a_clear_message_when_the_gateway_stays_away() -> None:
    said: list[str] = []
    with socket.socket() as unused:  # a loopback port nobody listens on
        unused.bind(("127.0.0.1", 0))
        nobody = f"127.0.0.1:{unused.getsockname()[1]}"
        with Client(nobody) as client:
            link = Reconnector(client, said.append, patience=1.0, hint="Come back with `manaforge rejoin T`.")
            with pytest.raises(GatewayLost) as lost:
                link.call(client.games)
            with pytest.raises(GatewayLost):
                next(link.follow("T"))
    assert said == [f"the gateway at {nobody} is unavailable: trying again…"] * 2  # said once a time it went away
    assert str(lost.value) == (
        f"the gateway at {nobody} has not answered for 1 s; giving up. Come back with `manaforge rejoin T`."
    )


@one_layout
def test_bots_at_one_table_are_told_apart_by_number(stack: Stack) -> None:
    three = run_cli(stack, "--name", "ann", "play", "manufactory", "--seats", "3", typed="q\n")
    two = run_cli(stack, "--name", "ann", "play", "cardbench", typed="q\n")
    listed = run_cli(stack, "tables", "--playing")
    for out, names in ((three, "ann, bot 1 (random), bot 2 (random)"), (two, "ann, bot (random)")):
        table_id = out.split("table ", 1)[1].split(":", 1)[0]
        line = next(line for line in listed.splitlines() if line.startswith(table_id))
        assert line.endswith(f"  {names}"), line


@one_layout
def test_a_replay_whose_reader_goes_away_stops_quietly(stack: Stack) -> None:
    """`manaforge replay TABLE | head`: the reader leaves before the end, and the client stops without a word."""
    played = run_cli(stack, "play", "cardbench", typed="1\n" * 60)
    table_id = played.split("table ", 1)[1].split(":", 1)[0]
    replay = subprocess.Popen(
        [MANAFORGE, "--gateway", stack.gateway_addresses[0], "replay", table_id],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert replay.stdout is not None and replay.stderr is not None
    replay.stdout.close()  # the reader is gone before the first line
    said = replay.stderr.read()
    assert replay.wait(60) != 0 and said == "", said
    headed = subprocess.run(
        f"{shlex.quote(MANAFORGE)} --gateway {stack.gateway_addresses[0]} replay {table_id} | head -2",
        shell=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert headed.stderr == "" and len(headed.stdout.splitlines()) == 2, headed.stderr


@one_layout
def test_a_guest_comes_back_to_a_seat_taken_on_this_machine_only(stack: Stack, tmp_path: Path) -> None:
    env = {"MANAFORGE_HOME": str(tmp_path)}
    left = run_cli(stack, "--name", "gus", "play", "cardbench", typed="1\nq\n", env=env)
    table_id = left.split("table ", 1)[1].split(":", 1)[0]
    assert f"Come back with `manaforge rejoin {table_id}` from this machine" in left
    joined = run("--gateway", stack.gateway_addresses[0], "join", table_id, env=env)  # the wrong way back
    assert joined.returncode == 1 and "Traceback" not in joined.stderr
    assert f"one of them yours: come back with `manaforge rejoin {table_id}`" in joined.stderr, joined.stderr
    back = run_cli(stack, "rejoin", table_id, typed="q\n", env=env)
    assert f"back at table {table_id}: you are seat 0" in back and "Your turn" in back
    elsewhere = run(
        "--gateway", stack.gateway_addresses[0], "rejoin", table_id, env={"MANAFORGE_HOME": str(tmp_path / "x")}
    )
    assert elsewhere.returncode == 1 and "Traceback" not in elsewhere.stderr
    assert f"no seat at table {table_id} was taken from this machine as a guest" in elsewhere.stderr
    watcher = run(
        "--gateway", stack.gateway_addresses[0], "join", table_id, env={"MANAFORGE_HOME": str(tmp_path / "x")}
    )
    assert f"every seat is taken: watch the game with `manaforge watch {table_id}`" in watcher.stderr


@one_layout
def test_rules_prints_how_to_play_a_game_as_text(stack: Stack) -> None:
    out = run_cli(stack, "rules", "rnd")
    assert out.startswith("HOW TO PLAY LOOK AT US, WE'RE R&D\n=================================\n")
    assert "\nThis game is cooperative. Everyone works together" in out  # its first words, emphasis removed
    assert "\nThe goal\n--------\n" in out and "\n  - the artist draws the art" in out
    assert "**" not in out and "`" not in out and max(len(line) for line in out.splitlines()) <= 100
    unknown = run("--gateway", stack.gateway_addresses[0], "rules", "chess")
    assert unknown.returncode == 1 and "no game named 'chess'" in unknown.stderr
