"""Asking the person at the terminal: a line (Leave when they leave), and the free text some actions carry (the
game's `free_text`: R&D's card names, flavour and art), line by line, each checked by the rules' own check before
the action is sent."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from google.protobuf.message import Message

from engine_core.errors import RulesError
from engine_core.game import FreeText, FreeTextForm

Read = Callable[[str], str]
Out = Callable[[str], None]


class Leave(Exception):
    """The player leaves the table (q, Ctrl-D or the end of the input)."""


def ask(read: Read, prompt: str) -> str:
    try:
        return read(prompt).strip()
    except EOFError:
        raise Leave from None


def _holder(action: Message, path: Sequence[str]) -> Message:
    """The message holding the path's last field."""
    message = action
    for name in path[:-1]:
        message = getattr(message, name)
    return message


def ask_texts(action: Message, form: FreeTextForm, read: Read, out: Out) -> None:
    """Ask for every free text of the action's form (the game's `free_text`), each with its limits, until the rules'
    own check accepts it."""
    for field in form.fields:
        holder = _holder(action, field.path)
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


def _ask_line(field: FreeText, example: str, read: Read) -> str:
    return ask(read, f"{field.what} ({field.limits}; Enter keeps {example!r}): ") or example


def _ask_lines(field: FreeText, example: str, read: Read, out: Out) -> str:
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
