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
"""

from __future__ import annotations

import argparse
import sys
import time
import uuid
from collections.abc import Callable

import grpc
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from manaforge.v1 import gateway_pb2 as gw
from manaforge.v1.gateway_pb2 import SeatView

from engine_core import GAMES, find_game
from engine_core.registry import AnyGame
from gateway.client import Client, pack

HELP = """At your turn, type the number of an action.
  v  show the table again     h  this help     q  leave (the game goes on; rejoin is not possible yet)
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
    created = client.create_table(args.game, seats, bots, _options(args.option), player_name=args.name)
    print(f"table {created.table.table_id}: you are seat {created.seat}")
    play(client, created.table.table_id, created.seat_token)


def cmd_tables(client: Client, args: argparse.Namespace) -> None:
    for table in client.stub.ListTables(gw.ListTablesRequest()).tables:
        taken = sum(s.kind != gw.SEAT_KIND_OPEN for s in table.seats)
        print(f"{table.table_id}  {table.config.game:<14} {taken}/{table.config.seats} seated")


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
    parser.add_argument("--name", default="player", help="your name at the table")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("games").set_defaults(run=cmd_games)
    p = sub.add_parser("play")
    p.add_argument("game")
    p.add_argument("--seats", type=int, default=0)
    p.add_argument("--bot", default="random", help="bot level for the other seats")
    p.add_argument("--open", action="store_true", help="leave the other seats open for humans")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    p.set_defaults(run=cmd_play)
    sub.add_parser("tables").set_defaults(run=cmd_tables)
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
    with Client(args.gateway) as client:
        try:
            args.run(client, args)
        except grpc.RpcError as exc:
            sys.exit(f"{exc.code().name}: {exc.details()}")
        except KeyboardInterrupt:
            print()


if __name__ == "__main__":
    main()
