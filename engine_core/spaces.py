"""Fixed-size spaces for research environments (envs/: PettingZoo, OpenSpiel): an action space of numbered indices
and an observation vector, both fixed per game and config (seat count and options).

A game declares one hook, `Game.spaces(config) -> Spaces`: its `ActionSpace` (named parts, each a block of indices),
a `locate` function naming the part and coordinates of a legal action, and the bounds of its views' repeated fields
beyond the seat count. Everything else is derived here from the state's schema:

- `ActionSpace("draw", 3)`-style parts: the index of ("open", card, clockwise) in the part ("open", 72, 2) is the
  part's offset + card * 2 + clockwise (mixed radix, last coordinate fastest).
- `ViewEncoder`: a seat's view (`Game.view`, the only input) flattened into a vector of floats by walking the state
  message's fields in schema order (the rules below), so that a new game gets its observation with no code.

The encoding of each field, by kind:
- a number or bool: one value (ints and floats as they are, clamped to +-LIMIT; bools 0 or 1);
- an enum: one-hot over the enum's values;
- a card id (a field marked `[(manaforge.v1.card) = true]`): one-hot over the game's card ids; a list of card ids: a
  vector over the card ids holding each card's position in the list from 1 (0: not there; "top is the end", so the
  top card has the largest number);
- a list of card messages with an `id` (the catalogue's faces, ManaSurge's table): one slot per card id (a presence
  value, then the message's other fields);
- another list of numbers: its length, then the values up to its bound; another list of messages: up to its bound of
  slots (a presence value, then the message's fields). A list's bound is the seat count unless the game names
  another (`Spaces.lists`, by field path: "players.creatures"); elements past the bound are left out;
- a singular message: a presence value, then its fields;
- text: 1 where set; known vocabularies (a Magic card's colours, types, supertypes, rarity) one-hot per word; a list
  of other words: its length;
- maps (the config's options) and the header's config and rng are left out.
The vector starts with a one-hot of the observing seat.

`ViewEncoder.encode` gives the non-zero entries as two lists; `ViewEncoder.into` writes them into a numpy vector (the
environments' path), and there a list of frozen catalogue cards (the same protobuf messages view after view) is
encoded once per distinct list and written as one array block. numpy is imported only there: the platform itself
runs without it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from manaforge.v1 import common_pb2

from engine_core.live import is_frozen

if TYPE_CHECKING:  # numpy is imported where arrays are made: the platform runs without it (envs/, the bridge use it)
    import numpy as np

LIMIT = float(1 << 24)  # numbers are clamped to +-LIMIT (exact in float32)
MEMO_LIMIT = 1 << 12  # encoded catalogue cards remembered per list before the memo starts again
BLOCK_MIN = 16  # a list of frozen card messages this long is remembered whole, as one block of the encoding
BLOCK_LIMIT = 256  # such blocks remembered per list before the memo starts again

_CARD = common_pb2.card
_SKIPPED = frozenset({"manaforge.v1.Header.config", "manaforge.v1.Header.rng"})
VOCABULARIES: Mapping[str, tuple[str, ...]] = {
    "manaforge.v1.MagicCard.colors": ("W", "U", "B", "R", "G"),
    "manaforge.v1.MagicCard.types": (
        "Artifact",
        "Battle",
        "Creature",
        "Enchantment",
        "Instant",
        "Kindred",
        "Land",
        "Planeswalker",
        "Sorcery",
        "Tribal",
    ),
    "manaforge.v1.MagicCard.supertypes": ("Basic", "Legendary", "Snow", "World"),
    "manaforge.v1.MagicCard.rarity": ("common", "uncommon", "rare", "mythic", "special", "bonus"),
}


class SpaceError(ValueError):
    """An action that has no index in its game's action space (a coordinate out of range, an unknown part)."""


