"""Mishra's Manufactory's bot hooks: a world the seat cannot tell from the true one, the greedy heuristic and the
evaluation."""

from __future__ import annotations

from manaforge.v1.cards_pb2 import MagicCard
from manaforge.v1.common_pb2 import Rng
from manaforge.v1.games.manufactory_pb2 import ManufactoryAction, ManufactoryState

from engine_core import rng as random
from engine_core.cards import CARD_SET_OPTION, find_set, sample_faces
from engine_core.game import Game, options, seat_count
from engine_core.games.manufactory.cards import GROUP_OF_COLOR, card_of
from engine_core.games.manufactory.rules import FIRST_PLACE_TIE_OPTION, collection, group_index, points
from engine_core.games.manufactory.scoring import GROUPS, color_points, group_bonus


def sample_world(world: ManufactoryState, view: ManufactoryState, seat: int, rng: Rng) -> ManufactoryState:
    """The deck dealt again: its ids keep their places, their faces come from fresh boosters of the same set
    (the seat has seen none of the deck), in a random order; a fresh header rng. `world` is a copy of `view`."""
    known = {card.id for card in view.catalogue}
    deck = [card_id for card_id in range(len(known) + view.deck_size) if card_id not in known]
    faces = _unseen_faces(view, len(deck), rng)
    catalogue = {card.id: card for card in view.catalogue}
    for card_id, face in zip(deck, faces, strict=True):
        face.id = card_id
        catalogue[card_id] = face
    world.ClearField("catalogue")  # not `del [:]`: a live world's catalogue list is shared with the view
    world.catalogue.extend(catalogue[card_id] for card_id in sorted(catalogue))
    random.shuffle(rng, deck)
    world.deck[:] = deck
    world.header.ClearField("rng")  # shared with the view (sharing.py)
    world.header.rng.CopyFrom(random.new_rng(random.next_u64(rng)))
    return world


def _unseen_faces(view: ManufactoryState, count: int, rng: Rng) -> list[MagicCard]:
    return sample_faces(find_set(options(view)[CARD_SET_OPTION.name]), rng, count, seat_count(view))


def heuristic_action(view: ManufactoryState, seat: int, legal: list[ManufactoryAction], rng: Rng) -> ManufactoryAction:
    """Greedy: the action that leaves the best lead (own points minus the best rival's) if the game ended now,
    then the most own points; ties broken at random."""
    first_place_tie = options(view)[FIRST_PLACE_TIE_OPTION.name]
    base = [collection(view, player) for player in view.players]
    seats = range(len(base))
    # Points by colour, then totals, once; an action changes at most two of the seat's groups, so only those
    # colours and the seat's group bonus are scored again (the same totals as final_points, several times faster).
    by_group = [color_points([c[index] for c in base], first_place_tie) for index in range(len(GROUPS))]
    bonuses = [group_bonus(collection) for collection in base]
    totals_now = [bonuses[s] + sum(points[s] for points in by_group) for s in seats]
    best: list[ManufactoryAction] = []
    best_value: tuple[int, int] | None = None
    for action in legal:
        changed: dict[int, list[int]] = {}
        if action.HasField("discard"):
            index = group_index(view.players[seat], action.discard)
            changed[index] = list(base[seat][index])
            changed[index].remove(card_of(view, action.discard).mana_value)
        index = GROUPS.index(GROUP_OF_COLOR[action.color])
        changed.setdefault(index, list(base[seat][index])).append(card_of(view, action.card).mana_value)
        totals = list(totals_now)
        mine = [changed.get(index, group) for index, group in enumerate(base[seat])]
        totals[seat] += group_bonus(mine) - bonuses[seat]
        for index, group in changed.items():
            after = color_points([group if s == seat else base[s][index] for s in seats], first_place_tie)
            for s in seats:
                totals[s] += after[s] - by_group[index][s]
        rivals = max(total for s, total in enumerate(totals) if s != seat)
        value = (totals[seat] - rivals, totals[seat])
        if best_value is None or value > best_value:
            best, best_value = [action], value
        elif value == best_value:
            best.append(action)
    return random.choice(rng, best)


def evaluate(state: ManufactoryState) -> list[float]:
    """Each player's points if the game ended now: a lead of 5 points is worth about e to 1."""
    return Game.win_chances(points(state), 5.0)
