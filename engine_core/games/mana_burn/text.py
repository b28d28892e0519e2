"""MANA BURN as a player looks at it, in text: the board with the pawns (one letter a seat), where the die can take
the moving pawn and what the squares say, each player's hand and creatures, and the goal: one of each of the ten
cards. Seats are named only as "seat N" (clients put names there)."""

from __future__ import annotations

from typing import Final

from manaforge.v1.games.mana_burn_pb2 import ManaBurnAction, ManaBurnState

from engine_core.game import seat_count, wrap
from engine_core.games.mana_burn import board, rules
from engine_core.games.mana_burn.actions import ANTE_ROLL, MOVE_ROLL, PATH_PHASE, SQUARE_ROLL, Move, Phase
from engine_core.games.mana_burn.board import BACKS, GRAVEYARD, LIBRARY, NEXT_SQUARE, OUTS, PATH_NAMES, SQUARES
from engine_core.games.mana_burn.cards import (
    INSTANTS,
    KIND_OF,
    NAMES,
    Kind,
    kind,
    name,
)
from engine_core.games.mana_burn.spells import card_controller, card_label, incinerate_targets, target_text

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


def describe_action(state: ManaBurnState, action: ManaBurnAction) -> str:
    """The action in words, distinct among one decision's choices: cards in play named by controller (and Armor,
    owner), a harmful card aimed at the actor's own creature marked "(your own)"."""
    move = action.move
    actor = _actor(state)
    if move == Move.MANA_BURN_MOVE_PASS:
        return "end the turn" if not state.windows and state.phase == Phase.MANA_BURN_PHASE_MAIN else "pass"
    if move == Move.MANA_BURN_MOVE_PLAY:
        own = kind(action.card) == Kind.INCINERATE and card_controller(state, action.target) == actor
        return f"play {name(action.card)}{target_text(state, action)}" + (" (your own)" if own else "")
    if move == Move.MANA_BURN_MOVE_REROLL:
        return "re-roll the movement die (Scryb Sprites)"
    if move == Move.MANA_BURN_MOVE_HERO:
        return f"Benalish Hero: +2 to seat {state.rolls[action.roll].seat}'s Ante roll"
    if move == Move.MANA_BURN_MOVE_PATH:
        player = state.players[state.active]
        to = f" to {landing(player.square, action.path, state.steps)}" if state.steps > 0 else ""
        return f"take the path of {board.PATH_NAMES[action.path]}{to}"
    if move == Move.MANA_BURN_MOVE_YES:
        return "yes"
    if move == Move.MANA_BURN_MOVE_CARD:
        if state.phase == Phase.MANA_BURN_PHASE_SQUARE and action.card in state.graveyard:
            return f"take {name(action.card)} from the Graveyard"
        return f"choose {name(action.card)}"
    if move == Move.MANA_BURN_MOVE_SEAT:
        asked = (
            f" for {NAMES[action.kind]}" if state.phase == Phase.MANA_BURN_PHASE_SQUARE and _is_fishing(state) else ""
        )
        return f"choose seat {action.seat}{asked}"
    if move == Move.MANA_BURN_MOVE_CREATURE:
        swap = f" for {card_label(state, action.other)}" if action.other or _is_vesuvan(state) else ""
        return f"choose {card_label(state, action.target)}{swap}"
    if move == Move.MANA_BURN_MOVE_FALSE_BID:
        return "false bid (Drudge Skeletons)"
    return f"fish back for {NAMES[action.kind]}"


def card_notes(state: ManaBurnState, seat: int, legal: list[ManaBurnAction] | None = None) -> dict[int, str]:
    """Why each card of `seat`'s hand that no legal action uses cannot be played now (from the seat's own hand and
    the public table only)."""
    hand = state.players[seat].hand
    if state.header.outcome.finished or not hand:
        return {}
    pending = seat in state.header.pending.seats
    if legal is None:
        legal = rules.legal_actions(state, seat) if pending else []
    used = {kind(a.card) for a in legal if a.move in USES}
    notes: dict[int, str] = {}
    main = not state.windows and state.phase == Phase.MANA_BURN_PHASE_MAIN and state.active == seat and pending
    for card in hand:
        k = kind(card)
        if k in used:
            continue
        if k in INSTANTS:
            notes[card] = _instant_note(state, seat, k)
        elif main and state.main_played:
            notes[card] = "you already played a Creature, Sorcery or Enchantment this turn"
        elif main and k == Kind.HOLY_ARMOR:
            notes[card] = "no creature in play to protect"
        elif main and k == Kind.RAISE_DEAD:
            notes[card] = "the Graveyard is empty"
        else:
            notes[card] = "only on your turn, after you move"
    return notes


USES: Final = frozenset({Move.MANA_BURN_MOVE_PLAY, Move.MANA_BURN_MOVE_CARD})


def _instant_note(state: ManaBurnState, seat: int, k: int) -> str:
    if k == Kind.GIANT_GROWTH:
        return "only in answer to a die roll"
    if k == Kind.COUNTERSPELL:
        return "only right after another player plays a card"
    if not incinerate_targets(state):
        return "no creature or Holy Armor in play"
    return "only in answer to a die roll or a card, or on your turn after you move"


def _actor(state: ManaBurnState) -> int | None:
    """The seat whose decision it is, when only one seat decides."""
    seats = state.header.pending.seats
    return seats[0] if len(seats) == 1 else None


def _is_fishing(state: ManaBurnState) -> bool:
    return board.SQUARES[state.square].effect == board.Effect.FISHING


def _is_vesuvan(state: ManaBurnState) -> bool:
    return board.SQUARES[state.square].effect == board.Effect.VESUVAN_SHIFT
