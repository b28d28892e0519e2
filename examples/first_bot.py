"""Your first bot: plays a rated game of cardbench against the platform's heuristic bot (docs/sdk.md)."""

import random
import sys

import manaforge_sdk as mf


def bot(view: mf.View, legal_actions: mf.LegalActions) -> mf.Action:
    """view: the game as your seat sees it; legal_actions: [(action, "what it does, in words"), ...]."""
    action, _text = random.choice(legal_actions)
    return action


client = mf.connect()  # the gateway of `make run`: 127.0.0.1:50051 (or MANAFORGE_GATEWAY)
client.register(sys.argv[1] if len(sys.argv) > 1 else "first_bot")  # once; then the saved key
seat = client.create_table("cardbench", bots={1: "heuristic"})
print(f"table {seat.table_id}: playing seat {seat.seat}")
print(client.play(seat.table_id, seat.token, bot))
print("replay:", client.wait_verdict(seat.table_id).replay_verdict)  # validated: now it is rated
