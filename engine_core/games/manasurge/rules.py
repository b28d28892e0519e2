"""ManaSurge's rules as functions over the state: setup, each action applied, abilities, Magic effects, the end of a
round (the moves, queries and legal actions: actions.py).

Section names in comments are the rulebook's (seeds/001, translated in 001_manasurge_en.md); RULES.md maps each rule
to the function here and the test that covers it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, MutableSequence
from typing import Final

from manaforge.v1.common_pb2 import Event
from manaforge.v1.games.manasurge_pb2 import (
    ManasurgeAction,
    ManasurgeMove,
    ManasurgePlayer,
    ManasurgeState,
    ManasurgeStep,
)

from engine_core import rng
from engine_core.errors import IllegalActionError, MalformedActionError
from engine_core.game import TURN, event, finish, options, seat_count, seats_text, set_pending
from engine_core.games.manasurge.actions import (
    CARD_MOVES,
    CONCEDE,
    FREEZE,
    FREEZE_STEP,
    HAND_SIZE,
    MAX_ROUNDS,
    MOVES_BY_STEP,
    NO_FOLLOW_UP,
    OPEN_STEP,
    PENALTY_LIMIT,
    PLAY_PROMPT,
    PLAY_STEP,
    PROMPTS,
    PURGE_STEP,
    REDRAW_LIMIT,
    REVERSAL_LIMIT,
    SURGE_STONES,
    TARGET_STEP,
    THUNDER,
    THUNDER_STEP,
    WILD_STEP,
    Move,
    Played,
    has_role,
    is_resonant,
    next_seat,
    numbers_of,
    penalty_count,
    targets,
    winning_stones,
)
from engine_core.games.manasurge.cards import (
    CRYSTAL_STONES,
    DECK_SIZE,
    HEX_PENALTY,
    MAGIC_NAMES,
    ROLE_NAMES,
    SPELL_CARDS,
    WARD_REDUCTION,
    Magic,
    Role,
    Spell,
    card_name,
    card_names,
    is_magic,
    magic_of,
    number_of,
    spell_name,
    spell_of,
)
from engine_core.games.manasurge.sharing import own_played, own_player
from engine_core.live import changed_indices, is_untouched, own_part

# ----- setup and the start of a round -------------------------------------------------------------------------------


def setup(state: ManasurgeState) -> None:
    """Setup: shuffle the 60 spell and 12 Magic cards, 5 cards each, the Caster Token to the first player."""
    state.deck.extend(range(DECK_SIZE))
    rng.shuffle(state.header.rng, state.deck)
    seats = seat_count(state)
    for _ in range(seats):
        state.players.add()
    if options(state).get("roles") == "on":
        roles = [int(r) for r in Role]
        rng.shuffle(state.header.rng, roles)
        for seat in range(seats):
            own_player(state, seat).role = roles[seat]
    state.caster = 0
    state.round = 0
    state.goal = winning_stones(state)
    start_round(state, [])


def start_round(state: ManasurgeState, events: list[Event]) -> None:
    """End of round, step 8 ("Bắt đầu lượt mới với 5 lá trên tay"), then the Caster's opening."""
    state.round += 1
    state.reversals = 0
    state.last_player = -1
    state.caster_spell = state.caster_number = state.top_spell = state.top_number = 0
    state.target_magic = 0
    del state.warded[:]
    seats = seat_count(state)
    for offset in range(seats):
        player = state.players[(state.caster + offset) % seats]
        missing = HAND_SIZE - len(player.hand)
        if missing > 0:
            draw_into(state, own_player(state, (state.caster + offset) % seats).hand, missing, events)
    redraw_for_caster(state, events)
    numbers = numbers_of(state)
    for seat, player in enumerate(state.players[:]):
        hand = player.hand[:]  # a slice: iterating the field itself is slower
        names = card_names(hand, numbers)
        events.append(event("HandDealt", f"round {state.round}: your hand is {names}", audience=seat, cards=hand))
    state.step = OPEN_STEP
    set_pending(state, [state.caster], TURN, PROMPTS[OPEN_STEP])


