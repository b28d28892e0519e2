"""Single-observer information-set Monte Carlo tree search (SO-ISMCTS, Cowling, Powley and Whitehouse 2012).

One tree for the bot's information set. Each iteration deals a fresh determinized world with
`game.sample_world(view, seat, rng)` — a full state consistent with the seat's view, never the true one — and walks
the tree down the actions legal in that world: UCT over the children that are available there (counting how often
each was available, so actions legal in only a few worlds are not undervalued), expands one untried action, plays out
the rest of the game (random or heuristic moves) and backs up each seat's share of the win. The answer is the most
visited action at the root.

Children are keyed by (acting seat, serialized action): worlds may differ in who acts at a node (a response window
that opens only if a hidden card allows it), and each seat's node keeps that seat's rewards. When several seats are
pending (a simultaneous decision) the bot's own seat acts first, otherwise the lowest pending seat.

`improve` is the flat variant (`Budget.search == "flat"`): depth one, every root move tried in the same worlds and
followed by the same heuristic playout, the heuristic's choice kept unless another move clearly gained on it
(rollout policy improvement; docs/bots.md says where each is used and why).

Everything is drawn from the rng built from the seed, and budgets count iterations, so a search replays exactly. The
only way time enters is the optional `stop` callback, passed in by the caller (a worker's deadline).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.message import Message
from manaforge.v1.common_pb2 import Rng

from engine_core.bots.hidden import heuristic_move
from engine_core.budget import Budget
from engine_core.game import Game
from engine_core.rng import new_rng, next_u64, randbelow, shuffle

Stop = Callable[[], bool]
AnyGame = Game[Any, Any]
Key = tuple[int, bytes]
MARGIN_SCALE = 0.1  # a margin of a tenth of the average score counts fully


@dataclass
class Node:
    """A tree node: the statistics of the action that leads here, from the point of view of the seat that took it."""

    visits: int = 0
    reward: float = 0.0
    available: int = 0
    lead: int = 0  # visits granted to the heuristic's choice at the root, for the final choice only
    children: dict[Key, Node] = field(default_factory=dict)

    def mean(self) -> float:
        return self.reward / self.visits if self.visits else 0.0


def action_key(seat: int, action: Message) -> Key:
    return seat, action.SerializeToString(deterministic=True)


def acting_seat(game: AnyGame, world: Message, observer: int) -> int:
    pending = game.pending_seats(world)
    return observer if observer in pending else min(pending)


def step(game: AnyGame, world: Message, seat: int, action: Message) -> None:
    """Apply in place: a determinized world belongs to one iteration, so the defensive copy of `apply` is skipped."""
    game._apply(world, seat, action)
    game.header(world).version += 1


def rewards(game: AnyGame, world: Message, score_weight: float) -> list[float]:
    """Each seat's share of the win (1/k for each of k winners; an unfinished playout is an even split), plus
    `score_weight` times its score margin over the average, relative to a tenth of the average score (clamped to
    ±1): the margin tells a search which move is better even in playouts whose winner it does not change."""
    seats = game.header(world).config.seats
    outcome = game.outcome(world)
    if not outcome.finished:
        return [1.0 / seats] * seats
    winners = set(outcome.winners)
    shares = [1.0 / len(winners) if seat in winners else 0.0 for seat in range(seats)]
    scores = list(outcome.scores)
    if len(scores) != seats or not score_weight:
        return shares
    mean = sum(scores) / seats
    size = MARGIN_SCALE * sum(abs(score) for score in scores) / seats + 1.0
    margins = [max(-1.0, min(1.0, (score - mean) / size)) for score in scores]
    return [share + score_weight * margin for share, margin in zip(shares, margins, strict=True)]


def has_heuristic(game: AnyGame) -> bool:
    return type(game).heuristic_action is not Game.heuristic_action


def has_sample_world(game: AnyGame) -> bool:
    return type(game).sample_world is not Game.sample_world


def has_evaluate(game: AnyGame) -> bool:
    return type(game).evaluate is not Game.evaluate


def playout(game: AnyGame, world: Message, observer: int, budget: Budget, rng: Rng, limit: int) -> list[float]:
    """Play on to the end, or `limit` actions (`evaluate_after` where the game can evaluate a state), or to a state
    where `playout_end` holds; each seat's reward, the game's evaluation where the playout was cut."""
    heuristic = budget.rollout == "heuristic" and has_heuristic(game)
    cut = budget.evaluate_after if has_evaluate(game) else None
    end = budget.playout_end if has_evaluate(game) else None
    if cut is not None:
        limit = min(limit, cut)
    ended = False
    for _ in range(limit):
        if game.is_terminal(world):
            break
        if end is not None and end(world):
            ended = True
            break
        seat = acting_seat(game, world, observer)
        legal = game.legal_actions(world, seat)
        if heuristic:
            action = game.heuristic_action(game.view(world, seat), seat, legal, rng)
        else:
            action = legal[randbelow(rng, len(legal))]
        step(game, world, seat, action)
    if (cut is not None or ended) and not game.is_terminal(world):
        return game.evaluate(world)
    return rewards(game, world, budget.score_weight)


def ucb(child: Node, exploration: float) -> float:
    return child.mean() + exploration * math.sqrt(math.log(child.available) / child.visits)


def select(node: Node, options: list[tuple[Key, Any]], exploration: float) -> tuple[Key, Any]:
    return max(options, key=lambda option: ucb(node.children[option[0]], exploration))


def iterate(
    game: AnyGame, root: Node, view: Message, seat: int, roots: set[Key], budget: Budget, rng: Rng, limit: int
) -> int:
    """One iteration: determinize, select and expand, play out (at most `limit` actions), back up. Returns the
    number of actions simulated."""
    world = game.sample_world(view, seat, rng)
    node, path = root, []
    while not game.is_terminal(world):
        actor = acting_seat(game, world, seat)
        options = [(action_key(actor, a), a) for a in game.legal_actions(world, actor)]
        if node is root:
            options = [(key, a) for key, a in options if key in roots]
        for key, _ in options:
            if key in node.children:
                node.children[key].available += 1
        if not options:
            break
        untried = [(key, a) for key, a in options if key not in node.children or not node.children[key].visits]
        if untried:
            key, action = untried[randbelow(rng, len(untried))]
            node.children.setdefault(key, Node(available=1))
        else:
            key, action = select(node, options, budget.exploration)
        node = node.children[key]
        path.append((node, actor))
        step(game, world, actor, action)
        if untried:
            break
    version = game.header(world).version
    results = playout(game, world, seat, budget, rng, min(budget.max_rollout_actions, limit))
    for visited, actor in path:
        visited.visits += 1
        visited.reward += results[actor]
    return len(path) + game.header(world).version - version


def search(
    game: AnyGame, view: Message, seat: int, legal: list[Any], budget: Budget, rng: Rng, stop: Stop | None = None
) -> Node:
    """The root of the search tree after the budget (or `stop`) runs out."""
    root = Node()
    roots = {action_key(seat, action) for action in legal}
    spent = 0
    for _ in range(budget.iterations):
        if spent >= budget.actions or (stop is not None and stop()):
            break
        spent += budget.world_cost
        spent += iterate(game, root, view, seat, roots, budget, rng, max(1, budget.actions - spent))
    if budget.heuristic_prior and has_heuristic(game):
        favourite = root.children.setdefault(action_key(seat, heuristic_move(game, view, seat, legal, rng)), Node())
        favourite.lead = 1 + math.ceil(budget.heuristic_prior * sum(child.visits for child in root.children.values()))
    return root


def improve(
    game: AnyGame, view: Message, seat: int, legal: list[Any], budget: Budget, rng: Rng, stop: Stop | None = None
) -> Any:
    """Flat search (`Budget.search == "flat"`): every legal move tried in the same dealt worlds, each followed by a
    playout with the same random draws, and compared with the heuristic's choice in that world (paired); the
    heuristic's choice unless another move gained more than `budget.margin` a world on average. The other moves are
    tried in a fresh random order in each world, and the budget may end a world part-way (once the heuristic's
    choice and one other move are done): with many legal moves (a crowded table) a decision still costs about its
    budget, and the moves left out of a world simply have one comparison fewer."""
    favourite = heuristic_move(game, view, seat, legal, rng) if has_heuristic(game) else legal[0]
    favourite_key = action_key(seat, favourite)
    moves = {favourite_key: favourite} | {action_key(seat, action): action for action in legal}
    others = [key for key in moves if key != favourite_key]
    gains = dict.fromkeys(moves, 0.0)
    tries = dict.fromkeys(moves, 0)
    spent = 0
    for _ in range(budget.iterations):
        if spent >= budget.actions or (stop is not None and stop()):
            break
        world = game.sample_world(view, seat, rng)
        playout_seed = next_u64(rng)
        spent += budget.world_cost
        available = {action_key(seat, action) for action in game.legal_actions(world, seat)}
        if favourite_key not in available:
            continue  # cannot happen with a consistent sample_world
        baseline = 0.0
        shuffle(rng, others)
        for done, key in enumerate([favourite_key, *others]):
            if done >= 2 and spent >= budget.actions:
                break
            if key not in available:
                continue
            trial = game.copy(world)
            step(game, trial, seat, moves[key])
            version = game.header(trial).version
            reward = playout(game, trial, seat, budget, new_rng(playout_seed), budget.max_rollout_actions)[seat]
            spent += 1 + game.header(trial).version - version
            if key == favourite_key:
                baseline = reward  # the first move of every world
            else:
                gains[key] += reward - baseline
                tries[key] += 1
    tried = [key for key in moves if tries[key]]
    if not tried:
        return favourite
    best = max(tried, key=lambda key: gains[key] / tries[key])
    return moves[best] if gains[best] / tries[best] > budget.margin else favourite


def best_action(root: Node, seat: int, legal: list[Any]) -> Any:
    """The most visited legal action (ties: the better mean, then the first listed)."""

    def rank(action: Any) -> tuple[int, float]:
        child = root.children.get(action_key(seat, action))
        return (child.visits + child.lead, child.mean()) if child else (0, 0.0)

    return max(legal, key=rank)
