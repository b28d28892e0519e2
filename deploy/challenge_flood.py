"""How far one hostile account floods players with challenges, on a stack of its own (one Redis, two gateways):

- burst: 60 CreateChallenge calls at once from one account (over both gateways), to one player and to 60 players:
  how many challenges were made (the addresses' rate limits lifted, LOOPBACK_LIMITS: the table service's limits are
  what is measured);
- flood: for `--seconds` (60), one account challenges a player again as soon as it is let, the player declining each
  at once: how many challenges the player received (the platform's default rate limits).

    python -m deploy.challenge_flood                  # both, about 2 minutes
    python -m deploy.challenge_flood --seconds 10     # a shorter flood
"""

from __future__ import annotations

import argparse
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import grpc
from manaforge.v1 import gateway_pb2 as gw
from manaforge.v1.common_pb2 import GameConfig

from deploy.launcher import LOOPBACK_LIMITS, Stack
from gateway.client import Client

CALLS = 60


@dataclass
class Account:
    player_id: str
    clients: list[Client]  # one per gateway


def register(stack: Stack, prefix: str) -> Account:
    with Client(stack.gateway_addresses[0]) as anonymous:
        made = anonymous.stub.RegisterPlayer(gw.RegisterPlayerRequest(name=f"{prefix}{uuid.uuid4().hex[:8]}"))
    player = (made.player_id, made.secret_key)
    return Account(made.player_id, [Client(address, player=player) for address in stack.gateway_addresses])


def challenge(whom: str) -> gw.CreateChallengeRequest:
    return gw.CreateChallengeRequest(player_id=whom, config=GameConfig(game="cardbench", seats=2))


def burst(stack: Stack, many: bool) -> int:
    """Challenges made by CALLS calls at once from one account: to one player, or each to another (`many`)."""
    hostile = register(stack, "hostile")
    targets = [register(stack, "target").player_id for _ in range(CALLS if many else 1)]

    def one(n: int) -> bool:
        try:
            hostile.clients[n % 2].stub.CreateChallenge(challenge(targets[n % len(targets)]))
        except grpc.RpcError:
            return False
        return True

    with ThreadPoolExecutor(CALLS) as pool:
        return sum(pool.map(one, range(CALLS)))


def flood(stack: Stack, seconds: float) -> tuple[int, int]:
    """Challenges a declining player received from one account in `seconds`, and the calls refused."""
    hostile, victim = register(stack, "hostile"), register(stack, "victim")
    received = refused = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            made = hostile.clients[0].stub.CreateChallenge(challenge(victim.player_id))
        except grpc.RpcError:
            refused += 1
            time.sleep(0.05)
            continue
        received += 1
        victim.clients[0].stub.DeclineChallenge(gw.DeclineChallengeRequest(challenge_id=made.challenge_id))
    return received, refused


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60.0, help="how long the flood lasts (default 60)")
    args = parser.parse_args()
    with Stack(gateways=2, settings=LOOPBACK_LIMITS) as stack:
        print(f"burst, one account to one player, {CALLS} calls at once: challenges made: {burst(stack, False)}")
        print(f"burst, one account to {CALLS} players, {CALLS} calls at once: challenges made: {burst(stack, True)}")
    with Stack(gateways=2) as stack:
        received, refused = flood(stack, args.seconds)
        print(
            f"flood, one account against a player declining each at once, {args.seconds:g} s: challenges received:"
            f" {received} ({refused} calls refused)"
        )


if __name__ == "__main__":
    main()
