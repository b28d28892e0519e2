"""`event` for the MANA BURN rules: `engine_core.game.event`, made without its two keyword-argument calls.

A step makes one or two events, and the generic helper passes five keywords on to the twin's generated
constructor (about a third of a MANA BURN step's own time went to making events). This one fills the twin's slots
directly. It is checked against `engine_core.game.event` when the module loads, and is that helper itself if the
twins are ever made differently (so it can only be slower, never different).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from manaforge.v1.common_pb2 import Event

from engine_core import game
from engine_core.live import twin

_LiveEvent: Any = twin(Event)
_new = object.__new__


def _event(
    type_: str, text: str, *, actor: int | None = None, audience: int | None = None, cards: Iterable[int] = ()
) -> Event:
    made = _new(_LiveEvent)
    made._set = False
    made.type = type_
    made._actor = actor  # proto3 optional fields: None when absent (engine_core.live)
    made._audience = audience
    made.text = text
    made.cards = list(cards)
    made.seq = 0
    made.version = 0
    return made  # type: ignore[no-any-return]


def _same_as_generic() -> bool:
    if _LiveEvent.__slots__ != ("type", "_actor", "_audience", "text", "cards", "seq", "version"):
        return False
    samples: list[dict[str, Any]] = [{}, {"actor": 0}, {"audience": 2, "cards": [3, 4]}, {"actor": 1, "audience": 0}]
    for fields in samples:
        mine, theirs = _event("T", "text", **fields), game.event("T", "text", **fields)
        if type(mine) is not type(theirs) or mine != theirs or mine.SerializeToString() != theirs.SerializeToString():
            return False
        if any(mine.HasField(name) != theirs.HasField(name) for name in ("actor", "audience")):
            return False
    return True


event = _event if _same_as_generic() else game.event
