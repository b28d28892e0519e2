"""The fan-out hub: one pub/sub connection per process (with sharded pub/sub on a cluster, one per primary:
subscriptions.py), shared by every watcher of every table it serves.

The first watcher of a table subscribes its channel (and waits for Redis to confirm, so nothing published after
its catch-up read is missed); the last one to leave unsubscribes. Each published commit is decoded once (by the
injected `decode`) and the same object is handed to every watcher of that table in this process. A commit this
process made itself is handed to its watchers at once (`hand_over`), unless a commit before it is still on its way
through pub/sub (made elsewhere, and known here from a conflict answer): then it waits for that one (or for its own
echo), so watchers get every commit in order, one update each. Its echo from pub/sub is dropped by its version
(every item has one). Watchers also drop any version they already have, and one that comes after a gap makes its
watcher read the gap from the durable stream. A watcher that
falls behind, and every watcher of a table whose subscription was interrupted (its connection dropped, or its slot
moved to another node), is told to resynchronise: it reads what it
missed from the table's durable event stream, so a watcher never loses or repeats an update.

The hub also carries a few channels that are not tables' (`listen`): the Events streams' notices (inbox.py). Their
messages go as they are to their listeners, which are told to resynchronise, and to drain, as watchers are.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from redis.exceptions import RedisError

from services.tables.errors import DrainingError
from services.tables.keys import channel, table_of_channel
from services.tables.store.pubsub import Routes, version_of
from services.tables.subscriptions import Link

log = logging.getLogger(__name__)

RESYNC = object()  # read what you missed from the durable stream
DRAIN = object()  # this process is shutting down: end the stream, the client resumes elsewhere
INBOX_LIMIT = 256  # updates queued for one watcher before it is told to resynchronise instead
WAKE_BATCH = 64  # a crowd's watchers (a table with more here) woken per turn of the event loop
CONFIRM_TIMEOUT = 5.0
GIVEN_UP_REREADS = 50  # reads of the slot map, 0.1 s apart, until a channel given up has another owner in it


class Listener(Protocol):
    """What hears a channel that is not a table's (`Hub.listen`)."""

    def notice(self, data: bytes) -> None: ...
    def resync(self) -> None: ...  # its subscription was interrupted: it may have missed messages
    def drain(self) -> None: ...


class Follower:
    """One watcher's inbox: decoded commits of its table, in order, or RESYNC. An idle watcher holds no queue and
    no waiter (a gateway holds tens of thousands of them): the queue exists while something waits in it, the waiter
    while its reader waits."""

    __slots__ = ("_waiter", "items", "queued", "table_id")

    def __init__(self, table_id: str) -> None:
        self.table_id = table_id
        self.items: deque[Any] | None = None
        self._waiter: asyncio.Future[None] | None = None
        self.queued = False  # in the hub's queue of watchers to wake

    def push(self, item: Any) -> bool:
        """Queue `item`; whether the reader waits and has no wake-up on its way (the hub then calls `wake`)."""
        items = self.items
        if items is None:
            items = self.items = deque()
        elif item is DRAIN:  # goes first, whatever is queued: the stream ends and its client resumes elsewhere
            items.clear()
        elif len(items) >= INBOX_LIMIT:  # a slow reader: drop its backlog, it rereads the stream
            items.clear()
            item = RESYNC
        items.append(item)
        waiter = self._waiter
        return waiter is not None and not waiter.done() and not self.queued

    def wake(self) -> None:
        self.queued = False
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def next(self) -> Any:
        while not self.items:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        item = self.items.popleft()
        if not self.items:
            self.items = None
        return item


