"""Live states: plain-Python twins of the protobuf state messages, for the engines' hot paths.

A protobuf message costs 0.06 to 0.8 µs per field read or write from Python (docs/engine-speed.md); a plain object
with `__slots__` costs about 0.02 µs, and a Python list is a Python list. `twin(StateMessage)` makes, once per
message type, a class with the same fields and the part of the protobuf API the engines use:

- scalar fields are attributes holding plain values (the proto3 default when unset);
- repeated scalars are lists, maps are dicts, repeated messages are `Repeated` lists of twins (with `add(**fields)`);
- a singular message field always holds a twin; it counts as present (`HasField`, serialization) when it was set
  by `CopyFrom`/`SetInParent` or when it holds anything but defaults, and `ClearField` empties it;
- proto3 `optional` scalars keep their presence (`HasField`, `ClearField`);
- repeated fields of `SHARED` types (the card catalogue: `MagicCard` messages, never changed during a game) hold the
  protobuf messages themselves, shared between copies; a message put into one by the rules is `frozen`: a promise
  that it never changes again, so facts about it may be remembered by identity (`engine_core.cards.memo_by_content`);
- a `FROZEN` part (the game's config, set once by `new_game`) is shared between copies;
- the constructor (keywords, as protobuf's), `copy()`, `to_proto()`, `from_proto()` and `==` are generated per
  class as straight-line code; `SerializeToString()` and `CopyFrom()` go through them.

So the rules read and write a live state with the same code as a message, at plain-Python speed; the conversion
happens at the edges (`Game.live`, `Game.message`): storage, the wire and views. Serializing a twin gives the same
bytes as the message it stands for.
"""

from __future__ import annotations

import keyword
from collections.abc import Iterable
from typing import Any, ClassVar, TypeVar

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass

SHARED = frozenset({"manaforge.v1.MagicCard"})  # message types held as (immutable) protobuf messages
FROZEN = frozenset({"manaforge.v1.GameConfig"})  # twins never changed once set (by new_game): shared by copies

_TWINS: dict[str, type[Twin]] = {}
_FROZEN: dict[int, Any] = {}  # id -> message, for the messages put into live states' SHARED fields
FROZEN_LIMIT = 1 << 16  # messages remembered before the record starts again (a forgotten one is simply not frozen)


def freeze(message: Any) -> None:
    """Record that `message` never changes again (it went into a live state, shared by every copy)."""
    if len(_FROZEN) >= FROZEN_LIMIT:
        _FROZEN.clear()
    _FROZEN[id(message)] = message  # the reference keeps the id from being reused


def freeze_all(messages: list[Any]) -> None:
    """`freeze` for each of `messages`, in one call (a game's catalogue)."""
    if len(_FROZEN) + len(messages) > FROZEN_LIMIT:
        _FROZEN.clear()
    _FROZEN.update({id(message): message for message in messages})


def is_frozen(message: Any) -> bool:
    return _FROZEN.get(id(message)) is message


