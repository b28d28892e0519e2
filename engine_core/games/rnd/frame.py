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


def _art(design: RndDesign) -> list[str]:
    rows = design.art.split("\n") if design.art else ["", "", "(art: the artist's sketch)".center(ART_WIDTH)]
    rows = (rows + [""] * ART_LINES)[:ART_LINES]
    return [_line(row) for row in rows]


def _text_box(design: RndDesign) -> list[str]:
    text = design.text if design.text or design.complete else "(card text: to be copied)"
    lines = [_line(part) for part in _wrap(text)] if text else [_line()]
    flavour = design.flavour or ("" if design.name else "(flavor: the writer's)")
    if flavour:
        lines += [_line(), *(_line(part) for part in _wrap(flavour))]
    return lines


def _power_toughness(design: RndDesign) -> str:
    if design.power or design.toughness:
        return f"{design.power}/{design.toughness}"
    if design.needs_power_toughness and POWER_TOUGHNESS not in filled(design):
        return "?/?"
    return ""


def card_frame(design: RndDesign) -> list[str]:
    """The card as text lines, every line the same width."""
    name = design.name or "(name: the writer's)"
    cost = design.mana_cost or ("" if design.complete else "(cost?)")
    type_line = design.type_line or ("" if design.complete else "(card type: to be copied)")
    credits = f"art: seat {design.artist}, words: seat {design.writer}"
    return [
        _rule(),
        *_pair(name, cost),
        _rule(),
        *_art(design),
        _rule(),
        *(_line(part) for part in _wrap(type_line)),
        _rule(),
        *_text_box(design),
        _rule(),
        *_pair(credits, _power_toughness(design)),
        _rule(),
    ]
