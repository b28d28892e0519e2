"""ManaSurge's moves and steps, small queries over a state (whose turn, what beats what, stones at stake) and the
legal actions of a seat: which plays follow the top card, checked against the one choice an action could match.
Section names in comments are the rulebook's (seeds/001, translated in 001_manasurge_en.md)."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Final

from manaforge.v1.games.manasurge_pb2 import (
    ManasurgeAction,
    ManasurgeMove,
    ManasurgePlayed,
    ManasurgeState,
    ManasurgeStep,
)

from engine_core.game import seat_count
from engine_core.games.manasurge.cards import (
    DECK_SIZE,
    NUMBERS,
    PENALTY_BONUS,
    PER_SPELL,
    SPELL_CARDS,
    WARD_REDUCTION,
    Magic,
    Role,
    Spell,
    card_name,
    is_magic,
    number_of,
    spell_of,
)

Step = ManasurgeStep
Move = ManasurgeMove
Played = ManasurgePlayed

HAND_SIZE: Final = 5  # "chia đều mỗi người 5 lá" (Setup); "Bắt đầu lượt mới với 5 lá trên tay" (End of round, 8)
REVERSAL_LIMIT: Final = 2  # "Không được đổi chiều vòng chơi quá 2 lần"
PENALTY_LIMIT: Final = 5  # "Điều gì xảy ra nếu bạn nhận hơn 5 lá phạt?"
SURGE_STONES: Final = 2  # "ManaSurge!": "Nhận 2 đá tím"
WIN_STONES: Final = 12  # "Người đầu tiên lấy về 12 Đá tím"
WIN_STONES_FIVE: Final = 10  # "Đối với 5 người chơi chỉ cần lấy về 10 Đá Tím"
MAX_ROUNDS: Final = 60  # engine bound (RULES.md): stones can flow back, so the game ends after this many rounds
NO_FOLLOW_UP: Final = Step.MANASURGE_STEP_UNSPECIFIED
REDRAW_LIMIT: Final = 10  # engine bound on the Caster's redraws in one round (RULES.md)

# Plain ints for the enum values used at every step (an enum wrapper's attribute lookup is slow), Final so that
# compiled code (`make engines`) reads them without a lookup in the module's dictionary.
OPEN: Final = Move.MANASURGE_MOVE_OPEN
PLAY: Final = Move.MANASURGE_MOVE_PLAY
GIVE: Final = Move.MANASURGE_MOVE_GIVE
DISCARD: Final = Move.MANASURGE_MOVE_DISCARD
CARD_MOVES: Final = (OPEN, PLAY, GIVE, DISCARD)
TARGET: Final = Move.MANASURGE_MOVE_TARGET
DECLINE: Final = Move.MANASURGE_MOVE_DECLINE
CONCEDE: Final = Move.MANASURGE_MOVE_CONCEDE
OPEN_STEP: Final = Step.MANASURGE_STEP_OPEN
PLAY_STEP: Final = Step.MANASURGE_STEP_PLAY
THUNDER_STEP: Final = Step.MANASURGE_STEP_THUNDER
WILD_STEP: Final = Step.MANASURGE_STEP_WILD
FREEZE_STEP: Final = Step.MANASURGE_STEP_FREEZE
PURGE_STEP: Final = Step.MANASURGE_STEP_PURGE
TARGET_STEP: Final = Step.MANASURGE_STEP_TARGET
FLYING_DAGGER: Final = int(Spell.FLYING_DAGGER)
FREEZE: Final = int(Spell.FREEZE)
THUNDER: Final = int(Spell.THUNDER)
MAX_SEATS: Final = 5
MOVES_BY_STEP: Final[dict[int, tuple[int, ...]]] = {
    Step.MANASURGE_STEP_UNSPECIFIED: (),
    Step.MANASURGE_STEP_OPEN: (Move.MANASURGE_MOVE_OPEN,),
    Step.MANASURGE_STEP_PLAY: (Move.MANASURGE_MOVE_PLAY, Move.MANASURGE_MOVE_CONCEDE),
    Step.MANASURGE_STEP_THUNDER: (Move.MANASURGE_MOVE_PLAY, Move.MANASURGE_MOVE_DECLINE),
    Step.MANASURGE_STEP_WILD: (Move.MANASURGE_MOVE_PLAY, Move.MANASURGE_MOVE_DECLINE),
    Step.MANASURGE_STEP_FREEZE: (Move.MANASURGE_MOVE_GIVE, Move.MANASURGE_MOVE_DECLINE),
    Step.MANASURGE_STEP_PURGE: (Move.MANASURGE_MOVE_DISCARD, Move.MANASURGE_MOVE_DECLINE),
    Step.MANASURGE_STEP_TARGET: (Move.MANASURGE_MOVE_TARGET,),
}
PROMPTS: Final[dict[int, str]] = {
    Step.MANASURGE_STEP_OPEN: "open the round with a spell card and choose the direction",
    Step.MANASURGE_STEP_PLAY: "play a valid card, or take the penalty",
    Step.MANASURGE_STEP_THUNDER: "Thunder: you may play one more valid card",
    Step.MANASURGE_STEP_FREEZE: "Freeze: you may give the next player any one card",
    Step.MANASURGE_STEP_WILD: "Wild Surge: you may play any spell card",
    Step.MANASURGE_STEP_PURGE: "Purge: you may discard one card",
    Step.MANASURGE_STEP_TARGET: "choose another player",
}
PLAY_PROMPT: Final = PROMPTS[PLAY_STEP]


# ----- small queries ---------------------------------------------------------------------------------------------


def numbers_of(state: ManasurgeState) -> str:
    return state.header.config.options.get("numbers", "1-8")


def winning_stones(state: ManasurgeState) -> int:
    return WIN_STONES_FIVE if seat_count(state) == 5 else WIN_STONES


def current_seat(state: ManasurgeState) -> int:
    return state.header.pending.seats[0]


def next_seat(state: ManasurgeState, seat: int, steps: int = 1) -> int:
    """The seat `steps` places after `seat` in the direction of play."""
    step = 1 if state.clockwise else -1
    return (seat + step * steps) % seat_count(state)


def has_role(state: ManasurgeState, seat: int, role: Role) -> bool:
    return state.players[seat].role == role


def is_descending(state: ManasurgeState) -> bool:
    """Flying Dagger: "Số trên lá phép giảm dần" (the numbers go down) while it is the round's spell rule."""
    return state.caster_spell == FLYING_DAGGER


