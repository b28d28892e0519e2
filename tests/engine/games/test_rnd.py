"""Scenario tests of Look at Us, We're R&D. Each cites the rulebook line it checks
(../shared/seeds/002_60d178f8394b15b0.txt, "Look at Us, We're R&D") or the decision in RULES.md it pins down."""

from __future__ import annotations

import pytest
from manaforge.v1.cards_pb2 import MagicCard
from manaforge.v1.common_pb2 import GameConfig
from manaforge.v1.games.rnd_pb2 import RndAction, RndState, RndVote, RndWriting

from engine_core.cards import builtin_set
from engine_core.conformance import card_refs
from engine_core.errors import IllegalActionError, MalformedActionError, NotYourTurnError
from engine_core.game import SIMULTANEOUS
from engine_core.games.rnd import GAME
from engine_core.games.rnd.design import (
    COST,
    LEAST_FUNCTIONAL,
    MOST_FLAVORFUL,
    MOST_POWERFUL,
    POWER_TOUGHNESS,
    TEXT,
    TYPE,
    open_categories,
)
from engine_core.games.rnd.rules import ART, RESULTS, VOTING, WRITING, designers
from engine_core.rng import new_rng

SKETCH = " /\\_/\\\n( o.o )\n > ^ <"


def named(name: str, card_id: int) -> MagicCard:
    template = next(card for card in builtin_set().cards if card.name == name)
    card = MagicCard()
    card.CopyFrom(template)
    card.id = card_id
    return card


def new_table(seats: int = 3, options: dict[str, str] | None = None, seed: int = 1) -> RndState:
    return GAME.new_game(GameConfig(game="rnd", seats=seats, options=options or {}), seed)


def rig(state: RndState, held: MagicCard | str, *pack: MagicCard | str) -> RndState:
    """Replace the pack: the designer holds `held`, the next draws are `pack` in order (then nothing)."""
    cards = [c if isinstance(c, MagicCard) else named(c, 0) for c in (held, *pack)]
    for card_id, card in enumerate(cards):
        card.id = card_id
    del state.faces[:], state.pack[:], state.discard[:], state.drawn[:]
    state.faces.extend(cards)
    state.card_count = len(cards)
    state.drawn.append(0)
    state.pack.extend(reversed(range(1, len(cards))))
    state.pack_size = len(state.pack)
    state.draws_this_turn = 1
    return state


def act(state: RndState, seat: int, **choice: object) -> RndState:
    state, _ = GAME.apply(state, seat, RndAction(**choice))  # type: ignore[arg-type]
    return state


def design_of(state: RndState) -> object:
    return state.designs[state.round]


def play_to_voting(seats: int, options: dict[str, str] | None = None) -> RndState:
    state = new_table(seats, options)
    while state.phase != VOTING:
        seat = state.header.pending.seats[0]
        state = act(state, seat, **_fields(GAME.legal_actions(state, seat)[0]))
    return state


def _fields(action: RndAction) -> dict[str, object]:
    choice = action.WhichOneof("choice")
    assert choice is not None
    return {choice: getattr(action, choice)}


# ----- roles -------------------------------------------------------------------------------------------------------


def test_one_booster_is_opened_and_shuffled_face_down() -> None:
    # "Open a booster, remove all non-Magic cards and shuffle the rest." (option packs=2 opens a second)
    state = new_table()
    assert state.card_count == 15 and len(state.pack) == 14 and len(state.drawn) == 1
    assert new_table(options={"packs": "2"}).card_count == 30
    assert list(new_table(seed=1).pack) != list(new_table(seed=2).pack)
    view = GAME.view(state, 0)
    assert list(view.pack) == [] and [face.id for face in view.faces] == list(state.drawn)


