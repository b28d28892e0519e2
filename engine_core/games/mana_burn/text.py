"""MANA BURN as a player looks at it, in text: the board with the pawns (one letter a seat), where the die can take
the moving pawn and what the squares say, each player's hand and creatures, and the goal: one of each of the ten
cards. Seats are named only as "seat N" (clients put names there)."""

from __future__ import annotations

import textwrap
from typing import Final

from manaforge.v1.games.mana_burn_pb2 import ManaBurnState

from engine_core.game import seat_count
from engine_core.games.mana_burn import board
from engine_core.games.mana_burn.board import BACKS, GRAVEYARD, LIBRARY, NEXT_SQUARE, OUTS, PATH_NAMES, SQUARES
from engine_core.games.mana_burn.cards import KIND_OF, NAMES, name
from engine_core.games.mana_burn.rules import ANTE_ROLL, MOVE_ROLL, PATH_PHASE, SQUARE_ROLL

PAWNS: Final = "ABCDEF"  # the pawns on the board, by seat
WIDTH: Final = 100
INDENT: Final = "     "
COLUMNS: Final = tuple(max(len(SQUARES[s].name) for s in (*OUTS[p], *BACKS[p])) + 5 for p in range(len(PATH_NAMES)))
WHY: Final = {MOVE_ROLL: "to move", ANTE_ROLL: "for Ante", SQUARE_ROLL: "for the square"}


def render(view: ManaBurnState, seat: int | None) -> str:
    n = seat_count(view)
    lines = [_title(view, n)]
    lines += _board(view)
    lines.append("")
    for s in range(n):
        lines += _player(view, s, seat)
    lines += _reach(view)
    lines += _table(view)
    return "\n".join(lines)


def _title(view: ManaBurnState, n: int) -> str:
    limit = int(view.header.config.options["turn_limit"])
    rounds = f"round {max(1, (view.turns + n - 1) // n)} of {limit}"
    if view.header.outcome.finished:
        return f"MANA BURN · game over in {rounds} · goal: one of each of the ten cards"
    after = (view.active + view.direction) % n
    return f"MANA BURN · {rounds} · seat {view.active}'s turn, then seat {after}'s · goal: one of each of the ten cards"


def _board(view: ManaBurnState) -> list[str]:
    on: dict[int, str] = {}
    for s, player in enumerate(view.players):
        on[player.square] = on.get(player.square, "") + PAWNS[s]
    top = f"{len(view.graveyard)} cards, top {name(view.graveyard[-1])}" if view.graveyard else "empty"
    burnt = f" · Mana Burn pile: {view.mana_burn_size} face down" if view.mana_burn_size else ""
    lines = [
        f"LIBRARY · {view.library_size} cards · walk in: draw 2, change path · paths start and end here{burnt}"
        + _marks(on, LIBRARY),
        "  " + "".join(f"{f'{path} ↓':<{COLUMNS[p]}}" for p, path in enumerate(PATH_NAMES)).rstrip(),
    ]
    lines += _rows(OUTS, on)
    lines.append(f"GRAVEYARD · {top} · stop here: take the top card, leave by any path{_marks(on, GRAVEYARD)}")
    lines += _rows(BACKS, on)
    return lines


def _marks(on: dict[int, str], square: int) -> str:
    return f"  @{' @'.join(on[square])}" if square in on else ""


def _rows(segments: tuple[tuple[int, ...], ...], on: dict[int, str]) -> list[str]:
    rows = []
    for i in range(max(len(segment) for segment in segments)):
        cells = []
        for p, segment in enumerate(segments):
            cell = SQUARES[segment[i]].name + _marks(on, segment[i]).replace("  ", " ", 1) if i < len(segment) else ""
            cells.append(f"{cell:<{COLUMNS[p]}}")
        rows.append("  " + "".join(cells).rstrip())
    return rows


