"""What the terminal says at a table, in a person's words: every seat by its player's name ("you" for the person at
this terminal, bots numbered apart), every card with what it does (`info`), the game's rules (`rules`).

The engines write a seat only as "seat N" in every text (the table as text, events, action labels, prompts, card
notes): `Screen.say` puts the names there. Card facts come from the game's catalogue (GetCatalogue, asked once per
table) and, in the booster games, from the Magic cards the view itself carries."""

from __future__ import annotations

import re
import shutil
import textwrap
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from google.protobuf.message import Message
from manaforge.v1 import gateway_pb2 as gw
from manaforge.v1.common_pb2 import CardFacts
from manaforge.v1.gateway_pb2 import SeatView

from engine_core import find_game
from engine_core.conformance import card_refs
from engine_core.game import magic_card_facts, magic_cards

WIDTH = 100  # the widest the terminal's own paragraphs get (narrower terminals: their width)

# "seat N is ..." said of the person at this terminal: "you are ..."
THIRD_PERSON = {
    "is": "are",
    "was": "were",
    "has": "have",
    "does": "do",
    "holds": "hold",
    "shows": "show",
    "needs": "need",
    "owes": "owe",
    "goes": "go",
    "gets": "get",
    "takes": "take",
    "draws": "draw",
    "copies": "copy",
    "writes": "write",
    "plays": "play",
    "wins": "win",
    "leads": "lead",
    "controls": "control",
    "passes": "pass",
    "chooses": "choose",
    "decides": "decide",
    "votes": "vote",
    "keeps": "keep",
    "skips": "skip",
}
# "seat N", "seat N's", "seat N is", and "seat N (or its creature) is": an aside between the seat and its verb
SEAT_WORDS = re.compile(r"\b([Ss])eat (\d+)(?:('s)\b|\b(?:( \([^)]*\))?( (?:" + "|".join(THIRD_PERSON) + r")\b))?)")
ITS = re.compile(r"\bits\b")
BOT_LEVEL = re.compile(r"\s*\([^)]*\)\s*$")  # "bot 2 (heuristic)" -> "bot 2"


def seat_names(table: gw.Table) -> dict[int, str]:
    """What to call each seat in running text: a person by name (with the seat when two share a name, or none was
    given; "(bot account)" after a bot account's), a bot as "bot 2" (numbered apart by the server; "the bot" when it
    is the only one), an open seat as "seat N"."""
    humans = Counter(s.name for s in table.seats if s.kind == gw.SEAT_KIND_HUMAN and s.name)
    names: dict[int, str] = {}
    for s in table.seats:
        if s.kind == gw.SEAT_KIND_BOT:
            name = BOT_LEVEL.sub("", s.name)
            names[s.seat] = "the bot" if name in ("", "bot") else name
        elif s.kind == gw.SEAT_KIND_HUMAN and s.name:
            names[s.seat] = s.name if humans[s.name] == 1 else f"{s.name} (seat {s.seat})"
            if s.bot_account:
                names[s.seat] += " (bot account)"
        else:
            names[s.seat] = f"seat {s.seat}"
    return names


def in_names(text: str, names: Mapping[int, str], me: int = -1, capital: bool = True) -> str:
    """`text` with every "seat N" said as the seat's name, "you" / "your" for `me` ("seat 0 is" -> "you are"); a
    word of ours that starts a line or a sentence gets its capital ("You discarded Fireball"), the text's own first
    word too unless `capital` is False (a text said inside a sentence)."""

    def named(match: re.Match[str]) -> str:
        seat = int(match.group(2))
        possessive, aside, verb = match.group(3), match.group(4) or "", (match.group(5) or "").strip()
        if seat == me:
            aside = ITS.sub("your", aside)  # "seat 0 (or its creature) is" -> "you (or your creature) are"
            said = "your" if possessive else "you" + aside + (f" {THIRD_PERSON[verb]}" if verb else "")
        elif seat in names:
            name = names[seat]
            said = f"{name}'s" if possessive else name + aside + (f" {verb}" if verb else "")
            if name != f"seat {seat}" and not name.startswith(("the bot", "bot ")):
                return said  # a person's name is written as its player wrote it
        else:
            return match.group(0)
        start = match.start()
        before = text[max(0, start - 2) : start]
        if (start == 0 and capital) or before.endswith("\n") or before in (". ", "! ", "? "):
            said = said[0].upper() + said[1:]
        return said

    return SEAT_WORDS.sub(named, text) if "eat " in text else text


