"""The heuristic MANA BURN bot, from the rulebook's strategy tips and one rule of thumb: a card is worth keeping
until you hold a spare copy of it (played cards "have lost their collector value")."""

from __future__ import annotations

import math
from collections import Counter
from typing import Final

from manaforge.v1.common_pb2 import Rng
from manaforge.v1.games.mana_burn_pb2 import ManaBurnAction, ManaBurnState

from engine_core import rng
from engine_core.games.mana_burn import board
from engine_core.games.mana_burn.actions import (
    ANTE_ROLL,
    CARD,
    CREATURE,
    FALSE_BID,
    HERO,
    NAME,
    PATH,
    PLAY,
    SEAT,
    YES,
    Phase,
)
from engine_core.games.mana_burn.cards import (
    CREATURES,
    Kind,
    kind,
)
from engine_core.games.mana_burn.zones import count_in_play, find_creature

HIDING_SQUARES: Final = frozenset({board.Effect.MANA_BURN, board.Effect.BLIND_TRADE})
"""Squares that put a card of the seat's choice face down (the others' choices of a card are seen)."""


def heuristic(view: ManaBurnState, seat: int, legal: list[ManaBurnAction], rand: Rng) -> ManaBurnAction:
    """The best-scoring legal action; ties are broken at random."""
    scored = [(_score(view, seat, a), i) for i, a in enumerate(legal)]
    best = max(s for s, _ in scored)
    top = [i for s, i in scored if s == best]
    return legal[top[rng.randbelow(rand, len(top))]]


def is_hidden(view: ManaBurnState) -> bool:
    """A face-down card: laid for a Trade, an Ante or a Short Circuit (a simultaneous decision), put on the Mana
    Burn pile, or put under the Library by a Blind Trade (not an answer in a response window, which all see)."""
    if view.windows:
        return False
    if view.phase == Phase.MANA_BURN_PHASE_OFFER:
        return True
    return view.phase == Phase.MANA_BURN_PHASE_SQUARE and board.SQUARES[view.square].effect in HIDING_SQUARES


def ratings(view: ManaBurnState, seat: int, legal: list[ManaBurnAction]) -> list[float]:
    """The scores themselves: a point is a clear preference (a spare with one copy more, a card kept). A second copy
    of a card is the same choice as the first (face down, no one can tell them apart): it is not rated (-inf), so
    that the mixed strategy counts each card once (engine_core.bots.hidden)."""
    seen: set[Kind] = set()
    rated = []
    for action in legal:
        card = kind(action.card) if action.move == CARD else None
        rated.append(-math.inf if card in seen else _score(view, seat, action))
        if card is not None:
            seen.add(card)
    return rated


def _score(view: ManaBurnState, seat: int, action: ManaBurnAction) -> float:
    counts = Counter(kind(c) for c in view.players[seat].hand)
    move = action.move
    if move == PLAY:
        return _play_score(view, seat, action, counts)
    if move == HERO:
        return _ante_boost(view, seat, action.roll)
    if move == PATH:
        skeletons = count_in_play(view.players[seat], Kind.DRUDGE_SKELETONS)
        return 2.0 if skeletons and action.path == board.REAL_WORLD else 0.5
    if move in (YES, FALSE_BID):
        return 2.0
    if move == CARD:
        return _card_score(view, action.card, counts)
    if move == SEAT:
        return _seat_score(view, seat, action, counts)
    if move == CREATURE:
        return (
            1.0
            if find_creature(view, action.target) not in (None,) and view.phase != Phase.MANA_BURN_PHASE_MUD
            else -1.0
        )
    if move == NAME:
        return 2.0 if counts[Kind(action.kind)] == 0 and action.kind != Kind.INCINERATE else -1.0
    return 0.0  # pass, end the turn, re-roll


def _play_score(view: ManaBurnState, seat: int, action: ManaBurnAction, counts: Counter[Kind]) -> float:
    k = kind(action.card)
    if counts[k] < 2:
        return -10.0  # the only copy: keep it for the collection
    if k in CREATURES:
        return 5.0
    if k == Kind.GIANT_GROWTH:
        return _ante_boost(view, seat, action.roll) if view.rolls[0].purpose == ANTE_ROLL else -1.0
    if k == Kind.RAISE_DEAD:
        return 6.0 if counts[kind(action.target)] == 0 else -3.0
    where = find_creature(view, action.target)
    if k == Kind.HOLY_ARMOR:
        return 2.0 if where is not None and where[0] == seat else -5.0
    if k == Kind.COUNTERSPELL:
        return 3.0 if view.stack and view.stack[-1].seat != seat else -5.0
    # Incinerate: a creature (or its armor) of another player
    owner = where[0] if where is not None else _armor_holder(view, action.target)
    return 3.0 if owner != seat else -5.0


def _armor_holder(view: ManaBurnState, card: int) -> int:
    for s, player in enumerate(view.players):
        if any(card in c.armor for c in player.creatures):
            return s
    return -1


def _ante_boost(view: ManaBurnState, seat: int, roll: int) -> float:
    mine = [r.value for r in view.rolls if r.seat == seat]
    theirs = [r.value for r in view.rolls if r.seat != seat]
    if view.rolls[roll].seat != seat or not mine or not theirs:
        return -5.0
    return 4.0 if mine[0] <= theirs[0] else -1.0


def _card_score(view: ManaBurnState, card: int, counts: Counter[Kind]) -> float:
    """Giving a card away (discard, bid, offer, burn) costs little when it is a spare; taking one gains a new name."""
    k = kind(card)
    if view.phase == Phase.MANA_BURN_PHASE_SQUARE and board.SQUARES[view.square].effect == board.Effect.GREEN_IS_STRONG:
        return 5.0 if counts[k] == 0 else 1.0
    if view.phase == Phase.MANA_BURN_PHASE_AUCTION:
        wanted = any(counts[kind(c)] == 0 for c in view.auction)
        return 3.0 if wanted and counts[k] > 1 else -1.0
    return 3.0 + counts[k] if counts[k] > 1 else -3.0


def _seat_score(view: ManaBurnState, seat: int, action: ManaBurnAction, counts: Counter[Kind]) -> float:
    size = view.players[action.seat].hand_size * 0.1
    if view.phase == Phase.MANA_BURN_PHASE_SQUARE and board.SQUARES[view.square].effect == board.Effect.FISHING:
        # "Don't fish for Incinerates!"
        if action.kind == Kind.INCINERATE or counts[Kind(action.kind)]:
            return -5.0
        return 2.0 + size
    return size


def _deal(pool: list[int], n: int) -> list[int]:
    dealt = pool[len(pool) - n :] if n else []
    del pool[len(pool) - n :]
    return dealt
