"""Magicka Mayhem scenario tests. Each cites the rulebook line (seeds/003_f0ff4562ca4c8b17.txt) it checks."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import MutableSequence, Sequence

import pytest
from manaforge.v1.common_pb2 import GameConfig
from manaforge.v1.games.magicka_pb2 import (
    MagickaAction,
    MagickaElement,
    MagickaPayment,
    MagickaState,
    MagickaTarget,
)

from engine_core.conformance import seat_word_faults
from engine_core.errors import IllegalActionError
from engine_core.game import RESPONSE
from engine_core.games.magicka import GAME
from engine_core.games.magicka.cards import (
    ANSWER,
    ARCANE,
    ATTACK,
    CAST_SNAP,
    CAST_SPELL,
    CATALOGUE,
    COLD,
    DISCARD,
    DRAW_REPLACEMENTS,
    EARTH,
    ELEMENT_BY_KIND,
    ELEMENTS,
    END_TURN,
    FIRE,
    LIFE,
    LIGHTNING,
    PASS,
    REPAIR,
    SHIELD,
    SPELL_BY_KIND,
    TRADE_SPELL_FOR_ELEMENTS,
    WATER,
    Element,
    kind_of,
)
from engine_core.games.magicka.payment import Payment, payments
from engine_core.rng import new_rng

# Element card kinds
E_FIRE, E_COLD, E_LIGHTNING, E_EARTH, E_WATER, E_LIFE, E_ARCANE, E_SHIELD = range(8)
RAGING_FIRE, STALWART_SHIELD, LIMITLESS_LIGHTNING = 8, 15, 22
FIRE_COLD, BLENDED = 16, 26
# Spell card kinds
FIRE_BOLT, ICE_SHARD, FURY, FIRE_BEAM, HEALING_LIGHT = 100, 102, 106, 108, 111
FRIGID, MAGMA, STORM = 114, 115, 116
# Mayhem card kinds
STAFF, BACKFIRE = 200, 201


def new(seats: int = 2, **opts: str) -> MagickaState:
    opts.setdefault("mayhem", "none")
    return GAME.new_game(GameConfig(game="magicka", seats=seats, options=opts), 1)


def give(state: MagickaState, seat: int, elements: Sequence[int] = (), spells: Sequence[int] = ()) -> None:
    """Replace `seat`'s hand with cards of the given kinds (taken from the decks, the hand going back to them)."""
    wizard = state.wizards[seat]
    state.element_deck.extend(wizard.elements)
    state.spell_deck.extend(wizard.spells)
    del wizard.elements[:]
    del wizard.spells[:]
    for kinds, hand, deck, other_hands in (
        (elements, wizard.elements, state.element_deck, [w.elements for w in state.wizards]),
        (spells, wizard.spells, state.spell_deck, [w.spells for w in state.wizards]),
    ):
        for kind in kinds:
            hand.append(_fetch(kind, deck, other_hands))


def _fetch(kind: int, deck: MutableSequence[int], hands: Sequence[MutableSequence[int]]) -> int:
    """A card of `kind` from the deck, or from another hand (which gets a deck card instead)."""
    for card in deck:
        if kind_of(card) == kind:
            deck.remove(card)
            return card
    for hand in hands:
        for card in hand:
            if kind_of(card) == kind:
                hand[list(hand).index(card)] = deck.pop(0)
                return card
    raise LookupError(kind)


def top_mayhem(state: MagickaState, kind: int) -> None:
    card = next(c for c in state.mayhem_deck if kind_of(c) == kind)
    state.mayhem_deck.remove(card)
    state.mayhem_deck.append(card)


def pay(*pairs: tuple[int, int]) -> list[MagickaPayment]:
    return [MagickaPayment(kind=k, element=MagickaElement.ValueType(e)) for k, e in pairs]


def at(seat: int, creature: int = 0) -> MagickaTarget:
    return MagickaTarget(seat=seat, creature=creature)


def cast(spell: int, payment: list[MagickaPayment], target: MagickaTarget, extra: int = 0) -> MagickaAction:
    return MagickaAction(type=CAST_SPELL, spell=spell, payment=payment, target=target, extra=extra)


def snap(element: int, payment: list[MagickaPayment], target: MagickaTarget, extra: int = 0) -> MagickaAction:
    return MagickaAction(
        type=CAST_SNAP, element=MagickaElement.ValueType(element), payment=payment, target=target, extra=extra
    )


def play(state: MagickaState, seat: int, action: MagickaAction) -> MagickaState:
    """Apply an action after checking it is among the legal ones (payments listed in canonical order)."""
    ordered = sorted(action.payment, key=lambda p: (p.kind, p.element))
    del action.payment[:]
    action.payment.extend(ordered)
    assert action in GAME.legal_actions(state, seat), GAME.describe(state, action)
    return GAME.apply(state, seat, action)[0]


def end_turn(state: MagickaState, seat: int) -> MagickaState:
    state = play(state, seat, MagickaAction(type=END_TURN))
    while state.phase == 2:  # discarding down to the hand limit
        state = play(state, seat, GAME.legal_actions(state, seat)[0])
    return state


# ----- setup and turns ----------------------------------------------------------------------------------------------


def test_setup_deals_five_elements_three_spells_and_twenty_health() -> None:
    """'Deal five (5) Element cards and three (3) Spell cards to each Wizard.' 'Wizards start with 20 points of
    Health.' 'At the beginning of each Turn, Wizard draws two (2) Element cards and one (1) Spell card.'"""
    state = new(4)
    assert [len(w.elements) for w in state.wizards] == [7, 5, 5, 5]
    assert [len(w.spells) for w in state.wizards] == [4, 3, 3, 3]
    assert all(w.health == 20 for w in state.wizards)
    assert len(GAME.cards(state)) == 90 + 34 + 12


