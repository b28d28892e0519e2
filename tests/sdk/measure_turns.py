"""How many of a bot's decisions the SDK makes, and how many the platform's stand-in has to make for it: one
15-round MANA BURN game through `client.play` against the platform's random bot, on a stack of its own started here
(the platform's clocks unless given). A decision the stand-in took is in the game's log under the server's id:
`clock:<version>` (the seat's clock ran out, or the seat is away) or `timeout:<version>` (a response window's pass).

    .venv/bin/python -m tests.sdk.measure_turns [--clock 120] [--response-timeout 30] [--budget 600]

Prints one line: the SDK's decisions, the stand-in's, the wall time, whether the game finished within `budget`."""

from __future__ import annotations

import argparse
import random
import threading
import time

import manaforge_sdk as mf

from deploy.launcher import LOOPBACK_LIMITS, Stack

STAND_IN = ("clock:", "timeout:")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clock", type=float, default=120.0, help="seconds per decision (the platform's default)")
    parser.add_argument("--response-timeout", type=float, default=30.0, help="seconds to answer a response window")
    parser.add_argument("--budget", type=float, default=600.0, help="wall seconds before the count is taken")
    args = parser.parse_args()
    asked = 0

    def bot(view: mf.View, legal_actions: mf.LegalActions) -> mf.Action:
        nonlocal asked
        asked += 1
        return random.choice(legal_actions)[0]

    with (
        Stack(response_timeout=args.response_timeout, settings=LOOPBACK_LIMITS) as stack,
        mf.connect(stack.gateway_addresses[0]) as client,
    ):
        seat = client.create_table(
            "mana_burn", 2, {1: "random"}, options={"turn_limit": "15"}, name="measure (guest)", clock=args.clock
        )
        started = time.monotonic()
        player = threading.Thread(target=client.play, args=(seat.table_id, seat.token, bot), daemon=True)
        player.start()
        player.join(args.budget)
        wall = time.monotonic() - started
        table = client.table(seat.table_id)
        if table.outcome.finished:  # the log (with the server's ids) is published once the game is over
            ours = [a for a in client.log(seat.table_id).actions if a.seat == seat.seat]
            stand_in = sum(a.client_action_id.startswith(STAND_IN) for a in ours)
            counts = f"{len(ours) - stand_in} decisions by the SDK, {stand_in} by the stand-in, {len(ours)} in all"
        else:
            counts = f"NOT finished at version {table.version}, away: {table.seats[seat.seat].away}"
    print(
        f"mana_burn (15 rounds) vs random: {counts}; bot asked {asked} times; {wall:.1f} s"
        f" (clock {args.clock:g} s, response timeout {args.response_timeout:g} s)"
    )


if __name__ == "__main__":
    main()
