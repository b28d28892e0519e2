"""The words the browser client shows for an engine text (gateway/web/src/names.ts): each "seat N" as its player's
name, "you" / "your" for the page's own seat, and a capital letter at the start of a sentence."""

from __future__ import annotations

import re

SEAT = re.compile(r"\bseat (\d+)('s)?((?: \([^)]*\))?\s+(?:is|has|was|does)\b)?")
AS_YOU = {"is": "are", "has": "have", "was": "were", "does": "do"}


def named(text: str, names: list[str], mine: int) -> str:
    def one(match: re.Match[str]) -> str:
        seat, owner, verb = int(match.group(1)), match.group(2), match.group(3) or ""
        own = seat == mine
        who = (
            ("your" if owner else "you")
            if own
            else (names[seat] if seat < len(names) else f"seat {seat}") + (owner or "")
        )
        if verb and own:
            word = verb.split()[-1]
            verb = verb[: len(verb) - len(word)] + AS_YOU.get(word, word)
            verb = re.sub(r"\bits\b", "your", verb)  # "seat 0 (or its creature) is" -> "you (or your creature) are"
        start = match.start() == 0 or re.search(r"[.!?]\s*$", text[: match.start()]) is not None
        return (who[:1].upper() + who[1:] if start and own else who) + verb  # a name stays as written

    return SEAT.sub(one, text)


def log_line(text: str, names: list[str], mine: int) -> str:
    """An event as "What happened" lists it."""
    said = named(text, names, mine)
    return said if any(name and said.startswith(name) for name in names) else said[:1].upper() + said[1:]