class Twin:
    """The base of every generated twin class."""

    __slots__ = ("_set",)

    DESCRIPTOR: ClassVar[Descriptor]
    message_type: ClassVar[type[Message]]
    _messages: ClassVar[dict[str, type[Twin]]]  # singular message fields: their twin classes
    _optional: ClassVar[frozenset[str]]  # proto3 optional scalars
    _repeated: ClassVar[dict[str, type[Repeated]]]
    _shared: ClassVar[frozenset[str]]  # repeated fields of SHARED messages

    _set: bool

    # generated per class
    def copy(self) -> Any:
        raise NotImplementedError

    def _into(self, message: Any) -> None:
        raise NotImplementedError

    def _same(self, other: Any) -> bool:
        raise NotImplementedError

    def _is_default(self) -> bool:
        raise NotImplementedError

    @classmethod
    def _from(cls, message: Any, present: bool) -> Any:
        raise NotImplementedError

    # the protobuf API the engines use
    @classmethod
    def from_proto(cls, message: Message) -> Any:
        return cls._from(message, True)

    def to_proto(self) -> Any:
        message = self.message_type()
        self._into(message)
        return message

    def SerializeToString(self, *, deterministic: bool = False) -> bytes:
        data: bytes = self.to_proto().SerializeToString(deterministic=deterministic)
        return data

    def _present(self) -> bool:
        return self._set or not self._is_default()

    def HasField(self, name: str) -> bool:
        if name in self._messages:
            return bool(getattr(self, name)._present())
        if name in self._optional:
            return getattr(self, "_" + name) is not None
        raise ValueError(f"{self.DESCRIPTOR.full_name} has no field {name!r} with presence")

    def ClearField(self, name: str) -> None:
        if name in self._messages:
            setattr(self, name, self._messages[name]())
        elif name in self._optional:
            setattr(self, "_" + name, None)
        elif name in self._repeated:
            setattr(self, name, self._repeated[name]())
        elif name in self._shared:
            setattr(self, name, Shared())
        else:
            field = self.DESCRIPTOR.fields_by_name[name]  # KeyError for an unknown name, as protobuf
            setattr(self, name, {} if _is_map(field) else [] if _is_repeated(field) else field.default_value)

    def SetInParent(self) -> None:
        self._set = True

    def CopyFrom(self, other: Any) -> None:
        source = other.copy() if isinstance(other, Twin) else type(self).from_proto(other)
        for name in self.__slots__:
            setattr(self, name, getattr(source, name))
        self._set = True

    def __eq__(self, other: object) -> bool:
        if type(other) is type(self):
            return self._same(other)
        if isinstance(other, Message):
            return bool(self.to_proto() == other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, as protobuf messages

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.to_proto()})"


_append = list.append


class Repeated(list[Any]):
    """A repeated message field: a list of twins of one class, with protobuf's `add`."""

    item: ClassVar[type[Twin]]

    def add(self, **fields: Any) -> Any:
        made = self.item(**fields)
        _append(self, made)  # a twin already: no check
        return made

    def _twin(self, value: Any) -> Any:
        return value if isinstance(value, Twin) else self.item.from_proto(value)

    def append(self, value: Any) -> None:
        super().append(self._twin(value))

    def extend(self, values: Iterable[Any]) -> None:
        super().extend(self._twin(value) for value in values)

    def insert(self, index: Any, value: Any) -> None:
        super().insert(index, self._twin(value))


class Shared(list[Any]):
    """A repeated field of SHARED messages: the messages themselves, frozen as the rules put them in."""

    def append(self, value: Any) -> None:
        freeze(value)
        super().append(value)

    def extend(self, values: Iterable[Any]) -> None:
        values = list(values)
        freeze_all(values)
        super().extend(values)

    def insert(self, index: Any, value: Any) -> None:
        freeze(value)
        super().insert(index, value)


def _is_repeated(field: FieldDescriptor) -> bool:
    return bool(field.is_repeated)


def _is_map(field: FieldDescriptor) -> bool:
    return _is_repeated(field) and field.message_type is not None and field.message_type.GetOptions().map_entry


def _is_message(field: FieldDescriptor) -> bool:
    return field.type == FieldDescriptor.TYPE_MESSAGE


def twin(message_type: type[Message] | Descriptor) -> type[Any]:
    """The twin class of a message type (made once)."""
    descriptor: Any = message_type if isinstance(message_type, Descriptor) else message_type.DESCRIPTOR
    made = _TWINS.get(descriptor.full_name)
    if made is None:
        made = _TWINS[descriptor.full_name] = _make(descriptor)
    return made


