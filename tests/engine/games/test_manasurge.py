"""ManaSurge scenario tests, each citing the rulebook line it checks (seeds/001; English: 001_manasurge_en.md).

Scenarios are dealt by hand: `deal` puts every card back in the draw pile, then gives each seat the named cards.
"""

from __future__ import annotations

import pytest
from manaforge.v1.common_pb2 import GameConfig
from manaforge.v1.games.manasurge_pb2 import ManasurgeAction, ManasurgeState

from engine_core.bots import ismcts
from engine_core.budget import budget_at
from engine_core.errors import IllegalActionError
from engine_core.game import TURN, set_pending
from engine_core.games.manasurge import GAME, actions, bot, rules
from engine_core.games.manasurge.actions import Move, Step
from engine_core.games.manasurge.cards import (
    DECK_SIZE,
    NUMBERS,
    PER_SPELL,
    SPELL_CARDS,
    Magic,
    Role,
    Spell,
    card_name,
    parse_card,
)
from engine_core.rng import new_rng

DAGGER, FIREBALL, FREEZE, THUNDER, QUAKE = (
    Spell.FLYING_DAGGER,
    Spell.FIREBALL,
    Spell.FREEZE,
    Spell.THUNDER,
    Spell.EARTHQUAKE,
)


def spell(kind: Spell, number: int, numbers: str = "1-12") -> int:
    """The id of the first card of `kind` bearing `number` (scenarios play with the 1-12 numbers: one card each)."""
    return (kind - 1) * PER_SPELL + NUMBERS[numbers].index(number)


def magic(kind: Magic) -> int:
    return SPELL_CARDS + kind - 1


# Cards that no scenario's round can follow (numbers above 8 of spells the scenarios do not open), one pair per seat.
FILL = [
    [spell(Spell.FLYING_DAGGER, 12), spell(Spell.FLYING_DAGGER, 11)],
    [spell(Spell.FLYING_DAGGER, 10), spell(Spell.FLYING_DAGGER, 9)],
    [spell(Spell.FREEZE, 12), spell(Spell.FREEZE, 11)],
    [spell(Spell.EARTHQUAKE, 12), spell(Spell.EARTHQUAKE, 11)],
    [spell(Spell.THUNDER, 12), spell(Spell.THUNDER, 11)],
]


def deal(
    hands: list[list[int]], *, caster: int = 0, options: dict[str, str] | None = None, fill: bool = True
) -> ManasurgeState:
    """A game at the start of a round with these hands (plus each seat's FILL pair); the rest is the draw pile."""
    config = GameConfig(game="manasurge", seats=len(hands), options={"numbers": "1-12", **(options or {})})
    state = GAME.new_game(config, seed=3)
    hands = [[*hand, *FILL[seat]] if fill else hand for seat, hand in enumerate(hands)]
    dealt = [c for hand in hands for c in hand]
    assert len(dealt) == len(set(dealt)), "a scenario dealt a card twice"
    for player in state.players:
        del player.hand[:], player.penalty[:]
    del state.discard[:], state.deck[:]
    state.deck.extend(c for c in range(DECK_SIZE) if c not in dealt)
    for player, hand in zip(state.players, hands, strict=True):
        player.hand.extend(hand)
    state.caster = caster
    state.step = Step.MANASURGE_STEP_OPEN
    set_pending(state, [caster], TURN, "open")
    rules.sync_sizes(state)
    return state


def stack_deck(state: ManasurgeState, top: list[int]) -> None:
    """Put these cards on top of the draw pile, the first one drawn first."""
    rest = [c for c in state.deck if c not in top]
    del state.deck[:]
    state.deck.extend(rest + list(reversed(top)))


def act(state: ManasurgeState, seat: int, move: int, card: int = 0, target: int = 0) -> ManasurgeState:
    action = ManasurgeAction(card=card, target=target)
    action.move = move  # type: ignore[assignment]
    new, _ = GAME.apply(state, seat, action)
    return new


def open_(state: ManasurgeState, seat: int, card: int, clockwise: bool = True) -> ManasurgeState:
    new, _ = GAME.apply(state, seat, ManasurgeAction(move=Move.MANASURGE_MOVE_OPEN, card=card, clockwise=clockwise))
    return new


