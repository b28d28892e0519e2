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

--gateway, --name and --guest may come before or after the command. The gateway is MANAFORGE_GATEWAY (HOST:PORT)
when set, else 127.0.0.1 on MANAFORGE_GATEWAY_PORT (50051 unless set), as `make run` uses.
Credentials of `register` are kept in $MANAFORGE_HOME/player.json (~/.config/manaforge by default) and sent with
every command; --guest plays without them. The keys of the last 20 seats taken are kept in seats.json beside it.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import sys
import time
from collections.abc import Mapping
from pathlib import Path

import grpc
from manaforge.v1 import gateway_pb2 as gw
from manaforge.v1.common_pb2 import GameConfig

from engine_core import find_game
from engine_core.bots import bot_levels
from gateway.cli.reconnect import GatewayLost, Reconnector
from gateway.cli.sitting import play, watch
from gateway.cli.table import as_sentence, result_in_words
from gateway.cli.words import in_names, plain_markdown, seat_names, width
from gateway.client import Client

DEFAULT_PORT = 50051
SAVED_SEATS = 20  # the seats kept in seats.json for `rejoin`, newest
BOT_LEVELS = bot_levels()


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


def cmd_games(client: Client, args: argparse.Namespace) -> None:
    for info in client.games():
        print(f"{info.name:<14} {info.title:<28} {info.min_seats}-{info.max_seats} players  {info.description}")
        for option in info.options:
            choices = f" ({'|'.join(option.choices)})" if option.choices else ""
            print(f"{'':16}--option {option.name}={option.default_value}{choices}  {option.description}")


def cmd_rules(client: Client, args: argparse.Namespace) -> None:
    info = next((g for g in client.games() if g.name == args.game), None)
    if info is None:
        sys.exit(f"manaforge: no game named {args.game!r}: `manaforge games` lists them")
    if not info.how_to_play:
        sys.exit(f"manaforge: {info.title} has no how-to-play page on this server")
    print("\n".join(plain_markdown(info.how_to_play, width())))


def cmd_play(client: Client, args: argparse.Namespace) -> None:
    info = next((g for g in client.games() if g.name == args.game), None)
    if info is None:
        sys.exit(f"manaforge: no game named {args.game!r}: `manaforge games` lists them")
    seats = args.seats or info.min_seats
    bots = {} if args.open else {i: args.bot for i in range(1, seats)}
    requests = [gw.SeatRequest(bot=i in bots, bot_level=bots.get(i, "")) for i in range(seats)]
    config = GameConfig(game=args.game, seats=seats, options=dict(args.option))
    request = gw.CreateTableRequest(config=config, seats=requests, player_name=args.name)
    if args.clock is not None:
        request.time_control.CopyFrom(gw.TimeControl(decision_seconds=args.clock))
    created = client.stub.CreateTable(request)
    print(f"table {created.table.table_id}: you are seat {created.seat}")
    sit(client, args, created.table.table_id, created.seat_token)


def cmd_tables(client: Client, args: argparse.Namespace) -> None:
    request = gw.ListTablesRequest(game=args.game, in_progress=args.playing, mine=args.mine)
    tables = client.stub.ListTables(request).tables
    if not tables:
        if args.mine:
            print("you have no tables yet")
        elif args.playing:
            print("no games under way" + (f" of {args.game}" if args.game else ""))
        else:
            print("no tables waiting for players: start one with `manaforge play GAME --open`")
    for table in tables:
        taken = sum(s.kind != gw.SEAT_KIND_OPEN for s in table.seats)
        state = "finished" if table.outcome.finished else f"move {table.version}" if table.started else "waiting"
        print(
            f"{table.table_id}  {table.config.game:<14} {taken}/{table.config.seats} seated  {state:<10}"
            f"  {table.spectators} watching  {', '.join(s.name for s in table.seats if s.name)}"
        )


def cmd_register(client: Client, args: argparse.Namespace) -> None:
    player = client.stub.RegisterPlayer(gw.RegisterPlayerRequest(name=args.player_name))
    path = credentials_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"player_id": player.player_id, "key": player.secret_key, "name": player.name}))
    path.chmod(0o600)
    print(f"registered as {player.name} (player {player.player_id}); your key is kept in {path}")


