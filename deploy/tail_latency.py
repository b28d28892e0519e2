"""Where the peers' workload's tail latency comes from: the same Play run with the worker on, with the worker paused
for the window (SIGSTOP of it and its children), and with one gateway instead of two.

    python -m deploy.tail_latency [--matches 64] [--rounds 2]

Each line: moves/s, p50 / p99 / p999 ms of a move sent -> the other seat's update, server CPU ms per move by process.
"""

from __future__ import annotations

import argparse
import signal
from typing import Any

import psutil

from deploy.bench import peer_run
from deploy.launcher import LOOPBACK_LIMITS, Stack


def show(label: str, r: dict[str, Any]) -> None:
    cpu = " ".join(f"{k} {v:.3f}" for k, v in r["cpu_ms"].items() if v >= 0.0005)
    print(
        f"{label:<26} {r['moves_per_s']:>7,.0f} moves/s  p50 {r['p50']:6.2f}  p99 {r['p99']:6.2f}"
        f"  p999 {r['p999']:6.2f} ms  CPU {r['server_cpu_ms']:.3f} ms/move ({cpu})",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    for _ in range(args.rounds):
        with Stack(gateways=2, worker_concurrency=1, settings=LOOPBACK_LIMITS) as stack:
            show("2 gateways, worker on", peer_run(stack, args.matches, 10, 3, 1, True, True))
            worker = psutil.Process(stack.processes["worker"].pid)
            paused = [worker, *worker.children(recursive=True)]
            for process in paused:
                process.send_signal(signal.SIGSTOP)
            try:
                show("2 gateways, worker paused", peer_run(stack, args.matches, 10, 3, 1, True, True))
            finally:
                for process in paused:
                    process.send_signal(signal.SIGCONT)
        with Stack(gateways=1, worker_concurrency=1, settings=LOOPBACK_LIMITS) as stack:
            show("1 gateway, worker on", peer_run(stack, args.matches, 10, 3, 1, True, True))


if __name__ == "__main__":
    main()
