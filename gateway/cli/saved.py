"""What the terminal client keeps between runs: a registered player's credentials (player.json) and the keys of
the last seats taken (seats.json), under $MANAFORGE_HOME (~/.config/manaforge by default)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

SAVED_SEATS = 20  # the seats kept in seats.json for `rejoin`, newest


def credentials_path() -> Path:
    home = os.environ.get("MANAFORGE_HOME") or str(Path.home() / ".config" / "manaforge")
    return Path(home) / "player.json"


def saved_player() -> tuple[str, str, str] | None:
    """(player id, key, name) saved by `manaforge register`, if any."""
    path = credentials_path()
    if not path.exists():
        return None
    try:
        saved = json.loads(path.read_text())
        return saved["player_id"], saved["key"], saved["name"]
    except (ValueError, KeyError, TypeError):
        sys.exit(f"manaforge: {path} is not a saved registration; remove it, or use --guest")


def seats_path() -> Path:
    return credentials_path().with_name("seats.json")


def saved_seats() -> dict[str, str]:
    """The seats taken from this machine, newest last: table id -> seat token (a guest's only way back)."""
    try:
        saved = json.loads(seats_path().read_text())
    except (OSError, ValueError):
        return {}
    return {str(t): str(token) for t, token in saved.items()} if isinstance(saved, dict) else {}


def save_seat(table_id: str, token: str) -> None:
    seats = {t: k for t, k in saved_seats().items() if t != table_id}
    seats[table_id] = token
    path = seats_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch(0o600)
    path.write_text(json.dumps(dict(list(seats.items())[-SAVED_SEATS:])))
