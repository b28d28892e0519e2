"""Mishra's Manufactory (The Brothers' War minigame, 2-4 players): a draft from a conveyor belt.

One booster per player is shuffled into a deck; four cards are revealed as the conveyor belt, front first (the two
at the front are free, the two at the back, closest to the deck, cost a discard from your collection). A turn
drafts one belt card into one of your six face-up groups (the five colours and colorless; lands are wild and
multicoloured cards take one of their colours, declared when drafted); the cards behind slide forward and the deck
refills the back. When every card is collected, each colour's largest group scores 3 and the second largest 2
(ties: highest mana value, then half the points rounded up), plus 2/4/6 points for holding 4/5/6 groups.
Rules, decisions and tests: RULES.md beside this file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import cache
from typing import Any, Final, NamedTuple

from manaforge.v1.cards_pb2 import MagicCard
from manaforge.v1.common_pb2 import Event, GameConfig, Rng
from manaforge.v1.games.manufactory_pb2 import (
    ManufactoryAction,
    ManufactoryColor,
    ManufactoryPlayer,
    ManufactoryState,
)
from mypy_extensions import mypyc_attr

from engine_core import rng as random
from engine_core.bots.budget import Budget, by_seats
from engine_core.cards import (
    CARD_SET_OPTION,
    catalogue_card,
    find_set,
    is_land,
    sample_faces,
)
from engine_core.cards.booster import draw_faces, shared_cards
from engine_core.errors import IllegalActionError, MalformedActionError
from engine_core.game import (
    Game,
    GameInfo,
    Option,
    event,
    finish,
    options,
    seat_count,
    seats_text,
    set_pending,
    wrap,
)
from engine_core.games.manufactory.scoring import (
    GROUPS,
    SECOND_STILL_SCORES,
    USES_SECOND_PLACE,
    Collection,
    color_points,
    final_points,
    group_bonus,
    group_count,
    winners,
)
from engine_core.games.manufactory.sharing import (
    LiveGroup,
    LivePlayer,
    LiveState,
    own_group,
    own_player,
    pass_turn,
    step_copy,
)
from engine_core.live import Shared, Twin, clone, is_frozen
from engine_core.spaces import ActionSpace, Spaces

BELT_SIZE: Final = 4
FRONT: Final = 2  # belt positions 0 and 1 are the front of the line; the rest is the back
MAX_CARDS: Final = 400  # a game lasts exactly one turn per card; four boosters are about 60 cards
PROMPT: Final = "draft a card from the conveyor belt"
ACTION_NAME: Final = ManufactoryAction.DESCRIPTOR.full_name

COLOR_OF_GROUP: Final[dict[str, ManufactoryColor.ValueType]] = {
    group: ManufactoryColor.Value(f"MANUFACTORY_COLOR_{name}")
    for group, name in zip(GROUPS, ("WHITE", "BLUE", "BLACK", "RED", "GREEN", "COLORLESS"), strict=True)
}
GROUP_OF_COLOR: Final = {color: group for group, color in COLOR_OF_GROUP.items()}
GROUP_INDEX: Final = {group: index for index, group in enumerate(GROUPS)}
INDEX_OF_COLOR: Final = {color: GROUP_INDEX[group] for color, group in GROUP_OF_COLOR.items()}
GROUP_NAMES: Final = {"W": "white", "U": "blue", "B": "black", "R": "red", "G": "green", "C": "colorless"}


class SeatTexts(dict[int, str]):
    """`form` with a seat filled in, by seat: made once for the seats a game can have; any other seat (in a state a
    client sent) made when asked, not kept."""

    __slots__ = ("form",)

    def __init__(self, form: str, seats: int) -> None:
        super().__init__((seat, form.format(seat)) for seat in range(seats))
        self.form = form

    def __missing__(self, seat: int) -> str:
        return self.form.format(seat)


# The events' texts of a draft, in parts made once: the seat's part, the card's (its facts), the group's part.
DRAFTED: Final = SeatTexts("seat {} drafted ", 4)
DISCARDED: Final = SeatTexts("seat {} discarded ", 4)
INTO_FRONT: Final = tuple(f" from the front of the line into their {GROUP_NAMES[group]} group" for group in GROUPS)
INTO_BACK: Final = tuple(f" from the back of the line into their {GROUP_NAMES[group]} group" for group in GROUPS)
FROM_GROUP: Final = tuple(f" from their {GROUP_NAMES[group]} group" for group in GROUPS)

FIRST_PLACE_TIE_OPTION: Final = Option(
    "first_place_tie",
    USES_SECOND_PLACE,
    (USES_SECOND_PLACE, SECOND_STILL_SCORES),
    "when players tie for a colour's largest group (each gets 2 of the 3 points): uses_second_place: the tied "
    "players fill first and second place, so nobody else scores second; second_still_scores: the next largest "
    "group still scores 2 points",
)
WIN_TIE_OPTION: Final = Option(
    "win_tie",
    "shared",
    ("shared", "most_cards"),
    "players tied for the most points: shared: all of them win; most_cards: the one who collected the most cards "
    "wins (still tied: shared)",
)


# ----- cards and groups ------------------------------------------------------------------------------------------


def card_of(state: ManufactoryState, card_id: int) -> MagicCard:
    return catalogue_card(state.catalogue, card_id)


def card_groups(card: MagicCard) -> tuple[str, ...]:
    """The groups a card may join: lands are wild (any, colorless included), a multicoloured card any of its
    colours, any other card its colour, or colorless."""
    if is_land(card):
        return GROUPS
    return _groups_of_colors(tuple(card.colors))


@cache
def _groups_of_colors(colors: tuple[str, ...]) -> tuple[str, ...]:
    """The groups a card that is not a land may join, by its colours (asked for every belt card at every turn)."""
    if not colors:
        return ("C",)
    return tuple(group for group in GROUPS if group in colors)


@cache
def _colors_of_groups(groups: tuple[str, ...]) -> tuple[ManufactoryColor.ValueType, ...]:
    return tuple(COLOR_OF_GROUP[group] for group in groups)


class Draft(NamedTuple):
    """What an action says, read once: the card drafted, the colour declared and its group's index (None: no group),
    and the card discarded (None: none, a draft from the front)."""

    card: int
    color: ManufactoryColor.ValueType
    group: int | None
    discard: int | None


# The shared actions (below) by identity, with what they say: apply reads a shared action in one lookup.
_DECODED: Final[dict[int, tuple[ManufactoryAction, Draft]]] = {}


def _shared_action(card: int, color: ManufactoryColor.ValueType, discard: int | None = None) -> ManufactoryAction:
    """A legal action made to be shared (callers never modify an action), remembered with what it says."""
    made = ManufactoryAction(card=card, color=color, discard=discard)
    _DECODED[id(made)] = made, Draft(card, color, INDEX_OF_COLOR[color], discard)  # the reference keeps the id
    return made


def draft_of(action: ManufactoryAction) -> Draft:
    """What an action says: a shared action's by identity, any other action's read from its fields."""
    known = _DECODED.get(id(action))
    if known is not None and known[0] is action:
        return known[1]
    color = action.color
    discard = action.discard if action.HasField("discard") else None
    return Draft(action.card, color, INDEX_OF_COLOR.get(color), discard)


class BackRow(dict[int, ManufactoryAction]):
    """The drafts of one back-of-the-line card as one colour, by the discarded card: each action is made on first
    use and then shared."""

    __slots__ = ("card", "color")

    def __init__(self, card: int, color: ManufactoryColor.ValueType) -> None:
        super().__init__()
        self.card = card
        self.color = color

    def __missing__(self, discard: int) -> ManufactoryAction:
        made = self[discard] = _shared_action(self.card, self.color, discard)
        return made


Colors = tuple[ManufactoryColor.ValueType, ...]
Drafts = tuple[tuple[ManufactoryAction, ...], tuple[BackRow, ...]]

# Legal actions are built once and shared: a card's drafts from the front (one per colour) and its rows of drafts
# from the back, by (card id, declarable colours); the actions themselves by (card id, colour), and by discarded card
# in a row. Card ids are below MAX_CARDS, so these stay small.
_DRAFTS: Final[dict[tuple[int, Colors], Drafts]] = {}
_FRONT_ACTIONS: Final[dict[tuple[int, ManufactoryColor.ValueType], ManufactoryAction]] = {}
_BACK_ROWS: Final[dict[tuple[int, ManufactoryColor.ValueType], BackRow]] = {}
DRAFTS_LIMIT: Final = 1 << 14


def _drafts(card_id: int, colors: Colors) -> Drafts:
    key = (card_id, colors)
    found = _DRAFTS.get(key)
    if found is None:
        if len(_DRAFTS) >= DRAFTS_LIMIT:  # a state from a client (the rules service) may hold any card ids
            _DRAFTS.clear()
            _FRONT_ACTIONS.clear()
            _BACK_ROWS.clear()
            _DECODED.clear()
        keys = [(card_id, color) for color in colors]
        for color_key in keys:
            if color_key not in _FRONT_ACTIONS:
                _FRONT_ACTIONS[color_key] = _shared_action(card_id, color_key[1])
                _BACK_ROWS[color_key] = BackRow(*color_key)
        front = tuple(_FRONT_ACTIONS[color_key] for color_key in keys)
        found = _DRAFTS[key] = front, tuple(_BACK_ROWS[color_key] for color_key in keys)
    return found


class CardFacts(NamedTuple):
    """What the rules ask of a card at every step, read once per card (`card_facts`)."""

    card_id: int
    name: str
    text: str  # `format_card`: in the events of every draft
    revealed: str  # the event's text when the card joins the back of the belt
    colors: tuple[ManufactoryColor.ValueType, ...]  # the colours an action may declare: `card_groups` as values
    front: tuple[ManufactoryAction, ...]  # its drafts from the front of the line, one per colour
    back: tuple[BackRow, ...]  # its drafts from the back, one row per colour


Traits = tuple[str, str, str, Colors]  # name, text, revealed text, declarable colours
TraitsKey = tuple[str, tuple[str, ...], bool, int]  # name, colours, land, mana value: all the traits depend on
TRAITS_LIMIT: Final = 1 << 12

# The same printed card comes back under many ids from game to game: its traits are remembered without its id.
_TRAITS: Final[dict[TraitsKey, Traits]] = {}


def _traits(key: TraitsKey) -> Traits:
    name, colors, land, mana_value = key
    declarable = _colors_of_groups(GROUPS if land else _groups_of_colors(colors))
    text = f"{name} ({''.join(colors) or 'colorless'}{' land' if land else ''}, mv {mana_value})"
    return name, text, f"{text} joined the back of the conveyor belt", declarable


def _card_facts(card: MagicCard) -> CardFacts:
    key = (card.name, tuple(card.colors), is_land(card), card.mana_value)
    traits = _TRAITS.get(key)
    if traits is None:
        if len(_TRAITS) >= TRAITS_LIMIT:
            _TRAITS.clear()
        traits = _TRAITS[key] = _traits(key)
    name, text, revealed, colors = traits
    card_id = card.id
    return CardFacts(card_id, name, text, revealed, colors, *_drafts(card_id, colors))


_BY_CONTENT: Final[dict[bytes, CardFacts]] = {}
CONTENT_LIMIT: Final = 1 << 15  # a few thousand printed cards at each id of a game


def card_facts(card: MagicCard) -> CardFacts:
    """A card's facts, remembered by its serialized bytes (equal bytes, equal card: exact for any card). Reading
    the fields again costs several times the serialization; the same printed card at the same id comes back often
    from game to game."""
    key = card.SerializeToString()
    facts = _BY_CONTENT.get(key)
    if facts is None:
        if len(_BY_CONTENT) >= CONTENT_LIMIT:
            _BY_CONTENT.clear()
        facts = _BY_CONTENT[key] = _card_facts(card)
    return facts


_KNOWN: Final[dict[int, tuple[MagicCard, CardFacts]]] = {}  # id(card) -> the card and its facts, for frozen cards
KNOWN_LIMIT: Final = 1 << 14


def facts_at(catalogue: Sequence[MagicCard], card_id: int) -> CardFacts:
    """The facts of the catalogue's card `card_id`. A live state's cards never change (`engine_core.live.freeze`),
    so their facts are found by identity, at the index of a full state's catalogue (id = index), in one lookup."""
    if card_id < len(catalogue):
        card = catalogue[card_id]
        known = _KNOWN.get(id(card))
        if known is not None and known[0] is card and known[1].card_id == card_id:
            return known[1]
    card = catalogue_card(catalogue, card_id)
    facts = card_facts(card)
    if not is_frozen(card):
        return facts
    if len(_KNOWN) >= KNOWN_LIMIT:
        _KNOWN.clear()
    _KNOWN[id(card)] = (card, facts)  # the reference keeps the id from being reused
    return facts


