"""OpenSpiel python games for every registered game: `import envs.spiel` registers `manaforge_<game>` with pyspiel.

    import pyspiel
    import envs.spiel  # noqa: F401 (registers the games)
    game = pyspiel.load_game("manaforge_manasurge", {"players": 3})   # and any game option by name, and "seed"
    state = game.new_initial_state()

Each game is sequential, imperfect-information and "sampled stochastic": the engines keep their rng inside the state
and draw inside `apply`, so there are no chance nodes; each new initial state is a new deal (its seed the next draw
of the game's "seed" parameter). Actions are the indices of the game's fixed action space (engine_core.spaces);
`legal_actions()` lists the acting seat's (the first pending seat where several decide at once). Returns come at the
end, each seat's share of the win (they sum to 1: constant-sum). The observation tensor and string of a player are
built from that seat's view alone (`Game.view`); the string is a digest of the view, one per information set the
engine distinguishes, which is what OpenSpiel's ISMCTS keys its tree on (`use_observation_string=True`).
`resample_from_infostate(player, sampler)` deals a world the player cannot tell from this one with the game's
`sample_world`, seeded from `sampler()`. Information-state strings and tensors (perfect recall) are not provided.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pyspiel

from engine_core.game import Game
from engine_core.registry import GAMES
from engine_core.rng import new_rng, next_u64
from envs.core import IllegalIndexError, Spec, Table, spec

AnyGame = Game[Any, Any]
PREFIX = "manaforge_"


def short_name(game: AnyGame) -> str:
    return PREFIX + game.info.name


class _Holder:
    """The engine's game inside an OpenSpiel state. OpenSpiel clones a python state by deep-copying its attributes:
    this copies the live state (the engine's own cheap copy) and shares the spec."""

    def __init__(self, table: Table) -> None:
        self.table = table

    def __deepcopy__(self, memo: dict[int, Any]) -> _Holder:
        table = self.table
        return _Holder(Table(table.spec, 0, table.spec.game.copy(table.state)))


class ManaforgeState(pyspiel.State):  # type: ignore[misc]
    """A game of one of our engines, played by OpenSpiel through action indices."""

    applied = 0  # actions applied by every state of this process, for budgets (envs.ismcts)

    def __init__(self, game: ManaforgeGame) -> None:
        super().__init__(game)
        self._held: _Holder | None = None  # made at first use (a clone replaces it before that); the only attribute

    @property
    def table(self) -> Table:
        if self._held is None:
            game = self.get_game()
            self._held = _Holder(Table(game.spec, game.next_seed()))
        return self._held.table

    def current_player(self) -> int:
        table = self.table
        seat = table.actor()
        if seat is None or table.is_cut_short():
            return int(pyspiel.PlayerId.TERMINAL)
        return seat

    def _legal_actions(self, player: int) -> list[int]:
        return sorted(self.table.legal(player)) if player == self.current_player() else []

    def _apply_action(self, action: int) -> None:
        self.table.step(action)
        ManaforgeState.applied += 1

    def adopt(self, table: Table) -> None:
        """Play `table` (a game of the same spec, e.g. a world dealt from a view) in this new state."""
        if self._held is not None or self.history():
            raise ValueError("only a new state that has not been used may adopt a game")
        self._held = _Holder(table)

    def _action_to_string(self, player: int, action: int) -> str:
        table = self.table
        if player == table.actor():
            return table.describe(player, action)
        return table.spec.spaces.actions.name(action)

    def is_terminal(self) -> bool:
        table = self.table
        return table.is_over() or table.is_cut_short()

    def returns(self) -> list[float]:
        table = self.table
        if not self.is_terminal():
            return [0.0] * table.spec.seats
        return table.shares() if table.is_over() else [1.0 / table.spec.seats] * table.spec.seats

    def resample_from_infostate(self, player_id: int, probability_sampler: Callable[[], float]) -> ManaforgeState:
        """A state `player_id` cannot tell from this one: `Game.sample_world` from its view, seeded by the sampler."""
        table = self.table
        seed = int(probability_sampler() * (1 << 53))
        world = table.spec.game.sample_world(table.view(player_id), player_id, new_rng(seed))
        state = ManaforgeState(self.get_game())
        state.adopt(Table(table.spec, 0, world))
        return state

    def __str__(self) -> str:
        """The game, its version, the seat to act and a digest of the whole state (two states print alike only if
        they are equal). `render()` gives the table in words."""
        table = self.table
        game = table.spec.game
        digest = hashlib.blake2b(game.message(table.state).SerializeToString(deterministic=True), digest_size=12)
        version = game.header(table.state).version
        return f"{game.info.name} version {version}, seat {table.actor()} to act, state {digest.hexdigest()}"

    def render(self, seat: int | None = None) -> str:
        """The table as `seat` sees it (None: a spectator), as the terminal client shows it."""
        game = self.table.spec.game
        return game.render(game.view(self.table.state, seat), seat)


class Observer:
    """OpenSpiel's python observer: the seat's view encoded (engine_core.spaces), and its digest as a string."""

    def __init__(self, spec: Spec, iig_obs_type: Any = None, params: Any = None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        if iig_obs_type is not None and iig_obs_type.perfect_recall:
            raise ValueError("perfect-recall observations (information states) are not provided")
        self.tensor = np.zeros(spec.observations, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: ManaforgeState, player: int) -> None:
        self.tensor[:] = state.table.observation(player)

    def string_from(self, state: ManaforgeState, player: int) -> str:
        table = state.table
        view = table.spec.game.message(table.view(player))
        digest = hashlib.blake2b(view.SerializeToString(deterministic=True), digest_size=16).hexdigest()
        return f"seat {player} version {view.header.version} view {digest}"


class ManaforgeGame(pyspiel.Game):  # type: ignore[misc]
    """One of our games at the seat count ("players") and options its parameters give; `engine` is set per game."""

    engine: AnyGame

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        game = self.engine
        params = {**_defaults(game), **(params or {})}
        options = {option.name: str(params[option.name]) for option in game.info.options}
        self.spec = spec(game.info.name, int(params["players"]), options)
        info = pyspiel.GameInfo(
            num_distinct_actions=self.spec.actions,
            max_chance_outcomes=0,
            num_players=self.spec.seats,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=1.0,
            max_game_length=game.info.max_actions,
        )
        super().__init__(GAME_TYPES[game.info.name], info, params)
        self._seeds = new_rng(int(params["seed"]))

    def next_seed(self) -> int:
        """The seed of the next new game: the next draw of the generator seeded by the "seed" parameter."""
        return next_u64(self._seeds) >> 1

    def new_initial_state(self) -> ManaforgeState:
        return ManaforgeState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        return Observer(self.spec, iig_obs_type, params)


def _defaults(game: AnyGame) -> dict[str, Any]:
    return {"players": game.info.min_seats, "seed": 0, **{option.name: option.default for option in game.info.options}}


def _game_type(game: AnyGame) -> pyspiel.GameType:
    info = game.info
    return pyspiel.GameType(
        short_name=short_name(game),
        long_name=f"Manaforge {info.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.CONSTANT_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=info.max_seats,
        min_num_players=info.min_seats,
        provides_information_state_string=False,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_defaults(game),
    )


GAME_TYPES: dict[str, pyspiel.GameType] = {}
GAME_CLASSES: dict[str, type[ManaforgeGame]] = {}


def register() -> None:
    """Register every game with pyspiel (once; importing this module does it)."""
    for game in GAMES:
        name = game.info.name
        if name in GAME_CLASSES:
            continue
        GAME_TYPES[name] = _game_type(game)
        GAME_CLASSES[name] = type(f"Manaforge_{name}", (ManaforgeGame,), {"engine": game})
        pyspiel.register_game(GAME_TYPES[name], GAME_CLASSES[name])


def load(name: str, seats: int | None = None, **params: Any) -> pyspiel.Game:
    """`pyspiel.load_game` of our game `name` (seats: "players", default the minimum; options and "seed" by name)."""
    if seats is not None:
        params["players"] = seats
    return pyspiel.load_game(PREFIX + name, params)


register()

__all__ = ["GAME_TYPES", "IllegalIndexError", "ManaforgeGame", "ManaforgeState", "load", "register", "short_name"]
