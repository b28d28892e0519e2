"""Urza's Blueprints (The Brothers' War minigame, 2-6 players): build the Mine, the Power Plant and the Tower.

One booster per player is shuffled into a deck and five cards are dealt to each player; a random player goes first.
A turn draws the top card of the deck or of the face-up discard pile (an empty deck is made again from the shuffled
discard pile), then discards one card face up. If the five cards left in hand build a location the player has not
built yet, they may reveal them and record it; then they discard their whole hand and draw five new cards. Foils are
wild (any colour, mana value or card type). Mine: five different card types; Power Plant: one card of each colour
(a multicoloured card counts as one colour of its own, lands are colorless); Tower: five different mana values
(lands count 0). The first to build all three wins. Rules, decisions and tests: RULES.md beside this file.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from itertools import combinations
from typing import Any, Final

from manaforge.v1.cards_pb2 import MagicCard
from manaforge.v1.common_pb2 import Event, GameConfig, Rng
from manaforge.v1.games.blueprints_pb2 import (
    BlueprintsAction,
    BlueprintsBuild,
    BlueprintsPhase,
    BlueprintsPlayer,
    BlueprintsSource,
    BlueprintsState,
)
from mypy_extensions import mypyc_attr

from engine_core import rng as random
from engine_core.cards import (
    CARD_SET_OPTION,
    COLORS,
    catalogue_card,
    find_set,
    memo_by_content,
    open_packs,
    sample_faces,
)
from engine_core.errors import IllegalActionError, InvalidConfigError, MalformedActionError
from engine_core.game import Game, GameInfo, Option, event, finish, options, seat_count, set_pending, wrap
from engine_core.games.blueprints.locations import (
    CARDS_PER_LOCATION,
    LOCATION_NAMES,
    LOCATIONS,
    MINE,
    POWER_PLANT,
    TOWER,
    Location,
    assignment,
    describe_value,
    new_builds,
    progress,
)
from engine_core.games.blueprints.sharing import own_player, step_copy
from engine_core.live import own_part
from engine_core.spaces import ActionSpace, Spaces

HAND_SIZE: Final = CARDS_PER_LOCATION  # five: a reveal is always the whole hand after the discard
MAX_SEATS: Final = 6
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


# ----- cards -------------------------------------------------------------------------------------------------------


# Legal actions are built once and shared between calls (callers never modify an action).
_DRAWS: Final = {source: BlueprintsAction(draw=source) for source in (DECK, DISCARD_PILE)}
_KEEP: Final = BlueprintsAction(keep=True)


@cache
def _discard_action(card_id: int) -> BlueprintsAction:
    return BlueprintsAction(discard=card_id)


@cache
def _build_action(locations: tuple[Location, ...]) -> BlueprintsAction:
    return BlueprintsAction(build=BlueprintsBuild(locations=locations))


def _locate(view: BlueprintsState, seat: int, action: BlueprintsAction) -> tuple[Any, ...]:
    """draw (by source), discard (by card id), build (the locations as bits: Mine 1, Power Plant 2, Tower 4), keep."""
    choice = action.WhichOneof("choice")
    if choice == "draw":
        return ("draw", int(action.draw))
    if choice == "discard":
        return ("discard", action.discard)
    if choice == "build":
        return ("build", sum(1 << (location - 1) for location in set(action.build.locations)))
    return ("keep",)


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


# ----- the game ----------------------------------------------------------------------------------------------------


@mypyc_attr(native_class=False)  # compiled by `make engines`; its class attributes stay Python's
class Blueprints(Game[BlueprintsState, BlueprintsAction]):
    info = GameInfo(
        name="blueprints",
        title="Urza's Blueprints",
        min_seats=2,
        max_seats=MAX_SEATS,
        description="Draw and discard from the players' boosters until your hand builds a Mine, a Power Plant and "
        "a Tower.",
        options=(CARD_SET_OPTION, REVEAL_OPTION, TAKEN_CARD_OPTION, ROUND_LIMIT_OPTION),
        max_actions=3 * MAX_ROUNDS * MAX_SEATS,
    )
    state_type = BlueprintsState
    step_copy = staticmethod(step_copy)  # shares the catalogue, the players and the header parts (above)
    action_type = BlueprintsAction

    # ----- setup ----------------------------------------------------------------------------------------------

    def _setup(self, state: BlueprintsState) -> None:
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
        self._set_phase(state, state.first_seat, DRAW)

    def _set_phase(self, state: BlueprintsState, seat: int, phase: BlueprintsPhase.ValueType) -> None:
        state.phase = phase
        set_pending(state, [seat], prompt=PROMPTS[phase])

    # ----- actions --------------------------------------------------------------------------------------------

    def spaces(self, config: GameConfig) -> Spaces:
        """draw (3: by `BlueprintsSource`), discard (a card id), build (8: the locations as bits), keep."""
        actions = ActionSpace(("draw", 3), ("discard", self.card_count(config)), ("build", 8), ("keep",))
        return Spaces(actions, _locate, {"players.constructions": 3})

    def _legal_actions(self, state: BlueprintsState, seat: int) -> list[BlueprintsAction]:
        if state.phase == DRAW:
            sources = ([DECK] if state.deck or state.discard_pile else []) + (
                [DISCARD_PILE] if state.discard_pile else []
            )
            return [_DRAWS[source] for source in sources]
        if state.phase == DISCARD:
            player = state.players[seat]
            kept = player.taken if self._keeps_taken(state, player, player.taken) else None
            return [_discard_action(card) for card in player.hand[:] if card != kept]
        builds_ = [_build_action(tuple(chosen)) for chosen in build_choices(state, seat)]
        return [*builds_, _KEEP]

    def _keeps_taken(self, state: BlueprintsState, player: BlueprintsPlayer, card: int) -> bool:
        """True when the discard_taken option forbids discarding this card (taken from the pile this turn)."""
        forbidden = options(state)[TAKEN_CARD_OPTION.name] == "forbidden"
        return forbidden and player.HasField("taken") and player.taken == card

    def _apply(self, state: BlueprintsState, seat: int, action: BlueprintsAction) -> list[Event]:
        choice = action.WhichOneof("choice")
        if choice is None:
            raise MalformedActionError("choose an action", "the action draws, discards, builds or keeps nothing")
        if PHASE_OF_CHOICE[choice] != state.phase:
            raise IllegalActionError(
                "turn order", f"now {PROMPTS[state.phase]}: each turn draws a card, then discards a card face up"
            )
        if choice == "draw":
            return self._draw(state, seat, action.draw)
        if choice == "discard":
            return self._discard(state, seat, action.discard)
        if choice == "build":
            return self._build(state, seat, list(action.build.locations))
        if not action.keep:
            raise MalformedActionError("keep the hand", "keep must be true")
        return self._end_turn(state, seat)

    def _draw(self, state: BlueprintsState, seat: int, source: BlueprintsSource.ValueType) -> list[Event]:
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
            events = self._draw_from_deck(state, seat, 1)
            player = own_player(state, seat)
        else:
            raise MalformedActionError("draw", "draw from the deck or from the discard pile")
        player.hand_size = len(player.hand)
        self._set_phase(state, seat, DISCARD)
        return events

    def _draw_from_deck(self, state: BlueprintsState, seat: int, count: int) -> list[Event]:
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

    def _discard(self, state: BlueprintsState, seat: int, card: int) -> list[Event]:
        player = state.players[seat]
        if card not in player.hand:
            raise IllegalActionError("discard", f"card {card} is not in your hand")
        if self._keeps_taken(state, player, card):
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
            event(
                "CardDiscarded", f"seat {seat} discarded {format_card(card_of(state, card))}", actor=seat, cards=[card]
            )
        ]
        if new_locations(state, seat):
            self._set_phase(state, seat, BUILD)
            return events
        return events + self._end_turn(state, seat)

    def _build(self, state: BlueprintsState, seat: int, locations: list[Location]) -> list[Event]:
        if sorted(locations) not in [sorted(chosen) for chosen in build_choices(state, seat)]:
            raise IllegalActionError("build a location", self._why_not(state, seat, locations))
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
            finish(state, [seat], self._scores(state), f"seat {seat} built the Mine, the Power Plant and the Tower")
            events.append(event("GameEnded", f"seat {seat} built all three locations and won"))
            return events
        state.discard_pile.extend(player.hand)
        _see(state, player.hand)
        del player.hand[:]
        del player.known[:]
        events.append(event("HandDiscarded", f"seat {seat} discarded their whole hand face up", actor=seat))
        events += self._draw_from_deck(state, seat, HAND_SIZE)
        player.hand_size = len(player.hand)
        return events + self._end_turn(state, seat)

    def _why_not(self, state: BlueprintsState, seat: int, locations: list[Location]) -> str:
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

    def _end_turn(self, state: BlueprintsState, seat: int) -> list[Event]:
        own_player(state, seat).ClearField("taken")
        seats = seat_count(state)
        if state.turn >= round_limit(state) * seats:
            scores = self._scores(state)
            best = max(scores)
            winners = [s for s, score in enumerate(scores) if score == best]
            reason = f"{round_limit(state)} rounds played without a player building all three locations"
            finish(state, winners, scores, reason)
            text = f"{reason}: the most locations built ({int(best)}) wins; winners {winners}"
            return [event("GameEnded", text)]
        state.turn += 1
        self._set_phase(state, (seat + 1) % seats, DRAW)
        return []

    def _scores(self, state: BlueprintsState) -> list[float]:
        return [float(len(built(player))) for player in state.players]

    # ----- views ----------------------------------------------------------------------------------------------

    def _redact(self, view: BlueprintsState, seat: int | None) -> None:
        hidden = self.hidden_cards(view, seat)
        for index in reversed(range(len(view.catalogue))):
            if view.catalogue[index].id in hidden:
                del view.catalogue[index]
        del view.deck[:]
        for other, player in enumerate(view.players):
            if other != seat:
                del player.hand[:]
                player.ClearField("taken")

    def cards(self, state: BlueprintsState) -> list[int]:
        return [*state.deck, *state.discard_pile, *(card for player in state.players for card in player.hand)]

    def hidden_cards(self, state: BlueprintsState, seat: int | None) -> set[int]:
        """The cards of the deck and of the other hands that were never face up: a card taken from the discard pile
        is known in its hand (`known`), one reshuffled into the deck keeps its public face (`seen`), only its
        position is hidden."""
        hidden = set(state.deck)
        for other, player in enumerate(state.players):
            if other != seat:
                hidden.update(card for card in player.hand if card not in player.known)
        return hidden - set(state.seen)

    # ----- text -----------------------------------------------------------------------------------------------

    def describe(self, state: BlueprintsState, action: BlueprintsAction) -> str:
        choice = action.WhichOneof("choice")
        if choice == "draw":
            if action.draw == DISCARD_PILE and state.discard_pile:
                return f"take {card_name(state, state.discard_pile[-1])} from the discard pile"
            return "draw from the deck"
        if choice == "discard":
            return f"discard {_hand_card_text(state, action.discard)}"
        if choice == "build":
            names = " and ".join(LOCATION_NAMES.get(location, "?") for location in action.build.locations)
            return f"reveal the hand and build the {names}"
        return "keep the hand"

    def render(self, view: BlueprintsState, seat: int | None) -> str:
        return render_view(view, seat)

    # ----- bots -----------------------------------------------------------------------------------------------

    def sample_world(self, view: BlueprintsState, seat: int, rng: Rng) -> BlueprintsState:
        """The cards hidden from the seat (the deck and the other hands) dealt again: their ids keep their count,
        their faces come from fresh boosters of the same set (the seat cannot tell which cards they are); a hand keeps
        the cards it was seen to take from the discard pile; a fresh header rng."""
        world = self.copy(view)
        total = view.deck_size + len(view.discard_pile) + sum(player.hand_size for player in view.players)
        known = {card.id: card for card in view.catalogue}
        unseen = [card_id for card_id in range(total) if card_id not in known]
        faces = self._unseen_faces(view, len(unseen), rng)
        for card_id, face in zip(unseen, faces, strict=True):
            face.id = card_id
            known[card_id] = face
        del world.catalogue[:]
        world.catalogue.extend(known[card_id] for card_id in sorted(known))
        placed = {*view.players[seat].hand, *view.discard_pile, *(c for p in view.players for c in p.known)}
        hidden = [card_id for card_id in range(total) if card_id not in placed]  # the deck and the unknown hand cards
        random.shuffle(rng, hidden)
        for other, player in enumerate(world.players):
            if other != seat:
                dealt = player.hand_size - len(player.known)
                player.hand[:] = [*player.known, *hidden[:dealt]]
                del hidden[:dealt]
        world.deck[:] = hidden
        world.header.rng.CopyFrom(random.new_rng(random.next_u64(rng)))
        return world

    def _unseen_faces(self, view: BlueprintsState, count: int, rng: Rng) -> list[MagicCard]:
        return sample_faces(find_set(options(view)[CARD_SET_OPTION.name]), rng, count, seat_count(view))

    def heuristic_action(
        self, view: BlueprintsState, seat: int, legal: list[BlueprintsAction], rng: Rng
    ) -> BlueprintsAction:
        """Build whenever possible (the location furthest from the other hands first); take the discard pile's top
        card when it improves the best five-card hand; discard the card whose loss hurts the hand least."""
        done = built(view.players[seat])
        todo = [location for location in LOCATIONS if location not in done]
        hand = hand_cards(view, seat)
        if view.phase == BUILD:
            builds_ = [action for action in legal if action.HasField("build")]
            return max(builds_, key=lambda action: len(action.build.locations)) if builds_ else legal[-1]
        if view.phase == DRAW:
            take = [action for action in legal if action.draw == DISCARD_PILE]
            if take:
                top = card_of(view, view.discard_pile[-1])
                if _best_after_discard([*hand, top], todo) > _value(hand, todo):
                    return take[0]
            return next(action for action in legal if action.draw == DECK)
        scored = [(_value([c for c in hand if c.id != action.discard], todo), action) for action in legal]
        best = max(score for score, _ in scored)
        return random.choice(rng, [action for score, action in scored if score == best])

    def evaluate(self, state: BlueprintsState) -> list[float]:
        """Locations built, then the hand's progress towards the next one (five places make a location)."""
        strengths = []
        for seat, player in enumerate(state.players):
            done = built(player)
            todo = [location for location in LOCATIONS if location not in done]
            best, _ = _value(hand_cards(state, seat), todo)
            strengths.append(len(done) + best / CARDS_PER_LOCATION)
        return self.win_chances(strengths, 0.5)


