"""The terminal client, run as a player runs it: the `manaforge` console script with typed input."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from deploy.launcher import Stack

MANAFORGE = str(Path(sys.executable).parent / "manaforge")


def run_cli(stack: Stack, *args: str, typed: str = "", env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [MANAFORGE, "--gateway", stack.gateway_addresses[0], *args],
        input=typed,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_games_lists_every_game_with_its_player_range(stack: Stack) -> None:
    out = run_cli(stack, "games")
    assert "cardbench" in out and "2-2 players" in out


def test_play_a_whole_game_against_a_bot_from_the_terminal(stack: Stack) -> None:
    out = run_cli(stack, "--name", "ann", "play", "cardbench", "--bot", "random", typed="h\nzz\n" + "1\n" * 60)
    assert "you are seat 0" in out
    assert "type a number from 1 to 5" in out  # a wrong answer is explained, not fatal
    assert "At your turn, type the number of an action." in out  # help
    assert "seat 0: score" in out and "seat 1: score 0; hand 5 hidden cards" in out  # the bot's hand stays hidden
    assert "Game over: winners" in out
    assert "replay validation: valid: 100 actions" in out
    table_id = out.split("table ", 1)[1].split(":", 1)[0]
    replay = run_cli(stack, "replay", table_id)
    assert replay.count(" seat 0: play ") == 50 and "replay validation: valid" in replay


def test_a_registered_player_plays_is_rated_and_sees_the_leaderboard(stack: Stack, tmp_path: Path) -> None:
    env = {"MANAFORGE_HOME": str(tmp_path)}
    assert "registered as Cleo" in run_cli(stack, "register", "Cleo", env=env)
    assert "no rated games yet" in run_cli(stack, "me", env=env)
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
    assert "cardbench" in run_cli(stack, "mine", env=env)