def play(state: ManasurgeState, seat: int, card: int) -> ManasurgeState:
    return act(state, seat, Move.MANASURGE_MOVE_PLAY, card)


def decline(state: ManasurgeState, seat: int) -> ManasurgeState:
    return act(state, seat, Move.MANASURGE_MOVE_DECLINE)


def concede(state: ManasurgeState, seat: int) -> ManasurgeState:
    return act(state, seat, Move.MANASURGE_MOVE_CONCEDE)


def to_act(state: ManasurgeState) -> int:
    return state.header.pending.seats[0]


def playable(state: ManasurgeState) -> set[int]:
    seat = to_act(state)
    return {a.card for a in GAME.legal_actions(state, seat) if a.move == Move.MANASURGE_MOVE_PLAY}


# ----- setup and opening ---------------------------------------------------------------------------------------------


def test_setup_shuffles_72_cards_and_deals_5_each_with_the_token_to_the_first_player() -> None:
    # "Xáo 60 Lá Phép và 12 lá Ma Thuật với nhau và chia đều mỗi người 5 lá"
    # "Đưa cho người chơi đầu tiên Caster Token"
    state = GAME.new_game(GameConfig(game="manasurge", seats=4), seed=11)
    assert sorted(GAME.cards(state)) == list(range(72))
    assert [len(p.hand) for p in state.players] == [5, 5, 5, 5]
    assert state.deck_size == 72 - 20
    assert state.caster == 0 and to_act(state) == 0 and state.step == Step.MANASURGE_STEP_OPEN


def test_the_numbers_option_sets_the_spell_card_numbers() -> None:
    # Card numbers are a reconstruction (RULES.md): 1-8 with 3-6 doubled by default, 1-12 as the variant.
    assert NUMBERS["1-8"] == (1, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 8)
    assert card_name(spell(THUNDER, 12), "1-12") == "Thunder 12"
    assert card_name(spell(THUNDER, 12), "1-8") == "Thunder 8"
    both_fives = [spell(THUNDER, 5, numbers="1-8"), spell(THUNDER, 5, numbers="1-8") + 1]
    assert [card_name(c, "1-8") for c in both_fives] == ["Thunder 5", "Thunder 5"]
    assert parse_card("thunder 5", "1-8", both_fives) == both_fives[0]


def test_the_caster_may_not_open_with_a_magic_card() -> None:
    # "Người chơi đầu tiên không được bắt đầu vòng chơi với lá Ma Thuật"
    state = deal([[magic(Magic.HEX), spell(THUNDER, 2)], []], fill=False)
    opens = GAME.legal_actions(state, 0)
    assert {a.card for a in opens} == {spell(THUNDER, 2)}
    assert {a.clockwise for a in opens} == {True, False}  # "Chọn chiều chơi thuận hay ngược chiều kim đồng hồ"
    with pytest.raises(IllegalActionError, match="opening card"):
        open_(state, 0, magic(Magic.HEX))


@pytest.mark.parametrize(("redraw", "hand_size"), [("replace", 5), ("add", 10)])
def test_a_caster_without_a_spell_card_draws_5_new_cards(redraw: str, hand_size: int) -> None:
    # "Trường hợp khi bắt đầu không có, Người chơi đầu tiên sẽ được rút lại 5 lá mới"
    only_magic = [magic(m) for m in (Magic.HEX, Magic.WARD, Magic.PURGE, Magic.SIPHON, Magic.BACKLASH)]
    state = deal([only_magic, []], options={"redraw": redraw}, fill=False)
    fresh = [spell(THUNDER, n) for n in (1, 2, 3, 4, 5)]
    stack_deck(state, fresh)
    rules.redraw_for_caster(state, [])
    hand = list(state.players[0].hand)
    assert len(hand) == hand_size and set(fresh) <= set(hand)
    assert set(only_magic) <= set(state.discard) if redraw == "replace" else set(only_magic) <= set(hand)


