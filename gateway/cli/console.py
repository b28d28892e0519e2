"""The terminal as a game under way sees it: the lines a person types and the table's updates, each read on a thread
of its own and waited for together, so the client follows the game while the person thinks.

A line is read as soon as it is typed (or piped in) and kept until a question takes it, so lines typed ahead answer
the questions that follow, in order. The updates arrive as the server sends them; `next` hands the play loop
whichever comes first."""

from __future__ import annotations

import os
import queue
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from manaforge.v1 import gateway_pb2 as gw

Write = Callable[[str], None]  # writes without a line break (a question waiting for its answer)


@dataclass(frozen=True)
class Line:
    """A line the person typed (without its line break)."""

    text: str


@dataclass(frozen=True)
class Update:
    update: gw.WatchUpdate


@dataclass(frozen=True)
class Said:
    """A line the updates' connection has to say (the gateway went away, or is back)."""

    text: str


@dataclass(frozen=True)
class Ended:
    """The updates ended: the game is over, or the stream failed with `error`."""

    error: BaseException | None = None


class EndOfInput:
    """Nothing more can be typed (Ctrl-D, or the end of piped input)."""


Item = Line | Update | Said | Ended | EndOfInput


def typed_lines(fd: int = 0) -> Iterator[str]:
    """The lines of a file descriptor as they come (a terminal gives one each time Enter is pressed). Read with
    os.read, so a thread blocked here holds no lock of sys.stdin's that the interpreter's exit would wait for."""
    pending = b""
    while chunk := os.read(fd, 4096):
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            yield line.decode(errors="replace").rstrip("\r")
    if pending:
        yield pending.decode(errors="replace")


def write_stdout(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


class Console:
    """What a play loop waits on: typed lines and the table's updates, in the order they arrive."""

    def __init__(self, lines: Callable[[], Iterator[str]] = typed_lines, write: Write = write_stdout) -> None:
        self.write = write
        self._lines = lines
        self._items: queue.Queue[Item] = queue.Queue()
        self._reading = False

    def say(self, text: str) -> None:
        """Called from the updates' thread: the line is said by the play loop, between its own lines."""
        self._items.put(Said(text))

    def follow(self, updates: Iterator[gw.WatchUpdate]) -> None:
        """Read `updates` on a thread of their own until they end."""
        threading.Thread(target=self._follow, args=(updates,), name="updates", daemon=True).start()
        self.listen()

    def listen(self) -> None:
        """Read the typed lines on a thread of their own (once: `follow` does it too)."""
        if not self._reading:
            self._reading = True
            threading.Thread(target=self._read, name="keyboard", daemon=True).start()

    def next(self, timeout: float | None = None) -> Item | None:
        """The next line or update, waiting up to `timeout` seconds (None: for ever); None when none came."""
        try:
            return self._items.get(timeout=timeout)
        except queue.Empty:
            return None

    def _follow(self, updates: Iterator[gw.WatchUpdate]) -> None:
        try:
            for update in updates:
                self._items.put(Update(update))
        except BaseException as error:
            self._items.put(Ended(error))
            return
        self._items.put(Ended())

    def _read(self) -> None:
        try:
            for text in self._lines():
                self._items.put(Line(text))
        except OSError:
            pass  # stdin closed under us: as good as its end
        self._items.put(EndOfInput())
