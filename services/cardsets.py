"""Loading card sets from disk at the edge: MTGJSON set files in a directory, registered for every game.

Every gateway, worker and rules service calls `load_card_sets(settings.card_sets)` at start (MANAFORGE_CARD_SETS).
Every `*.json` file in the directory is an MTGJSON v5 set file; a `<CODE>.cards.csv` beside it (e.g. BRR.cards.csv
beside BRO.mtgjson.json, or any `*.cards.csv` naming the set's retro artifacts) supplies the retro-artifact slot.
"""

from __future__ import annotations

import os
from pathlib import Path

from engine_core.cards import parse_mtgjson, register_set
from engine_core.cards.mtgjson import RETRO_SET_CODES
from engine_core.errors import InvalidConfigError


def load_card_sets(directory: str | os.PathLike[str]) -> list[str]:
    """Parse and register every set file in `directory`; the codes registered, in file-name order (none for "")."""
    if not directory:
        return []
    folder = Path(directory)
    if not folder.is_dir():
        raise InvalidConfigError("card sets", f"{folder} is not a directory")
    codes: list[str] = []
    for path in sorted(folder.glob("*.json")):
        text = path.read_text(encoding="utf-8")
        card_set = parse_mtgjson(text, _retro_csv(folder, path))
        if not card_set.layouts:
            continue  # a set file without a draft booster cannot be opened: nothing to register
        register_set(card_set)
        codes.append(card_set.code)
    return codes


def _retro_csv(folder: Path, set_file: Path) -> str | None:
    """The retro CSV for a set file: `<retro code>.cards.csv` (BRR for BRO) or `<set code>.cards.csv` beside it."""
    code = set_file.name.split(".")[0].upper()
    for candidate in (RETRO_SET_CODES.get(code, code), code):
        path = folder / f"{candidate}.cards.csv"
        if path.is_file():
            return path.read_text(encoding="utf-8")
    return None