def _see(state: BlueprintsState, cards: Iterable[int]) -> None:
    """Record cards put face up in the discard pile (public from now on, wherever they go)."""
    seen = set(state.seen)
    state.seen.extend(card for card in cards if card not in seen)


def _see_card(state: BlueprintsState, card: int) -> None:
    """`_see` for one card (a discard: no set of the whole record)."""
    if card not in state.seen:
        state.seen.append(card)


def _value(cards: list[MagicCard], todo: list[Location]) -> tuple[int, int]:
    """How close a hand is to a new location: the best progress, then the sum over the locations still to build."""
    scores = [progress(cards, location) for location in todo] or [0]
    return max(scores), sum(scores)


def _best_after_discard(cards: list[MagicCard], todo: list[Location]) -> tuple[int, int]:
    return max(_value(cards[:i] + cards[i + 1 :], todo) for i in range(len(cards)))


def _hand_card_text(state: BlueprintsState, card: int) -> str:
    """A card of the pending seat's hand by name, told apart from others of that name: foil, seen by everyone
    (taken from the discard pile), or which copy."""
    name = card_name(state, card)
    for player in state.players:
        if card in player.hand:
            marks = ["foil"] * card_of(state, card).foil + ["the one everyone saw"] * (card in player.known)
            mine = _marks(state, player, card)
            same = [c for c in player.hand if card_name(state, c) == name and _marks(state, player, c) == mine]
            if len(same) > 1:
                marks.append(f"copy {same.index(card) + 1}")
            return name + (f" ({', '.join(marks)})" if marks else "")
    return name