def test_opening_puts_the_token_and_one_stone_on_the_card_and_sets_the_direction() -> None:
    # "Caster sẽ bắt đầu vòng chơi bằng cách đặt 1 Lá Phép trước mặt – lấy 1 Đá tím và Caster token đặt lên lá bài đó"
    state = open_(deal([[spell(THUNDER, 2)], [], []]), 0, spell(THUNDER, 2), clockwise=False)
    assert [(p.id, p.stones) for p in state.table] == [(spell(THUNDER, 2), 1)]
    assert (state.caster_spell, state.caster_number) == (THUNDER, 2)
    assert to_act(state) == 2  # counter-clockwise from seat 0 in a 3-player game


# ----- valid cards ---------------------------------------------------------------------------------------------------


def test_valid_cards_are_an_equal_number_a_greater_same_spell_card_or_any_magic_card() -> None:
    # "Đánh Lá Phép bằng số hoặc lá Phép cùng phép lớn hơn thẻ đang hiện có trên bàn chơi" / "Bất kì thẻ Ma Thuật"
    hand = [spell(THUNDER, 1), spell(THUNDER, 6), spell(FIREBALL, 4), spell(FIREBALL, 6), magic(Magic.WARD)]
    state = open_(deal([[spell(THUNDER, 4)], hand]), 0, spell(THUNDER, 4))
    assert playable(state) == {spell(THUNDER, 6), spell(FIREBALL, 4), magic(Magic.WARD)}
    with pytest.raises(IllegalActionError, match="valid cards"):
        play(state, 1, spell(THUNDER, 1))


def test_flying_dagger_numbers_go_down() -> None:
    # Flying Dagger: "Số trên lá phép giảm dần"
    hand = [spell(DAGGER, 2), spell(DAGGER, 7), spell(FIREBALL, 5)]
    state = open_(deal([[spell(DAGGER, 5)], hand], fill=False), 0, spell(DAGGER, 5))
    assert playable(state) == {spell(DAGGER, 2), spell(FIREBALL, 5)}
    state = play(state, 1, spell(DAGGER, 2))
    assert state.table[-1].stones == 1  # case 2: lower than the Caster card in a Flying Dagger round


def test_a_player_with_a_valid_card_must_play_it() -> None:
    # "*Người chơi tiếp theo bắt buộc đặt một lá hợp lệ trước mặt hoặc sẽ bị nhận lá phạt"
    state = open_(deal([[spell(THUNDER, 2)], [spell(THUNDER, 5)]]), 0, spell(THUNDER, 2))
    assert all(a.move != Move.MANASURGE_MOVE_CONCEDE for a in GAME.legal_actions(state, 1))
    with pytest.raises(IllegalActionError, match="must play"):
        concede(state, 1)


# ----- cases 1-3 and the rulebook's examples --------------------------------------------------------------------------


def test_thunder_2_then_5_then_6_example() -> None:
    # Case 2 example: "Caster Token hiện tại đang nằm trên một lá Sấm sét số 2" / "Bạn đánh lá Sấm sét số 5 ... Đặt 1
    # Đá tím lên và bạn có thể đánh thêm 1 lá bài nữa" / "Sấm sét số 6 ... lần này có thể quyết định không thực hiện"
    you = [spell(THUNDER, 5), spell(THUNDER, 6), spell(THUNDER, 8)]
    state = open_(deal([[spell(THUNDER, 2)], you, []]), 0, spell(THUNDER, 2))
    state = play(state, 1, spell(THUNDER, 5))
    assert state.table[-1].stones == 1 and state.step == Step.MANASURGE_STEP_THUNDER and to_act(state) == 1
    state = play(state, 1, spell(THUNDER, 6))
    assert state.table[-1].stones == 1 and state.step == Step.MANASURGE_STEP_THUNDER and to_act(state) == 1
    state = decline(state, 1)
    assert to_act(state) == 2 and state.step == Step.MANASURGE_STEP_PLAY  # "Chuyển lượt qua người kế bên"
    assert actions.table_stones(state) == 3


