"""Urza's Blueprints' rules as module functions: the options the rules read, the setup, the legal actions (built once
and shared: callers never change one), each action applied (validated first) and the turn's end. Every change to a
player takes it first (sharing.py)."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from itertools import combinations
from typing import Final

from manaforge.v1.cards_pb2 import MagicCard
from manaforge.v1.common_pb2 import Event
from manaforge.v1.games.blueprints_pb2 import (
    BlueprintsAction,
    BlueprintsBuild,
    BlueprintsPhase,
    BlueprintsPlayer,
    BlueprintsSource,
    BlueprintsState,
)

from engine_core import rng as random
from engine_core.cards import (
    CARD_SET_OPTION,
    catalogue_card,
    find_set,
    memo_by_content,
    open_packs,
)
from engine_core.errors import IllegalActionError, InvalidConfigError, MalformedActionError
from engine_core.game import Option, event, finish, options, seat_count, set_pending
from engine_core.games.blueprints.locations import (
    CARDS_PER_LOCATION,
    LOCATION_NAMES,
    LOCATIONS,
    Location,
    assignment,
    describe_value,
    new_builds,
)
from engine_core.games.blueprints.sharing import own_player
from engine_core.live import own_part

HAND_SIZE: Final = CARDS_PER_LOCATION  # five: a reveal is always the whole hand after the discard
DRAW: Final = BlueprintsPhase.BLUEPRINTS_PHASE_DRAW
DISCARD: Final = BlueprintsPhase.BLUEPRINTS_PHASE_DISCARD
BUILD: Final = BlueprintsPhase.BLUEPRINTS_PHASE_BUILD
DECK: Final = BlueprintsSource.BLUEPRINTS_SOURCE_DECK
DISCARD_PILE: Final = BlueprintsSource.BLUEPRINTS_SOURCE_DISCARD_PILE
PHASE_OF_CHOICE: Final = {"draw": DRAW, "discard": DISCARD, "build": BUILD, "keep": BUILD}
PROMPTS: Final = {
    DRAW: "draw the top card of the deck or of the discard pile",
    DISCARD: "discard a card face up",
    BUILD: "your hand builds a new location: reveal it, or keep playing",
}


REVEAL_OPTION: Final = Option(
    "reveal",
    "one",
    ("one", "all"),
    "one: a reveal records one location, even when the hand builds two; all: a reveal records every new location "
    "the hand builds",
)


TAKEN_CARD_OPTION: Final = Option(
    "discard_taken",
    "allowed",
    ("allowed", "forbidden"),
    "allowed: the card taken from the discard pile may be discarded again in the same turn; forbidden: it may not "
    "(the usual rummy rule)",
)


ROUND_LIMIT_OPTION: Final = Option(
    "round_limit",
    "40",
    ("20", "40", "80"),
    "the game ends after this many rounds (turns of every player) if nobody has built all three locations: the most "
    "locations built wins, ties share the win",
)


MAX_ROUNDS: Final = max(int(choice) for choice in ROUND_LIMIT_OPTION.choices)


# Legal actions are built once and shared between calls (callers never modify an action).
_DRAWS: Final = {source: BlueprintsAction(draw=source) for source in (DECK, DISCARD_PILE)}
_KEEP: Final = BlueprintsAction(keep=True)


@cache
def _discard_action(card_id: int) -> BlueprintsAction:
    return BlueprintsAction(discard=card_id)


@cache
def _build_action(locations: tuple[Location, ...]) -> BlueprintsAction:
    return BlueprintsAction(build=BlueprintsBuild(locations=locations))


def card_of(state: BlueprintsState, card_id: int) -> MagicCard:
    return catalogue_card(state.catalogue, card_id)


def card_name(state: BlueprintsState, card_id: int) -> str:
    try:
        return card_of(state, card_id).name
    except KeyError:
        return f"card {card_id}"


def _format_card(card: MagicCard) -> str:
    colors = "".join(card.colors) or "colorless"
    return f"{card.name} ({colors}, {card.type_line}, mv {card.mana_value}){' *foil*' if card.foil else ''}"


format_card: Final = memo_by_content(_format_card)  # in the events of every draw and discard


def hand_cards(state: BlueprintsState, seat: int) -> list[MagicCard]:
    return [card_of(state, card_id) for card_id in state.players[seat].hand[:]]


def built(player: BlueprintsPlayer) -> set[Location]:
    return {construction.location for construction in player.constructions[:]}


def new_locations(state: BlueprintsState, seat: int) -> list[Location]:
    """The locations the seat's hand builds that the seat has not built yet."""
    player = state.players[seat]
    catalogue = state.catalogue
    cards = [catalogue_card(catalogue, card_id) for card_id in player.hand[:]]
    return new_builds(cards, built(player))


