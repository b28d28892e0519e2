"""Mishra's Manufactory (The Brothers' War minigame, 2-4 players): a draft from a conveyor belt.

One booster per player is shuffled into a deck; four cards are revealed as the conveyor belt, front first (the two
at the front are free, the two at the back, closest to the deck, cost a discard from your collection). A turn
drafts one belt card into one of your six face-up groups (the five colours and colorless; lands are wild and
multicoloured cards take one of their colours, declared when drafted); the cards behind slide forward and the deck
refills the back. When every card is collected, each colour's largest group scores 3 and the second largest 2
(ties: highest mana value, then half the points rounded up), plus 2/4/6 points for holding 4/5/6 groups.
Rules, decisions and tests: RULES.md beside this file.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Final

from manaforge.v1.common_pb2 import Event, GameConfig, Rng
from manaforge.v1.games.manufactory_pb2 import ManufactoryAction, ManufactoryColor, ManufactoryState
from mypy_extensions import mypyc_attr

from engine_core.budget import Budget, by_seats
from engine_core.cards import CARD_SET_OPTION
from engine_core.game import Game, GameInfo
from engine_core.games.manufactory import bot, rules, text
from engine_core.games.manufactory.rules import BELT_SIZE, FIRST_PLACE_TIE_OPTION, MAX_CARDS, WIN_TIE_OPTION, collected
from engine_core.games.manufactory.scoring import GROUPS
from engine_core.games.manufactory.sharing import LiveState, step_copy
from engine_core.live import Twin
from engine_core.spaces import ActionSpace, Spaces

FLAT: Final = Budget(
    iterations=1000, actions=200, evaluate_after=4, search="flat", rollout="heuristic", max_rollout_actions=200
)
"""The flat search at two seats; the other table sizes change a few of its settings (`bot_budget`)."""


def _locate(view: ManufactoryState, seat: int, action: ManufactoryAction) -> tuple[Any, ...]:
    """A draft by the card's place on the belt, the group, and the discarded card (0: none, else its id + 1)."""
    discard = action.discard + 1 if action.HasField("discard") else 0
    return ("draft", view.belt[:].index(action.card), int(action.color), discard)


@mypyc_attr(native_class=False)  # compiled by `make engines`; its class attributes stay Python's
class Manufactory(Game[ManufactoryState, ManufactoryAction]):
    info = GameInfo(
        name="manufactory",
        title="Mishra's Manufactory",
        min_seats=2,
        max_seats=4,
        description="Draft cards from a conveyor belt fed by the players' boosters; collect the biggest colour groups.",
        options=(CARD_SET_OPTION, FIRST_PLACE_TIE_OPTION, WIN_TIE_OPTION),
        max_actions=MAX_CARDS,
    )
    # Flat search over the heuristic's own playouts, each cut after 4 actions (two rounds of two players) and scored
    # by the evaluation (points if the game ended now); fewer actions at three and four seats, where a step weighs
    # more legal moves, and a smaller margin (each seat's chance of winning is smaller, and so are the gains).
    # docs/bots.md has the figures.
    bot_budget = by_seats(
        {
            2: FLAT,
            3: replace(FLAT, actions=140, margin=0.05),
            4: replace(FLAT, actions=110, margin=0.05),
        }
    )
    state_type = ManufactoryState
    action_type = ManufactoryAction

    step_copy = staticmethod(step_copy)  # shares the players and the header parts until a rule takes one (sharing.py)

    def copy(self, state: ManufactoryState) -> ManufactoryState:
        """A live state's copy shares as `apply`'s does (sharing.py); a message is copied whole."""
        if type(state) is LiveState:
            copied: ManufactoryState = step_copy(state)
            return copied
        return super().copy(state)

    def _setup(self, state: ManufactoryState) -> None:
        rules.setup(state)

    def spaces(self, config: GameConfig) -> Spaces:
        """draft: the card's place on the belt (4), the group it joins (7: by `ManufactoryColor`), and the collected
        card discarded (0: none, a free draft from the front; else its card id + 1)."""
        actions = ActionSpace(("draft", BELT_SIZE, len(ManufactoryColor.values()), self.card_count(config) + 1))
        return Spaces(actions, _locate, {"players.groups": len(GROUPS)})

    def _legal_actions(self, state: ManufactoryState, seat: int) -> list[ManufactoryAction]:
        return rules.legal_actions(state, seat)

    def _apply(self, state: ManufactoryState, seat: int, action: ManufactoryAction) -> list[Event]:
        return rules.apply(state, seat, action)

    # ----- views ----------------------------------------------------------------------------------------------

    def _redact(self, view: ManufactoryState, seat: int | None) -> None:
        hidden = set(view.deck)
        if isinstance(view, Twin):  # a live view's catalogue list is shared with the state (sharing.py)
            kept = [card for card in view.catalogue if card.id not in hidden]
            view.ClearField("catalogue")
            view.catalogue.extend(kept)
        else:
            for index in reversed(range(len(view.catalogue))):
                if view.catalogue[index].id in hidden:
                    del view.catalogue[index]
        del view.deck[:]

    def cards(self, state: ManufactoryState) -> list[int]:
        groups = [card for player in state.players for card in collected(player)]
        return [*state.deck, *state.belt, *groups, *state.discards]

    def hidden_cards(self, state: ManufactoryState, seat: int | None) -> set[int]:
        return set(state.deck)

    # ----- text -----------------------------------------------------------------------------------------------

    def describe(self, state: ManufactoryState, action: ManufactoryAction) -> str:
        return text.describe(state, action)

    def render(self, view: ManufactoryState, seat: int | None) -> str:
        return text.render_view(view, seat)

    # ----- bots -----------------------------------------------------------------------------------------------

    def sample_world(self, view: ManufactoryState, seat: int, rng: Rng) -> ManufactoryState:
        return bot.sample_world(self.copy(view), view, seat, rng)

    def heuristic_action(
        self, view: ManufactoryState, seat: int, legal: list[ManufactoryAction], rng: Rng
    ) -> ManufactoryAction:
        return bot.heuristic_action(view, seat, legal, rng)

    def evaluate(self, state: ManufactoryState) -> list[float]:
        return bot.evaluate(state)


GAME: Final = Manufactory()
