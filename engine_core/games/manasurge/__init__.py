"""ManaSurge (Daily Magic Games), 2-5 players, from the Vietnamese rulebook (seeds/001; RULES.md beside this file).

The Caster opens each round with a spell card bearing the Caster Token and a purple stone: that card sets the
round's spell rule. In turn, players follow with a card of the same number (which reverses the direction, at most
twice a round), a card of the top card's spell with a higher number (lower in a Flying Dagger round), or any Magic
card. A card of the round's spell above the Caster card takes a stone and its ability. The first player who cannot
follow takes as many face-down penalty cards as there are stones on the table and loses the stones on their own
cards; the others score the stones on theirs. Emptying your hand is a ManaSurge: 2 stones, penalty cards to hand,
draw up to 5. First to 12 stones (10 with 5 players) at a round's end wins; most stones breaks a tie.

The rules live in `rules.py` (setup, plays, abilities, Magic effects, the end of a round) and `actions.py` (the
legal actions), the cards in `cards.py`, the words in `text.py`, the bot hooks in `bot.py`; this module is the Game
protocol over them.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Final

from manaforge.v1.common_pb2 import CardFacts, Event, GameConfig, Rng
from manaforge.v1.games.manasurge_pb2 import ManasurgeAction, ManasurgeMove, ManasurgeState
from mypy_extensions import mypyc_attr

from engine_core.budget import Budget, by_seats
from engine_core.game import Game, GameInfo, Option
from engine_core.games.manasurge import actions, bot, rules, sharing, text
from engine_core.games.manasurge.actions import MAX_ROUNDS
from engine_core.games.manasurge.cards import DECK_SIZE, Role, card_facts
from engine_core.spaces import ActionSpace, Spaces

# Every round ends within 2 actions per card on the table (a play and its follow-up) plus the concession.
ACTIONS_PER_ROUND: Final = 2 * DECK_SIZE + 2
FLAT: Final = Budget(iterations=1000, actions=1000, search="flat", rollout="heuristic", max_rollout_actions=200)
"""The flat search over the heuristic's playouts; each table size changes a few of its settings (`bot_budget`)."""


_PARTS: Final = {
    ManasurgeMove.MANASURGE_MOVE_PLAY: "play",
    ManasurgeMove.MANASURGE_MOVE_GIVE: "give",
    ManasurgeMove.MANASURGE_MOVE_DISCARD: "discard",
}


def _locate(view: ManasurgeState, seat: int, action: ManasurgeAction) -> tuple[Any, ...]:
    move = action.move
    if move == ManasurgeMove.MANASURGE_MOVE_OPEN:
        return ("open", action.card, int(action.clockwise))
    if move == ManasurgeMove.MANASURGE_MOVE_TARGET:
        return ("target", action.target)
    if move == ManasurgeMove.MANASURGE_MOVE_DECLINE:
        return ("decline",)
    if move == ManasurgeMove.MANASURGE_MOVE_CONCEDE:
        return ("concede",)
    return (_PARTS[move], action.card)


