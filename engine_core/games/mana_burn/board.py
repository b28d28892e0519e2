"""The MANA BURN board, a **reconstruction** (the rulebook's board is lost; see RULES.md, "The board").

Two hubs, the Library and the Graveyard, joined by three one-way paths, one per region the surviving
transcription names: The Real World (loaded with the Auction squares), The Internet and The Game. Each path runs
Library -> (its "out" squares) -> Graveyard -> (its "back" squares) -> Library. A pawn may change path at the
Library; at the Graveyard it keeps its path unless it stops there (or has Drudge Skeletons in play).

Square 0 is the Library, square 1 the Graveyard; the others are numbered path by path, out then back.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Final

from manaforge.v1.common_pb2 import BoardSquare


class Effect(IntEnum):
    """What a square does. Several squares share an effect (five MANA BURN squares, two -Lace squares, ...)."""

    LIBRARY = 0
    GRAVEYARD = 1
    GAME_STORE = 2
    MAJOR_PARTY = 3
    RE_ENTER = 4
    CONNECTION_LOST = 5
    SPOOKY_VIBES = 6
    CRAZY_ABU = 7
    TRADE = 8
    FISHING = 9
    DISCARD_ONE = 10
    AUCTION = 11
    TOURNAMENT = 12
    MANA_BURN = 13
    ROLL_AGAIN = 14
    DRAW_TWO = 15
    SHORT_CIRCUIT = 16
    BLIND_TRADE = 17
    GREEN_IS_STRONG = 18
    REFUND = 19
    GOBLIN_RIOT = 20
    MUD_WRESTLING = 21
    GREEDY_YOU = 22
    NOSE_RING = 23
    LACE = 24
    TANTRUM = 25
    SUITCASE = 26
    ANTE = 27
    VESUVAN_SHIFT = 28
    GRAVY_TRAIN = 29
    MANA_SCREWED = 30
    DISLOYALTY = 31


@dataclass(frozen=True)
class Square:
    name: str
    effect: Effect
    text: str
    amount: int = 0  # cards auctioned by an Auction square
    found: bool = True  # False: the name or text is designed (the transcription lost it)


LIBRARY: Final = 0
GRAVEYARD: Final = 1
PATH_NAMES: Final = ("The Real World", "The Internet", "The Game")
REAL_WORLD: Final = 0
INTERNET: Final = 1
THE_GAME: Final = 2


def _sq(name: str, effect: Effect, text: str, amount: int = 0, found: bool = True) -> Square:
    return Square(name, effect, text, amount, found)


_MANA_BURN: Final = _sq(
    "MANA BURN", Effect.MANA_BURN, "Put a card from your hand face down on the Mana Burn pile", found=False
)
_TRADE: Final = _sq("TRADE one card", Effect.TRADE, "Trade one card with any player")
_AUCTION2: Final = _sq("AUCTION two cards", Effect.AUCTION, "Auction 2 cards", amount=2)
_ROLL_AGAIN: Final = "Roll again"

HUBS: Final = (
    _sq("Library", Effect.LIBRARY, "Draw 2 cards when you walk in; change paths here"),
    _sq("Graveyard", Effect.GRAVEYARD, "Stop here: you may take the top card and leave by any path"),
)

# (out squares, back squares) per path, in the direction of the arrows.
PATHS: Final[tuple[tuple[tuple[Square, ...], tuple[Square, ...]], ...]] = (
    (  # The Real World: shops, conventions and auctions
        (
            _sq("Game Store", Effect.GAME_STORE, "You may swap 1 card for the top 2 cards of the Graveyard"),
            _AUCTION2,
            _sq("Major Party", Effect.MAJOR_PARTY, "Roll: 1-8 draw 2 cards; 9-12 discard 2"),
            _sq("Origins Auction", Effect.AUCTION, "Auction 4 cards", amount=4),
            _sq("Meet Mr. Suitcase", Effect.SUITCASE, "Roll: 1-6 draw a card; 7-12 discard 2"),
            _sq("Gravy Train", Effect.GRAVY_TRAIN, "Draw 2 random cards from the player on your right"),
            _MANA_BURN,
        ),
        (
            _sq("Origins Tournament", Effect.TOURNAMENT, "Roll: 8-12 draw 3 cards"),
            _AUCTION2,
            _sq("Crazy Abu!", Effect.CRAZY_ABU, "You may skip your next turn to take the top 3 Graveyard cards now"),
            _sq("Shoe-Lace", Effect.LACE, "Turn order reverses; Left and Right swap", found=False),
            _sq("Bus Token", Effect.ROLL_AGAIN, _ROLL_AGAIN),
            _MANA_BURN,
            _sq("Play for ANTE", Effect.ANTE, "Play for Ante with any player"),
        ),
    ),
    (  # The Internet
        (
            _sq("Blind Trade", Effect.BLIND_TRADE, "You may swap 1 card for the top 2 cards of the Library"),
            _TRADE,
            _sq("Short Circuit", Effect.SHORT_CIRCUIT, "Each player puts in 1 card; they are shuffled and dealt back"),
            _sq("Mana Screwed!", Effect.MANA_SCREWED, "Everyone but you draws one card"),
            _MANA_BURN,
            _sq("Ow! My Eye!", Effect.DISCARD_ONE, "Discard one card"),
        ),
        (
            _sq("Re-Enter the Internet", Effect.RE_ENTER, "Draw one card"),
            _sq("Go FISHING", Effect.FISHING, "Go fishing"),
            _sq("Infinite Loophole", Effect.ROLL_AGAIN, _ROLL_AGAIN),
            _sq(
                "Connection Lost",
                Effect.CONNECTION_LOST,
                "Discard one card, or jump to Re-Enter the Internet",
                found=False,
            ),
            _sq("Friends in High Places", Effect.DRAW_TWO, "Draw 2 cards"),
            _MANA_BURN,
        ),
    ),
    (  # The Game: Magic itself
        (
            _sq("Spooky Vibes", Effect.SPOOKY_VIBES, "You may steal a Drudge Skeleton from any player"),
            _sq("Green is Strong!", Effect.GREEN_IS_STRONG, "Take up to 2 Blue cards from the Graveyard"),
            _sq("Goblin Riot", Effect.GOBLIN_RIOT, "All creatures in play are shared out again at random"),
            _sq("Vesuvan Shift", Effect.VESUVAN_SHIFT, "You may swap a creature you control with another in play"),
            _sq("Neck-Lace", Effect.LACE, "Turn order reverses; Left and Right swap", found=False),
            _sq("Refund? Refund?", Effect.REFUND, "Return one creature to its owner's hand"),
            _sq("Tantrum of God", Effect.TANTRUM, "If the top Graveyard card is a creature, all such creatures die"),
        ),
        (
            _sq("Nose Ring of Ma'Ruf", Effect.NOSE_RING, "Take 1 card from the Mana Burn pile"),
            _sq("M.U.D. Wrestling", Effect.MUD_WRESTLING, "Every player discards a card or sacrifices a creature"),
            _TRADE,
            _sq("Greedy You", Effect.GREEDY_YOU, "Take the top 2 Graveyard cards"),
            _sq("Mysterious Burning Smell", Effect.DISCARD_ONE, "Discard one card"),
            _sq("Disloyalty", Effect.DISLOYALTY, "Give a creature you control to the player on your left", found=False),
            _MANA_BURN,
        ),
    ),
)


def _number() -> tuple[tuple[Square, ...], tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
    squares: list[Square] = list(HUBS)
    outs: list[tuple[int, ...]] = []
    backs: list[tuple[int, ...]] = []
    for out, back in PATHS:
        outs.append(tuple(range(len(squares), len(squares) + len(out))))
        squares.extend(out)
        backs.append(tuple(range(len(squares), len(squares) + len(back))))
        squares.extend(back)
    return tuple(squares), tuple(outs), tuple(backs)


_NUMBERED: Final = _number()
SQUARES: Final = _NUMBERED[0]
OUTS: Final = _NUMBERED[1]
BACKS: Final = _NUMBERED[2]
PATH_OF: Final = {sq: p for p in range(3) for sq in (*OUTS[p], *BACKS[p])}
RE_ENTER_SQUARE: Final = next(i for i, s in enumerate(SQUARES) if s.effect == Effect.RE_ENTER)


def next_square(square: int, path: int) -> int:
    """The square after `square` following the arrows, on `path` when `square` is a hub."""
    if square == LIBRARY:
        return OUTS[path][0]
    if square == GRAVEYARD:
        return BACKS[path][0]
    p = PATH_OF[square]
    for segment, end in ((OUTS[p], GRAVEYARD), (BACKS[p], LIBRARY)):
        if square in segment:
            i = segment.index(square)
            return segment[i + 1] if i + 1 < len(segment) else end
    raise ValueError(f"square {square} is not on the board")


# NEXT_SQUARE[path][square] == next_square(square, path), for the walk's inner loop.
NEXT_SQUARE: Final = tuple(
    tuple(next_square(square, path) for square in range(len(SQUARES))) for path in range(len(PATHS))
)


def _board_squares() -> tuple[BoardSquare, ...]:
    tracks = {
        square: f"{PATH_NAMES[path]}, {leg}"
        for path in range(len(PATHS))
        for leg, segment in (("out", OUTS[path]), ("back", BACKS[path]))
        for square in segment
    }
    return tuple(
        BoardSquare(
            id=square,
            name=SQUARES[square].name,
            effect=SQUARES[square].text,
            track=tracks.get(square, ""),
            next=list(dict.fromkeys(NEXT_SQUARE[path][square] for path in range(len(PATHS)))),  # in path order
        )
        for square in range(len(SQUARES))
    )


# The board as GetCatalogue gives it to the clients (Game.board): made once, never changed.
BOARD_SQUARES: Final = _board_squares()


def is_hub(square: int) -> bool:
    return square in (LIBRARY, GRAVEYARD)


def square_name(square: int) -> str:
    return SQUARES[square].name
