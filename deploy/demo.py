"""`make demo` (python -m deploy.demo): start the stack, play one bot game of every registered game through the
gateway, print each result with its replay-validation verdict, stop the stack. Exits 0 when every game finished and
validated."""

from __future__ import annotations

import time

from manaforge.v1.rules_pb2 import GameInfo

from deploy.launcher import LOOPBACK_LIMITS, Stack
from gateway.client import Client


def demo_games(games: list[GameInfo]) -> list[tuple[GameInfo, dict[str, str]]]:
    """Every game with its defaults, and once per choice of its `mode` option (a game with several modes)."""
    plays: list[tuple[GameInfo, dict[str, str]]] = []
    for info in games:
        modes = [o for o in info.options if o.name == "mode"]
        plays += [(info, {"mode": m}) for m in modes[0].choices] if modes else [(info, {})]
    return plays


def _title(info: GameInfo, options: dict[str, str]) -> str:
    return f"{info.title} ({options['mode']})" if options else info.title


def demo() -> int:
    failures = 0
    with Stack(response_timeout=2.0, settings=LOOPBACK_LIMITS) as stack, Client(stack.gateway_addresses[0]) as client:
        for info, options in demo_games(client.games()):
            started = time.monotonic()
            seats = info.min_seats
            bots = {i: "heuristic" for i in range(seats)}
            created = client.create_table(info.name, seats, bots=bots, options=options)
            try:
                table = client.wait_finished(created.table.table_id, timeout=300)
            except TimeoutError as exc:
                print(f"{_title(info, options):<36} FAILED: {exc}", flush=True)
                failures += 1
                continue
            ok = table.replay_verdict.startswith("valid")
            failures += not ok
            scores = ", ".join(f"{s:g}" for s in table.outcome.scores)
            print(
                f"{_title(info, options):<36} {seats} bots  {table.version:>5} actions"
                f"  winners {list(table.outcome.winners)}"
                f"  scores [{scores}]  {time.monotonic() - started:5.1f}s  replay {table.replay_verdict}",
                flush=True,
            )
    print("demo: every game finished and validated" if not failures else f"demo: {failures} game(s) failed")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(demo())