def test_play_proceeds_clockwise_and_each_turn_draws() -> None:
    """'Step 5: Turn Ends. Play proceeds to Wizard's left (clockwise).'"""
    state = end_turn(new(3), 0)
    assert state.turn == 1 and list(state.header.pending.seats) == [1]
    assert (len(state.wizards[1].elements), len(state.wizards[1].spells)) == (7, 4)
    state = end_turn(state, 1)
    assert state.turn == 2


def test_hand_limit_discards_at_end_of_turn() -> None:
    """'Maximum Hand Size of 10 cards. Discard excess cards at END of Turn.'"""
    state = new()
    give(state, 0, [E_FIRE] * 9, [FIRE_BOLT] * 3)
    state = play(state, 0, MagickaAction(type=END_TURN))
    assert state.phase == 2 and list(state.header.pending.seats) == [0]
    assert all(a.type == DISCARD for a in GAME.legal_actions(state, 0))
    state = play(state, 0, MagickaAction(type=DISCARD, kinds=[E_FIRE]))
    state = play(state, 0, MagickaAction(type=DISCARD, kinds=[FIRE_BOLT]))
    assert state.turn == 1 and len(state.wizards[0].elements) + len(state.wizards[0].spells) == 10


def test_empty_deck_reshuffles_discards() -> None:
    """'When a card deck (Element, Spell or Mayhem) runs out of cards, simply reshuffle the Discarded cards.'"""
    state = new()
    state.element_discard.extend(state.element_deck)
    del state.element_deck[:]
    state = end_turn(state, 0)
    assert len(state.wizards[1].elements) == 7 and state.element_deck_size > 0 and not state.element_discard[:-2]


# ----- exchanges ----------------------------------------------------------------------------------------------------


def test_exchange_discards_first_then_draws_every_replacement() -> None:
    """'Discard 1 Spell card to Receive 2 Element cards.' 'all exchange cards must be Discarded BEFORE drawing
    replacement cards. No piecemeal exchanging!!!'"""
    state = new()
    give(state, 0, [E_FIRE, E_FIRE, E_LIGHTNING], [FIRE_BOLT, ICE_SHARD])
    state = play(state, 0, MagickaAction(type=TRADE_SPELL_FOR_ELEMENTS, kinds=[ICE_SHARD]))
    assert state.owed_elements == 2 and len(state.wizards[0].elements) == 3
    bolt = cast(FIRE_BOLT, pay((E_FIRE, FIRE), (E_FIRE, FIRE), (E_LIGHTNING, LIGHTNING)), at(1))
    assert bolt not in GAME.legal_actions(state, 0)
    with pytest.raises(IllegalActionError, match="piecemeal"):
        GAME.apply(state, 0, bolt)
    state = play(state, 0, MagickaAction(type=DRAW_REPLACEMENTS))
    assert len(state.wizards[0].elements) == 5 and not state.exchange_open


def test_exchanges_only_at_the_beginning_of_the_turn() -> None:
    """'All Card Exchanges ... occur at the BEGINNING of a Wizard's Turn.'"""
    state = new()
    give(state, 0, [E_WATER, E_WATER, E_FIRE], [ICE_SHARD])
    state = play(state, 0, snap(WATER, pay((E_WATER, WATER), (E_WATER, WATER)), at(1)))
    trade = MagickaAction(type=TRADE_SPELL_FOR_ELEMENTS, kinds=[ICE_SHARD])
    assert trade not in GAME.legal_actions(state, 0)
    with pytest.raises(IllegalActionError, match="BEGINNING"):
        GAME.apply(state, 0, trade)


# ----- casting and paying -------------------------------------------------------------------------------------------


def test_fire_bolt_with_raging_fire_and_limitless_lightning() -> None:
    """'Fire Bolt could be Cast using one (1) Raging Fire Element card (worth 2 Fire) and one (1) Limitless
    Lightning Element card (worth 2 Lightning). However, one of the Lightning Elements ... will vanish.'"""
    state = new()
    give(state, 0, [RAGING_FIRE, LIMITLESS_LIGHTNING, E_LIGHTNING], [FIRE_BOLT])
    state = play(state, 0, cast(FIRE_BOLT, pay((RAGING_FIRE, FIRE), (LIMITLESS_LIGHTNING, LIGHTNING)), at(1)))
    assert state.wizards[1].health == 17
    assert [kind_of(c) for c in state.wizards[0].elements] == [E_LIGHTNING]  # the spare Lightning is gone


def test_unneeded_elements_are_refused_and_cards_never_split() -> None:
    """'Element cards CANNOT be split between 2 Spells' and 'DO NOT Over Cook the Magicka!': a card whose Elements
    are not needed is not part of a legal payment."""
    state = new()
    give(state, 0, [RAGING_FIRE, E_FIRE, E_LIGHTNING, E_LIGHTNING], [FIRE_BOLT])
    wasteful = cast(FIRE_BOLT, pay((RAGING_FIRE, FIRE), (E_LIGHTNING, LIGHTNING), (E_LIGHTNING, LIGHTNING)), at(1))
    with pytest.raises(IllegalActionError, match="element cost"):
        GAME.apply(state, 0, wasteful)
    short = cast(FIRE_BOLT, pay((E_FIRE, FIRE), (E_LIGHTNING, LIGHTNING)), at(1))
    with pytest.raises(IllegalActionError, match="element cost"):
        GAME.apply(state, 0, short)


