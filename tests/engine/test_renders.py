"""Each game's text (`render`: what SeatView.text carries, what the terminal prints) draws the game as its players
look at it: exact lines from fixed seeds. Seats appear only as "seat N" (clients put names there), and no counter
of the engine's own bookkeeping reaches the text."""

from __future__ import annotations

import random
from typing import Any

from manaforge.v1.common_pb2 import GameConfig

from engine_core import find_game
from engine_core.conformance import seat_word_faults
from engine_core.game import Game, wrap


def played(name: str, seats: int, seed: int, steps: int, **options: str) -> tuple[Game[Any, Any], Any]:
    """The game after `steps` seeded random actions (each by the first pending seat)."""
    game = find_game(name)
    state = game.new_game(GameConfig(game=name, seats=seats, options=options), seed)
    rng = random.Random(seed)
    for _ in range(steps):
        seat = game.pending_seats(state)[0]
        state, _ = game.apply(state, seat, rng.choice(game.legal_actions(state, seat)))
    return game, state


def text(game: Game[Any, Any], state: Any, seat: int | None) -> list[str]:
    shown = game.render(game.view(state, seat), seat)
    assert not seat_word_faults(shown), seat_word_faults(shown)
    assert all(len(line) <= 100 for line in shown.splitlines()), max(shown.splitlines(), key=len)
    return shown.splitlines()


def test_mana_burn_draws_the_board_with_every_pawn_and_your_progress_to_the_ten_cards() -> None:
    game, state = played("mana_burn", 4, 7, 143)
    lines = text(game, state, 0)
    assert lines[0] == "MANA BURN · round 3 of 30 · seat 0's turn, then seat 1 · goal: one of each of the ten cards"
    # the pawns, a letter a seat, on their squares of the three paths; the Library and Graveyard between them
    assert lines[1].startswith("LIBRARY · 74 cards · walk in: draw 2") and lines[1].endswith("  @A")
    assert "  AUCTION two cards      TRADE one card             Green is Strong! @C" in lines
    assert "  Major Party            Short Circuit @D           Goblin Riot" in lines
    assert "  MANA BURN @B                                      Tantrum of God" in lines
    assert "GRAVEYARD · top: Giant Growth (12) · stop: take the top card, leave by any path" in lines
    # each player by seat: cards held, the square and what it says, creatures in play
    assert (
        "@B seat 1 · 0 cards · on MANA BURN (The Real World): Put a card from your hand face down on the Mana" in lines
    )
    assert "@C seat 2 · 4 cards · on Green is Strong! (The Game): Take up to 2 Blue cards from the Graveyard" in lines
    assert "     in play: Drudge Skeletons" in lines
    # your own hand and how far it is from the goal
    assert "     seat 0's hand: Drudge Skeletons, Merfolk of the Pearl Trident, Raise Dead" in lines
    assert (
        "     progress: 3 of 10 different cards; missing Benalish Hero, Scryb Sprites, Mons' Goblin Raiders," in lines
    )
    # where the moving pawn can go, with what each square says
    assert lines[-5:] == [
        "seat 0 chooses a path, 3 to go:",
        "  by The Real World: Major Party (Roll: 1-8 draw 2 cards; 9-12 discard 2)",
        "  by The Internet: Short Circuit (Each player puts in 1 card; they are shuffled and dealt back)",
        "  by The Game: Goblin Riot (All creatures in play are shared out again at random)",
        "Mana Burn pile: 1 card face down (Nose Ring of Ma'Ruf takes one)",
    ]
    assert not any("progress" in line or "'s hand:" in line for line in text(game, state, None))  # hands hidden
    # the path choices say where each path leads
    labels = [game.describe(state, action) for action in game.legal_actions(state, 0)]
    assert "take the path of The Real World to Major Party (Roll: 1-8 draw 2 cards; 9-12 discard 2)" in labels


def test_magicka_shows_the_wizards_health_and_barriers_and_the_creatures_attack_and_health() -> None:
    game, state = played("magicka", 3, 7, 37)
    assert text(game, state, 0) == [
        "Magicka Mayhem (Spellmageddon) · round 2 of 100 · seat 0's turn",
        "Last wizard standing wins. Decks: 47 Element, 11 Spell, 12 Mayhem cards",
        "Wizards:",
        "  seat 0: 20 health, barrier 5 of 5, 3 cards in hand (1 Element, 2 Spell)",
        "  seat 1: 20 health, 6 cards in hand (3 Element, 3 Spell)",
        "  seat 2: 19 health, wet, 6 cards in hand (3 Element, 3 Spell)",
        "Creatures:",
        "  seat 0's Spirit Familiar #1: attack 1, health 2 of 3, ready to attack",
        "  seat 0's Frigid Elemental #2: attack 2, health 5 of 5",
        "seat 0's hand:",
        "  Elements: Life / Arcane",
        "  Summon Storm Elemental (needs Lightning, Lightning and Water): summons a creature, attack 2,",
        "      health 3",
        "  Arcane Blast (needs Arcane, Arcane and Fire): 4 damage",
    ]


