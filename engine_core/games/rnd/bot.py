"""Look at Us, We're R&D's bot hooks: the heuristic (its taste in taste.py), the rating of a secret vote, and a world
the seat cannot tell from the true one."""

from __future__ import annotations

import math
from operator import attrgetter
from typing import Final

from manaforge.v1.cards_pb2 import MagicCard
from manaforge.v1.common_pb2 import Rng
from manaforge.v1.games.rnd_pb2 import (
    RndAction,
    RndBallot,
    RndState,
    RndWriting,
)

from engine_core import rng as random
from engine_core.cards import CARD_SET_OPTION, find_set, open_packs
from engine_core.game import options
from engine_core.games.rnd import taste
from engine_core.games.rnd.design import AWARDS
from engine_core.games.rnd.rules import ART, DESIGN, PACKS_OPTION, VOTING, WRITING, _may_vote_for
from engine_core.live import clone


def heuristic_action(view: RndState, seat: int, legal: list[RndAction], rng: Rng) -> RndAction:
    design = view.designs[view.round]
    if view.phase == DESIGN:
        card = next(face for face in view.faces if face.id == view.drawn[0])
        copies = [a for a in legal if a.WhichOneof("choice") == "copy"]
        scores = [taste.category_score(card, action.copy) for action in copies]
        best_score = max(scores)
        best = copies[scores.index(best_score)]  # the first of the best, as max() would choose
        if best_score < 2 and len(copies) < len(legal):
            return RndAction(draw_another=True)
        return best
    if view.phase == ART:
        return RndAction(art=taste.sketch(design))
    if view.phase == WRITING:
        return RndAction(writing=RndWriting(name=taste.card_name(design, rng), flavour=taste.flavour(rng)))
    ratings = choice_ratings(view, seat, legal)
    top = max(ratings)
    return random.choice(rng, [a for a, rating in zip(legal, ratings, strict=True) if rating == top])


VOTE_SPREAD: Final = 3.0
"""No card the seat may vote for is rated more than this below the best: every one stays a sensible vote (within
`engine_core.bots.hidden.SENSIBLE`, 4, of the best)."""


def choice_ratings(view: RndState, seat: int, legal: list[RndAction]) -> list[float]:
    """A vote (a secret choice) for the first award still open: each card by the bot's taste for it
    (`taste.vote_rating`), but none more than `VOTE_SPREAD` below the best, since a vote costs its voter nothing (a
    seat does not vote for its own card, and the credits go to the designers): taste makes a card likelier, never
    rules one out, so that a predictor who runs the taste on the public cards cannot name the vote. The other
    awards' votes are not rated at all (which award a seat votes for is public)."""
    award = legal[0].vote.award
    tastes = [
        taste.vote_rating(award, view.designs[a.vote.design]) if a.vote.award == award else -math.inf for a in legal
    ]
    floor = max(tastes) - VOTE_SPREAD
    return [max(rating, floor) if rating > -math.inf else rating for rating in tastes]


def sample_world(view: RndState, seat: int, rng: Rng) -> RndState:
    """The pack's faces are unseen: a fresh booster from the same set deals them; other ballots still hidden
    get plausible votes (a random card each award, within the self-vote rule)."""
    world = clone(view)  # a full copy: the world's faces, ballots and rng change below
    opts = options(view)
    seen = {face.id for face in view.faces}
    unseen = [card_id for card_id in range(view.card_count) if card_id not in seen]
    fresh = open_packs(find_set(opts[CARD_SET_OPTION.name]), rng, int(opts[PACKS_OPTION.name]))
    faces = world.faces[:]
    for index, card_id in enumerate(unseen):
        face = MagicCard()
        face.CopyFrom(fresh[index % len(fresh)])
        face.id = card_id
        faces.append(face)
    faces.sort(key=attrgetter("id"))
    world.ClearField("faces")  # a new list: copies share the faces' list (sharing.py)
    world.faces.extend(faces)
    world.pack.extend(unseen)
    random.shuffle(rng, world.pack)
    if view.phase == VOTING:
        for other, ballot in enumerate(world.ballots):
            if other != seat and not ballot.votes:
                _sample_ballot(world, other, ballot, rng)
    world.header.rng.CopyFrom(random.new_rng(random.next_u64(rng)))
    return world


def _sample_ballot(world: RndState, seat: int, ballot: RndBallot, rng: Rng) -> None:
    eligible = [d for d, design in enumerate(world.designs) if _may_vote_for(world, seat, design)]
    for award in AWARDS[: ballot.votes_cast]:
        ballot.votes.add(award=award, design=random.choice(rng, eligible))
