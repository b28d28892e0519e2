"""Bots: a level is a policy that sees only its seat's view and legal actions, and draws from its own rng.

    choose_action(game, state, seat, level, seed, stop=None, time_left=None)

The full state stays here: the policy receives `game.view(state, seat)` and the seat's legal actions, never the
hidden cards of others. `seed` makes a bot's choice reproducible (the worker derives it from the game and version).

Levels:
- `random`: a uniformly random legal action.
- `heuristic`: the game's own hand-written strategy (`Game.heuristic_action`); at a hidden choice (a face-down card,
  a secret vote: `Game.is_hidden_choice`) a draw from a quantal response over its ratings (`hidden.py`).
- `ismcts`: information-set Monte Carlo tree search over worlds dealt by `Game.sample_world` (see `ismcts.py`),
  under the game's budget for the table's seat count, starting from the heuristic's move (drawn as above at a hidden
  choice). `time_left`, when given (seconds on the seat's clock), scales that budget down when it is short; `stop`,
  when given, ends the search early (a deadline set by the caller: time never enters engine_core otherwise).

A level whose hook a game lacks falls back to the level below it (ismcts -> heuristic -> random);
`levels_for(game)` lists the levels a game really has.
"""

from __future__ import annotations

from typing import Any, Protocol

from google.protobuf.message import Message

from engine_core.bots.hidden import heuristic_move
from engine_core.bots.ismcts import Stop, best_action, has_heuristic, has_sample_world, improve, search
from engine_core.budget import DEFAULT_BUDGET, Budget, budget_at, within
from engine_core.errors import InvalidConfigError
from engine_core.game import Game
from engine_core.rng import new_rng, randbelow

AnyGame = Game[Any, Any]


class Policy(Protocol):
    """(game, view of the seat, seat, legal actions, seed, stop, time_left) -> one of the legal actions."""

    def __call__(
        self,
        game: AnyGame,
        view: Any,
        seat: int,
        legal: list[Any],
        seed: int,
        stop: Stop | None = None,
        time_left: float | None = None,
    ) -> Any: ...


def random_policy(
    game: AnyGame,
    view: Any,
    seat: int,
    legal: list[Any],
    seed: int,
    stop: Stop | None = None,
    time_left: float | None = None,
) -> Any:
    """A uniformly random legal action."""
    return legal[randbelow(new_rng(seed), len(legal))]


def heuristic_policy(
    game: AnyGame,
    view: Any,
    seat: int,
    legal: list[Any],
    seed: int,
    stop: Stop | None = None,
    time_left: float | None = None,
) -> Any:
    """The game's hand-written strategy, mixed at a hidden choice; random where the game has none."""
    if not has_heuristic(game):
        return random_policy(game, view, seat, legal, seed)
    return heuristic_move(game, view, seat, legal, new_rng(seed))


class IsmctsPolicy:
    """ISMCTS under a budget: the one given, else the game's own for the table's seat count (`Game.bot_budget`), else
    `DEFAULT_BUDGET`, scaled down when the decision time left is short; the heuristic level where the game cannot
    deal worlds."""

    def __init__(self, budget: Budget | None = None) -> None:
        self.budget = budget

    def budget_for(self, game: AnyGame, seats: int, time_left: float | None = None) -> Budget:
        return within(budget_at(self.budget or game.bot_budget or DEFAULT_BUDGET, seats), time_left)

    def __call__(
        self,
        game: AnyGame,
        view: Any,
        seat: int,
        legal: list[Any],
        seed: int,
        stop: Stop | None = None,
        time_left: float | None = None,
    ) -> Any:
        if not has_sample_world(game):
            return heuristic_policy(game, view, seat, legal, seed)
        if len(legal) == 1:
            return legal[0]
        budget = self.budget_for(game, game.header(view).config.seats, time_left)
        if not budget.actions:
            return heuristic_policy(game, view, seat, legal, seed)  # no time left to search
        view = game.live(view)  # the worlds dealt from it are live states: their playouts run at plain-Python speed
        if budget.search == "flat":
            return improve(game, view, seat, legal, budget, new_rng(seed), stop)
        root = search(game, view, seat, legal, budget, new_rng(seed), stop)
        return best_action(root, seat, legal)


LEVELS: dict[str, Policy] = {
    "random": random_policy,
    "heuristic": heuristic_policy,
    # Each game's budgets are tuned with `make arena` for a decision p95 under 100 ms on one core at every seat
    # count (docs/bots.md).
    "ismcts": IsmctsPolicy(),
}
DEFAULT_LEVEL = "ismcts"


def bot_levels() -> list[str]:
    return list(LEVELS)


def levels_for(game: AnyGame) -> list[str]:
    """The levels `game` really plays (the others fall back to a lower level)."""
    levels = ["random"]
    if has_heuristic(game):
        levels.append("heuristic")
    if has_sample_world(game):
        levels.append("ismcts")
    return levels


def check_level(level: str) -> str:
    level = level or DEFAULT_LEVEL
    if level not in LEVELS:
        raise InvalidConfigError("bot level", f"{level!r} is not one of {', '.join(LEVELS)}")
    return level


def choose_action(
    game: AnyGame,
    state: Message,
    seat: int,
    level: str,
    seed: int,
    stop: Stop | None = None,
    time_left: float | None = None,
) -> Any:
    """The bot's action for `seat`, chosen from its own view only; `time_left`: seconds left on the seat's clock
    for this decision, if it has one (a short one scales the search down)."""
    state = game.live(state)
    legal = game.legal_actions(state, seat)
    if not legal:
        raise InvalidConfigError("bot turn", f"seat {seat} has no decision pending")
    return LEVELS[check_level(level)](game, game.view(state, seat), seat, legal, seed, stop, time_left)