def test_case_1_an_off_spell_card_gets_no_stone_and_no_ability() -> None:
    # "Trường hợp 1 : Nếu bạn đánh lá Phép không trùng phép với lá Phép có Caster token ... không được dùng tính năng"
    state = open_(deal([[spell(THUNDER, 2)], [spell(FREEZE, 2), spell(FREEZE, 6)]]), 0, spell(THUNDER, 2))
    state = play(state, 1, spell(FREEZE, 2))  # equal number: valid and reverses (case 3), but Freeze is off-spell
    assert state.table[-1].stones == 0 and state.step == Step.MANASURGE_STEP_PLAY and to_act(state) == 0


def test_huy_and_han_reverse_twice_with_shadow_mirror_then_no_more() -> None:
    # Case 3 example: Huy Fireball 5, Hân Freeze 5 reverses, Huy's Shadow Mirror copies Freeze 5 and reverses back,
    # Hân's Earthquake 5 no longer changes the direction: "Không được đổi chiều vòng chơi quá 2 lần".
    huy, han, third = 0, 1, 2
    hands = [[spell(FIREBALL, 5), magic(Magic.SHADOW_MIRROR)], [spell(FREEZE, 5), spell(QUAKE, 5)], []]
    state = open_(deal(hands), huy, spell(FIREBALL, 5), clockwise=True)
    state = play(state, han, spell(FREEZE, 5))
    assert not state.clockwise and to_act(state) == huy
    state = play(state, huy, magic(Magic.SHADOW_MIRROR))
    assert state.clockwise and to_act(state) == han
    assert (state.table[-1].spell, state.table[-1].number) == (FREEZE, 5)
    state = play(state, han, spell(QUAKE, 5))
    assert state.clockwise and state.reversals == 2 and to_act(state) == third


def test_freeze_gives_the_next_player_any_one_card() -> None:
    # Freeze: "Khi đánh lá đóng băng, bạn có thể tặng cho người kế bên 1 lá bất kì"
    hands = [[spell(FREEZE, 2)], [spell(FREEZE, 4), magic(Magic.WARD)], []]
    state = play(open_(deal(hands), 0, spell(FREEZE, 2)), 1, spell(FREEZE, 4))
    assert state.step == Step.MANASURGE_STEP_FREEZE
    state = act(state, 1, Move.MANASURGE_MOVE_GIVE, magic(Magic.WARD))
    assert magic(Magic.WARD) in state.players[2].hand and magic(Magic.WARD) not in state.players[1].hand
    assert to_act(state) == 2


# ----- the end of a round --------------------------------------------------------------------------------------------


def quake_round(loser_is_caster: bool) -> ManasurgeState:
    """Caster seat 0 opens Earthquake 2, seat 1 plays Earthquake 4 (a stone); then seat 2 plays Earthquake 6 (a
    stone) and seat 0 cannot follow, or seat 2 cannot follow."""
    hands = [[spell(QUAKE, 2)], [spell(QUAKE, 4)], [spell(QUAKE, 6)] if loser_is_caster else []]
    state = play(open_(deal(hands), 0, spell(QUAKE, 2)), 1, spell(QUAKE, 4))
    if loser_is_caster:
        return concede(play(state, 2, spell(QUAKE, 6)), 0)
    return concede(state, 2)


def test_end_of_round_steps_2_to_8() -> None:
    # "Kết thúc vòng": 2 the last valid card +1 stone; 3 penalty cards = stones on the cards; 4 the loser's stones to
    # the supply; 5 the others score theirs; 6 played cards to the discard; 7 the token to the fewest stones;
    # 8 "Bắt đầu lượt mới với 5 lá trên tay"
    state = quake_round(loser_is_caster=True)
    assert [p.stones for p in state.players] == [0, 1, 2]
    assert [p.penalty_size for p in state.players] == [3, 0, 0]  # the Caster was hit: Earthquake spares the rest
    assert {spell(QUAKE, 2), spell(QUAKE, 4), spell(QUAKE, 6)} <= set(state.discard)
    assert state.caster == 0 and state.round == 2 and state.step == Step.MANASURGE_STEP_OPEN
    assert [len(p.hand) for p in state.players] == [5, 5, 5]