def _reference_payments(needs: dict[Element, int], hand: dict[int, int]) -> tuple[Payment, ...]:
    """The payment search as first written: Element by Element (in Element order), each Element's cards chosen as a
    multiset of kinds (by kind) from what the earlier Elements left, every card needed (RULES.md, D3)."""
    found: list[Payment] = []

    def choose(elements: list[Element], left: dict[int, int], done: list[tuple[int, Element]]) -> None:
        if not elements:
            found.append(tuple(sorted(done)))
            return
        element, need = elements[0], needs[elements[0]]
        kinds = [k for k in sorted(left) if left[k] > 0 and element in ELEMENT_BY_KIND[k].elements]

        def grow(start: int, picked: list[int], total: int) -> None:
            if total >= need:
                values = [ELEMENT_BY_KIND[k].value for k in picked]
                if total == need or (total == need + 1 and all(v == 2 for v in values)):
                    rest = dict(left)
                    for k in picked:
                        rest[k] -= 1
                    choose(elements[1:], rest, done + [(k, element) for k in picked])
                return
            for i in range(start, len(kinds)):
                if picked.count(kinds[i]) < left[kinds[i]]:
                    grow(i, [*picked, kinds[i]], total + ELEMENT_BY_KIND[kinds[i]].value)

        grow(0, [], 0)

    choose(sorted(e for e, n in needs.items() if n > 0), dict(hand), [])
    return tuple(found)


def test_payments_match_the_search_as_first_written() -> None:
    """`payments` combines each Element's choices and leaves out those that overdraw a combo or Blended card: the
    same payments in the same order as the search Element by Element, over random hands and needs."""
    rand = random.Random(16)
    kinds = list(ELEMENT_BY_KIND)
    for _ in range(6000):
        hand: dict[int, int] = {}
        for _ in range(rand.randint(0, 14)):
            kind = rand.choice(kinds)
            hand[kind] = min(hand.get(kind, 0) + 1, ELEMENT_BY_KIND[kind].count)
        if rand.random() < 0.5:
            spell = rand.choice(list(SPELL_BY_KIND.values()))
            needs = dict(spell.cost)
            if spell.upgrade:
                needs[spell.upgrade] = needs.get(spell.upgrade, 0) + rand.randint(0, 4)
        else:
            needs = {rand.choice(ELEMENTS): rand.randint(1, 4) for _ in range(rand.randint(1, 3))}
        assert payments(needs, hand) == _reference_payments(needs, hand), (needs, hand)


def test_the_legal_action_tables_start_again_without_changing_a_list() -> None:
    """The legal action tables hold their messages by index and start again once they hold `_ACTIONS_LIMIT` of
    them (engine speed, not a rule): the messages made at import stay, and every list is the same after as before,
    its messages applied as before."""
    from engine_core.games.magicka import actions, moves

    rand = random.Random(29)
    seen = []
    for _ in range(4):
        state = GAME.new_game(GameConfig(game="magicka", seats=rand.randint(2, 4)), rand.getrandbits(63), live=True)
        for _ in range(60):
            if GAME.is_terminal(state):
                break
            seat = rand.choice(GAME.pending_seats(state))
            legal = GAME.legal_actions(state, seat)
            seen.append((state, seat, [action.SerializeToString() for action in legal]))
            state, _ = GAME.apply(state, seat, rand.choice(legal))
    assert len(moves._ACTIONS) > actions._STATIC
    actions._forget_actions()
    assert len(moves._ACTIONS) == actions._STATIC and len(moves._INDEX) == actions._STATIC
    for state, seat, listed in seen:
        legal = GAME.legal_actions(state, seat)
        assert [action.SerializeToString() for action in legal] == listed
        after, _ = GAME.apply(state, seat, legal[-1])
        assert after.header.version == state.header.version + 1


def test_combo_and_blended_cards_count_as_one_chosen_element() -> None:
    """'a Fire / Cold card is worth One (1) Fire or One (1) Cold Element.' 'The Blended Element card works like a
    traditional wild card.'"""
    state = new()
    give(state, 0, [FIRE_COLD, BLENDED, E_LIGHTNING], [FIRE_BOLT])
    state = play(state, 0, cast(FIRE_BOLT, pay((FIRE_COLD, FIRE), (BLENDED, FIRE), (E_LIGHTNING, LIGHTNING)), at(1)))
    assert state.wizards[1].health == 17


def test_fire_bolt_four_damage_after_another_fire_spell_and_double_against_wet() -> None:
    """Fire Bolt 'Causes 4 Damage if Cast in the same Turn as another Spell with 2 or more Fire Elements. Also,
    Causes Double Damage to Wet or Frozen Targets.'"""
    state = new()
    give(state, 0, [E_FIRE] * 4 + [E_LIGHTNING, E_WATER, E_WATER], [FIRE_BOLT])
    state = play(state, 0, snap(FIRE, pay((E_FIRE, FIRE), (E_FIRE, FIRE)), at(1)))  # Flickering Flame: 1 damage
    state = play(state, 0, snap(WATER, pay((E_WATER, WATER), (E_WATER, WATER)), at(1)))
    state = play(state, 0, cast(FIRE_BOLT, pay((E_FIRE, FIRE), (E_FIRE, FIRE), (E_LIGHTNING, LIGHTNING)), at(1)))
    assert state.wizards[1].health == 20 - 1 - 8


# ----- snap spells --------------------------------------------------------------------------------------------------


