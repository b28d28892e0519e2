"""The terminal client's commands: one function per `manaforge COMMAND` (the parser is in gateway/cli/__init__.py)."""

from __future__ import annotations

import argparse
import json
import sys
import time

import grpc
from manaforge.v1 import gateway_pb2 as gw
from manaforge.v1.common_pb2 import GameConfig

from engine_core import find_game
from engine_core.bots import bot_levels
from gateway.cli import challenges
from gateway.cli.console import Console
from gateway.cli.reconnect import Reconnector
from gateway.cli.saved import credentials_path, save_seat, saved_seats
from gateway.cli.sitting import play, watch
from gateway.cli.table import as_sentence, result_in_words
from gateway.cli.words import in_names, plain_markdown, seat_names, width
from gateway.client import Client

BOT_LEVELS = bot_levels()


def cmd_games(client: Client, args: argparse.Namespace) -> None:
    listed = client.list_games()
    if listed.notice:  # the operator's maintenance notice
        print(f"NOTICE: {listed.notice}\n")
    for info in listed.games:
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


def sit(client: Client, args: argparse.Namespace, table_id: str, token: str, console: Console | None = None) -> None:
    """Play the seat; its key is kept on this machine first, so that `manaforge rejoin` finds it. A registered
    player is told of the challenges that come meanwhile."""
    save_seat(table_id, token)
    console = console or Console()
    stop = challenges.announce_at_table(client, console) if args.registered else (lambda: None)
    try:
        play(client, table_id, token, console=console, registered=args.registered, bell=not args.quiet)
    finally:
        stop()


def registered_only(args: argparse.Namespace) -> None:
    if not args.registered:
        sys.exit(
            "manaforge: challenges are between registered players: `manaforge register NAME` first"
            + (" (--guest plays as a guest)" if args.guest else "")
        )


def cmd_challenge(client: Client, args: argparse.Namespace) -> None:
    registered_only(args)
    info = next((g for g in client.games() if g.name == args.game), None)
    if info is None:
        sys.exit(f"manaforge: no game named {args.game!r}: `manaforge games` lists them")
    seats = args.seats or info.min_seats
    others = [gw.SeatRequest(bot=not args.open, bot_level="" if args.open else args.bot) for _ in range(seats - 2)]
    config = GameConfig(game=args.game, seats=seats, options=dict(args.option))
    request = gw.CreateChallengeRequest(player_name=args.player, config=config, others=others)
    if args.clock is not None:
        request.time_control.CopyFrom(gw.TimeControl(decision_seconds=args.clock))
    challenges.challenge(client, request, print, lambda table_id, token: sit(client, args, table_id, token))


def cmd_challenges(client: Client, args: argparse.Namespace) -> None:
    registered_only(args)
    challenges.list_challenges(client, print)


def cmd_accept(client: Client, args: argparse.Namespace) -> None:
    registered_only(args)
    challenges.accept(client, args.challenge, print, lambda table_id, token: sit(client, args, table_id, token))


def cmd_decline(client: Client, args: argparse.Namespace) -> None:
    registered_only(args)
    challenges.decline(client, args.challenge, *challenges.split_reason(args.text), print)


def cmd_refuse(client: Client, args: argparse.Namespace) -> None:
    registered_only(args)
    challenges.refuse(client, args.what, print)


def cmd_lobby(client: Client, args: argparse.Namespace) -> None:
    registered_only(args)
    console = Console()
    table = challenges.Lobby(client, print, console).run()
    if table is not None:
        sit(client, args, *table, console=console)


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
        who = "the operator" if logged.seat < 0 else in_names(f"seat {logged.seat}", names)  # an ended table's entry
        print(f"v{logged.version:<4} {who}: {in_names(logged.text, names)}")
        for text in events_by_version.get(logged.version, []):
            print(f"        {in_names(text, names)}")
    if log.table.outcome.finished:
        print(as_sentence(result_in_words(log.table.outcome, names=names)))
    else:
        print("the game is not finished")
    print(f"replay validation: {log.table.replay_verdict or 'pending'}")
