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
`sample_world`, seeded from `sampler()`. A clone cannot see the future: it draws its own (a new rng, the cards no
seat sees dealt again: `_Holder`), unless the game parameter `exact_clones` is set. Parameters have their option's
type (`turn_limit=15`, `roles=True`). Information states: the string is a hash chain of the seat's own views and
actions (perfect recall), the tensor the observation tensor and the counts of the seat's own past action indices.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pyspiel

from engine_core.game import Game, Option
from engine_core.registry import GAMES, find_game
from engine_core.rng import new_rng, next_u64
from envs.core import IllegalIndexError, Spec, Table, spec, unforeseen

AnyGame = Game[Any, Any]
PREFIX = "manaforge_"
CLONE_STREAM = 0x5EED_C10E_5EED_C10E  # the clone seeds' generator: the "seed" parameter xor this


def short_name(game: AnyGame) -> str:
    return PREFIX + game.info.name


class _Holder:
    """The engine's game inside an OpenSpiel state. OpenSpiel clones a python state by deep-copying its attributes:
    a clone gets the game no seat can tell from this one but with its future drawn anew (`envs.core.unforeseen`:
    the header rng seeded by the next draw of the game's clone seeds, and the cards no seat sees dealt again), so
    a search over clones cannot see future draws; with the game parameter `exact_clones=True`, an exact copy. The
    spec and the clone seeds are shared."""

    def __init__(self, table: Table, clone_seed: Callable[[], int] | None) -> None:
        self.table = table
        self.clone_seed = clone_seed

    def __deepcopy__(self, memo: dict[int, Any]) -> _Holder:
        table = self.table
        game = table.spec.game
        state = game.copy(table.state) if self.clone_seed is None else unforeseen(game, table.state, self.clone_seed())
        copied = Table(table.spec, 0, state, None if table.past is None else table.past[:])
        copied.recalled = dict(table.recalled)
        return _Holder(copied, self.clone_seed)


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
            self._held = _Holder(Table(game.spec, game.next_seed(), past=[]), game.clone_seeds())
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
        if table.past is None:
            table.past = []  # its information states recall from here
        self._held = _Holder(table, self.get_game().clone_seeds())

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
        dealt = Table(table.spec, 0, world, past=[])
        dealt.recalled[player_id] = (1, table.recall(player_id))  # the player's information state is this one's
        state.adopt(dealt)
        return state

    def __str__(self) -> str:
        """The game, its version, the seat to act and a digest of every seat's view: two states print alike when
        every seat sees them alike. What no seat sees (the rng, a deck's order) is the state's undrawn future, not
        part of it (a clone draws its own: `_Holder`), so a clone prints as its original. `render()` gives the table
        in words."""
        table = self.table
        game = table.spec.game
        digest = hashlib.blake2b(digest_size=12)
        for seat in range(table.spec.seats):
            digest.update(game.message(table.view(seat)).SerializeToString(deterministic=True))
        version = game.header(table.state).version
        return f"{game.info.name} version {version}, seat {table.actor()} to act, views {digest.hexdigest()}"

    def render(self, seat: int | None = None) -> str:
        """The table as `seat` sees it (None: a spectator), as the terminal client shows it."""
        game = self.table.spec.game
        return game.render(game.view(self.table.state, seat), seat)


class Observer:
    """OpenSpiel's python observer. Observation: the seat's view encoded (engine_core.spaces) and its digest as a
    string. Information state (`perfect_recall`): the string is the seat's hash chain of its own views and actions
    (`Table.recall`), the tensor the observation followed by how often the seat took each action index so far."""

    def __init__(self, spec: Spec, iig_obs_type: Any = None, params: Any = None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        self.perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        size = spec.observations + (spec.actions if self.perfect_recall else 0)
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor[: spec.observations]}
        if self.perfect_recall:
            self.dict["own_actions"] = self.tensor[spec.observations :]

    def set_from(self, state: ManaforgeState, player: int) -> None:
        table = state.table
        observations = table.spec.observations
        self.tensor[:observations] = table.observation(player)
        if self.perfect_recall:
            counts = self.tensor[observations:]
            counts[:] = 0
            np.add.at(counts, table.own_actions(player), 1.0)

    def string_from(self, state: ManaforgeState, player: int) -> str:
        table = state.table
        if self.perfect_recall:
            return f"seat {player} recall {table.recall(player).hex()}"
        view = table.spec.game.message(table.view(player))
        digest = hashlib.blake2b(view.SerializeToString(deterministic=True), digest_size=16).hexdigest()
        return f"seat {player} version {view.header.version} view {digest}"


class ManaforgeGame(pyspiel.Game):  # type: ignore[misc]
    """One of our games at the seat count ("players") and options its parameters give; `engine` is set per game."""

    engine: AnyGame

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        game = self.engine
        params = {**_defaults(game), **(params or {})}
        self.exact_clones = bool(params["exact_clones"])
        options = {option.name: option_text(option, params[option.name]) for option in game.info.options}
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
        self._clone_seeds = new_rng(int(params["seed"]) ^ CLONE_STREAM)

    def next_seed(self) -> int:
        """The seed of the next new game: the next draw of the generator seeded by the "seed" parameter."""
        return next_u64(self._seeds) >> 1

    def next_clone_seed(self) -> int:
        """The seed of a clone's future: the next draw of a second generator seeded by the "seed" parameter (its own
        stream, so cloning does not change which games new initial states deal)."""
        return next_u64(self._clone_seeds) >> 1

    def clone_seeds(self) -> Callable[[], int] | None:
        """What a state's clones draw their future from: None where the parameter `exact_clones` is set."""
        return None if self.exact_clones else self.next_clone_seed

    def new_initial_state(self) -> ManaforgeState:
        return ManaforgeState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        return Observer(self.spec, iig_obs_type, params)


def option_value(option: Option, text: str) -> Any:
    """An option's value as an OpenSpiel parameter of its type: an int where the default and every choice are
    integers (`turn_limit=15`), a bool where the choices are on and off, a float where they are numbers, else text."""
    values = (option.default, *option.choices)
    if set(option.choices) == {"on", "off"}:
        return text == "on"
    if all(_is_int(value) for value in values):
        return int(text)
    if all(_is_float(value) for value in values):
        return float(text)
    return text


def option_text(option: Option, value: Any) -> str:
    """A parameter's value as the option's text (the engines' `GameConfig.options`)."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float) and value.is_integer() and _is_int(option.default):
        return str(int(value))
    return str(value)


def _is_int(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _defaults(game: AnyGame) -> dict[str, Any]:
    options = {option.name: option_value(option, option.default) for option in game.info.options}
    return {"players": game.info.min_seats, "seed": 0, "exact_clones": False, **options}


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
        provides_information_state_string=True,
        provides_information_state_tensor=True,
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
    """`pyspiel.load_game` of our game `name` (seats: "players", default the minimum; options and "seed" by name).
    An option may be given as its text too (`turn_limit="15"`, as `GameConfig.options` hold it): it is passed to
    OpenSpiel as the option's type."""
    if seats is not None:
        params["players"] = seats
    options = {option.name: option for option in find_game(name).info.options}
    for key, value in params.items():
        if key in options and isinstance(value, str):
            params[key] = option_value(options[key], value)
    return pyspiel.load_game(PREFIX + name, params)


register()

__all__ = ["GAME_TYPES", "IllegalIndexError", "ManaforgeGame", "ManaforgeState", "load", "register", "short_name"]