@pytest.mark.parametrize("seats", [3, 4, 8])
def test_every_seat_is_artist_once_and_writer_once(seats: int) -> None:
    # "Rotate roles until everyone has had the chance to be an artist and writer."
    state = new_table(seats)
    assert len(state.designs) == seats
    assert sorted(d.artist for d in state.designs) == list(range(seats))
    assert sorted(d.writer for d in state.designs) == list(range(seats))
    assert all(d.artist != d.writer for d in state.designs)


def test_three_players_one_designer_many_players_take_turns_from_the_writers_left() -> None:
    # "Have one player be an artist and another be a writer, then the remaining players will be designers."
    assert designers(3, 0) == [2]
    assert designers(8, 0) == [2, 3, 4, 5, 6, 7]
    assert designers(8, 7) == [1, 2, 3, 4, 5, 6]


def test_designers_take_turns() -> None:
    # "The designers take turns filling out the different parts of a card"
    state = rig(new_table(4), "Koilos Roc", "Lat-Nam Adept", "Veteran's Powerblade")
    assert list(state.header.pending.seats) == [2]
    state = act(state, 2, copy=COST)
    assert list(state.header.pending.seats) == [3]
    state = act(state, 3, copy=TYPE)
    assert list(state.header.pending.seats) == [2]
    with pytest.raises(NotYourTurnError):
        act(state, 3, copy=TEXT)


# ----- copying categories ------------------------------------------------------------------------------------------


def test_copy_takes_the_category_from_the_drawn_card() -> None:
    # "they draw a random card from the pack, pick one of the categories, and copy it from the card"
    state = rig(new_table(), "Koilos Roc", "Disenchant")
    state = act(state, 2, copy=COST)
    design = state.designs[0]
    assert design.mana_cost == "{4}{U}"
    assert [(c.category, c.designer, c.source) for c in design.copies] == [(COST, 2, "Koilos Roc")]
    assert state.faces[state.drawn[0]].name == "Disenchant"  # the next turn's card is drawn face up
    assert list(state.discard) == [0]


def test_a_card_missing_the_category_cannot_give_it() -> None:
    # "(if it's missing the category you want, draw another)"
    state = rig(new_table(), "Disenchant", "Koilos Roc")
    with pytest.raises(IllegalActionError) as refused:
        act(state, 2, copy=TEXT)
    assert refused.value.rule == "draw another"
    state = act(state, 2, draw_another=True)
    assert state.faces[state.drawn[0]].name == "Koilos Roc"
    assert state.designs[0].copies == []


def test_draw_another_is_refused_for_a_card_with_every_open_category() -> None:
    # "(if it's missing the category you want, draw another)": Koilos Roc has cost, type and text
    state = rig(new_table(), "Koilos Roc", "Disenchant")
    assert RndAction(draw_another=True) not in GAME.legal_actions(state, 2)
    with pytest.raises(IllegalActionError, match="every open category"):
        act(state, 2, draw_another=True)


def test_each_category_is_filled_once() -> None:
    # "The designers continue until these are all filled in" (each once)
    state = rig(new_table(), "Koilos Roc", "Lat-Nam Adept")
    state = act(state, 2, copy=COST)
    with pytest.raises(IllegalActionError, match="already filled"):
        act(state, 2, copy=COST)


def test_power_and_toughness_only_for_a_type_that_needs_it() -> None:
    # "Power & Toughness (if the card has a type that requires it)"
    state = rig(new_table(), "Koilos Roc", "Disenchant", "Veteran's Powerblade")
    with pytest.raises(IllegalActionError, match="requires it"):
        act(state, 2, copy=POWER_TOUGHNESS)
    state = act(state, 2, copy=COST)
    state = act(state, 2, copy=TYPE)  # Instant: no power and toughness box
    state = act(state, 2, copy=TEXT)
    assert state.phase == ART
    design = state.designs[0]
    assert (design.type_line, design.text, design.power, design.complete) == ("Instant", "Equip", "", True)


