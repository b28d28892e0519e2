"""ManaSurge's bot hooks: a determinized world for ISMCTS, and the hand-written `heuristic` strategy."""

from __future__ import annotations

from manaforge.v1.common_pb2 import Rng
from manaforge.v1.games.manasurge_pb2 import ManasurgeAction, ManasurgeState

from engine_core import rng as rngs
from engine_core.games.manasurge.actions import Move, Step, is_resonant, next_seat, numbers_of
from engine_core.games.manasurge.cards import (
    DECK_SIZE,
    Magic,
    Spell,
    is_magic,
    magic_of,
    number_of,
    spell_of,
)


def sample_world(world: ManasurgeState, seat: int, rng: Rng) -> ManasurgeState:
    """Deal every card the seat cannot see (other hands, every penalty pile, the draw pile) again at random, in
    `world`, a copy of the seat's view."""
    seen = {*world.players[seat].hand, *world.discard, *(p.id for p in world.table)}
    unseen = [c for c in range(DECK_SIZE) if c not in seen]
    rngs.shuffle(rng, unseen)
    for other, player in enumerate(world.players):
        if other != seat:
            del player.hand[:]
            player.hand.extend(unseen[: player.hand_size])
            del unseen[: player.hand_size]
        del player.penalty[:]
        player.penalty.extend(unseen[: player.penalty_size])
        del unseen[: player.penalty_size]
    del world.deck[:]
    world.deck.extend(unseen)
    if len(world.deck) != world.deck_size:
        raise ValueError(
            f"the view does not add up: {len(world.deck)} unseen cards for a draw pile of {world.deck_size}"
        )
    world.header.rng.CopyFrom(rngs.new_rng(rngs.next_u64(rng)))
    return world


def heuristic_action(view: ManasurgeState, seat: int, legal: list[ManasurgeAction], rng: Rng) -> ManasurgeAction:
    """Greedy: the legal action with the best score, ties broken at random."""
    scored = [(score(view, seat, action), i) for i, action in enumerate(legal)]
    best = max(s for s, _ in scored)
    choices = [legal[i] for s, i in scored if s == best]
    return choices[rngs.randbelow(rng, len(choices))]


def is_hidden(view: ManasurgeState) -> bool:
    """A Freeze gift: only the giver and the receiver see which card it is."""
    return view.step == Step.MANASURGE_STEP_FREEZE


def ratings(view: ManasurgeState, seat: int, legal: list[ManasurgeAction]) -> list[float]:
    """Twice the scores: half a point is a clear preference here (a card of the Caster's spell is worth keeping by
    a point; a Magic card is kept over the rest)."""
    return [2.0 * score(view, seat, action) for action in legal]


def score(view: ManasurgeState, seat: int, action: ManasurgeAction) -> float:
    move, step = action.move, view.step
    hand = view.players[seat].hand
    if move == Move.MANASURGE_MOVE_OPEN:
        return opening_score(view, seat, action)
    if move == Move.MANASURGE_MOVE_PLAY:
        return play_score(view, seat, action.card) + (1.0 if step == Step.MANASURGE_STEP_THUNDER else 0.0)
    if move in (Move.MANASURGE_MOVE_GIVE, Move.MANASURGE_MOVE_DISCARD):
        return 1.0 + junk_score(view, action.card)
    if move == Move.MANASURGE_MOVE_TARGET:
        other = view.players[action.target]
        if view.target_magic == Magic.SIPHON:
            return float(sum(p.stones for p in view.table if p.seat == action.target))
        return float(len(hand) - other.hand_size)
    if move == Move.MANASURGE_MOVE_DECLINE:
        return 0.0
    return -100.0  # concede: only when it is the one legal action


def opening_score(view: ManasurgeState, seat: int, action: ManasurgeAction) -> float:
    """Open in the spell you hold most of, low (high for Flying Dagger) so that your own cards can follow."""
    numbers = numbers_of(view)
    hand = view.players[seat].hand
    spell, number = spell_of(action.card), number_of(action.card, numbers)
    followers = sum(1 for c in hand if spell_of(c) == spell and c != action.card)
    height = number if spell == Spell.FLYING_DAGGER else -number
    return 3.0 * followers + 0.3 * height + (0.1 if action.clockwise else 0.0)


def play_score(view: ManasurgeState, seat: int, card: int) -> float:
    """Prefer resonant spell cards (a stone on your card), then cheap spell cards; keep Magic cards for need."""
    hand = view.players[seat].hand
    if len(hand) == 1:
        return 20.0  # ManaSurge
    if is_magic(card):
        return magic_score(view, seat, card)
    numbers = numbers_of(view)
    spell, number = spell_of(card), number_of(card, numbers)
    gain = 5.0 if is_resonant(view, spell, number) else 2.0
    return gain - 0.2 * abs(number - view.top_number)


def magic_score(view: ManasurgeState, seat: int, card: int) -> float:
    kind = magic_of(card)
    mine = sum(p.stones for p in view.table if p.seat == seat)
    if kind == Magic.RESONANCE:
        return 1.0 + mine
    if kind == Magic.SIPHON:
        return 1.5 if any(p.stones for p in view.table if p.seat != seat) else 0.5
    if kind == Magic.HEX:
        return 1.5 if view.players[next_seat(view, seat)].hand_size <= 2 else 1.0
    return 1.0


def junk_score(view: ManasurgeState, card: int) -> float:
    """How little a card is worth keeping: off-spell and far-off numbers first, Magic cards last."""
    if is_magic(card):
        return 0.0
    numbers = numbers_of(view)
    same_spell = 0.0 if spell_of(card) == view.caster_spell else 1.0
    return same_spell + 0.1 * abs(number_of(card, numbers) - view.top_number)


def round_over(state: ManasurgeState) -> bool:
    """Whether a round has just ended: the next Caster is to open. The search's playouts stop there and score the
    stones (`Game.evaluate`): the round's penalty and stones decide most of a move's worth, and a playout of one
    round is short, so many more worlds fit a decision (at two seats a median of 74 against 10 played to the end)."""
    return state.step == Step.MANASURGE_STEP_OPEN
