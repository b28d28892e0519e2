"""Golden seeded playthroughs: the same seed must play the same game, event for event (`make golden` rewrites)."""

from __future__ import annotations

from typing import Any

import pytest

from engine_core import GAMES, Game
from tests.engine.regen_golden import GOLDEN, golden_cases, playthrough

CASES = [(game, stem, seats, opts) for game in GAMES for stem, seats, opts in golden_cases(game)]


@pytest.mark.parametrize(("game", "stem", "seats", "options"), CASES, ids=[c[1] for c in CASES])
def test_playthrough_matches_golden(game: Game[Any, Any], stem: str, seats: int, options: dict[str, str]) -> None:
    golden = GOLDEN / f"{stem}.txt"
    assert golden.exists(), f"no golden playthrough for {stem}: run `make golden`"
    assert playthrough(game, seats, options) == golden.read_text()
