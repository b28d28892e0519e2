"""MANA BURN: one scenario per rule, each citing the rulebook (seeds/000_c3edb8e1b029fc8e.txt, "L<n>" = line n).

States are made by `new_game` and then arranged by hand (cards moved between zones, pawns placed), so every card
stays conserved; the game is then driven through the public `apply` like a client would.
"""

from __future__ import annotations

from collections import Counter

import pytest
from manaforge.v1.common_pb2 import DecisionKind, GameConfig
from manaforge.v1.games.mana_burn_pb2 import ManaBurnAction, ManaBurnState

from engine_core.conformance import card_refs, check_playout
from engine_core.errors import IllegalActionError, MalformedActionError
from engine_core.games.mana_burn import GAME, board, rules
from engine_core.games.mana_burn.board import BACKS, GRAVEYARD, INTERNET, LIBRARY, OUTS, REAL_WORLD, THE_GAME
from engine_core.games.mana_burn.cards import CREATURES, DECK_SIZE, Kind, distinct, kind
from engine_core.games.mana_burn.rules import (
    CARD,
    CREATURE,
    FALSE_BID,
    HERO,
    NAME,
    PASS,
    PATH,
    PLAY,
    REROLL,
    SEAT,
    YES,
    Phase,
)
from engine_core.games.mana_burn.zones import sync_sizes
from engine_core.rng import new_rng

RESPONSE = DecisionKind.DECISION_KIND_RESPONSE
SIMULTANEOUS = DecisionKind.DECISION_KIND_SIMULTANEOUS


# ----- helpers ------------------------------------------------------------------------------------------------------


def new_game(seats: int = 3, seed: int = 1, **options: str) -> ManaBurnState:
    return GAME.new_game(GameConfig(game="mana_burn", seats=seats, options=options), seed)


def act(move: int, **fields: int) -> ManaBurnAction:
    return ManaBurnAction(move=move, **fields)  # type: ignore[arg-type]


def pending(state: ManaBurnState) -> int:
    return state.header.pending.seats[0]


def do(state: ManaBurnState, action: ManaBurnAction, seat: int | None = None) -> ManaBurnState:
    new, _ = GAME.apply(state, pending(state) if seat is None else seat, action)
    return new


def do_events(state: ManaBurnState, action: ManaBurnAction) -> tuple[ManaBurnState, list[str]]:
    new, events = GAME.apply(state, pending(state), action)
    return new, [f"{e.type}: {e.text}" for e in events]


def pass_windows(state: ManaBurnState) -> ManaBurnState:
    while state.windows and not state.header.outcome.finished:
        state = do(state, act(PASS))
    return state


def _pull(state: ManaBurnState, k: Kind) -> int:
    """A card of kind `k` taken out of the Library (or the Graveyard)."""
    for pile in (state.library, state.graveyard):
        for card in pile:
            if kind(card) == k:
                pile.remove(card)
                return card
    raise AssertionError(f"no {k.name} left to pull")


def clear_hand(state: ManaBurnState, seat: int) -> None:
    hand = state.players[seat].hand
    state.library[:0] = list(hand)  # to the bottom
    del hand[:]


def set_hand(state: ManaBurnState, seat: int, *kinds: Kind) -> list[int]:
    clear_hand(state, seat)
    cards = [_pull(state, k) for k in kinds]
    state.players[seat].hand.extend(cards)
    sync_sizes(state)
    return cards


def in_play(state: ManaBurnState, seat: int, *kinds: Kind) -> list[int]:
    cards = [_pull(state, k) for k in kinds]
    for card in cards:
        state.players[seat].creatures.add(card=card, owner=seat)
    return cards


def on_top(state: ManaBurnState, *kinds: Kind) -> None:
    """The Library's next draws, first drawn first."""
    for k in kinds:
        state.library.append(_pull(state, k))


def to_graveyard(state: ManaBurnState, *kinds: Kind) -> list[int]:
    cards = [_pull(state, k) for k in kinds]
    state.graveyard.extend(cards)
    return cards


def restart_at(state: ManaBurnState, phase: int, seat: int = 0) -> ManaBurnState:
    """Drop the open roll and go straight to `phase` for `seat` (hand-made scenario)."""
    del state.windows[:]
    del state.rolls[:]
    state.active = seat
    state.phase = phase  # type: ignore[assignment]
    rules.advance(state, [])
    sync_sizes(state)
    return state


def land_on(state: ManaBurnState, square: int, seat: int = 0) -> ManaBurnState:
    """Put `seat`'s pawn on `square` as if it had just stopped there, and read the square."""
    state.players[seat].square = square
    state.players[seat].choosing = False
    return restart_at(state, Phase.MANA_BURN_PHASE_ARRIVED, seat)


def square_of(name: str) -> int:
    return next(i for i, s in enumerate(board.SQUARES) if s.name == name)


def roll_to(state: ManaBurnState, value: int) -> ManaBurnState:
    """Fix the open die roll at `value` and let everyone pass."""
    state.rolls[0].value = value
    while state.windows and state.windows[-1].trigger == rules.ROLL_WINDOW:
        state = do(state, act(PASS))
    return state


def hand_kinds(state: ManaBurnState, seat: int) -> Counter[Kind]:
    return Counter(kind(c) for c in state.players[seat].hand)


# ----- EQUIPMENT and SETUP ------------------------------------------------------------------------------------------


def test_deck_has_eight_of_each_creature_and_twelve_of_each_spell() -> None:
    """L4: "eight copies of each of five creatures ... plus twelve copies of each of five spells"."""
    counts = Counter(kind(c) for c in range(DECK_SIZE))
    assert DECK_SIZE == 100
    assert all(counts[k] == 8 for k in list(Kind)[:5])
    assert all(counts[k] == 12 for k in list(Kind)[5:])


def test_setup_deals_three_cards_and_starts_every_pawn_on_the_library() -> None:
    """L7: "deal a starting hand of three cards to each player ... All players' Pawns start on the Library"."""
    state = new_game(seats=4)
    assert [p.hand_size for p in state.players] == [3, 3, 3, 3]
    assert all(p.square == LIBRARY for p in state.players)
    assert state.library_size == 100 - 12
    assert sorted(GAME.cards(state)) == list(range(100))


# ----- movement -----------------------------------------------------------------------------------------------------