class ActionSpace:
    """Numbered actions in named parts: `ActionSpace(("draw", 3), ("discard", 90), ("open", 72, 2), ("keep",))`
    numbers draw 0-2, then discard 3-92, then open 93-236 (card * 2 + clockwise), then keep 237."""

    def __init__(self, *parts: tuple[Any, ...]) -> None:
        self._parts: dict[str, tuple[int, tuple[int, ...]]] = {}
        offset = 0
        for name, *dims in parts:
            if name in self._parts or any(int(d) < 1 for d in dims):
                raise SpaceError(f"action space part {name!r}: named twice, or a dimension below 1")
            self._parts[str(name)] = (offset, tuple(int(d) for d in dims))
            offset += _product(dims)
        self.size = offset

    def index(self, part: str, *coords: int) -> int:
        found = self._parts.get(part)
        if found is None:
            raise SpaceError(f"no action space part {part!r}")
        offset, dims = found
        if len(coords) != len(dims):
            raise SpaceError(f"action space part {part!r} takes {len(dims)} coordinates, not {len(coords)}")
        index = 0
        for coord, dim in zip(coords, dims, strict=True):
            if not 0 <= coord < dim:
                raise SpaceError(f"action space part {part!r}: coordinate {coord} is outside 0..{dim - 1}")
            index = index * dim + coord
        return offset + index

    def name(self, index: int) -> str:
        """`open 17 1` for an index: its part and coordinates."""
        for part, (offset, dims) in self._parts.items():
            if offset <= index < offset + _product(dims):
                rest, coords = index - offset, []
                for dim in reversed(dims):
                    rest, coord = divmod(rest, dim)
                    coords.append(coord)
                return " ".join([part, *map(str, reversed(coords))])
        raise SpaceError(f"index {index} is outside the action space (0..{self.size - 1})")

    def parts(self) -> list[tuple[str, int, tuple[int, ...]]]:
        """(name, first index, dimensions) of each part, in order."""
        return [(name, offset, dims) for name, (offset, dims) in self._parts.items()]


def _product(dims: Any) -> int:
    total = 1
    for dim in dims:
        total *= int(dim)
    return total


Locate = Callable[[Any, int, Any], tuple[Any, ...]]
"""(view of the seat, seat, legal action) -> (part name, *coordinates) in the game's ActionSpace."""


@dataclass(frozen=True)
class Spaces:
    """What a game declares for environments (`Game.spaces(config)`).

    `exact`: every legal action has an index of its own. Where it is False (`note` says what an index leaves out),
    legal actions that share an index are one choice for an environment: the first the rules list is taken."""

    actions: ActionSpace
    locate: Locate
    lists: Mapping[str, int] = field(default_factory=dict)
    exact: bool = True
    note: str = ""

    def index(self, view: Any, seat: int, action: Any) -> int:
        return self.actions.index(*self.locate(view, seat, action))


def legal_indices(spaces: Spaces, view: Any, seat: int, legal: list[Any]) -> dict[int, Any]:
    """The seat's legal actions by index, from its view: where several share an index (`Spaces.exact` False), the
    first in `legal`'s order (the rules'). The one mapping of the environments (envs/) and of a policy playing on the
    platform (envs.bridge), so an index means the same action in both."""
    found: dict[int, Any] = {}
    for action in legal:
        found.setdefault(spaces.index(view, seat, action), action)
    return found


# ----- observations -------------------------------------------------------------------------------------------------


def is_card_field(fd: FieldDescriptor) -> bool:
    options = fd.GetOptions()
    return bool(options.HasExtension(_CARD) and options.Extensions[_CARD])


def _is_map(fd: FieldDescriptor) -> bool:
    return (
        fd.type == FieldDescriptor.TYPE_MESSAGE
        and fd.message_type is not None
        and fd.message_type.GetOptions().map_entry
    )


class Out:
    """An encoding being written: the indices and values of its non-zero entries, and blocks of them as arrays
    (a catalogue's cards, encoded once: `_CardSlots`)."""

    __slots__ = ("arrays", "blocks", "indices", "values")

    def __init__(
        self, indices: list[int] | None = None, values: list[float] | None = None, arrays: bool = False
    ) -> None:
        self.indices: list[int] = indices if indices is not None else []
        self.values: list[float] = values if values is not None else []
        self.arrays = arrays  # blocks may be written (numpy is at hand)
        self.blocks: list[tuple[np.ndarray[Any, np.dtype[np.int64]], np.ndarray[Any, np.dtype[np.float32]]]] = []

    def flat(self) -> tuple[list[int], list[float]]:
        """Every entry as two lists (the blocks' too)."""
        indices, values = self.indices[:], self.values[:]
        for block_indices, block_values in self.blocks:
            indices.extend(block_indices.tolist())
            values.extend(block_values.tolist())
        return indices, values


