"""The names people see at a table, and which of them a player may take.

A seat shows a registered player's own registered name, or a guest's name that cannot be taken for a registered
player's, a bot's ("bot", "bot (random)", "bot 2 (heuristic)") or a reserved word ("admin", "operator", "you", what
the terminal calls a seat). Names are compared by what they look like: the Unicode confusables skeleton of UTS #39
(ICU's SpoofChecker: "bοt" with a Greek omicron, "ВОТ" in Cyrillic and "b0t" all look like "bot"), taken both as
written and case-folded, so a name also matches another that differs only in case. `looks` gives a name's forms;
two names look alike when they share one. Registration refuses the same names, and a name that looks like one
registered before it.
"""

from __future__ import annotations

import re
import unicodedata

import icu

from engine_core.errors import InvalidConfigError
from services.tables.errors import TableError

GUEST_NAME = "player"  # what a guest who gives no name is called: never a registered player's
RULE = "pick a name no bot, registered player or reserved word looks like"
# Words no player's name may contain (as a word, in any look-alike letters): the platform's own, and what the
# clients call a seat ("you", "seat 2"). "guest" and "player" are left to guests (the browser names a guest
# "guest-xxxxx"; an unnamed guest is "player").
RESERVED = frozenset(
    {
        *("admin", "administrator", "moderator", "mod", "operator", "sysop", "root", "system", "server"),
        *("manaforge", "official", "staff", "support", "referee", "spectator"),
        *("anonymous", "everyone", "nobody", "none", "null", "undefined"),
        *("you", "your", "seat"),
    }
)
LOOKS_VERSION = f"1 icu {icu.ICU_VERSION}"  # the stored looks are recomputed when this changes (players.py)

_SPOOF = icu.SpoofChecker()
_WORD = re.compile(r"[^\W\d_]+")  # a run of letters


class NameRefusedError(InvalidConfigError):
    """A name no player may take (a bot's, a reserved word's look-alike): INVALID_ARGUMENT."""

    def __init__(self, detail: str) -> None:
        super().__init__("player name", detail)


class NameTakenError(TableError):
    """A name that looks like a registered player's: ALREADY_EXISTS."""


def _skeleton(text: str) -> str:
    return str(_SPOOF.getSkeleton(0, text))


def looks(name: str) -> frozenset[str]:
    """What `name` looks like: the confusables skeleton of the name as written, and of its case-folded form (so
    "ADMIN" looks like "admin", which the first alone would not say: "I" looks like "l", "i" does not), each then
    case-folded and skeletonised again (so "ВОТ" looks like "bot"); full-width letters as their plain ones (NFKC),
    a run of spaces as one."""
    text = unicodedata.normalize("NFKC", name)
    forms = (_skeleton(_skeleton(start).casefold()) for start in (text, text.casefold()))
    return frozenset(" ".join(form.split()) for form in forms)


def _words(forms: frozenset[str]) -> set[str]:
    return {word for form in forms for word in _WORD.findall(form)}


_BOT = next(iter(looks("bot")))
_RESERVED = {form: word for word in RESERVED for form in looks(word)}
_GUEST = looks(GUEST_NAME)


def is_botlike(name: str) -> bool:
    """Whether `name` reads like a bot's seat: "bot" as its first word ("bot", "bot 2 (heuristic)", "b0t_x"), or
    what the terminal calls a table's only bot ("the bot")."""
    return any(re.match(rf"{_BOT}(?![^\W\d_])", form) or form == f"the {_BOT}" for form in looks(name))


def reserved_word(name: str) -> str:
    """The reserved word `name` has a word looking like ("" when none)."""
    return next((_RESERVED[word] for word in sorted(_words(looks(name))) if word in _RESERVED), "")


def check_anyones(name: str, who: str = "guests") -> None:
    """Refuse a name nobody may take: a bot's or a reserved word's look-alike (NameRefusedError). `who`: whom the
    message tells what to pick."""
    if is_botlike(name):
        raise NameRefusedError(f"{name!r} looks like a bot's name; {who} {RULE}")
    if word := reserved_word(name):
        raise NameRefusedError(f"{name!r} looks like the reserved word {word!r}; {who} {RULE}")


def check_registrable(name: str) -> None:
    """Refuse a name a player may not register (the looks of other players' names are checked by players.py): one
    starting like "bot" at all ("botany" too: a registered name is shown as it is, beside bots), or like "player"
    (an unnamed guest), or one nobody may take."""
    if any(form.startswith(_BOT) for form in looks(name)):
        raise NameRefusedError(f"{name!r} starts like a bot's name; registered names do not start with 'bot'")
    if looks(name) & _GUEST:
        raise NameRefusedError(f"{name!r} looks like {GUEST_NAME!r}, what an unnamed guest is called")
    check_anyones(name, "players")


def taken_message(name: str, owner: str) -> str:
    """Why a guest may not take `name`, a registered player's (`owner`: that player's name)."""
    if owner.casefold() == name.casefold():
        return f"player name: {name!r} is a registered player's name; register to use yours, or {RULE}"
    return f"player name: {name!r} looks like {owner!r}, a registered player's name; guests {RULE}"


def clean(name: str) -> str:
    """A guest's name as a seat shows it: printable characters only (no bidi overrides or zero-width characters),
    trimmed, at most 40; GUEST_NAME when nothing is left."""
    cleaned = "".join(ch for ch in name if ch.isprintable()).strip()[:40]
    return cleaned or GUEST_NAME
