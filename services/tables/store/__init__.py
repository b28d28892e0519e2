"""The Redis adapter (asyncio): where tables, live states, action logs, event streams, the outbox and the queues
are kept, one module per aggregate over the connections and scripts they share (base.py).

Every key of one table carries the hash tag of its shard (keys.py), so one Lua script can touch them all on any node
of a Redis Cluster. The live state changes only through `commit.lua`, an atomic versioned compare-and-set that also
checks the seat token's digest and the client action id: a submit is one round trip when the caller's cache is
right.

- base.py: connections, scripts, one-step batches, the archive every read falls back to
- records.py: table records, seats and seat-token digests, listings, presence, spectators
- live.py: the live state and the commit, the action log, the events, the verdict
- outbox.py: follow-up work outside a commit, the dispatchers' claims, the sweeper
- archive.py: retention (archiving a finished game, removing an abandoned table)
- queues.py: matchmaking's queues and tickets
- challenges.py: what limits challenges (open ones, cool-downs, preferences)
"""

from services.tables.store.archive import Archives
from services.tables.store.base import MAX_BLOCK, Live
from services.tables.store.challenges import ChallengeStore
from services.tables.store.live import CommitResult, LiveStates, NotReplicatedError
from services.tables.store.outbox import Outbox
from services.tables.store.queues import Queues
from services.tables.store.records import Records

__all__ = ["MAX_BLOCK", "CommitResult", "Live", "NotReplicatedError", "RedisStore"]


class RedisStore(Records, LiveStates, Outbox, Archives, Queues, ChallengeStore):
    """Tables, live states, logs, follow-up work, queues and challenge limits in Redis: one store (one client, a
    connection pool) per process, made in bootstrap."""
