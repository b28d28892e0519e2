"""A counter-based random generator whose whole state is the `Rng` message inside the game state.

A draw is a pure function of (seed, counter): replaying a game's actions from its seed gives the same draws.
The generator is SplitMix64, which passes BigCrush and is cheap in pure Python.
"""

from __future__ import annotations

from collections.abc import MutableSequence
from typing import TypeVar

from manaforge.v1.common_pb2 import Rng

_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15

T = TypeVar("T")


def new_rng(seed: int) -> Rng:
    return Rng(seed=seed & _MASK, counter=0)


def _mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def next_u64(rng: Rng) -> int:
    """The next 64-bit draw; advances the counter in the message."""
    counter = rng.counter + 1
    rng.counter = counter
    return _mix((rng.seed + counter * _GAMMA) & _MASK)


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
    """Fisher-Yates in place, on a list or a repeated protobuf field (the same draws as `randbelow` would make)."""
    seed, counter = rng.seed, rng.counter
    for i in range(len(items) - 1, 0, -1):
        counter += 1
        j = _mix((seed + counter * _GAMMA) & _MASK) % (i + 1)
        if i != j:
            items[i], items[j] = items[j], items[i]
    rng.counter = counter
