"""What every game says about its cards (issue 32): a catalogue of every card id a view can show, a how-to-play page,
and texts that name seats only as "seat N"."""

from __future__ import annotations

import pytest
from manaforge.v1.common_pb2 import GameConfig

from engine_core import GAMES, find_game
from engine_core.conformance import seat_word_faults

# Every designed card of each game, exactly; booster games' cards are dealt by the seed and carry their own facts.
CATALOGUE_SIZES = {
    "cardbench": 52,
    "mana_burn": 100,  # 8 of each of five creatures, 12 of each of five spells
    "manasurge": 78,  # 60 spell cards, 12 Magic cards, 6 roles (ids 72-77)
    "magicka": 136,  # Element, Spell and Mayhem cards
    "manufactory": 0,
    "blueprints": 0,
    "rnd": 0,
}


@pytest.mark.parametrize("game", GAMES, ids=[g.info.name for g in GAMES])
def test_the_catalogue_covers_every_card_id_with_words(game: object) -> None:
    name = game.info.name  # type: ignore[attr-defined]
    facts = find_game(name).catalogue(GameConfig(game=name))
    assert len(facts) == CATALOGUE_SIZES[name]
    assert [f.id for f in facts] == list(range(len(facts)))
    assert all(f.name and f.kind and f.effect for f in facts)


def test_card_facts_say_cost_effect_and_timing() -> None:
    mana_burn = {f.id: f for f in find_game("mana_burn").catalogue(GameConfig(game="mana_burn"))}
    assert mana_burn[90].name == "Incinerate" and mana_burn[90].effect == (
        "Destroy one creature without Holy Armor, or one Holy Armor."
    )
    assert mana_burn[90].timing.startswith("any time")
    magicka = {f.name: f for f in find_game("magicka").catalogue(GameConfig(game="magicka"))}
    assert magicka["Fireball"].cost == "Fire, Fire and Earth" and magicka["Fireball"].effect.startswith(
        "Deals 4 damage"
    )
    manasurge = find_game("manasurge")
    by_numbers = {n: manasurge.catalogue(GameConfig(game="manasurge", options={"numbers": n})) for n in ("1-8", "1-12")}
    assert by_numbers["1-8"][11].name == "Flying Dagger 8" and by_numbers["1-12"][11].name == "Flying Dagger 12"
    assert by_numbers["1-8"][72].kind == "Role" and by_numbers["1-8"][72].name == "Surgemaster"


def test_every_game_has_a_how_to_play_page_and_rnd_says_first_it_is_cooperative() -> None:
    for game in GAMES:
        page = game.how_to_play()
        assert page.startswith("# How to play") and "## " in page, game.info.name
    first_paragraph = find_game("rnd").how_to_play().split("\n\n")[1]
    assert "cooperative" in first_paragraph


@pytest.mark.parametrize(
    ("text", "faults"),
    [
        ("seat 0 discarded Fireball", []),
        ("cast Fireball at seat 1's Storm Elemental #2", []),
        ("wizard 0 cast Fireball", ["wizard 0"]),
        ("Waiting for seat(s) [1]", ["seat(s)"]),
        ("Seat 2 passed", ["Seat 2"]),
        ("owner 3", ["owner 3"]),
    ],
)
def test_seat_words_are_found(text: str, faults: list[str]) -> None:
    assert seat_word_faults(text) == faults