def build_choices(state: BlueprintsState, seat: int) -> list[list[Location]]:
    """What a reveal may record: one new location (option reveal=one), or any non-empty set of them (reveal=all)."""
    available = new_locations(state, seat)
    if options(state)[REVEAL_OPTION.name] == "one":
        return [[location] for location in available]
    return [list(chosen) for size in range(1, len(available) + 1) for chosen in combinations(available, size)]


def round_limit(state: BlueprintsState) -> int:
    return int(options(state)[ROUND_LIMIT_OPTION.name])


def _see(state: BlueprintsState, cards: Iterable[int]) -> None:
    """Record cards put face up in the discard pile (public from now on, wherever they go)."""
    seen = set(state.seen)
    state.seen.extend(card for card in cards if card not in seen)


def _see_card(state: BlueprintsState, card: int) -> None:
    """`_see` for one card (a discard: no set of the whole record)."""
    if card not in state.seen:
        state.seen.append(card)


def setup(state: BlueprintsState) -> None:
    header = state.header
    seats = seat_count(state)
    pool = open_packs(find_set(options(state)[CARD_SET_OPTION.name]), header.rng, seats)
    if len(pool) <= HAND_SIZE * seats:
        raise InvalidConfigError(
            "card pool", f"{seats} boosters hold {len(pool)} cards: too few to deal five to each player and draw"
        )
    random.shuffle(header.rng, pool)  # ids in shuffled order: an id tells nothing of its pack or slot
    for card_id, card in enumerate(pool):
        card.id = card_id
        state.catalogue.append(card)
    state.deck.extend(range(len(pool)))
    random.shuffle(header.rng, state.deck)
    for _ in range(seats):
        player = state.players.add()
        player.hand.extend(state.deck[-HAND_SIZE:])
        del state.deck[-HAND_SIZE:]
        player.hand_size = HAND_SIZE
    state.deck_size = len(state.deck)
    state.first_seat = random.randbelow(header.rng, seats)
    state.turn = 1
    _set_phase(state, state.first_seat, DRAW)


def _set_phase(state: BlueprintsState, seat: int, phase: BlueprintsPhase.ValueType) -> None:
    state.phase = phase
    set_pending(state, [seat], prompt=PROMPTS[phase])


def legal_actions(state: BlueprintsState, seat: int) -> list[BlueprintsAction]:
    if state.phase == DRAW:
        sources = ([DECK] if state.deck or state.discard_pile else []) + ([DISCARD_PILE] if state.discard_pile else [])
        return [_DRAWS[source] for source in sources]
    if state.phase == DISCARD:
        player = state.players[seat]
        kept = player.taken if _keeps_taken(state, player, player.taken) else None
        return [_discard_action(card) for card in player.hand[:] if card != kept]
    builds_ = [_build_action(tuple(chosen)) for chosen in build_choices(state, seat)]
    return [*builds_, _KEEP]


def _keeps_taken(state: BlueprintsState, player: BlueprintsPlayer, card: int) -> bool:
    """True when the discard_taken option forbids discarding this card (taken from the pile this turn)."""
    forbidden = options(state)[TAKEN_CARD_OPTION.name] == "forbidden"
    return forbidden and player.HasField("taken") and player.taken == card


def apply(state: BlueprintsState, seat: int, action: BlueprintsAction) -> list[Event]:
    choice = action.WhichOneof("choice")
    if choice is None:
        raise MalformedActionError("choose an action", "the action draws, discards, builds or keeps nothing")
    if PHASE_OF_CHOICE[choice] != state.phase:
        raise IllegalActionError(
            "turn order", f"now {PROMPTS[state.phase]}: each turn draws a card, then discards a card face up"
        )
    if choice == "draw":
        return _draw(state, seat, action.draw)
    if choice == "discard":
        return _discard(state, seat, action.discard)
    if choice == "build":
        return _build(state, seat, list(action.build.locations))
    if not action.keep:
        raise MalformedActionError("keep the hand", "keep must be true")
    return _end_turn(state, seat)


def _draw(state: BlueprintsState, seat: int, source: BlueprintsSource.ValueType) -> list[Event]:
    if source == DISCARD_PILE:
        if not state.discard_pile:
            raise IllegalActionError("draw", "the discard pile is empty: draw the top card of the deck")
        player = own_player(state, seat)
        card = state.discard_pile.pop()
        player.hand.append(card)
        player.known.append(card)
        player.taken = card
        events = [
            event(
                "CardTaken",
                f"seat {seat} took {format_card(card_of(state, card))} from the top of the discard pile",
                actor=seat,
            )
        ]
    elif source == DECK:
        if not state.deck and not state.discard_pile:
            raise IllegalActionError("draw", "the deck and the discard pile are both empty")
        events = _draw_from_deck(state, seat, 1)
        player = own_player(state, seat)
    else:
        raise MalformedActionError("draw", "draw from the deck or from the discard pile")
    player.hand_size = len(player.hand)
    _set_phase(state, seat, DISCARD)
    return events