def redraw_for_caster(state: ManasurgeState, events: list[Event]) -> None:
    """ "Trường hợp khi bắt đầu không có, Người chơi đầu tiên sẽ được rút lại 5 lá mới" (a Caster with no spell
    card draws 5 new cards), repeated until a spell card comes, within REDRAW_LIMIT; then the token moves on."""
    for _ in range(REDRAW_LIMIT):
        if has_spell_card(state.players[state.caster].hand[:]):
            return
        hand = own_player(state, state.caster).hand
        if options(state).get("redraw", "replace") == "replace":
            names = ", ".join(card_name(c, numbers_of(state)) for c in hand)
            state.discard.extend(hand)
            del hand[:]
            events.append(event("HandRedrawn", f"seat {state.caster} had no spell card, discarded {names}"))
        else:
            events.append(event("HandRedrawn", f"seat {state.caster} had no spell card and draws 5 more"))
        draw_into(state, hand, HAND_SIZE, events)
    holders = [s for s in range(seat_count(state)) if any(not is_magic(c) for c in state.players[s].hand)]
    if holders:
        state.caster = min(holders, key=lambda s: (s - state.caster) % seat_count(state))
        events.append(event("CasterTokenPassed", f"no spell card came: the Caster Token passes to seat {state.caster}"))


def has_spell_card(hand: Iterable[int]) -> bool:
    return min(hand, default=SPELL_CARDS) < SPELL_CARDS  # spell cards have the lowest ids (no generator to run)


def draw_into(state: ManasurgeState, pile: MutableSequence[int], count: int, events: list[Event]) -> int:
    """Draw `count` cards (fewer if the draw and discard piles run out) into `pile`, one at a time from the top
    (the end) of the draw pile; returns how many came."""
    deck = state.deck
    drawn = 0
    while drawn < count:
        if not deck:
            if not state.discard:
                break
            rng.shuffle_into(own_part(state, "rng"), deck, state.discard)
            events.append(event("DiscardReshuffled", "the discard pile was shuffled into a new draw pile"))
        take = min(count - drawn, len(deck))  # as many as the pile holds, in one slice
        cards = deck[-take:]
        cards.reverse()  # the top card first, as drawing one by one would
        del deck[-take:]
        pile.extend(cards)
        drawn += take
    return drawn


def sync_sizes(state: ManasurgeState) -> None:
    state.deck_size = len(state.deck)
    players = state.players
    for seat in changed_indices(players):  # the others are shared, and synced when they changed
        player = players[seat]
        hand, penalty = len(player.hand), len(player.penalty)
        if player.hand_size != hand or player.penalty_size != penalty:
            player.hand_size, player.penalty_size = hand, penalty


# ----- applying an action -------------------------------------------------------------------------------------------


def apply(state: ManasurgeState, seat: int, action: ManasurgeAction) -> list[Event]:
    """Apply a legal action (checked by the caller), then any ManaSurge it caused."""
    move = action.move
    if move == CONCEDE:
        return end_round(state, seat)
    players = state.players
    before = players[:]  # untouched, the players as they were; otherwise (a message, a state stepped in place) ...
    had_cards = None if is_untouched(players) else [bool(p.hand) for p in before]  # ... their hands are read now
    events: list[Event] = []
    follow, skip = HANDLERS[move](state, seat, action, events)
    players = state.players
    for surger in changed_indices(players):  # only a player the step took can have played its last card
        if (before[surger].hand if had_cards is None else had_cards[surger]) and not players[surger].hand:
            mana_surge(state, surger, events)
    if follow:
        state.step = follow
        set_pending(state, [seat], TURN, PROMPTS[follow])
    else:
        pass_turn(state, seat, skip)
    return events