def test_the_roll_opens_a_response_window_for_every_other_player_in_turn_order_then_the_roller() -> None:
    """L13 "roll one die"; L63 "After the die is cast, everyone needs a chance ... If you give everyone the chance
    to act, and they don't, then the roll stands." One seat at a time, RESPONSE, the roller's pass settles."""
    state = new_game(seats=3)
    seen = []
    while state.windows:
        assert state.header.pending.kind == RESPONSE and len(state.header.pending.seats) == 1
        assert GAME.timeout_action(state, pending(state)) == act(PASS)
        seen.append(pending(state))
        state = do(state, act(PASS))
    assert seen == [1, 2, 0]
    assert state.phase == Phase.MANA_BURN_PHASE_PATH  # on the Library: choose the path to leave by


def test_pawn_moves_with_the_arrows_by_the_roll() -> None:
    """L13: "roll one die, and move with the arrows"; L15: "follow the instructions on the square where you land"."""
    state = roll_to(new_game(), 4)
    state = do(state, act(PATH, path=THE_GAME))
    assert state.players[0].square == OUTS[THE_GAME][3]  # Vesuvan Shift: 4 squares out of the Library
    assert board.square_name(state.players[0].square) == "Vesuvan Shift"


def test_walking_into_the_library_draws_two_and_lets_you_change_path_mid_move() -> None:
    """L16: "When you pass the Library (technically, when you walk into it) draw the top two cards. You can always
    change paths at the Library." L65: "pause while passing the Library, take your cards, and then decide"."""
    state = new_game()
    state.players[0].square = BACKS[INTERNET][-2]
    state.players[0].choosing = False
    on_top(state, Kind.RAISE_DEAD, Kind.INCINERATE)
    state = roll_to(state, 5)
    assert state.players[0].square == LIBRARY and state.steps == 3
    assert state.phase == Phase.MANA_BURN_PHASE_PATH
    assert hand_kinds(state, 0)[Kind.RAISE_DEAD] >= 1 and state.players[0].hand_size == 5
    state = do(state, act(PATH, path=REAL_WORLD))
    assert state.players[0].square == OUTS[REAL_WORLD][2]


def test_extra_merfolk_draw_an_extra_card_each_at_the_library() -> None:
    """L56: "if you have more than one Merfolk when you pass the Library, you get to draw one extra card for each
    extra Merfolk"."""
    state = new_game()
    in_play(state, 0, Kind.MERFOLK, Kind.MERFOLK, Kind.MERFOLK)
    state.players[0].square = BACKS[INTERNET][-1]
    state.players[0].choosing = False
    state = roll_to(state, 1)
    assert state.players[0].hand_size == 3 + 2 + 2


def test_passing_the_graveyard_keeps_the_path() -> None:
    """L17: "When you pass the Graveyard, you must stay on the same path"."""
    state = new_game()
    state.players[0].square = OUTS[INTERNET][-1]
    state.players[0].path = INTERNET
    state.players[0].choosing = False
    state = roll_to(state, 3)
    assert state.players[0].square == BACKS[INTERNET][1]


def test_skeletons_may_switch_paths_when_passing_the_graveyard() -> None:
    """L50: "If you have Drudge Skeletons in play, you may always switch paths at the Graveyard"."""
    state = new_game()
    in_play(state, 0, Kind.DRUDGE_SKELETONS)
    state.players[0].square = OUTS[INTERNET][-1]
    state.players[0].path = INTERNET
    state.players[0].choosing = False
    state = roll_to(state, 3)
    assert state.phase == Phase.MANA_BURN_PHASE_PATH and state.players[0].square == GRAVEYARD
    state = do(state, act(PATH, path=THE_GAME))
    assert state.players[0].square == BACKS[THE_GAME][1]


def test_goblins_may_take_the_graveyard_top_card_when_passing() -> None:
    """L46: "players with Goblins may take the top card of the Graveyard when they pass it"."""
    state = new_game()
    in_play(state, 0, Kind.GOBLINS)
    top = to_graveyard(state, Kind.COUNTERSPELL)[0]
    state.players[0].square = OUTS[REAL_WORLD][-1]
    state.players[0].path = REAL_WORLD
    state.players[0].choosing = False
    state = roll_to(state, 2)
    assert state.phase == Phase.MANA_BURN_PHASE_GOBLIN
    state = do(state, act(YES))
    assert top in state.players[0].hand and not state.graveyard
    assert state.players[0].square == BACKS[REAL_WORLD][0]


def test_stopping_on_the_graveyard_may_take_its_top_card_and_leave_by_any_path() -> None:
    """L17: "if you stop directly on the Graveyard, you may pick up the top card of the discard pile, and you may
    also leave the Graveyard by any path"."""
    state = new_game()
    top = to_graveyard(state, Kind.HOLY_ARMOR)[0]
    state = land_on(state, GRAVEYARD)
    assert [a.move for a in GAME.legal_actions(state, 0)] == [PASS, YES]
    state = do(state, act(YES))
    assert top in state.players[0].hand
    assert state.players[0].choosing  # next turn it picks its exit path


def test_stopping_on_another_pawn_steals_a_random_card_before_the_square() -> None:
    """L14: "If you stop exactly on another's Pawn, you get to draw a random card from their hand. Do this
    immediately, before you read the square." """
    state = new_game()
    ow = square_of("Ow! My Eye!")
    state.players[1].square = ow
    state = land_on(state, ow)
    assert state.players[1].hand_size == 2
    assert state.players[0].hand_size == 4  # stole one, now asked to discard one (the square)
    assert state.phase == Phase.MANA_BURN_PHASE_SQUARE


def test_several_pawns_let_you_choose_whose_hand_to_draw_from() -> None:
    """L14 (gap: several pawns on the square): the mover picks one of them."""
    state = new_game()
    square = square_of("Friends in High Places")
    state.players[1].square = state.players[2].square = square
    state = land_on(state, square)
    assert GAME.legal_actions(state, 0) == [act(SEAT, seat=1), act(SEAT, seat=2)]
    state = do(state, act(SEAT, seat=2))
    assert state.players[2].hand_size == 2 and state.players[0].hand_size == 3 + 1 + 2


# ----- playing cards ------------------------------------------------------------------------------------------------