def cmd_me(client: Client, args: argparse.Namespace) -> None:
    player = client.stub.GetPlayer(gw.GetPlayerRequest())
    print(f"{player.name} (player {player.player_id})")
    if not player.ratings:
        print("  no rated games yet: rated games are those a registered player finishes and the server validates")
    for rating in player.ratings:
        print(
            f"  {rating.game:<14} {rating.seats} seats  rating {rating.ordinal:6.2f}"
            f" (mu {rating.mu:.2f}, sigma {rating.sigma:.2f})  {rating.games} games  rank {rating.rank}"
        )


def cmd_rejoin(client: Client, args: argparse.Namespace) -> None:
    if args.registered:
        joined = client.stub.RejoinTable(gw.RejoinTableRequest(table_id=args.table))
        seat, token = joined.seat, joined.seat_token
    else:
        token = saved_seats().get(args.table, "")
        if not token:
            sys.exit(
                f"manaforge: no seat at table {args.table} was taken from this machine as a guest. A guest comes back "
                "only from the machine it played on; a registered player (`manaforge register NAME`) from anywhere."
            )
        seat = client.view(args.table, token).seat  # a call with the seat's key: the seat is back
    print(f"back at table {args.table}: you are seat {seat}")
    sit(client, args, args.table, token)


def cmd_leaderboard(client: Client, args: argparse.Namespace) -> None:
    board = client.stub.GetLeaderboard(gw.GetLeaderboardRequest(game=args.game, seats=args.seats, limit=args.limit))
    if not board.entries:
        print(f"nobody is ranked in {args.game} for {args.seats} seats yet")
    for place, entry in enumerate(board.entries, start=1):
        print(f"{place:>3}. {entry.name:<24} {entry.rating.ordinal:6.2f}  ({entry.rating.games} games)")


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


def sit(client: Client, args: argparse.Namespace, table_id: str, token: str) -> None:
    """Play the seat; its key is kept on this machine first, so that `manaforge rejoin` finds it."""
    save_seat(table_id, token)
    play(client, table_id, token, registered=args.registered)


def cmd_join(client: Client, args: argparse.Namespace) -> None:
    try:
        joined = client.join(args.table, args.name, args.seat)
    except grpc.RpcError as exc:
        if exc.code() != grpc.StatusCode.FAILED_PRECONDITION or "table full" not in (exc.details() or ""):
            raise
        if args.table in saved_seats():
            sys.exit(f"manaforge: {exc.details()}, one of them yours: come back with `manaforge rejoin {args.table}`")
        sys.exit(f"manaforge: {exc.details()}: watch the game with `manaforge watch {args.table}`")
    print(f"you are seat {joined.seat}")
    sit(client, args, args.table, joined.seat_token)


def cmd_queue(client: Client, args: argparse.Namespace) -> None:
    ticket = client.stub.JoinQueue(
        gw.JoinQueueRequest(game=args.game, seats=args.seats, player_name=args.name, options=dict(args.option))
    )
    try:
        ticket = wait_for_match(client, args, ticket)
    except KeyboardInterrupt:
        leave_queue(client, args, ticket.ticket_id)
        return
    token = ticket.seat_token
    if not token and args.registered:  # the answer that carried the seat's key was lost (the gateway restarted)
        token = client.stub.RejoinTable(gw.RejoinTableRequest(table_id=ticket.table_id)).seat_token
    if not token:
        sys.exit(f"manaforge: matched to table {ticket.table_id}, but its seat's key was lost on the way; sorry")
    print(f"table {ticket.table_id}: you are seat {ticket.seat}")
    sit(client, args, ticket.table_id, token)


def wait_for_match(client: Client, args: argparse.Namespace, ticket: gw.QueueTicket) -> gw.QueueTicket:
    """Wait for the ticket's table; after `--fill-after` seconds, bots fill the empty seats."""
    link = Reconnector(client, print)
    fill = gw.FillWithBotsRequest(ticket_id=ticket.ticket_id, bot_level=args.bot)
    wait = gw.WaitForMatchRequest(ticket_id=ticket.ticket_id, timeout_seconds=2)
    deadline = time.monotonic() + args.fill_after
    said = -1
    while not ticket.matched:
        if ticket.waiting != said:
            said = ticket.waiting
            print(
                f"waiting for players ({ticket.waiting}/{args.seats}); bots fill the empty seats in"
                f" {max(0, round(deadline - time.monotonic()))} s (Ctrl-C leaves the queue)..."
            )
        if time.monotonic() >= deadline:
            return link.call(lambda: client.stub.FillWithBots(fill))
        ticket = link.call(lambda: client.stub.WaitForMatch(wait))
    return ticket