def test_a_creature_type_opens_power_and_toughness() -> None:
    # "Power & Toughness (if the card has a type that requires it)"
    state = rig(new_table(), "Lat-Nam Adept", "Koilos Roc", "Disenchant")
    state = act(state, 2, copy=TYPE)
    assert open_categories(state.designs[0]) == [COST, TEXT, POWER_TOUGHNESS]
    state = act(state, 2, copy=POWER_TOUGHNESS)
    assert (state.designs[0].power, state.designs[0].toughness) == ("3", "3")


def test_a_vehicle_needs_power_and_toughness() -> None:
    # "Power & Toughness (if the card has a type that requires it)": a vehicle has a P/T box without being a creature
    vehicle = MagicCard(name="Test Walker", mana_cost="{3}", type_line="Artifact — Vehicle", types=["Artifact"])
    vehicle.subtypes.append("Vehicle")
    vehicle.power, vehicle.toughness = "4", "4"
    state = rig(new_table(), vehicle, "Koilos Roc")
    state = act(state, 2, copy=TYPE)
    assert POWER_TOUGHNESS in open_categories(state.designs[0])


def test_a_card_with_no_open_category_is_put_aside_at_once() -> None:
    # "(if it's missing the category you want, draw another)": with only P/T open, cards without it are put aside
    state = rig(new_table(), "Lat-Nam Adept", "Koilos Roc", "Disenchant", "Plains", "Recommission", "Air Marshal")
    state = act(state, 2, copy=TYPE)
    state = act(state, 2, copy=TEXT)
    state, events = GAME.apply(state, 2, RndAction(copy=COST))
    assert [e.type for e in events].count("CardPutAside") == 2  # Plains and Recommission have no power/toughness
    assert state.faces[state.drawn[0]].name == "Air Marshal"
    assert [a.copy for a in GAME.legal_actions(state, 2)] == [POWER_TOUGHNESS]


def test_when_the_pack_runs_out_the_drawn_cards_are_shuffled_back() -> None:
    # RULES.md decision: "draw another" from an empty pack shuffles the put-aside cards into a new pack
    state = rig(new_table(), "Koilos Roc", "Disenchant", "Recommission")
    state = act(state, 2, copy=COST)
    state = act(state, 2, draw_another=True)  # Disenchant aside, Recommission drawn: the pack is empty
    assert (len(state.pack), sorted(state.discard)) == (0, [0, 1])
    state, events = GAME.apply(state, 2, RndAction(draw_another=True))
    assert "PackReshuffled" in [e.type for e in events]
    assert sorted(GAME.cards(state)) == [0, 1, 2]
    assert state.faces[state.drawn[0]].name in ("Koilos Roc", "Disenchant")


def test_draw_another_stops_after_a_whole_pack_in_one_turn() -> None:
    # RULES.md decision: a designer who has looked at as many cards as the pack holds this turn must copy
    state = rig(new_table(), "Disenchant", "Recommission")
    state = act(state, 2, draw_another=True)
    assert state.draws_this_turn == state.card_count == 2
    assert [a.WhichOneof("choice") for a in GAME.legal_actions(state, 2)] == ["copy", "copy"]
    with pytest.raises(IllegalActionError, match="whole pack"):
        act(state, 2, draw_another=True)


def test_a_category_no_card_has_is_left_blank() -> None:
    # RULES.md decision: with the built-in pool "card text" is keywords; a pack without any leaves the text blank
    state = rig(new_table(), "Disenchant", "Lat-Nam Adept", "Recommission")
    state, events = GAME.apply(state, 2, RndAction(copy=COST))
    assert "CategoryLeftBlank" in [e.type for e in events]
    assert TEXT not in open_categories(state.designs[0])
    state = act(state, 2, copy=TYPE)
    state = act(state, 2, copy=POWER_TOUGHNESS)
    assert state.phase == ART
    assert [(c.category, c.designer) for c in state.designs[0].copies if c.designer == -1] == [(TEXT, -1)]


