"""Paying for spells with Element cards: which payments are legal, and listing them all.

A payment is a list of (Element card kind, Element it counts as). "Any 'excess' Elements are lost" and cards
"cannot be split between 2 Spells", so a payment may overshoot with a card worth 2 — but every card must be needed:
a payment is legal when, for each Element, the cards counted as it reach the need and none of them could be left
out (RULES.md, decision D3). Per Element that means the values sum to the need exactly, or to one more when every
card counted is worth 2 (Raging Fire for 1 Fire, Limitless Lightning for Fire Bolt's 1 Lightning).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import chain, product
from typing import Any, Final

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


# The remembered facts below are plain dictionaries, each emptied when it reaches its limit (`remember`): from
# compiled code a lookup there is cheaper than an lru_cache call, which goes through the cache object's tp_call.
_USED: Final[dict[Payment, tuple[tuple[int, int], ...]]] = {}
_PROBLEMS: Final[dict[tuple[Payment, Needs], str]] = {}


def remember(table: dict[Any, Any], key: Any, value: Any, limit: int) -> Any:
    """`table[key] = value`, the table emptied first when it holds `limit` entries; returns `value`. The memos of
    this module and of the legal action tables (__init__.py) all remember through it."""
    if len(table) >= limit:
        table.clear()
    table[key] = value
    return value


def _used(payment: Payment) -> tuple[tuple[int, int], ...]:
    found = _USED.get(payment)
    if found is None:
        found = remember(_USED, payment, tuple(Counter(kind for kind, _ in payment).items()), 1 << 12)
    return found


def _problem(payment: Payment, needs: Needs) -> str:
    """is_payment from a hand holding every card the payment uses."""
    key = (payment, needs)
    found = _PROBLEMS.get(key)
    if found is None:
        found = remember(
            _PROBLEMS, key, is_payment(payment, dict(needs), Counter(kind for kind, _ in payment)), 1 << 14
        )
    return found


def _is_minimal(values: list[int], need: int) -> bool:
    total = sum(values)
    return total == need or (total == need + 1 and all(v == 2 for v in values))


# The Elements each Element card kind can be counted as, and the kinds that can be counted as each Element.
ELEMENTS_OF: Final[dict[int, tuple[Element, ...]]] = {kind: card.elements for kind, card in ELEMENT_BY_KIND.items()}
KINDS_OF: Final[dict[Element, tuple[int, ...]]] = {
    element: tuple(kind for kind, elements in ELEMENTS_OF.items() if element in elements)
    for element in {element for elements in ELEMENTS_OF.values() for element in elements}
}

# A hand of Element cards as one int, `packed`: 4 bits per Element card kind holding its count (no kind has 16
# copies). The cards of the kinds that can pay an Element are then `packed & MASKS[element]`, a small exact key that
# is cheap to make and to hash, where a tuple of (kind, count) pairs would cost a loop.
if max(card.count for card in ELEMENT_BY_KIND.values()) > 15:
    raise ValueError("a packed hand holds at most 15 cards of an Element card kind")


def mask(kinds: Iterable[int]) -> int:
    """The bits of `kinds` in a packed hand."""
    return sum(15 << 4 * kind for kind in set(kinds))


MASKS: Final[dict[Element, int]] = {element: mask(kinds) for element, kinds in KINDS_OF.items()}


def pack(hand: Mapping[int, int]) -> int:
    """A hand of Element card kinds (kind -> count) packed."""
    packed = 0
    for kind, count in hand.items():
        if count > 0:
            if count > 15:
                raise ValueError("a packed hand holds at most 15 cards of an Element card kind")
            packed += count << 4 * kind
    return packed


def unpack(packed: int) -> tuple[tuple[int, int], ...]:
    """The (kind, count) pairs of a packed hand, by kind."""
    hand: list[tuple[int, int]] = []
    while packed:
        shift = (packed & -packed).bit_length() - 1 & ~3  # the lowest kind held: straight to its 4 bits
        count = packed >> shift & 15
        hand.append((shift >> 2, count))
        packed ^= count << shift
    return tuple(hand)


def value(packed: int) -> int:
    """What the cards of a packed hand are worth together (each counted as one of its Elements)."""
    return sum(ELEMENT_BY_KIND[kind].value * count for kind, count in unpack(packed))


def payments(needs: Mapping[Element, int], hand: Mapping[int, int]) -> tuple[Payment, ...]:
    """Every legal payment for `needs` from `hand` (kind -> count), each once, in a fixed order (`packed_payments`)."""
    return packed_payments(tuple(sorted(needs.items())), pack(hand))


def packed_payments(needs: Needs, packed: int) -> tuple[Payment, ...]:
    """Every legal payment for `needs` from a packed hand, each once, in a fixed order: for each needed Element (in
    Element order) its cards as a multiset of kinds, the Elements' choices combined in lexicographic order.

    Each Element's choices are remembered on their own, by the hand's cards that can pay it: those repeat far more
    often than whole hands do. A kind that can pay two needed Elements (a combo or Blended card) may then be chosen
    for both more often than the hand holds it: those combinations are left out. That gives the payments, and their
    order, of a search that chooses Element by Element from what the earlier Elements left: with fewer cards of a
    kind, an Element's choices are the same list with the choices that take too many left out."""
    parts = []
    for element, n in needs:
        if n > 0:
            part = _choices(element, n, packed & MASKS[element])
            if not part:
                return ()  # an Element the hand cannot pay: no combination
            parts.append(part)
    if len(parts) == 1:
        return parts[0]
    if len(parts) == 2:  # the usual case, without the generators of product() and chain()
        first, second = parts
        combined = [tuple(sorted(a + b)) for a in first for b in second]
    else:
        combined = [tuple(sorted(chain.from_iterable(combination))) for combination in product(*parts)]
    short = []  # the kinds that two Elements' choices may overdraw, with the cards the hand holds
    for kind, wanted in _doubles(needs):
        count = packed >> 4 * kind & 15
        if count and count < sum([min(count, n) for n in wanted]):
            short.append((kind, count))
    if not short:
        return tuple(combined)
    return tuple([payment for payment in combined if all([_count(payment, kind) <= n for kind, n in short])])


