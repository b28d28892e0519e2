"""`make bench`: engine speed per game, and move latency and throughput through the real stack.

    python -m deploy.bench [--seconds S] [--skip-engine] [--skip-stack]

1. Engine: random-playout actions/s per registered game, on one core (legal_actions + apply per action).
2. Latency, 1 game of cardbench: submit -> ack, and submit -> event received by the other seat's watcher (p50/p99).
3. Throughput: cardbench at 1, 16 and 64 concurrent matches (a new match after each 100-move match), moves/s.
The load clients run on the same machine as the stack. Figures are printed side by side from one run.
"""

from __future__ import annotations

import argparse
import random
import statistics
import threading
import time
from typing import Any

import psutil
from manaforge.v1.common_pb2 import GameConfig
from manaforge.v1.games.cardbench_pb2 import CardbenchAction, CardbenchState

from deploy.launcher import Stack
from engine_core import GAMES, Game
from gateway.client import Client, pack


def engine_rate(game: Game[Any, Any], seconds: float) -> tuple[float, int]:
    """Random playouts for `seconds`: (actions per second, games played)."""
    rand = random.Random(1)
    seats = game.info.min_seats
    actions = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_game(GameConfig(game=game.info.name, seats=seats), rand.getrandbits(63))
        while not game.is_terminal(state):
            seat = rand.choice(game.pending_seats(state))
            state, _ = game.apply(state, seat, rand.choice(game.legal_actions(state, seat)))
            actions += 1
        games += 1
    return actions / (time.perf_counter() - start), games


def percentile(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


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


def latency(stack: Stack, moves: int) -> dict[str, list[float]]:
    client = Client(stack.gateway_addresses[0])
    watcher = Client(stack.gateway_addresses[0])
    acks: list[float] = []
    events: list[float] = []
    received: dict[int, float] = {}
    match = Match(client)
    ready = threading.Event()

    def follow(table_id: str, token: str) -> None:
        for update in watcher.watch(table_id, token):
            received[update.view.version] = time.perf_counter()
            ready.set()
            if update.view.outcome.finished:
                return

    while len(acks) < moves:
        ready.clear()
        thread = threading.Thread(target=follow, args=(match.table_id, match.tokens[1]), daemon=True)
        thread.start()
        ready.wait(5)
        while match.moves < 100:
            sent = time.perf_counter()
            match.move()
            acks.append(time.perf_counter() - sent)
            deadline = time.perf_counter() + 2
            while match.moves not in received and time.perf_counter() < deadline:
                time.sleep(0)
            events.append(received[match.moves] - sent)
        thread.join(5)
        received.clear()
        match = Match(client)
    client.close()
    watcher.close()
    return {"submit -> ack": acks, "submit -> other seat's event": events}


def throughput(stack: Stack, matches: int, seconds: float) -> tuple[float, int]:
    """Moves/s with `matches` concurrent cardbench matches, each started anew after its 100 moves."""
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--skip-engine", action="store_true")
    parser.add_argument("--skip-stack", action="store_true")
    args = parser.parse_args()
    if not args.skip_engine:
        print("engine: random playouts on one core (target >= 100,000 actions/s)")
        for game in GAMES:
            rate, games = engine_rate(game, args.seconds)
            print(f"  {game.info.name:<14} {rate:>10,.0f} actions/s  ({games} games)", flush=True)
    if args.skip_stack:
        return
    with Stack(gateways=2, worker_concurrency=1) as stack:
        print("\nlatency through the stack, 1 cardbench game (targets: submit -> event p50 <= 2 ms)")
        for name, samples in latency(stack, 1000).items():
            ms = [s * 1000 for s in samples]
            print(
                f"  {name:<30} p50 {percentile(ms, 50):6.2f} ms   p99 {percentile(ms, 99):6.2f} ms  "
                f"(mean {statistics.fmean(ms):.2f}, n={len(ms)})",
                flush=True,
            )
        print("\nthroughput, cardbench matches of 100 moves (target: >= 1,200 moves/s at 64)")
        for matches in (1, 16, 64):
            rate, done = throughput(stack, matches, args.seconds * 2)
            print(f"  {matches:>3} concurrent matches  {rate:>8,.0f} moves/s  ({done} matches finished)", flush=True)
        print("\nmemory after the runs (resident set size)")
        for name, process in stack.processes.items():
            rss = psutil.Process(process.pid).memory_info().rss / 2**20
            print(f"  {name:<12} {rss:7.1f} MiB", flush=True)


if __name__ == "__main__":
    main()