class _Node:
    """One field of a message: where it starts in its message's block, and how many values it takes."""

    size = 0

    def __init__(self, name: str, offset: int) -> None:
        self.name = name
        self.offset = offset

    def write(self, message: Any, base: int, out: Out) -> None:
        raise NotImplementedError

    def cards(self, base: int, found: dict[int, int]) -> None:
        """Record which index of the vector stands for which card id (for `ViewEncoder.cards_shown`)."""

    def overflow(self, message: Any, path: str, found: dict[str, int]) -> None:
        """Record the lists of `message` longer than their bound (path -> longest length seen)."""


def _clamp(value: float) -> float:
    return LIMIT if value > LIMIT else -LIMIT if value < -LIMIT else value


class _Number(_Node):
    size = 1

    def write(self, message: Any, base: int, out: Out) -> None:
        value = getattr(message, self.name)
        if value:
            out.indices.append(base + self.offset)
            out.values.append(_clamp(float(value)))


class _Enum(_Node):
    def __init__(self, name: str, offset: int, numbers: list[int]) -> None:
        super().__init__(name, offset)
        self.positions = {number: i for i, number in enumerate(numbers)}
        self.size = len(numbers)

    def write(self, message: Any, base: int, out: Out) -> None:
        position = self.positions.get(getattr(message, self.name))
        if position is not None:
            out.indices.append(base + self.offset + position)
            out.values.append(1.0)


class _Text(_Node):
    size = 1

    def write(self, message: Any, base: int, out: Out) -> None:
        if getattr(message, self.name):
            out.indices.append(base + self.offset)
            out.values.append(1.0)


class _Words(_Node):
    """Text from a known vocabulary (one word, or a list): one-hot per word."""

    def __init__(self, name: str, offset: int, words: tuple[str, ...], repeated: bool) -> None:
        super().__init__(name, offset)
        self.positions = {word: i for i, word in enumerate(words)}
        self.size = len(words)
        self.repeated = repeated

    def write(self, message: Any, base: int, out: Out) -> None:
        value = getattr(message, self.name)
        for word in value if self.repeated else [value]:
            position = self.positions.get(word)
            if position is not None:
                out.indices.append(base + self.offset + position)
                out.values.append(1.0)


class _Count(_Node):
    """A list of free words: its length."""

    size = 1

    def write(self, message: Any, base: int, out: Out) -> None:
        count = len(getattr(message, self.name))
        if count:
            out.indices.append(base + self.offset)
            out.values.append(float(count))


class _Card(_Node):
    def __init__(self, name: str, offset: int, cards: int, optional: bool) -> None:
        super().__init__(name, offset)
        self.size = cards
        self.optional = optional

    def write(self, message: Any, base: int, out: Out) -> None:
        if self.optional and not message.HasField(self.name):
            return
        card = getattr(message, self.name)
        if 0 <= card < self.size:
            out.indices.append(base + self.offset + card)
            out.values.append(1.0)

    def cards(self, base: int, found: dict[int, int]) -> None:
        for card in range(self.size):
            found[base + self.offset + card] = card


class _CardList(_Node):
    def __init__(self, name: str, offset: int, cards: int) -> None:
        super().__init__(name, offset)
        self.size = cards

    def write(self, message: Any, base: int, out: Out) -> None:
        start = base + self.offset
        size = self.size
        indices, values = out.indices, out.values
        for position, card in enumerate(getattr(message, self.name), 1):
            if 0 <= card < size:
                indices.append(start + card)
                values.append(float(position))

    def cards(self, base: int, found: dict[int, int]) -> None:
        for card in range(self.size):
            found[base + self.offset + card] = card


class _Numbers(_Node):
    """A list of numbers: its length, then its values up to the bound."""

    def __init__(self, name: str, offset: int, bound: int) -> None:
        super().__init__(name, offset)
        self.bound = bound
        self.size = 1 + bound

    def overflow(self, message: Any, path: str, found: dict[str, int]) -> None:
        length = len(getattr(message, self.name))
        if length > self.bound:
            name = f"{path}{self.name}"
            found[name] = max(found.get(name, 0), length)

    def write(self, message: Any, base: int, out: Out) -> None:
        values = getattr(message, self.name)
        if not values:
            return
        start = base + self.offset
        out.indices.append(start)
        out.values.append(float(len(values)))
        for i, value in enumerate(values[: self.bound], 1):
            if value:
                out.indices.append(start + i)
                out.values.append(_clamp(float(value)))


