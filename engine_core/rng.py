"""A counter-based random generator whose whole state is the `Rng` message inside the game state.

A draw is a pure function of (seed, counter): replaying a game's actions from its seed gives the same draws.
The generator is SplitMix64, which passes BigCrush and is cheap in pure Python.

Many draws at once (`draws`, which `shuffle` and booster opening use): a draw is `_mix((seed + counter * _GAMMA) &
_MASK)`, a dozen operations on 64- and 128-bit Python ints, each making a new int (about 5,800 instructions a draw).
Draws with consecutive counters get a 128-bit lane each in one large int (a product of two 64-bit numbers fits in a
lane): every step of the mix is one operation on the large int, masked back to 64 bits a lane before the next
product, and the lanes are read out with `struct`. That is about 1,600 to 2,300 instructions a draw, for the same
numbers (tests/engine/test_cards.py).
"""

from __future__ import annotations

import struct
from collections.abc import MutableSequence
from functools import lru_cache
from typing import Final, TypeVar

from manaforge.v1.common_pb2 import Rng

_MASK: Final = (1 << 64) - 1
_GAMMA: Final = 0x9E3779B97F4A7C15
_MULTIPLY_1: Final = 0xBF58476D1CE4E5B9
_MULTIPLY_2: Final = 0x94D049BB133111EB
LANE: Final = 128  # bits per draw in `draws`: a 64-bit number times a 64-bit constant

T = TypeVar("T")


def new_rng(seed: int) -> Rng:
    return Rng(seed=seed & _MASK, counter=0)


def _mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * _MULTIPLY_1) & _MASK
    z = ((z ^ (z >> 27)) * _MULTIPLY_2) & _MASK
    return z ^ (z >> 31)


def next_u64(rng: Rng) -> int:
    """The next 64-bit draw; advances the counter in the message."""
    counter = rng.counter + 1
    rng.counter = counter
    return _mix((rng.seed + counter * _GAMMA) & _MASK)


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


def randbelow(rng: Rng, n: int) -> int:
    """A uniform integer in [0, n). The modulo bias over 64 bits is below 2**-50 for any n a game uses."""
    if n <= 0:
        raise ValueError("randbelow needs n > 0")
    return next_u64(rng) % n


def roll(rng: Rng, sides: int) -> int:
    """A die roll, 1..sides."""
    return randbelow(rng, sides) + 1


def coin(rng: Rng) -> bool:
    """A coin flip: True for heads."""
    return next_u64(rng) & 1 == 1


def choice(rng: Rng, items: list[T]) -> T:
    return items[randbelow(rng, len(items))]


def shuffle_into(rng: Rng, deck: MutableSequence[T], *piles: MutableSequence[T]) -> None:
    """A new deck: the piles' cards added to `deck` in order, the piles emptied, then the deck shuffled (a discard
    pile reshuffled when the deck runs out)."""
    for pile in piles:
        deck.extend(pile)
        del pile[:]
    shuffle(rng, deck)


def shuffle(rng: Rng, items: MutableSequence[T]) -> None:
    """Fisher-Yates in place, on a list or a repeated protobuf field (the same draws as `randbelow` would make, made
    together: `draws`)."""
    counter = rng.counter
    points = draws(rng.seed, counter, len(items) - 1)
    for i, point in zip(range(len(items) - 1, 0, -1), points, strict=True):
        j = point % (i + 1)
        if i != j:
            items[i], items[j] = items[j], items[i]
    rng.counter = counter + len(points)