class FactsTable(dict[int, CardFacts]):
    """The facts of a catalogue's cards by id, filled as they are asked for (`facts_table`)."""

    __slots__ = ("catalogue",)

    def __init__(self, catalogue: Sequence[MagicCard]) -> None:
        super().__init__()
        self.catalogue = catalogue

    def __missing__(self, card_id: int) -> CardFacts:
        facts = self[card_id] = facts_at(self.catalogue, card_id)
        return facts


_TABLES: Final[dict[int, FactsTable]] = {}  # id(catalogue list) -> its table, for live states
TABLES_LIMIT: Final = 1 << 12


def facts_table(state: ManufactoryState) -> FactsTable:
    """The facts of the state's cards by id. A live state's catalogue list is shared by its copies and never changed
    in place (sharing.py), so its table is kept with it: a card's facts cost one lookup by id. A message gets a new
    table (its cards are found by content)."""
    catalogue: Sequence[MagicCard] = state.catalogue
    table = _TABLES.get(id(catalogue))
    if table is not None and table.catalogue is catalogue:  # kept only for a live state's list
        return table
    if type(catalogue) is not Shared:
        return FactsTable(catalogue)
    if len(_TABLES) >= TABLES_LIMIT:
        _TABLES.clear()
    table = _TABLES[id(catalogue)] = FactsTable(catalogue)  # it keeps the list, so the id is not reused
    return table


