"""What one bot decision may spend, and how it searches: the `ismcts` level's settings.

A game may carry its own (`Game.bot_budget`), one for every table size or one per seat count, tuned with `make arena`;
otherwise the level's default applies. Plain data, importable by game modules without pulling in the search.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any, Literal


@dataclass(frozen=True)
class Budget:
    """How much one decision may search, and how.

    `search`: "tree" is single-observer ISMCTS (one tree over the seat's information set); "flat" plays every legal
    move of the root in the same dealt worlds, each followed by the same playout (paired comparison: the worlds and
    the playout's random draws are shared, so the difference between two moves is not drowned by the luck of the
    deal), and keeps the heuristic's choice unless another move beat it by `margin` a world on average. Flat is
    depth-one ISMCTS; with heuristic playouts it is rollout policy improvement over the game's own strategy.

    `iterations` (worlds, for "flat") and `actions` bound the search, whichever runs out first: counting simulated
    actions (tree and playout steps) keeps a decision's time about the same in long games as in short ones.
    `rollout`: "random" or "heuristic" playouts (random where a game has no heuristic), cut after
    `max_rollout_actions`. `evaluate_after`: where the game has a static evaluation (`Game.evaluate`), playouts stop
    after this many actions (0: the leaf is evaluated at once) and back up the evaluation instead of playing on; None
    plays on to `max_rollout_actions`. `playout_end`: where the game can evaluate a state, playouts also stop at the
    first state of which this is true (a natural break, such as the end of a round) and back up the evaluation;
    None: no such break. `heuristic_prior` ("tree"): after the search, the heuristic's choice at the
    root gets this fraction of the iterations run (plus one) as extra visits, so the search plays it unless it found
    a move clearly better: a search too small to tell (a long game under a small budget) plays like the heuristic
    instead of at random. `world_cost`: what dealing one world counts against `actions`. `score_weight`: see
    `ismcts.rewards`. `seconds`: the decision time the budget is tuned to stay within (p95, one core); with less
    time left on the table's clock the search is scaled down in proportion (`within`).
    """

    iterations: int
    actions: int = 1_000_000  # simulated actions (tree and playout steps) over the whole search
    search: Literal["tree", "flat"] = "tree"
    world_cost: int = 8
    rollout: Literal["random", "heuristic"] = "random"
    max_rollout_actions: int = 400
    evaluate_after: int | None = None
    playout_end: Callable[[Any], bool] | None = None
    exploration: float = 0.5
    score_weight: float = 0.25
    heuristic_prior: float = 0.5
    margin: float = 0.15
    seconds: float = 0.1


DEFAULT_BUDGET = Budget(iterations=200, actions=400, rollout="random", max_rollout_actions=200)


Budgets = Budget | Mapping[int, Budget]
"""What a game declares: one budget for every table size, or budgets by seat count."""


def by_seats(budgets: Mapping[int, Budget]) -> Mapping[int, Budget]:
    """A game's budgets by seat count, read-only (a class attribute shared by every table): each applies from its
    seat count up to the next one declared."""
    return MappingProxyType(dict(budgets))


def budget_at(budgets: Budgets, seats: int) -> Budget:
    """The budget for a table of `seats`: the single one, else the one declared for the largest seat count not above
    `seats` (the smallest declared where `seats` is below them all)."""
    if isinstance(budgets, Budget):
        return budgets
    at_or_below = [count for count in budgets if count <= seats]
    return budgets[max(at_or_below) if at_or_below else min(budgets)]


def within(budget: Budget, time_left: float | None) -> Budget:
    """`budget`, its iterations and simulated actions scaled down in proportion when the decision time left is below
    the time it is tuned for (`budget.seconds`); no time left: no search (the level then plays the heuristic's
    move). None: no clock, the budget as it is."""
    if time_left is None or time_left >= budget.seconds:
        return budget
    part = max(0.0, time_left) / budget.seconds
    return replace(
        budget,
        iterations=int(budget.iterations * part),
        actions=int(budget.actions * part),
        seconds=max(0.0, time_left),
    )
