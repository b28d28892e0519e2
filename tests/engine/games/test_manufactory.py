"""Mishra's Manufactory: one scenario per rule, each citing the rulebook (seeds/002, first game), and exact scoring
examples on hand-made states. Section names: GET READY, LET'S PLAY, TO WIN."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest
from manaforge.v1.cards_pb2 import MagicCard
from manaforge.v1.common_pb2 import GameConfig
from manaforge.v1.games.manufactory_pb2 import ManufactoryAction, ManufactoryState

from engine_core.cards import find_set, open_packs
from engine_core.conformance import card_refs
from engine_core.errors import IllegalActionError, MalformedActionError, NotYourTurnError
from engine_core.game import set_pending
from engine_core.games.manufactory import GAME
from engine_core.games.manufactory.cards import COLOR_OF_GROUP, card_groups, draft_of
from engine_core.games.manufactory.rules import PROMPT, collected
from engine_core.games.manufactory.scoring import (
    GROUPS,
    SECOND_STILL_SCORES,
    color_points,
    final_points,
    group_bonus,
    winners,
)
from engine_core.rng import new_rng

W, U, B, R, G, C = (COLOR_OF_GROUP[group] for group in GROUPS)


def card(name: str, colors: str = "", mv: int = 1, types: str = "Creature") -> MagicCard:
    return MagicCard(name=name, colors=list(colors), mana_value=mv, types=types.split())


def land(name: str) -> MagicCard:
    return card(name, "", 0, "Land")


def new_game(seats: int = 2, seed: int = 1, options: Mapping[str, str] | None = None) -> ManufactoryState:
    return GAME.new_game(GameConfig(game="manufactory", seats=seats, options=options or {}), seed)


def scenario(
    cards: Sequence[MagicCard],
    *,
    seats: int = 2,
    belt: Sequence[int] = (),
    deck: Sequence[int] = (),
    groups: Mapping[int, Mapping[str, Sequence[int]]] | None = None,
    to_move: int = 0,
    options: Mapping[str, str] | None = None,
) -> ManufactoryState:
    """A hand-made state: `cards` get ids 0..n-1; `deck` lists ids bottom to top; `groups` {seat: {"W": ids}}."""
    state = new_game(seats, options=options)
    del state.catalogue[:]
    for card_id, face in enumerate(cards):
        face.id = card_id
        state.catalogue.append(face)
    state.deck[:] = deck
    state.deck_size = len(deck)
    state.belt[:] = belt
    for player in state.players:
        for pile in player.groups:
            del pile.cards[:]
    for seat, by_group in (groups or {}).items():
        for group, ids in by_group.items():
            state.players[seat].groups[GROUPS.index(group)].cards.extend(ids)
    set_pending(state, [to_move], prompt=PROMPT)
    return state


def draft(state: ManufactoryState, seat: int, card_id: int, color: int, discard: int | None = None) -> ManufactoryState:
    action = ManufactoryAction(card=card_id, color=color)  # type: ignore[arg-type]
    if discard is not None:
        action.discard = discard
    new, _ = GAME.apply(state, seat, action)
    return new


def group_of(state: ManufactoryState, seat: int, group: str) -> list[int]:
    return list(state.players[seat].groups[GROUPS.index(group)].cards)


# Five plain cards on a belt and deck: ids 0-3 on the belt (front first), 4 on top of the deck.
BELT_CARDS = [card("Aeronaut", "W"), card("Air Marshal", "U"), card("Locust", "B"), card("Blast-Runner", "R")]


def five_card_state(groups: Mapping[int, Mapping[str, Sequence[int]]] | None = None) -> ManufactoryState:
    cards = [*BELT_CARDS, card("Courser", "G", 5), card("Kept", "W", 2)]
    return scenario(cards, belt=[0, 1, 2, 3], deck=[4], groups=groups)


# ----- GET READY ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_one_booster_per_player_shuffled_together(seats: int) -> None:
    # GET READY: "Open one booster for each player, remove all cards without Magic card backs, and shuffle the rest
    # together." The card pool yields Magic cards only: the game holds exactly the players' boosters.
    state = new_game(seats, seed=5)
    packs = open_packs(find_set("builtin"), new_rng(5), seats)
    assert len(state.catalogue) == len(packs) == 15 * seats
    assert sorted(c.name for c in state.catalogue) == sorted(c.name for c in packs)
    assert [c.name for c in state.catalogue] != [c.name for c in packs]  # ids do not follow the pack order
    assert [c.id for c in state.catalogue] == list(range(15 * seats))
    assert sorted([*state.deck, *state.belt]) == list(range(15 * seats))


def test_four_cards_revealed_as_the_conveyor_belt() -> None:
    # GET READY: "Reveal four cards in a row stretching from the deck. These form the conveyor belt."
    state = new_game(3, seed=9)
    assert len(state.belt) == 4
    assert state.deck_size == len(state.deck) == 45 - 4
    spectator = GAME.view(state, None)
    assert list(spectator.belt) == list(state.belt)
    assert set(state.belt) <= {c.id for c in spectator.catalogue}


def test_first_player_is_random() -> None:
    # GET READY: "Randomly determine who goes first."
    firsts = {new_game(4, seed=seed).first_seat for seed in range(40)}
    assert firsts == {0, 1, 2, 3}
    state = new_game(4, seed=3)
    assert list(state.header.pending.seats) == [state.first_seat]


# ----- LET'S PLAY --------------------------------------------------------------------------------------------------


def test_front_cards_are_free() -> None:
    # LET'S PLAY: "The two cards at the front of the line are free"
    state = five_card_state()
    after = draft(state, 0, 1, U)
    assert group_of(after, 0, "U") == [1]
    assert not after.discards
    with pytest.raises(IllegalActionError, match="front of the line"):
        draft(five_card_state(groups={0: {"W": [5]}}), 0, 0, W, discard=5)


def test_back_cards_cost_a_collected_card() -> None:
    # LET'S PLAY: "a player must discard a card they've already collected to draft a card from the back of the line"
    state = five_card_state(groups={0: {"W": [5]}})
    with pytest.raises(IllegalActionError, match="back of the line"):
        draft(state, 0, 2, B)
    with pytest.raises(IllegalActionError, match="already collected"):
        draft(state, 0, 2, B, discard=0)  # a belt card is not collected
    after = draft(state, 0, 2, B, discard=5)
    assert group_of(after, 0, "W") == []
    assert group_of(after, 0, "B") == [2]
    assert list(after.discards) == [5]


def test_without_a_collected_card_only_the_front_can_be_drafted() -> None:
    # LET'S PLAY: the back of the line needs a card "already collected": with none, only the front two are legal.
    state = five_card_state()
    assert sorted(a.card for a in GAME.legal_actions(state, 0)) == [0, 1]
    with_one = five_card_state(groups={0: {"W": [5]}})
    back = [a for a in GAME.legal_actions(with_one, 0) if a.card in (2, 3)]
    assert [(a.card, a.discard) for a in back] == [(2, 5), (3, 5)]


def test_cards_slide_forward_and_the_deck_refills_the_back() -> None:
    # LET'S PLAY: "Cards then slide forward to fill in the gap, and a card from the deck is added to the back of
    # the line."
    after = draft(five_card_state(), 0, 0, W)
    assert list(after.belt) == [1, 2, 3, 4]
    assert after.deck_size == 0
    # card 3 was at the back; now at the front, it is free.
    assert {a.card for a in GAME.legal_actions(after, 1)} == {1, 2}


def test_the_last_cards_slide_to_the_front_and_are_free() -> None:
    # LET'S PLAY: with the deck empty nothing refills the back, so the belt shrinks from the back: the last two
    # cards are always at the front (decision, RULES.md).
    state = five_card_state(groups={0: {"W": [5]}, 1: {"U": []}})
    state.deck[:] = []
    state.deck_size = 0
    state.belt[:] = [0, 1, 2]
    after = draft(state, 0, 0, W)
    assert list(after.belt) == [1, 2]
    assert all(not a.HasField("discard") for a in GAME.legal_actions(after, 1))


def test_drafted_cards_are_grouped_by_colour_face_up() -> None:
    # LET'S PLAY: "Drafted cards are kept face up in front of each player, grouped by color (including colorless.)"
    cards = [card("Scrapwork Cohort", "", 4, "Artifact Creature"), card("Air Marshal", "U"), card("x", "B"), card("y")]
    state = scenario(cards, belt=[0, 1, 2, 3])
    assert card_groups(state.catalogue[0]) == ("C",)
    assert card_groups(state.catalogue[1]) == ("U",)
    with pytest.raises(IllegalActionError, match="declare a colour"):
        draft(state, 0, 1, W)
    after = draft(draft(state, 0, 0, C), 1, 1, U)
    rival_view = GAME.view(after, 1)
    assert group_of(rival_view, 0, "C") == [0]
    assert {0, 1} <= card_refs(rival_view)


def test_lands_are_wild() -> None:
    # LET'S PLAY: "Lands are wild (they count as any color, including colorless)"
    state = scenario([land("Plains"), card("a", "W"), card("b", "U"), card("c", "B")], belt=[0, 1, 2, 3])
    assert sorted(a.color for a in GAME.legal_actions(state, 0) if a.card == 0) == [W, U, B, R, G, C]
    assert group_of(draft(state, 0, 0, G), 0, "G") == [0]


def test_multicolored_card_declares_one_of_its_colours() -> None:
    # LET'S PLAY: "a multicolored card can be any of its colors. When you draft a wild or multicolored card, declare
    # its color and place it in the corresponding group."
    state = scenario([card("Tawnos", "WU", 3), card("a", "W"), card("b", "U"), card("c", "B")], belt=[0, 1, 2, 3])
    assert sorted(a.color for a in GAME.legal_actions(state, 0) if a.card == 0) == [W, U]
    assert group_of(draft(state, 0, 0, U), 0, "U") == [0]
    with pytest.raises(IllegalActionError, match="declare a colour"):
        draft(state, 0, 0, R)
    with pytest.raises(MalformedActionError, match="declare a colour"):
        GAME.apply(state, 0, ManufactoryAction(card=0))


def test_only_belt_cards_can_be_drafted() -> None:
    # LET'S PLAY: "each player drafts one card from the conveyor belt"
    with pytest.raises(IllegalActionError, match="conveyor belt"):
        draft(five_card_state(), 0, 4, G)  # the top of the deck


def test_play_passes_clockwise() -> None:
    # LET'S PLAY: "Play then passes clockwise." (seat numbers run clockwise)
    state = scenario([card(str(i), "W") for i in range(8)], seats=3, belt=[0, 1, 2, 3], deck=[7, 6, 5, 4], to_move=1)
    state = draft(state, 1, 0, W)
    assert list(state.header.pending.seats) == [2]
    state = draft(state, 2, 1, W)
    assert list(state.header.pending.seats) == [0]


def test_live_states_refuse_what_messages_refuse() -> None:
    # The live path (its own apply, shared actions read by identity) names the same rules as the message path.
    state = five_card_state(groups={0: {"W": [5]}})
    refused = [
        (ManufactoryAction(card=0, color=W, discard=5), IllegalActionError, "front of the line"),
        (ManufactoryAction(card=2, color=B), IllegalActionError, "back of the line"),
        (ManufactoryAction(card=2, color=B, discard=0), IllegalActionError, "already collected"),
        (ManufactoryAction(card=4, color=G), IllegalActionError, "conveyor belt"),
        (ManufactoryAction(card=0, color=U), IllegalActionError, "declare a colour"),
        (ManufactoryAction(card=0), MalformedActionError, "declare a colour"),
    ]
    for kind in (state, GAME.live(state)):
        for action, error, rule in refused:
            with pytest.raises(error, match=rule):
                GAME.apply(kind, 0, action)
        with pytest.raises(NotYourTurnError):
            GAME.apply(kind, 1, ManufactoryAction(card=0, color=W))


def test_shared_actions_are_read_as_their_fields_say() -> None:
    # apply reads a legal action (shared between calls) by its identity: the same as reading a copy's fields.
    state = GAME.new_game(GameConfig(game="manufactory", seats=3), 4, live=True)
    while not GAME.is_terminal(state):
        seat = GAME.pending_seats(state)[0]
        legal = GAME.legal_actions(state, seat)
        for action in legal:
            assert draft_of(action) == draft_of(ManufactoryAction.FromString(action.SerializeToString()))
        state, _ = GAME.apply(state, seat, legal[len(legal) // 2])


def test_discards_leave_the_game_face_up() -> None:
    # LET'S PLAY: "discard a card they've already collected" (where discards go: out of the game, in a public pile)
    state = draft(five_card_state(groups={0: {"W": [5]}}), 0, 3, R, discard=5)
    assert list(GAME.view(state, 1).discards) == [5]
    assert 5 not in [c for p in state.players for c in collected(p)]
    assert 5 not in [*state.deck, *state.belt]


def test_the_deck_stays_hidden() -> None:
    # GET READY: the deck is face down; everything drafted, the belt and the discards are public.
    state = new_game(2, seed=4)
    for seat in (None, 0, 1):
        view = GAME.view(state, seat)
        assert not view.deck
        assert view.deck_size == state.deck_size
        assert not card_refs(view) & set(state.deck)
        assert len(view.catalogue) == 4


# ----- TO WIN ------------------------------------------------------------------------------------------------------


def test_game_ends_when_all_cards_have_been_collected() -> None:
    # TO WIN: "The game ends when all cards have been collected."
    state = five_card_state()
    for seat, card_id, color in [(0, 0, W), (1, 1, U), (0, 2, B), (1, 3, R)]:
        assert not GAME.is_terminal(state)
        state = draft(state, seat, card_id, color)
    assert list(state.belt) == [4]
    state = draft(state, 0, 4, G)
    assert GAME.is_terminal(state)
    assert not GAME.legal_actions(state, 1)


def test_largest_group_scores_three_second_largest_two() -> None:
    # TO WIN: "For each color, the player with the largest group of cards of that color gets 3 points, and the
    # player with the second largest group gets 2 points."
    assert color_points([[1, 1, 1], [1, 1], [1]]) == [3, 2, 0]
    assert color_points([[], [4], []]) == [0, 3, 0]  # an empty group is no group


def test_highest_mana_value_breaks_ties() -> None:
    # TO WIN: "The card with the highest mana value breaks ties."
    assert color_points([[4, 1], [5, 0], [2]]) == [2, 3, 0]
    assert color_points([[1], [3, 2], [3]]) == [0, 3, 2]


def test_still_tied_players_get_half_the_points_rounded_up() -> None:
    # TO WIN: "If there is still a tie, each tied player gets half the points, rounded up."
    assert color_points([[3, 1], [3, 2], [1]]) == [2, 2, 0]  # tie for first: 3 / 2 -> 2 each; it fills 2nd place
    assert color_points([[3, 1], [3, 2], [1]], SECOND_STILL_SCORES) == [2, 2, 2]
    assert color_points([[5, 5], [2], [2]]) == [3, 1, 1]  # tie for second: 2 / 2 -> 1 each
    assert color_points([[2], [2], [2], [1]]) == [2, 2, 2, 0]


def test_group_count_bonus() -> None:
    # TO WIN: "four groups = 2 points, five groups = 4 points, six groups = 6 points."
    def groups(n: int) -> list[list[int]]:
        return [[1] if i < n else [] for i in range(6)]

    assert [group_bonus(groups(n)) for n in range(7)] == [0, 0, 0, 0, 2, 4, 6]


# The worked example of RULES.md: three players' final collections (mana values), seat 2 about to take the last card.
EXAMPLE = {
    0: {"W": [3, 2, 1], "U": [2], "R": [4], "C": [5]},
    1: {"W": [5, 1, 1], "U": [3], "B": [2], "G": [1], "R": [1]},
    2: {"W": [1], "U": [3], "B": [2, 2], "G": [4], "R": [1], "C": [1]},
}


def example_state(options: Mapping[str, str] | None = None) -> ManufactoryState:
    cards: list[MagicCard] = []
    groups: dict[int, dict[str, list[int]]] = {}
    for seat, by_group in EXAMPLE.items():
        for group, mana_values in by_group.items():
            if (seat, group) == (2, "G"):
                continue  # the last card, still on the belt
            ids = list(range(len(cards), len(cards) + len(mana_values)))
            cards += [card(f"{group}{mv}", group if group != "C" else "", mv) for mv in mana_values]
            groups.setdefault(seat, {})[group] = ids
    cards.append(card("Gaea's Courser", "G", 4))
    return scenario(cards, seats=3, belt=[len(cards) - 1], groups=groups, to_move=2, options=options)


def test_worked_example_final_score() -> None:
    # TO WIN: white 1:3 0:2; blue 1 and 2 tie (size 1, mv 3): 2 each, nobody second; black 2:3 1:2; red 0:3, 1 and 2
    # tie for second: 1 each; green 2:3 1:2; colorless 0:3 2:2; groups 4/5/6: +2/+4/+6.
    state = draft(example_state(), 2, len(example_state().catalogue) - 1, G)
    assert list(GAME.outcome(state).scores) == [10.0, 14.0, 17.0]
    assert [p.points for p in state.players] == [10, 14, 17]
    assert list(GAME.outcome(state).winners) == [2]


def test_worked_example_when_second_still_scores() -> None:
    # Variant `first_place_tie=second_still_scores`: seat 0's blue group now takes second place (+2).
    state = example_state({"first_place_tie": SECOND_STILL_SCORES})
    state = draft(state, 2, len(state.catalogue) - 1, G)
    assert list(GAME.outcome(state).scores) == [12.0, 14.0, 17.0]


def test_most_points_wins_and_ties_share_or_go_to_most_cards() -> None:
    # TO WIN: "The player with the most points wins!" (a tie for the win: shared, or the variant `win_tie`)
    assert final_points([[[1, 1, 1], [], [], [], [], []], [[], [2], [], [], [], []]]) == [3, 3]
    assert winners([3, 3], [3, 1], "shared") == [0, 1]
    assert winners([3, 3], [3, 1], "most_cards") == [0]
    assert winners([3, 3], [2, 2], "most_cards") == [0, 1]
    assert winners([4, 3], [1, 9], "most_cards") == [0]

    cards = [card("a", "W"), card("b", "W"), card("c", "W"), card("d", "U", 2)]
    tied = scenario(cards, belt=[3], groups={0: {"W": [0, 1, 2]}}, to_move=1)
    assert list(GAME.outcome(draft(tied, 1, 3, U)).winners) == [0, 1]
    tied = scenario(cards, belt=[3], groups={0: {"W": [0, 1, 2]}}, to_move=1, options={"win_tie": "most_cards"})
    assert list(GAME.outcome(draft(tied, 1, 3, U)).winners) == [0]


# ----- bots --------------------------------------------------------------------------------------------------------


def test_sample_world_deals_the_deck_again_and_plays_to_the_end() -> None:
    state = new_game(3, seed=11)
    for _ in range(5):
        seat = GAME.pending_seats(state)[0]
        state, _ = GAME.apply(state, seat, GAME.legal_actions(state, seat)[0])
    view = GAME.view(state, 1)
    world = GAME.sample_world(view, 1, new_rng(3))
    assert sorted(GAME.cards(world)) == sorted(GAME.cards(state))
    assert [c.id for c in world.catalogue] == list(range(len(state.catalogue)))
    assert sorted(world.deck) == sorted(state.deck)
    assert list(world.belt) == list(state.belt)
    assert world.players == state.players
    assert world.header.HasField("rng")
    for card_id in state.belt:
        assert world.catalogue[card_id] == state.catalogue[card_id]
    while not GAME.is_terminal(world):
        seat = GAME.pending_seats(world)[0]
        world, _ = GAME.apply(world, seat, GAME.legal_actions(world, seat)[-1])


def test_heuristic_takes_the_card_worth_the_most() -> None:
    # Seat 1 leads white (mv 2 beats mv 1). Taking the free red card gives seat 0 a red group (3 points) and keeps
    # white second (2): a lead of 5 - 3; the free white card would only win white (3 - 2).
    cards = [
        card("w1", "W", 1),
        card("w2", "W", 2),
        card("red", "R", 1),
        card("white", "W", 1),
        card("b", "B"),
        card("g", "G"),
    ]
    state = scenario(cards, belt=[2, 3, 4, 5], groups={0: {"W": [0]}, 1: {"W": [1]}})
    legal = GAME.legal_actions(state, 0)
    choice = GAME.heuristic_action(GAME.view(state, 0), 0, legal, new_rng(1))
    assert choice in legal
    assert choice.card in (2, 4)  # red or black: each gives a new group of 3 points