def pass_turn(state: ManasurgeState, seat: int, skip: int = 0) -> None:
    state.step = PLAY_STEP
    set_pending(state, [next_seat(state, seat, 1 + skip)], TURN, PLAY_PROMPT)


Outcome = tuple[ManasurgeStep.ValueType, int]  # (the follow-up step or NO_FOLLOW_UP, seats to skip)
Handler = Callable[[ManasurgeState, int, ManasurgeAction, list[Event]], Outcome]


def take_from_hand(state: ManasurgeState, seat: int, card: int) -> None:
    own_player(state, seat).hand.remove(card)


def do_open(state: ManasurgeState, seat: int, action: ManasurgeAction, events: list[Event]) -> Outcome:
    """ "Caster sẽ bắt đầu vòng chơi bằng cách đặt 1 Lá Phép trước mặt – lấy 1 Đá tím và Caster token đặt lên"."""
    card = action.card
    take_from_hand(state, seat, card)
    spell, number = spell_of(card), number_of(card, numbers_of(state))
    stones = 2 if has_role(state, seat, Role.ARCHCASTER) else 1
    state.table.add(id=card, seat=seat, stones=stones, spell=spell, number=number)
    state.caster_spell, state.caster_number = spell, number
    state.top_spell, state.top_number = spell, number
    state.clockwise = action.clockwise
    state.last_player = seat
    way = "clockwise" if action.clockwise else "counter-clockwise"
    events.append(
        event(
            "RoundOpened",
            f"seat {seat} opened round {state.round} with {spell_name(spell, number)}, {way}",
            actor=seat,
            cards=[card],
        )
    )
    return NO_FOLLOW_UP, 0


def do_play(state: ManasurgeState, seat: int, action: ManasurgeAction, events: list[Event]) -> Outcome:
    card = action.card
    take_from_hand(state, seat, card)
    state.last_player = seat
    numbers = numbers_of(state)
    events.append(event("CardPlayed", f"seat {seat} played {card_name(card, numbers)}", actor=seat, cards=[card]))
    if is_magic(card):
        played = state.table.add(id=card, seat=seat, magic=magic_of(card))
        return resolve_magic(state, seat, played, events)
    played = state.table.add(id=card, seat=seat, spell=spell_of(card), number=number_of(card, numbers))
    return resolve_spell(state, seat, played, events)


def resolve_spell(state: ManasurgeState, seat: int, played: Played, events: list[Event]) -> Outcome:
    """Cases 1-3 for a spell card (or a Shadow Mirror acting as one)."""
    spell, number = played.spell, played.number
    if number == state.top_number:
        reverse(state, seat, events)  # case 3
    state.top_spell, state.top_number = spell, number
    if not is_resonant(state, spell, number):
        return NO_FOLLOW_UP, 0  # case 1 (or a same-spell card not above the Caster card): no stone, no ability
    played.stones += 1  # case 2
    events.append(event("StoneAdded", f"{spell_name(spell, number)} resonated: a stone on it"))
    if spell == THUNDER:
        return THUNDER_STEP, 0
    if spell == FREEZE:
        return FREEZE_STEP, 0
    return NO_FOLLOW_UP, 0


def reverse(state: ManasurgeState, seat: int, events: list[Event]) -> None:
    """ "Bạn sẽ làm đảo ngược chiều của trận đấu" / "Không được đổi chiều vòng chơi quá 2 lần"."""
    if state.reversals >= REVERSAL_LIMIT and not has_role(state, seat, Role.CHRONOMANCER):
        events.append(event("DirectionKept", "the direction was reversed twice this round already"))
        return
    state.reversals += 1
    state.clockwise = not state.clockwise
    way = "clockwise" if state.clockwise else "counter-clockwise"
    events.append(event("DirectionReversed", f"the direction of play reversed: now {way}"))


