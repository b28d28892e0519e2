"""MANA BURN (Cheapass Games, 1998): "The cardboard Magic Card Collectible Trading Board Game", 2-6 players.

Pawns race around a board of three paths between the Library and the Graveyard (a **reconstruction**: the
rulebook's board is lost, see board.py and RULES.md). Squares make players draw, discard, trade, auction, fish
and play for Ante; creatures in play bend those rules; Incinerate, Giant Growth and Counterspell can be played in
answer to any die roll or card. The first to hold one of each of the ten cards wins, even on another's turn.

The rules live in rules.py (the driver) and its sections beside it: actions.py (the vocabulary), turns.py (setup,
turns, die rolls, the end), trading.py (trading, Ante, fishing, auctions), squares.py, movement.py and spells.py
(cards and response windows); the zones in zones.py, the deck in cards.py and the board in board.py. This module is
the Game protocol around them, the view and the bots.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Final

from manaforge.v1.common_pb2 import BoardSquare, CardFacts, Event, GameConfig, Rng
from manaforge.v1.games.mana_burn_pb2 import ManaBurnAction, ManaBurnMove, ManaBurnState
from mypy_extensions import mypyc_attr

from engine_core import rng
from engine_core.budget import Budget, by_seats
from engine_core.game import Game, GameInfo, Option
from engine_core.games.mana_burn import board, bot, rules, text
from engine_core.games.mana_burn.actions import MAX_SEATS, PASS, TARGETED, Phase
from engine_core.games.mana_burn.bot import heuristic, is_hidden, ratings
from engine_core.games.mana_burn.cards import (
    CREATURE_COPIES,
    DECK_SIZE,
    FACTS,
    INSTANTS,
    KIND_OF,
    KINDS,
    Kind,
    distinct,
    kind,
    name,
)
from engine_core.games.mana_burn.sharing import step_copy
from engine_core.games.mana_burn.turns import deal, end_by_count
from engine_core.games.mana_burn.zones import all_cards, sync_sizes
from engine_core.spaces import ActionSpace, Spaces

ACTION_NAME: Final = ManaBurnAction.DESCRIPTOR.full_name
# A random playout's hard stop (never reached in practice): the game ends as at the turn limit.
ACTION_CAP: Final = 19_000
FLAT: Final = Budget(
    iterations=1000, actions=1000, search="flat", rollout="heuristic", max_rollout_actions=200, evaluate_after=10
)
"""The flat search from three seats; two seats take fewer actions (`bot_budget`)."""


# The action space (`spaces`): the cards played at a target, and the Giant Growths, numbered among themselves.
_AIMED_CARDS: Final = tuple(card for card in range(DECK_SIZE) if KIND_OF[card] in TARGETED)
_AIMED_INDEX: Final = {card: i for i, card in enumerate(_AIMED_CARDS)}
_GROWTHS: Final = tuple(card for card in range(DECK_SIZE) if KIND_OF[card] == Kind.GIANT_GROWTH)
_GROWTH_INDEX: Final = {card: i for i, card in enumerate(_GROWTHS)}
CREATURE_CARDS: Final = 5 * CREATURE_COPIES  # card ids 0..39 are the creatures
_SIMPLE: Final = {
    ManaBurnMove.MANA_BURN_MOVE_PASS: "pass",
    ManaBurnMove.MANA_BURN_MOVE_YES: "yes",
    ManaBurnMove.MANA_BURN_MOVE_REROLL: "reroll",
    ManaBurnMove.MANA_BURN_MOVE_FALSE_BID: "false_bid",
}


def _locate(view: ManaBurnState, seat: int, action: ManaBurnAction) -> tuple[Any, ...]:
    move = action.move
    simple = _SIMPLE.get(move)
    if simple is not None:
        return (simple,)
    if move == ManaBurnMove.MANA_BURN_MOVE_PLAY:
        card = action.card
        if card in _AIMED_INDEX:
            return ("play_at", _AIMED_INDEX[card], action.target)
        if card in _GROWTH_INDEX:
            return ("grow", _GROWTH_INDEX[card], action.roll)
        return ("play", card)
    if move == ManaBurnMove.MANA_BURN_MOVE_HERO:
        return ("hero", action.roll)
    if move == ManaBurnMove.MANA_BURN_MOVE_PATH:
        return ("path", action.path)
    if move == ManaBurnMove.MANA_BURN_MOVE_CARD:
        return ("card", action.card)
    if move == ManaBurnMove.MANA_BURN_MOVE_SEAT:
        return ("seat", action.seat, action.kind)
    if move == ManaBurnMove.MANA_BURN_MOVE_CREATURE:
        return ("creature", action.target, action.other)
    return ("name", action.kind)


@mypyc_attr(native_class=False)  # compiled by `make engines`; its class attributes stay Python's
class ManaBurn(Game[ManaBurnState, ManaBurnAction]):
    info = GameInfo(
        name="mana_burn",
        title="MANA BURN",
        min_seats=2,
        max_seats=6,
        description="Race around the board collecting one of each of ten Magic cards; auctions, trades and Ante.",
        options=(
            Option(
                "turn_limit",
                "30",
                ("15", "30", "60"),
                "rounds after which the game ends and the most different cards in hand wins (the rules may loop)",
            ),
            Option(
                "simultaneous_win",
                "restart",
                ("restart", "share"),
                "two players completing at once: everyone plays again from the beginning (as written), or share",
            ),
        ),
        max_actions=ACTION_CAP + 1,
    )
    # Flat search over the heuristic's own playouts, each cut after 10 actions and scored by the evaluation (random
    # playouts of MANA BURN run far longer than real games and mostly end cut off). docs/bots.md has the figures.
    # 700 simulated actions at two seats, where a decision weighs more moves (make decisions: p95 131 ms at 1,000).
    bot_budget = by_seats({2: replace(FLAT, actions=700), 3: FLAT})
    state_type = ManaBurnState
    action_type = ManaBurnAction

    def spaces(self, config: GameConfig) -> Spaces:
        """pass, yes, reroll, false_bid; play (a creature card id), play_at (a Holy Armor, Raise Dead, Counterspell
        or Incinerate, numbered among those 48 cards, then the target card id), grow (a Giant Growth, numbered among
        those 12, then the roll), hero (a roll), path, card (a card id), seat (a seat, then the card name asked for
        when fishing), creature (a creature card id, then the second one for Vesuvan Shift), name (a card name)."""
        kinds, rolls = len(KINDS), MAX_SEATS
        actions = ActionSpace(
            ("pass",),
            ("yes",),
            ("reroll",),
            ("false_bid",),
            ("play", DECK_SIZE),
            ("play_at", len(_AIMED_CARDS), DECK_SIZE),
            ("grow", len(_GROWTHS), rolls),
            ("hero", rolls),
            ("path", len(board.PATH_NAMES)),
            ("card", DECK_SIZE),
            ("seat", config.seats, kinds),
            ("creature", CREATURE_CARDS, CREATURE_CARDS),
            ("name", kinds),
        )
        return Spaces(actions, _locate, {"players.creatures": 12, "rolls": rolls, "stack": 12, "windows": 12})

    def legal_actions(self, state: ManaBurnState, seat: int) -> list[ManaBurnAction]:
        """`Game.legal_actions`, straight to the rules (asked at every step of a playout)."""
        header = state.header
        if header.outcome.finished or seat not in header.pending.seats:
            return []
        return rules.legal_actions(state, seat)

    step_copy = staticmethod(step_copy)  # `apply`'s copy shares the players until the rules change one (sharing.py)

    # ----- hooks ----------------------------------------------------------------------------------------------------

    def _setup(self, state: ManaBurnState) -> None:
        deal(state)
        rules.advance(state, [])
        sync_sizes(state)

    def _legal_actions(self, state: ManaBurnState, seat: int) -> list[ManaBurnAction]:
        return rules.legal_actions(state, seat)

    def _apply(self, state: ManaBurnState, seat: int, action: ManaBurnAction) -> list[Event]:
        if not rules.is_legal(state, seat, action):
            raise rules.refusal(state, seat, action)
        events: list[Event] = []
        rules.perform(state, seat, action, events)
        if not state.header.outcome.finished and state.header.version + 1 >= ACTION_CAP:
            end_by_count(state, events, f"the {ACTION_CAP}-action safety limit was reached")
        sync_sizes(state)
        return events

    def _redact(self, view: ManaBurnState, seat: int | None) -> None:
        del view.library[:]
        del view.mana_burn[:]
        for other, player in enumerate(view.players):
            if other != seat:
                del player.hand[:]
                del player.offer[:]

    def timeout_action(self, state: ManaBurnState, seat: int) -> ManaBurnAction | None:
        """A response window (and an auction bid, a fish back) passes for a seat that does not answer in time; a
        face-down choice lays the seat's lowest-numbered card. Other decisions wait for the seat."""
        if seat not in self.pending_seats(state):
            return None
        if state.windows or state.phase in (Phase.MANA_BURN_PHASE_AUCTION, Phase.MANA_BURN_PHASE_FISH_BACK):
            return ManaBurnAction(move=PASS)
        if state.phase == Phase.MANA_BURN_PHASE_OFFER:
            return rules.legal_actions(state, seat)[0]
        return None

    def cards(self, state: ManaBurnState) -> list[int]:
        return all_cards(state)

    def hidden_cards(self, state: ManaBurnState, seat: int | None) -> set[int]:
        hidden = {*state.library, *state.mana_burn}
        for other, player in enumerate(state.players):
            if other != seat:
                hidden.update(player.hand)
                hidden.update(player.offer)
        return hidden

    # ----- text -----------------------------------------------------------------------------------------------------

    def describe(self, state: ManaBurnState, action: ManaBurnAction) -> str:
        return text.describe_action(state, action)

    def render(self, view: ManaBurnState, seat: int | None) -> str:
        return text.render(view, seat)

    # ----- what the cards do -----------------------------------------------------------------------------------------

    def _catalogue(self, config: GameConfig) -> list[CardFacts]:
        facts = []
        for card in range(DECK_SIZE):
            fact = FACTS[kind(card)]
            tags = [*fact.tags, "instant" if kind(card) in INSTANTS else "one a turn"]
            facts.append(
                CardFacts(id=card, name=name(card), kind=fact.kind, effect=fact.effect, timing=fact.timing, tags=tags)
            )
        return facts

    def card_notes(self, state: ManaBurnState, seat: int, legal: list[ManaBurnAction] | None = None) -> dict[int, str]:
        return text.card_notes(state, seat, legal)

    def board(self, config: GameConfig) -> list[BoardSquare]:
        """The reconstructed board (board.py): the Library and the Graveyard, and each path's squares out and back."""
        return list(board.BOARD_SQUARES)

    # ----- bots -----------------------------------------------------------------------------------------------------

    def sample_world(self, view: ManaBurnState, seat: int, rand: Rng) -> ManaBurnState:
        """Deal every card `seat` cannot see again at random into the hidden places, keeping their sizes."""
        world = self.copy(view)
        unseen = sorted(set(range(DECK_SIZE)) - set(all_cards(view)))
        rng.shuffle(rand, unseen)
        for other, player in enumerate(world.players):
            if other != seat:
                player.hand.extend(bot._deal(unseen, player.hand_size))
                player.offer.extend(bot._deal(unseen, player.offer_size))
        world.mana_burn.extend(bot._deal(unseen, world.mana_burn_size))
        world.library.extend(bot._deal(unseen, world.library_size))
        world.header.rng.CopyFrom(rng.new_rng(rng.next_u64(rand)))
        return world

    def heuristic_action(
        self, view: ManaBurnState, seat: int, legal: list[ManaBurnAction], rand: Rng
    ) -> ManaBurnAction:
        return heuristic(view, seat, legal, rand)

    def is_hidden_choice(self, view: ManaBurnState, seat: int) -> bool:
        return is_hidden(view)

    def choice_ratings(self, view: ManaBurnState, seat: int, legal: list[ManaBurnAction]) -> list[float]:
        return ratings(view, seat, legal)

    def evaluate(self, state: ManaBurnState) -> list[float]:
        """How many of the ten different cards each hand holds: one card more is worth about 2 to 1."""
        return self.win_chances([distinct(list(player.hand)) for player in state.players], 1.5)


# ----- text ---------------------------------------------------------------------------------------------------------


GAME: Final = ManaBurn()
