"""Urza's Blueprints (The Brothers' War minigame, 2-6 players): build the Mine, the Power Plant and the Tower.

One booster per player is shuffled into a deck and five cards are dealt to each player; a random player goes first.
A turn draws the top card of the deck or of the face-up discard pile (an empty deck is made again from the shuffled
discard pile), then discards one card face up. If the five cards left in hand build a location the player has not
built yet, they may reveal them and record it; then they discard their whole hand and draw five new cards. Foils are
wild (any colour, mana value or card type). Mine: five different card types; Power Plant: one card of each colour
(a multicoloured card counts as one colour of its own, lands are colorless); Tower: five different mana values
(lands count 0). The first to build all three wins. Rules, decisions and tests: RULES.md beside this file.
"""

from __future__ import annotations

from typing import Any, Final

from manaforge.v1.common_pb2 import Event, GameConfig, Rng
from manaforge.v1.games.blueprints_pb2 import BlueprintsAction, BlueprintsState
from mypy_extensions import mypyc_attr

from engine_core.cards import CARD_SET_OPTION
from engine_core.game import Game, GameInfo
from engine_core.games.blueprints import bot, rules, text
from engine_core.games.blueprints.rules import MAX_ROUNDS, REVEAL_OPTION, ROUND_LIMIT_OPTION, TAKEN_CARD_OPTION
from engine_core.games.blueprints.sharing import step_copy
from engine_core.spaces import ActionSpace, Spaces

MAX_SEATS: Final = 6


def _locate(view: BlueprintsState, seat: int, action: BlueprintsAction) -> tuple[Any, ...]:
    """draw (by source), discard (by card id), build (the locations as bits: Mine 1, Power Plant 2, Tower 4), keep."""
    choice = action.WhichOneof("choice")
    if choice == "draw":
        return ("draw", int(action.draw))
    if choice == "discard":
        return ("discard", action.discard)
    if choice == "build":
        return ("build", sum(1 << (location - 1) for location in set(action.build.locations)))
    return ("keep",)


@mypyc_attr(native_class=False)  # compiled by `make engines`; its class attributes stay Python's
class Blueprints(Game[BlueprintsState, BlueprintsAction]):
    info = GameInfo(
        name="blueprints",
        title="Urza's Blueprints",
        min_seats=2,
        max_seats=MAX_SEATS,
        description="Draw and discard from the players' boosters until your hand builds a Mine, a Power Plant and "
        "a Tower.",
        options=(CARD_SET_OPTION, REVEAL_OPTION, TAKEN_CARD_OPTION, ROUND_LIMIT_OPTION),
        max_actions=3 * MAX_ROUNDS * MAX_SEATS,
    )
    state_type = BlueprintsState
    step_copy = staticmethod(step_copy)  # shares the catalogue, the players and the header parts (sharing.py)
    action_type = BlueprintsAction

    def _setup(self, state: BlueprintsState) -> None:
        rules.setup(state)

    def spaces(self, config: GameConfig) -> Spaces:
        """draw (3: by `BlueprintsSource`), discard (a card id), build (8: the locations as bits), keep."""
        actions = ActionSpace(("draw", 3), ("discard", self.card_count(config)), ("build", 8), ("keep",))
        return Spaces(actions, _locate, {"players.constructions": 3})

    def _legal_actions(self, state: BlueprintsState, seat: int) -> list[BlueprintsAction]:
        return rules.legal_actions(state, seat)

    def _apply(self, state: BlueprintsState, seat: int, action: BlueprintsAction) -> list[Event]:
        return rules.apply(state, seat, action)

    # ----- views ----------------------------------------------------------------------------------------------

    def _redact(self, view: BlueprintsState, seat: int | None) -> None:
        hidden = self.hidden_cards(view, seat)
        for index in reversed(range(len(view.catalogue))):
            if view.catalogue[index].id in hidden:
                del view.catalogue[index]
        del view.deck[:]
        for other, player in enumerate(view.players):
            if other != seat:
                del player.hand[:]
                player.ClearField("taken")

    def cards(self, state: BlueprintsState) -> list[int]:
        return [*state.deck, *state.discard_pile, *(card for player in state.players for card in player.hand)]

    def hidden_cards(self, state: BlueprintsState, seat: int | None) -> set[int]:
        """The cards of the deck and of the other hands that were never face up: a card taken from the discard pile
        is known in its hand (`known`), one reshuffled into the deck keeps its public face (`seen`), only its
        position is hidden."""
        hidden = set(state.deck)
        for other, player in enumerate(state.players):
            if other != seat:
                hidden.update(card for card in player.hand if card not in player.known)
        return hidden - set(state.seen)

    # ----- text -----------------------------------------------------------------------------------------------

    def describe(self, state: BlueprintsState, action: BlueprintsAction) -> str:
        return text.describe(state, action)

    def render(self, view: BlueprintsState, seat: int | None) -> str:
        return text.render_view(view, seat)

    # ----- bots -----------------------------------------------------------------------------------------------

    def sample_world(self, view: BlueprintsState, seat: int, rng: Rng) -> BlueprintsState:
        return bot.sample_world(self.copy(view), view, seat, rng)

    def heuristic_action(
        self, view: BlueprintsState, seat: int, legal: list[BlueprintsAction], rng: Rng
    ) -> BlueprintsAction:
        return bot.heuristic_action(view, seat, legal, rng)

    def evaluate(self, state: BlueprintsState) -> list[float]:
        return bot.evaluate(state)


GAME: Final = Blueprints()
