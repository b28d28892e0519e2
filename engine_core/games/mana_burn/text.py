"""MANA BURN as a player looks at it, in text: the board with the pawns (one letter a seat), where the die can take
the moving pawn and what the squares say, each player's hand and creatures, and the goal: one of each of the ten
cards. Seats are named only as "seat N" (clients put names there)."""

from __future__ import annotations

from typing import Final

from manaforge.v1.games.mana_burn_pb2 import ManaBurnState

from engine_core.game import seat_count, wrap
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
    return f"MANA BURN · {rounds} · seat {view.active}'s turn, then seat {after} · goal: one of each of the ten cards"


def _board(view: ManaBurnState) -> list[str]:
    on: dict[int, str] = {}
    for s, player in enumerate(view.players):
        on[player.square] = on.get(player.square, "") + PAWNS[s]
    top = f"top: {name(view.graveyard[-1])} ({len(view.graveyard)})" if view.graveyard else "empty"
    lines = [
        f"LIBRARY · {view.library_size} cards · walk in: draw 2, change path · paths start and end here"
        + _marks(on, LIBRARY),
        "  " + "".join(f"{f'{path} ↓':<{COLUMNS[p]}}" for p, path in enumerate(PATH_NAMES)).rstrip(),
    ]
    lines += _rows(OUTS, on)
    graveyard = f"GRAVEYARD · {top} · stop: take the top card, leave by any path{_marks(on, GRAVEYARD)}"
    lines += wrap(graveyard, WIDTH, "", "  ")
    lines += _rows(BACKS, on)
    return lines


def _marks(on: dict[int, str], square: int) -> str:
    return f"  @{' @'.join(on[square])}" if square in on else ""


def _rows(segments: tuple[tuple[int, ...], ...], on: dict[int, str]) -> list[str]:
    """The squares of the paths' out (or back) segments side by side, row by row, with the pawns on them."""
    rows = []
    for i in range(max(len(segment) for segment in segments)):
        squares = [segment[i] if i < len(segment) else -1 for segment in segments]
        if not any(square in on for square in squares):
            rows.append(EMPTY_ROWS[segments][i])
            continue
        cells = []
        for p, square in enumerate(squares):
            cell = SQUARES[square].name + _marks(on, square).replace("  ", " ", 1) if square >= 0 else ""
            cells.append(f"{cell:<{COLUMNS[p]}}")
        rows.append("  " + "".join(cells).rstrip())
    return rows


def _empty_rows(segments: tuple[tuple[int, ...], ...]) -> tuple[str, ...]:
    rows = []
    for i in range(max(len(segment) for segment in segments)):
        cells = [SQUARES[seg[i]].name if i < len(seg) else "" for seg in segments]
        rows.append("  " + "".join(f"{cell:<{COLUMNS[p]}}" for p, cell in enumerate(cells)).rstrip())
    return tuple(rows)


EMPTY_ROWS: Final = {OUTS: _empty_rows(OUTS), BACKS: _empty_rows(BACKS)}  # the rows without pawns, made once


def _player(view: ManaBurnState, s: int, seat: int | None) -> list[str]:
    player = view.players[s]
    square = SQUARES[player.square]
    where = (
        square.name
        if board.is_hub(player.square)
        else f"{square.name} ({PATH_NAMES[board.PATH_OF[player.square]]}): {square.text}"
    )
    said = [f"{player.hand_size} card{'s' * (player.hand_size != 1)}"]
    if player.offer_size:
        said.append(f"{player.offer_size} face down")
    if player.skip_turns:
        said.append(f"skips {player.skip_turns} turn{'s' * (player.skip_turns != 1)}")
    line = f"@{PAWNS[s]} seat {s} · {', '.join(said)} · on {where}"
    lines = [line] if len(line) <= WIDTH else wrap(line, WIDTH, "", INDENT)
    if player.creatures:
        creatures = "in play: " + ", ".join(_creature(c.card, len(c.armor), c.owner, s) for c in player.creatures)
        if len(lines[-1]) + len(creatures) + 3 <= WIDTH:
            lines[-1] += f" · {creatures}"
        else:
            lines += wrap(creatures, WIDTH, INDENT, INDENT + "  ")
    if s == seat:
        kinds = sorted({KIND_OF[c] for c in player.hand})
        counts = [sum(KIND_OF[c] == k for c in player.hand) for k in kinds]
        hand = ", ".join(NAMES[k] + (f" ×{count}" if count > 1 else "") for k, count in zip(kinds, counts, strict=True))
        missing = [NAMES[k] for k in range(len(NAMES)) if k not in kinds]
        lines += wrap(f"seat {s}'s hand: {hand or 'no cards'}", WIDTH, INDENT, INDENT + "  ")
        progress = f"progress: {len(kinds)} of 10 different cards" + (
            f"; missing {', '.join(missing)}" if missing else ": all ten!"
        )
        lines += wrap(progress, WIDTH, INDENT, INDENT + "  ")
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
        lines = [f"{what}:"]
        for p, path in enumerate(PATH_NAMES):
            lines += wrap(f"by {path}: {landing(player.square, p, steps)}", WIDTH, "  ", "    ")
        return lines
    return wrap(f"{what}: {landing(player.square, player.path, steps)}", WIDTH, "", "  ")


def landing(square: int, path: int, steps: int) -> str:
    """Where `steps` along `path` from `square` take a pawn, with what the square says."""
    for walked in range(1, steps + 1):
        square = NEXT_SQUARE[path][square]
        if square == LIBRARY and walked < steps:
            return f"into the Library with {steps - walked} to go (draw 2, then choose a path)"
    found = SQUARES[square]
    return f"the {found.name}" if board.is_hub(square) else f"{found.name} ({found.text})"


def _table(view: ManaBurnState) -> list[str]:
    lines = []
    if view.mana_burn_size:
        burnt = f"{view.mana_burn_size} card{'s' * (view.mana_burn_size != 1)}"
        lines.append(f"Mana Burn pile: {burnt} face down (Nose Ring of Ma'Ruf takes one)")
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
        lines += wrap("Just played, may be answered: " + "; ".join(played), WIDTH, "", "  ")
    if view.auction:
        bid = f"; highest bid: seat {view.last_bidder}" if view.last_bidder >= 0 else "; no bid yet"
        out = [s for s, p in enumerate(view.players) if p.passed]
        passed = f"; passed: {', '.join(f'seat {s}' for s in out)}" if out else ""
        lines += wrap(f"Up for auction: {', '.join(name(c) for c in view.auction)}{bid}{passed}", WIDTH, "", "  ")
    return lines