_DOUBLES: Final[dict[Needs, tuple[tuple[int, tuple[int, ...]], ...]]] = {}


def _doubles(needs: Needs) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """The kinds that can pay two or more of the needed Elements, each with those Elements' needs."""
    found = _DOUBLES.get(needs)
    if found is None:
        found = remember(_DOUBLES, needs, _find_doubles(needs), 1 << 10)
    return found


def _find_doubles(needs: Needs) -> tuple[tuple[int, tuple[int, ...]], ...]:
    wanted = {element: n for element, n in needs if n > 0}
    found = []
    for kind, elements in ELEMENTS_OF.items():
        paid = tuple(wanted[element] for element in elements if element in wanted)
        if len(paid) > 1:
            found.append((kind, paid))
    return tuple(found)


def _count(payment: Payment, kind: int) -> int:
    return [k for k, _ in payment].count(kind)


_CHOICES: Final[dict[tuple[Element, int, int], tuple[Payment, ...]]] = {}
_MULTISETS: Final[dict[tuple[tuple[tuple[int, int], ...], int], tuple[tuple[int, ...], ...]]] = {}


def _choices(element: Element, need: int, payers: int) -> tuple[Payment, ...]:
    """The payments of `need` of `element` alone from the packed cards that can pay it."""
    key = (element, need, payers)
    found = _CHOICES.get(key)
    if found is None:
        found = remember(_CHOICES, key, _find_choices(element, need, payers), 1 << 14)
    return found


def _find_choices(element: Element, need: int, payers: int) -> tuple[Payment, ...]:
    offer = tuple((kind, min(count, need)) for kind, count in unpack(payers))
    return tuple(tuple((kind, element) for kind in chosen) for chosen in _multisets_of(offer, need))


def _multisets_of(offer: tuple[tuple[int, int], ...], need: int) -> tuple[tuple[int, ...], ...]:
    found = _MULTISETS.get((offer, need))
    if found is None:
        found = remember(_MULTISETS, (offer, need), _find_multisets(offer, need), 1 << 12)
    return found


def _find_multisets(offer: tuple[tuple[int, int], ...], need: int) -> tuple[tuple[int, ...], ...]:
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