def test_card_text_is_the_rules_text_of_an_imported_card() -> None:
    # Issue 6: "with an imported set file it is the card's text"
    imported = MagicCard(name="Imported", mana_cost="{1}", type_line="Artifact", types=["Artifact"])
    imported.text, imported.keywords[:] = "Draw a card.", ["Ignored"]
    state = rig(new_table(), imported, "Koilos Roc")
    state = act(state, 2, copy=TEXT)
    assert state.designs[0].text == "Draw a card."


# ----- art and words -----------------------------------------------------------------------------------------------


def at_art(seats: int = 3) -> RndState:
    state = rig(new_table(seats), "Koilos Roc", "Disenchant", "Veteran's Powerblade")
    for category in (COST, TYPE, TEXT):
        state = act(state, state.header.pending.seats[0], copy=category)
    return state


def test_artist_then_writer_finish_the_card() -> None:
    # "Next, the artist draws ... Finally, the writer gives the card a name and flavor text"
    state = at_art()
    assert list(state.header.pending.seats) == [0]
    state = act(state, 0, art=SKETCH)
    assert (state.phase, list(state.header.pending.seats)) == (WRITING, [1])
    state = act(state, 1, writing=RndWriting(name="Roc Lobster", flavour="It flies. Mostly."))
    assert (state.designs[0].name, state.designs[0].art) == ("Roc Lobster", SKETCH)
    assert state.round == 1 and list(state.header.pending.seats) == [0]  # card 2: seat 0 designs


@pytest.mark.parametrize(
    ("art", "rule"),
    [
        ("bell\x07", "text characters"),
        ("\x1b[31mred", "text characters"),
        ("\n".join(["x"] * 9), "text lines"),
        ("x" * 33, "text width"),
        ("   \n  ", "text required"),
        ("a" * 5000, "text length"),
    ],
)
def test_art_is_bounded_printable_text(art: str, rule: str) -> None:
    # Issue 6: "The artist submits the art (free text or an ASCII sketch, bounded in size) ... Free text is validated"
    with pytest.raises(MalformedActionError) as refused:
        act(at_art(), 0, art=art)
    assert refused.value.rule == rule


def test_markup_is_stored_and_shown_as_plain_text() -> None:
    # Issue 6: "stored and shown to others as plain data, never markup"
    state = act(at_art(), 0, art="<b>bold</b>")
    state = act(state, 1, writing=RndWriting(name="<script>x</script>", flavour="[red]not red[/red]"))
    assert (state.designs[0].art, state.designs[0].name) == ("<b>bold</b>", "<script>x</script>")
    while state.phase != VOTING:
        seat = state.header.pending.seats[0]
        state = act(state, seat, **_fields(GAME.legal_actions(state, seat)[0]))
    shown = GAME.render(GAME.view(state, 2), 2)
    assert "| <b>bold</b>" in shown and "| 1. <script>x</script>" in shown and "| [red]not red[/red]" in shown


@pytest.mark.parametrize(
    ("name", "flavour", "rule"),
    [
        ("x" * 31, "ok", "text length"),
        ("two\nlines", "ok", "text characters"),
        ("", "ok", "text required"),
        ("Fine", "y" * 161, "text length"),
        ("Fine", "tab\there", "text characters"),
    ],
)
def test_name_and_flavour_are_validated(name: str, flavour: str, rule: str) -> None:
    # Issue 6: "the writer names the card and writes its flavour text. Free text is validated (length, characters)"
    state = act(at_art(), 0, art=SKETCH)
    with pytest.raises(MalformedActionError) as refused:
        act(state, 1, writing=RndWriting(name=name, flavour=flavour))
    assert refused.value.rule == rule


def test_the_card_being_built_is_rendered_as_a_card() -> None:
    # Issue 6: "The terminal client shows the card being built as a card."
    state = rig(new_table(), "Koilos Roc", "Disenchant")
    state = act(state, 2, copy=COST)
    shown = GAME.render(GAME.view(state, 0), 0)
    assert "| (name: the writer's)      {4}{U} |" in shown
    assert "(card type: to be copied)" in shown and "seat 2 drew Disenchant {1}{W} (Instant)" in shown
    frame = [line for line in shown.splitlines() if line.startswith(("|", "+"))]
    assert len({len(line) for line in frame}) == 1  # every frame line the same width