class Hub:
    def __init__(self, routes: Routes, decode: Callable[[str, bytes], Any]) -> None:
        self.routes = routes  # where each table's channel is subscribed (store/pubsub.py)
        self.decode = decode  # (table id, published bytes) -> the object every watcher of the table receives
        self._followers: dict[str, set[Follower]] = {}
        self._links: dict[tuple[bool, str], Link] = {}  # (sharded, node) -> its pub/sub connection ("": any node)
        self._link_of: dict[str, list[Link]] = {}  # followed channel -> the links it is subscribed on
        self._unconfirmed: dict[str, set[Link]] = {}  # channel being followed -> the links yet to confirm it
        self._confirmed: dict[str, asyncio.Future[None]] = {}
        self._last: dict[str, int] = {}  # followed table -> the last version its watchers here were handed
        self._held: dict[str, Any] = {}  # followed table -> a commit made here, waiting for the one before it
        self._waking: deque[Follower] = deque()  # a crowd's watchers given an item, woken WAKE_BATCH a turn
        self._pacing = False  # a turn of the event loop will wake the next of them
        self._listeners: dict[bytes, list[Listener]] = {}  # channel that is not a table's -> who hears it
        self.draining = False

    # ----- lifecycle ------------------------------------------------------------------------------------------

    async def stop(self) -> None:
        for link in list(self._links.values()):
            await link.stop()

    @property
    def tables(self) -> int:
        return len(self._followers)

    @property
    def watchers(self) -> int:
        return sum(len(f) for f in self._followers.values())

    @property
    def reconnects(self) -> int:
        return sum(link.reconnects for link in self._links.values())

    # ----- followers ------------------------------------------------------------------------------------------

    def drain(self) -> None:
        """Shutting down: every watcher is told to end its stream, and no new one is taken."""
        self.draining = True
        for followers in self._followers.values():
            self._give(followers, DRAIN)
        for listeners in self._listeners.values():
            for listener in listeners:
                listener.drain()

    async def follow(self, table_id: str, follower: Follower | None = None) -> Follower:
        """A new inbox for `table_id` (or `follower`, one of its own kind), registered once Redis confirms the
        table's subscription."""
        if self.draining:
            raise DrainingError("gateway draining: connect to another gateway")
        follower = follower or Follower(table_id)
        followers = self._followers.setdefault(table_id, set())
        followers.add(follower)
        name = channel(table_id)
        if len(followers) == 1:
            await self._subscribe(name)
        try:
            await asyncio.wait_for(asyncio.shield(self._confirmed[name]), CONFIRM_TIMEOUT)
        except TimeoutError:
            self.leave(follower)
            raise RedisError("redis did not confirm the subscription in time") from None
        except BaseException:
            self.leave(follower)
            raise
        return follower

    async def listen(self, name: str, listener: Listener) -> None:
        """Hand `listener` every message of channel `name` (not a table's) once Redis confirms its subscription; the
        channel stays subscribed for the life of the process."""
        if self.draining:
            raise DrainingError("gateway draining: connect to another gateway")
        listeners = self._listeners.get(name.encode())
        if listeners is None:
            listeners = self._listeners[name.encode()] = []
            await self._subscribe(name)
        if listener not in listeners:
            listeners.append(listener)
        try:
            await asyncio.wait_for(asyncio.shield(self._confirmed[name]), CONFIRM_TIMEOUT)
        except TimeoutError:
            raise RedisError("redis did not confirm the subscription in time") from None

    async def _subscribe(self, name: str) -> None:
        self._confirmed[name] = asyncio.get_running_loop().create_future()
        links = [self._link(sharded, self.routes.node_of(name, sharded)) for sharded in self.routes.kinds]
        self._link_of[name] = links
        self._unconfirmed[name] = set(links)
        for link in links:
            await link.add([name], stale=False)

    def leave(self, follower: Follower) -> None:
        followers = self._followers.get(follower.table_id)
        if followers is None or follower not in followers:
            return
        followers.discard(follower)
        if not followers:
            del self._followers[follower.table_id]
            self._last.pop(follower.table_id, None)
            self._held.pop(follower.table_id, None)
            name = channel(follower.table_id)
            confirmed = self._confirmed.pop(name, None)
            if confirmed is not None and not confirmed.done():
                confirmed.cancel()
            self._unconfirmed.pop(name, None)
            for link in self._link_of.pop(name, []):
                link.remove(name)

    # ----- the links (subscriptions.py) -----------------------------------------------------------------------

    def _link(self, sharded: bool, node: str) -> Link:
        link = self._links.get((sharded, node))
        if link is None:
            link = self._links[sharded, node] = Link(node, sharded, lambda: self.routes.connection(node), self)
        link.start()
        return link

    async def reroute(self, link: Link) -> None:
        """A sharded link lost its connection, or its node gave channels up: read the slot map again and move each
        of its channels that another node owns now to that node's link (their watchers resync once subscribed)."""
        await self.routes.refresh()
        # A node that gave a channel up no longer owns its slot, but the map read just now may not say so yet (the
        # node answering had not learnt of the failover): subscribed there again, now a replica, the channel heard
        # nothing (seen under load in tests/stack/test_cluster.py). Read the map again until it names another owner.
        for _ in range(GIVEN_UP_REREADS):
            if not any(self.routes.node_of(name, True) == link.node for name in link.given_up & link.names):
                break
            await asyncio.sleep(0.1)
            await self.routes.refresh()
        link.given_up.clear()
        moved: dict[str, list[str]] = {}
        for name in list(link.names):
            node = self.routes.node_of(name, True)
            if node != link.node:
                link.names.discard(name)
                link.stale.discard(name)
                moved.setdefault(node, []).append(name)
        for node, names in moved.items():
            target = self._link(True, node)
            for name in names:
                self._link_of[name] = [target if x is link else x for x in self._link_of.get(name, [])]
                if link in self._unconfirmed.get(name, ()):
                    self._unconfirmed[name] = {target if x is link else x for x in self._unconfirmed[name]}
            await target.add(names, stale=True)
        if not link.names and self._links.get((True, link.node)) is link:
            del self._links[True, link.node]

    def message(self, name: bytes, data: bytes) -> None:
        listeners = self._listeners.get(name)
        if listeners is not None:
            for listener in listeners:
                listener.notice(data)
            return
        table_id = table_of_channel(name)
        if table_id not in self._held and 0 < version_of(data) <= self._last.get(table_id, 0):
            return  # an echo of a commit handed over here (or one its watchers have): dropped before decoding
        self._deliver(table_id, data)

    def subscribed(self, link: Link, name: str) -> None:
        waiting = self._unconfirmed.get(name)
        if waiting is None:
            return
        waiting.discard(link)
        confirmed = self._confirmed.get(name)
        if not waiting and confirmed is not None and not confirmed.done():
            del self._unconfirmed[name]
            confirmed.set_result(None)

    def resync(self, names: Iterable[str]) -> None:
        """These channels' subscriptions are confirmed after a time they may have missed messages: their watchers
        read what they missed from the durable stream."""
        for name in names:
            listeners = self._listeners.get(name.encode())
            if listeners is not None:
                for listener in listeners:
                    listener.resync()
                continue
            table_id = table_of_channel(name.encode())
            self._last.pop(table_id, None)
            self._held.pop(table_id, None)
            self._give(self._followers.get(table_id, set()), RESYNC)

    def hand_over(self, table_id: str, item: Any) -> None:
        """A commit this process made (decoded, with its `version`): to the table's watchers here at once, or once
        the commit before it has come through pub/sub; its own echo from pub/sub is then dropped."""
        followers = self._followers.get(table_id)
        if not followers:
            return
        last = self._last.get(table_id)
        if last is not None and item.version > last + 1:
            self._held[table_id] = item  # a commit made elsewhere comes first
            return
        self._push(table_id, followers, item)

    def _push(self, table_id: str, followers: set[Follower], item: Any) -> None:
        if item.version <= self._last.get(table_id, -1):
            return  # they have it
        self._last[table_id] = item.version
        self._give(followers, item)
        held = self._held.get(table_id)
        if held is not None and held.version <= item.version + 1:
            del self._held[table_id]
            self._push(table_id, followers, held)

    def _deliver(self, table_id: str, data: bytes) -> None:
        followers = self._followers.get(table_id)
        if not followers:
            return
        try:
            item = self.decode(table_id, data)
        except Exception:
            log.exception("undecodable commit on table %s: its watchers resynchronise", table_id)
            self._give(followers, RESYNC)
            return
        held = self._held.get(table_id)
        if held is not None and held.version == item.version:  # its own echo, and the one before never came:
            item = self._held.pop(table_id)  # its watchers read the gap from the stream
        self._push(table_id, followers, item)  # an echo of one handed over is dropped there

    def _give(self, followers: set[Follower], item: Any) -> None:
        """`item` to each of `followers`, in order after what each has. Their readers are woken at once, but a
        crowd's (more than WAKE_BATCH watchers of one table) are woken WAKE_BATCH a turn of the event loop: a move,
        a listing or another table's update is served between two batches, not after all of them."""
        crowd = len(followers) > WAKE_BATCH
        waking = self._waking
        for follower in followers:
            if follower.push(item):
                if crowd:
                    follower.queued = True
                    waking.append(follower)
                else:
                    follower.wake()
        if waking and not self._pacing:
            self._pacing = True
            self._wake_some()

    def _wake_some(self) -> None:
        waking = self._waking
        for _ in range(min(WAKE_BATCH, len(waking))):
            waking.popleft().wake()
        if waking:
            asyncio.get_running_loop().call_soon(self._wake_some)
        else:
            self._pacing = False