def _draw_from_deck(state: BlueprintsState, seat: int, count: int) -> list[Event]:
    """`count` cards from the top of the deck; an empty deck is made again from the shuffled discard pile."""
    events: list[Event] = []
    drawn: list[int] = []
    for _ in range(count):
        if not state.deck:
            if not state.discard_pile:
                break  # cannot happen: setup makes sure the pool is larger than the hands
            random.shuffle_into(own_part(state, "rng"), state.deck, state.discard_pile)
            state.reshuffles += 1
            events.append(event("DiscardPileReshuffled", "the discard pile was shuffled to form a new deck"))
        drawn.append(state.deck.pop())
    own_player(state, seat).hand.extend(drawn)
    state.deck_size = len(state.deck)
    names = ", ".join(format_card(card_of(state, card)) for card in drawn)
    events.append(event("CardsDrawn", f"seat {seat} drew {len(drawn)} from the deck", actor=seat))
    events.append(event("CardsDrawn", f"you drew {names}", actor=seat, audience=seat, cards=drawn))
    return events


def _discard(state: BlueprintsState, seat: int, card: int) -> list[Event]:
    player = state.players[seat]
    if card not in player.hand:
        raise IllegalActionError("discard", f"card {card} is not in your hand")
    if _keeps_taken(state, player, card):
        raise IllegalActionError(
            "discard", "the card taken from the discard pile may not be discarded the same turn (discard_taken)"
        )
    player = own_player(state, seat)
    player.hand.remove(card)
    if card in player.known:
        player.known.remove(card)
    player.hand_size = len(player.hand)
    state.discard_pile.append(card)
    _see_card(state, card)
    events = [
        event("CardDiscarded", f"seat {seat} discarded {format_card(card_of(state, card))}", actor=seat, cards=[card])
    ]
    if new_locations(state, seat):
        _set_phase(state, seat, BUILD)
        return events
    return events + _end_turn(state, seat)


def _build(state: BlueprintsState, seat: int, locations: list[Location]) -> list[Event]:
    if sorted(locations) not in [sorted(chosen) for chosen in build_choices(state, seat)]:
        raise IllegalActionError("build a location", _why_not(state, seat, locations))
    player = own_player(state, seat)
    cards = hand_cards(state, seat)
    events: list[Event] = []
    for location in sorted(locations):
        player.constructions.add(location=location, card_names=[card.name for card in cards], turn=state.turn)
        places = [
            f"{card.name} as {describe_value(value, location)}" if value is not None else card.name
            for card, value in zip(cards, assignment(cards, location), strict=True)
        ]
        events.append(
            event(
                "LocationBuilt",
                f"seat {seat} revealed their hand and built the {LOCATION_NAMES[location]}: {'; '.join(places)}",
                actor=seat,
            )
        )
    if len(built(player)) == len(LOCATIONS):
        finish(state, [seat], _scores(state), f"seat {seat} built the Mine, the Power Plant and the Tower")
        events.append(event("GameEnded", f"seat {seat} built all three locations and won"))
        return events
    state.discard_pile.extend(player.hand)
    _see(state, player.hand)
    del player.hand[:]
    del player.known[:]
    events.append(event("HandDiscarded", f"seat {seat} discarded their whole hand face up", actor=seat))
    events += _draw_from_deck(state, seat, HAND_SIZE)
    player.hand_size = len(player.hand)
    return events + _end_turn(state, seat)


def _why_not(state: BlueprintsState, seat: int, locations: list[Location]) -> str:
    if not locations:
        return "name the location the revealed hand builds"
    if len(locations) > 1 and options(state)[REVEAL_OPTION.name] == "one":
        return "a reveal records one location (option reveal=one)"
    done = built(state.players[seat])
    for location in locations:
        if location not in LOCATION_NAMES:
            return f"{location} is not a location"
        if location in done or locations.count(location) > 1:
            return f"the {LOCATION_NAMES[location]} is already built: only a new location may be revealed"
    return (
        "the hand must hold all the cards a location requires: Mine five different card types, Power Plant one "
        "card of each colour, Tower five different mana values (foils are wild)"
    )


def _end_turn(state: BlueprintsState, seat: int) -> list[Event]:
    own_player(state, seat).ClearField("taken")
    seats = seat_count(state)
    if state.turn >= round_limit(state) * seats:
        scores = _scores(state)
        best = max(scores)
        winners = [s for s, score in enumerate(scores) if score == best]
        reason = f"{round_limit(state)} rounds played without a player building all three locations"
        finish(state, winners, scores, reason)
        text = f"{reason}: the most locations built ({int(best)}) wins; winners {winners}"
        return [event("GameEnded", text)]
    state.turn += 1
    _set_phase(state, (seat + 1) % seats, DRAW)
    return []


def _scores(state: BlueprintsState) -> list[float]:
    return [float(len(built(player))) for player in state.players]