def test_only_one_creature_sorcery_or_enchantment_per_turn() -> None:
    """L19: "you may play one Creature, Sorcery, or Enchantment from your hand. You may only play one of these cards
    on the same turn." """
    state = new_game()
    hero, sprites = set_hand(state, 0, Kind.BENALISH_HERO, Kind.SCRYB_SPRITES)
    state = restart_at(state, Phase.MANA_BURN_PHASE_MAIN)
    state = pass_windows(do(state, act(PLAY, card=hero)))
    assert [c.card for c in state.players[0].creatures] == [hero]
    assert act(PLAY, card=sprites) not in GAME.legal_actions(state, 0)
    with pytest.raises(IllegalActionError, match="one Creature, Sorcery, or Enchantment"):
        do(state, act(PLAY, card=sprites))


def test_played_cards_leave_the_collection() -> None:
    """L21: "Any cards which you play are no longer part of your collection, even if they are sitting in front of
    you." A creature in play does not count towards the ten."""
    state = new_game()
    cards = set_hand(state, 0, *Kind)
    state.players[0].hand.remove(cards[0])
    state.players[0].creatures.add(card=cards[0], owner=0)
    assert distinct(list(state.players[0].hand)) == 9
    state = restart_at(state, Phase.MANA_BURN_PHASE_MAIN)
    assert not state.header.outcome.finished


def test_fast_effects_may_be_played_in_answer_to_each_other_and_giant_growth_adds_three() -> None:
    """L20: "you may play the three fast effects ... at any time, as many as you like"; L43: Giant Growth "Adds +3 to
    any player's movement roll"."""
    state = new_game()
    g1, g2 = sorted(set_hand(state, 1, Kind.GIANT_GROWTH, Kind.GIANT_GROWTH))  # a choice names the first copy
    state.rolls[0].value = 2
    state = do(state, act(PLAY, card=g1, roll=0))  # seat 1 grows seat 0's roll
    assert state.windows[-1].trigger == rules.CARD_WINDOW and pending(state) == 2
    state = do(state, act(PASS))  # seat 2
    state = do(state, act(PASS))  # seat 0: Giant Growth resolves
    assert state.rolls[0].value == 5
    assert pending(state) == 1  # the roll changed: everyone answers again
    state = do(state, act(PLAY, card=g2, roll=0))
    state = pass_windows(pass_windows(state))
    assert state.players[0].square == LIBRARY and state.phase == Phase.MANA_BURN_PHASE_PATH
    state = do(state, act(PATH, path=REAL_WORLD))
    assert state.players[0].square == OUTS[REAL_WORLD][7] if len(OUTS[REAL_WORLD]) > 7 else GRAVEYARD


def test_counterspell_counters_only_right_after_the_card() -> None:
    """L58: Counterspell "Counters the playing of any other card. You must play this card right after the other one
    is played; you can't change your mind and counter something later on." """
    state = new_game()
    (growth,) = set_hand(state, 1, Kind.GIANT_GROWTH)
    (counter,) = set_hand(state, 2, Kind.COUNTERSPELL)
    (growth0,) = set_hand(state, 0, Kind.GIANT_GROWTH)
    state.rolls[0].value = 2
    state = do(state, act(PLAY, card=growth, roll=0))
    assert act(PLAY, card=counter, target=growth) in GAME.legal_actions(state, 2)
    # seat 2 lets it go; seat 0 answers with its own Giant Growth: now it is too late to counter the first one
    state = do(state, act(PASS))
    state = do(state, act(PLAY, card=growth0, roll=0))
    assert pending(state) == 1
    state = do(state, act(PASS))
    assert act(PLAY, card=counter, target=growth0) in GAME.legal_actions(state, 2)
    state = do(state, act(PLAY, card=counter, target=growth0))
    state = do(state, act(PASS))  # seat 0
    state = do(state, act(PASS))  # seat 1: Counterspell resolves, seat 0's Giant Growth is marked countered
    state = do(state, act(PASS))  # seat 2 closes seat 0's Giant Growth's window: it fizzles
    assert pending(state) == 0
    assert state.rolls[0].value == 2  # seat 0's growth countered, seat 1's still waiting
    assert counter in state.graveyard and growth0 in state.graveyard
    state = do(state, act(PASS))  # seat 0 closes the first Giant Growth's window: it resolves
    assert state.rolls[0].value == 5


def test_counterspell_on_a_creature_sends_it_to_the_graveyard() -> None:
    """L58: "Counters the playing of any other card"."""
    state = new_game()
    (hero,) = set_hand(state, 0, Kind.BENALISH_HERO)
    (counter,) = set_hand(state, 1, Kind.COUNTERSPELL)
    state = restart_at(state, Phase.MANA_BURN_PHASE_MAIN)
    state = do(state, act(PLAY, card=hero))
    state = do(state, act(PLAY, card=counter, target=hero))
    state = pass_windows(state)
    assert not state.players[0].creatures and {hero, counter} <= set(state.graveyard)


def test_incinerate_destroys_an_unarmored_creature_or_one_holy_armor() -> None:
    """L39: "That creature can't be destroyed by an Incinerate. However, the Armor itself can be destroyed by an
    Incinerate. You may play multiple Holy Armors on the same creature." L48: "Destroys one unarmored creature, or
    one Holy Armor card." """
    state = new_game()
    (goblin,) = in_play(state, 1, Kind.GOBLINS)
    (armor,) = set_hand(state, 1, Kind.HOLY_ARMOR)
    inc1, inc2 = sorted(set_hand(state, 0, Kind.INCINERATE, Kind.INCINERATE))  # a choice names the first copy
    state = restart_at(state, Phase.MANA_BURN_PHASE_MAIN, seat=1)
    state = pass_windows(do(state, act(PLAY, card=armor, target=goblin)))
    assert list(state.players[1].creatures[0].armor) == [armor]
    state = restart_at(state, Phase.MANA_BURN_PHASE_MAIN, seat=0)
    legal = GAME.legal_actions(state, 0)
    assert act(PLAY, card=inc1, target=goblin) not in legal  # armored
    state = pass_windows(do(state, act(PLAY, card=inc1, target=armor)))
    assert not state.players[1].creatures[0].armor and armor in state.graveyard
    state = pass_windows(do(state, act(PLAY, card=inc2, target=goblin)))
    assert not state.players[1].creatures and goblin in state.graveyard


def test_raise_dead_takes_any_card_from_the_graveyard() -> None:
    """L53: "This spell takes any card out of the Graveyard into your hand. (It doesn't have to be a creature.)" """
    state = new_game()
    (dead,) = to_graveyard(state, Kind.COUNTERSPELL)
    (spell,) = set_hand(state, 0, Kind.RAISE_DEAD)
    state = restart_at(state, Phase.MANA_BURN_PHASE_MAIN)
    state = pass_windows(do(state, act(PLAY, card=spell, target=dead)))
    assert list(state.players[0].hand) == [dead] and state.graveyard[-1] == spell