def format_card(card: MagicCard) -> str:
    return card_facts(card).text


def _collected_text(state: ManufactoryState, card: int) -> str:
    """A collected card by name and group, with its place among cards of that name in the group when there are
    several ("Swamp from black, copy 2")."""
    for player in state.players:
        for group in player.groups:
            if card in group.cards:
                name = card_of(state, card).name
                same = [c for c in group.cards if card_of(state, c).name == name]
                copy = f", copy {same.index(card) + 1}" if len(same) > 1 else ""
                return f"{name} from {GROUP_NAMES[GROUP_OF_COLOR[group.color]]}{copy}"
    return f"card {card}"


def collected(player: ManufactoryPlayer) -> list[int]:
    """Every card id a player has collected, group by group."""
    if isinstance(player, Twin):  # lists
        cards: list[int] = []
        for group in player.groups:
            cards += group.cards
        return cards
    return [card for group in player.groups[:] for card in group.cards[:]]  # slices: faster on protobuf fields


def collection(state: ManufactoryState, player: ManufactoryPlayer) -> Collection:
    """A player's six groups as mana values, for scoring."""
    return [[card_of(state, card).mana_value for card in group.cards] for group in player.groups]


def group_index(player: ManufactoryPlayer, card_id: int) -> int:
    for index, group in enumerate(player.groups):
        if card_id in group.cards:
            return index
    raise KeyError(card_id)


