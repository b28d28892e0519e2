"""Sitting at a table in the terminal: the view, the choice of an action (in steps when there are many), the free
text some actions carry, and the result in words."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from manaforge.v1.common_pb2 import Outcome
from manaforge.v1.gateway_pb2 import SeatView

from engine_core import GAMES
from engine_core.registry import AnyGame
from gateway.cli.asking import Leave, Out, Read, ask, ask_texts
from gateway.cli.reconnect import Reconnector
from gateway.cli.words import Screen, in_names
from gateway.client import Client

MENU_SIZE = 12  # more legal actions than this are chosen in steps: first the kind, then the cards
LABEL_HINT = 48  # characters of a group's line that show what its choices differ in

HELP = """At your turn, type the number of a choice. At any time:
  i       what the cards in view do        i NAME  one card: what it does, when, and why you cannot use it now
  r       the rules: how to play           v       the table again       h  this help
  b       back to the previous choices     q       leave the table (the game goes on; `manaforge rejoin TABLE`)
A choice that ends in "(N choices)" opens a shorter list. Actions that carry text (a card's name, its flavour,
its art) ask for each text after you pick them, with its limits; Enter keeps the example shown."""
WATCH_HELP = """Watching: the table is shown after every move. Type, then Enter:
  i       what the cards in view do        i NAME  one card
  r       the rules: how to play           v       the table again       h  this help
Ctrl-C stops watching."""


# -- the result and the table, in words ---------------------------------------------------------------------------


def _who(seat: int, me: int, names: Mapping[int, str]) -> str:
    return "you" if seat == me else names.get(seat, f"seat {seat}")


def _listed(words: Sequence[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def _points(score: float) -> str:
    return f"{score:g}"


def result_in_words(outcome: Outcome, me: int = -1, names: Mapping[int, str] | None = None) -> str:
    """e.g. "you won, 24 to 6 (the deck ran out)"; `me` is -1 for a spectator."""
    names = names or {}
    winners = list(outcome.winners)
    if len(winners) > 2 and len(winners) == len(outcome.scores):  # a cooperative game: the whole table won
        said = "you all won together" if me in winners else "everyone won together"
    elif me in winners:
        others = [_who(w, me, names) for w in winners if w != me]
        said = f"you shared the win with {_listed(others)}" if others else "you won"
    elif winners:
        said = f"{_listed([_who(w, me, names) for w in winners])} won"
        said = f"you lost: {said}" if me >= 0 else said
    else:
        said = "nobody won"
    scores = list(outcome.scores)
    if len(scores) == 2 and any(scores):
        first = me if me in (0, 1) else (winners[0] if len(winners) == 1 else 0)
        said += f", {_points(scores[first])} to {_points(scores[1 - first])}"
    elif any(scores):
        said += "; scores: " + ", ".join(f"{_who(s, me, names)} {_points(v)}" for s, v in enumerate(scores))
    return f"{said} ({in_names(outcome.reason, names, me, capital=False)})" if outcome.reason else said


def as_sentence(words: str) -> str:
    """A capital for our own first word ("You won", "Seat 1 won"), never for a player's name; a full stop."""
    first = words.split(" ", 1)[0]
    ours = first in ("you", "seat", "nobody", "the", "bot", "everyone")
    return f"{first.capitalize() if ours else first}{words[len(first) :]}."