def test_sprites_reroll_once_per_sprite_and_the_newest_roll_stands() -> None:
    """L41: "You may re-roll your movement die once per turn for each Scryb Sprite you have in play. You must use your
    most recent roll"."""
    state = new_game()
    in_play(state, 0, Kind.SCRYB_SPRITES)
    state = do(do(state, act(PASS)), act(PASS))
    assert act(REROLL) in GAME.legal_actions(state, 0)
    state = do(state, act(REROLL))
    newest = state.rolls[0].value
    assert state.rerolls_used == 1 and pending(state) == 1  # everyone may answer the new roll
    state = do(do(state, act(PASS)), act(PASS))
    assert act(REROLL) not in GAME.legal_actions(state, 0)
    state = do(state, act(PASS))
    state = do(state, act(PATH, path=THE_GAME))
    assert state.players[0].square == ([LIBRARY, *OUTS[THE_GAME], GRAVEYARD, *BACKS[THE_GAME]])[newest]


# ----- GAME TERMS ---------------------------------------------------------------------------------------------------


def _ante(state: ManaBurnState) -> ManaBurnState:
    state = land_on(state, square_of("Play for ANTE"))
    return do(state, act(SEAT, seat=1))


def test_ante_highest_roll_takes_both_cards_with_heroes_adding_two() -> None:
    """L24: "Both players choose a card from their hand, and lay it face down. They each roll one die, and the
    highest roll takes both cards." L26: "A Benalish Hero can add +2 to any player's die roll, once per Ante game." """
    state = new_game()
    (mine,) = set_hand(state, 0, Kind.HOLY_ARMOR)
    (theirs,) = set_hand(state, 1, Kind.INCINERATE)
    in_play(state, 2, Kind.BENALISH_HERO)
    state = _ante(state)
    assert state.header.pending.kind == SIMULTANEOUS and sorted(state.header.pending.seats) == [0, 1]
    state = do(state, act(CARD, card=theirs), seat=1)
    assert not GAME.view(state, 0).players[1].offer  # face down
    state = do(state, act(CARD, card=mine), seat=0)
    state.rolls[0].value, state.rolls[1].value = 5, 6
    state = do(state, act(PASS))  # seat 1
    state = do(state, act(HERO, roll=0))  # seat 2's Hero helps seat 0: 7 beats 6
    assert act(HERO, roll=0) not in GAME.legal_actions(state, 2) or state.players[2].heroes_used == 1
    state = pass_windows(state)
    assert sorted(state.players[0].hand) == sorted([mine, theirs]) and not state.players[1].hand


def test_ante_tie_returns_the_cards() -> None:
    """L24: "If the game is a tie, players retain their own cards." """
    state = new_game()
    (mine,) = set_hand(state, 0, Kind.HOLY_ARMOR)
    (theirs,) = set_hand(state, 1, Kind.INCINERATE)
    state = _ante(state)
    state = do(do(state, act(CARD, card=theirs), seat=1), act(CARD, card=mine), seat=0)
    state.rolls[0].value = state.rolls[1].value = 9
    state = pass_windows(state)
    assert list(state.players[0].hand) == [mine] and list(state.players[1].hand) == [theirs]


def test_goblins_make_the_opponent_ante_at_random_one_card_per_goblin() -> None:
    """L26/L45: "Goblins make your opponent Ante at random. Extra Goblins make him Ante extra cards" ("if you have
    3 Goblins, your opponent must contribute a total of three cards, at random")."""
    state = new_game()
    in_play(state, 0, Kind.GOBLINS, Kind.GOBLINS)
    set_hand(state, 0, Kind.HOLY_ARMOR)
    set_hand(state, 1, Kind.INCINERATE, Kind.RAISE_DEAD, Kind.MERFOLK)
    state = _ante(state)
    assert list(state.header.pending.seats) == [0]  # seat 1 does not choose
    assert state.players[1].offer_size == 2 and state.players[1].hand_size == 1


def test_players_with_no_cards_cannot_ante_or_trade() -> None:
    """L25 "Players with no cards cannot play games for Ante."; L29 "Players with no cards cannot Trade."; L60 nobody is
    forced into what makes no sense."""
    state = new_game()
    clear_hand(state, 0)
    for name in ("Play for ANTE", "TRADE one card"):
        after = land_on(new := GAME.copy(state), square_of(name))
        assert after.phase == Phase.MANA_BURN_PHASE_MAIN and new is not None


def test_trade_is_a_simultaneous_face_down_swap() -> None:
    """L28: "swap one card with him, face down. Both players may choose which card they give away, but neither knows
    what the other is offering." """
    state = new_game()
    (mine,) = set_hand(state, 0, Kind.HOLY_ARMOR)
    (theirs, _) = set_hand(state, 1, Kind.INCINERATE, Kind.RAISE_DEAD)
    state = land_on(state, square_of("TRADE one card"))
    state = do(state, act(SEAT, seat=1))
    assert state.header.pending.kind == SIMULTANEOUS
    state = do(state, act(CARD, card=mine), seat=0)
    assert mine not in card_refs(GAME.view(state, 1)) and list(state.header.pending.seats) == [1]
    state = do(state, act(CARD, card=theirs), seat=1)
    assert list(state.players[0].hand) == [theirs] and mine in state.players[1].hand


def test_goblins_make_the_trade_partner_give_at_random_and_extra() -> None:
    """L30: "If you have Goblins, your opponent must choose his card randomly. Extra Goblins make him Trade extra
    card." """
    state = new_game()
    in_play(state, 0, Kind.GOBLINS, Kind.GOBLINS)
    (mine,) = set_hand(state, 0, Kind.HOLY_ARMOR)
    set_hand(state, 1, Kind.INCINERATE, Kind.RAISE_DEAD, Kind.MERFOLK)
    state = land_on(state, square_of("TRADE one card"))
    state = do(do(state, act(SEAT, seat=1)), act(CARD, card=mine), seat=0)
    assert state.players[0].hand_size == 2 and state.players[1].hand_size == 2


def _auction(state: ManaBurnState) -> ManaBurnState:
    on_top(state, Kind.RAISE_DEAD, Kind.MERFOLK)
    return land_on(state, OUTS[REAL_WORLD][1])  # AUCTION two cards