def width() -> int:
    return max(40, min(WIDTH, shutil.get_terminal_size((WIDTH, 24)).columns - 1))


def plain_markdown(markdown: str, columns: int = WIDTH) -> list[str]:
    """A how-to-play page (markdown) as text to read in a terminal: headings set apart, emphasis and code marks
    removed, paragraphs and list items wrapped to `columns`."""
    lines: list[str] = []
    paragraph: list[str] = []
    bullet = ""

    def flush() -> None:
        nonlocal paragraph, bullet
        if paragraph:
            text = _inline(" ".join(paragraph))
            indent = " " * len(bullet)
            lines.extend(textwrap.wrap(text, columns, initial_indent=bullet, subsequent_indent=indent) or [""])
        paragraph, bullet = [], ""

    for raw in markdown.splitlines():
        line = raw.strip()
        heading = re.match(r"(#+)\s+(.*)", line)
        item = re.match(r"([-*]|\d+\.)\s+(.*)", line)
        if not line:
            flush()
            if lines and lines[-1]:
                lines.append("")
        elif heading:
            flush()
            title = _inline(heading.group(2))
            if lines and lines[-1]:
                lines.append("")
            lines += [title.upper(), "=" * len(title)] if len(heading.group(1)) == 1 else [title, "-" * len(title)]
        elif item and (raw.startswith(item.group(1)) or raw[: len(raw) - len(raw.lstrip())] == ""):
            flush()
            marker = "-" if item.group(1) in "-*" else item.group(1)
            bullet, paragraph = f"  {marker} ", [item.group(2)]
        else:
            paragraph.append(line)
    flush()
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _inline(text: str) -> str:
    text = re.sub(r"\*\*(.+?)\*\*|__(.+?)__", lambda m: m.group(1) or m.group(2), text)
    text = re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"\1", text)
    text = re.sub(r"`([^`]*)`", r"\1", text)
    return re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", text)


def fact_line(fact: CardFacts) -> str:
    """A card's kind and cost, e.g. "Spell, costs Fire, Fire and Earth"."""
    kind = fact.kind or "card"
    return f"{kind}, costs {fact.cost}" if fact.cost else kind


