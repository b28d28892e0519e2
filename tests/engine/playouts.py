"""A digest of random playouts: everything a game shows (state bytes, pending seats, legal actions and their
descriptions, events, every seat's view and render, `sample_world`, the heuristic's choice, the evaluation), through
messages and through live states. Two builds of the same rules give the same digest or they differ somewhere.

    python -m tests.engine.playouts [--source] [--games 4] GAME...

`--source` imports the engines from their Python sources even where a compiled extension sits beside them
(deploy/engines.py), so the compiled and the plain-Python rules can be compared in one checkout.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import random
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType
from typing import Any

from deploy import engines


class SourceFinder(importlib.abc.MetaPathFinder):
    """Finds `engine_core` modules as their `.py` sources, never as compiled extensions."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname.split(".")[0] != "engine_core":
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not isinstance(spec.loader, importlib.machinery.ExtensionFileLoader):
            return spec
        source = engines.source_of(Path(spec.origin or ""))
        return importlib.util.spec_from_file_location(
            fullname, source, submodule_search_locations=spec.submodule_search_locations
        )


def digest(name: str, games: int) -> str:
    from manaforge.v1.common_pb2 import GameConfig

    from engine_core.live import message
    from engine_core.registry import find_game
    from engine_core.rng import new_rng

    game: Any = find_game(name)
    seen = hashlib.sha256()

    def put(data: object) -> None:
        seen.update(repr(data).encode() + b"|")

    def raw(item: Any) -> bytes:
        return message(item).SerializeToString(deterministic=True)  # type: ignore[no-any-return]

    for live in (False, True):
        rand = random.Random(7)
        for _ in range(games):
            seats = rand.randint(game.info.min_seats, min(game.info.max_seats, 4))
            options = {option.name: rand.choice(option.choices) for option in game.info.options if option.choices}
            config = GameConfig(game=name, seats=seats, options=options)
            state = game.new_game(config, rand.getrandbits(63), live=live)
            step = 0
            while not game.is_terminal(state) and step < 400:
                put(raw(state))
                pending = game.pending_seats(state)
                seat = rand.choice(pending)
                legal = game.legal_actions(state, seat)
                put([raw(action) for action in legal])
                put([game.describe(state, action) for action in legal])
                if step % 5 == 0:
                    for viewer in [*range(seats), None]:
                        view = game.view(state, viewer)
                        put((raw(view), game.render(view, viewer)))
                    view = game.view(state, seat)
                    put(raw(game.sample_world(view, seat, new_rng(step))))
                    put(raw(game.heuristic_action(view, seat, legal, new_rng(step))))
                    with contextlib.suppress(NotImplementedError):  # R&D has no static evaluation
                        put(game.evaluate(state))
                state, events = game.apply(state, seat, rand.choice(legal))
                put([raw(event) for event in events])
                step += 1
            put(raw(game.outcome(state)))
    return seen.hexdigest()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", action="store_true", help="import the engines from their Python sources")
    parser.add_argument("--games", type=int, default=4, help="playouts per game and per kind of state")
    parser.add_argument("names", nargs="+")
    args = parser.parse_args(argv)
    if args.source:
        sys.meta_path.insert(0, SourceFinder())
    for name in args.names:
        print(name, digest(name, args.games))
    compiled = sorted(
        name
        for name, module in sys.modules.items()
        if name.startswith("engine_core")
        and isinstance(getattr(module, "__loader__", None), importlib.machinery.ExtensionFileLoader)
    )
    print("compiled:", " ".join(compiled) or "none")


if __name__ == "__main__":
    main()