def test_auction_starts_on_the_left_passing_is_final_and_the_last_bidder_takes() -> None:
    """L32: "take X cards off the Library and turn them face up. Starting with the player on your left, players may
    "bid" by discarding one card ... Once a player passes, he can not re-enter the auction. The last player to bid
    ... takes the cards being auctioned." """
    state = new_game()
    b1 = set_hand(state, 1, Kind.HOLY_ARMOR, Kind.HOLY_ARMOR)
    (b2,) = set_hand(state, 2, Kind.INCINERATE)
    state = _auction(state)
    lot = sorted(state.auction)
    assert pending(state) == 1 and state.header.pending.kind == DecisionKind.DECISION_KIND_TURN
    state = do(state, act(CARD, card=min(b1)))  # seat 1 bids
    state = do(state, act(CARD, card=b2))  # seat 2 bids
    state = do(state, act(PASS))  # seat 0 passes
    state = do(state, act(PASS))  # seat 1 passes: seat 2 was last to bid
    assert sorted(c for c in state.players[2].hand) == lot
    assert state.phase == Phase.MANA_BURN_PHASE_MAIN and not state.auction
    assert {min(b1), b2} <= set(state.graveyard)


def test_auction_without_bids_sends_the_cards_to_the_graveyard() -> None:
    """L33: "If no one bids, the cards being auctioned go to the Graveyard." """
    state = _auction(new_game())
    lot = set(state.auction)
    for _ in range(3):
        state = do(state, act(PASS))
    assert lot <= set(state.graveyard) and not state.auction


def test_skeletons_make_one_false_bid_per_skeleton_per_auction() -> None:
    """L34/L51: "you can make one "false" bid, once per Skeleton per Auction. A false bid keeps you in the auction,
    but you don't have to discard a card." """
    state = new_game()
    in_play(state, 1, Kind.DRUDGE_SKELETONS)
    set_hand(state, 1)
    (b2,) = set_hand(state, 2, Kind.INCINERATE)
    state = _auction(state)
    lot = sorted(state.auction)
    state = do(state, act(FALSE_BID))  # seat 1
    state = do(state, act(CARD, card=b2))  # seat 2
    state = do(state, act(PASS))  # seat 0
    assert GAME.legal_actions(state, 1) == [act(PASS)]  # one Skeleton: one false bid
    state = do(state, act(PASS))
    assert sorted(state.players[2].hand) == lot


def test_fishing_takes_one_copy_or_all_with_merfolk() -> None:
    """L36: "If so, she must give it to you. If she has several, you only get one of them." L37/L55: "If you have
    Merfolk, you get all copies of the card you asked for"."""
    for merfolk, expected in ((False, 1), (True, 2)):
        state = new_game()
        if merfolk:
            in_play(state, 0, Kind.MERFOLK)
        set_hand(state, 0)
        set_hand(state, 1, Kind.HOLY_ARMOR, Kind.HOLY_ARMOR, Kind.RAISE_DEAD)
        state = land_on(state, square_of("Go FISHING"))
        state = do(state, act(SEAT, seat=1, kind=Kind.HOLY_ARMOR))
        assert state.windows[-1].trigger == rules.ASK_WINDOW and pending(state) == 1
        state = do(state, act(PASS))
        assert hand_kinds(state, 0)[Kind.HOLY_ARMOR] == expected


def test_fishing_back_when_she_has_none() -> None:
    """L36: "If she has no such cards, she gets to "fish back," asking you for a card in the same fashion. Then,
    whether or not you are forced to give her a card, the fishing session ends." """
    state = new_game()
    set_hand(state, 0, Kind.COUNTERSPELL)
    set_hand(state, 1, Kind.RAISE_DEAD)
    state = land_on(state, square_of("Go FISHING"))
    state = do(do(state, act(SEAT, seat=1, kind=Kind.HOLY_ARMOR)), act(PASS))
    assert state.phase == Phase.MANA_BURN_PHASE_FISH_BACK and pending(state) == 1
    state = do(state, act(NAME, kind=Kind.COUNTERSPELL))
    state = do(state, act(PASS))  # seat 0 answers
    assert hand_kinds(state, 1)[Kind.COUNTERSPELL] == 1 and state.players[0].hand_size == 0
    assert state.phase == Phase.MANA_BURN_PHASE_MAIN and pending(state) == 0


def test_a_fished_player_may_throw_incinerates_before_answering() -> None:
    """L66: "Don't fish for Incinerates! Since they are instants, the player who is being fished can just throw them
    all at your creatures instead of giving them to you." """
    state = new_game()
    (goblin,) = in_play(state, 0, Kind.GOBLINS)
    inc = set_hand(state, 1, Kind.INCINERATE)[0]
    state = land_on(state, square_of("Go FISHING"))
    state = do(state, act(SEAT, seat=1, kind=Kind.INCINERATE))
    state = do(state, act(PLAY, card=inc, target=goblin))
    state = pass_windows(state)
    assert not state.players[0].creatures and hand_kinds(state, 0)[Kind.INCINERATE] == 0


# ----- squares ------------------------------------------------------------------------------------------------------


def test_mana_burn_square_burns_a_card_face_down_and_nose_ring_takes_one_back() -> None:
    """Board (reconstruction): MANA BURN puts a card face down on the Mana Burn pile; Nose Ring of Ma'Ruf "Take 1 card
    from the Mana Burn pile"."""
    state = new_game()
    (card,) = set_hand(state, 0, Kind.COUNTERSPELL)
    state = land_on(state, OUTS[REAL_WORLD][-1])
    state = do(state, act(CARD, card=card))
    assert list(state.mana_burn) == [card] and card in GAME.hidden_cards(state, 0)
    state = land_on(state, square_of("Nose Ring of Ma'Ruf"))
    assert list(state.players[0].hand) == [card]


def test_lace_squares_reverse_turn_order() -> None:
    """Board: "-Lace": turn order reverses until another "-Lace" square is hit; Left and Right swap."""
    state = land_on(new_game(), square_of("Neck-Lace"))
    assert state.direction == -1
    state = do(state, act(PASS))  # end the turn
    assert state.active == 2


