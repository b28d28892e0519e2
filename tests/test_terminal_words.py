"""The terminal client's words and menus, from real games' legal actions (no server needed)."""

from __future__ import annotations

import random

from manaforge.v1 import gateway_pb2 as gw
from manaforge.v1.common_pb2 import GameConfig, Outcome

from engine_core import GAMES, find_game
from gateway.cli.table import MENU_SIZE, _kind, as_sentence, menu, result_in_words
from gateway.cli.words import in_names, plain_markdown, seat_names


def test_results_in_words_for_each_seat_and_a_spectator() -> None:
    two = Outcome(finished=True, winners=[0], scores=[24, 6], reason="the deck ran out")
    names = {0: "ann (seat 0)", 1: "seat 1"}
    assert result_in_words(two, 0, names) == "you won, 24 to 6 (the deck ran out)"
    assert result_in_words(two, 1, names) == "you lost: ann (seat 0) won, 6 to 24 (the deck ran out)"
    assert result_in_words(two, -1, names) == "ann (seat 0) won, 24 to 6 (the deck ran out)"
    shared = Outcome(finished=True, winners=[0, 2], scores=[3, 1, 3], reason="")
    assert result_in_words(shared, 2) == "you shared the win with seat 0; scores: seat 0 3, seat 1 1, you 3"
    assert result_in_words(Outcome(finished=True, reason="a draw")) == "nobody won (a draw)"
    standing = "seat 0 (or its creature) is the last one standing"
    last = Outcome(finished=True, winners=[0], scores=[11, 0], reason=standing)
    assert result_in_words(last, 0, names) == "you won, 11 to 0 (you (or your creature) are the last one standing)"
    assert as_sentence("you won, 24 to 6") == "You won, 24 to 6."
    assert as_sentence("ann (seat 0) won") == "ann (seat 0) won."  # a name is written as its player wrote it


def first_long_turn(game_name: str, seats: int) -> list[tuple[int, str, object]]:
    """(index, text, kind) of the first legal-action list longer than a menu, in a seeded random playout."""
    game = find_game(game_name)
    state = game.new_game(GameConfig(game=game_name, seats=seats), 7)
    rng = random.Random(7)
    while not game.is_terminal(state):
        seat = game.pending_seats(state)[0]
        legal = game.legal_actions(state, seat)
        if len(legal) > MENU_SIZE:
            return [(i, game.describe(state, action), _kind(action)) for i, action in enumerate(legal)]
        state, _ = game.apply(state, seat, rng.choice(legal))
    raise AssertionError(f"{game_name}: no turn with more than {MENU_SIZE} choices")


def test_long_lists_come_in_steps_that_reach_every_action_once() -> None:
    # ManaSurge lists one choice per set of identical cards: a long list comes with a hand grown past five (two seats)
    for game, seats in (("magicka", 2), ("mana_burn", 3), ("manasurge", 2), ("manufactory", 2)):
        items = first_long_turn(game, seats)
        reached: list[int] = []
        steps = 0
        pending = [menu(items)]
        while pending:
            choices = pending.pop()
            steps += 1
            assert 1 < len(choices) <= max(MENU_SIZE, len({kind for _, _, kind in items})), (game, choices)
            for choice in choices:
                if len(choice.actions) == 1:
                    reached.append(choice.actions[0])
                else:
                    assert f"({len(choice.actions)} choices" in choice.label, choice
                    assert "…" in choice.label or "choices, alike)" in choice.label, choice  # what they differ in
                    pending.append(menu([item for item in items if item[0] in choice.actions]))
        assert sorted(reached) == [i for i, _, _ in items], game  # each legal action exactly once
        assert steps > 1, game


def test_every_seat_is_said_by_its_players_name_and_your_own_as_you() -> None:
    seats = [
        gw.Seat(seat=0, kind=gw.SEAT_KIND_HUMAN, name="ann"),
        gw.Seat(seat=1, kind=gw.SEAT_KIND_BOT, name="bot 1 (heuristic)", bot_level="heuristic"),
        gw.Seat(seat=2, kind=gw.SEAT_KIND_BOT, name="bot 2 (random)", bot_level="random"),
        gw.Seat(seat=3, kind=gw.SEAT_KIND_HUMAN, name="player"),
        gw.Seat(seat=4, kind=gw.SEAT_KIND_HUMAN, name="player"),
        gw.Seat(seat=5, kind=gw.SEAT_KIND_OPEN),
    ]
    names = seat_names(gw.Table(seats=seats))
    assert names == {0: "ann", 1: "bot 1", 2: "bot 2", 3: "player (seat 3)", 4: "player (seat 4)", 5: "seat 5"}
    assert seat_names(gw.Table(seats=[seats[0], gw.Seat(seat=1, kind=gw.SEAT_KIND_BOT, name="bot (random)")])) == {
        0: "ann",
        1: "the bot",
    }
    # "seat N" in any engine text: the name; the person's own seat "you" / "your", its verb agreeing
    assert in_names("seat 0 discarded Fireball. seat 1 is next", names, me=0) == "You discarded Fireball. Bot 1 is next"
    assert in_names("seat 0 is wet; seat 2's turn", names, me=0) == "You are wet; bot 2's turn"
    assert in_names("art: seat 0, words: seat 1", names, me=1) == "art: ann, words: you"
    assert in_names("seat 0 has 3 cards", names) == "ann has 3 cards"  # a spectator: names only, as written
    assert in_names("seat 9 left; seats 1-2", names) == "seat 9 left; seats 1-2"  # no such seat: left as it is
    # an aside between a seat and its verb (Magicka's end): "its" is the person's own "your", the verb agrees
    standing = "seat 0 (or its creature) is the last one standing"
    assert in_names(standing, names, me=0) == "You (or your creature) are the last one standing"
    assert in_names(standing, names, me=1) == "ann (or its creature) is the last one standing"
    # R&D's card in the making, said to the designer and the writer
    assert in_names("Card 1 of 4: seat 1 copies a part from the booster", names, me=1).endswith(
        "you copy a part from the booster"
    )
    assert in_names("seat 1 writes its name and flavor text", names, me=1) == "You write its name and flavor text"
    passed = "the Caster Token passed to seat 1 (fewest stones)"  # an aside with no verb after it stays as written
    assert in_names(passed, names, me=1) == "the Caster Token passed to you (fewest stones)"


def test_a_how_to_play_page_reads_as_plain_text() -> None:
    page = (
        "# How to play X\n\n## The goal\nHold **one of each** of the\n`ten` cards.\n\n- a *first* point\n- a second\n"
    )
    assert plain_markdown(page, 40) == [
        "HOW TO PLAY X",
        "=============",
        "",
        "The goal",
        "--------",
        "Hold one of each of the ten cards.",
        "",
        "  - a first point",
        "  - a second",
    ]
    for game in GAMES:  # every game's page: headings set apart, no markdown marks left, lines that fit
        lines = plain_markdown(game.how_to_play(), 80)
        assert lines[0] == f"HOW TO PLAY {game.info.title.upper()}", lines[0]
        assert all(len(line) <= 80 and "**" not in line and "`" not in line for line in lines), game.info.name


def test_a_bot_accounts_seat_is_named_as_one() -> None:
    seats = [
        gw.Seat(seat=0, kind=gw.SEAT_KIND_HUMAN, name="ann", player_id="a1"),
        gw.Seat(seat=1, kind=gw.SEAT_KIND_HUMAN, name="robo", player_id="b2", bot_account=True),
    ]
    assert seat_names(gw.Table(seats=seats)) == {0: "ann", 1: "robo (bot account)"}
