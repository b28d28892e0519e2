"""Python's garbage collector in a long-lived process: its thresholds (`MANAFORGE_GC_THRESHOLDS`) and its pauses
(the `manaforge_gc_pause_seconds` metric).

A gateway holding 50,000 Watch streams holds about 1.5 million objects the collector tracks (gRPC's call state,
asyncio Tasks and coroutines, ours). With Python's default thresholds (700, 10, 10) the short-lived objects of
messages in flight outlive the youngest collection and are promoted, so a full collection, which visits every
object, came about every 10 s and stopped the process for 1.2-1.7 s each time: every call of the gateway waited
(ListGames p99 1.4 s in `make bench`'s connections run). With (10000, 10, 10) they die young and no full collection
came in the run's window (docs/live-path.md, "Spectators"). What the process built at start (modules, descriptors,
the game registry) is moved out of the collector's reach once (`gc.freeze`).
"""

from __future__ import annotations

import gc
import time
from typing import Any

from prometheus_client import Histogram

GC_PAUSE_SECONDS = Histogram(
    "manaforge_gc_pause_seconds",
    "Garbage collections of the process and how long each stopped it, by generation (2: a full collection)",
    ["generation"],
    buckets=(0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0),
)
_PAUSES = [GC_PAUSE_SECONDS.labels(str(generation)) for generation in range(3)]
_started = [0.0]


def _observe(phase: str, info: dict[str, Any]) -> None:
    if phase == "start":
        _started[0] = time.perf_counter()
    else:
        _PAUSES[info["generation"]].observe(time.perf_counter() - _started[0])


def tune(thresholds: tuple[int, int, int]) -> None:
    """Set the collector's `thresholds` (gc.set_threshold), freeze what exists now, and time each collection."""
    gc.freeze()
    gc.set_threshold(*thresholds)
    if _observe not in gc.callbacks:
        gc.callbacks.append(_observe)