def test_wet_then_zap_then_freeze() -> None:
    """Wet Willy 'Wets Target'; Static Stunner: ''Wet' Target is 'Zapped' for two (2) Damage'; Cold Cube 'Freezes
    Wet Target for 1 Turn'; 'A wet Target remains wet until it is dried, Frozen or Zapped.'"""
    state = new()
    give(state, 0, [E_WATER] * 4 + [E_LIGHTNING] * 2 + [E_COLD] * 2)
    state = play(state, 0, snap(WATER, pay((E_WATER, WATER), (E_WATER, WATER)), at(1)))
    assert state.wizards[1].wet
    state = play(state, 0, snap(LIGHTNING, pay((E_LIGHTNING, LIGHTNING), (E_LIGHTNING, LIGHTNING)), at(1)))
    assert state.wizards[1].health == 18 and not state.wizards[1].wet
    state = play(state, 0, snap(COLD, pay((E_COLD, COLD), (E_COLD, COLD)), at(1)))
    assert not state.wizards[1].frozen  # dry targets do not freeze
    state = play(state, 0, snap(WATER, pay((E_WATER, WATER), (E_WATER, WATER)), at(1)))
    give(state, 0, [E_COLD, E_COLD])
    state = play(state, 0, snap(COLD, pay((E_COLD, COLD), (E_COLD, COLD)), at(1)))
    assert state.wizards[1].frozen and not state.wizards[1].wet


def test_frozen_wizard_skips_the_next_turn() -> None:
    """'A Wizard that is Frozen skips a Turn (skips next Turn).'"""
    state = new(3)
    give(state, 0, [E_WATER, E_WATER, E_COLD, E_COLD])
    state = play(state, 0, snap(WATER, pay((E_WATER, WATER), (E_WATER, WATER)), at(1)))
    state = play(state, 0, snap(COLD, pay((E_COLD, COLD), (E_COLD, COLD)), at(1)))
    state = end_turn(state, 0)
    assert state.turn == 2 and not state.wizards[1].frozen
    assert len(state.wizards[1].elements) == 5  # no draw for the skipped turn


def test_flickering_flame_dries_without_damage() -> None:
    """Flickering Flame 'Dries a Wet Target. Drying a Wet Wizard does NOT cause Damage.'"""
    state = new()
    give(state, 0, [E_WATER, E_WATER, E_FIRE, E_FIRE])
    state = play(state, 0, snap(WATER, pay((E_WATER, WATER), (E_WATER, WATER)), at(1)))
    state = play(state, 0, snap(FIRE, pay((E_FIRE, FIRE), (E_FIRE, FIRE)), at(1)))
    assert state.wizards[1].health == 20 and not state.wizards[1].wet


def test_vitality_tonic_heals_one_plus_each_extra_life() -> None:
    """Vitality Tonic: 'Each additional Life Element added to the Snap Spell increases Healing by +1.'"""
    state = new()
    state.wizards[1].health = 10
    give(state, 0, [E_LIFE] * 4)
    state = play(state, 0, snap(LIFE, pay(*[(E_LIFE, LIFE)] * 4), at(1), extra=2))
    assert state.wizards[1].health == 13


# ----- barriers -----------------------------------------------------------------------------------------------------


def test_barrier_absorbs_two_of_three_damage_and_collapses() -> None:
    """'A Shield Barrier with strength of 2 will absorb 2 points of Damage from a Spell that deals 3 Damage. The
    excess Damage (in this case 1 Damage) is passed onto the Target ... The Barrier is destroyed in the process.'"""
    state = new()
    give(state, 0, [E_SHIELD, E_SHIELD, RAGING_FIRE, E_LIGHTNING], [FIRE_BOLT])
    state = play(state, 0, snap(SHIELD, pay((E_SHIELD, SHIELD), (E_SHIELD, SHIELD)), at(1)))
    assert (state.wizards[1].barrier, state.wizards[1].barrier_max) == (2, 2)
    state = play(state, 0, cast(FIRE_BOLT, pay((RAGING_FIRE, FIRE), (E_LIGHTNING, LIGHTNING)), at(1)))
    assert state.wizards[1].health == 19 and state.wizards[1].barrier == 0


def test_barrier_strength_grows_with_extra_shield_and_repairs_to_its_maximum() -> None:
    """'Each additional Shield Element consumed during INITIAL CASTING adds +1 Barrier strength.' 'Barriers can be
    repaired. 1 Shield Element repairs 1 Damage point up to INITIAL CASTING maximum.'"""
    state = new()
    give(state, 0, [E_SHIELD] * 3 + [E_EARTH, E_EARTH, E_SHIELD, E_SHIELD])
    state = play(state, 0, snap(SHIELD, pay(*[(E_SHIELD, SHIELD)] * 3), at(0), extra=1))
    assert state.wizards[0].barrier == 3
    state = play(state, 0, snap(EARTH, pay((E_EARTH, EARTH), (E_EARTH, EARTH)), at(0)))
    assert (state.wizards[0].barrier, state.wizards[0].health) == (2, 20)
    repairs = [a for a in GAME.legal_actions(state, 0) if a.type == REPAIR]
    assert {a.extra for a in repairs} == {1}  # only 1 point is missing
    state = play(state, 0, MagickaAction(type=REPAIR, payment=pay((E_SHIELD, SHIELD)), target=at(0), extra=1))
    assert state.wizards[0].barrier == 3


def test_barrier_blocks_heal_wet_freeze_zap_and_dry() -> None:
    """'A Target protected with a Shield Barrier CANNOT be Healed, Frozen, Zapped, dried or made wet.'"""
    state = new()
    state.wizards[1].health, state.wizards[1].wet = 15, True
    give(state, 0, [STALWART_SHIELD, E_LIFE, E_LIFE, E_WATER, E_WATER, E_COLD, E_COLD, E_FIRE, E_FIRE])
    state = play(state, 0, snap(SHIELD, pay((STALWART_SHIELD, SHIELD)), at(1)))
    state = play(state, 0, snap(LIFE, pay((E_LIFE, LIFE), (E_LIFE, LIFE)), at(1)))
    state = play(state, 0, snap(COLD, pay((E_COLD, COLD), (E_COLD, COLD)), at(1)))
    state = play(state, 0, snap(FIRE, pay((E_FIRE, FIRE), (E_FIRE, FIRE)), at(1)))  # 1 damage into the barrier
    wizard = state.wizards[1]
    assert (wizard.health, wizard.wet, wizard.frozen, wizard.barrier) == (15, True, False, 1)