def _marks(state: BlueprintsState, player: BlueprintsPlayer, card: int) -> int:
    return int(card_of(state, card).foil) + 2 * (card in player.known)


GAME: Final = Blueprints()


WANTS: Final = {MINE: "five card types", POWER_PLANT: "the five colours", TOWER: "five mana values"}
PHASE_WORDS: Final = {
    BlueprintsPhase.BLUEPRINTS_PHASE_DRAW: "draws",
    BlueprintsPhase.BLUEPRINTS_PHASE_DISCARD: "discards",
    BlueprintsPhase.BLUEPRINTS_PHASE_BUILD: "may build",
}


def render_view(view: BlueprintsState, seat: int | None) -> str:
    """The table as its players look at it: the race to three locations, the discard pile's top, the seat's hand and
    how close it is to each location it has not built. Seats only as "seat N"."""
    n = seat_count(view)
    rounds = f"round {max(1, (view.turn + n - 1) // n)} of {round_limit(view)}"
    pending = view.header.pending.seats
    if view.header.outcome.finished:
        head = f"Urza's Blueprints · game over in {rounds}"
    else:
        head = f"Urza's Blueprints · {rounds} · seat {pending[0]} {PHASE_WORDS.get(view.phase, 'plays')}"
    pile = view.discard_pile
    tops = [card_name(view, card) for card in pile[:-4:-1]]  # the top three, top first
    top = f"top {tops[0]}" + (f", then {', '.join(tops[1:])}" if len(tops) > 1 else "") if tops else "empty"
    lines = [
        f"{head} · first to build all three locations wins",
        "  " + " · ".join(f"{LOCATION_NAMES[loc]}: {WANTS[loc]}" for loc in LOCATIONS) + " (a foil is wild)",
    ]
    lines += wrap(f"Deck: {view.deck_size} cards · discard pile: {len(pile)}, {top}", 100, "", "  ")
    for index, player in enumerate(view.players):
        done = ", ".join(LOCATION_NAMES[c.location] for c in player.constructions) or "nothing yet"
        known = [card_name(view, card) for card in player.known] if index != seat else []
        seen = f"; seen taking {', '.join(known)}" if known else ""
        said = f"  seat {index}: built {done} ({len(player.constructions)} of 3) · {player.hand_size} cards{seen}"
        lines += wrap(said, 100, "", "      ")
    if seat is not None and 0 <= seat < n and view.players[seat].hand:
        player = view.players[seat]
        lines.append(f"seat {seat}'s hand:")
        lines += [f"  {format_card(card_of(view, card))}" for card in player.hand]
        cards = hand_cards(view, seat)
        for location in LOCATIONS:
            if location not in built(player):
                lines.append(f"  {LOCATION_NAMES[location]}: {_closeness(cards, location)}")
    return "\n".join(lines)


def _closeness(cards: list[MagicCard], location: Location) -> str:
    """How far the hand goes toward a location: "3 of 5 (green, blue, white; missing black, red)"."""
    values = sorted((value for value in assignment(cards, location) if value is not None), key=_value_order)
    have = min(len(values), CARDS_PER_LOCATION)
    if location == TOWER:
        said = f"mana values {', '.join(values)}" if values else "none yet"
    else:
        said = ", ".join(describe_value(value, location) for value in values) or "none yet"
    if location == POWER_PLANT and have < CARDS_PER_LOCATION:
        said += "; missing " + ", ".join(describe_value(c, location) for c in COLORS if c not in values)
    return f"{have} of {CARDS_PER_LOCATION} ({said})"


def _value_order(value: str) -> tuple[int, str]:
    """Mana values by number, colours in the colour wheel's order (WUBRG), card types alphabetically."""
    if value.isdigit():
        return int(value), ""
    return (COLORS.index(value), "") if value in COLORS else (0, value)
