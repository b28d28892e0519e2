"""The terminal client, run as a player runs it: the `manaforge` console script with typed input."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from deploy.launcher import Stack

MANAFORGE = str(Path(sys.executable).parent / "manaforge")


def run_cli(stack: Stack, *args: str, typed: str = "") -> str:
    done = subprocess.run(
        [MANAFORGE, "--gateway", stack.gateway_addresses[0], *args],
        input=typed,
        capture_output=True,
        text=True,
        timeout=120,
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