def points(state: ManufactoryState) -> list[int]:
    """Every player's points if the game ended now (the final score once it has)."""
    first_place_tie = options(state)[FIRST_PLACE_TIE_OPTION.name]
    return final_points([collection(state, player) for player in state.players], first_place_tie)


# ----- the game ----------------------------------------------------------------------------------------------------


NEW_PLAYER: Final = LivePlayer(groups=[LiveGroup(color=COLOR_OF_GROUP[group]) for group in GROUPS])
"""A player before the first draft: six empty groups (copied for each seat at setup, never changed itself)."""

FLAT: Final = Budget(
    iterations=1000, actions=200, evaluate_after=4, search="flat", rollout="heuristic", max_rollout_actions=200
)
"""The flat search at two seats; the other table sizes change a few of its settings (`bot_budget`)."""


def _locate(view: ManufactoryState, seat: int, action: ManufactoryAction) -> tuple[Any, ...]:
    """A draft by the card's place on the belt, the group, and the discarded card (0: none, else its id + 1)."""
    discard = action.discard + 1 if action.HasField("discard") else 0
    return ("draft", view.belt[:].index(action.card), int(action.color), discard)


@mypyc_attr(native_class=False)  # compiled by `make engines`; its class attributes stay Python's
class Manufactory(Game[ManufactoryState, ManufactoryAction]):
    info = GameInfo(
        name="manufactory",
        title="Mishra's Manufactory",
        min_seats=2,
        max_seats=4,
        description="Draft cards from a conveyor belt fed by the players' boosters; collect the biggest colour groups.",
        options=(CARD_SET_OPTION, FIRST_PLACE_TIE_OPTION, WIN_TIE_OPTION),
        max_actions=MAX_CARDS,
    )
    # Flat search over the heuristic's own playouts, each cut after 4 actions (two rounds of two players) and scored
    # by the evaluation (points if the game ended now); fewer actions at three and four seats, where a step weighs
    # more legal moves, and a smaller margin (each seat's chance of winning is smaller, and so are the gains).
    # docs/bots.md has the figures.
    bot_budget = by_seats(
        {
            2: FLAT,
            3: replace(FLAT, actions=140, margin=0.05),
            4: replace(FLAT, actions=110, margin=0.05),
        }
    )
    state_type = ManufactoryState
    action_type = ManufactoryAction

    step_copy = staticmethod(step_copy)  # shares the players and the header parts until a rule takes one (sharing.py)

    def copy(self, state: ManufactoryState) -> ManufactoryState:
        """A live state's copy shares as `apply`'s does (sharing.py); a message is copied whole."""
        if type(state) is LiveState:
            copied: ManufactoryState = step_copy(state)
            return copied
        return super().copy(state)

    # ----- setup ----------------------------------------------------------------------------------------------

    def _setup(self, state: ManufactoryState) -> None:
        header = state.header
        seats = seat_count(state)
        card_set = find_set(options(state)[CARD_SET_OPTION.name])
        faces = draw_faces(card_set, header.rng, seats)  # the boosters' cards, as `open_packs` opens them
        random.shuffle(header.rng, faces)  # ids in shuffled order: an id tells nothing of its pack or slot
        pool = shared_cards(card_set, faces[:MAX_CARDS])  # never changed: the same messages from game to game
        state.catalogue.extend(pool)
        state.deck.extend(range(len(pool)))
        random.shuffle(header.rng, state.deck)
        for _ in range(BELT_SIZE):
            self._refill(state)
        for _ in range(seats):
            state.players.append(clone(NEW_PLAYER))
        state.first_seat = random.randbelow(header.rng, seats)
        set_pending(state, [state.first_seat], prompt=PROMPT)

    def _refill(self, state: ManufactoryState) -> int | None:
        """A card from the deck added to the back of the line; None when the deck is empty."""
        if not state.deck:
            return None
        card_id = state.deck.pop()
        state.belt.append(card_id)
        state.deck_size = len(state.deck)
        return card_id

    # ----- actions --------------------------------------------------------------------------------------------

    def spaces(self, config: GameConfig) -> Spaces:
        """draft: the card's place on the belt (4), the group it joins (7: by `ManufactoryColor`), and the collected
        card discarded (0: none, a free draft from the front; else its card id + 1)."""
        actions = ActionSpace(("draft", BELT_SIZE, len(ManufactoryColor.values()), self.card_count(config) + 1))
        return Spaces(actions, _locate, {"players.groups": len(GROUPS)})

    def _legal_actions(self, state: ManufactoryState, seat: int) -> list[ManufactoryAction]:
        legal: list[ManufactoryAction] = []
        cards = facts_table(state)
        belt = state.belt[:]
        for card_id in belt[:FRONT]:
            legal += cards[card_id].front
        if len(belt) > FRONT:
            discards = collected(state.players[seat])
            for card_id in belt[FRONT:]:
                for row in cards[card_id].back:  # one row per colour: the drafts by discarded card, in collection order
                    legal += map(row.__getitem__, discards)
        return legal

    def _check(
        self, state: ManufactoryState, seat: int, draft: Draft, cards: FactsTable
    ) -> tuple[int, int, CardFacts, tuple[int, int] | None]:
        """Refuses an illegal action (naming the rule); returns the declared group's index, the drafted card's belt
        position and facts, and the discarded card with the index of the group it leaves (None: a free draft from the
        front)."""
        card_id, color, group, discard = draft
        if group is None:
            raise MalformedActionError("declare a colour", "the action names no group (a colour or colorless)")
        belt = state.belt[:]
        if card_id not in belt:
            raise IllegalActionError("draft from the conveyor belt", f"card {card_id} is not on the conveyor belt")
        position = belt.index(card_id)
        facts = cards[card_id]
        if color not in facts.colors:
            raise IllegalActionError(
                "declare a colour",
                f"{facts.name} cannot join the {GROUP_NAMES[GROUPS[group]]} group: lands are wild, and a multicolored "
                "card can be any of its colors; any other card goes to its own colour (or colorless)",
            )
        if position < FRONT:
            if discard is not None:
                raise IllegalActionError(
                    "front of the line", "the two cards at the front of the line are free: discard nothing"
                )
            return group, position, facts, None
        if discard is None:
            raise IllegalActionError(
                "back of the line",
                "a player must discard a card they've already collected to draft a card from the back of the line",
            )
        for index, pile in enumerate(state.players[seat].groups):
            if discard in pile.cards:
                return group, position, facts, (discard, index)
        raise IllegalActionError("back of the line", f"card {discard} is not a card you have already collected")

    def _apply(self, state: ManufactoryState, seat: int, action: ManufactoryAction) -> list[Event]:
        cards = facts_table(state)
        draft = draft_of(action)
        group, position, facts, leaving = self._check(state, seat, draft, cards)
        player = own_player(state, seat)  # a live state's players are shared with its copies (sharing.py)
        events: list[Event] = []
        if leaving is not None:  # the price of a back-of-the-line card: a collected card leaves the game
            discard, discard_group = leaving
            own_group(player, discard_group).cards.remove(discard)
            state.discards.append(discard)
            text = f"{DISCARDED[seat]}{cards[discard].name}{FROM_GROUP[discard_group]}"
            events.append(event("CardDiscarded", text, actor=seat, cards=[discard]))
        # the card leaves the belt (the cards behind slide forward) for the declared group
        del state.belt[position]
        card_id = draft.card
        own_group(player, group).cards.append(card_id)
        text = f"{DRAFTED[seat]}{facts.text}{(INTO_FRONT if position < FRONT else INTO_BACK)[group]}"
        events.append(event("CardDrafted", text, actor=seat, cards=[card_id]))
        added = self._refill(state)
        if added is not None:
            events.append(event("CardRevealed", cards[added].revealed, cards=[added]))
        if state.belt:
            pass_turn(state, (seat + 1) % seat_count(state), PROMPT)  # play passes clockwise
        else:
            events.append(self._finish(state))
        return events

    def _finish(self, state: ManufactoryState) -> Event:
        totals = points(state)
        for seat, total in enumerate(totals):
            own_player(state, seat).points = total
        counts = [len(collected(player)) for player in state.players]
        won = winners(totals, counts, options(state)[WIN_TIE_OPTION.name])
        summary = ", ".join(f"seat {seat} {total}" for seat, total in enumerate(totals))
        finish(state, won, [float(total) for total in totals], f"all cards collected: {summary}")
        said = f"{seats_text(won)} {'wins' if len(won) == 1 else 'share the win'}"
        return event("GameEnded", f"all cards have been collected; points: {summary}; {said}")

    # ----- views ----------------------------------------------------------------------------------------------

    def _redact(self, view: ManufactoryState, seat: int | None) -> None:
        hidden = set(view.deck)
        if isinstance(view, Twin):  # a live view's catalogue list is shared with the state (sharing.py)
            kept = [card for card in view.catalogue if card.id not in hidden]
            view.ClearField("catalogue")
            view.catalogue.extend(kept)
        else:
            for index in reversed(range(len(view.catalogue))):
                if view.catalogue[index].id in hidden:
                    del view.catalogue[index]
        del view.deck[:]

    def cards(self, state: ManufactoryState) -> list[int]:
        groups = [card for player in state.players for card in collected(player)]
        return [*state.deck, *state.belt, *groups, *state.discards]

    def hidden_cards(self, state: ManufactoryState, seat: int | None) -> set[int]:
        return set(state.deck)

    # ----- text -----------------------------------------------------------------------------------------------

    def describe(self, state: ManufactoryState, action: ManufactoryAction) -> str:
        """The draft in words, distinct among the legal ones: the belt slot it comes from, and the discarded card by
        its group (and which copy, when the group holds two of one name)."""
        belt = state.belt[:]
        if action.card in belt:
            name = f"{card_of(state, action.card).name} from belt slot {belt.index(action.card) + 1}"
        else:
            name = f"card {action.card}"
        text = f"draft {name} as {GROUP_NAMES.get(GROUP_OF_COLOR.get(action.color, ''), 'no colour')}"
        if action.HasField("discard"):
            text += f", discarding {_collected_text(state, action.discard)}"
        return text

    def render(self, view: ManufactoryState, seat: int | None) -> str:
        return render_view(view, seat)

    # ----- bots -----------------------------------------------------------------------------------------------

    def sample_world(self, view: ManufactoryState, seat: int, rng: Rng) -> ManufactoryState:
        """The deck dealt again: its ids keep their places, their faces come from fresh boosters of the same set
        (the seat has seen none of the deck), in a random order; a fresh header rng."""
        world = self.copy(view)
        known = {card.id for card in view.catalogue}
        deck = [card_id for card_id in range(len(known) + view.deck_size) if card_id not in known]
        faces = self._unseen_faces(view, len(deck), rng)
        catalogue = {card.id: card for card in view.catalogue}
        for card_id, face in zip(deck, faces, strict=True):
            face.id = card_id
            catalogue[card_id] = face
        world.ClearField("catalogue")  # not `del [:]`: a live world's catalogue list is shared with the view
        world.catalogue.extend(catalogue[card_id] for card_id in sorted(catalogue))
        random.shuffle(rng, deck)
        world.deck[:] = deck
        world.header.ClearField("rng")  # shared with the view (sharing.py)
        world.header.rng.CopyFrom(random.new_rng(random.next_u64(rng)))
        return world

    def _unseen_faces(self, view: ManufactoryState, count: int, rng: Rng) -> list[MagicCard]:
        return sample_faces(find_set(options(view)[CARD_SET_OPTION.name]), rng, count, seat_count(view))

    def heuristic_action(
        self, view: ManufactoryState, seat: int, legal: list[ManufactoryAction], rng: Rng
    ) -> ManufactoryAction:
        """Greedy: the action that leaves the best lead (own points minus the best rival's) if the game ended now,
        then the most own points; ties broken at random."""
        first_place_tie = options(view)[FIRST_PLACE_TIE_OPTION.name]
        base = [collection(view, player) for player in view.players]
        seats = range(len(base))
        # Points by colour, then totals, once; an action changes at most two of the seat's groups, so only those
        # colours and the seat's group bonus are scored again (the same totals as final_points, several times faster).
        by_group = [color_points([c[index] for c in base], first_place_tie) for index in range(len(GROUPS))]
        bonuses = [group_bonus(collection) for collection in base]
        totals_now = [bonuses[s] + sum(points[s] for points in by_group) for s in seats]
        best: list[ManufactoryAction] = []
        best_value: tuple[int, int] | None = None
        for action in legal:
            changed: dict[int, list[int]] = {}
            if action.HasField("discard"):
                index = group_index(view.players[seat], action.discard)
                changed[index] = list(base[seat][index])
                changed[index].remove(card_of(view, action.discard).mana_value)
            index = GROUPS.index(GROUP_OF_COLOR[action.color])
            changed.setdefault(index, list(base[seat][index])).append(card_of(view, action.card).mana_value)
            totals = list(totals_now)
            mine = [changed.get(index, group) for index, group in enumerate(base[seat])]
            totals[seat] += group_bonus(mine) - bonuses[seat]
            for index, group in changed.items():
                after = color_points([group if s == seat else base[s][index] for s in seats], first_place_tie)
                for s in seats:
                    totals[s] += after[s] - by_group[index][s]
            rivals = max(total for s, total in enumerate(totals) if s != seat)
            value = (totals[seat] - rivals, totals[seat])
            if best_value is None or value > best_value:
                best, best_value = [action], value
            elif value == best_value:
                best.append(action)
        return random.choice(rng, best)

    def evaluate(self, state: ManufactoryState) -> list[float]:
        """Each player's points if the game ended now: a lead of 5 points is worth about e to 1."""
        return self.win_chances(points(state), 5.0)


