"""A bot account run from a config file, with challenge filters in the manner of lichess-bot.

    python -m manaforge_sdk.config bot.toml       # serves until stopped (Ctrl-C)

bot.toml:

    gateway = "127.0.0.1:50051"     # default: $MANAFORGE_GATEWAY, else 127.0.0.1:50051
    name = "my_bot"                 # registered once, then its saved credentials are used; made a bot account
    bot = "my_module:choose"        # the bot function: (view, legal_actions) -> action (or a policy bot's maker)
    max_games = 4                   # games at once; challenges beyond are declined as busy

    [accept]                        # every key optional: what is left out accepts anything
    games = ["cardbench", "manasurge"]
    seats = [2, 3]
    clock = [5, 120]                # seconds per decision, at least and at most (a bank clock: its bank)
    no_clock = false                # a table without a clock
    from = "everyone"               # or "people", "bots"
    players = ["ann"]               # only these challengers (names, any case)
    blocked = ["spammer"]           # never these

Every key is checked when the file is read (an unknown one, or a value of the wrong kind, is a `ConfigError` naming
it), so a typo never silently accepts everything. Every challenge game between registered players is rated: there
is no casual challenge to filter.
"""

from __future__ import annotations

import argparse
import importlib
import math
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from manaforge.v1.gateway_pb2 import Challenge

from manaforge_sdk.client import connect, default_address
from manaforge_sdk.errors import ManaforgeError
from manaforge_sdk.runner import Bot, Result, serve

FROM = ("everyone", "people", "bots")
TOP_KEYS = frozenset({"gateway", "name", "bot", "max_games", "accept"})


class ConfigError(ValueError):
    """A runner config that cannot be used: the key and what is wrong with it."""


@dataclass(frozen=True)
class ChallengeFilter:
    """Which challenges a bot account takes: `accept(challenge)` (the `Accept` of `serve`)."""

    games: frozenset[str] = frozenset()  # empty: any game
    seats: frozenset[int] = frozenset()  # empty: any seat count
    clock: tuple[float, float] = (0.0, math.inf)  # seconds per decision (a bank clock: its bank), at least, at most
    no_clock: bool = True  # a table without a clock
    source: str = "everyone"  # who may challenge: everyone, people (not bot accounts), bots
    players: frozenset[str] = frozenset()  # names in lower case; empty: anyone
    blocked: frozenset[str] = frozenset()  # names in lower case

    def __call__(self, challenge: Challenge) -> bool:
        return self.refusal(challenge) is None

    def refusal(self, challenge: Challenge) -> str | None:
        """Why the challenge is not taken, in words; None when it is."""
        who = challenge.challenger_name.lower()
        if who in self.blocked or (self.players and who not in self.players):
            return f"not from {challenge.challenger_name}"
        if self.source == "people" and challenge.challenger_bot:
            return "not from bot accounts"
        if self.source == "bots" and not challenge.challenger_bot:
            return "only from bot accounts"
        if self.games and challenge.config.game not in self.games:
            return f"not {challenge.config.game}"
        if self.seats and challenge.config.seats not in self.seats:
            return f"not at {challenge.config.seats} seats"
        control = challenge.time_control
        seconds = control.bank_seconds or control.decision_seconds
        if not seconds:
            return None if self.no_clock else "not without a clock"
        low, high = self.clock
        if not low <= seconds <= high:
            return f"not a clock of {seconds:g} s"
        return None


@dataclass(frozen=True)
class RunnerConfig:
    """A bot account's run: where, as whom, with which bot, how many games at once, which challenges."""

    name: str
    bot: str = ""  # "module:function"
    gateway: str = ""
    max_games: int = 4
    accept: ChallengeFilter = field(default_factory=ChallengeFilter)


