"""Bots on every registered game: determinized worlds are possible worlds, every level plays legally, ISMCTS plays
from its own view only, and it beats a random player.

A sampled world must hold exactly the cards of the true state, look to the seat exactly as the true state does (the
seat's view of both is the same message), and play to the end. OpenSpiel's hearts resampler once dealt a card twice
and crashed its ISMCTS bot: these tests are there so that never happens here.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from google.protobuf.message import Message
from manaforge.v1.common_pb2 import GameConfig

from engine_core import GAMES, Game
from engine_core.bots import LEVELS, IsmctsPolicy, Policy, choose_action, levels_for
from engine_core.bots.hidden import choice_weights, has_choice_ratings
from engine_core.bots.ismcts import has_evaluate, has_heuristic, has_sample_world
from engine_core.budget import Budget
from engine_core.conformance import hidden_from
from engine_core.games.cardbench import Cardbench
from engine_core.games.manasurge.actions import GIVE, numbers_of
from engine_core.games.manasurge.cards import card_name
from engine_core.registry import find_game
from engine_core.rng import new_rng

IDS = [g.info.name for g in GAMES]
SAMPLED_STATES = 12  # states per playout (spread over it) where every seat's world is sampled


def _need(game: Game[Any, Any], sample_world: bool = False, heuristic: bool = False) -> None:
    if sample_world and not has_sample_world(game):
        pytest.skip(f"{game.info.name} has no sample_world hook yet (Game.sample_world is not overridden)")
    if heuristic and not has_heuristic(game):
        pytest.skip(f"{game.info.name} has no heuristic_action hook yet (Game.heuristic_action is not overridden)")


def _random_playout_states(game: Game[Any, Any], seed: int, count: int, seats: int = 0) -> list[Any]:
    """`count` states spread over one seeded random playout (the first is the opening, none is finished)."""
    rand = random.Random(seed)
    state = game.new_game(GameConfig(game=game.info.name, seats=seats or game.info.min_seats), seed)
    states = []
    while not game.is_terminal(state):
        states.append(state)
        seat = rand.choice(game.pending_seats(state))
        state, _ = game.apply(state, seat, rand.choice(game.legal_actions(state, seat)))
    stride = max(1, len(states) // count)
    return states[::stride][:count]


def _data(message: Message) -> bytes:
    return message.SerializeToString(deterministic=True)


def _differences(a: Message, b: Message) -> list[str]:
    """The top-level fields where two messages differ, for a readable failure."""
    return [fd.name for fd in a.DESCRIPTOR.fields if getattr(a, fd.name) != getattr(b, fd.name)]


def _plays_to_the_end(game: Game[Any, Any], world: Any, seed: int) -> bool:
    rand = random.Random(seed)
    cards = sorted(game.cards(world))
    for _ in range(game.info.max_actions + 1):
        if game.is_terminal(world):
            return sorted(game.cards(world)) == cards
        seat = rand.choice(game.pending_seats(world))
        world, _ = game.apply(world, seat, rand.choice(game.legal_actions(world, seat)))
    return False


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_sampled_worlds_are_possible_and_play_to_the_end(game: Game[Any, Any]) -> None:
    _need(game, sample_world=True)
    most = min(game.info.max_seats, 4)
    states = [
        *_random_playout_states(game, seed=7, count=SAMPLED_STATES),
        *_random_playout_states(game, seed=8, count=SAMPLED_STATES, seats=most),
    ]
    for step, state in enumerate(states):
        for seat in range(game.header(state).config.seats):
            view = game.view(state, seat)
            before = _data(view)
            world = game.sample_world(view, seat, new_rng(100 * step + seat))
            where = f"{game.info.name} state {step}, seat {seat}"
            assert _data(view) == before, f"{where}: sample_world changed the view it was given"
            assert sorted(game.cards(world)) == sorted(game.cards(state)), f"{where}: cards not conserved"
            seen = game.view(world, seat)
            assert seen == view, f"{where}: the seat would see a different game in {_differences(seen, view)}"
            assert game.header(world).HasField("rng"), f"{where}: the sampled world has no rng to play on with"
            assert _plays_to_the_end(game, world, seed=step), f"{where}: the sampled world does not play to the end"


EVALUATED = [game for game in GAMES if has_evaluate(game)]  # optional: R&D is cooperative, nobody is ahead


@pytest.mark.parametrize("game", EVALUATED, ids=[game.info.name for game in EVALUATED])
def test_the_evaluation_gives_every_seat_a_chance_summing_to_one(game: Game[Any, Any]) -> None:
    for seats in sorted({game.info.min_seats, min(game.info.max_seats, 4)}):
        for state in _random_playout_states(game, 11 + seats, SAMPLED_STATES, seats):
            before = _data(state)
            chances = game.evaluate(state)
            assert len(chances) == seats
            assert all(0.0 <= chance <= 1.0 for chance in chances), chances
            assert sum(chances) == pytest.approx(1.0)
            assert _data(state) == before  # evaluating leaves the state untouched


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_the_same_rng_samples_the_same_world(game: Game[Any, Any]) -> None:
    _need(game, sample_world=True)
    state = _random_playout_states(game, seed=3, count=2)[-1]
    seat = game.pending_seats(state)[0]
    view = game.view(state, seat)
    assert _data(game.sample_world(view, seat, new_rng(5))) == _data(game.sample_world(view, seat, new_rng(5)))


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_every_level_returns_a_legal_action(game: Game[Any, Any]) -> None:
    missing = [level for level in LEVELS if level not in levels_for(game)]
    for state in _random_playout_states(game, seed=11, count=2):
        for seat in game.pending_seats(state):
            legal = [_data(action) for action in game.legal_actions(state, seat)]
            for level in LEVELS:
                action = choose_action(game, state, seat, level, seed=seat)
                assert _data(action) in legal, f"{game.info.name} {level} chose an illegal action"
    if missing:
        pytest.skip(f"{game.info.name} plays {', '.join(missing)} through a lower level: its hook is missing")


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_ismcts_decides_from_the_seat_view_only(game: Game[Any, Any]) -> None:
    """Two games that look the same to the bot's seat (the true one and a redealt one) get the same move."""
    _need(game, sample_world=True)
    state = _random_playout_states(game, seed=5, count=3)[1]
    seat = game.pending_seats(state)[0]
    redealt = game.sample_world(game.view(state, seat), seat, new_rng(99))
    assert _data(choose_action(game, state, seat, "ismcts", seed=1)) == _data(
        choose_action(game, redealt, seat, "ismcts", seed=1)
    )


