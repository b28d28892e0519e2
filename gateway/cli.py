"""manaforge: the terminal client.

manaforge games                         the games and their options
manaforge play GAME [--seats N] [--bot LEVEL] [--option NAME=VALUE]
                                        a new table: you take seat 0, bots fill the others (--open leaves them open)
manaforge tables                        tables waiting for players
manaforge join TABLE [--seat N]         take a seat and play
manaforge queue GAME --seats N [--fill-after SECONDS]
                                        matchmaking; after the wait, empty seats are filled with bots
manaforge watch TABLE                   follow a game as a spectator
manaforge replay TABLE                  a finished game's actions, events and replay verdict
manaforge register NAME                 become a registered player (rated play, rejoining from any client)
manaforge me                            your ratings and ranks
manaforge mine                          your tables, newest first
manaforge rejoin TABLE                  take your seat again (after quitting, or from another machine)
manaforge leaderboard GAME --seats N    the best players of a game, with the bot levels' ratings among them

Credentials of `register` are kept in $MANAFORGE_HOME/player.json (~/.config/manaforge by default) and sent with
every command; --guest plays without them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import grpc
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from manaforge.v1 import gateway_pb2 as gw
from manaforge.v1.common_pb2 import GameConfig
from manaforge.v1.gateway_pb2 import SeatView

from engine_core import GAMES, find_game
from engine_core.registry import AnyGame
from gateway.client import Client, pack

HELP = """At your turn, type the number of an action.
  v  show the table again     h  this help     q  leave (the game goes on; `manaforge rejoin TABLE` comes back)