def load(path: Path | str) -> RunnerConfig:
    """The config in the TOML file at `path`; ConfigError naming the key for anything it cannot use."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{path}: {error}") from error
    return parse(data, str(path))


def parse(data: dict[str, Any], where: str = "the config") -> RunnerConfig:
    unknown = sorted(set(data) - TOP_KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(TOP_KEYS))})")
    name = _text(data, "name", where, required=True)
    max_games = data.get("max_games", 4)
    if not isinstance(max_games, int) or isinstance(max_games, bool) or max_games < 1:
        raise ConfigError(f"{where}: max_games must be a whole number of at least 1, not {max_games!r}")
    accept = data.get("accept", {})
    if not isinstance(accept, dict):
        raise ConfigError(f"{where}: [accept] must be a table of filters")
    return RunnerConfig(
        name=name,
        bot=_text(data, "bot", where),
        gateway=_text(data, "gateway", where),
        max_games=max_games,
        accept=_filter(accept, f"{where} [accept]"),
    )


def _text(data: dict[str, Any], key: str, where: str, required: bool = False) -> str:
    value = data.get(key, "")
    if not isinstance(value, str) or (required and not value):
        raise ConfigError(f"{where}: {key} must be {'a non-empty' if required else 'a'} string, not {value!r}")
    return value


def _filter(data: dict[str, Any], where: str) -> ChallengeFilter:
    known = {"games", "seats", "clock", "no_clock", "from", "players", "blocked"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(known))})")

    def strings(key: str) -> frozenset[str]:
        value = data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise ConfigError(f"{where}: {key} must be a list of strings, not {value!r}")
        return frozenset(value)

    seats = data.get("seats", [])
    if not isinstance(seats, list) or not all(isinstance(n, int) and not isinstance(n, bool) for n in seats):
        raise ConfigError(f"{where}: seats must be a list of whole numbers, not {seats!r}")
    clock = data.get("clock", [0, math.inf])
    if (
        not isinstance(clock, list)
        or len(clock) != 2
        or not all(isinstance(s, int | float) and not isinstance(s, bool) and s >= 0 for s in clock)
        or clock[0] > clock[1]
    ):
        raise ConfigError(f"{where}: clock must be [least, most] seconds per decision, not {clock!r}")
    no_clock = data.get("no_clock", True)
    if not isinstance(no_clock, bool):
        raise ConfigError(f"{where}: no_clock must be true or false, not {no_clock!r}")
    source = data.get("from", "everyone")
    if source not in FROM:
        raise ConfigError(f"{where}: from must be one of {', '.join(FROM)}, not {source!r}")
    return ChallengeFilter(
        games=strings("games"),
        seats=frozenset(seats),
        clock=(float(clock[0]), float(clock[1])),
        no_clock=no_clock,
        source=source,
        players=frozenset(name.lower() for name in strings("players")),
        blocked=frozenset(name.lower() for name in strings("blocked")),
    )


def bot_function(spec: str) -> Bot:
    """The bot named "module:function" (the module importable from the current directory or the path)."""
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise ConfigError(f"bot must be 'module:function', not {spec!r}")
    found = getattr(importlib.import_module(module_name), attribute, None)
    if not callable(found):
        raise ConfigError(f"bot {spec!r}: {module_name} has no function {attribute}")
    bot: Bot = found
    return bot


def run(config: RunnerConfig, bot: Bot | None = None, games: int | None = None) -> list[Result]:
    """Serve the bot account `config` describes (`bot`: the function, else the config's `bot`) until `games` games
    are over for it (None: until stopped); registers the name once and makes it a bot account."""
    chosen = bot if bot is not None else bot_function(config.bot)
    with connect(config.gateway or default_address()) as client:
        client.register(config.name)
        if not client.me().bot:
            try:
                client.upgrade_to_bot()
            except ManaforgeError as error:
                raise ManaforgeError(
                    f"{config.name} cannot become a bot account (a person's account with rated games?): "
                    f"{error.details}",
                    error.code,
                    error.details,
                ) from error
        return serve(client, chosen, max_games=config.max_games, accept=config.accept, games=games)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("config", help="the runner's TOML file")
    parser.add_argument("--games", type=int, default=None, help="stop after this many games (default: never)")
    args = parser.parse_args(argv)
    for result in run(load(args.config), games=args.games):
        print(result, flush=True)


if __name__ == "__main__":
    main()