def leave_queue(client: Client, args: argparse.Namespace, ticket_id: str) -> None:
    """Ctrl-C while waiting: out of the queue at once, so nobody is matched with a player who has gone; matched
    already, the seat is kept for `rejoin`."""
    try:
        client.stub.LeaveQueue(gw.LeaveQueueRequest(ticket_id=ticket_id))
        print("\nyou left the queue")
        return
    except grpc.RpcError as exc:
        if exc.code() != grpc.StatusCode.FAILED_PRECONDITION:  # not "already matched"
            raise
    ticket = client.stub.WaitForMatch(gw.WaitForMatchRequest(ticket_id=ticket_id))
    if ticket.seat_token:
        save_seat(ticket.table_id, ticket.seat_token)
    print(
        f"\nyou were matched to table {ticket.table_id} as you left: the game goes on without you (your clock decides"
        f" for your seat). Come back with `manaforge rejoin {ticket.table_id}`."
    )


def cmd_watch(client: Client, args: argparse.Namespace) -> None:
    watch(client, args.table)


def cmd_replay(client: Client, args: argparse.Namespace) -> None:
    log = client.log(args.table)
    game = find_game(log.table.config.game)
    print(f"{game.info.title}, {log.table.config.seats} seats, seed {log.seed}")
    events_by_version: dict[int, list[str]] = {}
    for event in log.events:
        events_by_version.setdefault(event.version, []).append(event.text)
    names = seat_names(log.table)
    for logged in log.actions:
        print(f"v{logged.version:<4} {in_names(f'seat {logged.seat}', names)}: {in_names(logged.text, names)}")
        for text in events_by_version.get(logged.version, []):
            print(f"        {in_names(text, names)}")
    if log.table.outcome.finished:
        print(as_sentence(result_in_words(log.table.outcome, names=names)))
    else:
        print("the game is not finished")
    print(f"replay validation: {log.table.replay_verdict or 'pending'}")


def parser() -> argparse.ArgumentParser:
    version = importlib.metadata.version("manaforge")
    top = argparse.ArgumentParser(prog="manaforge", description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    top.add_argument("--version", action="version", version=f"manaforge {version}")
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

    command("games", cmd_games, "the games, their player counts and variant options")
    p = command("rules", cmd_rules, "how to play a game: its goal, a turn, the cards, the end")
    p.add_argument("game", help="the game's name, as `manaforge games` lists it")
    p = command("play", cmd_play, "start a table and play it: you at seat 0, bots (or open seats) in the others")
    p.add_argument("game", help="the game's name, as `manaforge games` lists it")
    p.add_argument("--seats", type=int, default=0, metavar="N", help="how many players (default: the game's fewest)")
    p.add_argument("--bot", default="random", choices=BOT_LEVELS, help="the level of the bots (default: random)")
    p.add_argument("--open", action="store_true", help="leave the other seats open for people to join")
    game_options(p)
    p.add_argument(
        "--clock",
        type=float,
        default=None,
        metavar="SECONDS",
        help="seconds per decision (0: none; default: the server's)",
    )
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
    with Client(args.gateway, (saved[0], saved[1]) if saved else None) as client:
        try:
            args.run(client, args)
        except grpc.RpcError as exc:
            if exc.code() == grpc.StatusCode.UNAVAILABLE:
                sys.exit(
                    f"manaforge: cannot reach a Manaforge gateway at {args.gateway}. Is it running (`make run`)? "
                    "Another address: --gateway HOST:PORT or MANAFORGE_GATEWAY."
                )
            sys.exit(f"manaforge: {exc.details()} ({exc.code().name})")
        except GatewayLost as lost:
            sys.exit(f"manaforge: {lost}")
        except KeyboardInterrupt:
            print()


if __name__ == "__main__":
    main()
