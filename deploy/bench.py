"""`make bench`: engine speed beside RLCard's UNO, the peers' workload through the real stack, unary-only
throughput, and one gateway holding many Watch streams. Every figure comes from this one run.

    python -m deploy.bench [--seconds S] [--warmup S] [--gateways N] [--streams N] [--skip-engine] [--skip-stack]
                           [--only engine,peer,unary,connections,games] [--own-results] [--game-tables N]
                           [--game-seconds S]

1. Engine: each game's random-playout steps/s on one core, and its ratio to RLCard's UNO in the same run.
2. The peers' workload (`../shared/peers/bgio/README.md`): cardbench matches of 100 moves, both seats watching and
   the seat to move playing as soon as its own update arrives; 1, 16 and 64 concurrent matches, a timed window after
   a warm-up. Moves/s, p50/p99/p999 of move sent -> the other seat's update, server CPU ms per move for each process
   (utime+stime from /proc over the window) and the load clients' CPU, Redis commands per move. On Play streams
   each move's answer comes inside its update (WatchRequest.results_in_updates; `--own-results`: a message of its own).
3. The same workload with the rules service on the move path (2 rules processes, round robin).
4. The same workload with a Redis replica that every move waits for (WAIT 1): the cost of surviving a failover.
5. Unary only: the same matches driven by SubmitAction answers alone (no watchers), moves/s.
6. Retention: Redis memory per live and per archived game, and while thousands of games are played and archived.
7. Connections: one gateway process holding `--streams` spectator streams over 100 tables while 4 tables play;
   the gateway's memory per stream and SubmitAction / ListGames p50/p99 meanwhile.
8. Every game (deploy/gamebench.py): `--game-tables` tables of each registered game played by scripted clients
   (Watch + SubmitAction per seat, a uniformly random legal action each decision, no bots) for `--game-seconds`;
   moves/s, p50/p99, server CPU ms per move by process, and the rules' own µs per move beside them.
The load clients run on the same machine as the stack (2 cores here): CPU per move is the figure that carries over.
"""

from __future__ import annotations

import argparse
import multiprocessing
import subprocess
import sys
import threading
import time
from typing import Any

import psutil
import redis
from manaforge.v1.games.cardbench_pb2 import CardbenchAction, CardbenchState

from deploy.connections import connection_run, percentile, stack_settings, summary
from deploy.gamebench import games_lines, games_section
from deploy.launcher import LOOPBACK_LIMITS, Stack
from deploy.peerload import LoadResult, Window, cpu_seconds, first_errors, load_process, merge, spread
from deploy.retention_bench import retention_run
from gateway.client import Client, pack

CONCURRENCY = (1, 16, 64)


def say(line: str) -> None:
    print(line, flush=True)


# ----- the peers' workload ------------------------------------------------------------------------------------


def redis_calls(stack: Stack) -> dict[str, int]:
    """Commands the game data's Redis ran so far (every primary's, on a cluster), and on a cluster "bus": the pub/sub
    messages its nodes sent each other (CLUSTER INFO: a PUBLISH goes to every other node, an SPUBLISH to its shard's
    replicas)."""
    calls: dict[str, int] = {}
    for url in [f"redis://{node}/0" for node in stack.cluster_nodes] or [stack.redis_url]:
        client = redis.Redis.from_url(url)
        try:
            if stack.cluster_nodes:
                info: Any = client.execute_command("CLUSTER INFO")  # type: ignore[no-untyped-call]
                sent = [v for k, v in info.items() if k.startswith("cluster_stats_messages_publish") and "_sent" in k]
                calls["bus"] = calls.get("bus", 0) + sum(int(v) for v in sent)
            if client.info("replication").get("role") != "master":
                continue
            stats = client.info("commandstats")
        except redis.ConnectionError:
            continue  # a node killed on purpose (make scale's failover)
        for name, v in stats.items():
            calls[name.removeprefix("cmdstat_")] = calls.get(name.removeprefix("cmdstat_"), 0) + int(v["calls"])
    return calls


def peer_run(
    stack: Stack,
    matches: int,
    seconds: float,
    warmup: float,
    loaders: int,
    lean: bool,
    play: bool,
    folded: bool = True,
) -> dict[str, Any]:
    """One level of the peers' workload: returns moves/s, latencies and CPU per move by process."""
    context = multiprocessing.get_context("spawn")
    out: Any = context.Queue()
    start = time.time() + 2.0 + warmup  # the load processes need about 2 s to start
    window = Window(start, start + seconds)
    parts = spread(matches, loaders)
    workers = [
        context.Process(target=load_process, args=(stack.gateway_addresses, n, window, lean, play, out, folded))
        for n in parts
    ]
    for worker in workers:
        worker.start()
    server = {name: psutil.Process(p.pid) for name, p in stack.processes.items()}
    time.sleep(max(0.0, window.start - time.time()))
    before = {name: cpu_seconds(p) for name, p in server.items()}
    calls_before = redis_calls(stack)
    time.sleep(max(0.0, window.end - time.time()))
    after = {name: cpu_seconds(p) if p.is_running() else before[name] for name, p in server.items()}  # gone: killed
    calls_after = redis_calls(stack)
    results: list[LoadResult] = [out.get(timeout=60) for _ in workers]
    for worker in workers:
        worker.join(10)
    load = merge(results)
    moves = max(1, load.moves)
    cpu = {name: (after[name] - before[name]) * 1000 / moves for name in server}
    calls = {k: calls_after.get(k, 0) - calls_before.get(k, 0) for k in calls_after}
    return {
        "matches": matches,
        "moves_per_s": load.moves / seconds,
        "p50": percentile(load.latencies_ms, 50),
        "p99": percentile(load.latencies_ms, 99),
        "p999": percentile(load.latencies_ms, 99.9),
        "cpu_ms": cpu,
        "server_cpu_ms": sum(cpu.values()),
        "load_cpu_ms": load.cpu_seconds * 1000 / moves,
        "redis_per_move": {k: v / moves for k, v in calls.items() if v / moves >= 0.05 and k != "info"},
        "finished": load.matches,
        "errors": first_errors(load.errors),
    }