def _make(descriptor: Any) -> type[Twin]:
    """Generate the twin class: its slots, and its constructor, copy, conversions and comparison as straight-line
    code (a loop over the fields at run time would cost what the twin saves)."""
    env: dict[str, Any] = {"Twin": Twin, "Shared": Shared}
    messages: dict[str, type[Twin]] = {}
    repeated: dict[str, type[Repeated]] = {}
    optional: list[str] = []
    shared: list[str] = []
    slots: list[str] = []
    params: list[str] = []
    init = ["    self._set = False"]
    into = ["def _into(s, m):"]
    frm = ["def _from(cls, m, present):", "    n = new(C)", "    n._set = present"]
    same = ["def _same(s, o):", "    return (True"]
    default = ["def _is_default(s):", "    return not (False"]
    properties: dict[str, property] = {}
    for field in descriptor.fields:
        name = field.name
        if field.containing_oneof is not None and not field.containing_oneof.name.startswith("_"):
            raise TypeError(f"{descriptor.full_name}.{name}: oneof fields are not supported in live states")
        if keyword.iskeyword(name):
            raise TypeError(f"{descriptor.full_name}.{name}: a field named as a Python keyword")
        slots.append(name)
        if _is_map(field):
            value_field = field.message_type.fields_by_name["value"]
            if _is_message(value_field):
                raise TypeError(f"{descriptor.full_name}.{name}: maps of messages are not supported")
            params.append(f"{name}=None")
            init.append(f"    self.{name} = {{}} if {name} is None else dict({name})")
            into.append(f"    if s.{name}: m.{name}.update(s.{name})")
            frm.append(f"    n.{name} = dict(m.{name})")
        elif _is_repeated(field) and _is_message(field) and field.message_type.full_name in SHARED:
            shared.append(name)
            params.append(f"{name}=()")
            init.append(f"    self.{name} = Shared()")
            init.append(f"    if {name}: self.{name}.extend({name})")
            into.append(f"    if s.{name}: m.{name}.extend(s.{name})")
            frm.append(f"    n.{name} = Shared(m.{name})  # the caller's messages: not frozen")
        elif _is_repeated(field) and _is_message(field):
            item = twin(field.message_type)
            rep = repeated[name] = type(f"Repeated{item.__name__}", (Repeated,), {"item": item})
            env[f"R_{name}"] = rep
            env[f"T_{name}"] = item
            params.append(f"{name}=()")
            init.append(f"    self.{name} = R_{name}()")
            init.append(f"    if {name}: self.{name}.extend({name})")
            into.append(f"    for x in s.{name}: x._into(m.{name}.add())")
            frm.append(f"    n.{name} = R_{name}([T_{name}._from(x, True) for x in m.{name}])")
        elif _is_repeated(field):
            params.append(f"{name}=()")
            init.append(f"    self.{name} = list({name})")
            into.append(f"    if s.{name}: m.{name}.extend(s.{name})")
            frm.append(f"    n.{name} = m.{name}[:]")
        elif _is_message(field):
            if field.message_type.full_name in SHARED:
                raise TypeError(f"{descriptor.full_name}.{name}: a single shared message is not supported")
            sub = messages[name] = twin(field.message_type)
            env[f"T_{name}"] = sub
            params.append(f"{name}=None")
            init.append(f"    self.{name} = T_{name}() if {name} is None else _made(T_{name}, {name})")
            # a FROZEN part (the config) is never changed once set: copies share it
            into.append(f"    if s.{name}._present(): m.{name}.SetInParent(); s.{name}._into(m.{name})")
            frm.append(f"    n.{name} = T_{name}._from(m.{name}, m.HasField({name!r}))")
            default.append(f"        or s.{name}._present()")
        elif field.has_presence:  # proto3 optional: None when absent
            optional.append(name)
            slots[-1] = "_" + name
            params.append(f"{name}=None")
            init.append(f"    self._{name} = {name}")
            into.append(f"    if s._{name} is not None: m.{name} = s._{name}")
            frm.append(f"    n._{name} = m.{name} if m.HasField({name!r}) else None")
            properties[name] = _optional_property(name, field.default_value)
        else:
            env[f"D_{name}"] = field.default_value
            params.append(f"{name}=D_{name}")
            init.append(f"    self.{name} = {name}")
            into.append(f"    m.{name} = s.{name}")
            frm.append(f"    n.{name} = m.{name}")
        attribute = "_" + name if name in optional else name
        if not _is_message(field) or _is_repeated(field):
            default.append(f"        or s.{attribute}" + (" is not None" if name in optional else ""))
        same.append(f"        and s.{attribute} == o.{attribute}")
    init.insert(0, f"def __init__(self, *, {', '.join(params)}):" if params else "def __init__(self):")
    into.append("    return None")
    frm.append("    return n")
    same.append("    )")
    default.append("    )")
    cls: type[Twin] = type(
        descriptor.name,
        (Twin,),
        {
            "__slots__": tuple(slots),
            "__module__": __name__,
            "DESCRIPTOR": descriptor,
            "message_type": GetMessageClass(descriptor),
            "_messages": messages,
            "_optional": frozenset(optional),
            "_repeated": repeated,
            "_shared": frozenset(shared),
            **properties,
        },
    )
    env.update(C=cls, new=object.__new__, _made=_made)
    namespace: dict[str, Any] = {}
    for lines in (init, into, frm, same, default):
        exec("\n".join(lines), env, namespace)
    copy_env: dict[str, Any] = {"new": object.__new__}  # the copy: the rules of a step copy, sharing nothing
    exec(
        "\n".join(["def copy(s):", *_sharing_copy_lines(cls, "s", "n", copy_env, (), ()), "    return n"]),
        copy_env,
        namespace,
    )
    for name in ("__init__", "copy", "_into", "_same", "_is_default"):
        setattr(cls, name, namespace[name])
    cls._from = classmethod(namespace["_from"])  # type: ignore[assignment, method-assign]
    return cls


