"""The registry: one line per game. A new game is one folder here plus one line below."""

from __future__ import annotations

from typing import Any

from engine_core.game import Game
from engine_core.games import blueprints, cardbench, magicka, mana_burn, manasurge, manufactory, rnd

GAMES: list[Game[Any, Any]] = [
    cardbench.GAME,
    mana_burn.GAME,
    manufactory.GAME,
    rnd.GAME,
    blueprints.GAME,
    manasurge.GAME,
    magicka.GAME,
]