# ----- voting ------------------------------------------------------------------------------------------------------


def test_voting_is_simultaneous_and_secret_until_all_are_in() -> None:
    # "Players vote to nominate their favorites"; issue 6: "Votes are secret and simultaneous (revealed when all
    # are in)"
    state = play_to_voting(3)
    assert state.header.pending.kind == SIMULTANEOUS and list(state.header.pending.seats) == [0, 1, 2]
    state = act(state, 1, vote=RndVote(award=MOST_POWERFUL, design=2))
    assert list(GAME.view(state, 1).ballots[1].votes) == [RndVote(award=MOST_POWERFUL, design=2)]
    for seat in (0, 2, None):
        view = GAME.view(state, seat)
        assert list(view.ballots[1].votes) == [] and view.ballots[1].votes_cast == 1
        shown = GAME.render(view, seat)
        assert "seat 1 1 of 3" in shown and "most powerful:" not in shown
    secret = RndAction(vote=RndVote(award=MOST_POWERFUL, design=2))
    # The label names the design (the voter must tell the choices apart); it reaches only the voter's own legal
    # actions, and the action log, which is published once the game is finished (services/tables/watching.py `log`).
    assert GAME.describe(state, secret).startswith("vote in secret for card 3, ")


def test_one_vote_per_award() -> None:
    # "vote ... for the following categories: most powerful, least functional, and most flavorful" (one each)
    state = act(play_to_voting(3), 0, vote=RndVote(award=MOST_POWERFUL, design=1))
    with pytest.raises(IllegalActionError) as refused:
        act(state, 0, vote=RndVote(award=MOST_POWERFUL, design=2))
    assert refused.value.rule == "one vote per award"
    assert len(GAME.legal_actions(state, 0)) == 2 * 3


def vote_all(state: RndState, ballots: dict[int, tuple[int, int, int]]) -> RndState:
    for seat, picks in ballots.items():
        for award, design in zip((MOST_POWERFUL, LEAST_FUNCTIONAL, MOST_FLAVORFUL), picks, strict=True):
            state = act(state, seat, vote=RndVote(award=award, design=design))
    return state


def test_results_list_the_winners_of_each_award() -> None:
    # "present your created cards. Players vote ... most powerful, least functional, and most flavorful."
    state = vote_all(play_to_voting(3), {0: (1, 2, 0), 1: (1, 0, 0), 2: (1, 2, 2)})
    assert state.phase == RESULTS and GAME.is_terminal(state)
    assert [(r.award, list(r.designs), r.votes) for r in state.results] == [
        (MOST_POWERFUL, [1], 3),
        (LEAST_FUNCTIONAL, [2], 2),
        (MOST_FLAVORFUL, [0], 2),
    ]
    assert list(GAME.outcome(state).winners) == [0, 1, 2]  # RULES.md: the table wins together
    shown = GAME.render(GAME.view(state, None), None)
    assert f"  most powerful: {state.designs[1].name} (2), 3 votes" in shown.splitlines()
    assert "  seat 0: most powerful: card 2; least functional: card 3; most flavorful: card 1" in shown
    assert all(len(GAME.view(state, 2).ballots[s].votes) == 3 for s in range(3))  # revealed to all


def test_ties_are_shared_by_default() -> None:
    # RULES.md decision on ties: every card tied for the most votes wins the award
    state = vote_all(play_to_voting(3), {0: (0, 0, 0), 1: (1, 1, 1), 2: (2, 2, 2)})
    assert [list(r.designs) for r in state.results] == [[0, 1, 2]] * 3


