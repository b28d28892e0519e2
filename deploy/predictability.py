"""How well a bot's hidden choices can be predicted before they are revealed (docs/bots.md, "What a predictor can
still learn").

    python -m deploy.predictability [--games rnd,mana_burn,manasurge] [--levels heuristic,ismcts] [--seats 3]
                                    [--n 20] [--samples 16] [--first-seed 10000]

Every seat of a table is a bot of one level, seeded as the server seeds it (an HMAC of the table's secret seed, the
version and the seat). At each decision whose choice some other seat cannot see (`conformance.hidden_from`: a
face-down card, a secret vote, a gift only the giver and the receiver see) the bot's choice is compared with two
predictors, each knowing everything the bot's own seat sees (more than any other client: the bot's hand too) but
not the table's secret:
- **the old rule**: the game's heuristic as a deterministic rule (`Game.heuristic_action`, its argmax; ties broken
  by the predictor's own draw), which is what every hidden choice was before bots mixed them;
- **the best predictor**: the bot's own code run with `--samples` seeds of the predictor's own, guessing the choice it
  made most often (the most likely option, which is the best any predictor can do without the secret).
A **blind guess** hits one in the number of different choices the game rates (the mean over decisions); **chance**
is one in the number of different sensible choices (rated within `SENSIBLE` of the best: engine_core/bots/hidden.py);
the **excess** is the better predictor's hits above chance, which docs/bots.md bounds ("The bar"). The spread is the
most likely option's share among those samples (the mean over decisions; with few samples it overstates what a
predictor gets). It prints, per game, table size, level and kind of decision, the decisions seen, the two
predictors' hit rates, the blind guess's, chance, the excess and the mean spread. Decisions are labelled by the
pending prompt (MANA BURN: the square).
"""

from __future__ import annotations

import argparse
import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from manaforge.v1.common_pb2 import GameConfig
from tqdm import tqdm

from engine_core.bots import choose_action, levels_for
from engine_core.bots.hidden import SENSIBLE, has_choice_ratings
from engine_core.bots.ismcts import has_heuristic
from engine_core.conformance import hidden_from
from engine_core.game import Game
from engine_core.games.mana_burn.board import SQUARES, Square
from engine_core.registry import find_game
from engine_core.rng import new_rng
from services.tables.acting import bot_seed

AnyGame = Game[Any, Any]
GAMES = ("rnd", "mana_burn", "manasurge")
"""The games with hidden choices (tests/engine/test_bots.py finds none in the others)."""
FIRST_SEED = 10_000
PREDICTOR_SEED = 0x5EED


@dataclass
class Tally:
    decisions: int = 0
    old_rule: int = 0  # hits of the old deterministic rule
    best: int = 0  # hits of the most likely option among the samples
    spread: float = 0.0  # sum of the most likely option's share among the samples
    chance: float = 0.0  # sum of one in the number of different sensible choices: the bar's chance
    blind: float = 0.0  # sum of one in the number of different choices rated at all: a blind guess's hits

    @property
    def excess(self) -> float:
        """How much more often than chance among the sensible choices the better of the two predictors names the
        choice (a share of decisions). Where the bot's draw is close to even, the old rule (its likeliest action)
        beats the samples' mode, which is then often a less likely action."""
        return (max(self.best, self.old_rule) - self.chance) / self.decisions

    def row(self, key: tuple[str, int, str, str]) -> str:
        game, seats, level, label = key
        n = self.decisions
        return (
            f"| {game} | {seats} | {level} | {label} | {n} | {self.old_rule}/{n} ({self.old_rule / n:.0%}) "
            f"| {self.best}/{n} ({self.best / n:.0%}) | {self.blind / n:.0%} | {self.chance / n:.0%} "
            f"| {self.excess:+.0%} "
            f"| {self.spread / n:.2f} |"
        )


def label(game: AnyGame, state: Any) -> str:
    """The kind of decision: its prompt up to a colon; in MANA BURN, whose prompts say only "follow the square's
    instruction" or "choose a card to lay face down", the square's name."""
    if game.info.name == "mana_burn":
        square: Square = SQUARES[state.square]
        return square.name
    return game.header(state).pending.prompt.split(":")[0]