def test_earthquake_gives_everyone_but_the_caster_a_penalty_card_when_the_caster_is_not_hit() -> None:
    # Earthquake: "Nếu người giữ Caster Token không bị tấn công bởi phép. Tất cả người chơi khác ... nhận 1 lá phạt"
    state = quake_round(loser_is_caster=False)
    assert [p.penalty_size for p in state.players] == [0, 1, 3]  # seat 2: 2 stones + Earthquake's 1
    assert [p.stones for p in state.players] == [1, 2, 0]  # seat 1: its stone + the last valid card


@pytest.mark.parametrize(("kind", "bonus"), [(DAGGER, 1), (FIREBALL, 2), (THUNDER, 0)])
def test_flying_dagger_and_fireball_add_to_the_penalty(kind: Spell, bonus: int) -> None:
    # Flying Dagger: "Lá phạt = số đá tím + 1"; Fireball: "Lá phạt = số đá tím +2"
    state = concede(open_(deal([[spell(kind, 3)], [spell(QUAKE, 8)]]), 0, spell(kind, 3)), 1)
    assert state.players[1].penalty_size == 1 + bonus


def test_five_or_more_penalty_cards_come_to_hand_for_a_stone() -> None:
    # "Sau khi hết 1 vòng mà bạn có 5 hoặc hơn lá phạt": 1 return a stone; 2 discard the hand; 3 penalty cards to hand
    state = open_(deal([[spell(FIREBALL, 1)], [spell(FREEZE, 8), spell(QUAKE, 8)]]), 0, spell(FIREBALL, 1))
    state.players[1].stones = 4
    state.players[1].penalty.extend([spell(FREEZE, 1), spell(FREEZE, 2)])
    state = concede(state, 1)  # 1 stone + Fireball's 2 = 3 more penalty cards: 5 in all
    player = state.players[1]
    assert player.stones == 3 and player.penalty_size == 0 and len(player.hand) == 5
    assert {spell(FREEZE, 8), spell(QUAKE, 8)} <= set(state.discard)
    assert {spell(FREEZE, 1), spell(FREEZE, 2)} <= set(player.hand)


def test_the_token_passes_to_the_player_with_the_fewest_stones() -> None:
    # Step 7: "Caster Token sẽ được chuyển cho tới người có số Đá tím ít nhất"
    state = open_(deal([[spell(FIREBALL, 1)], [spell(FREEZE, 8)], [spell(FREEZE, 7)]]), 0, spell(FIREBALL, 1))
    state.players[1].stones, state.players[2].stones = 5, 1
    state = concede(state, 1)  # seat 0 scores 1 + 1: seats 0, 1, 2 hold 2, 5, 1
    assert state.caster == 2 and to_act(state) == 2


# ----- ManaSurge and the goal ---------------------------------------------------------------------------------------


def test_playing_the_last_card_is_a_mana_surge() -> None:
    # "ManaSurge!": "1 – Nhận 2 đá tím. 2 – Lấy tất cả số bài phạt lên tay 3 - Rút thêm ... sao cho đủ 5 lá"
    state = deal([[spell(THUNDER, 2), *FILL[0]], [spell(FIREBALL, 2)], FILL[2]], fill=False)
    state.players[1].penalty.extend([spell(FREEZE, 1), spell(FREEZE, 2)])
    state = play(open_(state, 0, spell(THUNDER, 2)), 1, spell(FIREBALL, 2))
    player = state.players[1]
    assert player.stones == 2 and player.penalty_size == 0 and len(player.hand) == 5
    assert {spell(FREEZE, 1), spell(FREEZE, 2)} <= set(player.hand)


@pytest.mark.parametrize(("seats", "goal"), [(4, 12), (5, 10)])
def test_the_game_ends_at_12_stones_or_10_with_5_players(seats: int, goal: int) -> None:
    # "Người đầu tiên lấy về 12 Đá tím là người chiến thắng. Đối với 5 người chơi chỉ cần lấy về 10 Đá Tím."
    hands = [[spell(FIREBALL, 1)], [spell(FREEZE, 8)], *[[] for _ in range(seats - 2)]]
    state = open_(deal(hands), 0, spell(FIREBALL, 1))
    state.players[2].stones = goal - 2
    state.players[0].stones = goal - 3
    almost = concede(state, 1)  # seat 0 scores 2: one short
    assert not GAME.is_terminal(almost)
    state.players[0].stones = goal - 2
    done = concede(state, 1)
    assert GAME.is_terminal(done) and list(done.header.outcome.winners) == [0]


