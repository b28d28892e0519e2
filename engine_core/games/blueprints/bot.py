"""Urza's Blueprints' bot hooks: a world the seat cannot tell from the true one, the heuristic and the evaluation."""

from __future__ import annotations

from manaforge.v1.cards_pb2 import MagicCard
from manaforge.v1.common_pb2 import Rng
from manaforge.v1.games.blueprints_pb2 import BlueprintsAction, BlueprintsState

from engine_core import rng as random
from engine_core.cards import CARD_SET_OPTION, find_set, sample_faces
from engine_core.game import Game, options, seat_count
from engine_core.games.blueprints.locations import (
    CARDS_PER_LOCATION,
    LOCATIONS,
    Location,
    progress,
)
from engine_core.games.blueprints.rules import BUILD, DECK, DISCARD_PILE, DRAW, built, card_of, hand_cards


def _value(cards: list[MagicCard], todo: list[Location]) -> tuple[int, int]:
    """How close a hand is to a new location: the best progress, then the sum over the locations still to build."""
    scores = [progress(cards, location) for location in todo] or [0]
    return max(scores), sum(scores)


def _best_after_discard(cards: list[MagicCard], todo: list[Location]) -> tuple[int, int]:
    return max(_value(cards[:i] + cards[i + 1 :], todo) for i in range(len(cards)))


def sample_world(world: BlueprintsState, view: BlueprintsState, seat: int, rng: Rng) -> BlueprintsState:
    """The cards hidden from the seat (the deck and the other hands) dealt again: their ids keep their count,
    their faces come from fresh boosters of the same set (the seat cannot tell which cards they are); a hand keeps
    the cards it was seen to take from the discard pile; a fresh header rng. `world` is a copy of `view`."""
    total = view.deck_size + len(view.discard_pile) + sum(player.hand_size for player in view.players)
    known = {card.id: card for card in view.catalogue}
    unseen = [card_id for card_id in range(total) if card_id not in known]
    faces = _unseen_faces(view, len(unseen), rng)
    for card_id, face in zip(unseen, faces, strict=True):
        face.id = card_id
        known[card_id] = face
    del world.catalogue[:]
    world.catalogue.extend(known[card_id] for card_id in sorted(known))
    placed = {*view.players[seat].hand, *view.discard_pile, *(c for p in view.players for c in p.known)}
    hidden = [card_id for card_id in range(total) if card_id not in placed]  # the deck and the unknown hand cards
    random.shuffle(rng, hidden)
    for other, player in enumerate(world.players):
        if other != seat:
            dealt = player.hand_size - len(player.known)
            player.hand[:] = [*player.known, *hidden[:dealt]]
            del hidden[:dealt]
    world.deck[:] = hidden
    world.header.rng.CopyFrom(random.new_rng(random.next_u64(rng)))
    return world


def _unseen_faces(view: BlueprintsState, count: int, rng: Rng) -> list[MagicCard]:
    return sample_faces(find_set(options(view)[CARD_SET_OPTION.name]), rng, count, seat_count(view))


def heuristic_action(view: BlueprintsState, seat: int, legal: list[BlueprintsAction], rng: Rng) -> BlueprintsAction:
    """Build whenever possible (the location furthest from the other hands first); take the discard pile's top
    card when it improves the best five-card hand; discard the card whose loss hurts the hand least."""
    done = built(view.players[seat])
    todo = [location for location in LOCATIONS if location not in done]
    hand = hand_cards(view, seat)
    if view.phase == BUILD:
        builds_ = [action for action in legal if action.HasField("build")]
        return max(builds_, key=lambda action: len(action.build.locations)) if builds_ else legal[-1]
    if view.phase == DRAW:
        take = [action for action in legal if action.draw == DISCARD_PILE]
        if take:
            top = card_of(view, view.discard_pile[-1])
            if _best_after_discard([*hand, top], todo) > _value(hand, todo):
                return take[0]
        return next(action for action in legal if action.draw == DECK)
    scored = [(_value([c for c in hand if c.id != action.discard], todo), action) for action in legal]
    best = max(score for score, _ in scored)
    return random.choice(rng, [action for score, action in scored if score == best])


def evaluate(state: BlueprintsState) -> list[float]:
    """Locations built, then the hand's progress towards the next one (five places make a location)."""
    strengths = []
    for seat, player in enumerate(state.players):
        done = built(player)
        todo = [location for location in LOCATIONS if location not in done]
        best, _ = _value(hand_cards(state, seat), todo)
        strengths.append(len(done) + best / CARDS_PER_LOCATION)
    return Game.win_chances(strengths, 0.5)
