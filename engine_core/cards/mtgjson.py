"""Reading an MTGJSON v5 set file (and an optional retro-artifact CSV) into a `CardSet`. Pure: text in, set out.

- Cards: every card of `data.cards` but the back halves of double-faced and meld cards (`side` "b" and later), which
  are not cards of their own; a front half takes its face's name and mana value. Tokens are not cards of the set.
- Booster: the `draft` booster, else `default` (older files call the draft booster so), with its weighted layouts and
  sheets. A sheet's cards that the file does not hold (BRO's retro slot and part of its foil sheet name BRR cards by
  uuid only) are replaced by the retro CSV's cards, which take the missing weight split by the official retro odds
  (uncommon 66%, rare 27%, mythic 7%); without a CSV they are dropped, and a sheet left empty drops its slot.
- `text` carries the rules text, since it comes from the imported file.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping
from typing import Any

from manaforge.v1.cards_pb2 import MagicCard

from engine_core.cards.builtin import RETRO_SHARES
from engine_core.cards.card import COLORS, parse_type_line
from engine_core.cards.cardset import BoosterLayout, CardSet, Sheet, group_weights
from engine_core.errors import InvalidConfigError

RETRO_SET_CODES = {"BRO": "BRR"}  # the set code of a main set's retro-artifact cards


def parse_mtgjson(text: str, retro_csv: str | None = None) -> CardSet:
    try:
        document = json.loads(text)
        data = document.get("data", document)
        return _parse_set(data, retro_csv)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise InvalidConfigError("card set file", f"not a readable MTGJSON set file: {exc!r}") from exc


def _parse_set(data: Mapping[str, Any], retro_csv: str | None) -> CardSet:
    code = str(data["code"])
    cards: list[MagicCard] = []
    index_of: dict[str, int] = {}
    for raw in data["cards"]:
        if raw.get("side", "a") != "a":
            continue
        index_of[raw["uuid"]] = len(cards)
        cards.append(_card(raw, code))
    retro_code = RETRO_SET_CODES.get(code, code)
    retro = [_retro_card(row, retro_code) for row in csv.DictReader(io.StringIO(retro_csv))] if retro_csv else []
    retro_start = len(cards)
    cards += retro
    retro_groups = [
        ([retro_start + i for i, card in enumerate(retro) if card.rarity == rarity], share)
        for rarity, share in RETRO_SHARES.items()
    ]
    booster = data.get("booster") or {}
    definition = booster.get("draft") or booster.get("default") or {}
    sheets = [
        sheet
        for name, raw_sheet in (definition.get("sheets") or {}).items()
        if (sheet := _sheet(name, raw_sheet, index_of, retro_groups)).cards
    ]
    names = {sheet.name for sheet in sheets}
    layouts = [
        BoosterLayout(
            int(raw["weight"]),
            tuple((name, int(count)) for name, count in raw["contents"].items() if name in names),
        )
        for raw in definition.get("boosters") or []
    ]
    return CardSet(code, str(data["name"]), tuple(cards), tuple(sheets), tuple(x for x in layouts if x.size))


def _sheet(
    name: str,
    raw: Mapping[str, Any],
    index_of: Mapping[str, int],
    retro_groups: list[tuple[list[int], int]],
) -> Sheet:
    known = {index_of[uuid]: int(weight) for uuid, weight in raw["cards"].items() if uuid in index_of}
    missing = sum(int(weight) for uuid, weight in raw["cards"].items() if uuid not in index_of)
    retro_cards, retro_weights = group_weights(retro_groups) if missing else ((), ())
    retro_total = sum(retro_weights)
    if not retro_total:  # nothing stands in for the missing cards: the known ones keep their own weights
        return Sheet(name, tuple(known), tuple(known.values()), bool(raw.get("foil")), bool(raw.get("balanceColors")))
    weights = [weight * retro_total for weight in known.values()] + [weight * missing for weight in retro_weights]
    return Sheet(name, (*known, *retro_cards), tuple(weights), bool(raw.get("foil")), bool(raw.get("balanceColors")))


def _card(raw: Mapping[str, Any], code: str) -> MagicCard:
    type_line = str(raw.get("type", ""))
    return MagicCard(
        name=str(raw.get("faceName") or raw["name"]),
        colors=[color for color in COLORS if color in raw.get("colors", [])],
        mana_cost=str(raw.get("manaCost", "")),
        mana_value=int(float(raw.get("faceManaValue", raw.get("manaValue", 0)))),
        type_line=type_line,
        types=list(raw.get("types", [])),
        subtypes=list(raw.get("subtypes", [])),
        supertypes=list(raw.get("supertypes", [])),
        power=str(raw.get("power", "")),
        toughness=str(raw.get("toughness", "")),
        keywords=list(raw.get("keywords", [])),
        rarity=str(raw.get("rarity", "")),
        set_code=str(raw.get("setCode", code)),
        number=str(raw.get("number", "")),
        text=str(raw.get("text", "")),
    )


def _retro_card(row: Mapping[str, str], set_code: str) -> MagicCard:
    type_line = row["types"].strip().title()
    types, subtypes, supertypes = parse_type_line(type_line)
    return MagicCard(
        name=row["name"],
        colors=[color for color in COLORS if color in row.get("colors", "").upper()],
        mana_cost=row.get("manaCost", ""),
        mana_value=int(float(row.get("manaValue") or 0)),
        type_line=type_line,
        types=types,
        subtypes=subtypes,
        supertypes=supertypes,
        rarity=row["rarity"].strip().lower(),
        set_code=set_code,
        number=row.get("number", ""),
    )
