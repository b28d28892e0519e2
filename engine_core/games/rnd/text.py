"""Look at Us, We're R&D as its players look at it, in text: a cooperative party game first (the table designs the
cards together and shares the credits), the card being made large enough to read with who does what, the designs
side by side for the vote, and after the reveal who voted what. Seats are named only as "seat N", and never inside a
card's frame (a client's names would shift its border)."""

from __future__ import annotations

from typing import Final

from manaforge.v1.games.rnd_pb2 import RndAction, RndState

from engine_core.cards import format_card
from engine_core.game import seats_text, wrap
from engine_core.games.rnd.design import (
    AWARD_NAMES,
    AWARDS,
    CATEGORY_NAMES,
    card_text,
    design_title,
    open_categories,
)
from engine_core.games.rnd.frame import card_frame, side_by_side
from engine_core.games.rnd.rules import ART, DESIGN, RESULTS, VOTING

WIDTH: Final = 100
PER_ROW: Final = 2  # cards side by side (two frames fit in 76 columns)


def render(view: RndState, seat: int | None, designers: list[int]) -> str:
    count = len(view.designs)
    lines = [f"Look at Us, We're R&D · cooperative: the table designs {count} cards together and shares the credits"]
    if view.phase == RESULTS:
        lines += _results(view)
    elif view.phase == VOTING:
        lines += _voting(view, seat)
    else:
        lines += _making(view, designers)
    return "\n".join(lines)


def _making(view: RndState, designers: list[int]) -> list[str]:
    design = view.designs[view.round]
    if view.phase == DESIGN:
        doing = f"seat {view.designer} copies a part from the booster"
    elif view.phase == ART:
        doing = f"seat {design.artist} draws the art"
    else:
        doing = f"seat {design.writer} writes its name and flavor text"
    lines = [
        f"Card {view.round + 1} of {len(view.designs)}: {doing}",
        f"  designers {seats_text(designers)} · art by seat {design.artist} · words by seat {design.writer}",
        f"  booster: {view.pack_size} cards face down, {len(view.discard)} drawn and put aside",
    ]
    if view.phase == DESIGN:
        wanted = ", ".join(CATEGORY_NAMES[c] for c in open_categories(design))
        lines.append(f"  still to copy: {wanted or 'nothing'}")
        if view.drawn:
            card = next(face for face in view.faces if face.id == view.drawn[0])
            text = card_text(card)
            drew = f"seat {view.designer} drew {format_card(card)}{'; text: ' + text if text else ''}"
            lines += wrap(drew, WIDTH, "  ", "    ")
    done = [f"{i + 1}. {design_title(d, i)}" for i, d in enumerate(view.designs[: view.round])]
    if done:
        lines.append(f"  made so far: {', '.join(done)}")
    return [*lines, *card_frame(design)]


def _voting(view: RndState, seat: int | None) -> list[str]:
    cast = " · ".join(f"seat {s} {b.votes_cast} of {len(AWARDS)}" for s, b in enumerate(view.ballots))
    lines = [
        "The vote, in secret: one vote each for most powerful, least functional and most flavorful",
        f"  votes cast: {cast}",
    ]
    if seat is not None and 0 <= seat < len(view.ballots) and view.ballots[seat].votes:
        lines.append(f"  seat {seat}'s votes so far: {_ballot(view, seat)}")
    return lines + _cards(view)


def _results(view: RndState) -> list[str]:
    credits = list(view.header.outcome.scores)
    shared = sum(credits)
    each = ", ".join(f"seat {s} {credit:g}" for s, credit in enumerate(credits))
    said = f"Shared credits: {shared:g} ({each}); an award credits the card's artist and its writer"
    lines = wrap(said, WIDTH, "", "  ")
    for result in view.results:
        won = [f"{design_title(view.designs[d], d)} ({d + 1})" for d in result.designs]
        winners = won[0] if len(won) == 1 else "tied, " + ", ".join(won[:-1]) + " and " + won[-1]
        votes = f"{result.votes} vote{'s' * (result.votes != 1)}"
        lines += wrap(f"{AWARD_NAMES[result.award]}: {winners}, {votes}", WIDTH, "  ", "    ")
    lines.append("Who voted what:")
    lines += [f"  seat {s}: {_ballot(view, s)}" for s in range(len(view.ballots))]
    return lines + _cards(view)


def _ballot(view: RndState, seat: int) -> str:
    votes = sorted(view.ballots[seat].votes, key=lambda vote: vote.award)
    return "; ".join(f"{AWARD_NAMES[v.award]}: card {v.design + 1}" for v in votes) or "none"


def _cards(view: RndState) -> list[str]:
    """The designs, two a row, numbered; who made each under its row."""
    lines: list[str] = []
    designs = list(view.designs)
    for start in range(0, len(designs), PER_ROW):
        row = designs[start : start + PER_ROW]
        lines.append("")
        lines += side_by_side([card_frame(d, f"{start + i + 1}. ", compact=True) for i, d in enumerate(row)])
        lines.append(
            " · ".join(
                f"card {start + i + 1}: art by seat {d.artist}, words by seat {d.writer}" for i, d in enumerate(row)
            )
        )
    return lines


def describe(state: RndState, action: RndAction) -> str:
    choice = action.WhichOneof("choice")
    if choice == "copy":
        source = state.faces[state.drawn[0]].name if state.drawn else "the drawn card"
        return f"copy the {CATEGORY_NAMES.get(action.copy, 'category')} from {source}"
    if choice == "draw_another":
        return "draw another card"
    if choice == "art":
        return f"draw the art ({len(action.art.splitlines())} lines)"
    if choice == "writing":
        return f"name the card {action.writing.name!r}"
    if choice == "vote":
        award = AWARD_NAMES.get(action.vote.award, "an award")
        number = action.vote.design
        if not 0 <= number < len(state.designs):
            return f"vote in secret for card {number + 1} as {award}"
        design = state.designs[number]
        made = f"art by seat {design.artist}, words by seat {design.writer}"
        return f"vote in secret for card {number + 1}, {design.name or 'untitled'!r} ({made}), as {award}"
    return "no action"
