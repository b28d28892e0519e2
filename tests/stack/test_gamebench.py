"""`make bench`'s per-game section (deploy/gamebench.py) on a tiny budget: every registered game is played through
the real stack by its scripted clients, and each one's moves reach the other seats. Speed is not asserted."""

from __future__ import annotations

import pytest

from deploy.gamebench import games_lines, games_section
from deploy.launcher import Stack
from engine_core import game_names

one_layout = pytest.mark.parametrize("stack", ["redis"], indirect=True)


@one_layout
def test_every_game_is_played_through_the_stack_by_its_scripted_clients(stack: Stack) -> None:
    rows = games_section(stack, tables=1, seconds=1.5, warmup=0.0, rules_seconds=0.05, spawn=False)
    assert [row["game"] for row in rows] == game_names()
    for row in rows:
        assert row["errors"] == [], row["game"]
        assert row["moves"] > 0, row["game"]  # moves sent, applied and answered inside the window
        assert row["latencies"] > 0, row["game"]  # and seen by another seat's Watch stream
        assert sum(ms for name, ms in row["cpu_ms"].items() if name.startswith("gateway")) > 0, row["game"]
        assert row["views_us"] > 0 and row["updates_us"] > 0, row["game"]
    assert next(row for row in rows if row["game"] == "cardbench")["games"] >= 1  # 100 moves: played to the end
    lines = games_lines(rows)
    assert all(any(line.startswith(name) for line in lines) for name in game_names())