Actions that carry text (names, flavour, art) ask for it after you pick them; Enter keeps the example."""


def show(view: SeatView, out: Callable[[str], None] = print) -> None:
    out("")
    out(view.text)
    if view.outcome.finished:
        out(
            f"\nGame over: winners {list(view.outcome.winners)} scores {list(view.outcome.scores)} "
            f"({view.outcome.reason})"
        )
    elif view.pending.seats:
        who = ", ".join(str(s) for s in view.pending.seats)
        out(f"\nWaiting for seat {who}: {view.pending.prompt}")
    for deadline in view.deadlines:
        left = max(0, round(deadline.at - time.time()))
        whose = "your" if deadline.seat == view.seat else f"seat {deadline.seat}'s"
        out(f"  {whose} clock: {left} s left, then the decision is made for it")


def ask_text_fields(action: Message, read: Callable[[str], str]) -> None:
    """Let the player replace the example text of every string field of a free-text action."""
    for fd in action.DESCRIPTOR.fields:
        if fd.type == FieldDescriptor.TYPE_STRING and not fd.is_repeated:
            current = getattr(action, fd.name)
            if current:
                answer = read(f"  {fd.name.replace('_', ' ')} [{current}]: ")
                if answer:
                    setattr(action, fd.name, answer.replace("\\n", "\n"))


def choose(view: SeatView, read: Callable[[str], str], out: Callable[[str], None]) -> Message | None:
    """Ask for one of the legal actions; None when the player leaves."""
    out("")
    for i, legal in enumerate(view.legal_actions, start=1):
        out(f"  {i:>3}. {legal.text}")
    while True:
        answer = read("your move> ").strip().lower()
        if answer == "q":
            return None
        if answer == "h":
            out(HELP)
        elif answer == "v":
            show(view, out)
        elif answer.isdigit() and 1 <= int(answer) <= len(view.legal_actions):
            packed = view.legal_actions[int(answer) - 1].action
            game = _game_of_action(packed.TypeName())
            action: Message = game.action_from_any(packed)
            if game.info.free_text:
                ask_text_fields(action, read)
            return action
        else:
            out(f"type a number from 1 to {len(view.legal_actions)}, or h for help")


def _game_of_action(type_name: str) -> AnyGame:
    return next(g for g in GAMES if g.action_type.DESCRIPTOR.full_name == type_name)


def play(
    client: Client, table_id: str, token: str, read: Callable[[str], str] = input, out: Callable[[str], None] = print
) -> None:
    """Follow the table as this seat; ask for a move whenever one is ours."""
    for update in client.watch(table_id, token):
        for event in update.events:
            out(f"  * {event.text}")
        view = update.view
        if view.outcome.finished:
            show(view, out)
            break
        if not view.legal_actions:
            continue
        show(view, out)
        while True:
            action = choose(view, read, out)
            if action is None:
                return
            try:
                client.submit(
                    table_id, token, pack(action), client_action_id=uuid.uuid4().hex, expected_version=view.version
                )
                break
            except grpc.RpcError as exc:
                out(f"refused: {exc.details()}")
                if exc.code() == grpc.StatusCode.ABORTED:
                    break  # the game moved on: the next update shows it
    _show_verdict(client, table_id, out)


def _show_verdict(client: Client, table_id: str, out: Callable[[str], None]) -> None:
    try:
        table = client.wait_finished(table_id, timeout=10)
        out(f"replay validation: {table.replay_verdict}")
    except TimeoutError:
        out("replay validation is still running")


def cmd_games(client: Client, args: argparse.Namespace) -> None:
    for info in client.games():
        print(f"{info.name:<14} {info.title:<28} {info.min_seats}-{info.max_seats} players  {info.description}")
        for option in info.options:
            choices = f" ({'|'.join(option.choices)})" if option.choices else ""
            print(f"{'':16}--option {option.name}={option.default_value}{choices}  {option.description}")


def _options(pairs: list[str]) -> dict[str, str]:
    return dict(pair.split("=", 1) for pair in pairs)


def cmd_play(client: Client, args: argparse.Namespace) -> None:
    info = next((g for g in client.games() if g.name == args.game), None)
    if info is None:
        sys.exit(f"no game named {args.game!r}: try `manaforge games`")
    seats = args.seats or info.min_seats
    bots = {} if args.open else {i: args.bot for i in range(1, seats)}
    requests = [gw.SeatRequest(bot=i in bots, bot_level=bots.get(i, "")) for i in range(seats)]
    config = GameConfig(game=args.game, seats=seats, options=_options(args.option))
    request = gw.CreateTableRequest(config=config, seats=requests, player_name=args.name)
    if args.clock is not None:
        request.time_control.CopyFrom(gw.TimeControl(decision_seconds=args.clock))
    created = client.stub.CreateTable(request)
    print(f"table {created.table.table_id}: you are seat {created.seat}")
    play(client, created.table.table_id, created.seat_token)


def cmd_tables(client: Client, args: argparse.Namespace) -> None:
    request = gw.ListTablesRequest(game=args.game, in_progress=args.playing, mine=args.mine)
    tables = client.stub.ListTables(request).tables
    if not tables:
        print("no games under way" if args.playing else "no tables" if args.mine else "no tables waiting for players")
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
    joined = client.stub.RejoinTable(gw.RejoinTableRequest(table_id=args.table))
    print(f"back at table {args.table}: you are seat {joined.seat}")
    play(client, args.table, joined.seat_token)


def cmd_leaderboard(client: Client, args: argparse.Namespace) -> None:
    board = client.stub.GetLeaderboard(gw.GetLeaderboardRequest(game=args.game, seats=args.seats, limit=args.limit))
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
    saved = json.loads(path.read_text())
    return saved["player_id"], saved["key"], saved["name"]


def cmd_join(client: Client, args: argparse.Namespace) -> None:
    joined = client.join(args.table, args.name, args.seat)
    print(f"you are seat {joined.seat}")
    play(client, args.table, joined.seat_token)


def cmd_queue(client: Client, args: argparse.Namespace) -> None:
    ticket = client.stub.JoinQueue(
        gw.JoinQueueRequest(game=args.game, seats=args.seats, player_name=args.name, options=_options(args.option))
    )
    deadline = time.monotonic() + args.fill_after
    while not ticket.matched:
        print(f"waiting for players ({ticket.waiting}/{args.seats})...")
        if time.monotonic() >= deadline:
            ticket = client.stub.FillWithBots(gw.FillWithBotsRequest(ticket_id=ticket.ticket_id, bot_level=args.bot))
            break
        ticket = client.stub.WaitForMatch(gw.WaitForMatchRequest(ticket_id=ticket.ticket_id, timeout_seconds=2))
    print(f"table {ticket.table_id}: you are seat {ticket.seat}")
    play(client, ticket.table_id, ticket.seat_token)


def cmd_watch(client: Client, args: argparse.Namespace) -> None:
    for update in client.watch(args.table):
        for event in update.events:
            print(f"  * {event.text}")
        show(update.view)
    _show_verdict(client, args.table, print)


def cmd_replay(client: Client, args: argparse.Namespace) -> None:
    log = client.log(args.table)
    game = find_game(log.table.config.game)
    print(f"{game.info.title}, {log.table.config.seats} seats, seed {log.seed}")
    events_by_version: dict[int, list[str]] = {}
    for event in log.events:
        events_by_version.setdefault(event.version, []).append(event.text)
    for logged in log.actions:
        print(f"v{logged.version:<4} seat {logged.seat}: {logged.text}")
        for text in events_by_version.get(logged.version, []):
            print(f"        {text}")
    outcome = log.table.outcome
    print(f"winners {list(outcome.winners)} scores {list(outcome.scores)} ({outcome.reason})")
    print(f"replay validation: {log.table.replay_verdict or 'pending'}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="manaforge", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--gateway", default="127.0.0.1:50051", help="gateway address (host:port)")
    parser.add_argument("--name", default="", help="your name at the table (a guest's; players use theirs)")
    parser.add_argument("--guest", action="store_true", help="play as a guest even if you registered")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("games").set_defaults(run=cmd_games)
    p = sub.add_parser("play")
    p.add_argument("game")
    p.add_argument("--seats", type=int, default=0)
    p.add_argument("--bot", default="random", help="bot level for the other seats")
    p.add_argument("--open", action="store_true", help="leave the other seats open for humans")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--clock", type=float, default=None, help="seconds per decision (0: none; default: the server's)")
    p.set_defaults(run=cmd_play)
    p = sub.add_parser("tables", help="tables waiting for players (--playing: games to watch)")
    p.add_argument("--game", default="")
    p.add_argument("--playing", action="store_true", help="games under way, to spectate")
    p.set_defaults(run=cmd_tables, mine=False)
    sub.add_parser("mine", help="your tables").set_defaults(run=cmd_tables, mine=True, game="", playing=False)
    p = sub.add_parser("register", help="become a registered player")
    p.add_argument("player_name")
    p.set_defaults(run=cmd_register)
    sub.add_parser("me", help="your ratings").set_defaults(run=cmd_me)
    p = sub.add_parser("rejoin", help="take your seat again")
    p.add_argument("table")
    p.set_defaults(run=cmd_rejoin)
    p = sub.add_parser("leaderboard", help="the best players of a game")
    p.add_argument("game")
    p.add_argument("--seats", type=int, default=2)
    p.add_argument("--limit", type=int, default=20)
    p.set_defaults(run=cmd_leaderboard)
    p = sub.add_parser("join")
    p.add_argument("table")
    p.add_argument("--seat", type=int, default=None)
    p.set_defaults(run=cmd_join)
    p = sub.add_parser("queue")
    p.add_argument("game")
    p.add_argument("--seats", type=int, required=True)
    p.add_argument("--fill-after", type=float, default=30.0, help="seconds before empty seats get bots")
    p.add_argument("--bot", default="random")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    p.set_defaults(run=cmd_queue)
    for name, run in (("watch", cmd_watch), ("replay", cmd_replay)):
        p = sub.add_parser(name)
        p.add_argument("table")
        p.set_defaults(run=run)
    args = parser.parse_args(argv)
    saved = None if args.guest else saved_player()
    if saved is not None and not args.name:
        args.name = saved[2]
    args.name = args.name or "player"
    with Client(args.gateway, (saved[0], saved[1]) if saved else None) as client:
        try:
            args.run(client, args)
        except grpc.RpcError as exc:
            sys.exit(f"{exc.code().name}: {exc.details()}")
        except KeyboardInterrupt:
            print()


if __name__ == "__main__":
    main()