def show(view: SeatView, out: Out = print, screen: Screen | None = None, since: Sequence[str] = ()) -> list[str]:
    """The table as the person at `view`'s seat sees it: the game's own text, the held cards that cannot be used
    now (and why), whose decision it is and the clocks, every seat by name. With `since` (the table's lines as last
    shown), only the lines that changed are shown. Returns the table's lines, for the next `since`."""
    screen = screen or Screen(game="")
    screen.me = view.seat
    say = screen.say
    table = say(view.text).split("\n")
    notes = screen.unusable(view) if screen.game else []
    lines = [*table, *notes]
    out("")
    if since:
        before = set(since)
        changed = [line for line in table if line not in before]
        if notes != since[len(since) - len(notes) :]:
            changed += notes
        for line in changed:
            out(line)
        out(f"({'the rest of ' if changed else ''}the table as before: v shows it all)")
    else:
        for line in lines:
            out(line)
    if view.outcome.finished:
        out(f"\n{as_sentence(result_in_words(view.outcome, view.seat, screen.names))}")
    elif view.pending.seats:
        others = [screen.who(s) for s in view.pending.seats if s != view.seat]
        prompt = say(_unaddressed(view.pending.prompt, view.pending.seats))
        if view.seat in view.pending.seats:
            also = f" (at the same time as {_listed(others)})" if others else ""
            out(f"\nYour turn{also}: {prompt}")
        else:
            out(f"\nWaiting for {_listed(others)}: {prompt}")
    for deadline in view.deadlines:
        left = max(0, round(deadline.at - time.time()))
        mine = deadline.seat == view.seat
        whose = "your" if mine else f"{screen.who(deadline.seat)}'s"
        out(f"  {whose} clock: {left} s left, then the clock decides for {'you' if mine else 'them'}")
    return lines


def _unaddressed(prompt: str, seats: Sequence[int]) -> str:
    """A prompt without the seat it is addressed to ("seat 0: discard a card"): the line says whose turn it is."""
    for seat in seats:
        if prompt.startswith(f"seat {seat}: "):
            return prompt[len(f"seat {seat}: ") :]
    return prompt


def command(line: str, view: SeatView | None, screen: Screen, out: Out, help_text: str = HELP) -> bool:
    """Answer a line that asks the terminal something (h, v, i, i NAME, r) rather than answering a question; True
    when it was one."""
    word, _, rest = line.strip().partition(" ")
    word = word.lower()
    if word in ("h", "help", "?"):
        out(help_text)
    elif word == "v" and not rest and view is not None:
        show(view, out, screen)
    elif word in ("i", "info"):
        if view is None:
            out("nothing is on the table yet")
        else:
            for said in screen.info(view, rest):
                out(screen.say(said))
    elif word in ("r", "rules") and not rest:
        out("")
        for said in screen.rules():
            out(said)
    else:
        return False
    return True


# -- choosing an action ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Choice:
    """One line of a menu: one legal action, or a group of them opened as a shorter menu."""

    label: str
    actions: tuple[int, ...]  # indices into the view's legal actions


def _kind(action: Message) -> object:
    """What sort of action this is: its oneof case, or the value of a leading enum field (e.g. Magicka's type)."""
    for oneof in action.DESCRIPTOR.oneofs:
        return action.WhichOneof(oneof.name)
    first = action.DESCRIPTOR.fields[0]
    return getattr(action, first.name) if first.type == FieldDescriptor.TYPE_ENUM else None


def _common_prefix(rows: Sequence[Sequence[str]]) -> list[str]:
    prefix: list[str] = []
    for words in zip(*rows, strict=False):
        if len(set(words)) > 1:
            break
        prefix.append(words[0])
    return prefix


def _group_label(texts: Sequence[str]) -> str:
    """The words a group's actions share, the rest elided, then what differs:
    "exchange … for 1 Spell card  (16 choices: Fire, Lightning; Fire, Earth; …)"."""
    rows = [text.split() for text in texts]
    head = _common_prefix(rows)
    rests = [row[len(head) :] for row in rows]
    tail = list(reversed(_common_prefix([list(reversed(rest)) for rest in rests])))
    tail = tail[len(tail) - min(len(tail), max(0, min(map(len, rests)) - 1)) :]  # leave each a word of its own
    differ = [part for part in dict.fromkeys(" ".join(rest[: len(rest) - len(tail)]) for rest in rests) if part]
    if not differ:
        return f"{texts[0]}  ({len(texts)} choices, alike)"
    shown = differ[0] if len(differ[0]) <= LABEL_HINT else differ[0][:LABEL_HINT] + "…"
    for part in differ[1:]:
        if len(shown) + len(part) > LABEL_HINT:
            shown += "; …"
            break
        shown += f"; {part}"
    return f"{' '.join([*head, '…', *tail])}  ({len(texts)} choices: {shown})"