def test_several_players_over_12_the_most_stones_wins() -> None:
    # "Trường hợp cả nhiều người đều trên 12 thì người nào nhiều điểm nhất là người chiến thắng"
    state = open_(deal([[spell(FIREBALL, 1)], [spell(FREEZE, 8)], []]), 0, spell(FIREBALL, 1))
    state.players[0].stones, state.players[2].stones = 11, 14
    state = concede(state, 1)
    assert list(state.header.outcome.winners) == [2] and state.players[0].stones == 13


def test_an_empty_draw_pile_takes_the_reshuffled_discard_pile() -> None:
    # Reading (RULES.md): when the draw pile runs out, the discard pile is shuffled into a new one.
    state = open_(deal([[spell(FIREBALL, 1)], [spell(FREEZE, 8)], []]), 0, spell(FIREBALL, 1))
    state.discard.extend(state.deck[:-2])
    del state.deck[:-2]
    state = concede(state, 1)  # 3 penalty cards from a 2-card draw pile
    assert state.players[1].penalty_size == 3 and sorted(GAME.cards(state)) == list(range(72))


# ----- the Magic cards (a reconstruction) ---------------------------------------------------------------------------


def after_magic(kind: Magic, hand: list[int] | None = None, seats: int = 3) -> ManasurgeState:
    """Seat 0 opens Thunder 2 clockwise, seat 1 plays the Magic card."""
    hands = [[spell(THUNDER, 2)], [magic(kind), *(hand or [])], *[[] for _ in range(seats - 2)]]
    return play(open_(deal(hands), 0, spell(THUNDER, 2)), 1, magic(kind))


def test_spell_shift_moves_the_caster_token_to_the_top_card() -> None:
    hands = [[spell(THUNDER, 2), spell(FIREBALL, 8)], [spell(FIREBALL, 2), magic(Magic.SPELL_SHIFT)]]
    state = play(open_(deal(hands), 0, spell(THUNDER, 2)), 1, spell(FIREBALL, 2))
    state = play(play(state, 0, spell(FIREBALL, 8)), 1, magic(Magic.SPELL_SHIFT))
    assert (state.caster_spell, state.caster_number) == (FIREBALL, 8)


def test_backlash_reverses_and_time_stop_skips() -> None:
    state = after_magic(Magic.BACKLASH)
    assert not state.clockwise and state.reversals == 1 and to_act(state) == 0
    state = after_magic(Magic.TIME_STOP, seats=4)
    assert to_act(state) == 3


def test_mana_crystal_and_resonance_put_stones_on_cards() -> None:
    assert after_magic(Magic.MANA_CRYSTAL).table[-1].stones == 1
    hands = [[spell(THUNDER, 2)], [spell(THUNDER, 4), magic(Magic.RESONANCE)]]
    state = play(play(open_(deal(hands), 0, spell(THUNDER, 2)), 1, spell(THUNDER, 4)), 1, magic(Magic.RESONANCE))
    assert [p.stones for p in state.table] == [1, 2, 0]  # Thunder's extra play was the Resonance


def test_siphon_moves_a_stone_from_another_players_card_onto_itself() -> None:
    hands = [[spell(THUNDER, 2)], [magic(Magic.SIPHON)], [spell(THUNDER, 5)]]
    state = play(open_(deal(hands), 0, spell(THUNDER, 2)), 1, magic(Magic.SIPHON))
    assert [a.target for a in GAME.legal_actions(state, 1)] == [0]  # only players with a stone on the table
    state = act(state, 1, Move.MANASURGE_MOVE_TARGET, target=0)
    assert [p.stones for p in state.table] == [0, 1]