def test_major_party_draws_on_low_rolls_and_discards_on_high_rolls_giant_growth_can_push_it() -> None:
    """Board: Major Party "Roll one die: on 1-8 draw 2; on 9-12 discard 2"; L43 Giant Growth adds +3 to "any other
    die roll"."""
    state = land_on(new_game(), square_of("Major Party"))
    state = roll_to(state, 8)
    assert state.players[0].hand_size == 5
    state = land_on(state, square_of("Major Party"))
    state = roll_to(state, 11)
    assert state.phase == Phase.MANA_BURN_PHASE_SQUARE and state.count == 2
    state = do(state, act(CARD, card=min(state.players[0].hand)))
    state = do(state, act(CARD, card=min(state.players[0].hand)))
    assert state.players[0].hand_size == 3


def test_crazy_abu_skips_the_next_turn_for_three_graveyard_cards() -> None:
    """Board: Crazy Abu! "You may skip your next turn to take the top 3 Graveyard cards now"."""
    state = new_game()
    to_graveyard(state, Kind.RAISE_DEAD, Kind.MERFOLK, Kind.GOBLINS, Kind.HOLY_ARMOR)
    state = land_on(state, square_of("Crazy Abu!"), seat=1)
    state = do(state, act(YES))
    assert state.players[1].hand_size == 6 and len(state.graveyard) == 1
    state = restart_at(state, Phase.MANA_BURN_PHASE_MAIN, seat=0)
    state = do(state, act(PASS))
    assert state.active == 2


def test_tantrum_of_god_kills_every_creature_named_like_the_graveyard_top() -> None:
    """Board: Tantrum of God "If the top Graveyard card is a creature, all matching creatures die" (armor or not)."""
    state = new_game()
    to_graveyard(state, Kind.MERFOLK)
    in_play(state, 1, Kind.MERFOLK)
    in_play(state, 2, Kind.MERFOLK, Kind.GOBLINS)
    state = land_on(state, square_of("Tantrum of God"))
    assert not state.players[1].creatures and [kind(c.card) for c in state.players[2].creatures] == [Kind.GOBLINS]


def test_connection_lost_jumps_to_re_enter_the_internet() -> None:
    """Board: "Discard one card, or jump to Re-Enter the Internet" (whose text, "Draw one card", is then read)."""
    state = land_on(new_game(), square_of("Connection Lost"))
    state = do(state, act(YES))
    assert state.players[0].square == board.RE_ENTER_SQUARE and state.players[0].hand_size == 4


def test_refund_returns_a_creature_to_its_owners_hand() -> None:
    """Board: Refund? Refund? "Return one creature to its owner's hand"."""
    state = new_game()
    (hero,) = in_play(state, 1, Kind.BENALISH_HERO)
    state.players[1].creatures[0].owner = 2
    state = land_on(state, square_of("Refund? Refund?"))
    state = do(state, act(CREATURE, target=hero))
    assert hero in state.players[2].hand and not state.players[1].creatures


def test_short_circuit_shuffles_one_card_from_each_player() -> None:
    """Board: Short Circuit "Each player puts in 1 card; shuffle and hand them back out at random"."""
    state = land_on(new_game(), square_of("Short Circuit"))
    assert state.header.pending.kind == SIMULTANEOUS and sorted(state.header.pending.seats) == [0, 1, 2]
    for seat in (2, 0, 1):
        state = do(state, act(CARD, card=min(state.players[seat].hand)), seat=seat)
    assert [p.hand_size for p in state.players] == [3, 3, 3] and state.phase == Phase.MANA_BURN_PHASE_MAIN


def test_squares_that_draw_or_take_cards() -> None:
    """Board: Friends in High Places "Draw 2 cards"; Re-Enter the Internet "Draw one card"; Greedy You "Take the top 2
    Graveyard cards"; Gravy Train "Draw 2 random cards from the player on your right"; Mana Screwed! "Everyone but you
    draws one card"."""
    assert land_on(new_game(), square_of("Friends in High Places")).players[0].hand_size == 5
    assert land_on(new_game(), square_of("Re-Enter the Internet")).players[0].hand_size == 4
    state = new_game()
    to_graveyard(state, Kind.MERFOLK, Kind.GOBLINS, Kind.RAISE_DEAD)
    state = land_on(state, square_of("Greedy You"))
    assert state.players[0].hand_size == 5 and len(state.graveyard) == 1
    state = land_on(new_game(), square_of("Gravy Train"))
    assert [p.hand_size for p in state.players] == [5, 3, 1]  # seat 2 is on seat 0's right
    state = land_on(new_game(), square_of("Mana Screwed!"))
    assert [p.hand_size for p in state.players] == [3, 4, 4]


def test_squares_that_swap_with_the_piles() -> None:
    """Board: Game Store "You may swap 1 card for the top 2 cards of the Graveyard"; Blind Trade "You may swap 1 card
    for the top 2 cards of the Library"; Green is Strong! "Take up to 2 Blue cards from the Graveyard"."""
    state = new_game()
    (mine,) = set_hand(state, 0, Kind.HOLY_ARMOR)
    top2 = to_graveyard(state, Kind.MERFOLK, Kind.GOBLINS)
    state = land_on(state, square_of("Game Store"))
    state = do(state, act(CARD, card=mine))
    assert sorted(state.players[0].hand) == sorted(top2) and list(state.graveyard) == [mine]
    state = new_game()
    (mine,) = set_hand(state, 0, Kind.HOLY_ARMOR)
    state = land_on(state, square_of("Blind Trade"))
    state = do(state, act(CARD, card=mine))
    assert state.players[0].hand_size == 2 and state.library[0] == mine
    state = new_game()
    blue = to_graveyard(state, Kind.MERFOLK, Kind.COUNTERSPELL, Kind.GOBLINS, Kind.COUNTERSPELL)
    state = land_on(state, square_of("Green is Strong!"))
    assert act(CARD, card=blue[2]) not in GAME.legal_actions(state, 0)  # Goblins are red
    state = do(do(state, act(CARD, card=blue[0])), act(CARD, card=min(blue[1], blue[3])))  # the first copy
    assert state.phase == Phase.MANA_BURN_PHASE_MAIN and state.players[0].hand_size == 5


