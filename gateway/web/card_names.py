"""Write the card names of the games whose views name cards by id only (no MagicCard facts in the view).

    python gateway/web/card_names.py gateway/web/src/gen/card_names.json   (run by `make web`)

The names come from the engines themselves, so the page never keeps a second copy of a game's card list. Keys:
game, then the option that changes the names ("" when none does), then the names by card id.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from engine_core.games.cardbench import card_name as cardbench_name
from engine_core.games.magicka.cards import CATALOGUE
from engine_core.games.magicka.cards import card_name as magicka_name
from engine_core.games.mana_burn.cards import DECK_SIZE as MANA_BURN_CARDS
from engine_core.games.mana_burn.cards import name as mana_burn_name
from engine_core.games.manasurge.cards import DECK_SIZE as MANASURGE_CARDS
from engine_core.games.manasurge.cards import NUMBERS
from engine_core.games.manasurge.cards import card_name as manasurge_name


def card_names() -> dict[str, dict[str, list[str]]]:
    return {
        "cardbench": {"": [cardbench_name(card) for card in range(52)]},
        "mana_burn": {"": [mana_burn_name(card) for card in range(MANA_BURN_CARDS)]},
        "manasurge": {
            f"numbers={numbers}": [manasurge_name(card, numbers) for card in range(MANASURGE_CARDS)]
            for numbers in NUMBERS
        },
        "magicka": {"": [magicka_name(card) for card in sorted(CATALOGUE.kind_of)]},
    }


if __name__ == "__main__":
    Path(sys.argv[1]).write_text(json.dumps(card_names(), indent=1) + "\n")