def test_barrier_protects_a_creature() -> None:
    """'A Shield Barrier can be used to protect ANY Wizard or ANY Summoned Creature in the game.'"""
    state = new()
    give(state, 0, [E_COLD, E_COLD, E_WATER, E_SHIELD, E_SHIELD], [FRIGID])
    state = play(state, 0, cast(FRIGID, pay((E_COLD, COLD), (E_COLD, COLD), (E_WATER, WATER)), at(0)))
    state = play(state, 0, snap(SHIELD, pay((E_SHIELD, SHIELD), (E_SHIELD, SHIELD)), at(0, 1)))
    assert state.creatures[0].barrier == 2


# ----- creatures ----------------------------------------------------------------------------------------------------


def summon_frigid(state: MagickaState, seat: int, extra_fire: int = 0) -> MagickaState:
    give(state, seat, [E_COLD, E_COLD, E_WATER] + [E_FIRE] * extra_fire, [FRIGID])
    payment = pay((E_COLD, COLD), (E_COLD, COLD), (E_WATER, WATER), *[(E_FIRE, FIRE)] * extra_fire)
    return play(state, seat, cast(FRIGID, payment, at(seat), extra=extra_fire))


def test_frigid_elemental_upgrade_weakness_immunity() -> None:
    """Summon Frigid Elemental 'gains +1 Health for each additional Fire Element used in Cast', is WEAK to Fire and
    Lightning, is IMMUNE to Cold. 'When WEAK, a Creature will suffer Double Damage from Spells containing two (2) or
    more of the Elements'; 'When IMMUNE, a Creature CANNOT be Damaged by Spells containing two (2) or more'."""
    state = summon_frigid(new(), 0, extra_fire=2)
    creature = state.creatures[0]
    assert (creature.attack, creature.health) == (2, 6)
    give(state, 0, [E_LIGHTNING, E_LIGHTNING], [ICE_SHARD])
    state = play(state, 0, snap(LIGHTNING, pay((E_LIGHTNING, LIGHTNING), (E_LIGHTNING, LIGHTNING)), at(0, 1)))
    assert state.creatures[0].health == 4  # 1 damage doubled
    give(state, 0, [E_COLD, E_COLD, E_WATER], [ICE_SHARD])
    state = play(state, 0, cast(ICE_SHARD, pay((E_COLD, COLD), (E_COLD, COLD), (E_WATER, WATER)), at(0, 1)))
    assert state.creatures[0].health == 4  # immune to Cold


def test_creatures_cannot_attack_the_turn_they_are_summoned() -> None:
    """'Summoned Creatures CANNOT attack on the same Turn in which they are Summoned (unless Summoning card says
    otherwise).'"""
    state = summon_frigid(new(), 0)
    assert not [a for a in GAME.legal_actions(state, 0) if a.type == ATTACK]
    state = end_turn(end_turn(state, 0), 1)
    state = play(state, 0, MagickaAction(type=ATTACK, creature=1, target=at(1)))
    assert state.wizards[1].health == 18
    assert not [a for a in GAME.legal_actions(state, 0) if a.type == ATTACK]  # once a turn


def test_storm_elemental_attacks_the_turn_it_is_summoned() -> None:
    """'...unless Summoning card says otherwise': Summon Storm Elemental can attack the turn it is summoned."""
    state = new()
    give(state, 0, [E_LIGHTNING, E_LIGHTNING, E_WATER], [STORM])
    payment = pay((E_LIGHTNING, LIGHTNING), (E_LIGHTNING, LIGHTNING), (E_WATER, WATER))
    state = play(state, 0, cast(STORM, payment, at(0)))
    state = play(state, 0, MagickaAction(type=ATTACK, creature=1, target=at(1)))
    assert state.wizards[1].health == 18


def test_frigid_elemental_freezes_all_opponents_when_destroyed() -> None:
    """Summon Frigid Elemental 'FREEZES ALL Opponents for 1 Turn when destroyed'."""
    state = summon_frigid(new(3), 0)
    state.creatures[0].health = 1
    give(state, 0, [E_EARTH, E_EARTH])
    state = play(state, 0, snap(EARTH, pay((E_EARTH, EARTH), (E_EARTH, EARTH)), at(0, 1)))
    assert not state.creatures
    assert [w.frozen for w in state.wizards] == [False, True, True]


def test_creature_survives_its_wizard_and_can_win() -> None:
    """'Summoned Creatures DO NOT expire when their Summoning Wizard perishes!!!' 'Gameplay proceeds until one
    Wizard (or its Creature!) remains standing.' 'Dead... is... DEAD!'"""
    state = summon_frigid(new(), 0)
    state.wizards[0].health = 1
    give(state, 0, [E_EARTH, E_EARTH])
    state = play(state, 0, snap(EARTH, pay((E_EARTH, EARTH), (E_EARTH, EARTH)), at(0)))
    assert state.wizards[0].dead and not GAME.is_terminal(state)
    assert [a.type for a in GAME.legal_actions(state, 0)] == [END_TURN]  # the creature was summoned this turn
    state = end_turn(state, 0)
    heals = [a for a in GAME.legal_actions(state, 1) if a.target == at(0) and a.type in (CAST_SNAP, CAST_SPELL)]
    assert not heals  # a dead wizard is no target: it cannot be healed or revived
    state = end_turn(state, 1)
    assert state.turn == 0 and {a.type for a in GAME.legal_actions(state, 0)} == {ATTACK, END_TURN}
    state.wizards[1].health = 2
    state = play(state, 0, MagickaAction(type=ATTACK, creature=1, target=at(1)))
    assert GAME.is_terminal(state) and list(state.header.outcome.winners) == [0]


