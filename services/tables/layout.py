"""The version of the stored layout: the key names of keys.py, what each key holds and how (protobuf messages, hash
fields, stream entries, sorted-set members). Redis keeps the layout its data is in (`keys.layout()`); a gateway
or a worker checks it at start (bootstrap.check_layout), before it serves anything:

- the layout this release writes: it goes on (a store without the key is recorded as LAYOUT when LAYOUT is 1);
- an older one: it refuses to start, naming both, until the operator has run `python -m deploy.migrate`;
- a newer one (a later release already ran its migration here): it refuses to start, naming both.

A store without the key was written by release 0.1.0, whose layout is 1 (it wrote no version). Protobuf messages
evolve without a layout change as long as no field is renumbered or retyped (a reader skips a field it does not
know and reads a missing one as its default); a layout change is anything else: a key renamed or moved, a value
encoded differently, a field's meaning changed.

Each layout after the first has one migration step from the layout before it (MIGRATIONS). A step must keep the
previous release working on the migrated data (it adds and copies; the release after the next removes what is no
longer read), so the operator migrates first and then replaces the processes one at a time while games go on.
Steps are written to be run again safely: a migration interrupted half-way is run again from its last recorded
layout.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from services.tables import keys as k

LAYOUT = 1  # the layout this release reads and writes
FIRST = 1  # the layout of a store with no layout key (release 0.1.0)


class LayoutError(Exception):
    """The stored layout is not the one this release reads; the message names both and what to do."""

    def __init__(self, stored: int, known: int, message: str) -> None:
        super().__init__(message)
        self.stored = stored
        self.known = known


@dataclass(frozen=True)
class Migration:
    """One step from layout `to - 1` to layout `to`: `run(redis)` rewrites the store (any client of the game data,
    a single Redis or a cluster), safely run again."""

    to: int
    summary: str
    run: Callable[[Any], Awaitable[None]]


# Layout 1 (release 0.1.0) is the only layout so far: no step yet. A release that changes the layout adds its step
# here, raises LAYOUT, and says in CHANGELOG.md what the operator runs.
MIGRATIONS: Mapping[int, Migration] = {}


async def stored_layout(redis: Any) -> int:
    """The layout the store is in (a store without the key: FIRST)."""
    value = await redis.get(k.layout())
    return int(value) if value is not None else FIRST


async def check_layout(redis: Any, known: int = LAYOUT) -> int:
    """Go on only on the layout this release reads (recording it in a store that has none); else LayoutError."""
    stored = await stored_layout(redis)
    if stored > known:
        raise LayoutError(
            stored,
            known,
            f"the stored data is in layout {stored}, newer than layout {known} that this release reads: it was written "
            "by a later release; run that release (or restore a backup taken before it)",
        )
    if stored < known:
        raise LayoutError(
            stored,
            known,
            f"the stored data is in layout {stored}, older than layout {known} that this release reads: run "
            "`python -m deploy.migrate` once (docs/operations.md, Upgrading), then start this release",
        )
    await redis.set(k.layout(), known, nx=True)
    return stored


async def migrate(
    redis: Any, known: int = LAYOUT, steps: Mapping[int, Migration] | None = None, say: Callable[[str], None] = print
) -> list[Migration]:
    """Run every step from the stored layout up to `known`, recording the layout after each. Refuses a newer layout
    (LayoutError) and changes nothing then. Returns the steps run (none: the store is already in `known`)."""
    steps = MIGRATIONS if steps is None else steps
    stored = await stored_layout(redis)
    if stored > known:
        raise LayoutError(
            stored, known, f"the stored data is in layout {stored}, newer than layout {known}: nothing to migrate"
        )
    missing = [n for n in range(stored + 1, known + 1) if n not in steps]
    if missing:
        raise LayoutError(stored, known, f"no migration step to layout {missing[0]}")
    done = []
    for n in range(stored + 1, known + 1):
        step = steps[n]
        say(f"layout {n - 1} -> {n}: {step.summary}")
        await step.run(redis)
        await redis.set(k.layout(), n)
        done.append(step)
    await redis.set(k.layout(), known, nx=True)
    return done
