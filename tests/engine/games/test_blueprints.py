"""Urza's Blueprints: one scenario per rule, each citing the rulebook (seeds/002, second game: GET READY, LET'S PLAY,
TO WIN, THE LOCATIONS), and the decisions of RULES.md on hand-made states."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TypeAlias

import pytest
from manaforge.v1.cards_pb2 import MagicCard
from manaforge.v1.common_pb2 import GameConfig
from manaforge.v1.games.blueprints_pb2 import BlueprintsAction, BlueprintsBuild, BlueprintsPhase, BlueprintsState

from engine_core.cards import CardSet, builtin_set, parse_mtgjson, register_set
from engine_core.conformance import card_refs
from engine_core.errors import IllegalActionError, InvalidConfigError, MalformedActionError
from engine_core.game import set_pending
from engine_core.games.blueprints import GAME
from engine_core.games.blueprints.locations import MINE, POWER_PLANT, TOWER, Location, assignment, builds, progress
from engine_core.games.blueprints.rules import BUILD, DECK, DISCARD, DISCARD_PILE, DRAW, PROMPTS, built
from engine_core.rng import new_rng

Phase: TypeAlias = BlueprintsPhase.ValueType


def card(name: str, colors: str = "", mv: int = 1, types: str = "Creature", foil: bool = False) -> MagicCard:
    return MagicCard(name=name, colors=list(colors), mana_value=mv, types=types.split(), type_line=types, foil=foil)


def land(name: str = "Plains", foil: bool = False) -> MagicCard:
    return card(name, "", 0, "Land", foil)


def filler(n: int) -> list[MagicCard]:
    """Cards that build nothing together: white creatures of mana value 2."""
    return [card(f"Filler {i}", "W", 2) for i in range(n)]


# Five cards that build the Tower only (mana values 1-5, all red creatures); and one for the Mine only.
TOWER_HAND = [card(f"Red {mv}", "R", mv) for mv in range(1, 6)]
MINE_HAND = [
    card("Bear", "G", 2),
    card("Relic", "", 2, "Artifact"),
    land("Forest"),
    card("Bolt", "R", 2, "Instant"),
    card("Ritual", "B", 2, "Sorcery"),
]


def new_game(seats: int = 2, seed: int = 1, options: Mapping[str, str] | None = None) -> BlueprintsState:
    return GAME.new_game(GameConfig(game="blueprints", seats=seats, options=options or {}), seed)


def scenario(
    hands: Sequence[Sequence[MagicCard]],
    *,
    pile: Sequence[MagicCard] = (),
    deck: Sequence[MagicCard] = (),
    to_move: int = 0,
    phase: Phase = DRAW,
    built_: Mapping[int, Sequence[Location]] | None = None,
    options: Mapping[str, str] | None = None,
) -> BlueprintsState:
    """A hand-made state: ids are given in the order hands, pile (bottom to top), deck (bottom to top)."""
    state = new_game(len(hands), options=options)
    del state.catalogue[:]
    faces = [*(c for hand in hands for c in hand), *pile, *deck]
    for card_id, face in enumerate(faces):
        copy = MagicCard()
        copy.CopyFrom(face)
        copy.id = card_id
        state.catalogue.append(copy)
    next_id = 0
    for player, hand in zip(state.players, hands, strict=True):
        player.hand[:] = range(next_id, next_id + len(hand))
        player.hand_size = len(hand)
        next_id += len(hand)
    state.discard_pile[:] = range(next_id, next_id + len(pile))
    state.seen[:] = state.discard_pile  # every pile card was put there face up
    state.deck[:] = range(next_id + len(pile), len(faces))
    state.deck_size = len(deck)
    for seat, locations in (built_ or {}).items():
        for location in locations:
            state.players[seat].constructions.add(location=location, card_names=["earlier"], turn=0)
    state.phase = phase
    set_pending(state, [to_move], prompt=PROMPTS[phase])
    return state


def act(state: BlueprintsState, seat: int, **choice: object) -> BlueprintsState:
    if "build" in choice:
        choice["build"] = BlueprintsBuild(locations=choice["build"])  # type: ignore[arg-type]
    new, _ = GAME.apply(state, seat, BlueprintsAction(**choice))  # type: ignore[arg-type]
    return new


def names(state: BlueprintsState, ids: Sequence[int]) -> list[str]:
    return [state.catalogue[i].name for i in ids]


# ----- GET READY --------------------------------------------------------------------------------------------------


def test_setup_shuffles_one_booster_per_player_and_deals_five_each() -> None:
    """GET READY: "Open a booster for each player ... Shuffle the remaining cards into a deck and deal five cards
    to each player." """
    for seats in (2, 4, 6):
        state = new_game(seats)
        assert len(state.catalogue) == 15 * seats
        assert [len(player.hand) for player in state.players] == [5] * seats
        assert len(state.deck) == state.deck_size == 15 * seats - 5 * seats
        assert not state.discard_pile and state.phase == DRAW and state.turn == 1