def test_squares_that_move_creatures() -> None:
    """Board: Spooky Vibes "You may steal a Drudge Skeleton from any player"; Vesuvan Shift "swap a creature you
    control with another creature in play"; Disloyalty (designed) gives one to the player on your left; Goblin Riot
    "Gather all creatures in play and share them out again at random"."""
    state = new_game()
    (skeleton,) = in_play(state, 2, Kind.DRUDGE_SKELETONS)
    state = do(land_on(state, square_of("Spooky Vibes")), act(CREATURE, target=skeleton))
    assert [c.card for c in state.players[0].creatures] == [skeleton]
    (hero,) = in_play(state, 1, Kind.BENALISH_HERO)
    state = do(land_on(state, square_of("Vesuvan Shift")), act(CREATURE, target=skeleton, other=hero))
    assert [c.card for c in state.players[0].creatures] == [hero]
    assert [c.card for c in state.players[1].creatures] == [skeleton]
    state = do(land_on(state, square_of("Disloyalty")), act(CREATURE, target=hero))
    assert [c.card for c in state.players[1].creatures] == [skeleton, hero]
    in_play(state, 2, Kind.MERFOLK)
    state = land_on(state, square_of("Goblin Riot"))
    assert [len(p.creatures) for p in state.players] == [1, 1, 1]


def test_mud_wrestling_makes_every_player_discard_or_sacrifice() -> None:
    """Board: M.U.D. Wrestling "Every player discards a card or sacrifices a creature" (starting with you)."""
    state = new_game()
    (goblin,) = in_play(state, 1, Kind.GOBLINS)
    clear_hand(state, 2)
    sync_sizes(state)
    state = land_on(state, square_of("M.U.D. Wrestling"))
    assert pending(state) == 0
    state = do(state, act(CARD, card=min(state.players[0].hand)))
    assert pending(state) == 1 and act(CREATURE, target=goblin) in GAME.legal_actions(state, 1)
    state = do(state, act(CREATURE, target=goblin))
    assert goblin in state.graveyard and state.phase == Phase.MANA_BURN_PHASE_MAIN  # seat 2 has nothing


def test_roll_again_squares_roll_a_new_movement_die() -> None:
    """Board: Bus Token / Infinite Loophole "Roll again"."""
    state = land_on(new_game(), square_of("Bus Token"))
    assert state.rolls[0].purpose == rules.MOVE_ROLL and state.windows[-1].trigger == rules.ROLL_WINDOW
    state = roll_to(state, 1)
    assert board.square_name(state.players[0].square) == "MANA BURN"


def test_tournament_and_suitcase_read_their_rolls() -> None:
    """Board: Origins Tournament "on 8-12 draw 3 cards"; Meet Mr. Suitcase "on 1-6 draw a card; on 7-12 discard two"."""
    assert roll_to(land_on(new_game(), square_of("Origins Tournament")), 8).players[0].hand_size == 6
    assert roll_to(land_on(new_game(), square_of("Origins Tournament")), 7).players[0].hand_size == 3
    assert roll_to(land_on(new_game(), square_of("Meet Mr. Suitcase")), 6).players[0].hand_size == 4
    state = roll_to(land_on(new_game(), square_of("Meet Mr. Suitcase")), 7)
    assert state.phase == Phase.MANA_BURN_PHASE_SQUARE and state.count == 2


# ----- winning ------------------------------------------------------------------------------------------------------


def test_collecting_the_ten_wins_even_on_another_players_turn() -> None:
    """L10: "collect one of each of the ten different cards. You win as soon as you do this, even if it's not your
    turn." Seat 1 completes its set in seat 0's auction."""
    state = new_game()
    set_hand(state, 1, *[k for k in Kind if k != Kind.RAISE_DEAD], Kind.HOLY_ARMOR)
    state = _auction(state)
    state = do(state, act(CARD, card=min(c for c in state.players[1].hand if kind(c) == Kind.HOLY_ARMOR)))
    state = do(do(state, act(PASS)), act(PASS))
    assert state.header.outcome.finished and list(state.header.outcome.winners) == [1]


def test_simultaneous_win_restarts_the_game_or_shares_it() -> None:
    """L10: "more than one person will win at the same time. If this happens, everyone must play again from the
    beginning." Variant simultaneous_win=share: both win."""
    for option, restarted in (("restart", True), ("share", False)):
        state = new_game(simultaneous_win=option)
        for seat in (1, 2):
            set_hand(state, seat, *[k for k in Kind if k != Kind.GIANT_GROWTH])
        on_top(state, Kind.GIANT_GROWTH, Kind.GIANT_GROWTH)
        state = land_on(state, square_of("Mana Screwed!"))
        if restarted:
            assert state.restarts == 1 and not state.header.outcome.finished
            assert [p.hand_size for p in state.players] == [3, 3, 3] and state.turns == 1
        else:
            assert list(state.header.outcome.winners) == [1, 2]


def test_the_turn_limit_ends_the_game_with_the_most_different_cards_winning() -> None:
    """Gap: the rules may loop; variant turn_limit: after that many rounds the most different cards in hand wins."""
    state = new_game(seats=2, turn_limit="15")
    set_hand(state, 1, Kind.HOLY_ARMOR, Kind.INCINERATE, Kind.RAISE_DEAD, Kind.RAISE_DEAD)
    set_hand(state, 0, Kind.HOLY_ARMOR)
    state.turns = 30
    state = restart_at(state, Phase.MANA_BURN_PHASE_NEXT_TURN)
    assert state.header.outcome.finished and list(state.header.outcome.winners) == [1]
    assert list(state.header.outcome.scores) == [1.0, 3.0]


# ----- protocol, view, bots -----------------------------------------------------------------------------------------


def test_refusals_name_the_rule() -> None:
    state = new_game()
    with pytest.raises(MalformedActionError):
        do(state, ManaBurnAction())
    with pytest.raises(IllegalActionError, match="response window"):
        do(state, act(PATH, path=1))


def test_render_draws_the_board_with_the_pawns() -> None:
    state = new_game()
    state.players[1].square = square_of("Greedy You")
    text = GAME.render(GAME.view(state, 0), 0)
    board = text.splitlines()
    assert board[1].startswith("LIBRARY") and board[1].endswith("  @A @C")  # seats 0 and 2 on the Library
    assert "  Shoe-Lace              Connection Lost            Greedy You @B" in board  # seat 1
    assert "@B seat 1 · 3 cards · on Greedy You (The Game): Take the top 2 Graveyard cards" in board


