"""cardbench: the standard comparison workload, small enough to measure the platform rather than the rules.

A seeded 52-card deck (card id = 13 * suit + rank - 1), 2 players with hidden 5-card hands. A move plays a card
from the mover's hand to the public pile and draws a replacement; when the deck is empty the pile but its top card
is shuffled into a new deck. Turns alternate; a match is 100 moves. Each seat scores the ranks it played; the
higher total wins, equal totals draw.
"""

from __future__ import annotations

from typing import Any

from manaforge.v1.common_pb2 import CardFacts, Event, GameConfig, Rng
from manaforge.v1.games.cardbench_pb2 import CardbenchAction, CardbenchState

from engine_core import rng
from engine_core.budget import Budget
from engine_core.errors import IllegalActionError
from engine_core.game import Game, GameInfo, event, finish, set_pending
from engine_core.rng import choice, new_rng, next_u64, shuffle
from engine_core.spaces import ActionSpace, Spaces

MOVES_PER_MATCH = 100
HAND_SIZE = 5
SUITS = "CDHS"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
_PLAY = [CardbenchAction(card=card) for card in range(52)]  # legal actions are shared, never mutated


def _locate(view: CardbenchState, seat: int, action: CardbenchAction) -> tuple[Any, ...]:
    return ("play", action.card)


def rank(card: int) -> int:
    return card % 13 + 1


def card_name(card: int) -> str:
    return f"{'A23456789TJQK'[card % 13]}{SUITS[card // 13]}"


class Cardbench(Game[CardbenchState, CardbenchAction]):
    info = GameInfo(
        name="cardbench",
        title="cardbench",
        min_seats=2,
        max_seats=2,
        description="Benchmark workload: play a card, draw a card, 100 moves.",
        max_actions=MOVES_PER_MATCH,
    )
    # Flat search over the heuristic (the highest card, about optimal): it plays the heuristic's card unless the
    # playouts clearly find better, where the tree search only added noise (0.41 against the heuristic at n=40).
    bot_budget = Budget(iterations=1000, actions=400, search="flat", rollout="heuristic", evaluate_after=4)
    state_type = CardbenchState
    action_type = CardbenchAction

    def _setup(self, state: CardbenchState) -> None:
        state.deck.extend(range(52))
        rng.shuffle(state.header.rng, state.deck)
        for _ in range(2):
            hand = state.hands.add()
            hand.cards.extend(state.deck[-HAND_SIZE:])
            del state.deck[-HAND_SIZE:]
            hand.size = HAND_SIZE
        state.deck_size = len(state.deck)
        set_pending(state, [0], prompt="play a card")

    def spaces(self, config: GameConfig) -> Spaces:
        """Action i plays card i."""
        return Spaces(ActionSpace(("play", 52)), _locate)

    def _legal_actions(self, state: CardbenchState, seat: int) -> list[CardbenchAction]:
        return [_PLAY[card] for card in state.hands[seat].cards[:]]  # a slice iterates faster than the field

    def _apply(self, state: CardbenchState, seat: int, action: CardbenchAction) -> list[Event]:
        hand = state.hands[seat]
        if action.card not in hand.cards:
            raise IllegalActionError("play from hand", f"card {action.card} is not in seat {seat}'s hand")
        hand.cards.remove(action.card)
        hand.score += rank(action.card)
        state.pile.append(action.card)
        events = [event("CardPlayed", f"seat {seat} played {card_name(action.card)}", actor=seat, cards=[action.card])]
        if not state.deck and len(state.pile) > 1:
            state.deck.extend(state.pile[:-1])
            del state.pile[:-1]
            rng.shuffle(state.header.rng, state.deck)
            events.append(event("PileReshuffled", "the pile but its top card was shuffled into a new deck"))
        if state.deck:
            drawn = state.deck.pop()
            hand.cards.append(drawn)
            events.append(event("CardDrawn", f"you drew {card_name(drawn)}", audience=seat, cards=[drawn]))
        hand.size = len(hand.cards)
        state.deck_size = len(state.deck)
        state.moves += 1
        if state.moves >= MOVES_PER_MATCH:
            scores = [h.score for h in state.hands]
            best = max(scores)
            winners = [s for s, score in enumerate(scores) if score == best]
            finish(state, winners, [float(s) for s in scores], f"{MOVES_PER_MATCH} moves played")
            events.append(event("MatchEnded", f"match over: scores {scores[0]}-{scores[1]}"))
        else:
            set_pending(state, [1 - seat], prompt="play a card")
        return events

    def _redact(self, view: CardbenchState, seat: int | None) -> None:
        del view.deck[:]
        for other, hand in enumerate(view.hands):
            if other != seat:
                del hand.cards[:]

    def _catalogue(self, config: GameConfig) -> list[CardFacts]:
        return [
            CardFacts(
                id=card,
                name=card_name(card),
                kind="Card",
                effect=f"Scores {rank(card)} when played (its rank: A 1, T 10, J 11, Q 12, K 13).",
                timing="on your turn",
                tags=[SUIT_NAMES[card // 13]],
            )
            for card in range(52)
        ]

    def describe(self, state: CardbenchState, action: CardbenchAction) -> str:
        return f"play {card_name(action.card)}"

    def render(self, view: CardbenchState, seat: int | None) -> str:
        lines = [
            f"move {view.moves}/{MOVES_PER_MATCH}, deck {view.deck_size}, pile top "
            f"{card_name(view.pile[-1]) if view.pile else '-'}"
        ]
        for s, hand in enumerate(view.hands):
            cards = " ".join(card_name(c) for c in hand.cards) if hand.cards else f"{hand.size} hidden cards"
            lines.append(f"seat {s}: score {hand.score}; hand {cards}")
        return "\n".join(lines)

    def sample_world(self, view: CardbenchState, seat: int, rng: Rng) -> CardbenchState:
        """The other hand and the deck dealt again from the cards `seat` has not seen (not in its hand or the pile)."""
        world = self.copy(view)
        seen = {*view.hands[seat].cards, *view.pile}
        unseen = [card for card in range(52) if card not in seen]
        shuffle(rng, unseen)
        for other, hand in enumerate(world.hands):
            if other != seat:
                hand.cards.extend(unseen[: hand.size])
                del unseen[: hand.size]
        world.deck.extend(unseen)
        world.header.rng.CopyFrom(new_rng(next_u64(rng)))
        return world

    def heuristic_action(
        self, view: CardbenchState, seat: int, legal: list[CardbenchAction], rng: Rng
    ) -> CardbenchAction:
        """Play the highest rank: every card played scores, and the cards left in hand at the end do not."""
        best = max(rank(action.card) for action in legal)
        return choice(rng, [action for action in legal if rank(action.card) == best])

    def evaluate(self, state: CardbenchState) -> list[float]:
        """The score so far: a lead of a high card (about 10 points) is worth about e to 1."""
        return self.win_chances([hand.score for hand in state.hands], 10.0)

    def cards(self, state: CardbenchState) -> list[int]:
        return [*state.deck, *state.pile, *(c for hand in state.hands for c in hand.cards)]

    def hidden_cards(self, state: CardbenchState, seat: int | None) -> set[int]:
        hidden = set(state.deck)
        for other, hand in enumerate(state.hands):
            if other != seat:
                hidden.update(hand.cards)
        return hidden


GAME = Cardbench()
