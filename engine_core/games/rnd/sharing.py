"""Copies of live states that share parts, and the rule each step follows: make a part its own before changing it.

`Game.apply` copies the state at every step, and the generated twin copy (engine_core.live) makes every part anew:
about twenty objects for R&D. A step changes few of them (one design, or one ballot, the pending decision), so
`copy_live` shares the rest between the copy and its source:

- never changed once made: the faces' list (views and sampled worlds replace it with `ClearField`, never change
  it), the config, a design's filled categories and a ballot's votes;
- changed by few rules, which make them the state's own first: the designs and the ballots (`own_design`,
  `own_ballot`: the list and the one changed), the rng (`engine_core.live.own_part`), and the results (empty until
  the reveal, which starts a new list with `ClearField`);
- replaced, never changed: the header's pending decision and outcome (`set_pending`, `pass_turn` and `finish` make
  new ones on a live state).

A message state owns all its parts: the `own_` functions do nothing there. Every rule that changes a design, a
ballot, the rng, the outcome or the results of a state goes through them (views and sampled worlds too), so no change
reaches another state: neither through `apply` nor when bots step a copy in place (`ismcts.step`). Copies are exact:
a copy still serializes to the same bytes as its source.
"""

from __future__ import annotations

from typing import Any, Final

from manaforge.v1.common_pb2 import Pending

from engine_core.game import TURN, set_pending
from engine_core.live import Repeated, Twin, twin

FIELDS: Final = (
    "header", "faces", "pack", "pack_size", "discard", "drawn", "card_count", "phase", "round", "designs",
    "designer", "design_turns", "draws_this_turn", "ballots", "results",
)  # fmt: skip
HEADER_FIELDS: Final = ("config", "version", "rng", "pending", "outcome")
DESIGN_FIELDS: Final = (
    "artist", "writer", "mana_cost", "type_line", "text", "power", "toughness", "needs_power_toughness", "copies",
    "art", "name", "flavour", "complete",
)  # fmt: skip
BALLOT_FIELDS: Final = ("votes", "votes_cast")
PENDING_FIELDS: Final = ("seats", "kind", "prompt")
_Pending: Final[Any] = twin(Pending)

_new: Final = object.__new__


def copy_live(state: Any) -> Any:
    """A copy of a live `RndState` (its fields are `FIELDS`): shares the faces, the designs, the ballots, the results
    and the header's config, rng, pending decision and outcome; copies the header and the lists of card ids."""
    new = _new(type(state))
    new._set = state._set
    header = state.header
    new_header = new.header = _new(type(header))
    new_header._set = header._set
    new_header.config = header.config
    new_header.version = header.version
    new_header.rng = header.rng
    new_header.pending = header.pending  # `pend` replaces it
    new_header.outcome = header.outcome
    new.faces = state.faces
    new.pack = state.pack[:]
    new.pack_size = state.pack_size
    new.discard = state.discard[:]
    new.drawn = state.drawn[:]
    new.card_count = state.card_count
    new.phase = state.phase
    new.round = state.round
    new.designs = state.designs
    new.designer = state.designer
    new.design_turns = state.design_turns
    new.draws_this_turn = state.draws_this_turn
    new.ballots = state.ballots
    new.results = state.results
    return new


def own_design(state: Any, index: int) -> Any:
    """`state.designs[index]`, made the state's own first (with the list): a live state's copies share them."""
    designs = state.designs
    if not isinstance(designs, Repeated):
        return designs[index]  # a message owns its parts
    designs = state.designs = type(designs)(designs)
    design = designs[index] = _copy_design(designs[index])
    return design


def own_ballot(state: Any, index: int) -> Any:
    """`state.ballots[index]`, made the state's own first (with the list): a live state's copies share them."""
    ballots = state.ballots
    if not isinstance(ballots, Repeated):
        return ballots[index]  # a message owns its parts
    ballots = state.ballots = type(ballots)(ballots)
    ballot = ballots[index] = _copy_ballot(ballots[index])
    return ballot


# A design's filled categories and a ballot's votes are never changed once added: copies share them (new lists).


def _copy_design(design: Any) -> Any:
    """A copy of a live `RndDesign` (its fields are `DESIGN_FIELDS`), sharing its filled categories."""
    new = _new(type(design))
    new._set = design._set
    new.artist = design.artist
    new.writer = design.writer
    new.mana_cost = design.mana_cost
    new.type_line = design.type_line
    new.text = design.text
    new.power = design.power
    new.toughness = design.toughness
    new.needs_power_toughness = design.needs_power_toughness
    new.copies = type(design.copies)(design.copies)
    new.art = design.art
    new.name = design.name
    new.flavour = design.flavour
    new.complete = design.complete
    return new


def _copy_ballot(ballot: Any) -> Any:
    """A copy of a live `RndBallot` (its fields are `BALLOT_FIELDS`), sharing its votes."""
    new = _new(type(ballot))
    new._set = ballot._set
    new.votes = type(ballot.votes)(ballot.votes)
    new.votes_cast = ballot.votes_cast
    return new


def pass_turn(state: Any, seat: int, prompt: str) -> None:
    """`pend(state, [seat], prompt=prompt)`, the most common decision, made in one step."""
    header: Any = state.header
    if not isinstance(header, Twin):
        set_pending(state, [seat], TURN, prompt)
        return
    live: Any = header  # (mypy narrows `header` to a bare Twin)
    pending = _new(_Pending)
    pending._set = True  # as set_pending's SetInParent
    pending.seats = [seat]
    pending.kind = TURN
    pending.prompt = prompt
    live.pending = pending


def check_fields(live_type: Any) -> None:
    """The copies above name every field: a field added to the messages must be added there (and here)."""
    for twin_type, fields in (
        (live_type, FIELDS),
        (live_type._messages["header"], HEADER_FIELDS),
        (live_type._repeated["designs"].item, DESIGN_FIELDS),
        (live_type._repeated["ballots"].item, BALLOT_FIELDS),
        (_Pending, PENDING_FIELDS),
    ):
        if twin_type.__slots__ != fields:
            raise TypeError(f"{twin_type.__name__}'s fields changed: {twin_type.__slots__}, not {fields}")
