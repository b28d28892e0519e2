"""Paying for spells with Element cards: which payments are legal, and listing them all.

A payment is a list of (Element card kind, Element it counts as). "Any 'excess' Elements are lost" and cards
"cannot be split between 2 Spells", so a payment may overshoot with a card worth 2 — but every card must be needed:
a payment is legal when, for each Element, the cards counted as it reach the need and none of them could be left
out (RULES.md, decision D3). Per Element that means the values sum to the need exactly, or to one more when every
card counted is worth 2 (Raging Fire for 1 Fire, Limitless Lightning for Fire Bolt's 1 Lightning).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from functools import lru_cache
from itertools import chain, product

from engine_core.games.magicka.cards import ELEMENT_BY_KIND, Element

Payment = tuple[tuple[int, Element], ...]  # sorted (kind, element) pairs
Needs = tuple[tuple[Element, int], ...]  # sorted (Element, count) pairs


def hand_kinds(element_cards: Sequence[int], kind_of: Mapping[int, int]) -> Counter[int]:
    return Counter(kind_of[c] for c in element_cards)


def is_payment(payment: Sequence[tuple[int, Element]], needs: Mapping[Element, int], hand: Counter[int]) -> str:
    """'' when `payment` is legal for `needs` from `hand` (kind counts); otherwise what is wrong."""
    used = Counter(kind for kind, _ in payment)
    for kind, n in used.items():
        if hand[kind] < n:
            return f"the hand holds {hand[kind]} card(s) of kind {kind}, not {n}"
    values: dict[Element, list[int]] = {e: [] for e in needs}
    for kind, element in payment:
        card = ELEMENT_BY_KIND.get(kind)
        if card is None or element not in card.elements:
            return f"card kind {kind} cannot be counted as that Element"
        if element not in values:
            return "the spell does not use that Element: 'excess Elements are lost', so do not pay it"
        values[element].append(card.value)
    for element, need in needs.items():
        if not _is_minimal(values[element], need):
            return "the Elements paid do not meet the cost, or a card is not needed"
    return ""


def payment_problem(payment: Payment, needs: Needs, held: list[int]) -> str:
    """is_payment for a hand given as the kinds of its cards: the same answer, with the part that does not depend on
    the hand (the payment against the needs) remembered."""
    for kind, n in _used(payment):
        if held.count(kind) < n:
            return f"the hand holds {held.count(kind)} card(s) of kind {kind}, not {n}"
    return _problem(payment, needs)


@lru_cache(maxsize=1 << 12)
def _used(payment: Payment) -> tuple[tuple[int, int], ...]:
    return tuple(Counter(kind for kind, _ in payment).items())


@lru_cache(maxsize=1 << 14)
def _problem(payment: Payment, needs: Needs) -> str:
    """is_payment from a hand holding every card the payment uses."""
    return is_payment(payment, dict(needs), Counter(kind for kind, _ in payment))


def _is_minimal(values: list[int], need: int) -> bool:
    total = sum(values)
    return total == need or (total == need + 1 and all(v == 2 for v in values))


# The Element card kinds that can be counted as each Element.
PAYERS: dict[Element, tuple[int, ...]] = {
    e: tuple(k for k, card in ELEMENT_BY_KIND.items() if e in card.elements)
    for e in {e for card in ELEMENT_BY_KIND.values() for e in card.elements}
}
ELEMENTS_OF: dict[int, tuple[Element, ...]] = {kind: card.elements for kind, card in ELEMENT_BY_KIND.items()}


def payments(needs: Mapping[Element, int], hand: Mapping[int, int]) -> tuple[Payment, ...]:
    """Every legal payment for `needs` from `hand`, each once, in a fixed order."""
    wanted = tuple(sorted(needs.items()))
    # When no kind in the hand can pay two of the needed Elements, the payments are every combination of a payment
    # for each Element (in the search's order), and each Element's payments are remembered on their own: the hand's
    # kinds that can pay it, counted up to its need. Those repeat far more often than whole hands do.
    want = {element: n for element, n in wanted if n > 0}
    offers: dict[Element, list[tuple[int, int]]] = {element: [] for element in want}
    for kind, count in sorted(hand.items()):
        if count > 0:
            paid = False
            for element in ELEMENTS_OF.get(kind, ()):
                n = want.get(element)
                if n:
                    if paid:
                        return _shared_payments(wanted, hand)
                    offers[element].append((kind, min(count, n)))
                    paid = True
    parts = [_element_payments(element, n, tuple(offers[element])) for element, n in want.items()]
    if len(parts) == 1:
        return parts[0]
    return tuple(tuple(sorted(chain.from_iterable(combination))) for combination in product(*parts))


@lru_cache(maxsize=1 << 14)
def _element_payments(element: Element, need: int, offer: tuple[tuple[int, int], ...]) -> tuple[Payment, ...]:
    """The payments of `need` of `element` alone from `offer` (kinds with their counts capped at the need)."""
    return tuple(tuple((kind, element) for kind in chosen) for chosen in _multisets_of(offer, need))


def _shared_payments(wanted: Needs, hand: Mapping[int, int]) -> tuple[Payment, ...]:
    """The search over every needed Element at once, for hands with kinds that can pay more than one of them."""
    # The cache key keeps only what the search looks at: the kinds that can pay a needed Element, each counted up
    # to the total need of the Elements it can pay (every card is worth at least 1, so no payment uses more).
    cap: dict[int, int] = {}
    for element, n in wanted:
        if n > 0:
            for kind in PAYERS.get(element, ()):
                cap[kind] = cap.get(kind, 0) + n
    return _payments(wanted, tuple(sorted((k, min(n, cap[k])) for k, n in hand.items() if n > 0 and k in cap)))


@lru_cache(maxsize=1 << 14)
def _payments(needs: tuple[tuple[Element, int], ...], hand: tuple[tuple[int, int], ...]) -> tuple[Payment, ...]:
    elements = [e for e, n in needs if n > 0]
    return tuple(_pay(elements, dict(needs), dict(hand), ()))


def _pay(
    elements: list[Element], needs: Mapping[Element, int], hand: dict[int, int], done: Payment
) -> Iterator[Payment]:
    """The payments of `elements` in order from `hand` (kind counts: a plain dict, copied per choice)."""
    if not elements:
        yield tuple(sorted(done))
        return
    element, rest = elements[0], elements[1:]
    need = needs[element]
    offer = tuple([(k, min(hand[k], need)) for k in PAYERS.get(element, ()) if hand.get(k, 0) > 0])  # by kind
    for chosen in _multisets_of(offer, need):
        left = dict(hand)
        for kind in chosen:
            left[kind] -= 1
        yield from _pay(rest, needs, left, done + tuple((k, element) for k in chosen))


@lru_cache(maxsize=1 << 12)
def _multisets_of(offer: tuple[tuple[int, int], ...], need: int) -> tuple[tuple[int, ...], ...]:
    """Multisets of kinds (non-decreasing) whose values meet `need` minimally, from `offer` (kinds by kind, with their
    counts). Every card is worth at least 1, so no multiset holds more than `need` cards of a kind: the counts are
    capped there by the callers, and the search is remembered per (offer, need), which repeats far more often than
    whole hands do."""
    options = [kind for kind, _ in offer]
    caps = dict(offer)

    def grow(start: int, picked: tuple[int, ...], total: int) -> Iterator[tuple[int, ...]]:
        values = [ELEMENT_BY_KIND[k].value for k in picked]
        if total >= need:
            if _is_minimal(values, need):
                yield picked
            return
        for i in range(start, len(options)):
            kind = options[i]
            if picked.count(kind) < caps[kind]:
                yield from grow(i, (*picked, kind), total + ELEMENT_BY_KIND[kind].value)

    return tuple(grow(0, (), 0))


def can_pay(needs: Mapping[Element, int], hand: Counter[int]) -> bool:
    return bool(payments(needs, hand))
