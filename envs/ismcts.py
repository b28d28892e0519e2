"""OpenSpiel's own ISMCTS bot (`open_spiel.python.algorithms.ismcts.ISMCTSBot`) playing our games through
`envs.spiel`, under a budget of simulated actions: the `openspiel-ismcts` level of `make arena`.

    choose(game, state, seat, seed, actions=..., world_cost=...) -> one of the seat's legal actions

The bot is handed a world dealt from the seat's view (`Game.sample_world`), never the true state, so it cannot peek;
it resamples a world per simulation with `resample_from_infostate` (the game's `sample_world` again), keys its tree
on observation strings (one per view), expands one node per simulation and evaluates it with OpenSpiel's random
rollout to the end of the game (`RandomRolloutEvaluator`, one rollout), UCT with c = `UCT_C` (returns are win
shares in [0, 1]). The search stops once its simulated actions (every action applied in the tree and the rollouts,
plus `world_cost` for each world dealt) reach `actions`, after at least two simulations (OpenSpiel's final policy
needs a visited root), so it spends what our own level spends (`Budget.actions` and `Budget.world_cost`); the C++
ISMCTSBot cannot play python games (their states do not forward `ResampleFromInfostate` to python).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from open_spiel.python.algorithms import ismcts, mcts

from engine_core.game import Game
from engine_core.rng import new_rng
from envs.core import Table, spec
from envs.spiel import ManaforgeState, load

AnyGame = Game[Any, Any]
UCT_C = 1.4
MIN_SIMULATIONS = 2


class _Spent(Exception):
    """The search's budget of simulated actions is used up."""


class BudgetedISMCTSBot(ismcts.ISMCTSBot):  # type: ignore[misc]
    """OpenSpiel's python ISMCTSBot, stopped by a budget of simulated actions instead of a count of simulations."""

    def __init__(self, game: Any, seed: int, actions: int, world_cost: int) -> None:
        random_state = np.random.RandomState(seed % (1 << 32))
        super().__init__(
            game,
            mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=random_state),
            UCT_C,
            max_simulations=1 << 30,
            random_state=random_state,
            use_observation_string=True,
        )
        self.actions = actions
        self.world_cost = world_cost
        self.spent = 0
        self._start = 0
        self._worlds = 0
        self.set_resampler(lambda state, player: state.resample_from_infostate(player, random_state.uniform))

    def run_search(self, state: Any) -> Any:
        self._start, self._worlds = ManaforgeState.applied, 0
        try:
            return super().run_search(state)
        except _Spent:
            return self.get_final_policy(state, self._root_node)
        finally:
            self.spent += ManaforgeState.applied - self._start + self._worlds * self.world_cost

    def sample_root_state(self, state: Any) -> Any:
        spent = ManaforgeState.applied - self._start + self._worlds * self.world_cost
        if spent >= self.actions and self._worlds >= MIN_SIMULATIONS:
            raise _Spent
        self._worlds += 1
        return super().sample_root_state(state)


def choose(game: AnyGame, state: Any, seat: int, seed: int, actions: int, world_cost: int) -> Any:
    """OpenSpiel's ISMCTS decision for `seat` (a legal action of ours), from a world dealt from the seat's view."""
    config = game.header(state).config
    # exact clones: the bot searches a world dealt from the seat's view and resamples one per simulation, so a clone
    # has nothing to hide, and re-dealing every rollout's clone would only cost time (docs/envs.md, clones)
    spiel_game = load(game.info.name, config.seats, exact_clones=True, **dict(config.options))
    world = game.sample_world(game.view(game.live(state), seat), seat, new_rng(seed))
    root = spiel_game.new_initial_state()
    table = Table(spec(game.info.name, config.seats, dict(config.options)), 0, world)
    root.adopt(table)
    legal = table.legal(seat)
    if len(legal) == 1:
        return next(iter(legal.values()))
    bot = BudgetedISMCTSBot(spiel_game, seed, actions, world_cost)
    index = int(bot.step(root))
    return legal[index]