def beats(state: ManasurgeState, number: int, than: int) -> bool:
    """Greater (lower in a Flying Dagger round)."""
    return number < than if is_descending(state) else number > than


def is_valid_play(state: ManasurgeState, card: int) -> bool:
    """Valid cards: "Đánh Lá Phép bằng số hoặc lá Phép cùng phép lớn hơn thẻ đang hiện có trên bàn chơi", or any
    Magic card ("Bất kì thẻ Ma Thuật")."""
    if is_magic(card):
        return True
    number = number_of(card, numbers_of(state))
    return number == state.top_number or (spell_of(card) == state.top_spell and beats(state, number, state.top_number))


def is_resonant(state: ManasurgeState, spell: int, number: int) -> bool:
    """Case 2: the round's spell, greater than the card bearing the Caster Token: a stone and the ability."""
    rule = state.caster_spell
    if spell != rule:
        return False
    return number < state.caster_number if rule == FLYING_DAGGER else number > state.caster_number  # beats()


def table_stones(state: ManasurgeState) -> int:
    return sum(p.stones for p in state.table)


def penalty_count(state: ManasurgeState, seat: int, stones: int | None = None) -> int:
    """End of round, step 3: the stones on the table (`stones`, when already counted), plus the spell rule's bonus,
    less a Ward."""
    count = table_stones(state) if stones is None else stones
    if state.players[seat].role != Role.EMBER_SAGE:
        count += spell_bonus(state.caster_spell)
    if seat in state.warded:
        count -= WARD_REDUCTION
    return max(0, count)


_BONUS: Final = {int(spell): PENALTY_BONUS.get(spell, 0) for spell in Spell}


def spell_bonus(spell: int) -> int:
    """`PENALTY_BONUS.get(Spell(spell), 0)` without the enum call (a ValueError for no spell, as Spell() gives)."""
    bonus = _BONUS.get(spell)
    return PENALTY_BONUS.get(Spell(spell), 0) if bonus is None else bonus


# ----- legal actions -----------------------------------------------------------------------------------------------


# Legal actions are shared messages, built once: never mutate one.
_OPENS: Final = {
    (c, way): ManasurgeAction(move=OPEN, card=c, clockwise=way) for c in range(DECK_SIZE) for way in (True, False)
}
_OPEN_PAIRS: Final = [(_OPENS[c, True], _OPENS[c, False]) for c in range(DECK_SIZE)]  # a card's opens, in listing order
_CARD_ACTIONS: Final = {
    move: [ManasurgeAction(move=move, card=c) for c in range(DECK_SIZE)] for move in (PLAY, GIVE, DISCARD)
}
_PLAYS: Final = _CARD_ACTIONS[PLAY]
_TARGETS: Final = [ManasurgeAction(move=TARGET, target=t) for t in range(MAX_SEATS)]
_DECLINE: Final = ManasurgeAction(move=DECLINE)
_CONCEDE: Final = ManasurgeAction(move=CONCEDE)