@mypyc_attr(native_class=False)  # compiled by `make engines`; its class attributes stay Python's
class Manasurge(Game[ManasurgeState, ManasurgeAction]):
    info = GameInfo(
        name="manasurge",
        title="ManaSurge",
        min_seats=2,
        max_seats=actions.MAX_SEATS,
        description="Shed rising runs of one spell; the player who cannot follow takes the stones as penalty cards.",
        options=(
            Option(
                "numbers",
                "1-8",
                ("1-8", "1-12"),
                "numbers on the 12 cards of a spell: 1-8 with 3-6 doubled (the retail game), or 1-12",
            ),
            Option("roles", "off", ("off", "on"), "deal each player one of the 6 wizard role cards"),
            Option(
                "redraw",
                "replace",
                ("replace", "add"),
                "a Caster without a spell card discards the hand and draws 5 (replace) or draws 5 more (add)",
            ),
        ),
        max_actions=MAX_ROUNDS * ACTIONS_PER_ROUND,
        extra={"golden": "manasurge_variants,4,numbers=1-12,roles=on"},
    )
    # Flat search over the heuristic's own playouts (rollout policy improvement). At two seats playouts stop where
    # the round ends, scored by the evaluation (stones), so that many more worlds fit (1,600 actions), and a move
    # overrides the heuristic's for a gain of 0.04 of a win a world (a stone is worth about 0.12 there). From three
    # seats on, playouts cut after 10 actions and scored by the evaluation (1,200 actions fit the time at three
    # seats), with a margin of 0.05 at three seats, 0.075 from four. docs/bots.md has the figures.
    bot_budget = by_seats(
        {
            2: replace(FLAT, actions=1600, playout_end=bot.round_over, margin=0.04),
            3: replace(FLAT, actions=1200, evaluate_after=10, margin=0.05),
            4: replace(FLAT, actions=1000, evaluate_after=10, margin=0.075),
        }
    )
    state_type = ManasurgeState
    action_type = ManasurgeAction

    step_copy = staticmethod(
        sharing.step_copy
    )  # `apply`'s copy shares the players, table and header parts (sharing.py)

    def spaces(self, config: GameConfig) -> Spaces:
        """open (a card id, then counter-clockwise 0 or clockwise 1), play, give and discard (a card id), target (a
        seat), decline, concede."""
        seats = config.seats
        actions = ActionSpace(
            ("open", DECK_SIZE, 2),
            ("play", DECK_SIZE),
            ("give", DECK_SIZE),
            ("discard", DECK_SIZE),
            ("target", seats),
            ("decline",),
            ("concede",),
        )
        return Spaces(actions, _locate)

    def _setup(self, state: ManasurgeState) -> None:
        rules.setup(state)
        rules.sync_sizes(state)

    def _legal_actions(self, state: ManasurgeState, seat: int) -> list[ManasurgeAction]:
        return actions.legal_actions(state, seat)

    def _apply(self, state: ManasurgeState, seat: int, action: ManasurgeAction) -> list[Event]:
        if not actions.is_legal(state, seat, action):
            raise rules.refusal(state, seat, action)
        events = rules.apply(state, seat, action)
        rules.sync_sizes(state)
        return events

    def _redact(self, view: ManasurgeState, seat: int | None) -> None:
        del view.deck[:]
        for other, player in enumerate(view.players):
            del player.penalty[:]
            if other != seat:
                del player.hand[:]

    def _catalogue(self, config: GameConfig) -> list[CardFacts]:
        numbers = config.options["numbers"]
        return [card_facts(card, numbers) for card in range(DECK_SIZE + len(Role))]

    def card_notes(
        self, state: ManasurgeState, seat: int, legal: list[ManasurgeAction] | None = None
    ) -> dict[int, str]:
        return text.card_notes(state, seat, legal)

    def describe(self, state: ManasurgeState, action: ManasurgeAction) -> str:
        return text.describe(state, action)

    def render(self, view: ManasurgeState, seat: int | None) -> str:
        return text.render(view, seat)

    def cards(self, state: ManasurgeState) -> list[int]:
        held = [c for p in state.players for c in (*p.hand, *p.penalty)]
        return [*state.deck, *state.discard, *(p.id for p in state.table), *held]

    def hidden_cards(self, state: ManasurgeState, seat: int | None) -> set[int]:
        hidden = set(state.deck)
        for other, player in enumerate(state.players):
            hidden.update(player.penalty)
            if other != seat:
                hidden.update(player.hand)
        return hidden

    def sample_world(self, view: ManasurgeState, seat: int, rng: Rng) -> ManasurgeState:
        return bot.sample_world(self.copy(view), seat, rng)

    def heuristic_action(
        self, view: ManasurgeState, seat: int, legal: list[ManasurgeAction], rng: Rng
    ) -> ManasurgeAction:
        return bot.heuristic_action(view, seat, legal, rng)

    def is_hidden_choice(self, view: ManasurgeState, seat: int) -> bool:
        return bot.is_hidden(view)

    def choice_ratings(self, view: ManasurgeState, seat: int, legal: list[ManasurgeAction]) -> list[float]:
        return bot.ratings(view, seat, legal)

    def evaluate(self, state: ManasurgeState) -> list[float]:
        """Stones scored against the goal: a lead of a sixth of the goal is worth about e to 1."""
        return self.win_chances([player.stones for player in state.players], actions.winning_stones(state) / 6)


GAME: Final = Manasurge()