class _Message(_Node):
    def __init__(self, name: str, offset: int, layout: Layout) -> None:
        super().__init__(name, offset)
        self.layout = layout
        self.size = 1 + layout.size

    def write(self, message: Any, base: int, out: Out) -> None:
        if message.HasField(self.name):
            start = base + self.offset
            out.indices.append(start)
            out.values.append(1.0)
            self.layout.write(getattr(message, self.name), start + 1, out)

    def cards(self, base: int, found: dict[int, int]) -> None:
        self.layout.cards(base + self.offset + 1, found)

    def overflow(self, message: Any, path: str, found: dict[str, int]) -> None:
        if message.HasField(self.name):
            self.layout.overflow(getattr(message, self.name), f"{path}{self.name}.", found)


class _Messages(_Node):
    """A list of messages: up to `bound` slots, each a presence value and the message's fields."""

    def __init__(self, name: str, offset: int, layout: Layout, bound: int) -> None:
        super().__init__(name, offset)
        self.layout = layout
        self.bound = bound
        self.stride = 1 + layout.size
        self.size = bound * self.stride

    def write(self, message: Any, base: int, out: Out) -> None:
        start = base + self.offset
        for element in getattr(message, self.name)[: self.bound]:
            out.indices.append(start)
            out.values.append(1.0)
            self.layout.write(element, start + 1, out)
            start += self.stride

    def cards(self, base: int, found: dict[int, int]) -> None:
        for slot in range(self.bound):
            self.layout.cards(base + self.offset + slot * self.stride + 1, found)

    def overflow(self, message: Any, path: str, found: dict[str, int]) -> None:
        elements = getattr(message, self.name)
        name = f"{path}{self.name}"
        if len(elements) > self.bound:
            found[name] = max(found.get(name, 0), len(elements))
        for element in elements:
            self.layout.overflow(element, name + ".", found)


class _CardSlots(_Node):
    """A list of card messages with an `id`: a slot per card id (presence, then the other fields)."""

    def __init__(self, name: str, offset: int, layout: Layout, cards: int) -> None:
        super().__init__(name, offset)
        self.layout = layout
        self.cards_count = cards
        self.stride = 1 + layout.size
        self.size = cards * self.stride

        # protobuf cards (a catalogue's faces, never changed once in a state: engine_core.live.freeze) are encoded
        # once, remembered by identity where frozen, else by content
        self._by_identity: dict[int, tuple[Any, Out]] = {}
        self._by_content: dict[bytes, Out] = {}
        self._blocks: dict[tuple[int, ...], tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], list[Any]]] = {}

    def _encoded(self, element: Any) -> Out:
        known = self._by_identity.get(id(element))
        if known is not None and known[0] is element:
            return known[1]
        key = element.SerializeToString()
        found = self._by_content.get(key)
        if found is None:
            if len(self._by_content) >= MEMO_LIMIT:
                self._by_content.clear()
            found = self._by_content[key] = Out()
            self.layout.write(element, 0, found)
        if is_frozen(element):
            if len(self._by_identity) >= MEMO_LIMIT:
                self._by_identity.clear()
            self._by_identity[id(element)] = (element, found)  # the reference keeps the id from being reused
        return found

    def write(self, message: Any, base: int, out: Out) -> None:
        elements = getattr(message, self.name)
        start = base + self.offset
        if (
            out.arrays and len(elements) >= BLOCK_MIN
        ):  # a catalogue: the same frozen cards view after view, encoded as one block
            ids = tuple(map(id, elements))
            block = self._blocks.get(ids)
            if block is None:
                if not all(isinstance(element, Message) and is_frozen(element) for element in elements):
                    self._write(elements, start, out)
                    return
                import numpy as np

                relative = Out()
                self._write(elements, 0, relative)
                if len(self._blocks) >= BLOCK_LIMIT:
                    self._blocks.clear()
                indices, values = np.array(relative.indices, np.int64), np.array(relative.values, np.float32)
                block = self._blocks[ids] = (indices, values, list(elements))  # the cards held: their ids stay theirs
            out.blocks.append((block[0] + start, block[1]))
            return
        self._write(elements, start, out)

    def _write(self, elements: Any, start: int, out: Out) -> None:
        indices, values = out.indices, out.values
        for element in elements:
            card = element.id
            if 0 <= card < self.cards_count:
                slot = start + card * self.stride
                indices.append(slot)
                values.append(1.0)
                if isinstance(element, Message):
                    inner_indices, inner_values = self._encoded(element).flat()
                    indices.extend([slot + 1 + i for i in inner_indices])
                    values.extend(inner_values)
                else:
                    self.layout.write(element, slot + 1, out)

    def cards(self, base: int, found: dict[int, int]) -> None:
        for card in range(self.cards_count):
            slot = base + self.offset + card * self.stride
            found[slot] = card
            self.layout.cards(slot + 1, found)

    def overflow(self, message: Any, path: str, found: dict[str, int]) -> None:
        for element in getattr(message, self.name):
            self.layout.overflow(element, f"{path}{self.name}.", found)