@lru_cache(maxsize=1024)
def _follows(numbers: str, top_spell: int, top_number: int, descending: bool) -> tuple[bool, ...]:
    """Whether each spell card (by id) follows the top card (is_valid_play): a table per top card and round rule,
    a few hundred in all, so that a hand is checked with one lookup per card."""
    values = NUMBERS[numbers]
    return tuple(
        values[card % PER_SPELL] == top_number
        or (
            card // PER_SPELL + 1 == top_spell
            and (values[card % PER_SPELL] < top_number if descending else values[card % PER_SPELL] > top_number)
        )
        for card in range(SPELL_CARDS)
    )


def follows_top(state: ManasurgeState) -> tuple[bool, ...]:
    """`_follows` for the state's top card and round rule."""
    return _follows(numbers_of(state), state.top_spell, state.top_number, state.caster_spell == FLYING_DAGGER)


def valid_plays(state: ManasurgeState, hand: Iterable[int]) -> list[int]:
    """The cards of `hand` that are valid plays (is_valid_play), in hand order: any Magic card, or a spell card
    that follows the top card."""
    follows = follows_top(state)
    return [card for card in hand if card >= SPELL_CARDS or follows[card]]


def first_copies(hand: list[int], numbers: str) -> list[int]:
    """`hand` less the cards that are the same as a lower id of it (the same spell and number under `numbers`):
    copies are the same to the rules, so a choice lists one and takes that one."""
    names = _SAME[numbers]
    if len(set(names[c] for c in hand)) == len(hand):
        return hand
    return [c for c in hand if all(other >= c or names[other] != names[c] for other in hand)]


_SAME: Final = {numbers: tuple(card_name(c, numbers) for c in range(DECK_SIZE)) for numbers in NUMBERS}


def legal_actions(state: ManasurgeState, seat: int) -> list[ManasurgeAction]:
    hand = first_copies(state.players[seat].hand[:], numbers_of(state))
    step = state.step
    if step == PLAY_STEP:
        follows = follows_top(state)
        return [_PLAYS[c] for c in hand if c >= SPELL_CARDS or follows[c]] or [_CONCEDE]
    if step == OPEN_STEP:
        return [action for c in hand if c < SPELL_CARDS for action in _OPEN_PAIRS[c]]
    if step == THUNDER_STEP:
        follows = follows_top(state)
        return [*(_PLAYS[c] for c in hand if c >= SPELL_CARDS or follows[c]), _DECLINE]
    if step == WILD_STEP:
        return [*(_PLAYS[c] for c in hand if not is_magic(c)), _DECLINE]
    if step == FREEZE_STEP:
        return [*(_CARD_ACTIONS[GIVE][c] for c in hand), _DECLINE]
    if step == PURGE_STEP:
        return [*(_CARD_ACTIONS[DISCARD][c] for c in hand), _DECLINE]
    if step == TARGET_STEP:
        return [_TARGETS[t] for t in targets(state, seat)]
    return []


def is_legal(state: ManasurgeState, seat: int, action: ManasurgeAction) -> bool:
    """`action in legal_actions(state, seat)`, without listing them: the one legal action it could be, compared."""
    expected = _legal_match(state, seat, action)
    return expected is not None and (action is expected or action == expected)  # usually the shared action itself


def _legal_match(state: ManasurgeState, seat: int, action: ManasurgeAction) -> ManasurgeAction | None:
    """The legal action with `action`'s move and card (or target), if there is one."""
    step, move, card = state.step, action.move, action.card
    if move == DECLINE:
        return _DECLINE if step in (THUNDER_STEP, WILD_STEP, FREEZE_STEP, PURGE_STEP) else None
    if move == CONCEDE:
        return _CONCEDE if step == PLAY_STEP and not valid_plays(state, state.players[seat].hand[:]) else None
    if move == TARGET:
        return _TARGETS[action.target] if step == TARGET_STEP and action.target in targets(state, seat) else None
    if move not in CARD_MOVES or card not in first_copies(state.players[seat].hand[:], numbers_of(state)):
        return None
    if step == OPEN_STEP:
        return _OPENS[card, action.clockwise] if move == OPEN and not is_magic(card) else None
    if move == PLAY and step in (PLAY_STEP, THUNDER_STEP):
        return _PLAYS[card] if card >= SPELL_CARDS or follows_top(state)[card] else None
    if move == PLAY and step == WILD_STEP:
        return None if is_magic(card) else _PLAYS[card]
    if (move, step) in ((GIVE, FREEZE_STEP), (DISCARD, PURGE_STEP)):
        return _CARD_ACTIONS[move][card]
    return None


def targets(state: ManasurgeState, seat: int) -> list[int]:
    """The players a Siphon (one with a stone on a card on the table) or a Mind Swap (anyone else) may choose."""
    others = [s for s in range(seat_count(state)) if s != seat]
    if state.target_magic == Magic.SIPHON:
        return [s for s in others if any(p.stones for p in state.table if p.seat == s)]
    return others