def render_view(view: ManufactoryState, seat: int | None) -> str:
    """The table as its players look at it: the belt (what is free, what costs a card), every player's groups with the
    points each scores now, the seat's own collection by name. Seats only as "seat N", at the ends of lines."""
    pending = view.header.pending.seats
    whose = "game over" if view.header.outcome.finished else f"seat {pending[0]}'s turn" if pending else ""
    lines = [
        f"Mishra's Manufactory · {whose} · deck: {view.deck_size} cards · {len(view.discards)} discarded",
        "Each colour: the largest group scores 3, the second largest 2; 4, 5 or 6 groups score 2, 4 or 6 more",
    ]
    if view.belt:
        lines.append("Conveyor belt (the front is free; the back costs a card you collected):")
        for place, card_id in enumerate(view.belt):
            card = card_of(view, card_id)
            end = "front" if place < FRONT else "back "
            joins = "any group (a land)" if is_land(card) else " or ".join(GROUP_NAMES[g] for g in card_groups(card))
            lines.append(f"  {place + 1}. {end}  {format_card(card)} → {joins}")
    collections = [collection(view, player) for player in view.players]
    first_place_tie = options(view)[FIRST_PLACE_TIE_OPTION.name]
    prizes = [color_points([c[index] for c in collections], first_place_tie) for index in range(len(GROUPS))]
    totals = final_points(collections, first_place_tie)
    lines.append("Collections: the cards in each group (and the points it scores now)")
    lines.append("  " + "".join(f"{GROUP_NAMES[g]:<10}" for g in GROUPS) + "groups    points")
    for s, groups in enumerate(collections):
        cells = "".join(
            f"{(f'{len(g)} ({prizes[i][s]})' if prizes[i][s] else str(len(g))) if g else '-':<10}"
            for i, g in enumerate(groups)
        )
        bonus = group_bonus(groups)
        count = f"{group_count(groups)}{f' (+{bonus})' if bonus else ''}"
        lines.append(f"  {cells}{count:<10}{totals[s]:<6}  seat {s}")
    if seat is not None and 0 <= seat < len(view.players):
        own = [
            f"{GROUP_NAMES[GROUP_OF_COLOR[group.color]]}: " + ", ".join(card_of(view, c).name for c in group.cards)
            for group in view.players[seat].groups
            if group.cards
        ]
        lines += wrap(f"seat {seat}'s collection: {' · '.join(own) or 'nothing yet'}", 100, "", "    ")
    return "\n".join(lines)


GAME: Final = Manufactory()
