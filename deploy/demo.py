"""`make demo`: start the stack, play one bot game of every registered game through the gateway, print each
result with its replay-validation verdict, stop the stack. Exits 0 when every game finished and validated."""

from __future__ import annotations

import time

from deploy.launcher import Stack
from gateway.client import Client


def demo() -> int:
    failures = 0
    with Stack(response_timeout=2.0) as stack, Client(stack.gateway_addresses[0]) as client:
        for info in client.games():
            started = time.monotonic()
            seats = info.min_seats
            created = client.create_table(info.name, seats, bots={i: "random" for i in range(seats)})
            try:
                table = client.wait_finished(created.table.table_id, timeout=300)
            except TimeoutError as exc:
                print(f"{info.title:<28} FAILED: {exc}", flush=True)
                failures += 1
                continue
            ok = table.replay_verdict.startswith("valid")
            failures += not ok
            scores = ", ".join(f"{s:g}" for s in table.outcome.scores)
            print(
                f"{info.title:<28} {seats} bots  {table.version:>5} actions  winners {list(table.outcome.winners)}"
                f"  scores [{scores}]  {time.monotonic() - started:5.1f}s  replay {table.replay_verdict}",
                flush=True,
            )
    print("demo: every game finished and validated" if not failures else f"demo: {failures} game(s) failed")
    return 1 if failures else 0
