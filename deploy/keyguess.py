"""How fast one gateway lets a caller guess the operator key: wrong keys sent as fast as one client can for a few
seconds, counted by the gateway's answer (PERMISSION_DENIED: the key was checked; RESOURCE_EXHAUSTED: refused
unchecked, the Admin service being locked).

    python -m deploy.keyguess                     # starts its own stack (one Redis, two gateways), 5 s of guesses
    python -m deploy.keyguess --gateway 127.0.0.1:50051 --seconds 5

Only 127.0.0.1 is a target: a gateway elsewhere is refused.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import time
from collections import Counter

import grpc
from manaforge.v1 import admin_pb2
from manaforge.v1.admin_pb2_grpc import AdminStub

from deploy.launcher import LOOPBACK_LIMITS, Stack

CONCURRENCY = 32  # calls in flight at once


async def guess(address: str, seconds: float) -> Counter[str]:
    """Answers by status code to wrong keys sent for `seconds` (each a fresh random guess)."""
    answers: Counter[str] = Counter()
    deadline = time.monotonic() + seconds
    async with grpc.aio.insecure_channel(address) as channel:
        admin = AdminStub(channel)

        async def one() -> None:
            while time.monotonic() < deadline:
                metadata = (("x-operator-key", secrets.token_hex(12)),)
                try:
                    await admin.GetOverview(admin_pb2.GetOverviewRequest(), metadata=metadata, timeout=10)
                    answers["OK"] += 1
                except grpc.aio.AioRpcError as exc:
                    answers[exc.code().name] += 1

        await asyncio.gather(*(one() for _ in range(CONCURRENCY)))
    return answers


def report(address: str, seconds: float) -> None:
    answers = asyncio.run(guess(address, seconds))
    checked = answers["PERMISSION_DENIED"]
    print(f"gateway {address}, {seconds:g} s of wrong keys ({CONCURRENCY} calls in flight):")
    for code, count in sorted(answers.items()):
        print(f"  {code:<20} {count:>7}")
    print(f"wrong keys checked: {checked} ({checked / seconds:.1f} a second)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gateway", default="", help="a running gateway (127.0.0.1 only); default: start a stack")
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    if args.gateway:
        if args.gateway.rsplit(":", 1)[0] != "127.0.0.1":
            raise SystemExit("keyguess: only a gateway on 127.0.0.1")
        report(args.gateway, args.seconds)
        return
    settings = {**LOOPBACK_LIMITS, "MANAFORGE_OPERATOR_KEY": secrets.token_hex(24)}
    with Stack(gateways=2, settings=settings) as stack:
        report(stack.gateway_addresses[0], args.seconds)


if __name__ == "__main__":
    main()
