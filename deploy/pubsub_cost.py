"""What a table's commit message costs a Redis Cluster, published plainly (PUBLISH) and sharded (SPUBLISH).

    python -m deploy.pubsub_cost [--messages 20000] [--tables 512] [--size 2048]

An embedded cluster of 3 primaries, each with a replica (as `make scale` starts it), and one subscriber per primary
following every table channel, as a gateway's fan-out hub does: with PUBLISH it subscribes them all on one node
(a cluster PUBLISH reaches every node), with SSUBSCRIBE each channel on the primary of its slot. The same messages
(`--size` bytes, about a commit) go to table channels spread over every slot, each published on its channel's
primary as commit.lua publishes it. Measured on every node: the CPU Redis used (INFO cpu) and the cluster bus
messages that carried pub/sub (CLUSTER INFO), per published message. This measures Redis's two primitives alone;
the stack publishes with SPUBLISH on a cluster (MANAFORGE_SHARDED_PUBSUB, docs/scaling.md), and `python -m
deploy.scale --sharded-pubsub on|off` measures it through the real stack.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import redis
from redis.crc import key_slot

from deploy.launcher import Stack, wait_for_redis
from services.tables.keys import channel

Node = redis.Redis


def cpu(node: Node) -> float:
    info: Any = node.info("cpu")
    return float(info["used_cpu_sys"]) + float(info["used_cpu_user"])


def bus(node: Node) -> int:
    """Pub/sub messages this node sent over the cluster bus (plain and sharded)."""
    fields: Any = node.execute_command("CLUSTER INFO")  # type: ignore[no-untyped-call]  # parsed by redis-py
    return sum(int(v) for k, v in fields.items() if k.startswith("cluster_stats_messages_publish") and "_sent" in k)


def measure(stack: Stack, sharded: bool, messages: int, tables: int, size: int) -> dict[str, float]:
    nodes = {address: Node.from_url(f"redis://{address}/0") for address in stack.cluster_nodes}
    slots = stack.slot_map()

    def primary(name: str) -> str:
        slot = key_slot(name.encode())
        return next(address for start, end, address in slots if start <= slot <= end)

    names = [channel(f"cost-{i:05d}") for i in range(tables)]
    owners = {name: primary(name) for name in names}
    primaries = sorted(set(owners.values()))
    subscribers = []
    for address in primaries:
        sub = nodes[address].pubsub()  # type: ignore[no-untyped-call]
        mine = [name for name in names if owners[name] == address]
        if sharded:
            for name in mine:  # one slot per SSUBSCRIBE
                sub.ssubscribe(name)
        elif address == primaries[0]:
            sub.subscribe(*names)  # one node sees every channel
        subscribers.append(sub)
    time.sleep(0.5)
    payload = b"x" * size
    cpu_before = {a: cpu(n) for a, n in nodes.items()}
    bus_before = sum(bus(n) for n in nodes.values())
    command = "SPUBLISH" if sharded else "PUBLISH"
    received, elapsed = 0, 0.0

    def drain() -> int:
        got = 0
        for sub in subscribers:
            while (message := sub.get_message(timeout=0.01)) is not None:
                got += message["type"] in ("message", "smessage")
        return got

    for start in range(0, messages, 500):  # the subscribers read every 500 (within their output buffer limit)
        began = time.monotonic()
        for i in range(start, min(start + 500, messages)):
            name = names[i % tables]
            nodes[owners[name]].execute_command(command, name, payload)  # type: ignore[no-untyped-call]
        elapsed += time.monotonic() - began
        received += drain()
    deadline = time.monotonic() + 30
    while received < messages and time.monotonic() < deadline:
        received += drain()
    time.sleep(0.5)  # let replicas finish with the bus traffic
    used = sum(cpu(n) - cpu_before[a] for a, n in nodes.items())
    bus_sent = sum(bus(n) for n in nodes.values()) - bus_before
    for sub in subscribers:
        sub.close()
    return {
        "received": received,
        "cpu_us": used / messages * 1e6,
        "bus": bus_sent / messages,
        "publish_us": elapsed / messages * 1e6,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=20000)
    parser.add_argument("--tables", type=int, default=512)
    parser.add_argument("--size", type=int, default=2048)
    args = parser.parse_args()
    stack = Stack(cluster=3)
    try:
        stack.start_cluster()
        for node in stack.cluster_nodes:
            wait_for_redis(f"redis://{node}/0")
        print(f"3 primaries + 3 replicas; {args.messages} messages of {args.size} bytes over {args.tables} tables")
        print(f"{'':<10} {'received':>9} {'Redis CPU µs/msg (all nodes)':>29} {'bus msgs/msg':>13} {'publish µs':>11}")
        for sharded in (False, True, False, True):  # twice each, alternating: this machine is shared
            row = measure(stack, sharded, args.messages, args.tables, args.size)
            label = "SPUBLISH" if sharded else "PUBLISH"
            print(
                f"{label:<10} {row['received']:>9.0f} {row['cpu_us']:>29.1f} {row['bus']:>13.2f}"
                f" {row['publish_us']:>11.1f}"
            )
    finally:
        stack.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