@dataclass(frozen=True)
class Region:
    """A part of the observation vector, for documentation and debugging."""

    path: str
    offset: int
    size: int
    encoding: str


class Layout:
    """The fields of one message type, in schema order (`skip`: field names left out)."""

    def __init__(
        self,
        descriptor: Descriptor,
        path: str,
        seats: int,
        cards: int,
        lists: Mapping[str, int],
        regions: list[Region],
        start: int,
        skip: frozenset[str] = frozenset(),
    ) -> None:
        self.nodes: list[_Node] = []
        offset = 0
        for fd in descriptor.fields:
            if fd.name in skip or fd.full_name in _SKIPPED or _is_map(fd):
                continue
            name = f"{path}.{fd.name}" if path else fd.name
            node, encoding = _node(fd, name, offset, seats, cards, lists, regions, start + offset)
            if node.size:
                self.nodes.append(node)
                if not isinstance(node, _Message | _Messages | _CardSlots):
                    regions.append(Region(name, start + offset, node.size, encoding))
                offset += node.size
        self.size = offset
        # the plain numbers are read in one call (a C-level attrgetter), the other fields node by node
        numbers = [node for node in self.nodes if type(node) is _Number]
        self.nodes = [node for node in self.nodes if type(node) is not _Number]
        self.number_offsets = [node.offset for node in numbers]
        names = [node.name for node in numbers]
        self.read_numbers: Callable[[Any], tuple[Any, ...]] = (
            attrgetter(*names) if len(names) > 1 else (lambda message: (getattr(message, names[0]),))
        )
        if not names:
            self.read_numbers = lambda message: ()

    def write(self, message: Any, base: int, out: Out) -> None:
        indices, values = out.indices, out.values
        for offset, value in zip(self.number_offsets, self.read_numbers(message), strict=True):
            if value:
                indices.append(base + offset)
                values.append(float(value) if -LIMIT <= value <= LIMIT else _clamp(float(value)))
        for node in self.nodes:
            node.write(message, base, out)

    def cards(self, base: int, found: dict[int, int]) -> None:
        for node in self.nodes:
            node.cards(base, found)

    def overflow(self, message: Any, path: str, found: dict[str, int]) -> None:
        for node in self.nodes:
            node.overflow(message, path, found)