def resolve_magic(state: ManasurgeState, seat: int, played: Played, events: list[Event]) -> Outcome:
    """ "Thực hiện các hành động trên lá Ma Thuật ngay khi vừa đánh xuống" (at once, when played)."""
    kind = played.magic
    if kind == Magic.SHADOW_MIRROR:
        return shadow_mirror(state, seat, played, events)
    if kind == Magic.SPELL_SHIFT:
        state.caster_spell, state.caster_number = state.top_spell, state.top_number
        rule = spell_name(state.caster_spell, state.caster_number)
        events.append(event("CasterTokenMoved", f"the Caster Token moved to {rule}: the round's spell rule"))
    elif kind == Magic.BACKLASH:
        reverse(state, seat, events)
    elif kind == Magic.TIME_STOP:
        events.append(event("PlayerSkipped", f"seat {next_seat(state, seat)} is skipped"))
        return NO_FOLLOW_UP, 1
    elif kind == Magic.MANA_CRYSTAL:
        played.stones += CRYSTAL_STONES
        events.append(event("StoneAdded", "a stone was put on the Mana Crystal"))
    elif kind in (Magic.SIPHON, Magic.MIND_SWAP):
        state.target_magic = kind
        if targets(state, seat):
            return TARGET_STEP, 0
        events.append(event("MagicFizzled", f"{MAGIC_NAMES[Magic(kind)]} found no player to choose"))
    elif kind == Magic.HEX:
        hex_next(state, seat, events)
    elif kind == Magic.PURGE:
        return PURGE_STEP, 0
    elif kind == Magic.WARD:
        if seat not in state.warded:
            state.warded.append(seat)
        events.append(event("Warded", f"seat {seat} is warded: {WARD_REDUCTION} fewer penalty cards this round"))
    elif kind == Magic.RESONANCE:
        resonance(state, seat, events)
    elif kind == Magic.WILD_SURGE:
        return WILD_STEP, 0
    return NO_FOLLOW_UP, 0


def shadow_mirror(state: ManasurgeState, seat: int, played: Played, events: list[Event]) -> Outcome:
    """Shadow Mirror: "Sao chép lá bài vừa mới sử dụng" (copy the card just used). A Mirror copying a Mirror copies
    what that one copied."""
    copied = state.table[-2]
    if copied.spell:
        played.magic = 0
        played.spell, played.number = copied.spell, copied.number
        events.append(event("CardCopied", f"Shadow Mirror copied {spell_name(copied.spell, copied.number)}"))
        return resolve_spell(state, seat, played, events)
    played.magic = copied.magic
    events.append(event("CardCopied", f"Shadow Mirror copied {MAGIC_NAMES[Magic(copied.magic)]}"))
    return resolve_magic(state, seat, played, events)


def hex_next(state: ManasurgeState, seat: int, events: list[Event]) -> None:
    victim = next_seat(state, seat)
    came = draw_into(state, own_player(state, victim).penalty, HEX_PENALTY, events)
    events.append(event("PenaltyTaken", f"Hex: seat {victim} took {penalty_cards(came)} face down"))


def resonance(state: ManasurgeState, seat: int, events: list[Event]) -> None:
    mine = [i for i, p in enumerate(state.table[:]) if p.seat == seat and p.spell]
    for index in mine:
        own_played(state, index).stones += 1
    events.append(event("StoneAdded", f"Resonance: a stone on each of seat {seat}'s {len(mine)} spell cards"))


def do_give(state: ManasurgeState, seat: int, action: ManasurgeAction, events: list[Event]) -> Outcome:
    """Freeze: "bạn có thể tặng cho người kế bên 1 lá bất kì" (give the player next to you any 1 card)."""
    receiver = next_seat(state, seat)
    take_from_hand(state, seat, action.card)
    own_player(state, receiver).hand.append(action.card)
    name = card_name(action.card, numbers_of(state))
    events.append(event("CardGiven", f"seat {seat} gave a card to seat {receiver}", actor=seat))
    events.append(event("CardGiven", f"you gave {name} to seat {receiver}", audience=seat))
    events.append(event("CardReceived", f"seat {seat} gave you {name}", audience=receiver, cards=[action.card]))
    return NO_FOLLOW_UP, 0


