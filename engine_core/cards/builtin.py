"""The built-in set "builtin": the project's own The Brothers' War pool (rows in `bro.py`) and its draft booster.

The odds (each documented in engine_core/cards/README.md with its source):
- layout: 10 commons (weight 5), 9 commons + 1 traditional foil (weight 4, so 1/3 of packs), 9 commons + 1 mech
  basic land (weight 3, so 1/4 of packs); 3 uncommons, 1 rare or mythic and 1 retro artifact in every pack. These are
  the weights of MTGJSON's BRO draft booster, matching the official "about a third" and "a quarter".
- rare slot: mythic 1 in 7 (rare 6 : mythic 1), the ratio XMage uses for BRO and the common Wizards figure; MTGJSON's
  sheet gives 15.4% (about 1 in 6.5) but includes borderless showcase cards this pool does not have.
- retro slot: uncommon 66%, rare 27%, mythic 7% (the official odds; MTGJSON's 49/41/10 disagrees with them).
- foil slot: common 60.0%, uncommon 17.2%, retro artifact 15.3%, rare 6.3%, mythic 1.2% (MTGJSON's draft foil sheet;
  the mech basics count as commons there and here).
- inside a rarity, every card of the pool is equally likely; the commons are colour-balanced (one of each colour
  first), as MTGJSON's `balanceColors` says for the BRO common sheet.
"""

from __future__ import annotations

from functools import cache

from manaforge.v1.cards_pb2 import MagicCard

from engine_core.cards.bro import BRO_ROWS, BRR_ROWS, Row
from engine_core.cards.card import is_basic_land, mana_value_of, parse_type_line
from engine_core.cards.cardset import BoosterLayout, CardSet, Sheet, group_weights

BUILTIN_CODE = "builtin"
RARITY = {"C": "common", "U": "uncommon", "R": "rare", "M": "mythic"}

COMMON, UNCOMMON, RARE_MYTHIC, FOIL, MECH_BASIC, RETRO = (
    "common",
    "uncommon",
    "rareMythic",
    "foil",
    "mechBasic",
    "retroArtifact",
)
LAYOUT_WEIGHTS = {"plain": 5, "foil": 4, "mech": 3}  # of 12: foil 1/3, mech basic 1/4
RARE_SLOT_SHARES = {"rare": 6, "mythic": 1}  # mythic 1 in 7
RETRO_SHARES = {"uncommon": 66, "rare": 27, "mythic": 7}
FOIL_SHARES = {"common": 600, "uncommon": 172, "retro": 153, "rare": 63, "mythic": 12}  # per mille


def card_from_row(row: Row, set_code: str) -> MagicCard:
    number, name, mana_cost, colors, type_line, power_toughness, keywords, rarity = row
    types, subtypes, supertypes = parse_type_line(type_line)
    power, _, toughness = power_toughness.partition("/")
    return MagicCard(
        name=name,
        colors=list(colors),
        mana_cost=mana_cost,
        mana_value=mana_value_of(mana_cost),
        type_line=type_line,
        types=types,
        subtypes=subtypes,
        supertypes=supertypes,
        power=power,
        toughness=toughness,
        keywords=[keyword for keyword in keywords.split(", ") if keyword],
        rarity=RARITY[rarity],
        set_code=set_code,
        number=number,
    )


@cache
def builtin_set() -> CardSet:
    main = [card_from_row(row, "BRO") for row in BRO_ROWS]
    retro = [card_from_row(row, "BRR") for row in BRR_ROWS]
    cards = (*main, *retro)
    retro_indices = range(len(main), len(cards))

    def main_of(rarity: str) -> list[int]:
        return [i for i, card in enumerate(main) if card.rarity == rarity and not is_basic_land(card)]

    def retro_of(rarity: str) -> list[int]:
        return [i for i in retro_indices if cards[i].rarity == rarity]

    mech = [i for i, card in enumerate(main) if is_basic_land(card)]
    sheets = (
        Sheet(COMMON, *group_weights([(main_of("common"), 1)]), balance_colors=True),
        Sheet(UNCOMMON, *group_weights([(main_of("uncommon"), 1)])),
        Sheet(RARE_MYTHIC, *group_weights([(main_of(r), share) for r, share in RARE_SLOT_SHARES.items()])),
        Sheet(RETRO, *group_weights([(retro_of(r), share) for r, share in RETRO_SHARES.items()])),
        Sheet(MECH_BASIC, *group_weights([(mech, 1)])),
        Sheet(
            FOIL,
            *group_weights(
                [
                    (main_of("common") + mech, FOIL_SHARES["common"]),
                    (main_of("uncommon"), FOIL_SHARES["uncommon"]),
                    (list(retro_indices), FOIL_SHARES["retro"]),
                    (main_of("rare"), FOIL_SHARES["rare"]),
                    (main_of("mythic"), FOIL_SHARES["mythic"]),
                ]
            ),
            foil=True,
        ),
    )
    tail = ((UNCOMMON, 3), (RARE_MYTHIC, 1), (RETRO, 1))
    layouts = (
        BoosterLayout(LAYOUT_WEIGHTS["plain"], ((COMMON, 10), *tail)),
        BoosterLayout(LAYOUT_WEIGHTS["foil"], ((COMMON, 9), (FOIL, 1), *tail)),
        BoosterLayout(LAYOUT_WEIGHTS["mech"], ((COMMON, 9), (MECH_BASIC, 1), *tail)),
    )
    return CardSet(BUILTIN_CODE, "The Brothers' War (built-in pool)", cards, sheets, layouts)
