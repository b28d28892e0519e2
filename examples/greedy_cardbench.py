"""A slightly smarter bot for cardbench: each seat scores the ranks of the cards it plays, so it plays the highest
card in its hand (its view shows its own hand only), and keeps track of what it played. Queues for a rated game at
two seats; a platform bot takes the other seat when no person comes within ten seconds.

    .venv/bin/python examples/greedy_cardbench.py [NAME]
"""

from __future__ import annotations

import sys

import manaforge_sdk as mf
from manaforge.v1.games.cardbench_pb2 import CardbenchAction, CardbenchState


def rank(card: int) -> int:
    """A card's rank, 1 (ace) to 13 (king): card ids are 13 * suit + rank - 1."""
    return card % 13 + 1


class Greedy:
    """A bot with a memory: an object whose call is the bot function."""

    def __init__(self) -> None:
        self.played: list[int] = []

    def __call__(self, view: CardbenchState, legal_actions: list[tuple[CardbenchAction, str]]) -> CardbenchAction:
        # the view shows our own hand only (the other's is hidden): the legal actions are its cards
        best, _ = max(legal_actions, key=lambda legal: rank(legal[0].card))
        self.played.append(best.card)
        return best


def main() -> None:
    with mf.connect() as client:
        client.register(sys.argv[1] if len(sys.argv) > 1 else "greedy_bot")
        seat = client.queue("cardbench", seats=2, fill_after=10, bot_level="heuristic")
        print(f"table {seat.table_id}: playing seat {seat.seat}")
        greedy = Greedy()
        result = client.play(seat.table_id, seat.token, greedy)
        print(result, f"- played {sum(rank(card) for card in greedy.played)} points of ranks")
        print("replay:", client.wait_verdict(seat.table_id).replay_verdict)
        for rating in client.me().ratings:
            print(f"{rating.game} at {rating.seats} seats: {rating.ordinal:.2f} after {rating.games} games")


if __name__ == "__main__":
    main()
