"""The operator's console in a terminal: the Admin service's calls (docs/operations.md).

    python -m gateway.cli.operator overview                       # tables, queues, outbox, gateways, workers, errors
    python -m gateway.cli.operator end TABLE_ID                   # abort a table ("aborted by the operator")
    python -m gateway.cli.operator mute|ban PLAYER_ID [--for 2h] [--reason TEXT]   # --for: 90s, 30m, 2h, 7d
    python -m gateway.cli.operator clear PLAYER_ID
    python -m gateway.cli.operator notice "Maintenance at 02:00 UTC"   # or: notice --clear
    python -m gateway.cli.operator drain --gateway HOST:PORT      # drain that gateway
    python -m gateway.cli.operator audit [--limit N]

The operator key comes from MANAFORGE_OPERATOR_KEY, the gateway from --gateway (default 127.0.0.1:50051), and the
name the audit log records from --as (default $USER). TLS: --tls (the system's CAs) or --ca FILE, or
MANAFORGE_TLS_CA=system|FILE (a client certificate from MANAFORGE_TLS_CLIENT_CERT and MANAFORGE_TLS_CLIENT_KEY).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import grpc
from manaforge.v1 import admin_pb2
from manaforge.v1.admin_pb2_grpc import AdminStub

from gateway.cli.secure import add_tls_flags, authority, credentials, unreachable

STANDINGS = {
    "mute": admin_pb2.STANDING_MUTED,
    "ban": admin_pb2.STANDING_BANNED,
    "clear": admin_pb2.STANDING_UNSPECIFIED,
}
UNITS = {"s": 1, "m": 60, "h": 3_600, "d": 86_400}


def duration(text: str) -> int:
    """Seconds of "90s", "30m", "2h", "7d" (or plain seconds)."""
    number, unit = (text[:-1], text[-1]) if text[-1:] in UNITS else (text, "s")
    if not number.isdigit():
        raise argparse.ArgumentTypeError(f"a duration such as 90s, 30m, 2h or 7d, not {text!r}")
    return int(number) * UNITS[unit]


def utc(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(at)) + " UTC"


def show_overview(overview: admin_pb2.Overview) -> None:
    if overview.notice:
        print(f"notice: {overview.notice}")
    print("tables (playing / open):")
    for tables in overview.tables:
        if tables.playing or tables.open:
            print(f"  {tables.game:<14} {tables.playing:>6} / {tables.open}")
    print(f"streams online: {overview.streams_online}")
    print(f"outbox: {overview.outbox_items} items, most overdue {overview.outbox_lag_seconds:.1f} s")
    for queue in overview.queues:
        print(f"queue {queue.queue}: {queue.waiting} waiting, oldest {queue.oldest_wait_seconds:.0f} s")
    for gateway in overview.gateways:
        state = " (draining)" if gateway.draining else ""
        print(f"gateway {gateway.address}: {gateway.streams} streams{state}, seen {gateway.seen_seconds_ago:.0f} s ago")
    for worker in overview.workers:
        print(f"worker {worker.name}: seen {worker.seen_seconds_ago:.0f} s ago")
    if not overview.workers:
        print("workers: NONE seen in the last 30 s")
    for name, count in sorted(overview.errors.items()):
        print(f"errors {name}: {count:g}")
    for label, players in (("muted", overview.muted), ("banned", overview.banned)):
        if players:
            ends = overview.standing_until
            print(f"{label}: " + ", ".join(f"{p} (until {utc(ends[p])})" if p in ends else p for p in players))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gateway", default=os.environ.get("MANAFORGE_GATEWAY") or "127.0.0.1:50051")
    add_tls_flags(parser)
    parser.add_argument("--as", dest="who", default=os.environ.get("USER", "operator"), help="your name, for the audit")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("overview")
    commands.add_parser("end").add_argument("table_id")
    for name in STANDINGS:
        standing = commands.add_parser(name)
        standing.add_argument("player_id")
        if name != "clear":
            standing.add_argument("--reason", default="", help="told to the player, and kept in the audit log")
            standing.add_argument(
                "--for", dest="duration", type=duration, default=0, help="e.g. 2h (default: until cleared)"
            )
    notice = commands.add_parser("notice")
    notice.add_argument("text", nargs="?", default="")
    notice.add_argument("--clear", action="store_true")
    commands.add_parser("drain")
    commands.add_parser("audit").add_argument("--limit", type=int, default=20)
    args = parser.parse_args(argv)
    metadata = (("x-operator-key", os.environ.get("MANAFORGE_OPERATOR_KEY", "")), ("x-operator-name", args.who))
    tls = credentials(args)
    with grpc.secure_channel(args.gateway, tls) if tls else grpc.insecure_channel(args.gateway) as channel:
        admin = AdminStub(channel)
        try:
            if args.command == "overview":
                show_overview(admin.GetOverview(admin_pb2.GetOverviewRequest(), metadata=metadata, timeout=30))
                return
            if args.command == "audit":
                log = admin.GetAuditLog(admin_pb2.GetAuditLogRequest(limit=args.limit), metadata=metadata, timeout=30)
                for entry in log.entries:
                    when = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(entry.at))
                    print(f"{when} UTC  {entry.who}  {entry.action}: {entry.what}")
                return
            if args.command == "end":
                done = admin.EndTable(admin_pb2.EndTableRequest(table_id=args.table_id), metadata=metadata, timeout=30)
            elif args.command in STANDINGS:
                request = admin_pb2.SetPlayerStandingRequest(
                    player_id=args.player_id,
                    standing=STANDINGS[args.command],
                    reason=getattr(args, "reason", ""),
                    duration_seconds=getattr(args, "duration", 0),
                )
                done = admin.SetPlayerStanding(request, metadata=metadata, timeout=30)
            elif args.command == "notice":
                if not args.text and not args.clear:
                    parser.error("notice: give the text, or --clear")
                text = "" if args.clear else args.text
                done = admin.SetNotice(admin_pb2.SetNoticeRequest(text=text), metadata=metadata, timeout=30)
            else:
                done = admin.DrainGateway(admin_pb2.DrainGatewayRequest(), metadata=metadata, timeout=30)
            print(done.done)
        except grpc.RpcError as exc:
            details = exc.details() or ""
            if exc.code() == grpc.StatusCode.UNAVAILABLE and ("connect" in details or "handshake" in details.lower()):
                details = unreachable(args.gateway, authority(args), details)
            print(f"manaforge operator: {exc.code().name}: {details}", file=sys.stderr)
            raise SystemExit(1) from None


if __name__ == "__main__":
    main()
