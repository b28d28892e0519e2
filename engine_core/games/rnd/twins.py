"""The twins the rules make at every step (events, filled categories, votes), made at half the cost of a call.

Calling a twin class (engine_core.live) runs its generated `__init__` through CPython's `tp_init`, which first packs
the keywords into a dict; calling that `__init__` on a bare object takes them as they are. The object is the same:
these functions are exact stand-ins for `engine_core.game.event` and for `add` on a live state's lists, and a
message state's lists still get protobuf's `add`.
"""

from __future__ import annotations

from typing import Any

from manaforge.v1.common_pb2 import Event
from manaforge.v1.games.rnd_pb2 import RndAward, RndCategory

from engine_core.live import Repeated, twin

_new = object.__new__
_Event = twin(Event)
_init_event = _Event.__init__


def event(type_: str, text: str, *, actor: int | None = None, audience: int | None = None) -> Event:
    """`engine_core.game.event(type_, text, actor=actor, audience=audience)`: a live event, public when `audience`
    is None."""
    made: Event = _new(_Event)
    _init_event(made, type=type_, text=text, actor=actor, audience=audience)
    return made


def add_copy(copies: Any, category: RndCategory.ValueType, designer: int, source: str = "") -> None:
    """`copies.add(category=category, designer=designer, source=source)`."""
    if isinstance(copies, Repeated):
        item: Any = copies.item
        made = _new(item)
        item.__init__(made, category=category, designer=designer, source=source)
        copies.append(made)
    else:
        copies.add(category=category, designer=designer, source=source)


def add_vote(votes: Any, award: RndAward.ValueType, design: int) -> None:
    """`votes.add(award=award, design=design)`."""
    if isinstance(votes, Repeated):
        item: Any = votes.item
        made = _new(item)
        item.__init__(made, award=award, design=design)
        votes.append(made)
    else:
        votes.add(award=award, design=design)