def test_creatures_can_be_healed() -> None:
    """'They can also be Healed in the same way that Wizards are.'"""
    state = summon_frigid(new(), 0)
    state.creatures[0].health = 1
    give(state, 0, [E_LIFE, E_LIFE])
    state = play(state, 0, snap(LIFE, pay((E_LIFE, LIFE), (E_LIFE, LIFE)), at(0, 1)))
    assert state.creatures[0].health == 2


# ----- beams --------------------------------------------------------------------------------------------------------


def test_beam_hits_from_the_casting_turn_and_a_barrier_stops_it() -> None:
    """'Beam Spells take effect over multiple Turns BEGINNING with the Turn in which it is Cast. A Beam Spell is
    disrupted (thereby stopping FUTURE Damage) by a Shield Barrier. However, the Barrier is destroyed.'"""
    state = new()
    give(state, 0, [E_FIRE, E_FIRE, E_ARCANE], [FIRE_BEAM])
    state = play(state, 0, cast(FIRE_BEAM, pay((E_FIRE, FIRE), (E_FIRE, FIRE), (E_ARCANE, ARCANE)), at(1)))
    assert state.wizards[1].health == 18
    give(state, 0, [])
    state = end_turn(state, 0)
    give(state, 1, [E_SHIELD, E_SHIELD])
    state = play(state, 1, snap(SHIELD, pay((E_SHIELD, SHIELD), (E_SHIELD, SHIELD)), at(1)))
    state = end_turn(state, 1)
    assert state.wizards[1].health == 18 and state.wizards[1].barrier == 0 and not state.beams


def test_beam_keeps_hitting_on_later_turns() -> None:
    """'Beam Spells take effect over multiple Turns' — Fire Beam: 2 damage in each of 3 turns."""
    state = new()
    give(state, 0, [E_FIRE, E_FIRE, E_ARCANE], [FIRE_BEAM])
    state = play(state, 0, cast(FIRE_BEAM, pay((E_FIRE, FIRE), (E_FIRE, FIRE), (E_ARCANE, ARCANE)), at(1)))
    for _ in range(3):
        give(state, state.turn, [])
        state = end_turn(state, state.turn)
        give(state, state.turn, [])
        state = end_turn(state, state.turn)
    assert state.wizards[1].health == 14 and not state.beams


# ----- Mayhem -------------------------------------------------------------------------------------------------------


def mayhem_drawn(state: MagickaState) -> int:
    return len(state.mayhem_discard)


def test_maximum_mayhem_draws_for_every_spell_card_spell_but_not_summons_or_snaps() -> None:
    """'Using the Maximum Mayhem gameplay option, EVERY Spell is Mayhemified!!!' 'Summoning Spells CANNOT be
    Mayhemified.' 'Mayhem cards have NO IMPACT on Snap Spells.'"""
    state = summon_frigid(new(mayhem="maximum"), 0)
    give(state, 0, [E_EARTH, E_EARTH, RAGING_FIRE, E_LIGHTNING], [FIRE_BOLT])
    state = play(state, 0, snap(EARTH, pay((E_EARTH, EARTH), (E_EARTH, EARTH)), at(1)))
    assert mayhem_drawn(state) == 0
    state = play(state, 0, cast(FIRE_BOLT, pay((RAGING_FIRE, FIRE), (E_LIGHTNING, LIGHTNING)), at(1)))
    assert mayhem_drawn(state) == 1


@pytest.mark.parametrize(("level", "low", "high"), [("coin", 0.4, 0.6), ("minimum", 0.1, 0.24)])
def test_mayhem_muster_rates(level: str, low: float, high: float) -> None:
    """'The TARGET Wizard flips a coin. If heads then CASTING Wizard draws a Mayhem Card'; Minimum Mayhem: 'Mayhem
    card draw only when a 1 is rolled using a 6-sided die'."""
    drawn = 0
    for seed in range(200):
        state = GAME.new_game(GameConfig(game="magicka", seats=2, options={"mayhem": level}), seed)
        give(state, 0, [RAGING_FIRE, E_LIGHTNING], [FIRE_BOLT])
        state = play(state, 0, cast(FIRE_BOLT, pay((RAGING_FIRE, FIRE), (E_LIGHTNING, LIGHTNING)), at(1)))
        drawn += mayhem_drawn(state)
    assert low * 200 <= drawn <= high * 200


def test_bigger_staff_doubles_at_all_opponents_and_freezes_the_caster() -> None:
    """'Gonna Need a Bigger... STAFF!': 'If Spell is Cast at opponent(s) then it causes Double Effect to ALL
    opponents. Caster is Frozen for 1 Turn'."""
    state = new(3, mayhem="maximum")
    top_mayhem(state, STAFF)
    give(state, 0, [RAGING_FIRE, E_LIGHTNING], [FIRE_BOLT])
    state = play(state, 0, cast(FIRE_BOLT, pay((RAGING_FIRE, FIRE), (E_LIGHTNING, LIGHTNING)), at(1)))
    assert [w.health for w in state.wizards] == [20, 14, 14]
    assert state.wizards[0].frozen