def test_every_card_dealt_is_a_magic_card() -> None:
    """GET READY: "remove any cards without Magic card backs": the boosters hold only Magic cards (no tokens,
    ads or art cards), so nothing is removed."""
    state = new_game(4)
    assert all(face.types and face.name for face in state.catalogue)


def test_a_random_player_goes_first() -> None:
    """GET READY: "Randomly determine who goes first." """
    firsts = {new_game(4, seed).first_seat for seed in range(40)}
    assert firsts == {0, 1, 2, 3}
    state = new_game(4, 5)
    assert list(state.header.pending.seats) == [state.first_seat]


def test_player_count_is_two_to_six() -> None:
    """ "2+ players": the project caps the table at six (RULES.md)."""
    with pytest.raises(InvalidConfigError):
        new_game(7)
    with pytest.raises(InvalidConfigError):
        new_game(1)


def test_a_pool_too_small_to_deal_and_draw_is_refused() -> None:
    """Decision (RULES.md): deck and discard pile can never both be empty at a draw: setup refuses a pool that
    cannot deal five cards to everyone and leave one to draw."""
    cards = [
        {"uuid": f"u{i}", "name": f"Card {i}", "number": str(i), "rarity": "common", "types": ["Instant"]}
        for i in range(3)
    ]
    booster = {"boosters": [{"contents": {"common": 2}, "weight": 1}], "sheets": {"common": {"cards": {"u0": 1}}}}
    tiny = {"data": {"code": "BPTINY", "name": "Tiny", "cards": cards, "booster": {"draft": booster}}}
    register_set(parse_mtgjson(json.dumps(tiny)))
    with pytest.raises(InvalidConfigError) as refused:
        new_game(2, options={"card_set": "BPTINY"})
    assert refused.value.rule == "card pool"


# ----- LET'S PLAY ---------------------------------------------------------------------------------------------------


def test_a_turn_draws_the_top_of_the_deck_then_discards_face_up() -> None:
    """LET'S PLAY: "they draw a card, then discard a card face up. Players may draw ... the top card of the deck"."""
    state = scenario([filler(5), filler(5)], deck=[card("Deep", "U", 7), card("Top", "U", 3)])
    state, events = GAME.apply(state, 0, BlueprintsAction(draw=DECK))
    assert names(state, state.players[0].hand)[-1] == "Top"
    assert state.phase == DISCARD and state.deck_size == 1
    private = [e for e in events if e.HasField("audience")]
    assert [e.audience for e in private] == [0] and "Top" in private[0].text
    assert all("Top" not in e.text for e in events if not e.HasField("audience"))
    state = act(state, 0, discard=state.players[0].hand[0])
    assert names(state, state.discard_pile) == ["Filler 0"]
    assert state.phase == DRAW and list(state.header.pending.seats) == [1]  # play passes to the next player


def test_a_player_may_take_the_top_card_of_the_discard_pile() -> None:
    """LET'S PLAY: "Players may draw either the top card of the deck or the top card of the discard pile." """
    state = scenario([filler(5), filler(5)], pile=[card("Under", "B"), card("Pile top", "B")], deck=filler(3))
    assert {a.draw for a in GAME.legal_actions(state, 0)} == {DECK, DISCARD_PILE}
    state = act(state, 0, draw=DISCARD_PILE)
    assert names(state, state.players[0].hand)[-1] == "Pile top"
    assert names(state, state.discard_pile) == ["Under"] and state.deck_size == 3


def test_an_empty_discard_pile_cannot_be_drawn_from() -> None:
    state = scenario([filler(5), filler(5)], deck=filler(3))
    assert [a.draw for a in GAME.legal_actions(state, 0)] == [DECK]
    with pytest.raises(IllegalActionError) as refused:
        act(state, 0, draw=DISCARD_PILE)
    assert refused.value.rule == "draw"


