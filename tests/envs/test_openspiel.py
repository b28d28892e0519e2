"""OpenSpiel's own checks on every game: its random simulation test (pyspiel.random_sim_test) at the smallest and the
largest table, and a whole game played by OpenSpiel's own ISMCTS bot (open_spiel.python.algorithms.ismcts)."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import ismcts, mcts

from engine_core import GAMES
from envs import spiel
from tests.envs.conftest import SHORT

EXTREMES = sorted({(game.info.name, seats) for game in GAMES for seats in (game.info.min_seats, game.info.max_seats)})


@pytest.mark.parametrize(("name", "seats"), EXTREMES, ids=[f"{name}-{seats}" for name, seats in EXTREMES])
def test_random_simulation(name: str, seats: int) -> None:
    game = spiel.load(name, seats, **SHORT.get(name, {}))
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


@pytest.mark.parametrize("name", [game.info.name for game in GAMES])
def test_openspiels_ismcts_bot_plays_a_whole_game(name: str) -> None:
    """Every seat is OpenSpiel's ISMCTS bot, as OpenSpiel plays any game: the true state handed to the bot, which
    resamples a world from the player's information set at every simulation (`resample_from_infostate`) and checks
    that the world shows the player the same observation string. A small search: its strength is `make arena`'s."""
    game = spiel.load(name, None, **SHORT.get(name, {}))
    random_state = np.random.RandomState(7)
    bot = ismcts.ISMCTSBot(
        game,
        mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=random_state, max_length=10),
        uct_c=1.4,
        max_simulations=2,
        random_state=random_state,
        use_observation_string=True,
    )
    state = game.new_initial_state()
    moves = 0
    while not state.is_terminal():
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        moves += 1
    assert moves > 0
    assert sum(state.returns()) == pytest.approx(1.0)


def test_a_game_is_registered_with_its_parameters() -> None:
    game = spiel.load("manasurge", 4, numbers="1-12", seed=3)
    assert game.num_players() == 4
    assert game.get_type().short_name == "manaforge_manasurge"
    assert game.get_parameters()["numbers"] == "1-12"
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
    first = str(game.new_initial_state().clone())
    assert first == str(spiel.load("manasurge", 4, numbers="1-12", seed=3).new_initial_state())
    assert first != str(spiel.load("manasurge", 4, numbers="1-12", seed=4).new_initial_state())