def test_ties_random_picks_one() -> None:
    # ties=random: one of the tied cards, drawn with the game's rng
    state = vote_all(play_to_voting(3, {"ties": "random"}), {0: (0, 0, 0), 1: (1, 1, 1), 2: (2, 2, 2)})
    assert [len(r.designs) for r in state.results] == [1, 1, 1]


def test_self_votes_forbidden_keeps_you_off_your_own_cards() -> None:
    # RULES.md decision on self-votes (option self_votes=forbidden): not the card you drew or wrote
    state = play_to_voting(3, {"self_votes": "forbidden"})
    # seat 0 was the artist of card 0 and the writer of card 2 (round 2's writer is seat 0)
    assert {a.vote.design for a in GAME.legal_actions(state, 0)} == {1}
    with pytest.raises(IllegalActionError, match="self-votes"):
        act(state, 0, vote=RndVote(award=MOST_POWERFUL, design=0))
    assert {a.vote.design for a in GAME.legal_actions(play_to_voting(3), 0)} == {0, 1, 2}


# ----- bots, worlds, lengths ---------------------------------------------------------------------------------------


def test_heuristic_prefers_card_text_and_plays_whole_games() -> None:
    # Issue 6: "Bots take part (category choices, template names and flavour) so a table can be filled."
    state = rig(new_table(), "Koilos Roc", "Disenchant")
    view = GAME.view(state, 2)
    choice = GAME.heuristic_action(view, 2, GAME.legal_actions(state, 2), new_rng(1))
    assert choice.copy == TEXT
    for seed in range(20):
        state = new_table(3 + seed % 6, seed=seed)
        bot_rng = new_rng(seed)
        while not GAME.is_terminal(state):
            seat = state.header.pending.seats[0]
            action = GAME.heuristic_action(GAME.view(state, seat), seat, GAME.legal_actions(state, seat), bot_rng)
            state, _ = GAME.apply(state, seat, action)  # every bot text passes the free-text checks
        assert all(d.name and d.flavour and d.art for d in state.designs)


def test_sample_world_conserves_cards_and_keeps_what_the_seat_saw() -> None:
    # Game protocol: sample_world deals the unseen cards again; the world plays to the end
    state = act(play_to_voting(4), 1, vote=RndVote(award=MOST_POWERFUL, design=0))
    for seed in range(5):
        world = GAME.sample_world(GAME.view(state, 2), 2, new_rng(seed))
        assert sorted(GAME.cards(world)) == sorted(GAME.cards(state))
        assert card_refs(GAME.view(world, 2)) == card_refs(GAME.view(state, 2))
        assert world.ballots[1].votes_cast == len(world.ballots[1].votes) == 1
        while not GAME.is_terminal(world):
            seat = world.header.pending.seats[0]
            world, _ = GAME.apply(world, seat, GAME.legal_actions(world, seat)[0])


def test_a_three_player_game_is_three_cards_and_nine_votes() -> None:
    # "Once each player has had a chance to play each role, present your created cards": 3 players, 3 cards
    state = play_to_voting(3)
    assert state.round == 2 and all(d.complete and d.name for d in state.designs)
    state = vote_all(state, {0: (0, 1, 2), 1: (0, 1, 2), 2: (0, 1, 2)})
    assert sum(b.votes_cast for b in state.ballots) == 9 and GAME.is_terminal(state)


def test_every_vote_label_names_its_design() -> None:
    """R&D's first vote button read "(award most powerful)" while the others named their design: every vote now
    names the card it is for (number, name, who drew and wrote it), and no two votes of a seat read the same."""
    state = play_to_voting(3)
    labels = [GAME.describe(state, action) for action in GAME.legal_actions(state, 0)]
    assert len(labels) == len(set(labels)) == 9
    for number, design in enumerate(state.designs):
        made = f"art by seat {design.artist}, words by seat {design.writer}"
        for award in ("most powerful", "least functional", "most flavorful"):
            assert f"vote in secret for card {number + 1}, {design.name!r} ({made}), as {award}" in labels
