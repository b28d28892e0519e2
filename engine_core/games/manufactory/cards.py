"""Mishra's Manufactory's cards: the groups a card may join, its facts (name, colours, mana value, texts) and its
draft actions, made once per card and shared (callers never change one), looked up by id through a table kept with
the catalogue list."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Final, NamedTuple

from manaforge.v1.cards_pb2 import MagicCard
from manaforge.v1.games.manufactory_pb2 import ManufactoryAction, ManufactoryColor, ManufactoryState

from engine_core.cards import catalogue_card, is_land
from engine_core.games.manufactory.scoring import GROUPS
from engine_core.live import Shared, is_frozen

COLOR_OF_GROUP: Final[dict[str, ManufactoryColor.ValueType]] = {
    group: ManufactoryColor.Value(f"MANUFACTORY_COLOR_{name}")
    for group, name in zip(GROUPS, ("WHITE", "BLUE", "BLACK", "RED", "GREEN", "COLORLESS"), strict=True)
}


GROUP_OF_COLOR: Final = {color: group for group, color in COLOR_OF_GROUP.items()}
GROUP_INDEX: Final = {group: index for index, group in enumerate(GROUPS)}
INDEX_OF_COLOR: Final = {color: GROUP_INDEX[group] for color, group in GROUP_OF_COLOR.items()}
GROUP_NAMES: Final = {"W": "white", "U": "blue", "B": "black", "R": "red", "G": "green", "C": "colorless"}


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