def test_magicka_says_what_the_exchange_owes_in_words() -> None:
    game, state = played("magicka", 4, 7, 5)
    lines = text(game, state, 0)
    assert lines[-2:] == [
        "seat 0 exchanged cards and is owed 2 Element cards and 4 Spell cards as replacements: exchange more,",
        "  or draw them, before casting",
    ]


def test_manasurge_shows_the_stones_against_the_goal_the_round_rule_and_the_roles() -> None:
    game, state = played("manasurge", 3, 7, 20, roles="on")
    lines = text(game, state, 1)
    assert lines[0] == "ManaSurge · round 6 · first to 12 stones wins · seat 1's turn"
    assert lines[1:3] == [
        "Round's rule: Earthquake 6, seat 2's Caster card: if the Caster is not the one who cannot follow,",
        "  everyone else takes a penalty card; a higher Earthquake gets a stone",
    ]
    assert lines[3].startswith("To follow Earthquake 7: a 7, a higher Earthquake, or any Magic card · play goes")
    assert "Stones (goal 12):" in lines
    assert "  ■■■■········ 4                    seat 0 · 2 cards" in lines
    assert "  ■■■········· 3                    seat 1 · 4 cards, 3 penalty face down" in lines
    assert "  Surgemaster (seat 2): your ManaSurge gives 4 stones, not 2" in lines
    assert "seat 1's hand: Flying Dagger 5, Fireball 3, Freeze 7, Earthquake 3" in lines


def test_rnd_is_the_cooperative_game_with_shared_credits_and_who_voted_what() -> None:
    game, state = played("rnd", 3, 7, 27)
    lines = text(game, state, None)
    assert lines[:9] == [
        "Look at Us, We're R&D · cooperative: the table designs 3 cards together and shares the credits",
        "Shared credits: 6 (seat 0 2, seat 1 3, seat 2 1); an award credits the card's artist and its writer",
        "  most powerful: Thran Sentinel (1), 2 votes",
        "  least functional: Thran Sentinel (1), 2 votes",
        "  most flavorful: Tidal Gambit (2), 2 votes",
        "Who voted what:",
        "  seat 0: most powerful: card 1; least functional: card 1; most flavorful: card 2",
        "  seat 1: most powerful: card 3; least functional: card 1; most flavorful: card 3",
        "  seat 2: most powerful: card 1; least functional: card 3; most flavorful: card 2",
    ]
    # the designs side by side, large enough to read; their makers named outside the frames
    assert "| 1. Thran Sentinel         {3}{U} |  | 2. Tidal Gambit           {1}{U} |" in lines
    assert "card 1: art by seat 0, words by seat 1 · card 2: art by seat 1, words by seat 2" in lines
    frames = [line for line in lines if line.startswith(("|", "+"))]
    assert all("seat" not in line for line in frames)


def test_rnd_says_who_does_what_while_a_card_is_made() -> None:
    game, state = played("rnd", 4, 7, 3)
    lines = text(game, state, 0)
    assert lines[1:6] == [
        "Card 1 of 4: seat 2 copies a part from the booster",
        "  designers seat 2 and seat 3 · art by seat 0 · words by seat 1",
        "  booster: 11 cards face down, 3 drawn and put aside",
        "  still to copy: card text, power and toughness",
        "  seat 2 drew Argothian Sprite {1}{G} (Creature — Faerie, 2/2)",
    ]


def test_manufactory_shows_each_colour_group_with_the_points_it_scores_now() -> None:
    game, state = played("manufactory", 3, 7, 12)
    lines = text(game, state, 0)
    assert "  3. back   Ivory Tower (colorless, mv 1) → colorless" in lines
    assert lines[lines.index("Collections: the cards in each group (and the points it scores now)") + 1 :][:4] == [
        "  white     blue      black     red       green     colorless groups    points",
        "  -         -         1 (3)     -         2 (3)     1         3         6       seat 0",
        "  -         -         -         -         -         2 (3)     1         3       seat 1",
        "  1 (3)     -         -         1 (3)     -         1 (2)     3         8       seat 2",
    ]


def test_blueprints_shows_how_close_your_hand_is_to_each_location() -> None:
    game, state = played("blueprints", 3, 7, 12)
    lines = text(game, state, 0)
    assert "  seat 1: built Power Plant (1 of 3) · 5 cards" in lines
    assert lines[-3:] == [
        "  Mine: 3 of 5 (artifact, creature, instant)",
        "  Power Plant: 3 of 5 (blue, black, green; missing white, red)",
        "  Tower: 3 of 5 (mana values 3, 4, 5)",
    ]


def test_text_is_never_wrapped_between_seat_and_its_number() -> None:
    """Clients put a name where "seat N" stands: a line break inside it would leave "seat" and a bare number."""
    table = "On the table: Earthquake 7 (seat 0, 1 stone)"
    assert wrap(table, 32) == ["On the table: Earthquake 7", "(seat 0, 1 stone)"]
    made = "art by seat 12 and words by seat 3"
    assert wrap(made, 12, "", "  ") == ["art by", "  seat 12", "  and words", "  by seat 3"]