def test_drawing_from_an_empty_deck_shuffles_the_discard_pile_into_a_new_deck() -> None:
    """LET'S PLAY: "If there are no cards left in the deck when a player tries to draw, shuffle the discard pile to
    form a new deck." """
    state = scenario([filler(5), filler(5)], pile=[card(f"Pile {i}", "G") for i in range(4)])
    state, events = GAME.apply(state, 0, BlueprintsAction(draw=DECK))
    assert "DiscardPileReshuffled" in [e.type for e in events]
    assert not state.discard_pile and state.deck_size == 3 and state.reshuffles == 1
    assert names(state, state.players[0].hand)[-1].startswith("Pile")


def test_the_turn_is_draw_then_discard() -> None:
    state = scenario([filler(5), filler(5)], deck=filler(3))
    with pytest.raises(IllegalActionError) as refused:
        act(state, 0, discard=0)
    assert refused.value.rule == "turn order"
    state = act(state, 0, draw=DECK)
    with pytest.raises(IllegalActionError):
        act(state, 0, draw=DECK)
    with pytest.raises(IllegalActionError) as refused:
        act(state, 0, discard=7)  # seat 1's card
    assert refused.value.rule == "discard"
    with pytest.raises(MalformedActionError):
        GAME.apply(state, 0, BlueprintsAction())


def test_the_card_taken_from_the_pile_may_be_discarded_again_unless_forbidden() -> None:
    """Decision (RULES.md): the rulebook does not forbid discarding the card just taken; option discard_taken."""
    for rule, allowed in (("allowed", True), ("forbidden", False)):
        state = scenario(
            [filler(5), filler(5)], pile=[card("Taken", "U")], deck=filler(2), options={"discard_taken": rule}
        )
        state = act(state, 0, draw=DISCARD_PILE)
        taken = state.players[0].hand[-1]
        assert (BlueprintsAction(discard=taken) in GAME.legal_actions(state, 0)) is allowed
        if allowed:
            assert names(act(state, 0, discard=taken), [10]) == ["Taken"]
        else:
            with pytest.raises(IllegalActionError):
                act(state, 0, discard=taken)


def test_after_discarding_a_hand_that_builds_a_new_location_may_be_revealed() -> None:
    """LET'S PLAY: "After discarding, if a player has all the cards required for a new location ..., they may reveal
    those cards and note they have constructed ... that location. They must then discard all cards in their hand and
    draw a new hand of five cards. Play then passes to the next player." """
    state = scenario([[*TOWER_HAND, card("Extra", "W", 2)], filler(5)], phase=DISCARD, deck=filler(8))
    state = act(state, 0, discard=5)
    assert state.phase == BUILD and list(state.header.pending.seats) == [0]
    assert GAME.legal_actions(state, 0) == [
        BlueprintsAction(build=BlueprintsBuild(locations=[TOWER])),
        BlueprintsAction(keep=True),
    ]
    state, events = GAME.apply(state, 0, BlueprintsAction(build=BlueprintsBuild(locations=[TOWER])))
    assert built(state.players[0]) == {TOWER}
    assert list(state.players[0].constructions[0].card_names) == [c.name for c in TOWER_HAND]
    assert names(state, state.discard_pile) == ["Extra", *(c.name for c in TOWER_HAND)]
    assert len(state.players[0].hand) == 5 and state.deck_size == 3
    assert state.phase == DRAW and list(state.header.pending.seats) == [1]
    assert "LocationBuilt" in [e.type for e in events]


def test_a_player_may_keep_a_hand_that_builds_a_location() -> None:
    """ "they may reveal": revealing is optional."""
    state = scenario([[*TOWER_HAND, card("Extra", "W", 2)], filler(5)], phase=DISCARD, deck=filler(8))
    state = act(act(state, 0, discard=5), 0, keep=True)
    assert not built(state.players[0]) and len(state.players[0].hand) == 5
    assert list(state.header.pending.seats) == [1]


def test_the_card_just_discarded_is_not_part_of_the_reveal() -> None:
    """Decision (RULES.md): "After discarding, if a player has all the cards": the hand after the discard."""
    state = scenario([[*TOWER_HAND, card("Extra", "W", 2)], filler(5)], phase=DISCARD, deck=filler(8))
    state = act(state, 0, discard=4)  # Red 5: the rest no longer builds the Tower
    assert state.phase == DRAW and list(state.header.pending.seats) == [1]


