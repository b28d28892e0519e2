"""OpenSpiel's own checks on every game: its random simulation test (pyspiel.random_sim_test) at the smallest and the
largest table, a whole game played by OpenSpiel's own ISMCTS bot (open_spiel.python.algorithms.ismcts), clones that
cannot see the future, typed parameters."""

from __future__ import annotations

import sys

import numpy as np
import pyspiel
import pytest
from open_spiel.python import rl_environment
from open_spiel.python.algorithms import ismcts, mcts, outcome_sampling_mccfr, tabular_qlearner

from engine_core import GAMES
from envs import spiel
from tests.envs.conftest import SHORT

EXTREMES = sorted({(game.info.name, seats) for game in GAMES for seats in (game.info.min_seats, game.info.max_seats)})


@pytest.mark.parametrize(("name", "seats"), EXTREMES, ids=[f"{name}-{seats}" for name, seats in EXTREMES])
def test_random_simulation(name: str, seats: int) -> None:
    """With exact clones: OpenSpiel's test applies one action to a state and to its clone and wants the same result
    (a default clone draws its own future: test_a_clone_cannot_see_the_future)."""
    game = spiel.load(name, seats, exact_clones=True, **SHORT.get(name, {}))
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


def _played(name: str, steps: int, seed: int = 0) -> pyspiel.State:
    game = spiel.load(name, None, seed=seed)
    state = game.new_initial_state()
    choices = np.random.RandomState(seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        state.apply_action(int(choices.choice(state.legal_actions())))
    return state


@pytest.mark.parametrize("name", [game.info.name for game in GAMES])
def test_a_clone_cannot_see_the_future(name: str) -> None:
    """Two clones of one state look the same to every seat as the state itself, but the rules' draws after it (a
    card drawn from the deck, a die, a shuffle) differ between them: a plain MCTS over clones cannot read the
    future from the state's rng or its deck order. The original plays on as its seed deals."""
    state = _played(name, 4)
    players = state.get_game().num_players()
    first, second = state.clone(), state.clone()
    for clone in (first, second):
        assert [clone.observation_tensor(p) for p in range(players)] == [
            state.observation_tensor(p) for p in range(players)
        ]
        assert clone.legal_actions() == state.legal_actions()
    differed = False
    pick = np.random.RandomState(9)  # the same choices for both
    for _ in range(400):
        if first.is_terminal() or second.is_terminal():
            break
        seen = [(first.observation_tensor(p), second.observation_tensor(p)) for p in range(players)]
        if any(a != b for a, b in seen) or first.legal_actions() != second.legal_actions():
            differed = True
            break
        legal = first.legal_actions()
        action = legal[pick.randint(len(legal))]
        first.apply_action(action)
        second.apply_action(action)
    assert differed, "the same actions from two clones drew the same future"


def test_the_original_plays_as_its_seed_deals_however_often_it_is_cloned() -> None:
    state, replay = _played("manasurge", 3, seed=5), _played("manasurge", 3, seed=5)
    for _ in range(5):
        clone = state.clone()
        clone.apply_action(clone.legal_actions()[0])
    assert str(state) == str(replay)
    while not state.is_terminal():
        action = state.legal_actions()[0]
        state.apply_action(action)
        state.clone()
        replay.apply_action(action)
        assert str(state) == str(replay)
    assert state.returns() == replay.returns()


def test_game_parameters_have_their_options_types() -> None:
    game = pyspiel.load_game("manaforge_mana_burn(turn_limit=15,players=3)")
    assert game.get_parameters()["turn_limit"] == 15
    assert spiel.load("mana_burn", 2, turn_limit=15).get_parameters()["turn_limit"] == 15
    assert spiel.load("mana_burn", 2, turn_limit="15").get_parameters()["turn_limit"] == 15  # an option's text too
    roles = spiel.load("manasurge", 3, roles=True)
    assert roles.get_parameters()["roles"] is True
    assert roles.new_initial_state().table.spec.config.options["roles"] == "on"
    assert spiel.load("magicka", 2, mode="spell_vs_spell").get_parameters()["mode"] == "spell_vs_spell"
    with pytest.raises(Exception, match="option turn_limit: '16' is not one of 15, 30, 60"):
        spiel.load("mana_burn", 2, turn_limit=16)


@pytest.mark.parametrize("name", [game.info.name for game in GAMES])
def test_openspiels_learners_run_on_information_states(name: str) -> None:
    """OpenSpiel's outcome-sampling MCCFR (keyed on information-state strings) and a tabular Q-learner through its
    RL environment (information-state tensors), numpy only, a few episodes on the shortest variant."""
    game = spiel.load(name, None, **SHORT.get(name, {}))
    assert game.get_type().provides_information_state_string
    assert game.get_type().provides_information_state_tensor
    np.random.seed(3)  # MCCFR samples with numpy's global generator
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    with _deep_recursion(), np.errstate(divide="ignore", invalid="ignore"):  # reach products underflow in long games
        for _ in range(2):
            solver.iteration()
    state = game.new_initial_state()
    assert sum(solver.average_policy().action_probabilities(state).values()) == pytest.approx(1.0)

    env = rl_environment.Environment(game)
    assert not env._use_observation  # information-state tensors, chosen because the game provides them
    players = game.num_players()
    agents = [tabular_qlearner.QLearner(player_id=p, num_actions=game.num_distinct_actions()) for p in range(players)]
    for _ in range(2):
        time_step = env.reset()
        assert len(time_step.observations["info_state"][0]) == game.information_state_tensor_size()
        while not time_step.last():
            player = time_step.observations["current_player"]
            time_step = env.step([agents[player].step(time_step).action])
        for agent in agents:
            agent.step(time_step)
        assert sum(time_step.rewards) == pytest.approx(1.0)
    assert any(agent._q_values for agent in agents)  # learned something: values by information state


class _deep_recursion:
    """MCCFR recurses once per action of a game: the long games need more than Python's default 1,000 frames."""

    def __enter__(self) -> None:
        self.limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(self.limit, 20_000))

    def __exit__(self, *exc: object) -> None:
        sys.setrecursionlimit(self.limit)


def test_an_information_state_recalls_what_the_seat_saw_and_did() -> None:
    """Perfect recall: the string tells apart two histories whose present the seat sees alike (the same
    observation), and a world dealt from the seat's information set has the seat's information state."""
    game = spiel.load("cardbench", 2, seed=1)
    state = game.new_initial_state()
    legal = state.legal_actions()
    first, second = state.clone(), state.clone()
    first.apply_action(legal[0])
    second.apply_action(legal[1])
    seat = first.current_player()
    assert first.information_state_string(seat) != second.information_state_string(seat)
    counts = np.array(first.information_state_tensor(0))[-game.num_distinct_actions() :]
    assert counts[legal[0]] == 1 and counts.sum() == 1  # seat 0's own action so far
    world = first.resample_from_infostate(seat, np.random.RandomState(1).uniform)
    assert world.information_state_string(seat) == first.information_state_string(seat)
    assert world.observation_string(seat) == first.observation_string(seat)