def _node(
    fd: FieldDescriptor,
    name: str,
    offset: int,
    seats: int,
    cards: int,
    lists: Mapping[str, int],
    regions: list[Region],
    at: int,
) -> tuple[_Node, str]:
    repeated = fd.is_repeated
    bound = lists.get(name, seats)
    if fd.type == FieldDescriptor.TYPE_MESSAGE:
        descriptor = fd.message_type
        if descriptor is None:
            raise ValueError(f"{fd.full_name}: message type unknown")
        if repeated and is_card_field(fd) and "id" in descriptor.fields_by_name:
            inner = Layout(descriptor, name, seats, cards, lists, [], 0, frozenset({"id"}))
            inner_regions = _regions_of(descriptor, name, seats, cards, lists, frozenset({"id"}))
            regions.append(Region(name, at, cards * (1 + inner.size), f"a slot per card id: presence, {inner_regions}"))
            return _CardSlots(fd.name, offset, inner, cards), ""
        if repeated:
            inner = Layout(descriptor, name, seats, cards, lists, [], 0)
            inner_regions = _regions_of(descriptor, name, seats, cards, lists, frozenset())
            regions.append(Region(name, at, bound * (1 + inner.size), f"{bound} slots: presence, {inner_regions}"))
            return _Messages(fd.name, offset, inner, bound), ""
        regions.append(Region(name, at, 1, "1 where present"))
        inner = Layout(descriptor, name, seats, cards, lists, regions, at + 1)
        return _Message(fd.name, offset, inner), ""
    if is_card_field(fd):
        if repeated:
            return _CardList(fd.name, offset, cards), "card ids: position in the list from 1"
        return _Card(fd.name, offset, cards, fd.has_presence), "card id: one-hot"
    if fd.type == FieldDescriptor.TYPE_STRING:
        words = VOCABULARIES.get(fd.full_name)
        if words is not None:
            return _Words(fd.name, offset, words, repeated), "one-hot: " + " ".join(words)
        if repeated:
            return _Count(fd.name, offset), "number of entries"
        return _Text(fd.name, offset), "1 where set"
    if fd.type == FieldDescriptor.TYPE_BYTES:
        return (_Count(fd.name, offset), "number of entries") if repeated else (_Text(fd.name, offset), "1 where set")
    if repeated:
        return _Numbers(fd.name, offset, bound), f"length, then up to {bound} values"
    if fd.type == FieldDescriptor.TYPE_ENUM and fd.enum_type is not None:
        numbers = [value.number for value in fd.enum_type.values]
        return _Enum(fd.name, offset, numbers), "one-hot: " + " ".join(v.name for v in fd.enum_type.values)
    return _Number(fd.name, offset), "value"


def _regions_of(
    descriptor: Descriptor, path: str, seats: int, cards: int, lists: Mapping[str, int], skip: frozenset[str]
) -> str:
    """The fields of one slot of a list, in words."""
    regions: list[Region] = []
    Layout(descriptor, path, seats, cards, lists, regions, 0, skip)
    return "; ".join(f"{region.path.rsplit('.', 1)[-1]} ({region.size})" for region in regions)


def encoder_for(game: Any, config: Any) -> ViewEncoder:
    """The observation encoder of `game` (a `Game`) at `config` (a checked `GameConfig`)."""
    return ViewEncoder(game.state_type, config.seats, game.card_count(config), game.spaces(config).lists)


class ViewEncoder:
    """A seat's view as a fixed-size vector: `encode(view, seat)` gives the indices and values of its non-zero
    entries (sparse: the caller fills a zeroed array). Built once per game and config."""

    def __init__(self, state_type: type[Any], seats: int, cards: int, lists: Mapping[str, int]) -> None:
        self.seats = seats
        self.cards = cards
        self.regions: list[Region] = [Region("seat", 0, seats, "one-hot: the observing seat")]
        self.layout = Layout(state_type.DESCRIPTOR, "", seats, cards, lists, self.regions, seats)
        self.size = seats + self.layout.size
        self.card_at: dict[int, int] = {}
        self.layout.cards(seats, self.card_at)

    def encode(self, view: Any, seat: int) -> tuple[list[int], list[float]]:
        out = Out([seat], [1.0])
        self.layout.write(view, self.seats, out)
        return out.flat()

    def into(self, view: Any, seat: int, vector: np.ndarray[Any, np.dtype[np.float32]]) -> None:
        """Write the encoding into `vector` (zeros, of `size`): the same values as `encode`, faster."""
        out = Out([seat], [1.0], arrays=True)
        self.layout.write(view, self.seats, out)
        vector[out.indices] = out.values
        for block_indices, block_values in out.blocks:
            vector[block_indices] = block_values

    def overflows(self, view: Any) -> dict[str, int]:
        """The lists of `view` longer than their bound, which the encoding cuts short: path -> length."""
        found: dict[str, int] = {}
        self.layout.overflow(view, "", found)
        return found

    def cards_shown(self, indices: list[int], values: list[float]) -> set[int]:
        """The card ids an encoded observation shows (for the hidden-information tests)."""
        card_at = self.card_at
        return {card_at[i] for i, value in zip(indices, values, strict=True) if value and i in card_at}