def test_mind_swap_exchanges_hands() -> None:
    state = after_magic(Magic.MIND_SWAP)
    zero, one = list(state.players[0].hand), list(state.players[1].hand)
    state = act(state, 1, Move.MANASURGE_MOVE_TARGET, target=0)
    assert list(state.players[1].hand) == zero and list(state.players[0].hand) == one


def test_hex_gives_the_next_player_two_penalty_cards() -> None:
    state = after_magic(Magic.HEX)
    assert state.players[2].penalty_size == 2 and len(state.players[2].hand) == len(FILL[2])


def test_purge_discards_a_card() -> None:
    state = after_magic(Magic.PURGE, hand=[spell(QUAKE, 1)])
    state = act(state, 1, Move.MANASURGE_MOVE_DISCARD, spell(QUAKE, 1))
    assert spell(QUAKE, 1) in state.discard and list(state.players[1].hand) == FILL[1]


def test_ward_cuts_the_penalty_by_three() -> None:
    def penalty_after(card: int) -> int:
        hands = [[spell(FIREBALL, 2), spell(FIREBALL, 8)], [card]]
        state = play(open_(deal(hands), 0, spell(FIREBALL, 2)), 1, card)
        return concede(play(state, 0, spell(FIREBALL, 8)), 1).players[1].penalty_size

    assert penalty_after(magic(Magic.HEX)) == 4  # 2 stones + Fireball's 2
    assert penalty_after(magic(Magic.WARD)) == 1  # less 3


def test_wild_surge_plays_any_spell_card() -> None:
    state = after_magic(Magic.WILD_SURGE, hand=[spell(QUAKE, 1), magic(Magic.HEX)])
    plays = {a.card for a in GAME.legal_actions(state, 1) if a.move == Move.MANASURGE_MOVE_PLAY}
    assert plays == {spell(QUAKE, 1), *FILL[1]}
    state = play(state, 1, spell(QUAKE, 1))
    assert (state.top_spell, state.top_number) == (QUAKE, 1)


# ----- roles (variant) ------------------------------------------------------------------------------------------------


def test_roles_are_dealt_only_with_the_variant() -> None:
    # "Chia ngẫu nhiên cho mỗi người 1 lá chức năng trước khi bắt đầu game" (roles: a variant, off by default)
    plain = GAME.new_game(GameConfig(game="manasurge", seats=3), seed=5)
    with_roles = GAME.new_game(GameConfig(game="manasurge", seats=3, options={"roles": "on"}), seed=5)
    assert [p.role for p in plain.players] == [0, 0, 0]
    assert len({p.role for p in with_roles.players}) == 3 and all(p.role for p in with_roles.players)


def test_roles_bend_their_rule() -> None:
    state = deal([[spell(THUNDER, 2)], [spell(FIREBALL, 8)]])
    state.players[0].role = Role.ARCHCASTER
    state = open_(state, 0, spell(THUNDER, 2))
    assert state.table[0].stones == 2
    assert concede(state, 1).players[0].stones == 3  # Archcaster's two stones and the last valid card
    state = deal([[spell(THUNDER, 2), spell(QUAKE, 5)], [spell(THUNDER, 5)]])
    state.players[1].role = Role.STONEWARDEN
    state = decline(play(open_(state, 0, spell(THUNDER, 2)), 1, spell(THUNDER, 5)), 1)
    state = concede(play(state, 0, spell(QUAKE, 5)), 1)
    assert state.players[1].stones == 1  # the stone on its Thunder 5 is kept, not returned


def test_surgemaster_surges_for_four() -> None:
    state = deal([[spell(THUNDER, 2), *FILL[0]], [spell(FIREBALL, 2)], FILL[2]], fill=False)
    state.players[1].role = Role.SURGEMASTER
    assert play(open_(state, 0, spell(THUNDER, 2)), 1, spell(FIREBALL, 2)).players[1].stones == 4


# ----- views and bots -----------------------------------------------------------------------------------------------


def test_penalty_cards_are_face_down_even_to_their_owner() -> None:
    # "rút ... và đặt úp trước mặt" (draw and put face down in front of them)
    state = quake_round(loser_is_caster=True)
    view = GAME.view(state, 0)
    assert view.players[0].penalty_size == 3 and not view.players[0].penalty
    assert list(view.players[0].hand) and not view.players[1].hand and not view.deck


