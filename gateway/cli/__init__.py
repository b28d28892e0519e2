"""manaforge: the terminal client of a Manaforge gateway.

  manaforge games                          the games, their player counts and options
  manaforge rules GAME                     how to play a game (at a table: r)
  manaforge play GAME [--seats N] [--bot LEVEL] [--option NAME=VALUE] [--open] [--clock SECONDS]
                                           a new table: you take seat 0, bots the others (--open: left for humans)
  manaforge tables [--game GAME] [--playing]
                                           tables waiting for players (--playing: games under way, to watch)
  manaforge join TABLE [--seat N]          take a seat and play
  manaforge queue GAME --seats N [--fill-after SECONDS]
                                           matchmaking; after the wait, empty seats are filled with bots
  manaforge watch TABLE                    follow a game as a spectator
  manaforge replay TABLE                   a finished game's actions, events and replay verdict
  manaforge register NAME                  become a registered player (rated play, rejoining from any client)
  manaforge me                             your ratings and ranks
  manaforge mine                           your tables, newest first
  manaforge rejoin TABLE                   take your seat again after quitting (a guest from this machine, a
                                           registered player from any)
  manaforge leaderboard GAME [--seats N]   the best players of a game, with the bot levels' ratings among them
  manaforge challenge NAME GAME [--seats N] [--bot LEVEL|--open] [--option NAME=VALUE] [--clock SECONDS]
                                           challenge a registered player (or a bot account), wait for the answer
  manaforge challenges                     the challenges waiting for your answer, and for others'
  manaforge accept ID                      accept a challenge and play it
  manaforge decline ID [WHY] [TEXT]        decline one (WHY: later, game, clock, no_bots), with your words
  manaforge lobby                          wait for challenges: each announced as it comes, answered there
  manaforge refuse [all | none | GAME...]  refuse challenges: every one, none, or those games'; alone: what you refuse

--gateway, --name, --guest, --tls and --ca may come before or after the command. The gateway is MANAFORGE_GATEWAY
(HOST:PORT) when set, else 127.0.0.1 on MANAFORGE_GATEWAY_PORT (50051 unless set), as `make run` uses.
Credentials of `register` are kept in $MANAFORGE_HOME/player.json (~/.config/manaforge by default) and sent with
every command; --guest plays without them. The keys of the last 20 seats taken are kept in seats.json beside it.
TLS: --tls trusts the system's CAs, --ca FILE a CA of yours (or MANAFORGE_TLS_CA=system|FILE; a client certificate
for mutual TLS from MANAFORGE_TLS_CLIENT_CERT and MANAFORGE_TLS_CLIENT_KEY).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping

import grpc

from gateway.cli.challenges import REASONS
from gateway.cli.commands import (
    BOT_LEVELS,
    cmd_accept,
    cmd_challenge,
    cmd_challenges,
    cmd_decline,
    cmd_games,
    cmd_join,
    cmd_leaderboard,
    cmd_lobby,
    cmd_me,
    cmd_play,
    cmd_queue,
    cmd_refuse,
    cmd_register,
    cmd_rejoin,
    cmd_replay,
    cmd_rules,
    cmd_tables,
    cmd_watch,
)
from gateway.cli.reconnect import GatewayLost
from gateway.cli.saved import saved_player
from gateway.cli.secure import add_tls_flags, authority, credentials, unreachable
from gateway.client import Client
from services.version import describe

DEFAULT_PORT = 50051


def default_gateway(environ: Mapping[str, str] = os.environ) -> str:
    """MANAFORGE_GATEWAY, else 127.0.0.1 on MANAFORGE_GATEWAY_PORT (the port `make run` serves on)."""
    if environ.get("MANAFORGE_GATEWAY"):
        return environ["MANAFORGE_GATEWAY"]
    port = environ.get("MANAFORGE_GATEWAY_PORT") or str(DEFAULT_PORT)
    if not port.isdigit():
        sys.exit(f"manaforge: MANAFORGE_GATEWAY_PORT must be a port number, not {port!r}")
    return f"127.0.0.1:{port}"


def option_pair(text: str) -> tuple[str, str]:
    name, equals, value = text.partition("=")
    if not (name and equals):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not NAME=VALUE, e.g. --option turn_limit=15 (`manaforge games` lists each game's options)"
        )
    return name, value


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="manaforge", description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    running = describe(os.environ.get("MANAFORGE_COMMIT", ""))
    top.add_argument("--version", action="version", version=f"manaforge {running}")
    # The global options, accepted after the command too: there they default to SUPPRESS, so the one given wins.
    shared = argparse.ArgumentParser(add_help=False)
    for options, default in ((shared, argparse.SUPPRESS), (top, None)):
        options.add_argument(
            "--gateway",
            default=default,
            metavar="HOST:PORT",
            help="the gateway (default: MANAFORGE_GATEWAY, else 127.0.0.1:MANAFORGE_GATEWAY_PORT, else :50051)",
        )
        options.add_argument(
            "--name", default=default, help="your name at the table as a guest (registered players play as theirs)"
        )
        options.add_argument(
            "--guest",
            action="store_true",
            default=default if default is not None else False,
            help="play as a guest even if you registered",
        )
        options.add_argument(
            "--quiet",
            action="store_true",
            default=default if default is not None else False,
            help="no terminal bell when the decision becomes yours after waiting",
        )
        add_tls_flags(options, default)
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, run: object, summary: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, parents=[shared], help=summary, description=summary)
        p.set_defaults(run=run)
        return p

    def game_options(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--option",
            action="append",
            default=[],
            type=option_pair,
            metavar="NAME=VALUE",
            help="a variant option of the game, repeatable (`manaforge games` lists them)",
        )

    def table_flags(p: argparse.ArgumentParser, bots: str, open_seats: str) -> None:
        """The flags of a new table, shared by `play` and `challenge`: its game, seats, bots, options and clock."""
        p.add_argument("game", help="the game's name, as `manaforge games` lists it")
        p.add_argument(
            "--seats", type=int, default=0, metavar="N", help="how many players (default: the game's fewest)"
        )
        p.add_argument("--bot", default="random", choices=BOT_LEVELS, help=f"the level of {bots} (default: random)")
        p.add_argument("--open", action="store_true", help=f"leave {open_seats} open for people to join")
        game_options(p)
        p.add_argument(
            "--clock",
            type=float,
            default=None,
            metavar="SECONDS",
            help="seconds per decision (0: none; default: the server's)",
        )

    command("games", cmd_games, "the games, their player counts and variant options")
    p = command("rules", cmd_rules, "how to play a game: its goal, a turn, the cards, the end")
    p.add_argument("game", help="the game's name, as `manaforge games` lists it")
    p = command("play", cmd_play, "start a table and play it: you at seat 0, bots (or open seats) in the others")
    table_flags(p, bots="the bots", open_seats="the other seats")
    p = command("tables", cmd_tables, "tables waiting for players (--playing: games under way, to watch)")
    p.add_argument("--game", default="", help="only this game's tables")
    p.add_argument("--playing", action="store_true", help="games under way, to spectate")
    p.set_defaults(mine=False)
    command("mine", cmd_tables, "your tables, newest first (registered players)").set_defaults(
        mine=True, game="", playing=False
    )
    p = command("register", cmd_register, "become a registered player: a unique name and a key kept on this machine")
    p.add_argument("player_name", metavar="NAME", help="your player name (unique on the server)")
    command("me", cmd_me, "your ratings and ranks (registered players)")
    p = command(
        "rejoin",
        cmd_rejoin,
        "take your seat again after quitting (a guest from this machine, a registered player from any)",
    )
    p.add_argument("table", help="the table's id")
    p = command("leaderboard", cmd_leaderboard, "the best players of a game, with the bot levels' fixed ratings")
    p.add_argument("game", help="the game's name")
    p.add_argument(
        "--seats", type=int, default=2, metavar="N", help="the player count ratings are kept for (default 2)"
    )
    p.add_argument("--limit", type=int, default=20, metavar="N", help="how many players to list (default 20)")
    p = command("join", cmd_join, "take a seat at a table and play")
    p.add_argument("table", help="the table's id, as `manaforge tables` lists it")
    p.add_argument("--seat", type=int, default=None, metavar="N", help="the seat to take (default: the first open one)")
    p = command("queue", cmd_queue, "matchmaking: wait for players of your rating, then fill empty seats with bots")
    p.add_argument("game", help="the game's name")
    p.add_argument("--seats", type=int, required=True, metavar="N", help="how many players")
    p.add_argument(
        "--fill-after",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="seconds before empty seats get bots (default 30)",
    )
    p.add_argument("--bot", default="random", choices=BOT_LEVELS, help="the level of those bots (default: random)")
    game_options(p)
    p = command("challenge", cmd_challenge, "challenge a registered player (or a bot account) and wait for the answer")
    p.add_argument("player", metavar="NAME", help="the player's name, as leaderboards show it")
    table_flags(p, bots="bots past seat 1", open_seats="the seats past the two players")
    command("challenges", cmd_challenges, "the challenges waiting for your answer, and yours waiting for others'")
    p = command("accept", cmd_accept, "accept a challenge made to you, and play it")
    p.add_argument("challenge", metavar="ID", help="the challenge's id, as `manaforge challenges` lists it")
    p = command("decline", cmd_decline, "decline a challenge made to you; the challenger is told why")
    p.add_argument("challenge", metavar="ID", help="the challenge's id")
    p.add_argument(
        "text",
        nargs="*",
        metavar="[WHY] TEXT",
        help=f"why, first: {', '.join(r for r in REASONS if r != 'generic')} (else none given); then your words to"
        " the challenger (up to 200 characters), e.g. `later not tonight`",
    )
    command("lobby", cmd_lobby, "wait for challenges: each is announced as it comes and answered there")
    p = command(
        "refuse", cmd_refuse, "refuse challenges: every one (all), none, or those games' (alone: what you refuse)"
    )
    p.add_argument("what", nargs="*", metavar="all | none | GAME", help="what to refuse from now on")
    p = command("watch", cmd_watch, "follow a game as a spectator (the public view only)")
    p.add_argument("table", help="the table's id")
    p = command("replay", cmd_replay, "a finished game, move by move, with its result and replay verdict")
    p.add_argument("table", help="the table's id")
    return top


def main(argv: list[str] | None = None) -> None:
    try:
        run_command(argv)
        sys.stdout.flush()  # here, where a reader gone away is caught, not at exit
    except BrokenPipeError:
        # the reader of our output went away (`manaforge replay T | head`): stop quietly, as the Python
        # documentation advises; what is still buffered goes to /dev/null, not to a second error at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)


def run_command(argv: list[str] | None) -> None:
    args = parser().parse_args(argv)
    args.gateway = args.gateway or default_gateway()
    saved = None if args.guest else saved_player()
    if saved is not None and not args.name:
        args.name = saved[2]
    args.name = args.name or "player"
    args.registered = saved is not None
    with Client(args.gateway, (saved[0], saved[1]) if saved else None, credentials(args)) as client:
        try:
            args.run(client, args)
        except grpc.RpcError as exc:
            if exc.code() == grpc.StatusCode.UNAVAILABLE and _is_connection_failure(exc.details() or ""):
                sys.exit(f"manaforge: {unreachable(args.gateway, authority(args), exc.details() or '')}")
            sys.exit(f"manaforge: {exc.details()} ({exc.code().name})")
        except GatewayLost as lost:
            sys.exit(f"manaforge: {lost}")
        except KeyboardInterrupt:
            print()


def _is_connection_failure(details: str) -> bool:
    """An UNAVAILABLE of the connection (no gateway, TLS refused), not one a gateway answered (Redis away: retry)."""
    return not details or "connect" in details.lower() or "handshake" in details.lower() or "Socket" in details


if __name__ == "__main__":
    main()
