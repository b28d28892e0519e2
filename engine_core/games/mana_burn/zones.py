"""Card movements between the MANA BURN zones, and the small facts about players the rules read.

Every card lives in exactly one zone: the Library, the Graveyard, the Mana Burn pile, a hand, a face-down offer,
the auction, in play (a creature or a Holy Armor on one) or on the stack.
"""

from __future__ import annotations

from manaforge.v1.common_pb2 import Event
from manaforge.v1.games.mana_burn_pb2 import ManaBurnCreature, ManaBurnPlayer, ManaBurnState

from engine_core import rng
from engine_core.game import event, seat_count
from engine_core.games.mana_burn.cards import KIND_OF, Kind, name, names
from engine_core.games.mana_burn.sharing import own_player


def order_after(state: ManaBurnState, seat: int) -> list[int]:
    """The other seats in turn order, starting with the one on `seat`'s left."""
    n = seat_count(state)
    return [(seat + state.direction * k) % n for k in range(1, n)]


def left_of(state: ManaBurnState, seat: int) -> int:
    return (seat + state.direction) % seat_count(state)


def right_of(state: ManaBurnState, seat: int) -> int:
    return (seat - state.direction) % seat_count(state)


def count_in_play(player: ManaBurnPlayer, k: Kind) -> int:
    kinds = KIND_OF
    return sum(1 for c in player.creatures[:] if kinds[c.card] == k)


def choices(cards: list[int]) -> list[int]:
    """The cards to choose from, in id order (every copy: a client may name any of them)."""
    return sorted(cards)


def refill_library(state: ManaBurnState, events: list[Event]) -> None:
    """An empty Library is refilled by shuffling the Graveyard and the Mana Burn pile (a gap decision)."""
    if state.library or not (state.graveyard or state.mana_burn):
        return
    rng.shuffle_into(state.header.rng, state.library, state.graveyard, state.mana_burn)
    events.append(event("LibraryRefilled", "the Library ran out: the Graveyard and Mana Burn pile were shuffled in"))


def take_library(state: ManaBurnState, n: int, events: list[Event]) -> list[int]:
    """Up to `n` cards off the top of the Library (fewer when it and its refill run out)."""
    taken: list[int] = []
    for _ in range(n):
        refill_library(state, events)
        if not state.library:
            break
        taken.append(state.library.pop())
    return taken


def gain(
    state: ManaBurnState, seat: int, cards: list[int], how: str, events: list[Event], public: bool = False
) -> None:
    """`cards` go into `seat`'s hand; the seat sees which, the others see how many (or which, when `public`)."""
    if not cards:
        return
    own_player(state, seat).hand.extend(cards)
    what = names(cards) if public else f"{len(cards)} card{'s' if len(cards) != 1 else ''}"
    events.append(event("CardsTaken", f"seat {seat} {how}: {what}", actor=seat))
    events.append(event("CardsReceived", f"you got {names(cards)}", audience=seat, cards=cards))


def draw(state: ManaBurnState, seat: int, n: int, events: list[Event], how: str = "drew") -> None:
    gain(state, seat, take_library(state, n, events), how, events)


def discard(state: ManaBurnState, seat: int, card: int, events: list[Event], how: str = "discarded") -> None:
    own_player(state, seat).hand.remove(card)
    state.graveyard.append(card)
    events.append(event("CardDiscarded", f"seat {seat} {how} {name(card)}", actor=seat))


def take_graveyard(state: ManaBurnState, seat: int, n: int, events: list[Event]) -> None:
    taken = [state.graveyard.pop() for _ in range(min(n, len(state.graveyard)))]
    gain(state, seat, taken, "took from the Graveyard", events, public=True)


def take_random(state: ManaBurnState, thief: int, victim: int, n: int, events: list[Event]) -> None:
    hand = state.players[victim].hand
    if hand:
        hand = own_player(state, victim).hand
    taken = []
    for _ in range(min(n, len(hand))):
        taken.append(hand.pop(rng.randbelow(state.header.rng, len(hand))))
    if taken:
        events.append(event("CardsLost", f"seat {thief} took your {names(taken)}", audience=victim))
    gain(state, thief, taken, f"took at random from seat {victim}", events)


def find_creature(state: ManaBurnState, card: int) -> tuple[int, int] | None:
    """(controller, index) of the creature `card` in play, or None."""
    for s, player in enumerate(state.players):
        for i, creature in enumerate(player.creatures):
            if creature.card == card:
                return s, i
    return None


def find_armor(state: ManaBurnState, card: int) -> tuple[int, int] | None:
    """(controller, index) of the creature that wears the Holy Armor `card`, or None."""
    for s, player in enumerate(state.players):
        for i, creature in enumerate(player.creatures):
            if card in creature.armor:
                return s, i
    return None


def remove_creature(state: ManaBurnState, card: int) -> ManaBurnCreature:
    """Take `card` out of play (with its Armor still on it); the caller puts it somewhere."""
    where = find_creature(state, card)
    if where is None:
        raise ValueError(f"card {card} is not a creature in play")
    seat, i = where
    creature: ManaBurnCreature = own_player(state, seat).creatures.pop(i)
    return creature


def bury(state: ManaBurnState, card: int, events: list[Event], how: str) -> None:
    """A creature in play dies: it and its Holy Armors go to the Graveyard."""
    creature = remove_creature(state, card)
    state.graveyard.extend(creature.armor)
    state.graveyard.append(creature.card)
    events.append(event("CreatureDied", f"{name(card)} {how}"))


def give_creature(state: ManaBurnState, card: int, seat: int) -> None:
    creature = remove_creature(state, card)
    own_player(state, seat).creatures.append(creature)


def sync_sizes(state: ManaBurnState) -> None:
    """The public counts of hidden piles (a player only when they changed: see sharing.py)."""
    state.library_size = len(state.library)
    state.mana_burn_size = len(state.mana_burn)
    for seat, player in enumerate(state.players[:]):
        hand_size, offer_size = len(player.hand), len(player.offer)
        if player.hand_size != hand_size or player.offer_size != offer_size:
            player = own_player(state, seat)
            player.hand_size = hand_size
            player.offer_size = offer_size


def all_cards(state: ManaBurnState) -> list[int]:
    found = [*state.library, *state.graveyard, *state.mana_burn, *state.auction, *(i.card for i in state.stack)]
    for player in state.players:
        found += [*player.hand, *player.offer]
        for creature in player.creatures:
            found += [creature.card, *creature.armor]
    return found