def test_only_a_new_location_may_be_revealed() -> None:
    """LET'S PLAY: "all the cards required for a new location"."""
    state = scenario([[*TOWER_HAND, card("Extra", "W", 2)], filler(5)], phase=DISCARD, built_={0: [TOWER]})
    state = act(state, 0, discard=5)
    assert state.phase == DRAW and list(state.header.pending.seats) == [1]
    state = scenario([TOWER_HAND, filler(5)], phase=BUILD, built_={0: [TOWER]})
    with pytest.raises(IllegalActionError) as refused:
        act(state, 0, build=[TOWER])
    assert refused.value.rule == "build a location"


def test_a_reveal_records_one_location_unless_the_option_says_all() -> None:
    """Decision (RULES.md): "note they have constructed their version of that location" (one); option reveal=all."""
    both = [card("Bear", "G", 1), card("Relic", "", 2, "Artifact"), land("Forest"), card("Bolt", "R", 3, "Instant")]
    both.append(card("Ritual", "B", 4, "Sorcery"))  # five types and five mana values (0-4)
    one = scenario([both, filler(5)], phase=BUILD, deck=filler(6))
    assert {tuple(a.build.locations) for a in GAME.legal_actions(one, 0) if a.HasField("build")} == {(MINE,), (TOWER,)}
    with pytest.raises(IllegalActionError):
        act(one, 0, build=[MINE, TOWER])
    every = scenario([both, filler(5)], phase=BUILD, deck=filler(6), options={"reveal": "all"})
    assert BlueprintsAction(build=BlueprintsBuild(locations=[MINE, TOWER])) in GAME.legal_actions(every, 0)
    assert built(act(every, 0, build=[MINE, TOWER]).players[0]) == {MINE, TOWER}


def test_the_new_hand_after_a_reveal_may_come_from_the_reshuffled_pile() -> None:
    """Decision (RULES.md): the new hand comes from the deck; an empty deck is made again from the discard pile,
    which then holds the revealed hand."""
    state = scenario([TOWER_HAND, filler(5)], phase=BUILD, deck=filler(2))
    state = act(state, 0, build=[TOWER])
    assert len(state.players[0].hand) == 5 and state.reshuffles == 1
    assert state.deck_size + len(state.discard_pile) == 2  # 2 + 5 cards, 5 drawn


# ----- THE LOCATIONS ----------------------------------------------------------------------------------------------


def test_mine_needs_five_different_card_types() -> None:
    """THE LOCATIONS: "Mine: Requires five cards with different card types. (Creature, artifact, land, etc.)" """
    assert builds(MINE_HAND, MINE)
    assert not builds([*MINE_HAND[:4], card("Second creature", "G")], MINE)
    # decision: a card of two types counts as one of them, chosen for the reveal
    artifact_creature = card("Golem", "", 3, "Artifact Creature")
    assert builds([artifact_creature, *MINE_HAND[2:], card("Bear", "G")], MINE)
    assert not builds([artifact_creature, card("Bear", "G"), card("Relic", "", 2, "Artifact"), *MINE_HAND[3:]], MINE)


def test_power_plant_needs_one_card_of_each_colour() -> None:
    """THE LOCATIONS: "Power Plant: Requires one card of each color. (White, blue, black, red, and green.
    Multicolored cards count as one color of your choice. Lands are colorless.)" """
    five = [card(c, c) for c in "WUBRG"]
    assert builds(five, POWER_PLANT)
    assert not builds([*five[:4], card("Another red", "R")], POWER_PLANT)
    assert builds([card("Azorius", "WU"), card("Dimir", "UB"), *five[2:]], POWER_PLANT)  # W from WU, U from UB
    assert not builds([card("Azorius", "WU"), card("Also Azorius", "WU"), card("W2", "W"), *five[3:]], POWER_PLANT)
    assert not builds([land("Plains"), *five[1:]], POWER_PLANT)  # lands are colorless
    assert not builds([card("Relic", "", 2, "Artifact"), *five[1:]], POWER_PLANT)
    assert assignment([card("Azorius", "WU"), *five[:1], *five[2:]], POWER_PLANT)[0] == "U"


def test_tower_needs_five_different_mana_values_with_lands_at_zero() -> None:
    """THE LOCATIONS: "Tower: Requires five cards with different mana values. (Lands have mana value 0.)" """
    assert builds(TOWER_HAND, TOWER)
    assert builds([land(), *TOWER_HAND[:4]], TOWER)
    assert not builds([land(), card("Bone Saw", "", 0, "Artifact"), *TOWER_HAND[:3]], TOWER)
    assert not builds([*TOWER_HAND[:4], card("Another 4", "R", 4)], TOWER)