def do_discard(state: ManasurgeState, seat: int, action: ManasurgeAction, events: list[Event]) -> Outcome:
    take_from_hand(state, seat, action.card)
    state.discard.append(action.card)
    events.append(
        event("CardDiscarded", f"Purge: seat {seat} discarded {card_name(action.card, numbers_of(state))}", actor=seat)
    )
    return NO_FOLLOW_UP, 0


def do_target(state: ManasurgeState, seat: int, action: ManasurgeAction, events: list[Event]) -> Outcome:
    other = action.target
    if state.target_magic == Magic.SIPHON:
        source = next(i for i, p in enumerate(state.table[:]) if p.seat == other and p.stones)
        own_played(state, source).stones -= 1
        own_played(state, len(state.table) - 1).stones += 1  # the Siphon (or a Shadow Mirror copying it) came last
        events.append(event("StoneTaken", f"Siphon: seat {seat} moved a stone from seat {other}'s card", actor=seat))
    else:
        mine, theirs = own_player(state, seat).hand, own_player(state, other).hand
        mine_cards, their_cards = list(mine), list(theirs)
        del mine[:], theirs[:]
        mine.extend(their_cards)
        theirs.extend(mine_cards)
        events.append(event("HandsSwapped", f"Mind Swap: seat {seat} and seat {other} exchanged hands", actor=seat))
        for who, hand in ((seat, their_cards), (other, mine_cards)):
            events.append(event("HandsSwapped", "your hand is now " + names(state, hand), audience=who, cards=hand))
    state.target_magic = 0
    return NO_FOLLOW_UP, 0


def do_decline(state: ManasurgeState, seat: int, action: ManasurgeAction, events: list[Event]) -> Outcome:
    """Thunder's example: "lần này có thể quyết định không thực hiện hành động của Lá Sấm Sét"."""
    events.append(event("AbilityDeclined", f"seat {seat} declined", actor=seat))
    return NO_FOLLOW_UP, 0


HANDLERS: Final[dict[int, Handler]] = {
    Move.MANASURGE_MOVE_OPEN: do_open,
    Move.MANASURGE_MOVE_PLAY: do_play,
    Move.MANASURGE_MOVE_GIVE: do_give,
    Move.MANASURGE_MOVE_DISCARD: do_discard,
    Move.MANASURGE_MOVE_TARGET: do_target,
    Move.MANASURGE_MOVE_DECLINE: do_decline,
}


def names(state: ManasurgeState, cards: list[int]) -> str:
    return card_names(cards, numbers_of(state)) or "nothing"


# ----- ManaSurge ----------------------------------------------------------------------------------------------------


def mana_surge(state: ManasurgeState, seat: int, events: list[Event]) -> None:
    """ "ManaSurge!": 2 stones, every penalty card to hand, draw up to 5 cards."""
    player = own_player(state, seat)
    gain = SURGE_STONES + (2 if has_role(state, seat, Role.SURGEMASTER) else 0)
    player.stones += gain
    taken = len(player.penalty)
    player.hand.extend(player.penalty)
    del player.penalty[:]
    draw_into(state, player.hand, HAND_SIZE - len(player.hand), events)
    events.append(
        event(
            "ManaSurged",
            f"seat {seat} emptied their hand: ManaSurge! +{gain} stones, "
            f"{taken} penalty cards to hand, {len(player.hand)} cards now",
            actor=seat,
        )
    )
    events.append(
        event("HandDealt", "your hand is now " + names(state, list(player.hand)), audience=seat, cards=player.hand)
    )


# ----- the end of a round -------------------------------------------------------------------------------------------


