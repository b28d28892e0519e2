"""Asking the person at the terminal: a line (Leave when they leave), and the free text some actions carry (R&D's
card names, flavour and art), line by line, each checked by the rules' own check before the action is sent."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from google.protobuf.message import Message
from manaforge.v1.games.rnd_pb2 import RndAction

from engine_core.errors import RulesError
from engine_core.games.rnd.design import (
    ART_LINES,
    ART_WIDTH,
    FLAVOUR_MAX,
    NAME_MAX,
    check_art,
    check_flavour,
    check_name,
)

Read = Callable[[str], str]
Out = Callable[[str], None]


class Leave(Exception):
    """The player leaves the table (q, Ctrl-D or the end of the input)."""


def ask(read: Read, prompt: str) -> str:
    try:
        return read(prompt).strip()
    except EOFError:
        raise Leave from None


@dataclass(frozen=True)
class TextField:
    """A free-text field of an action: where it is, how to ask for it, and the rules' own check of it."""

    path: tuple[str, ...]  # field names from the action down to the string
    what: str
    limits: str
    check: Callable[[str], None]  # raises a RulesError naming the limit
    lines: int = 1


TEXT_FIELDS: dict[str, tuple[TextField, ...]] = {
    RndAction.DESCRIPTOR.full_name: (
        TextField(("art",), "the art", f"up to {ART_LINES} lines of {ART_WIDTH} characters", check_art, ART_LINES),
        TextField(("writing", "name"), "the card's name", f"up to {NAME_MAX} characters", check_name),
        TextField(("writing", "flavour"), "the flavour text", f"up to {FLAVOUR_MAX} characters", check_flavour),
    )
}


def _holder(action: Message, path: Sequence[str]) -> Message | None:
    """The message holding the path's last field, when the action carries that field at all."""
    message = action
    for name in path[:-1]:
        if not message.HasField(name):
            return None
        message = getattr(message, name)
    last = message.DESCRIPTOR.fields_by_name[path[-1]]
    return None if last.containing_oneof and not message.HasField(path[-1]) else message


def ask_texts(action: Message, read: Read, out: Out) -> None:
    """Ask for every free text the action carries, each with its limits, until the rules accept it."""
    for field in TEXT_FIELDS.get(action.DESCRIPTOR.full_name, ()):
        holder = _holder(action, field.path)
        if holder is None:
            continue
        example = getattr(holder, field.path[-1])
        while True:
            text = _ask_lines(field, example, read, out) if field.lines > 1 else _ask_line(field, example, read)
            try:
                field.check(text)
            except RulesError as refused:
                out(f"  {refused.detail}; try again")
                continue
            setattr(holder, field.path[-1], text)
            break


def _ask_line(field: TextField, example: str, read: Read) -> str:
    return ask(read, f"{field.what} ({field.limits}; Enter keeps {example!r}): ") or example


def _ask_lines(field: TextField, example: str, read: Read, out: Out) -> str:
    out(f"{field.what} ({field.limits}), one line at a time; an empty line ends it, and at once keeps the example:")
    for line in example.split("\n"):
        out(f"  example | {line}")
    lines: list[str] = []
    while len(lines) < field.lines:
        line = ask(read, f"  line {len(lines) + 1} | ")
        if not line:
            break
        lines.append(line)
    return "\n".join(lines) or example
