"""Look at Us, We're R&D (The Brothers' War minigame, 3+ players): design, illustrate and name Magic cards together.

One booster is opened and shuffled face down. There is one round per seat: in round r seat r is the artist, the next
seat the writer and the others designers. Designers take turns, clockwise from the writer's left: a random card is
drawn (face up, for all to see) and the designer copies one open category from it — casting cost, card type, card
text, power and toughness (only once a creature or vehicle type is copied) — or, when it lacks the category they
want, draws another. A card with none of the open categories is put aside and another drawn at once. Drawn cards go
to a face-up pile, shuffled back into the pack when it runs out. The artist then draws the art (text or an ASCII
sketch), the writer names the card and writes its flavor. After the last round every seat votes, secretly and all
at once, for the most powerful, least functional and most flavorful card; the results list the winners.
Rules, decisions and tests: RULES.md beside this file.
"""

from __future__ import annotations

from typing import Any, Final

from manaforge.v1.common_pb2 import Event, GameConfig, Rng
from manaforge.v1.games.rnd_pb2 import (
    RndAction,
    RndAward,
    RndCategory,
    RndState,
)
from mypy_extensions import mypyc_attr

from engine_core.cards import CARD_SET_OPTION
from engine_core.game import FreeTextForm, Game, GameInfo
from engine_core.games.rnd import bot, rules, text
from engine_core.games.rnd.design import CATEGORIES
from engine_core.games.rnd.rules import (
    ART_FORM,
    PACK_BOUND,
    PACKS_OPTION,
    SELF_VOTES_OPTION,
    TIES_OPTION,
    VOTING,
    WRITING_FORM,
    designers,
)
from engine_core.games.rnd.sharing import own_ballot, step_copy
from engine_core.live import Twin
from engine_core.spaces import ActionSpace, Spaces

MAX_SEATS: Final = 8


def _locate(view: RndState, seat: int, action: RndAction) -> tuple[Any, ...]:
    """copy (by category), draw another, the art and the writing (the one example each that the legal actions list:
    free text has no finite space), vote (by award, then the design voted for)."""
    choice = action.WhichOneof("choice")
    if choice == "copy":
        return ("copy", int(action.copy))
    if choice == "vote":
        return ("vote", int(action.vote.award), action.vote.design)
    return (choice,)


@mypyc_attr(native_class=False)  # compiled by `make engines`; its class attributes stay Python's
class Rnd(Game[RndState, RndAction]):
    info = GameInfo(
        name="rnd",
        title="Look at Us, We're R&D",
        min_seats=3,
        max_seats=MAX_SEATS,
        description="Design, illustrate and name Magic cards from the parts of a booster; vote for the best.",
        options=(CARD_SET_OPTION, PACKS_OPTION, SELF_VOTES_OPTION, TIES_OPTION),
        # per design: at most 4 turns of (every card of the pack drawn + one copy); art, words; 3 votes a seat
        max_actions=MAX_SEATS * (4 * (PACK_BOUND * 2 + 1) + 2 + 3),
        free_text=True,
        extra={"golden": "rnd_5_forbidden,5,self_votes=forbidden"},
    )
    state_type = RndState
    action_type = RndAction

    step_copy = staticmethod(step_copy)  # shares the parts a step does not change until a rule takes one (sharing.py)

    def copy(self, state: RndState) -> RndState:
        """A copy of a live state shares as `apply`'s does (sharing.py); a message is copied whole."""
        if isinstance(state, Twin):
            copied: RndState = step_copy(state)
            return copied
        return super().copy(state)

    def _setup(self, state: RndState) -> None:
        rules.setup(state)

    def _legal_actions(self, state: RndState, seat: int) -> list[RndAction]:
        return rules.legal_actions(state, seat)

    def _apply(self, state: RndState, seat: int, action: RndAction) -> list[Event]:
        return rules.apply(state, seat, action)

    def spaces(self, config: GameConfig) -> Spaces:
        """copy (5: by `RndCategory`), draw_another, art, writing, vote (4 awards by `RndAward`, then a design index
        below the seat count). Art and writing are free text: their index takes the example the legal actions list."""
        actions = ActionSpace(
            ("copy", len(RndCategory.values())),
            ("draw_another",),
            ("art",),
            ("writing",),
            ("vote", len(RndAward.values()), config.seats),
        )
        return Spaces(
            actions,
            _locate,
            {"designs.copies": len(CATEGORIES)},
            note="art and writing are free text: an environment offers the example text the legal actions list",
        )

    def _redact(self, view: RndState, seat: int | None) -> None:
        hidden = set(view.pack)
        seen = [face for face in view.faces if face.id not in hidden]
        view.ClearField("faces")  # a new list: copies share the faces' list (sharing.py)
        view.faces.extend(seen)
        del view.pack[:]
        if view.phase == VOTING:
            for other in range(len(view.ballots)):
                if other != seat:
                    del own_ballot(view, other).votes[:]

    def free_text(self, action: RndAction) -> FreeTextForm | None:
        """The artist draws the art; the writer writes the name and the flavour text (each checked as `_apply` does)."""
        choice = action.WhichOneof("choice")
        return ART_FORM if choice == "art" else WRITING_FORM if choice == "writing" else None

    def describe(self, state: RndState, action: RndAction) -> str:
        return text.describe(state, action)

    def render(self, view: RndState, seat: int | None) -> str:
        return text.render(view, seat, designers(len(view.designs), view.round))

    def cards(self, state: RndState) -> list[int]:
        return [*state.pack, *state.discard, *state.drawn]

    def hidden_cards(self, state: RndState, seat: int | None) -> set[int]:
        return set(state.pack)

    # ----- bots -------------------------------------------------------------------------------------------------

    def heuristic_action(self, view: RndState, seat: int, legal: list[RndAction], rng: Rng) -> RndAction:
        return bot.heuristic_action(view, seat, legal, rng)

    def choice_ratings(self, view: RndState, seat: int, legal: list[RndAction]) -> list[float]:
        return bot.choice_ratings(view, seat, legal)

    def sample_world(self, view: RndState, seat: int, rng: Rng) -> RndState:
        return bot.sample_world(view, seat, rng)


GAME: Final = Rnd()