def test_sample_world_keeps_what_the_seat_sees_and_conserves_cards() -> None:
    state = new_game(seats=4)
    state = land_on(state, square_of("TRADE one card"))
    state = do(do(state, act(SEAT, seat=1)), act(CARD, card=min(state.players[0].hand)), seat=0)
    world = GAME.sample_world(GAME.view(state, 0), 0, new_rng(5))
    assert sorted(GAME.cards(world)) == list(range(100))
    assert list(world.players[0].hand) == list(state.players[0].hand)
    assert [p.hand_size for p in world.players] == [len(p.hand) for p in world.players]
    assert world.header.HasField("rng")
    for step in range(200):
        if GAME.is_terminal(world):
            break
        seat = GAME.pending_seats(world)[0]
        legal = GAME.legal_actions(world, seat)
        world, _ = GAME.apply(world, seat, legal[step % len(legal)])
    assert sorted(GAME.cards(world)) == list(range(100))


def test_heuristic_bots_finish_games_by_collecting() -> None:
    """Strategy tips as a bot: heuristic players complete a collection well before the turn limit."""
    state = new_game(seats=3, seed=4)
    rand = new_rng(4)
    while not GAME.is_terminal(state):
        seat = GAME.pending_seats(state)[0]
        action = GAME.heuristic_action(GAME.view(state, seat), seat, GAME.legal_actions(state, seat), rand)
        assert action in GAME.legal_actions(state, seat)
        state, _ = GAME.apply(state, seat, action)
    assert state.header.outcome.reason == "collected one of each of the ten cards"


def test_random_playouts_with_six_players_keep_the_invariants() -> None:
    for seed in range(2):
        assert check_playout(GAME, 6, seed, full=False).finished


def test_shared_action_tables_stay_bounded_for_any_ids_a_client_sends() -> None:
    """The stateless rules service lists actions for whatever state a client sends: ids it makes up must not grow
    the tables of shared actions without bound, and the actions listed stay right."""
    limit = rules.ACTIONS_LIMIT
    for target in range(limit + 500):
        action = rules.act(CREATURE, target=1_000_000 + target, other=7)
        assert (action.move, action.target, action.other) == (CREATURE, 1_000_000 + target, 7)
    assert len(rules._ACTIONS) <= limit
    aimed = rules.play_at(3, list(range(limit + 10)))
    assert [a.target for a in aimed] == list(range(limit + 10)) and {a.card for a in aimed} == {3}
    for card in range(limit + 10):
        rules.play_at(10_000 + card, [1])
    assert len(rules._AIMED) <= limit and all(len(row) <= limit + 10 for row in rules._AIMED.values())
    assert rules.act(PASS) == rules.PASS_ACTION  # a table started again still gives equal actions


# ----- the words a player reads (issue 32) --------------------------------------------------------------------------


def test_incinerate_on_drudge_skeletons_reads_differently_for_each_target_and_once_per_copy() -> None:
    """Two Incinerates in hand and three Drudge Skeletons in play (one of them the player's own) offered six identical
    lines "play Incinerate on Drudge Skeletons": now one line per creature, named by its controller, and the player's
    own creature marked."""
    state = new_game()
    in_play(state, 0, Kind.DRUDGE_SKELETONS)
    in_play(state, 1, Kind.DRUDGE_SKELETONS)
    (armored,) = in_play(state, 2, Kind.DRUDGE_SKELETONS)
    (armor,) = to_graveyard(state, Kind.HOLY_ARMOR)
    state.graveyard.remove(armor)
    state.players[2].creatures[0].armor.append(armor)
    first, second = sorted(set_hand(state, 0, Kind.INCINERATE, Kind.INCINERATE))
    state = restart_at(state, Phase.MANA_BURN_PHASE_MAIN, seat=0)
    labels = [GAME.describe(state, a) for a in GAME.legal_actions(state, 0) if a.card in (first, second)]
    assert labels == [
        "play Incinerate on seat 0's Drudge Skeletons (your own)",
        "play Incinerate on seat 1's Drudge Skeletons",
        "play Incinerate on the Holy Armor on seat 2's Drudge Skeletons with 1 Holy Armor",
    ]
    with pytest.raises(IllegalActionError, match="copies of Incinerate are the same card"):
        GAME.apply(state, 0, act(PLAY, card=second, target=state.players[1].creatures[0].card))
    assert armored not in [a.target for a in GAME.legal_actions(state, 0)]  # armored: only its Armor burns


def test_cards_in_hand_that_cannot_be_played_say_why() -> None:
    """A card no legal action uses carries a note: a Creature after this turn's one Creature, Sorcery or
    Enchantment, a Giant Growth with no roll to grow, a Counterspell with nothing to counter."""
    state = new_game()
    hero, growth, counter, incinerate = set_hand(
        state, 0, Kind.BENALISH_HERO, Kind.GIANT_GROWTH, Kind.COUNTERSPELL, Kind.INCINERATE
    )
    state = restart_at(state, Phase.MANA_BURN_PHASE_MAIN, seat=0)
    state.main_played = True
    assert GAME.card_notes(state, 0) == {
        hero: "you already played a Creature, Sorcery or Enchantment this turn",
        growth: "only in answer to a die roll",
        counter: "only right after another player plays a card",
        incinerate: "no creature or Holy Armor in play",
    }
    others = GAME.card_notes(state, 1)  # not seat 1's turn: its creatures and sorceries wait for its own
    assert all(others[c] == "only on your turn, after you move" for c in state.players[1].hand if kind(c) in CREATURES)


def test_the_board_as_the_clients_draw_it_walks_as_the_pawns_do() -> None:
    """GetCatalogue's squares (Game.board): every square named with its effect, on its track, and its `next` the
    squares the rules walk a pawn to, path by path: out from the Library to the Graveyard, and back."""
    squares = GAME.board(GameConfig(game="mana_burn"))
    assert [s.id for s in squares] == list(range(len(board.SQUARES))) == list(range(42))
    assert all(s.name and s.effect for s in squares)
    assert (squares[LIBRARY].track, squares[GRAVEYARD].track) == ("", "")
    assert list(squares[LIBRARY].next) == [OUTS[p][0] for p in (REAL_WORLD, INTERNET, THE_GAME)]
    for path, name in enumerate(board.PATH_NAMES):
        walked, at = [], board.next_square(LIBRARY, path)
        while at != LIBRARY:
            walked.append(at)
            at = squares[at].next[path if at == GRAVEYARD else 0]
        assert walked == [*OUTS[path], GRAVEYARD, *BACKS[path]]
        assert {squares[s].track for s in OUTS[path]} == {f"{name}, out"}
        assert {squares[s].track for s in BACKS[path]} == {f"{name}, back"}
