"""Many draws of a game's rng at once: the same numbers `engine_core.rng` draws one at a time, computed together.

A draw (SplitMix64) is `_mix((seed + counter * _GAMMA) & _MASK)`: a dozen operations on 64- and 128-bit Python
ints, each making a new int (about 5,800 instructions a draw). Opening boosters and shuffling a game's cards take
dozens of draws with consecutive counters, so each draw here has its own 128-bit lane in one large int (a product
of two 64-bit numbers fits in a lane): every step of the mix is one operation on the large int, masked back to 64
bits a lane before the next product, and the lanes are read out with `struct`. That is about 1,600 to 2,300
instructions a draw, for the same numbers (tests/engine/test_cards.py)."""

from __future__ import annotations

import struct
from collections.abc import MutableSequence
from functools import lru_cache
from typing import TypeVar

from manaforge.v1.common_pb2 import Rng

from engine_core.rng import _GAMMA, _MASK

T = TypeVar("T")
LANE = 128  # bits per draw: a 64-bit number times a 64-bit constant
_MULTIPLY_1 = 0xBF58476D1CE4E5B9  # the constants of `engine_core.rng._mix`
_MULTIPLY_2 = 0x94D049BB133111EB


@lru_cache(maxsize=64)
def _lanes(count: int) -> tuple[int, int, int, struct.Struct]:
    """For `count` lanes: a 1 in each lane, lane i holding (i + 1) * _GAMMA, _MASK in each lane, and the struct that
    reads each lane's low 64 bits."""
    ones = sum(1 << (LANE * lane) for lane in range(count))
    steps = sum(((lane + 1) * _GAMMA) << (LANE * lane) for lane in range(count))
    return ones, steps, _MASK * ones, struct.Struct("<" + "Q8x" * count)


def draws(seed: int, counter: int, count: int) -> tuple[int, ...]:
    """The rng's next `count` draws after `counter`: `engine_core.rng.next_u64` for the counters `counter` + 1 to
    `counter` + `count`, in that order (the rng itself is left as it is)."""
    if count <= 0:
        return ()
    ones, steps, masks, words = _lanes(count)
    z = (((seed + counter * _GAMMA) & _MASK) * ones + steps) & masks
    z = ((z ^ (z >> 30)) & masks) * _MULTIPLY_1 & masks
    z = ((z ^ (z >> 27)) & masks) * _MULTIPLY_2 & masks
    z ^= z >> 31  # the bits this shifts in from the next lane lie above the low 64 bits that are read
    numbers: tuple[int, ...] = words.unpack(z.to_bytes(LANE // 8 * count, "little"))
    return numbers


def shuffle(rng: Rng, items: MutableSequence[T]) -> None:
    """`engine_core.rng.shuffle` (Fisher-Yates in place, the same draws and the same swaps), its draws made together."""
    counter = rng.counter
    points = draws(rng.seed, counter, len(items) - 1)
    for i, point in zip(range(len(items) - 1, 0, -1), points, strict=True):
        j = point % (i + 1)
        if i != j:
            items[i], items[j] = items[j], items[i]
    rng.counter = counter + len(points)
