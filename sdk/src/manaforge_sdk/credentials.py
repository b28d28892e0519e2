"""A registered player's credentials (player id and secret key), kept in a file per gateway and name, so that a bot
registers once and plays under its name afterwards."""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass(frozen=True)
class Credentials:
    """What RegisterPlayer gave: sent as `x-player-id` and `x-player-key` metadata with every call."""

    player_id: str
    key: str
    name: str

    def save(self, path: Path | str) -> None:
        """Write them to `path`, readable by its owner only."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch(0o600)
        path.chmod(0o600)
        path.write_text(json.dumps(asdict(self)))

    @classmethod
    def load(cls, path: Path | str) -> Credentials | None:
        """The credentials saved at `path` (a Path or a str); None when there are none. A file that is not
        credentials is an error."""
        path = Path(path)
        try:
            saved = json.loads(path.read_text())
        except FileNotFoundError:
            return None
        except ValueError as error:
            raise ValueError(f"{path} is not saved credentials ({error}): remove it to register again") from error
        if not isinstance(saved, dict) or not {"player_id", "key", "name"} <= saved.keys():
            raise ValueError(f"{path} is not saved credentials: remove it to register again")
        return cls(str(saved["player_id"]), str(saved["key"]), str(saved["name"]))


def home() -> Path:
    """$MANAFORGE_HOME, else ~/.config/manaforge (the terminal client's folder too)."""
    return Path(os.environ.get("MANAFORGE_HOME") or Path.home() / ".config" / "manaforge")


def credentials_path(address: str, name: str) -> Path:
    """Where `register(name)` keeps a player's credentials on the gateway at `address`:
    $MANAFORGE_HOME/sdk/<address>/<name>.json (a name is registered per platform, so per address)."""
    return home() / "sdk" / re.sub(r"[^A-Za-z0-9._-]", "_", address) / f"{name}.json"