def end_round(state: ManasurgeState, loser: int) -> list[Event]:
    """ "Kết thúc vòng", steps 1-8, then the 5-or-more penalty cards rule and the goal."""
    events = [event("RoundLost", f"seat {loser} could not play a valid card", actor=loser)]
    reward_last_player(state, events)
    played = state.table[:]
    table = [(p.seat, p.stones) for p in played]  # read once: the penalty and the scores go over it
    penalise(state, loser, events, sum([stones for _, stones in table]))
    if state.caster_spell == Spell.EARTHQUAKE and loser != state.caster:
        earthquake(state, events)
    collect_stones(state, loser, events, table)
    state.discard.extend([p.id for p in played])  # step 6
    del state.table[:]
    for seat, player in enumerate(state.players[:]):
        if len(player.penalty) >= PENALTY_LIMIT:
            overflow_penalty(state, seat, events)
    if is_game_over(state, events):
        return events
    pass_caster_token(state, events)
    start_round(state, events)
    return events


def reward_last_player(state: ManasurgeState, events: list[Event]) -> None:
    """Step 2: "Người chơi đánh lá hợp lệ cuối cùng sẽ nhận được 1 Đá tím"."""
    seat = state.last_player
    if seat < 0:
        return
    own_player(state, seat).stones += 1
    events.append(event("StoneAwarded", f"seat {seat} played the last valid card: +1 stone"))


def penalise(state: ManasurgeState, loser: int, events: list[Event], stones: int | None = None) -> None:
    """Step 3: draw as many cards as there are stones on the spell cards (`stones`, when already counted), face
    down."""
    count = penalty_count(state, loser, stones)
    came = draw_into(state, own_player(state, loser).penalty, count, events)
    events.append(event("PenaltyTaken", f"seat {loser} took {penalty_cards(came)} face down", actor=loser))


def earthquake(state: ManasurgeState, events: list[Event]) -> None:
    """Earthquake: "Nếu người giữ Caster Token không bị tấn công bởi phép. Tất cả người chơi khác, mỗi người sẽ nhận
    1 lá phạt" (read: the Caster was not the one who failed, so every other player takes 1 penalty card)."""
    for seat in range(seat_count(state)):
        if seat == state.caster:
            continue
        came = draw_into(state, own_player(state, seat).penalty, 1, events)
        events.append(event("PenaltyTaken", f"Earthquake: seat {seat} took {came} penalty card"))


def collect_stones(
    state: ManasurgeState, loser: int, events: list[Event], table: list[tuple[int, int]] | None = None
) -> None:
    """Steps 4 and 5: the loser's stones go back to the supply; everyone else scores the stones on their cards.
    `table`: each card's (seat, stones), when already read."""
    if table is None:
        table = [(p.seat, p.stones) for p in state.table[:]]
    players = state.players[:]
    on_cards = [0] * len(players)  # the stones on each seat's cards, in one pass over the table
    for holder, stones in table:
        on_cards[holder] += stones
    lost = on_cards[loser]
    if lost:
        events.append(event("StonesReturned", f"{stones_on(lost)} on seat {loser}'s cards went back to the supply"))
    if lost and players[loser].role == Role.STONEWARDEN:
        own_player(state, loser).stones += 1
        events.append(event("StonesScored", f"Stonewarden: seat {loser} kept one of them"))
    for seat, gain in enumerate(on_cards):
        if gain and seat != loser:
            own_player(state, seat).stones += gain
            events.append(event("StonesScored", f"seat {seat} scored {stones_on(gain)} on their cards"))


def penalty_cards(count: int) -> str:
    """'1 penalty card' / '3 penalty cards'."""
    return f"{count} penalty card{'' if count == 1 else 's'}"


def stones_on(count: int) -> str:
    """'the stone' / 'the 3 stones'."""
    return "the stone" if count == 1 else f"the {count} stones"


