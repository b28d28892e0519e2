"""Copies of live states that share parts, and the rule each step follows: make a part its own before changing it.

`Game.apply` copies the state at every step, and the generated twin copy (engine_core.live) makes every part anew:
about twenty objects for R&D. A step changes few of them (one design, or one ballot, the pending decision), so
`copy_live` shares the rest between the copy and its source:

- never changed once made: the faces' list (views and sampled worlds replace it with `ClearField`, never change
  it) and the config;
- changed by few rules, which make them the state's own first: the designs and the ballots (`own_design`,
  `own_ballot`: the list and the one changed), the rng and the outcome (`own_header_part`), and the results (empty
  until the reveal, which starts a new list with `ClearField`).

A message state owns all its parts: the `own_` functions do nothing there. Every rule that changes a design, a
ballot, the rng, the outcome or the results of a state goes through them, so no change reaches another state.
Copies are exact: a copy still serializes to the same bytes as its source.
"""

from __future__ import annotations

from typing import Any

from engine_core.live import Repeated, Twin

FIELDS = (
    "header", "faces", "pack", "pack_size", "discard", "drawn", "card_count", "phase", "round", "designs",
    "designer", "design_turns", "draws_this_turn", "ballots", "results",
)  # fmt: skip
HEADER_FIELDS = ("config", "version", "rng", "pending", "outcome")

_new = object.__new__


def copy_live(state: Any) -> Any:
    """A copy of a live `RndState` (its fields are `FIELDS`): shares the faces, the designs, the ballots, the results
    and the header's config, rng and outcome; copies the header, its pending decision and the lists of card ids."""
    new = _new(type(state))
    new._set = state._set
    header = state.header
    new_header = new.header = _new(type(header))
    new_header._set = header._set
    new_header.config = header.config
    new_header.version = header.version
    new_header.rng = header.rng
    new_header.pending = header.pending.copy()  # set_pending changes it at almost every step
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
        return designs[index]
    designs = state.designs = type(designs)(designs)
    design = designs[index] = designs[index].copy()
    return design


def own_ballot(state: Any, index: int) -> Any:
    """`state.ballots[index]`, made the state's own first (with the list): a live state's copies share them."""
    ballots = state.ballots
    if not isinstance(ballots, Repeated):
        return ballots[index]
    ballots = state.ballots = type(ballots)(ballots)
    ballot = ballots[index] = ballots[index].copy()
    return ballot


def own_header_part(state: Any, name: str) -> None:
    """Make the header's `name` (rng or outcome) the state's own, before a rule changes it."""
    header = state.header
    if isinstance(header, Twin):
        setattr(header, name, getattr(header, name).copy())


def check_fields(live_type: Any) -> None:
    """`copy_live` names every field: a field added to the messages must be added there (and here)."""
    header_type = live_type._messages["header"]
    if live_type.__slots__ != FIELDS or header_type.__slots__ != HEADER_FIELDS:
        raise TypeError(f"RndState's fields changed: {live_type.__slots__}, {header_type.__slots__}")
