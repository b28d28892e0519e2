"""Where everything lives in Redis: key names, and the shards that spread them over a Redis Cluster.

A Redis Cluster runs a script, or a transaction, only on keys of one hash slot. A commit stores the move, records
its follow-up work in the outbox and updates the listings in one atomic step, so the outbox and the listings cannot
be one global key each: they are split into SHARDS shards, and every table belongs to one shard (by a hash of its
id). All keys of a table and of its shard share the shard's hash tag, so they sit in one slot of one node.

The shards' tags are chosen so their slots are evenly spaced over the 16,384 slots: a cluster whose primaries take
even slot ranges (what `redis-cli --cluster create` makes) gets an even share of the shards on each primary. On a
single Redis the shards cost nothing but a few more keys; a listing reads every shard's part in one pipeline.

Queues, their handovers and their tickets share their queue's hash tag (a matchmaking script reads the tickets of
its queue), and a ticket id names its queue's tag. Players' keys are their own (one player's writes are never atomic
with another's).
"""

from __future__ import annotations

import zlib
from functools import cache

from redis.crc import REDIS_CLUSTER_HASH_SLOTS, key_slot

SHARDS = 16  # fixed for a deployment: a table's shard is a hash of its id, so changing it strands every table


@cache
def shard_tag(shard: int) -> str:
    """The hash tag of a shard: the first "s<shard>.<n>" whose slot lies in the shard's sixteenth of the slots."""
    width = REDIS_CLUSTER_HASH_SLOTS // SHARDS
    n = 0
    while not shard * width <= key_slot(f"s{shard}.{n}".encode()) < (shard + 1) * width:
        n += 1
    return f"s{shard}.{n}"


def layout() -> str:
    """The layout version the stored data is in (layout.py): one key for the whole store."""
    return "mf:layout"


def player_names() -> str:
    """Every registered player's name, lower-cased -> the player's id (players.py)."""
    return "mf:players:names"


def name_looks() -> str:
    """What every registered name looks like (names.looks): each form -> the id of the first player whose name
    looks so. Beside player_names: a guest's or a new player's name is checked against it in one read."""
    return "mf:players:looks"


def name_looks_indexed() -> str:
    """How far name_looks covers player_names: a hash of "version" (names.LOOKS_VERSION it was built with) and
    "names" (how many names it covers); names registered without their looks (by an earlier release) are indexed
    when player_names holds more (players.py)."""
    return "mf:players:looks:indexed"


def shard_of(table_id: str) -> int:
    return zlib.crc32(table_id.encode()) % SHARDS


def table_prefix(table_id: str) -> str:
    return f"mf:{{{shard_tag(shard_of(table_id))}}}:{table_id}"


def table_keys(table_id: str) -> dict[str, str]:
    """Every key of one table (all in its shard's slot)."""
    prefix = table_prefix(table_id)
    names = ("record", "live", "log", "events", "done", "seats", "tokens", "issued", "armed", "archive", "spectators")
    return {name: f"{prefix}:{name}" for name in names}


def channel(table_id: str) -> str:
    """The table's pub/sub channel (commits are published there)."""
    return f"{table_prefix(table_id)}:channel"


def table_of_channel(name: bytes) -> str:
    return name.decode().split(":")[2]  # "mf:{" tag "}:" table id ":channel"


def notices(shard: int) -> str:
    """The shard's notices to Events streams (inbox.py): a table of the shard starting names its players
    (lua/claim_seat.lua), a player of the shard has a new challenge event. Each gateway holding Events streams
    subscribes all SHARDS of them through its hub, whatever its streams' players."""
    return f"mf:{{{shard_tag(shard)}}}:notices"


def outbox(shard: int) -> str:
    """The shard's follow-up work: a sorted set of items by due time (followups.py)."""
    return f"mf:{{{shard_tag(shard)}}}:outbox"


def wake(shard: int) -> str:
    """A list pushed when an item of the shard's outbox is due at once: its dispatcher blocks on it."""
    return f"mf:{{{shard_tag(shard)}}}:outbox:wake"


def live_tables(shard: int) -> str:
    """The shard's unfinished tables, by creation time (for the sweeper)."""
    return f"mf:{{{shard_tag(shard)}}}:tables:live"


