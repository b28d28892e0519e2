"""Regenerate the golden seeded playthroughs in tests/golden/ (one per registered game): `make golden`.

Never edit those files by hand: a rules change that alters a playthrough shows up as a diff to review.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from manaforge.v1.common_pb2 import GameConfig

from engine_core import GAMES, Game

GOLDEN = Path(__file__).parent.parent / "golden"
SEED = 7


def golden_cases(game: Game[Any, Any]) -> list[tuple[str, int, dict[str, str]]]:
    """(file stem, seats, options): the defaults at the minimum player count, plus any case the game lists."""
    cases: list[tuple[str, int, dict[str, str]]] = [
        (game.info.name, max(game.info.min_seats, min(3, game.info.max_seats)), {})
    ]
    for extra in game.info.extra.get("golden", "").split(";"):
        if extra:
            stem, seats, *pairs = extra.split(",")
            cases.append((stem, int(seats), dict(p.split("=", 1) for p in pairs)))
    return cases


def playthrough(game: Game[Any, Any], seats: int, options: dict[str, str], seed: int = SEED) -> str:
    """A seeded random game as text: every action, every event (with its audience) and the final public view."""
    rand = random.Random(seed)
    state = game.new_game(GameConfig(game=game.info.name, seats=seats, options=options), seed)
    lines = [f"# {game.info.title}: {seats} seats, seed {seed}, options {dict(sorted(options.items()))}", ""]
    while not game.is_terminal(state):
        seat = rand.choice(game.pending_seats(state))
        action = rand.choice(game.legal_actions(state, seat))
        lines.append(f"v{state.header.version} seat {seat}: {game.describe(state, action)}")
        state, events = game.apply(state, seat, action)
        for e in events:
            to = "all" if not e.HasField("audience") else f"seat {e.audience}"
            lines.append(f"    [{to}] {e.type}: {e.text}")
    outcome = game.outcome(state)
    lines += ["", "final public view:", game.render(game.view(state, None), None), ""]
    lines.append(f"outcome: winners {list(outcome.winners)} scores {list(outcome.scores)} ({outcome.reason})")
    return "\n".join(lines) + "\n"


def main() -> None:
    GOLDEN.mkdir(exist_ok=True)
    for game in GAMES:
        for stem, seats, options in golden_cases(game):
            (GOLDEN / f"{stem}.txt").write_text(playthrough(game, seats, options))
            print(f"wrote tests/golden/{stem}.txt")


if __name__ == "__main__":
    main()