def _optional_property(name: str, default: Any) -> property:
    slot = "_" + name

    def get(self: Twin) -> Any:
        value = getattr(self, slot)
        return default if value is None else value

    def put(self: Twin, value: Any) -> None:
        setattr(self, slot, value)

    return property(get, put)


def _made(cls: type[Twin], value: Any) -> Twin:
    """A message given to a constructor (a twin or a protobuf message), as a new twin set in its parent."""
    made: Twin = value.copy() if isinstance(value, Twin) else cls.from_proto(value)
    made._set = True
    return made


M = TypeVar("M")


def clone(message: M) -> M:
    """A copy of a twin or a protobuf message, of the same kind."""
    if isinstance(message, Twin):
        copied: M = message.copy()
        return copied
    made = type(message)()
    made.CopyFrom(message)  # type: ignore[attr-defined]
    return made


def message(value: M) -> M:
    """The protobuf message of a twin (a new message), or `value` itself when it is one already."""
    if isinstance(value, Twin):
        made: M = value.to_proto()
        return made
    return value


# ----- copy on write: the copy `Game.apply` makes, for games whose rules take a part before changing it ------------


class SharedItems(Repeated):
    """A repeated message field whose items a live state may share with the states `Game.step_copy` made from it (or
    it from them): bit `index` of `owned` is set once that item is this state's own copy (`owner`). A change that
    moves items (a removal, an insertion) forgets every bit: each item is then taken again. Items are put in one at
    a time (`items[i] = item`, `append`): a slice assigned is not tracked."""

    __slots__ = ("owned",)  # set as it is made (`step_copier`): a slot, not an instance dictionary
    owned: int

    def __delitem__(self, index: Any) -> None:
        self.owned = 0
        super().__delitem__(index)

    def insert(self, index: Any, value: Any) -> None:
        self.owned = 0
        super().insert(index, value)

    def pop(self, index: Any = -1) -> Any:
        self.owned = 0
        return super().pop(index)

    def remove(self, value: Any) -> None:
        self.owned = 0
        super().remove(value)

    def clear(self) -> None:
        self.owned = 0
        super().clear()


_SHARED_ITEMS: dict[type[Repeated], type[SharedItems]] = {}


def shared_items(repeated: type[Repeated]) -> type[SharedItems]:
    """The `SharedItems` class of a repeated message field's class (made once)."""
    made = _SHARED_ITEMS.get(repeated)
    if made is None:
        made = _SHARED_ITEMS[repeated] = type(f"Shared{repeated.__name__}", (SharedItems, repeated), {})
    return made


