"""The terminal client's words and menus, from real games' legal actions (no server needed)."""

from __future__ import annotations

import random

from manaforge.v1.common_pb2 import GameConfig, Outcome

from engine_core import find_game
from gateway.cli.table import MENU_SIZE, _kind, as_sentence, menu, result_in_words


def test_results_in_words_for_each_seat_and_a_spectator() -> None:
    two = Outcome(finished=True, winners=[0], scores=[24, 6], reason="the deck ran out")
    names = {0: "ann (seat 0)", 1: "seat 1"}
    assert result_in_words(two, 0, names) == "you won, 24 to 6 (the deck ran out)"
    assert result_in_words(two, 1, names) == "you lost: ann (seat 0) won, 6 to 24 (the deck ran out)"
    assert result_in_words(two, -1, names) == "ann (seat 0) won, 24 to 6 (the deck ran out)"
    shared = Outcome(finished=True, winners=[0, 2], scores=[3, 1, 3], reason="")
    assert result_in_words(shared, 2) == "you shared the win with seat 0; scores: seat 0 3, seat 1 1, you 3"
    assert result_in_words(Outcome(finished=True, reason="a draw")) == "nobody won (a draw)"
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
