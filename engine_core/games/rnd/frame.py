"""The designed card drawn as a card: an ASCII frame with name and cost, art box, type line, text box, P/T.

Every string inside is player data shown as is (plain text, never markup). Missing parts show what is still to come.
"""

from __future__ import annotations

import textwrap
from typing import Final

from manaforge.v1.games.rnd_pb2 import RndDesign

from engine_core.games.rnd.design import ART_LINES, ART_WIDTH, POWER_TOUGHNESS, filled

INNER: Final = ART_WIDTH + 2  # the frame's inside width: the art box plus a space each side
USABLE: Final = INNER - 2


def _line(text: str = "") -> str:
    return f"| {text.ljust(USABLE)} |"


def _rule() -> str:
    return "+" + "-" * INNER + "+"


def _pair(left: str, right: str) -> list[str]:
    """`left` and `right` on one line when they fit, otherwise on two (right-aligned)."""
    if len(left) + len(right) + 1 <= USABLE:
        return [_line(left + " " * (USABLE - len(left) - len(right)) + right)]
    return [*(_line(part) for part in _wrap(left)), _line(right.rjust(USABLE))]


def _wrap(text: str) -> list[str]:
    return textwrap.wrap(text, USABLE, break_long_words=True, replace_whitespace=False) or [""]


def _art(design: RndDesign, compact: bool) -> list[str]:
    rows = design.art.split("\n") if design.art else ["", "", "(art: the artist's sketch)".center(ART_WIDTH)]
    if compact:
        while len(rows) > 1 and not rows[-1].strip():
            rows.pop()
        rows = rows[:ART_LINES]
    else:
        rows = (rows + [""] * ART_LINES)[:ART_LINES]
    return [_line(row) for row in rows]


def _text_box(design: RndDesign, compact: bool) -> list[str]:
    text = design.text if design.text or design.complete else "(card text: to be copied)"
    lines = [_line(part) for part in _wrap(text)] if text else [_line()]
    flavour = design.flavour or ("" if design.name else "(flavor: the writer's)")
    if flavour:
        lines += [*([] if compact else [_line()]), *(_line(part) for part in _wrap(flavour))]
    return lines


def _power_toughness(design: RndDesign) -> str:
    if design.power or design.toughness:
        return f"{design.power}/{design.toughness}"
    if design.needs_power_toughness and POWER_TOUGHNESS not in filled(design):
        return "?/?"
    return ""


def card_frame(design: RndDesign, title: str = "", compact: bool = False) -> list[str]:
    """The card as text lines, every line the same width (its credits, which name seats, are said outside the frame,
    where a client's names cannot shift the box). `title` goes before the name ("1. "); `compact` leaves out the
    art's empty lines and the line between text and flavour (several cards side by side)."""
    name = title + (design.name or "(name: the writer's)")
    cost = design.mana_cost or ("" if design.complete else "(cost?)")
    type_line = design.type_line or ("" if design.complete else "(card type: to be copied)")
    strength = _power_toughness(design)
    return [
        _rule(),
        *_pair(name, cost),
        _rule(),
        *_art(design, compact),
        _rule(),
        *(_line(part) for part in _wrap(type_line)),
        _rule(),
        *_text_box(design, compact),
        *([_rule(), _line(strength.rjust(USABLE))] if strength else []),
        _rule(),
    ]


def side_by_side(frames: list[list[str]], gap: str = "  ") -> list[str]:
    """Frames next to each other, the shorter ones padded with blank lines below."""
    height = max(len(frame) for frame in frames)
    width = INNER + 2
    return [gap.join((frame[i] if i < len(frame) else " " * width) for frame in frames).rstrip() for i in range(height)]
