"""The counter-based generator: draws are a pure function of (seed, counter), in range, and shuffles permute."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from manaforge.v1.common_pb2 import Rng

from engine_core import rng

seeds = st.integers(min_value=0, max_value=2**64 - 1)


@given(seeds, st.integers(min_value=1, max_value=10**9))
def test_randbelow_is_in_range_and_advances_the_counter_by_one(seed: int, n: int) -> None:
    state = rng.new_rng(seed)
    assert 0 <= rng.randbelow(state, n) < n
    assert state.counter == 1


@given(seeds, st.lists(st.integers(), max_size=60))
def test_shuffle_is_a_permutation_and_replays_from_the_seed(seed: int, items: list[int]) -> None:
    first, second = list(items), list(items)
    rng.shuffle(rng.new_rng(seed), first)
    rng.shuffle(rng.new_rng(seed), second)
    assert sorted(first) == sorted(items) and first == second


@given(seeds, st.lists(st.integers(), max_size=30), st.lists(st.integers(), max_size=30))
def test_shuffle_into_moves_a_pile_into_the_deck_then_shuffles(seed: int, deck: list[int], pile: list[int]) -> None:
    a, b = rng.new_rng(seed), rng.new_rng(seed)
    new_deck, emptied = list(deck), list(pile)
    rng.shuffle_into(a, new_deck, emptied)
    expected = deck + pile
    rng.shuffle(b, expected)
    assert new_deck == expected and not emptied and a == b


def test_the_draws_of_a_seed_are_fixed() -> None:
    """Exact values: a change of generator would silently change every stored game's replay."""
    state = rng.new_rng(42)
    assert [rng.roll(state, 12) for _ in range(8)] == [rng.roll(s, 12) for s in _replayed(42, 8)]
    assert rng.next_u64(rng.new_rng(0)) == 0xE220A8397B1DCDAF


def _replayed(seed: int, n: int) -> list[Rng]:
    states = []
    for counter in range(n):
        state = rng.new_rng(seed)
        state.counter = counter
        states.append(state)
    return states


def test_dice_and_coins_cover_every_face() -> None:
    state = rng.new_rng(7)
    assert {rng.roll(state, 12) for _ in range(500)} == set(range(1, 13))
    assert {rng.coin(state) for _ in range(50)} == {True, False}