@dataclass
class Screen:
    """What the terminal shows of one table to one person: seats by name, cards with what they do, the rules.

    `catalogue` and `guide` are asked when first needed, once (GetCatalogue for the table's config; ListGames'
    how-to-play page of its game)."""

    game: str
    names: Mapping[int, str] = field(default_factory=dict)
    me: int = -1
    catalogue: Callable[[], Iterable[CardFacts]] = list
    guide: Callable[[], str] = str
    _catalogue: dict[int, CardFacts] | None = None
    _guide: str | None = None

    def say(self, text: str, capital: bool = True) -> str:
        return in_names(text, self.names, self.me, capital)

    def event(self, text: str) -> str:
        """An event's text as a line of its own: names, and a capital for "you" / "your" at its start."""
        said = self.say(text)
        return said[0].upper() + said[1:] if said.startswith(("you ", "your ")) else said

    def who(self, seat: int) -> str:
        return "you" if seat == self.me else self.names.get(seat, f"seat {seat}")

    # -- the cards ------------------------------------------------------------------------------------------------

    def facts(self, view: SeatView) -> dict[int, CardFacts]:
        """What every card the game can show does, by id: the catalogue's, and the Magic cards `view` holds."""
        if self._catalogue is None:
            self._catalogue = {fact.id: fact for fact in self.catalogue()}
        facts = dict(self._catalogue)
        if view.HasField("view"):
            for magic in magic_cards(self._state(view)):
                facts[magic.id] = magic_card_facts(magic)
        return facts

    def _state(self, view: SeatView) -> Message:
        state: Message = find_game(self.game).state_from_any(view.view)
        return state

    def in_view(self, view: SeatView) -> list[CardFacts]:
        """The cards the person sees: those of the view whose names the table's text shows, in the order it shows
        them (a card in a pile nobody looks at is left out)."""
        facts = self.facts(view)
        shown = card_refs(self._state(view)) & facts.keys()
        named: dict[str, tuple[int, CardFacts]] = {}
        for card in shown:
            fact = facts[card]
            if fact.name in named:
                continue
            found = re.search(rf"(?<![\w']){re.escape(fact.name)}(?![\w'])", view.text)
            if found:
                named[fact.name] = (found.start(), fact)
        return [fact for _, fact in sorted(named.values(), key=lambda pair: (pair[0], pair[1].id))]

    def notes(self, view: SeatView) -> dict[str, list[str]]:
        """The seat's own cards it cannot use now, by reason: {"needs Fire and Fire": ["Fireball", ...]}."""
        facts = self.facts(view) if view.card_notes else {}
        by_note: dict[str, list[str]] = {}
        for note in view.card_notes:
            name = facts[note.card].name if note.card in facts else f"card {note.card}"
            said = by_note.setdefault(self.say(note.note), [])
            if name not in said:
                said.append(name)
        return by_note

    def unusable(self, view: SeatView) -> list[str]:
        """The lines shown under the table: each reason a held card cannot be used now, with the cards."""
        by_note = self.notes(view)
        if not by_note:
            return []
        return ["Not usable now:"] + [f"  {', '.join(names)}: {note}" for note, names in by_note.items()]

    def info(self, view: SeatView, query: str = "") -> list[str]:
        """`info`: what each card in view does (alike cards together); `info NAME`: one card, with its note."""
        columns = width()
        if query:
            return self._one(view, query.strip(), columns)
        cards = self.in_view(view)
        if not cards:
            return ["no card is on the table now: `info NAME` looks one up by name"]
        groups: dict[tuple[str, str, str], list[CardFacts]] = {}
        for fact in cards:
            groups.setdefault((fact.kind, fact.cost, fact.effect), []).append(fact)
        notes = {name: note for note, names in self.notes(view).items() for name in names}
        lines = ["What the cards in view do (`info NAME` for one card, with when it can be used):"]
        for (_, _, effect), alike in groups.items():
            names = ", ".join(fact.name for fact in alike)
            lines += textwrap.wrap(
                f"{names} ({fact_line(alike[0])}): {effect or 'no effect of its own'}",
                columns,
                initial_indent="  ",
                subsequent_indent="      ",
            )
            lines += [f"      cannot use {fact.name} now: {notes[fact.name]}" for fact in alike if fact.name in notes]
        return lines

    def _one(self, view: SeatView, query: str, columns: int) -> list[str]:
        """One card by name (any case; a part of a name when only one card has it): the cards in view first, then
        every card of the game."""
        wanted = query.lower()
        candidates = [*self.in_view(view), *sorted(self.facts(view).values(), key=lambda f: f.id)]
        exact = [fact for fact in candidates if fact.name.lower() == wanted]
        partial = {fact.name: fact for fact in candidates if wanted in fact.name.lower()}
        if exact:
            fact = exact[0]
        elif len(partial) == 1:
            fact = next(iter(partial.values()))
        elif partial:
            names = sorted(partial)
            more = ", …" if len(names) > 8 else ""
            return [f"{len(names)} cards have {query!r} in their name: {', '.join(names[:8])}{more}"]
        else:
            return [f"no card called {query!r} at this table: `info` lists the cards in view"]
        wrap = textwrap.TextWrapper(columns, initial_indent="  ", subsequent_indent="  ")
        lines = [f"{fact.name} — {fact_line(fact)}"]
        lines += wrap.wrap(fact.effect or "no effect of its own")
        if fact.timing:
            lines += wrap.wrap(f"when: {fact.timing}")
        if fact.tags:
            lines += wrap.wrap(f"({', '.join(fact.tags)})")
        for note, names in self.notes(view).items():
            if fact.name in names:
                lines += wrap.wrap(f"{fact.name} — cannot use now: {note}")
        return lines

    # -- the rules ------------------------------------------------------------------------------------------------

    def rules(self) -> list[str]:
        if self._guide is None:
            self._guide = self.guide()
        if not self._guide:
            return [f"{self.game} has no how-to-play page"]
        return [
            *plain_markdown(self._guide, width()),
            "",
            "At the table: i lists what the cards in view do, i NAME one card.",
        ]