def test_foils_are_wild() -> None:
    """LET'S PLAY: "Foils are wild and can count as any color, mana value, or card type." """
    foil_land = land("Foil Plains", foil=True)
    assert builds([foil_land, *(card(c, c) for c in "UBRG")], POWER_PLANT)
    assert builds([*MINE_HAND[:4], card("Foil bear", "G", foil=True)], MINE)
    assert builds([*TOWER_HAND[:4], card("Foil 4", "R", 4, foil=True)], TOWER)
    two_foils = [card("F1", "G", 2, foil=True), card("F2", "G", 2, foil=True), *TOWER_HAND[:3]]
    assert all(builds(two_foils, location) is expected for location, expected in ((TOWER, True), (MINE, False)))
    assert progress(two_foils, MINE) == 3  # creatures x3 fill one place, the two foils two more


# ----- TO WIN ------------------------------------------------------------------------------------------------------


def test_the_first_to_build_all_three_locations_wins() -> None:
    """TO WIN: "The first player to construct all three locations wins!" """
    state = scenario([TOWER_HAND, filler(5)], phase=BUILD, built_={0: [MINE, POWER_PLANT], 1: [TOWER]})
    state = act(state, 0, build=[TOWER])
    assert state.header.outcome.finished and list(state.header.outcome.winners) == [0]
    assert list(state.header.outcome.scores) == [3.0, 1.0]
    assert GAME.legal_actions(state, 1) == []


def test_the_round_limit_ends_a_game_nobody_wins() -> None:
    """Decision (RULES.md): a game can loop forever; after `round_limit` rounds the most locations wins, ties share."""
    state = scenario([filler(5), filler(5), filler(5)], phase=DISCARD, to_move=2, built_={0: [TOWER], 2: [MINE]})
    state.turn = 20 * 3
    state.header.config.options["round_limit"] = "20"
    state = act(state, 2, discard=10)
    outcome = state.header.outcome
    assert outcome.finished and list(outcome.winners) == [0, 2] and list(outcome.scores) == [1.0, 0.0, 1.0]
    assert "20 rounds" in outcome.reason


# ----- hidden information, bots --------------------------------------------------------------------------------------


def test_hands_and_deck_are_hidden_and_the_discard_pile_is_public() -> None:
    state = scenario([filler(5), TOWER_HAND], pile=[card("Public", "B")], deck=filler(4))
    view = GAME.view(state, 0)
    assert not view.players[1].hand and view.players[1].hand_size == 5 and not view.deck and view.deck_size == 4
    assert {c.name for c in view.catalogue} == {*(c.name for c in filler(5)), "Public"}
    assert card_refs(view) == {0, 1, 2, 3, 4, 10}
    assert "Red 1" not in GAME.render(view, 0)


def test_a_card_taken_from_the_discard_pile_stays_known_to_every_seat_until_discarded() -> None:
    """The pile is face up: everyone sees which card a player takes, so views keep it in that hand (`known`) and a
    bot's sampled worlds deal it there; once discarded again it is just a pile card."""
    state = scenario([filler(5), TOWER_HAND], pile=[card("Public", "B")], deck=filler(4), to_move=1)
    state = act(state, 1, draw=DISCARD_PILE)
    view = GAME.view(state, 0)
    assert list(view.players[1].known) == [10] and not view.players[1].hand
    assert "Public" in {c.name for c in view.catalogue}
    world = GAME.sample_world(view, 0, new_rng(5))
    assert 10 in world.players[1].hand and sorted(GAME.cards(world)) == sorted(GAME.cards(state))
    state = act(state, 1, discard=10)
    assert not state.players[1].known and state.discard_pile[-1] == 10