def _player(view: ManaBurnState, s: int, seat: int | None) -> list[str]:
    player = view.players[s]
    square = SQUARES[player.square]
    where = square.name if board.is_hub(player.square) else f"{square.name} ({PATH_NAMES[player.path]}): {square.text}"
    said = [f"{player.hand_size} card{'s' * (player.hand_size != 1)}"]
    if player.offer_size:
        said.append(f"{player.offer_size} face down")
    if player.skip_turns:
        said.append(f"skips {player.skip_turns} turn{'s' * (player.skip_turns != 1)}")
    lines = [f"@{PAWNS[s]} seat {s} · {', '.join(said)} · on {where}"]
    if player.creatures:
        creatures = "in play: " + ", ".join(_creature(c.card, len(c.armor), c.owner, s) for c in player.creatures)
        if len(lines[0]) + len(creatures) + 3 <= WIDTH:
            lines[0] += f" · {creatures}"
        else:
            lines.append(f"{INDENT}{creatures}")
    if s == seat:
        kinds = sorted({KIND_OF[c] for c in player.hand})
        counts = [sum(KIND_OF[c] == k for c in player.hand) for k in kinds]
        hand = ", ".join(NAMES[k] + (f" ×{count}" if count > 1 else "") for k, count in zip(kinds, counts, strict=True))
        missing = [NAMES[k] for k in range(len(NAMES)) if k not in kinds]
        lines.append(f"{INDENT}seat {s}'s hand: {hand or 'no cards'}")
        progress = f"progress: {len(kinds)} of 10 different cards" + (
            f"; missing {', '.join(missing)}" if missing else ": all ten!"
        )
        lines += textwrap.wrap(progress, WIDTH, initial_indent=INDENT, subsequent_indent=INDENT + "  ")
    return lines


def _creature(card: int, armor: int, owner: int, controller: int) -> str:
    worn = f" +{armor} Holy Armor" if armor else ""
    return name(card) + worn + (f" (seat {owner}'s card)" if owner != controller else "")


def _reach(view: ManaBurnState) -> list[str]:
    """Where the moving pawn can go: the movement roll on the table, or the steps left at a path to choose."""
    if view.header.outcome.finished:
        return []
    player = view.players[view.active]
    moving = [r for r in view.rolls if r.purpose == MOVE_ROLL]
    if moving:
        steps, what = moving[0].value, f"seat {view.active} rolled {moving[0].value} to move"
    elif view.phase == PATH_PHASE and view.steps > 0:
        steps, what = view.steps, f"seat {view.active} chooses a path, {view.steps} to go"
    else:
        return []
    if player.choosing or player.square == LIBRARY:
        return [f"{what}:"] + [f"  by {path}: {landing(player.square, p, steps)}" for p, path in enumerate(PATH_NAMES)]
    return [f"{what}: {landing(player.square, player.path, steps)}"]


def landing(square: int, path: int, steps: int) -> str:
    """Where `steps` along `path` from `square` take a pawn, with what the square says."""
    for walked in range(1, steps + 1):
        square = NEXT_SQUARE[path][square]
        if square == LIBRARY and walked < steps:
            return f"into the Library with {steps - walked} to go (draw 2, then choose a path)"
    found = SQUARES[square]
    return found.name if board.is_hub(square) else f"{found.name} ({found.text})"


def _table(view: ManaBurnState) -> list[str]:
    lines = []
    rolls = [r for r in view.rolls if r.purpose != MOVE_ROLL]
    if rolls:
        lines.append(
            "Die: " + ", ".join(f"seat {r.seat} rolled {r.value} {WHY.get(r.purpose, '')}".rstrip() for r in rolls)
        )
    if view.stack:
        played = [
            f"{name(i.card)} by seat {i.seat}"
            + (f" on {name(i.target)}" if i.target >= 0 and i.roll < 0 else "")
            + (" (countered)" if i.countered else "")
            for i in view.stack
        ]
        lines.append("Just played, may be answered: " + "; ".join(played))
    if view.auction:
        bid = f"; highest bid: seat {view.last_bidder}" if view.last_bidder >= 0 else "; no bid yet"
        out = [s for s, p in enumerate(view.players) if p.passed]
        passed = f"; passed: {', '.join(f'seat {s}' for s in out)}" if out else ""
        lines.append(f"Up for auction: {', '.join(name(c) for c in view.auction)}{bid}{passed}")
    return lines