def test_sample_world_keeps_what_the_seat_sees_and_conserves_cards() -> None:
    state = quake_round(loser_is_caster=True)
    world = GAME.sample_world(GAME.view(state, 1), 1, new_rng(9))
    assert sorted(GAME.cards(world)) == list(range(72))
    assert list(world.players[1].hand) == list(state.players[1].hand)
    assert [len(p.hand) for p in world.players] == [len(p.hand) for p in state.players]
    assert [len(p.penalty) for p in world.players] == [len(p.penalty) for p in state.players]
    assert world.header.HasField("rng") and world.deck_size == len(world.deck)


def test_the_heuristic_prefers_resonant_plays_and_its_self_play_ends() -> None:
    hand = [spell(THUNDER, 5), spell(FIREBALL, 2)]
    state = open_(deal([[spell(THUNDER, 2)], hand]), 0, spell(THUNDER, 2))
    choice = GAME.heuristic_action(GAME.view(state, 1), 1, GAME.legal_actions(state, 1), new_rng(1))
    assert choice.card == spell(THUNDER, 5)
    for seed in range(3):
        game = GAME.new_game(GameConfig(game="manasurge", seats=3), seed=seed)
        bot_rng = new_rng(seed)
        for _ in range(GAME.info.max_actions):
            if GAME.is_terminal(game):
                break
            seat = to_act(game)
            action = GAME.heuristic_action(GAME.view(game, seat), seat, GAME.legal_actions(game, seat), bot_rng)
            game, _ = GAME.apply(game, seat, action)
        assert GAME.is_terminal(game)


def test_the_search_playouts_stop_where_the_round_ends_and_score_the_stones() -> None:
    # At two seats the flat search's playouts end with the round (bot.round_over), scored by the evaluation.
    state = play(open_(deal([[spell(QUAKE, 2)], [spell(QUAKE, 4)]]), 0, spell(QUAKE, 2)), 1, spell(QUAKE, 4))
    assert not bot.round_over(state)  # seat 0 holds no valid card: the heuristic takes the penalty
    budget = budget_at(GAME.bot_budget, 2)
    assert budget.playout_end is bot.round_over
    world = GAME.copy(state)
    result = ismcts.playout(GAME, world, 0, budget, new_rng(1), budget.max_rollout_actions)
    assert bot.round_over(world) and world.round == 2 and world.header.version == state.header.version + 1
    assert result == GAME.evaluate(world)


def test_ember_sage_chronomancer_and_crystal_keeper() -> None:
    sage = deal([[spell(FIREBALL, 3)], [spell(QUAKE, 8)]])
    sage.players[1].role = Role.EMBER_SAGE
    assert concede(open_(sage, 0, spell(FIREBALL, 3)), 1).players[1].penalty_size == 1  # no Fireball +2
    hands = [[spell(FIREBALL, 5), spell(QUAKE, 5)], [spell(FREEZE, 5), spell(THUNDER, 5)]]
    chrono = deal(hands)
    chrono.players[0].role = Role.CHRONOMANCER
    chrono = play(play(open_(chrono, 0, spell(FIREBALL, 5)), 1, spell(FREEZE, 5)), 0, spell(QUAKE, 5))
    assert chrono.reversals == 2
    assert play(chrono, 1, spell(THUNDER, 5)).reversals == 2  # seat 1 is bound by the limit
    chrono.players[1].role = Role.CHRONOMANCER
    assert play(chrono, 1, spell(THUNDER, 5)).reversals == 3
    keeper = open_(deal([[spell(FIREBALL, 1)], [spell(FREEZE, 8)]]), 0, spell(FIREBALL, 1))
    keeper.players[1].role = Role.CRYSTAL_KEEPER
    keeper.players[1].stones = 4
    keeper.players[1].penalty.extend([spell(FREEZE, 1), spell(FREEZE, 2)])
    assert concede(keeper, 1).players[1].stones == 4  # 5 penalty cards to hand, no stone returned
