"""`make scale`: hosted play over a Redis Cluster on this machine, and what it says about N machines.

    python -m deploy.scale [--gateways 1,2,4] [--matches 64,256] [--rules 1] [--workers 1] [--seconds 8]
                           [--sharded-pubsub auto|on|off]

For each number of gateways: a 3-primary + 3-replica Redis Cluster on loopback (every move acknowledged once the
primary's replica has it), a broker Redis for Celery, the gateways, rules services and workers, and the peers' workload
(deploy/peerload.py) at each number of concurrent matches; then the keys on each primary. Last, one primary is killed
in the middle of a run: its replica takes over, the killed node is started again (as an operator or Kubernetes would)
and rejoins as a replica, and every table's log is checked against what the clients were acknowledged.

Two cores cap what one machine shows, so the figure to carry to N machines is the CPU per move of each process kind:
docs/scaling.md turns it into a capacity model.
"""

from __future__ import annotations

import argparse
import threading
import time
from typing import Any

import redis
from manaforge.v1.gateway_pb2 import LoggedAction

from deploy.bench import peer_run, print_peer, say
from deploy.launcher import LOOPBACK_LIMITS, Stack
from services.tables import keys


def primaries(stack: Stack) -> dict[str, str]:
    """Primary "host:port" -> the stack's process name, from the live slot map."""
    found = {primary for _, _, primary in stack.slot_map()}
    return {address: f"redis-node-{stack.cluster_nodes.index(address)}" for address in sorted(found)}


def key_counts(stack: Stack) -> dict[str, int]:
    return {name: int(redis.Redis.from_url(f"redis://{a}/0").dbsize()) for a, name in primaries(stack).items()}


def process_kinds(cpu_ms: dict[str, float]) -> dict[str, float]:
    """CPU ms per move summed by kind of process (gateway, redis primary or replica, rules, worker, broker)."""
    kinds: dict[str, float] = {}
    for name, ms in cpu_ms.items():
        kind = "redis cluster" if name.startswith("redis-node-") else name.split("-")[0]
        kinds[kind] = kinds.get(kind, 0.0) + ms
    return kinds


def check_logs(stack: Stack) -> tuple[int, int, list[str]]:
    """Every table's stored log, on every primary: versions 1..n once each and in order, and the live version n.
    Returns (tables, moves, problems)."""
    problems: list[str] = []
    tables = moves = 0
    for address in primaries(stack):
        node = redis.Redis.from_url(f"redis://{address}/0")
        for live_key in node.scan_iter(match="mf:{s*}:*:live", count=1000):
            table_id = live_key.decode().split(":")[2]
            if table_id == "tables":
                continue  # the shard's live-tables index, not a table
            named = keys.table_keys(table_id)
            logged: Any = node.lrange(named["log"], 0, -1)
            versions = [LoggedAction.FromString(x).version for x in logged]
            live = int(node.hget(named["live"], "version") or 0)
            tables += 1
            moves += len(versions)
            if versions != list(range(1, len(versions) + 1)) or live != len(versions):
                problems.append(f"table {table_id}: log versions {versions[:3]}..., live version {live}")
    return tables, moves, problems


def failover_run(args: argparse.Namespace) -> None:
    with Stack(cluster=3, gateways=2, worker_concurrency=1, settings=dict(LOOPBACK_LIMITS)) as stack:
        victim_address, victim = next(iter(primaries(stack).items()))
        say(
            f"\nfailover: 2 gateways, {args.failover_matches} matches; {victim} ({victim_address}, a primary) is"
            f" killed {args.seconds / 2:g} s into the window and started again once its replica has taken over"
        )

        def kill_and_replace() -> None:
            time.sleep(2.0 + args.warmup + args.seconds / 2)
            stack.processes[victim].kill()
            killed = time.monotonic()
            while victim_address in primaries(stack):
                time.sleep(0.05)
            say(f"  the replica took over {time.monotonic() - killed:.1f} s after the kill")
            stack.restart(victim)

        thread = threading.Thread(target=kill_and_replace, daemon=True)
        thread.start()
        result = peer_run(stack, args.failover_matches, args.seconds, args.warmup, 1, True, True)
        thread.join(60)
        print_peer(result)
        tables, moves, problems = check_logs(stack)
        say(
            f"  after the run: {tables} tables, {moves} moves stored, every log complete and in order:"
            f" {'yes' if not problems else 'NO'}; client errors: {len(result['errors'])}"
        )
        for problem in problems[:10]:
            say(f"    {problem}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gateways", default="1,2,4")
    parser.add_argument("--matches", default="64,256")
    parser.add_argument("--rules", type=int, default=1, help="rules service processes")
    parser.add_argument("--rules-on-move-path", action="store_true", help="gateways send every move to them")
    parser.add_argument("--workers", type=int, default=1, help="Celery worker threads")
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--failover-matches", type=int, default=64)
    parser.add_argument("--skip-failover", action="store_true")
    parser.add_argument("--sharded-pubsub", default="auto", help="MANAFORGE_SHARDED_PUBSUB of every process")
    args = parser.parse_args()
    for gateways in (int(g) for g in args.gateways.split(",")):
        with Stack(
            cluster=3,
            gateways=gateways,
            rules=args.rules,
            rules_on_move_path=args.rules_on_move_path,
            worker_concurrency=args.workers,
            settings={**LOOPBACK_LIMITS, "MANAFORGE_SHARDED_PUBSUB": args.sharded_pubsub},
        ) as stack:
            path = " on the move path" if args.rules_on_move_path else ""
            say(
                f"\n{gateways} gateway(s), {args.rules} rules service(s){path}, worker x{args.workers};"
                " Redis Cluster of 3 primaries + 3 replicas (WAIT 1 on every commit)"
            )
            for matches in (int(m) for m in args.matches.split(",")):
                result = peer_run(stack, matches, args.seconds, args.warmup, 1, True, True)
                print_peer(result)
                kinds = process_kinds(result["cpu_ms"])
                say("      CPU ms per move by kind: " + ", ".join(f"{k} {v:.3f}" for k, v in sorted(kinds.items())))
            counts = key_counts(stack)
            say("  keys per primary: " + ", ".join(f"{name} {n:,}" for name, n in counts.items()))
    if not args.skip_failover:
        failover_run(args)


if __name__ == "__main__":
    main()