def step_copier(
    live_type: type[Twin], *, items: Iterable[str] = (), share: Iterable[str] = (), lists: Iterable[str] = ()
) -> Any:
    """The copy `Game.apply` makes of a live state (`Game.step_copy`) for a game whose rules copy on write: the
    twin's own `copy`, except that the items of the repeated message fields `items` stay shared until a rule takes
    one with `owner(...)`, that the message fields in `share` (a part of a part as "header.rng") stay shared
    as they are: the rules replace them (`game.set_pending`, `game.finish`, `own_part`), never change them in
    place, and that the repeated scalar fields `lists` (a deck, a discard pile) stay shared as `SharedList`s until a
    rule takes one (see `SharedList`). From the copy on, the state it was made from shares those too, so its own
    changes (a bot stepping it in place, `ismcts.step`) take them first as well. Generated as straight-line code,
    as the twins' copies."""
    env: dict[str, Any] = {"new": object.__new__, "SL": SharedList}
    lines = [
        "def step_copy(s):",
        *_sharing_copy_lines(live_type, "s", "n", env, tuple(items), tuple(share), lists=tuple(lists)),
    ]
    lines.append("    return n")
    namespace: dict[str, Any] = {}
    exec("\n".join(lines), env, namespace)
    copier = namespace["step_copy"]
    copier.__doc__ = f"The step copy of a live {live_type.__name__}: shares {', '.join((*items, *share))}."
    return copier


def owner(live_type: type[Twin], name: str, *, items: Iterable[str] = ()) -> Any:
    """`own(state, index)`: the item `index` (not negative) of the repeated message field `name`, to be changed. On
    a live state whose items may be shared (`step_copier`) it is copied first, once, its own repeated message
    fields `items` shared in turn (a player's creatures, say: taken with an `owner` of the item's class); on a
    protobuf message (the services' path) and on a live state that shares nothing (a new game, a `Game.copy`, a
    bot's world) it is the item itself. `state` may be any twin holding the field (a player, for its creatures)."""
    repeated = live_type._repeated[name]
    env: dict[str, Any] = {"new": object.__new__, "S": shared_items(repeated)}
    copy = _sharing_copy_lines(repeated.item, "item", "made", env, tuple(items), (), indent="        ")
    source = "\n".join(
        [
            "def own(state, index):",
            f"    found = state.{name}",
            "    item = found[index]",
            "    if type(found) is S and not found.owned >> index & 1:",
            *copy,
            "        item = found[index] = made",
            "        found.owned |= 1 << index",
            "    return item",
        ]
    )
    namespace: dict[str, Any] = {}
    exec(source, env, namespace)
    own = namespace["own"]
    own.__doc__ = f"`state.{name}[index]`, to be changed: copied first when another state may share it."
    return own