def test_backfire_hits_the_caster() -> None:
    """Mayhem 'can cause a Spell to blow up in your face'."""
    state = new(mayhem="maximum")
    top_mayhem(state, BACKFIRE)
    give(state, 0, [RAGING_FIRE, E_LIGHTNING], [FIRE_BOLT])
    state = play(state, 0, cast(FIRE_BOLT, pay((RAGING_FIRE, FIRE), (E_LIGHTNING, LIGHTNING)), at(1)))
    assert [w.health for w in state.wizards] == [17, 20]


# ----- Spell vs. Spell ----------------------------------------------------------------------------------------------


def fire_bolt_at_1(**opts: str) -> MagickaState:
    state = new(2, mode="spell_vs_spell", **opts)
    give(state, 0, [RAGING_FIRE, E_LIGHTNING], [FIRE_BOLT])
    return play(state, 0, cast(FIRE_BOLT, pay((RAGING_FIRE, FIRE), (E_LIGHTNING, LIGHTNING)), at(1)))


def test_spell_vs_spell_opens_a_response_window_that_times_out_to_pass() -> None:
    """'in Spell vs. Spell a Wizard gains the ability to COUNTER, DISRUPT or REFLECT Spells as they happen.'"""
    state = fire_bolt_at_1()
    assert list(state.header.pending.seats) == [1] and state.header.pending.kind == RESPONSE
    assert GAME.timeout_action(state, 1) == MagickaAction(type=PASS)
    state = play(state, 1, MagickaAction(type=PASS))
    assert state.wizards[1].health == 17 and list(state.header.pending.seats) == [0]


def test_counter_explodes_half_damage_to_both_and_both_draw_mayhem() -> None:
    """'Cold Cube Snap Spell COUNTERS Spell which blows up! Casting Wizard AND Target suffer Spell Effect. BOTH
    take HALF Damage.' 'Countered Spell: Caster AND Target BOTH draw Mayhem cards'."""
    state = fire_bolt_at_1()
    give(state, 1, [E_COLD, E_COLD])
    state = play(state, 1, MagickaAction(type=ANSWER, element=COLD, payment=pay((E_COLD, COLD), (E_COLD, COLD))))
    assert [w.health for w in state.wizards] == [19, 19]  # half of 3, rounded down
    state = fire_bolt_at_1(mayhem="maximum")
    give(state, 1, [E_COLD, E_COLD])
    state = play(state, 1, MagickaAction(type=ANSWER, element=COLD, payment=pay((E_COLD, COLD), (E_COLD, COLD))))
    assert mayhem_drawn(state) == 2


def test_disrupt_fails_the_spell_without_mayhem() -> None:
    """'Flickering Flame DISRUPTS Spell causing it to FAIL rather unspectacularly. Does NOT cause Damage.'
    'Disrupted Spells ... are not subject to Mayhemification.'"""
    state = fire_bolt_at_1(mayhem="maximum")
    give(state, 1, [E_FIRE, E_FIRE])
    state = play(state, 1, MagickaAction(type=ANSWER, element=FIRE, payment=pay((E_FIRE, FIRE), (E_FIRE, FIRE))))
    assert [w.health for w in state.wizards] == [20, 20] and mayhem_drawn(state) == 0


def test_reflect_sends_full_damage_back_and_magicka_tennis() -> None:
    """'Cold Cube + Shield REFLECTS Spell. Causes FULL Damage to Caster and ZERO Damage to Target.' 'a Reflected
    Spell can also be Countered, Disrupted or Reflected (again) by the NEW Target Wizard... like a game of Magicka
    tennis!'"""
    state = fire_bolt_at_1()
    give(state, 1, [E_COLD, E_COLD, E_SHIELD])
    reflect = pay((E_COLD, COLD), (E_COLD, COLD), (E_SHIELD, SHIELD))
    state = play(state, 1, MagickaAction(type=ANSWER, element=COLD, payment=reflect))
    assert list(state.header.pending.seats) == [0] and state.cast.reflected
    give(state, 0, [E_COLD, E_COLD, E_SHIELD])
    state = play(state, 0, MagickaAction(type=ANSWER, element=COLD, payment=reflect))
    assert list(state.header.pending.seats) == [1]
    state = play(state, 1, MagickaAction(type=PASS))
    assert [w.health for w in state.wizards] == [20, 17]  # back, and back again


def test_reflected_spell_draws_mayhem_for_the_new_target_only() -> None:
    """'Reflected Spell: Only NEW Target draws a Mayhem card.'"""
    state = fire_bolt_at_1(mayhem="minimum")
    give(state, 1, [E_COLD, E_COLD, E_SHIELD])
    state = play(
        state,
        1,
        MagickaAction(type=ANSWER, element=COLD, payment=pay((E_COLD, COLD), (E_COLD, COLD), (E_SHIELD, SHIELD))),
    )
    state = play(state, 0, MagickaAction(type=PASS))
    assert mayhem_drawn(state) == 1


def test_spells_without_two_of_one_element_cannot_be_answered() -> None:
    """'Fury of the Wizard does NOT contain 2 of the same Element, so it cannot be Countered, Disrupted or
    Reflected.'"""
    state = new(mode="spell_vs_spell")
    give(state, 0, [E_FIRE, E_COLD, E_LIGHTNING, E_EARTH, E_ARCANE], [FURY])
    payment = pay((E_FIRE, FIRE), (E_COLD, COLD), (E_LIGHTNING, LIGHTNING), (E_EARTH, EARTH), (E_ARCANE, ARCANE))
    state = play(state, 0, cast(FURY, payment, at(1)))
    assert state.wizards[1].health == 14 and list(state.header.pending.seats) == [0]