def _groups(items: Sequence[tuple[int, str, object]]) -> list[list[tuple[int, str, object]]]:
    """Split a long list: by kind of action, else by the first word after the words they all share."""
    by_kind: dict[object, list[tuple[int, str, object]]] = {}
    for item in items:
        by_kind.setdefault(item[2], []).append(item)
    if len(by_kind) > 1:
        return list(by_kind.values())
    shared = len(_common_prefix([text.split() for _, text, _ in items]))
    by_word: dict[str, list[tuple[int, str, object]]] = {}
    for item in items:
        words = item[1].split()
        by_word.setdefault(words[shared] if shared < len(words) else "", []).append(item)
    return list(by_word.values())


def menu(items: Sequence[tuple[int, str, object]]) -> list[Choice]:
    """(index, text, kind) of legal actions as menu lines: all of them when few, else groups to open in turn."""
    groups = _groups(items) if len(items) > MENU_SIZE else []
    if len(groups) < 2:
        return [Choice(text, (index,)) for index, text, _ in items]
    return [
        Choice(group[0][1], (group[0][0],))
        if len(group) == 1
        else Choice(_group_label([text for _, text, _ in group]), tuple(i for i, *_ in group))
        for group in groups
    ]


def game_of_action(type_name: str) -> AnyGame:
    return next(g for g in GAMES if g.action_type.DESCRIPTOR.full_name == type_name)


def _label(game: AnyGame, action: Message, text: str) -> str:
    """The choice's words: the game's description, or for an action whose texts are still to be written, what the
    person will write (a legal action of a free-text game is an example)."""
    form = game.free_text(action)
    return form.label if form else text


def choose(view: SeatView, read: Read, out: Out, screen: Screen | None = None) -> Message:
    """Ask for one of the legal actions (raises Leave when the player leaves); the lines that ask the terminal
    something (`command`) are answered on the way."""
    game = game_of_action(view.legal_actions[0].action.TypeName())
    screen = screen or Screen(game=game.info.name, me=view.seat)
    actions: list[Message] = [game.action_from_any(legal.action) for legal in view.legal_actions]
    items = [
        (i, screen.say(_label(game, action, legal.text)), _kind(action))
        for i, (action, legal) in enumerate(zip(actions, view.legal_actions, strict=True))
    ]
    trail: list[list[Choice]] = [menu(items)]
    while True:
        choices = trail[-1]
        out("")
        for number, choice in enumerate(choices, start=1):
            out(f"  {number:>3}. {choice.label}")
        answer = ask(read, "your move> " if len(trail) == 1 else "your move (b: back)> ")
        if answer.lower() == "q":
            raise Leave
        if command(answer, view, screen, out):
            continue
        if answer.lower() == "b" and len(trail) > 1:
            trail.pop()
        elif answer.isdigit() and 1 <= int(answer) <= len(choices):
            picked = choices[int(answer) - 1]
            if len(picked.actions) > 1:
                trail.append(menu([item for item in items if item[0] in picked.actions]))
                continue
            action = actions[picked.actions[0]]
            form = game.free_text(action)
            if form:
                ask_texts(action, form, read, out)
            return action
        else:
            back = ", b to go back" if len(trail) > 1 else ""
            out(f"type a number from 1 to {len(choices)}{back}; i: the cards, r: the rules, h: help")


# -- following the table --------------------------------------------------------------------------------------------


def show_verdict(client: Client, table_id: str, out: Out, link: Reconnector | None = None) -> None:
    try:
        table = (link or Reconnector(client, out)).call(lambda: client.wait_finished(table_id, timeout=10))
        out(f"replay validation: {table.replay_verdict}")
    except TimeoutError:
        out("replay validation is still running")
