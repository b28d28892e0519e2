"""The twins the rules make at every step (filled categories, votes, results) or game (designs, ballots), made
without a class call.

Calling a twin class (engine_core.live) runs its generated keyword `__init__` through CPython's `tp_init`, which
packs the keywords into a dict first: about 4,000 instructions for an event. Filling the slots of a bare object takes
about 2,400 (`engine_core.game.event` does the same for events). The objects are the same as the constructors make
(checked at import, field by field): these functions are exact stand-ins for `add` on a live state's lists. A
message state's lists still get protobuf's `add`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from manaforge.v1.games.rnd_pb2 import (
    RndAward,
    RndBallot,
    RndCategory,
    RndCopy,
    RndDesign,
    RndResult,
    RndState,
    RndVote,
)

from engine_core.live import Repeated, twin

_new: Final = object.__new__
_append: Final = list.append  # the item is a twin of the list's class already: Repeated.append would check it again
_Copy: Final = twin(RndCopy)
_Vote: Final = twin(RndVote)
_Result: Final = twin(RndResult)
_Design: Final = twin(RndDesign)
_Ballot: Final = twin(RndBallot)
# the slots filled below, in the twins' order (a changed message fails at import, in `_check`)
_FIELDS: Final = {
    _Copy: ("category", "designer", "source"),
    _Vote: ("award", "design"),
    _Result: ("award", "designs", "votes"),
    _Design: (
        "artist", "writer", "mana_cost", "type_line", "text", "power", "toughness", "needs_power_toughness", "copies",
        "art", "name", "flavour", "complete",
    ),
    _Ballot: ("votes", "votes_cast"),
}  # fmt: skip


def add_copy(copies: Any, category: RndCategory.ValueType, designer: int, source: str = "") -> None:
    """`copies.add(category=category, designer=designer, source=source)`."""
    if not isinstance(copies, Repeated):
        copies.add(category=category, designer=designer, source=source)
        return
    made = _new(_Copy)
    made._set = False
    made.category = category
    made.designer = designer
    made.source = source
    _append(copies, made)


def add_vote(votes: Any, award: RndAward.ValueType, design: int) -> None:
    """`votes.add(award=award, design=design)`."""
    if not isinstance(votes, Repeated):
        votes.add(award=award, design=design)
        return
    made = _new(_Vote)
    made._set = False
    made.award = award
    made.design = design
    _append(votes, made)


def add_result(results: Any, award: RndAward.ValueType, designs: Iterable[int], votes: int) -> None:
    """`results.add(award=award, designs=designs, votes=votes)`."""
    if not isinstance(results, Repeated):
        results.add(award=award, designs=designs, votes=votes)
        return
    made = _new(_Result)
    made._set = False
    made.award = award
    made.designs = list(designs)
    made.votes = votes
    _append(results, made)


def add_design(designs: Any, artist: int, writer: int) -> None:
    """`designs.add(artist=artist, writer=writer)`."""
    if not isinstance(designs, Repeated):
        designs.add(artist=artist, writer=writer)
        return
    made = _new(_Design)
    made._set = False
    made.artist = artist
    made.writer = writer
    made.mana_cost = made.type_line = made.text = made.power = made.toughness = ""
    made.needs_power_toughness = False
    made.copies = _Design._repeated["copies"]()
    made.art = made.name = made.flavour = ""
    made.complete = False
    _append(designs, made)


def add_ballot(ballots: Any) -> None:
    """`ballots.add()`."""
    if not isinstance(ballots, Repeated):
        ballots.add()
        return
    made = _new(_Ballot)
    made._set = False
    made.votes = _Ballot._repeated["votes"]()
    made.votes_cast = 0
    _append(ballots, made)


def _check() -> None:
    """Each function above makes what the twin's constructor makes."""
    for twin_type, fields in _FIELDS.items():
        if twin_type.__slots__ != fields:
            raise TypeError(f"{twin_type.__name__}'s fields changed: {twin_type.__slots__}, not {fields}")
    lists: Any = twin(RndState)()
    cost, award = RndCategory.RND_CATEGORY_COST, RndAward.RND_AWARD_MOST_FLAVORFUL
    add_copy(lists.designs.add().copies, cost, 2, "card")
    add_vote(lists.ballots.add().votes, award, 4)
    add_result(lists.results, award, (6, 7), 8)
    add_design(lists.designs, 3, 5)
    add_ballot(lists.ballots)
    pairs = [
        (lists.designs[1], _Design(artist=3, writer=5)),
        (lists.ballots[1], _Ballot()),
        (lists.designs[0].copies[0], _Copy(category=cost, designer=2, source="card")),
        (lists.ballots[0].votes[0], _Vote(award=award, design=4)),
        (lists.results[0], _Result(award=award, designs=(6, 7), votes=8)),
    ]
    for made, constructed in pairs:
        if made != constructed or made._set != constructed._set or type(made) is not type(constructed):
            raise TypeError(f"rnd's twins differ from their constructors: {made!r}, {constructed!r}")


_check()