def test_cards_reshuffled_into_the_deck_keep_their_public_faces() -> None:
    """The pile was face up: after it becomes the new deck, every seat still knows which cards are in it (not where),
    so views keep their faces and a bot's worlds deal exactly those cards, never fresh ones."""
    pile = [card(f"Pile {i}", "G") for i in range(4)]
    state = act(scenario([filler(5), filler(5)], pile=pile), 0, draw=DECK)  # the pile becomes the deck: 3 left
    view = GAME.view(state, 1)
    assert not view.deck and view.deck_size == 3 and list(view.seen) == [10, 11, 12, 13]
    assert {c.name for c in view.catalogue} >= {"Pile 0", "Pile 1", "Pile 2", "Pile 3"}
    world = GAME.sample_world(view, 1, new_rng(2))
    assert sorted([*world.deck, *world.players[0].hand]) == sorted([*state.deck, *state.players[0].hand])
    assert all(world.catalogue[c].name == state.catalogue[c].name for c in range(10, 14))
    assert card_refs(view) == {5, 6, 7, 8, 9, 10, 11, 12, 13}  # seat 0's hand stays hidden


def test_the_heuristic_builds_takes_useful_pile_cards_and_keeps_its_best_cards() -> None:
    rng = new_rng(1)
    ready = scenario([TOWER_HAND, filler(5)], phase=BUILD)
    assert GAME.heuristic_action(GAME.view(ready, 0), 0, GAME.legal_actions(ready, 0), rng).HasField("build")
    hand = [*TOWER_HAND[:4], card("Dup", "R", 4)]
    state = scenario([hand, filler(5)], pile=[card("Five", "R", 5)], deck=filler(3))
    chosen = GAME.heuristic_action(GAME.view(state, 0), 0, GAME.legal_actions(state, 0), rng)
    assert chosen.draw == DISCARD_PILE
    state = act(state, 0, draw=DISCARD_PILE)
    chosen = GAME.heuristic_action(GAME.view(state, 0), 0, GAME.legal_actions(state, 0), rng)
    assert names(state, [chosen.discard]) == ["Dup"]


def test_sample_world_deals_the_hidden_cards_again_and_plays_to_the_end() -> None:
    state = new_game(3, seed=4)
    for _ in range(7):
        seat = GAME.pending_seats(state)[0]
        state, _ = GAME.apply(state, seat, GAME.legal_actions(state, seat)[0])
    seat = GAME.pending_seats(state)[0]
    view = GAME.view(state, seat)
    world = GAME.sample_world(view, seat, new_rng(9))
    assert sorted(GAME.cards(world)) == sorted(GAME.cards(state))
    assert list(world.players[seat].hand) == list(state.players[seat].hand)
    assert list(world.discard_pile) == list(state.discard_pile)
    assert [len(p.hand) for p in world.players] == [len(p.hand) for p in state.players]
    assert [c.id for c in world.catalogue] == list(range(len(state.catalogue)))
    rng = new_rng(3)
    while not GAME.is_terminal(world):
        s = GAME.pending_seats(world)[0]
        world, _ = GAME.apply(
            world, s, GAME.heuristic_action(GAME.view(world, s), s, GAME.legal_actions(world, s), rng)
        )
    assert world.header.outcome.winners


def test_heuristic_players_finish_real_games_well_inside_the_round_limit() -> None:
    for seed in range(6):
        state = new_game(2 + seed % 5, seed)
        rng = new_rng(seed)
        while not GAME.is_terminal(state):
            s = GAME.pending_seats(state)[0]
            state, _ = GAME.apply(
                state, s, GAME.heuristic_action(GAME.view(state, s), s, GAME.legal_actions(state, s), rng)
            )
        assert "built the Mine, the Power Plant and the Tower" in state.header.outcome.reason
        assert state.turn < 20 * len(state.players)


def test_the_builtin_pool_can_build_every_location() -> None:
    """The pool must make the game winnable: enough colours, types and mana values."""
    pool = builtin_set().cards
    assert len({t for c in pool for t in c.types}) >= 5
    assert {c for card_ in pool for c in card_.colors} == set("WUBRG")
    assert len({c.mana_value for c in pool}) >= 5
    assert isinstance(builtin_set(), CardSet)


def test_location_bits_stay_bounded_for_cards_a_client_makes_up() -> None:
    """The rules service plays any state it is sent: cards with made-up mana values must not grow the table of value
    bits without bound, and a Tower is still told right after the table starts again."""
    from engine_core.games.blueprints import locations

    for start in range(0, 3 * locations.BITS_LIMIT, 5):
        hand = [card(f"c{start + i}", mv=1000 + start + i) for i in range(5)]
        assert locations.new_builds(hand, ()) == [TOWER]
        assert len(locations._BITS) <= locations.BITS_LIMIT + 20
    repeated = [card(f"r{i}", mv=1000 + i % 4) for i in range(5)]  # two cards share a mana value: no Tower
    assert locations.new_builds(repeated, ()) == []