def _match(game: Game[Any, Any], bot: Policy, games: int, opponent: str = "random") -> tuple[float, float]:
    """`bot` against a level (random), seats alternating: the bot's win share and its average score margin."""
    wins = margin = 0.0
    for i in range(games):
        me = i % 2
        state = game.new_game(GameConfig(game=game.info.name, seats=2), 500 + i)
        while not game.is_terminal(state):
            seat = game.pending_seats(state)[0]
            policy = bot if seat == me else LEVELS[opponent]
            legal = game.legal_actions(state, seat)
            seed = (i * 10_000 + game.header(state).version) * 2 + seat
            state, _ = game.apply(state, seat, policy(game, game.view(state, seat), seat, legal, seed))
        outcome = game.outcome(state)
        wins += (me in outcome.winners) / len(outcome.winners)
        margin += outcome.scores[me] - outcome.scores[1 - me]
    return wins / games, margin / games


def test_the_search_alone_beats_random_at_manufactory() -> None:
    """No heuristic help (no lead for its choice, random playouts): the tree search itself must win."""
    game = find_game("manufactory")
    _need(game, sample_world=True)
    share, margin = _match(game, IsmctsPolicy(Budget(iterations=30, heuristic_prior=0)), games=4)
    assert share >= 0.75
    assert margin > 0


def test_the_default_ismcts_level_beats_random_at_cardbench() -> None:
    share, margin = _match(find_game("cardbench"), LEVELS["ismcts"], games=6)
    assert share > 0.5
    assert margin > 0


class LowCardbench(Cardbench):
    """cardbench with a poor strategy: always play the lowest card."""

    def heuristic_action(self, view: Any, seat: int, legal: list[Any], rng: Any) -> Any:
        return min(legal, key=lambda action: action.card % 13)


def test_the_flat_search_improves_on_a_poor_game_strategy() -> None:
    """Rollout policy improvement: every move tried in the same worlds, followed by the (poor) strategy's own
    playouts, finds the better moves the strategy misses, and beats it."""
    game = LowCardbench()
    flat = IsmctsPolicy(Budget(iterations=8, search="flat", rollout="heuristic", evaluate_after=2, margin=0.05))
    share, margin = _match(game, flat, games=6, opponent="heuristic")
    assert share >= 0.75
    assert margin > 0


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_the_flat_search_plays_the_game_strategy_until_it_has_evidence(game: Game[Any, Any]) -> None:
    _need(game, sample_world=True, heuristic=True)
    blind = IsmctsPolicy(Budget(iterations=0, search="flat"))
    for state in _random_playout_states(game, seed=3, count=4):
        seat = game.pending_seats(state)[0]
        view, legal = game.view(state, seat), game.legal_actions(state, seat)
        assert _data(blind(game, view, seat, legal, seed=7)) == _data(LEVELS["heuristic"](game, view, seat, legal, 7))


# ----- hidden choices: a mixed strategy drawn with the table's secret seed (engine_core/bots/hidden.py) -------------