def test_spellmageddon_has_no_response_window() -> None:
    """'In Spellmageddon Snap Spells CANNOT be Cast AT a Wizard's Spell.'"""
    state = new()
    give(state, 0, [RAGING_FIRE, E_LIGHTNING], [FIRE_BOLT])
    state = play(state, 0, cast(FIRE_BOLT, pay((RAGING_FIRE, FIRE), (E_LIGHTNING, LIGHTNING)), at(1)))
    assert state.wizards[1].health == 17 and list(state.header.pending.seats) == [0]


def test_counter_option_any_lets_an_opposed_single_element_counter() -> None:
    """Decision D13: with counter=pair (default) Baby Boulder (Earth) cannot counter Fire Bolt (1 Lightning);
    counter=any lets it."""
    for option, answerable in (("pair", False), ("any", True)):
        state = fire_bolt_at_1(counter=option)
        give(state, 1, [E_EARTH, E_EARTH])
        answers = [a for a in GAME.legal_actions(state, 1) if a.type == ANSWER]
        assert bool(answers) is answerable


# ----- limits, bots -------------------------------------------------------------------------------------------------


def test_round_limit_ends_the_game_on_health() -> None:
    """Platform bound (RULES.md D1): after the round limit the standing wizard with the most Health wins."""
    state = new(round_limit="50")
    state.turns_taken = 100
    state.wizards[0].health = 12
    give(state, 0, [])
    state = end_turn(state, 0)
    assert GAME.is_terminal(state) and list(state.header.outcome.winners) == [1]


def test_sample_world_conserves_cards_and_keeps_own_hand() -> None:
    state = fire_bolt_at_1()
    view = GAME.view(state, 1)
    world = GAME.sample_world(view, 1, new_rng(5))
    assert Counter(GAME.cards(world)) == Counter(GAME.cards(state)) == Counter(range(len(CATALOGUE.kind_of)))
    assert list(world.wizards[1].elements) == list(state.wizards[1].elements)
    assert len(world.wizards[0].elements) == len(state.wizards[0].elements)


def test_heuristic_bot_beats_random_and_finishes() -> None:
    """The heuristic level plays legal moves to the end and beats a random player most of the time."""
    wins = 0
    for seed in range(20):
        state = GAME.new_game(GameConfig(game="magicka", seats=2), seed)
        rand, bot_rng = random.Random(seed), new_rng(seed)
        while not GAME.is_terminal(state):
            seat = GAME.pending_seats(state)[0]
            legal = GAME.legal_actions(state, seat)
            if seat == seed % 2:
                action = GAME.heuristic_action(GAME.view(state, seat), seat, legal, bot_rng)
            else:
                action = rand.choice(legal)
            state, _ = GAME.apply(state, seat, action)
        wins += (seed % 2) in state.header.outcome.winners
    assert wins >= 14


# ----- the words a player reads (issue 32) --------------------------------------------------------------------------

FIREBALL = 101
EARTH_CARD, FIRE_CARD, LIFE_CARD = 3, 0, 5  # single Element kinds, in ELEMENTS order


def test_a_fireball_without_two_fire_says_it_needs_fire_and_fire() -> None:
    """A Fireball sat in hand a whole game, never castable, and nothing said why: now its note names the Elements the
    hand lacks, and once the hand holds them the note is gone and the cast is offered."""
    state = new()
    seat = state.turn
    give(state, seat, elements=[EARTH_CARD, LIFE_CARD], spells=[FIREBALL])
    (fireball,) = state.wizards[seat].spells
    assert GAME.card_notes(state, seat) == {fireball: "needs Fire and Fire"}
    give(state, seat, elements=[], spells=[FIREBALL])
    assert GAME.card_notes(state, seat) == {state.wizards[seat].spells[0]: "needs Fire, Fire and Earth"}
    give(state, seat, elements=[FIRE_CARD, FIRE_CARD, EARTH_CARD], spells=[FIREBALL])
    assert GAME.card_notes(state, seat) == {}
    other = 1 - seat
    give(state, other, elements=[FIRE_CARD, FIRE_CARD, EARTH_CARD], spells=[FIREBALL])
    assert GAME.card_notes(state, other) == {state.wizards[other].spells[0]: "not your turn"}


def test_a_cast_at_yourself_says_so_and_warns_when_it_hurts() -> None:
    """Magicka offered casting at yourself with no hint: the label says "at yourself", with a warning for damage."""
    state = new()
    seat = state.turn
    give(
        state, seat, elements=[FIRE_CARD, FIRE_CARD, EARTH_CARD, LIFE_CARD, LIFE_CARD], spells=[FIREBALL, HEALING_LIGHT]
    )
    labels = [GAME.describe(state, a) for a in GAME.legal_actions(state, seat)]
    assert "cast Fireball at yourself (it hurts you!) with Fire as Fire, Fire as Fire, Earth as Earth" in labels
    assert f"cast Fireball at seat {1 - seat} with Fire as Fire, Fire as Fire, Earth as Earth" in labels
    assert "cast Healing Light at yourself with Life as Life, Life as Life" in labels
    assert "cast Baby Boulder (1 damage) at yourself (it hurts you!) with Earth as Earth, Earth as Earth" not in labels
    assert (
        f"cast Vitality Tonic (heals 1, +1 for each extra Life) at seat {1 - seat} with Life as Life, Life as Life"
        in labels
    )


def test_seats_are_named_seat_n_in_every_text() -> None:
    """The log said "wizard 0" while the seat bar showed names: every text now says "seat N" (clients put the name)."""
    state = new()
    seat = state.turn
    assert state.header.pending.prompt == f"seat {seat}: exchange, cast, attack or end the turn"
    _, events = GAME.apply(state, seat, MagickaAction(type=END_TURN))
    assert all("wizard" not in e.text for e in events)
    assert not seat_word_faults(GAME.render(GAME.view(state, seat), seat))  # "Wizards:", never "wizard 0"