def overflow_penalty(state: ManasurgeState, seat: int, events: list[Event]) -> None:
    """ "Sau khi hết 1 vòng mà bạn có 5 hoặc hơn lá phạt": return 1 stone, discard the hand, penalty cards to hand."""
    if len(state.players[seat].penalty) < PENALTY_LIMIT:
        return
    player = own_player(state, seat)
    if player.stones > 0 and not has_role(state, seat, Role.CRYSTAL_KEEPER):
        player.stones -= 1
    discarded = names(state, list(player.hand))
    state.discard.extend(player.hand)
    del player.hand[:]
    player.hand.extend(player.penalty)
    del player.penalty[:]
    events.append(
        event(
            "PenaltyOverflowed",
            f"seat {seat} had {len(player.hand)} penalty cards: returned a stone, "
            f"discarded their hand ({discarded}) and took the penalty cards into hand",
        )
    )


def is_game_over(state: ManasurgeState, events: list[Event]) -> bool:
    """Goal: 12 stones (10 with 5 players); "người nào nhiều điểm nhất là người chiến thắng". Also the engine's
    MAX_ROUNDS bound."""
    stones = [p.stones for p in state.players]
    best = max(stones)
    reached = best >= winning_stones(state)
    if not reached and state.round < MAX_ROUNDS:
        return False
    winners = [s for s, n in enumerate(stones) if n == best]
    reason = f"{best} stones" if reached else f"round limit ({MAX_ROUNDS}) reached: most stones"
    finish(state, winners, [float(n) for n in stones], reason)
    events.append(event("GameWon", f"{seats_text(winners)} won with {best} stones"))
    return True


def pass_caster_token(state: ManasurgeState, events: list[Event]) -> None:
    """Step 7: "Caster Token sẽ được chuyển cho tới người có số Đá tím ít nhất" (ties: the first after the Caster,
    clockwise; the Caster last)."""
    seats = seat_count(state)
    players = state.players[:]
    caster = state.caster
    fewest = chosen = -1
    for step in range(1, seats + 1):  # the first after the Caster with the fewest, the Caster last
        seat = (caster + step) % seats
        stones = players[seat].stones
        if chosen < 0 or stones < fewest:
            fewest, chosen = stones, seat
    state.caster = chosen
    events.append(event("CasterTokenPassed", f"the Caster Token passed to seat {state.caster} (fewest stones)"))


def role_text(player: ManasurgePlayer) -> str:
    return ROLE_NAMES[Role(player.role)] if player.role else "none"


def refusal(state: ManasurgeState, seat: int, action: ManasurgeAction) -> IllegalActionError | MalformedActionError:
    """Why `action` is not legal now, naming the rule it breaks."""
    step, move = state.step, action.move
    if move not in ManasurgeMove.values() or move == Move.MANASURGE_MOVE_UNSPECIFIED:
        return MalformedActionError("move", "choose a move: open, play, give, discard, target, decline or concede")
    hand = state.players[seat].hand
    numbers = numbers_of(state)
    if move in CARD_MOVES and action.card not in hand:
        return IllegalActionError("play from hand", f"card {action.card} is not in seat {seat}'s hand")
    if move not in MOVES_BY_STEP[step]:
        return IllegalActionError("order of play", f"now: {PROMPTS.get(step, 'wait')}")
    if move == Move.MANASURGE_MOVE_OPEN and is_magic(action.card):
        return IllegalActionError(
            "opening card", "the rulebook: 'the first player may not start the round with a Magic card'"
        )
    if move == Move.MANASURGE_MOVE_PLAY:
        return IllegalActionError(
            "valid cards",
            f"{card_name(action.card, numbers)} does not follow {spell_name(state.top_spell, state.top_number)}: "
            "'play a spell card with an equal number, or a spell card of the same spell with a greater number'",
        )
    if move == Move.MANASURGE_MOVE_CONCEDE:
        return IllegalActionError("must play", "'the next player must place a valid card', and you hold one")
    if move == Move.MANASURGE_MOVE_TARGET:
        return IllegalActionError("target", f"seat {action.target} cannot be chosen")
    return MalformedActionError("action fields", "set only the fields this move uses (card, target, clockwise)")