def _heuristic_playout(game: Game[Any, Any], seats: int, seed: int) -> Any:
    """The states of one seeded game between heuristic bots (random where the game has none)."""
    state = game.new_game(GameConfig(game=game.info.name, seats=seats), seed)
    while not game.is_terminal(state):
        yield state
        seat = game.pending_seats(state)[0]
        state, _ = game.apply(state, seat, choose_action(game, state, seat, "heuristic", game.header(state).version))


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_every_hidden_choice_is_declared_and_rated(game: Game[Any, Any]) -> None:
    """Wherever another seat cannot tell a seat's choices apart (a face-down card, a secret vote, a gift only the
    receiver sees: `conformance.hidden_from`), the game says the choice is hidden, and its heuristic rates the
    actions there: the bots then draw it with the table's secret seed instead of playing a rule anyone can run."""
    undeclared, unrated = Counter[str](), Counter[str]()
    for seats in sorted({game.info.min_seats, min(game.info.max_seats, game.info.min_seats + 1)}):
        for seed in (0, 1):
            for state in _heuristic_playout(game, seats, seed):
                for seat in game.pending_seats(state):
                    legal = game.legal_actions(state, seat)
                    if len(legal) < 2 or not hidden_from(game, state, seat):
                        continue
                    view, where = game.view(state, seat), f"{seats} seats: {game.header(state).pending.prompt}"
                    undeclared[where] += not game.is_hidden_choice(view, seat)
                    if has_heuristic(game):
                        rated = has_choice_ratings(game) and len(game.choice_ratings(view, seat, legal)) == len(legal)
                        unrated[where] += not rated
    assert not +undeclared, f"hidden choices {game.info.name} does not declare (Game.is_hidden_choice)"
    assert not +unrated, f"hidden choices the heuristic of {game.info.name} does not rate (Game.choice_ratings)"


def _choice_name(game: Game[Any, Any], state: Any, action: Any) -> str:
    if game.info.name == "rnd":
        return f"card {action.vote.design}"
    if game.info.name == "manasurge":
        return card_name(action.card, numbers_of(state)) if action.move == GIVE else "decline"
    return game.describe(state, action)  # MANA BURN: "choose Raise Dead"


def _first_close_hidden_choice(game: Game[Any, Any], seats: int, seed: int) -> tuple[Any, int]:
    """The first hidden choice of a seeded heuristic game where the heuristic rates two different choices close."""
    for state in _heuristic_playout(game, seats, seed):
        seat = game.pending_seats(state)[0]
        view, legal = game.view(state, seat), game.legal_actions(state, seat)
        if len(legal) > 1 and game.is_hidden_choice(view, seat):
            weights = choice_weights(game.choice_ratings(view, seat, legal))
            if len({_choice_name(game, state, a) for a, weight in zip(legal, weights, strict=True) if weight}) > 1:
                return state, seat
    raise AssertionError("no such choice")


SECRET_CHOICES = {
    # (game, seats, playout seed): how 40 seeds choose by the old rule (the heuristic's best, as every level chose
    # before), by the heuristic level and by the ismcts level, the public facts the same
    ("rnd", 4, 0): (
        {"card 2": 40},
        {"card 0": 6, "card 1": 7, "card 2": 20, "card 3": 7},
        {"card 0": 9, "card 1": 8, "card 2": 12, "card 3": 11},
    ),
    ("manasurge", 3, 0): (
        {"Flying Dagger 1": 40},
        {"Earthquake 5": 14, "Flying Dagger 1": 8, "Flying Dagger 4": 14, "Purge": 4},
        {"Earthquake 5": 18, "Flying Dagger 1": 7, "Flying Dagger 4": 13, "decline": 2},
    ),
    ("mana_burn", 3, 0): (  # a Trade: three cards rated alike, tied already for the old rule (a third each)
        {"choose Counterspell": 13, "choose Giant Growth": 13, "choose Raise Dead": 14},
        {"choose Counterspell": 16, "choose Giant Growth": 8, "choose Raise Dead": 16},
        {"choose Counterspell": 16, "choose Giant Growth": 8, "choose Raise Dead": 16},
    ),
}


@pytest.mark.parametrize("case", list(SECRET_CHOICES), ids=["-".join(map(str, case)) for case in SECRET_CHOICES])
def test_a_hidden_choice_is_drawn_with_the_secret_seed(case: tuple[str, int, int]) -> None:
    """The same position, 40 seeds (on a server: 40 tables' secret seeds): the vote, the gift or the face-down card
    varies with the seed among the choices the heuristic rates sensible, at every level that plays it. The old rule,
    which nothing but public facts decided, chose one of them every time (MANA BURN's already drew among ties)."""
    name, seats, seed = case
    game = find_game(name)
    state, seat = _first_close_hidden_choice(game, seats, seed)
    view, legal = game.view(state, seat), game.legal_actions(state, seat)

    def counts(choose: Any) -> dict[str, int]:
        return dict(Counter(_choice_name(game, state, choose(bot_seed)) for bot_seed in range(40)))

    old = counts(lambda bot_seed: game.heuristic_action(view, seat, legal, new_rng(bot_seed)))
    heuristic = counts(lambda bot_seed: choose_action(game, state, seat, "heuristic", bot_seed))
    ismcts = counts(lambda bot_seed: choose_action(game, state, seat, "ismcts", bot_seed))
    assert (old, heuristic, ismcts) == SECRET_CHOICES[case]