def print_peer(result: dict[str, Any]) -> None:
    cpu = "  ".join(f"{name} {ms:.3f}" for name, ms in result["cpu_ms"].items() if ms >= 0.0005)
    say(
        f"  {result['matches']:>3} matches  {result['moves_per_s']:>7,.0f} moves/s  p50 {result['p50']:6.2f} ms"
        f"  p99 {result['p99']:6.2f} ms  p999 {result['p999']:6.2f} ms"
        f"  server CPU {result['server_cpu_ms']:.3f} ms/move ({cpu})"
        f"  load clients {result['load_cpu_ms']:.3f} ms/move  ({result['finished']} matches finished)"
    )
    per_move = ", ".join(f"{k} {v:.2f}" for k, v in sorted(result["redis_per_move"].items()))
    say(f"      redis commands per move: {per_move}")
    if result["errors"]:
        say(f"      errors: {'; '.join(result['errors'])}")


# ----- unary only ----------------------------------------------------------------------------------------------


class Match:
    """One cardbench match driven by one client, tracking both hands from the answers (one RPC per move)."""

    def __init__(self, client: Client) -> None:
        self.client = client
        created = client.create_table("cardbench", 2, player_name="a")
        self.table_id = created.table.table_id
        self.tokens = [created.seat_token, client.join(self.table_id, "b").seat_token]
        self.hands: list[list[int]] = []
        for seat, token in enumerate(self.tokens):
            view = CardbenchState()
            client.view(self.table_id, token).view.Unpack(view)
            self.hands.append(list(view.hands[seat].cards))
        self.moves = 0

    def move(self) -> None:
        seat = self.moves % 2
        card = self.hands[seat].pop(0)
        done = self.client.submit(
            self.table_id, self.tokens[seat], pack(CardbenchAction(card=card)), client_action_id=f"m{self.moves}"
        )
        self.hands[seat] += [e.cards[0] for e in done.events if e.type == "CardDrawn"]
        self.moves += 1


