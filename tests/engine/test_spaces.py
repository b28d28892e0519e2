"""The spaces every game declares for research environments (engine_core.spaces, `Game.spaces`): every legal action
has an index, read from the seat's view; observations are in range and show exactly the cards the seat's view shows;
the declared list bounds hold in random play."""

from __future__ import annotations

from typing import Any

import pytest
from manaforge.v1.common_pb2 import GameConfig
from manaforge.v1.games.cardbench_pb2 import CardbenchAction, CardbenchState

from engine_core import GAMES, Game
from engine_core.conformance import ConformanceError, check_spaces
from engine_core.games.cardbench import Cardbench
from engine_core.spaces import ActionSpace, SpaceError, encoder_for

CONFIGS = [(game, seats) for game in GAMES for seats in range(game.info.min_seats, game.info.max_seats + 1)]


@pytest.mark.parametrize(("game", "seats"), CONFIGS, ids=[f"{game.info.name}-{seats}" for game, seats in CONFIGS])
def test_every_legal_action_has_an_index_and_observations_show_only_the_view(game: Game[Any, Any], seats: int) -> None:
    report = check_spaces(game, seats, seed=7, every=5)
    assert report.finished
    assert report.overflows == {}, "a list of a view outgrew the bound the game declares for it"
    spaces = game.spaces(game.check_config(GameConfig(game=game.info.name, seats=seats)))
    if spaces.exact:
        assert report.shared == 0
    else:
        assert spaces.note, "a game whose action indices are shared says what an index leaves out"


def test_action_space_numbers_its_parts_in_order() -> None:
    space = ActionSpace(("draw", 3), ("open", 4, 2), ("keep",))
    assert space.size == 3 + 8 + 1
    assert [space.index("draw", 2), space.index("open", 0, 0), space.index("open", 3, 1), space.index("keep")] == [
        2,
        3,
        10,
        11,
    ]
    assert [space.name(i) for i in (0, 4, 10, 11)] == ["draw 0", "open 0 1", "open 3 1", "keep"]
    with pytest.raises(SpaceError, match=r"outside 0\.\.3"):
        space.index("open", 4, 0)
    with pytest.raises(SpaceError, match="no action space part"):
        space.index("discard", 1)


def test_observation_sizes_follow_the_seat_count() -> None:
    """More seats, more players' slots: a bigger observation (every config has its own fixed size)."""
    game = next(game for game in GAMES if game.info.name == "manasurge")
    sizes = [
        encoder_for(game, game.check_config(GameConfig(game="manasurge", seats=seats))).size for seats in (2, 3, 4)
    ]
    assert sizes[0] < sizes[1] < sizes[2]


class _Peeking(Cardbench):
    """A broken cardbench whose views keep the other hand: the check must catch it."""

    def _redact(self, view: CardbenchState, seat: int | None) -> None:
        view.deck[:] = []


class _Colliding(Cardbench):
    """A broken cardbench whose action space gives every card the same index."""

    def spaces(self, config: GameConfig) -> Any:
        spaces = super().spaces(config)
        return type(spaces)(spaces.actions, _first_card)


def _first_card(view: CardbenchState, seat: int, action: CardbenchAction) -> tuple[Any, ...]:
    return ("play", 0)


def test_the_check_catches_an_observation_that_shows_another_hand() -> None:
    with pytest.raises(ConformanceError, match="shows hidden cards"):
        check_spaces(_Peeking(), 2, seed=1)


def test_the_check_catches_legal_actions_sharing_an_index() -> None:
    with pytest.raises(ConformanceError, match="share an action index"):
        check_spaces(_Colliding(), 2, seed=1)