def meaning(game: AnyGame, state: Any, seat: int) -> Any:
    """What a choice means to the seat making it: its view after the action, as rendered (so that laying either of
    two copies of a card face down is one choice, as the seat and any predictor would count it)."""
    memo: dict[bytes, str] = {}

    def of(action: Any) -> str:
        data = action.SerializeToString(deterministic=True)
        if data not in memo:
            memo[data] = game.render(game.view(game.apply(state, seat, action)[0], seat), seat)
        return memo[data]

    return of


def choices(game: AnyGame, state: Any, seat: int, legal: list[Any], within: float = math.inf) -> list[Any]:
    """The actions a guess picks among: those the game rates at all (`Game.choice_ratings`; R&D does not rate its
    votes for an award other than the one the seat votes for now, since which award it votes for is public), within
    `within` of the best (`SENSIBLE`: the sensible choices), else every legal action."""
    if not has_choice_ratings(game):
        return legal
    ratings = game.choice_ratings(game.view(state, seat), seat, legal)
    best = max(ratings)
    return [action for action, rating in zip(legal, ratings, strict=True) if -math.inf < rating >= best - within]


def play(
    game: AnyGame, level: str, seats: int, secret: int, samples: int, tallies: dict[tuple[str, int, str, str], Tally]
) -> None:
    """One game of `level` bots at every seat; every hidden choice is tallied."""
    state = game.new_game(GameConfig(game=game.info.name, seats=seats), secret)
    while not game.is_terminal(state):
        seat = game.pending_seats(state)[0]
        version = game.header(state).version
        legal = game.legal_actions(state, seat)
        action = choose_action(game, state, seat, level, bot_seed(secret, "bot", version, seat))
        if len(legal) > 1 and hidden_from(game, state, seat):
            tally = tallies[(game.info.name, seats, level, label(game, state))]
            tally.decisions += 1
            key = meaning(game, state, seat)
            tally.blind += 1 / len({key(choice) for choice in choices(game, state, seat, legal)})
            tally.chance += 1 / len({key(choice) for choice in choices(game, state, seat, legal, SENSIBLE)})
            if has_heuristic(game):
                view = game.view(state, seat)
                rule = game.heuristic_action(view, seat, legal, new_rng(PREDICTOR_SEED + version))
                tally.old_rule += key(rule) == key(action)
            counts = Counter(
                key(choose_action(game, state, seat, level, PREDICTOR_SEED * 1_000 + version * samples + s))
                for s in range(samples)
            )
            likeliest, times = counts.most_common(1)[0]
            tally.best += likeliest == key(action)
            tally.spread += times / samples
        state, _ = game.apply(state, seat, action)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default=",".join(GAMES), help="comma-separated game names")
    parser.add_argument("--levels", default="heuristic,ismcts", help="comma-separated levels")
    parser.add_argument("--seats", default="", help="table sizes, comma-separated (default: each game's minimum)")
    parser.add_argument("--n", type=int, default=20, help="games per game, table size and level")
    parser.add_argument("--samples", type=int, default=16, help="seeds of the predictor's own per decision")
    parser.add_argument("--first-seed", type=int, default=FIRST_SEED, help="the first game's secret seed")
    args = parser.parse_args(argv)
    games = [find_game(name) for name in args.games.split(",") if name]
    sizes = [int(size) for size in args.seats.split(",") if size]
    levels = [level for level in args.levels.split(",") if level]
    plans = [
        (game, seats, level)
        for game in games
        for seats in ([s for s in sizes if game.info.min_seats <= s <= game.info.max_seats] or [game.info.min_seats])
        for level in levels
        if level in levels_for(game)
    ]
    tallies: dict[tuple[str, int, str, str], Tally] = defaultdict(Tally)
    with tqdm(total=len(plans) * args.n, unit="game") as bar:
        for game, seats, level in plans:
            for i in range(args.n):
                play(game, level, seats, args.first_seed + i, args.samples, tallies)
                bar.update()
    print(f"{args.n} games each, secret seeds {args.first_seed} on; {args.samples} predictor samples a decision")
    print("| game | seats | level | decision | hidden choices | old rule predicts | best predictor ", end="")
    print("| blind guess | chance (sensible) | excess | spread |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for table_key in sorted(tallies):
        print(tallies[table_key].row(table_key))


if __name__ == "__main__":
    main()
