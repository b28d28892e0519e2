"""The hub wakes a crowd's watchers a batch per turn of the event loop (services/tables/fanout.py, `WAKE_BATCH`):
another table's watcher, a move or a listing is served between two batches, and every watcher still gets every
commit once, in order (no server needed: the hub's followers and its hand-over alone)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from services.tables.fanout import WAKE_BATCH, Follower, Hub


@dataclass(frozen=True)
class Commit:
    version: int


def watched(hub: Hub, table_id: str, count: int) -> list[Follower]:
    """`count` watchers of `table_id`, as `Hub.follow` registers them once Redis confirms the subscription."""
    followers = [Follower(table_id) for _ in range(count)]
    hub._followers.setdefault(table_id, set()).update(followers)
    return followers


async def read(follower: Follower, count: int, seen: list[tuple[str, int]]) -> list[Any]:
    items = []
    for _ in range(count):
        items.append(await follower.next())
        seen.append((follower.table_id, len(items)))
    return items


def test_a_quiet_tables_watcher_is_woken_before_the_crowd_of_another_table_is() -> None:
    async def run() -> list[tuple[str, int]]:
        hub = Hub(routes=None, decode=lambda table_id, data: data)  # type: ignore[arg-type]
        crowd = watched(hub, "crowd", 4 * WAKE_BATCH)
        (lone,) = watched(hub, "quiet", 1)
        seen: list[tuple[str, int]] = []
        readers = [asyncio.create_task(read(f, 1, seen)) for f in [*crowd, lone]]
        await asyncio.sleep(0)  # every reader waits
        hub.hand_over("crowd", Commit(1))
        hub.hand_over("quiet", Commit(1))  # a commit of a quiet table in the same turn, after the crowd's
        await asyncio.gather(*readers)
        return seen

    seen = asyncio.run(run())
    assert len(seen) == 4 * WAKE_BATCH + 1
    assert seen.index(("quiet", 1)) <= WAKE_BATCH  # within the crowd's first batch, not after all four


def test_every_watcher_of_a_crowd_gets_each_commit_once_in_order_while_it_is_being_woken() -> None:
    async def run() -> list[list[Any]]:
        hub = Hub(routes=None, decode=lambda table_id, data: data)  # type: ignore[arg-type]
        crowd = watched(hub, "crowd", 3 * WAKE_BATCH + 7)
        seen: list[tuple[str, int]] = []
        readers = [asyncio.create_task(read(f, 5, seen)) for f in crowd]
        await asyncio.sleep(0)
        for version in range(1, 6):  # commits come while the crowd is still being woken for the one before
            hub.hand_over("crowd", Commit(version))
            await asyncio.sleep(0)
        return list(await asyncio.gather(*readers))

    for items in asyncio.run(run()):
        assert [item.version for item in items] == [1, 2, 3, 4, 5]


def test_a_small_tables_watchers_are_all_woken_in_the_next_turn_while_a_crowd_waits_its_turns() -> None:
    async def run() -> tuple[int, int]:
        hub = Hub(routes=None, decode=lambda table_id, data: data)  # type: ignore[arg-type]
        crowd = watched(hub, "crowd", 4 * WAKE_BATCH)
        table = watched(hub, "table", WAKE_BATCH)  # not a crowd: WAKE_BATCH watchers or fewer
        seen: list[tuple[str, int]] = []
        readers = [asyncio.create_task(read(f, 1, seen)) for f in [*crowd, *table]]
        await asyncio.sleep(0)
        hub.hand_over("crowd", Commit(1))
        hub.hand_over("table", Commit(1))
        await asyncio.sleep(0)  # one turn
        woken = sum(1 for table_id, _ in seen if table_id == "table"), sum(1 for t, _ in seen if t == "crowd")
        await asyncio.gather(*readers)
        return woken

    assert asyncio.run(run()) == (WAKE_BATCH, WAKE_BATCH)