def _sharing_copy_lines(
    cls: type[Twin],
    source: str,
    target: str,
    env: dict[str, Any],
    items: tuple[str, ...],
    share: tuple[str, ...],
    indent: str = "    ",
    lists: tuple[str, ...] = (),
) -> list[str]:
    """Lines copying the twin `source` of class `cls` into a new `target`, as its `copy` does, but with the items
    of the repeated message fields `items` shared (the source's list becomes a `SharedItems` too, its bits
    forgotten), the fields in `share` shared, each part named in a dotted `share` copied the same way, and the
    repeated scalar fields `lists` shared as a `SharedList` (the source's own list becomes one: `SL`)."""
    unknown = {part.split(".", 1)[0] for part in (*items, *share, *lists)} - {f.name for f in cls.DESCRIPTOR.fields}
    unknown |= {name for name in items if name not in cls._repeated}
    scalar_lists = {f.name for f in cls.DESCRIPTOR.fields if _is_repeated(f) and not _is_message(f)}
    unknown |= {name for name in lists if name not in scalar_lists}
    if unknown:
        raise TypeError(f"{cls.__name__} has no field {', '.join(sorted(unknown))} of that kind")
    lines = []
    for name in items:
        shared, old, new = f"S_{target}_{name}", f"i_{target}_{name}", f"o_{target}_{name}"
        env[shared] = shared_items(cls._repeated[name])
        lines += [
            f"{old} = {source}.{name}",
            f"if type({old}) is not {shared}:",
            f"    {source}.{name} = {old} = {shared}({old})  # the same items: the content is unchanged",
            f"{old}.owned = 0",
            f"{new} = {shared}({old})",
            f"{new}.owned = 0",
        ]
    env[f"C_{target}"] = cls
    lines += [f"{target} = new(C_{target})", f"{target}._set = {source}._set"]
    for field in cls.DESCRIPTOR.fields:
        name = field.name
        inner = tuple(part.split(".", 1)[1] for part in share if part.startswith(name + "."))
        if name in items:
            lines.append(f"{target}.{name} = o_{target}_{name}")
        elif name in share:
            lines.append(f"{target}.{name} = {source}.{name}")
        elif name in lists:
            kept = f"l_{target}_{name}"
            lines += [
                f"{kept} = {source}.{name}",
                f"if type({kept}) is not SL:",
                f"    {source}.{name} = {kept} = SL({kept})",
                f"{kept}.shared = True",
                f"{target}.{name} = {kept}",
            ]
        elif inner:
            part = f"{target}_{name}"
            lines.append(f"{source}_{name} = {source}.{name}")
            lines += [
                line[len(indent) :]
                for line in _sharing_copy_lines(cls._messages[name], f"{source}_{name}", part, env, (), inner, indent)
            ]
            lines.append(f"{target}.{name} = {part}")
        elif name in cls._optional:
            lines.append(f"{target}._{name} = {source}._{name}")
        elif name in cls._messages:
            frozen = cls._messages[name].DESCRIPTOR.full_name in FROZEN
            lines.append(f"{target}.{name} = {source}.{name}" + ("" if frozen else ".copy()"))
        elif name in cls._repeated:
            env[f"R_{target}_{name}"], env[f"c_{target}_{name}"] = cls._repeated[name], cls._repeated[name].item.copy
            lines.append(
                f"{target}.{name} = R_{target}_{name}(map(c_{target}_{name}, {source}.{name}))"
                f" if {source}.{name} else R_{target}_{name}()"
            )
        elif name in cls._shared:
            env["Shared"] = Shared
            lines.append(f"{target}.{name} = Shared({source}.{name})")
        elif _is_map(field):
            lines.append(f"{target}.{name} = {source}.{name}.copy()")
        elif _is_repeated(field):
            lines.append(f"{target}.{name} = {source}.{name}[:]")
        else:
            lines.append(f"{target}.{name} = {source}.{name}")
    return [indent + line for line in lines]


_INDICES: tuple[tuple[int, ...], ...] = tuple(
    tuple(index for index in range(8) if bits >> index & 1) for bits in range(1 << 8)
)


def changed_indices(items: Any) -> Iterable[int]:
    """The indices of the items of a repeated message field that the rules may have changed since the state's step
    copy: those the state took (`owner`) when it shares items (`step_copier`), every index otherwise."""
    if not isinstance(items, SharedItems):
        return range(len(items))
    owned = items.owned
    return _INDICES[owned] if owned < 256 else tuple(i for i in range(owned.bit_length()) if owned >> i & 1)


def is_untouched(items: Any) -> bool:
    """Whether `items` are a step copy's shared items with none taken yet (`owner`): each is then still the item of
    the state the copy was made from, as it was, since a rule takes an item before changing it. False for a
    protobuf message and a live state that shares nothing, whose items are changed in place."""
    return isinstance(items, SharedItems) and not items.owned


class SharedList(list[Any]):
    """A repeated scalar field (a deck, a discard pile) of a live state whose step copies share it
    (`step_copier(..., lists=...)`): `shared` is set when `Game.step_copy` gives it to a copy, after which neither
    state changes it. A rule takes it before changing it: when it is a `SharedList` marked `shared`, the state gets
    a new `SharedList` of the same cards, not shared, in its place (Magicka's `sharing.own_pile`, compiled with
    the rules); a protobuf message's field and a list the state owns are changed as they are. So a list that one
    state owns is not copied again by the next step copy. Its content is the field's: it reads, compares and
    serializes as the list it stands for."""

    __slots__ = ("shared",)  # set as it is made
    shared: bool


def own_part(state: Any, name: str) -> Any:
    """The header's part `name` (its rng, say), to be changed in place: on a live state its step copies may share
    it (`step_copier`), so it is copied first."""
    header = state.header
    if isinstance(header, Twin):
        setattr(header, name, getattr(header, name).copy())
    return getattr(header, name)