def unary_throughput(stack: Stack, matches: int, seconds: float) -> tuple[float, int]:
    """Moves/s with `matches` concurrent cardbench matches (threads, one RPC per move), each started anew after its
    100 moves."""
    stop = time.perf_counter() + seconds
    counts = [0] * matches
    finished = [0] * matches

    def drive(i: int) -> None:
        with Client(stack.gateway_addresses[i % len(stack.gateway_addresses)]) as client:
            match = Match(client)
            while time.perf_counter() < stop:
                if match.moves == 100:
                    finished[i] += 1
                    match = Match(client)
                match.move()
                counts[i] += 1

    threads = [threading.Thread(target=drive, args=(i,)) for i in range(matches)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(counts) / (time.perf_counter() - start), sum(finished)


# ----- main ----------------------------------------------------------------------------------------------------


def peer_levels(stack: Stack, args: argparse.Namespace, levels: list[int], play: bool) -> None:
    """The peers' workload at each number of concurrent matches, printed as it is measured."""
    for matches in levels:
        lean = not args.full_updates
        print_peer(peer_run(stack, matches, args.seconds, args.warmup, args.loaders, lean, play, not args.own_results))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=10.0, help="timed window of each stack run")
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--engine-seconds", type=float, default=3.0)
    parser.add_argument("--gateways", type=int, default=2)
    parser.add_argument("--loaders", type=int, default=1, help="load client processes")
    parser.add_argument("--streams", type=int, default=50_000, help="Watch streams of the connections run")
    parser.add_argument("--full-updates", action="store_true", help="updates with rendered text and legal actions")
    parser.add_argument(
        "--own-results", action="store_true", help="Play: each move's answer as a message of its own, not in its update"
    )
    parser.add_argument("--matches", default=",".join(map(str, CONCURRENCY)))
    parser.add_argument("--skip-engine", action="store_true")
    parser.add_argument("--skip-stack", action="store_true")
    parser.add_argument("--only", default="engine,peer,remote,replica,unary,connections,retention,games", help="runs")
    parser.add_argument("--game-tables", type=int, default=16, help="tables of each game at once (the games run)")
    parser.add_argument("--game-seconds", type=float, default=5.0, help="timed window of each game (the games run)")
    parser.add_argument("--games", type=int, default=10_000, help="games of the retention run")
    parser.add_argument("--archive-ttl", type=float, default=60.0, help="archive lifetime in the retention run")
    args = parser.parse_args()
    runs = set(args.only.split(","))
    if "engine" in runs and not args.skip_engine:  # in a process of its own, as `python -m deploy.enginebench` runs
        # it: the stack client, grpc and redis imported here are about 25,000 more objects for every full collection
        # of the GC to walk, and the engines' figures would depend on what this harness imports
        command = [sys.executable, "-m", "deploy.enginebench", "--seconds", str(args.engine_seconds)]
        subprocess.run(command, check=True)
    if args.skip_stack:
        return
    levels = [int(m) for m in args.matches.split(",")]
    if "peer" in runs or "unary" in runs:
        with Stack(gateways=args.gateways, worker_concurrency=1, settings=LOOPBACK_LIMITS) as stack:
            if "peer" in runs:
                lean = not args.full_updates
                for play in (True, False):
                    how = "one Play stream per seat" if play else "Watch + SubmitAction per seat"
                    say(
                        f"\nthe peers' workload ({how}): cardbench, both seats receiving every update,"
                        f" {args.gateways} gateway(s) + redis + worker + rules, {args.loaders} load process(es),"
                        f" {args.warmup:g} s warm-up + {args.seconds:g} s window,"
                        f" updates {'without' if lean else 'with'} text and legal actions"
                    )
                    peer_levels(stack, args, levels, play)
            if "unary" in runs:
                say("\nunary only (no watchers): cardbench matches of 100 moves, one thread per match")
                for matches in levels:
                    rate, done = unary_throughput(stack, matches, args.seconds)
                    say(f"  {matches:>3} matches  {rate:>8,.0f} moves/s  ({done} matches finished)")
            say("\nmemory after the runs (resident set size)")
            for name, process in stack.processes.items():
                say(f"  {name:<12} {psutil.Process(process.pid).memory_info().rss / 2**20:7.1f} MiB")
    if "games" in runs:
        with Stack(gateways=args.gateways, worker_concurrency=1, settings=LOOPBACK_LIMITS) as stack:
            say(
                f"\nevery game through the stack: {args.game_tables} tables of each at its minimum seat count, every"
                " seat a scripted client (Watch + SubmitAction, a random legal action each decision, no bots),"
                f" {args.gateways} gateway(s) + redis + worker, {args.warmup:g} s warm-up + {args.game_seconds:g} s"
                " window each; the rules' own cost per move measured in this process"
            )
            rows = games_section(stack, args.game_tables, args.game_seconds, args.warmup)
            for line in games_lines(rows):
                say("  " + line)
    if "remote" in runs:
        with Stack(
            gateways=args.gateways, rules=2, rules_on_move_path=True, worker_concurrency=1, settings=LOOPBACK_LIMITS
        ) as stack:
            say(
                f"\nthe peers' workload with the rules service on the move path (one Play stream per seat):"
                f" {args.gateways} gateway(s) sending every move to 2 rules processes (round robin)"
            )
            peer_levels(stack, args, levels, play=True)
    if "replica" in runs:
        with Stack(gateways=args.gateways, replica=True, worker_concurrency=1, settings=dict(LOOPBACK_LIMITS)) as stack:
            say(
                "\nthe peers' workload with a Redis replica and every move acknowledged once the replica has it"
                " (MANAFORGE_REDIS_REPLICAS=1, WAIT), one Play stream per seat"
            )
            peer_levels(stack, args, levels, play=True)
    if "retention" in runs:
        settings = {**LOOPBACK_LIMITS, "MANAFORGE_ARCHIVE_AFTER": "1", "MANAFORGE_ARCHIVE_TTL": str(args.archive_ttl)}
        with Stack(gateways=1, worker_concurrency=2, settings=settings) as stack:
            say(
                f"\nretention: {args.games:,} cardbench games played and archived (archives kept"
                f" {args.archive_ttl:g} s here, 30 days by default)"
            )
            memory = retention_run(stack.redis_url, stack.gateway_addresses[0], args.games, say=say)
            say(
                f"  redis per live game (finished, not yet archived) {memory['live_kib']:.1f} KiB;"
                f" per archived game {memory['archived_kib']:.1f} KiB; redis used memory"
                f" {memory['first_mib']:.1f} MiB after the first tenth, {memory['last_mib']:.1f} MiB at the end"
                f" ({memory['archives']:.0f} archives held)"
            )
    if "connections" in runs:
        with Stack(gateways=1, worker_concurrency=1, settings=stack_settings(args.streams)) as stack:
            say(f"\nconnections: one gateway process holding {args.streams:,} Watch streams over 100 tables")
            figures = connection_run(
                stack.gateway_addresses[0], stack.processes["gateway-0"].pid, args.streams, say=say
            )
            say(summary(figures))


if __name__ == "__main__":
    main()