def listing(kind: str, game: str, shard: int) -> str:
    """The shard's part of a listing: `kind` "open" (tables with an open seat) or "playing", all games or one."""
    base = f"mf:{{{shard_tag(shard)}}}:tables:{kind}"
    return f"{base}:{game}" if game else base


def commit_keys(table_id: str, game: str) -> list[str]:
    """The keys commit.lua touches, in the order it takes them: the table's, then its shard's."""
    keys = table_keys(table_id)
    shard = shard_of(table_id)
    return [
        keys["live"],
        keys["log"],
        keys["events"],
        keys["done"],
        keys["tokens"],
        keys["armed"],
        outbox(shard),
        wake(shard),
        live_tables(shard),
        listing("playing", "", shard),
        listing("playing", game, shard),
    ]


def queue_tag(game: str, seats: int, options_digest: str) -> str:
    return f"q.{game}.{seats}.{options_digest}"


def queue(tag: str) -> str:
    return f"mf:{{{tag}}}:queue"


def ticket_prefix(tag: str) -> str:
    return f"mf:{{{tag}}}:ticket:"


def tickets_of(queue_key: str) -> str:
    """The key prefix of a queue's tickets."""
    return queue_key.removesuffix("queue") + "ticket:"


def handovers_of(queue_key: str) -> str:
    """A queue's matches being handed over to their tables: claim ids by deadline (lua/queue_handovers.lua)."""
    return queue_key.removesuffix("queue") + "handovers"


def handed_over_of(queue_key: str) -> str:
    """The tickets of each of a queue's handovers: claim id -> "<joiner>|<ticket>,<ticket>,..."."""
    return queue_key.removesuffix("queue") + "handovers:tickets"


def new_ticket_id(tag: str, random: str) -> str:
    """A ticket id names its queue's tag: "<queue tag>~<random>"."""
    return f"{tag}~{random}"


def is_ticket_id(ticket_id: str) -> bool:
    tag, sep, random = ticket_id.rpartition("~")
    return bool(sep and random and tag.startswith("q.") and "{" not in tag and "}" not in tag)


def queue_of_ticket(ticket_id: str) -> str:
    """The tag of the queue a ticket waits in."""
    if not is_ticket_id(ticket_id):
        raise ValueError(f"not a ticket id: {ticket_id!r}")
    return ticket_id.rpartition("~")[0]


def ticket(ticket_id: str) -> str:
    return f"{ticket_prefix(queue_of_ticket(ticket_id))}{ticket_id}"


def ticket_ready(ticket_id: str) -> str:
    return f"{ticket(ticket_id)}:ready"


# Challenges: what limits them shares one hash tag, so one script checks and counts a challenge against both
# players and their pair atomically (lua/challenge_room.lua). Challenges are few (each a person's, rate-limited):
# one slot holds them all. A challenge itself is a key of its own (services/tables/challenges.py).
CHALLENGES = "mf:{challenges}"


def challenges_open(player_id: str, direction: str) -> str:
    """The open challenges from ("sent") or for ("received") a player: challenge id -> expiry time."""
    return f"{CHALLENGES}:{direction}:{player_id}"


def challenges_between(challenger_id: str, challenged_id: str) -> str:
    """The open challenges from one player to another: challenge id -> expiry time."""
    return f"{CHALLENGES}:between:{challenger_id}:{challenged_id}"


def challenge_cooldown(challenger_id: str, challenged_id: str) -> str:
    """How often the challenged player declined the challenger lately ("strikes") and "until" when they wait."""
    return f"{CHALLENGES}:cooldown:{challenger_id}:{challenged_id}"


def challenge_preferences(player_id: str) -> str:
    """What challenges a player refuses: "refuse_all", and "refuse:<game>" for each game refused."""
    return f"{CHALLENGES}:preferences:{player_id}"


def operator_key_tries(digest: str = "") -> str:
    """Operator keys tried and not (yet) found right, in the current window, over every gateway: all of them, or
    one key's (by its digest). One hash tag: the lock script reads them and the locks together."""
    return f"mf:{{ops.key}}:tries:{digest}" if digest else "mf:{ops.key}:tries"


def operator_key_lock(digest: str = "") -> str:
    """The Admin service locked at every gateway (expires at the lock's end): for every key, or for one key."""
    return f"mf:{{ops.key}}:lock:{digest}" if digest else "mf:{ops.key}:lock"
