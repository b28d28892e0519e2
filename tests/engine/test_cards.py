"""The card pool: the built-in facts checked against the reference data, MTGJSON parsing, and draft boosters."""

from __future__ import annotations

import csv
import json
import random
from bisect import bisect_right
from collections import Counter
from itertools import accumulate
from pathlib import Path
from typing import Any

import pytest
from manaforge.v1.cards_pb2 import MagicCard
from manaforge.v1.common_pb2 import Rng

from engine_core.cards import (
    CARD_SET_OPTION,
    BoosterLayout,
    CardSet,
    Sheet,
    builtin_set,
    draft_booster,
    find_set,
    is_basic_land,
    is_colorless,
    is_land,
    is_multicolored,
    open_packs,
    parse_mtgjson,
    register_set,
    set_codes,
)
from engine_core.cards.booster import draw_faces, shared_cards
from engine_core.cards.cardset import face_of
from engine_core.errors import InvalidConfigError
from engine_core.rng import draws, new_rng, next_u64, randbelow, shuffle

DATA = Path(__file__).parents[3] / "shared" / "data"
needs_data = pytest.mark.skipif(
    not (DATA / "BRO.mtgjson.json").is_file(), reason=f"the reference card data is not at {DATA}"
)
BOOSTERS = 3000


@pytest.fixture(scope="module")
def mtgjson_text() -> str:
    return (DATA / "BRO.mtgjson.json").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def retro_text() -> str:
    return (DATA / "BRR.cards.csv").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def boosters() -> list[list[MagicCard]]:
    rng = new_rng(20221118)
    return [draft_booster(builtin_set(), rng) for _ in range(BOOSTERS)]


# ----- the built-in pool against the reference data ------------------------------------------------------------


@needs_data
def test_every_builtin_bro_card_matches_the_set_file(mtgjson_text: str) -> None:
    reference = {card["number"]: card for card in json.loads(mtgjson_text)["data"]["cards"]}
    bro = [card for card in builtin_set().cards if card.set_code == "BRO"]
    assert len(bro) == 211
    for card in bro:
        ref = reference[card.number]
        assert card.name == ref["name"]
        assert list(card.colors) == ref["colors"], card.name
        assert card.mana_cost == ref.get("manaCost", ""), card.name
        assert card.mana_value == int(ref["manaValue"]), card.name
        assert card.type_line == ref["type"], card.name
        assert (list(card.types), list(card.subtypes), list(card.supertypes)) == (
            ref["types"],
            ref["subtypes"],
            ref["supertypes"],
        ), card.name
        assert card.rarity == ref["rarity"], card.name
        assert (card.power, card.toughness) == (ref.get("power", ""), ref.get("toughness", "")), card.name
        assert list(card.keywords) == ref.get("keywords", []), card.name


@needs_data
def test_every_builtin_retro_artifact_matches_the_brr_list(retro_text: str) -> None:
    reference = {row["number"]: row for row in csv.DictReader(retro_text.splitlines())}
    retro = [card for card in builtin_set().cards if card.set_code == "BRR"]
    assert len(retro) == 20
    for card in retro:
        ref = reference[card.number]
        assert card.name == ref["name"]
        assert card.rarity == ref["rarity"].lower()
        assert "".join(card.colors) == ref["colors"]
        assert card.mana_value == int(ref["manaValue"])
        assert card.mana_cost == ref["manaCost"]
        assert card.type_line.upper() == ref["types"]


def test_the_builtin_pool_has_the_documented_spread_and_no_rules_text() -> None:
    pool = builtin_set()
    main = Counter(card.rarity for card in pool.cards if card.set_code == "BRO" and not is_basic_land(card))
    assert main == {"common": 101, "uncommon": 60, "rare": 30, "mythic": 10}
    assert Counter(c.rarity for c in pool.cards if c.set_code == "BRR") == {"uncommon": 10, "rare": 6, "mythic": 4}
    mech = [card.name for card in pool.cards if is_basic_land(card)]
    assert sorted(mech) == sorted(["Plains", "Island", "Swamp", "Mountain", "Forest"] * 2)
    assert all(card.text == "" and card.id == 0 and not card.foil for card in pool.cards)
    assert len({(card.set_code, card.number) for card in pool.cards}) == len(pool.cards)
    commons = [card for card in pool.cards if card.rarity == "common" and not is_land(card)]
    for color in "WUBRG":  # Power Plant needs every colour in the commons
        assert sum(list(card.colors) == [color] for card in commons) >= 14


def test_predicates_read_colours_and_types() -> None:
    by_name = {card.name: card for card in builtin_set().cards}
    assert is_land(by_name["Plains"]) and is_basic_land(by_name["Plains"]) and is_colorless(by_name["Plains"])
    assert is_multicolored(by_name["Queen Kayla bin-Kroog"])
    assert not is_multicolored(by_name["Disenchant"]) and not is_colorless(by_name["Disenchant"])
    assert by_name["Bone Saw"].mana_value == 0 and is_colorless(by_name["Bone Saw"])


# ----- boosters ------------------------------------------------------------------------------------------------


def _is_retro(card: MagicCard) -> bool:
    return card.set_code == "BRR" and not card.foil


def test_every_booster_has_the_draft_booster_slots(boosters: list[list[MagicCard]]) -> None:
    for booster in boosters:
        assert len(booster) == 15
        plain = [card for card in booster if not card.foil]
        foils = [card for card in booster if card.foil]
        mech = [card for card in plain if is_basic_land(card)]
        assert len(foils) + len(mech) <= 1  # a foil or a mech basic replaces one common, never both
        assert sum(_is_retro(card) for card in plain) == 1
        main = [card for card in plain if card.set_code == "BRO" and not is_basic_land(card)]
        assert Counter(card.rarity for card in main) == {
            "common": 10 - len(foils) - len(mech),
            "uncommon": 3,
            **({"rare": 1} if any(c.rarity == "rare" for c in main) else {"mythic": 1}),
        }
        assert len({card.name for card in main}) == len(main)  # no card twice from one sheet


def test_foil_and_mech_basic_rates_match_the_documented_odds(boosters: list[list[MagicCard]]) -> None:
    foil = sum(any(card.foil for card in booster) for booster in boosters) / BOOSTERS
    mech = sum(any(is_basic_land(c) and not c.foil for c in booster) for booster in boosters) / BOOSTERS
    assert foil == pytest.approx(1 / 3, abs=0.03)
    assert mech == pytest.approx(1 / 4, abs=0.03)


def test_rare_and_retro_slot_rarities_match_the_documented_odds(boosters: list[list[MagicCard]]) -> None:
    mythic = sum(any(c.rarity == "mythic" and c.set_code == "BRO" and not c.foil for c in b) for b in boosters)
    assert mythic / BOOSTERS == pytest.approx(1 / 7, abs=0.02)
    retro = Counter(card.rarity for booster in boosters for card in booster if _is_retro(card))
    assert retro["uncommon"] / BOOSTERS == pytest.approx(0.66, abs=0.03)
    assert retro["rare"] / BOOSTERS == pytest.approx(0.27, abs=0.03)
    assert retro["mythic"] / BOOSTERS == pytest.approx(0.07, abs=0.015)


def test_foils_come_in_every_rarity_mostly_common(boosters: list[list[MagicCard]]) -> None:
    foils = Counter(
        "retro" if card.set_code == "BRR" else card.rarity for booster in boosters for card in booster if card.foil
    )
    total = sum(foils.values())
    assert total > BOOSTERS / 4
    expected = {"common": 0.60, "uncommon": 0.172, "retro": 0.153, "rare": 0.063, "mythic": 0.012}
    assert set(foils) == set(expected)
    for group, share in expected.items():
        assert foils[group] / total == pytest.approx(share, abs=0.04), group


def test_commons_are_colour_balanced(boosters: list[list[MagicCard]]) -> None:
    for booster in boosters:
        colors = {c.colors[0] for c in booster if c.rarity == "common" and len(c.colors) == 1 and not c.foil}
        assert colors == set("WUBRG")


def test_boosters_replay_from_the_seed() -> None:
    first = [card.name for card in draft_booster(builtin_set(), new_rng(7))]
    again = [card.name for card in draft_booster(builtin_set(), new_rng(7))]
    other = [card.name for card in draft_booster(builtin_set(), new_rng(8))]
    assert first == again
    assert first != other


def test_open_packs_numbers_the_cards_in_order() -> None:
    cards = open_packs(builtin_set(), new_rng(3), 4)
    assert [card.id for card in cards] == list(range(60))
    assert builtin_set().cards[0].id == 0  # the templates are never changed


def _reference_faces(card_set: CardSet, rng: Rng, packs: int) -> list[tuple[int, bool]]:
    """Booster opening as first written (a running total built at each weighted draw): (template index, foil)."""

    def index(weights: list[int]) -> int:
        totals = list(accumulate(weights))
        return bisect_right(totals, randbelow(rng, totals[-1] if totals else 0))

    faces: list[tuple[int, bool]] = []
    for _ in range(packs):
        layout = card_set.layouts[index([layout.weight for layout in card_set.layouts])]
        for name, count in layout.contents:
            sheet = card_set.sheet_draws[name]
            foil = card_set.sheet(name).foil
            taken = []
            if sheet.by_color and count >= 5:
                taken = [positions[index(list(weights))] for positions, weights in sheet.by_color]
            drawn = [sheet.cards[position] for position in taken]
            cards, weights = list(sheet.cards), list(sheet.weights)
            for position in sorted(taken, reverse=True):
                del cards[position], weights[position]
            while len(drawn) < count and cards:
                position = index(weights)
                drawn.append(cards.pop(position))
                del weights[position]
            faces += [(card, foil) for card in drawn]
    return faces


def _random_set(rand: random.Random) -> CardSet:
    colors = ["W", "U", "B", "R", "G"]
    size = rand.randint(1, 30)
    cards = tuple(MagicCard(name=f"c{i}", colors=rand.sample(colors, rand.choice([0, 1, 1, 2]))) for i in range(size))
    sheets = []
    for number in range(rand.randint(1, 4)):
        indices = tuple(rand.randrange(size) for _ in range(rand.randint(0, size + 3)))
        same = rand.choice([0, 1, 3])  # 0: weights that differ
        weights = tuple(same or rand.choice([1, 2, 3]) for _ in indices)
        sheets.append(Sheet(f"s{number}", indices, weights, rand.random() < 0.3, rand.random() < 0.5))
    layouts = [
        BoosterLayout(rand.randint(1, 5), tuple((f"s{rand.randrange(len(sheets))}", rand.randint(0, 8)) for _ in "ab"))
        for _ in range(rand.randint(1, 3))
    ]
    return CardSet("RND", "random", cards, tuple(sheets), tuple(layouts))


def test_boosters_deal_what_the_first_written_opening_dealt() -> None:
    rand = random.Random(5)
    for card_set in [builtin_set(), *(_random_set(rand) for _ in range(200))]:
        for seed in range(20 if card_set is builtin_set() else 3):
            rng, again = new_rng(seed), new_rng(seed)
            expected = _reference_faces(card_set, rng, 3)
            faces = draw_faces(card_set, again, 3)
            assert faces == [face_of(index, foil) for index, foil in expected]
            assert again.counter == rng.counter
            opened = open_packs(card_set, new_rng(seed), 3)
            assert [(card.name, card.foil, card.id) for card in opened] == [
                (card_set.cards[index].name, foil, card_id) for card_id, (index, foil) in enumerate(expected)
            ]
            shared = shared_cards(card_set, faces)
            assert shared == opened and all(a is b for a, b in zip(shared, shared_cards(card_set, faces), strict=True))


def test_a_draw_from_no_weight_fails_as_the_first_written_opening_did_keeping_the_draws_before() -> None:
    cards = tuple(MagicCard(name=f"c{index}", colors=[color]) for index, color in enumerate("WUBRGW"))
    sheets = (
        Sheet("some", (0, 1, 2), (1, 2, 3)),
        Sheet("none", (3, 4), (0, 0)),
        Sheet("balanced", tuple(range(6)), (0,) * 6, balance_colors=True),
    )
    for weight, contents in [
        (1, (("some", 2), ("none", 1))),
        (1, (("some", 1), ("none", 2))),
        (1, (("balanced", 5),)),
        (0, (("some", 1),)),
    ]:
        card_set = CardSet("ZERO", "zero", cards, sheets, (BoosterLayout(weight, contents),))
        rng, again = new_rng(4), new_rng(4)
        with pytest.raises(ValueError):
            _reference_faces(card_set, rng, 2)
        with pytest.raises(ValueError):
            draw_faces(card_set, again, 2)
        assert again.counter == rng.counter


def test_draws_made_together_are_the_rngs_draws_one_at_a_time() -> None:
    rand = random.Random(11)
    for _ in range(500):
        seed = rand.getrandbits(64)
        counter = rand.choice([0, 1, rand.getrandbits(20), rand.getrandbits(64)])
        count = rand.randint(0, 70)
        rng = Rng(seed=seed, counter=counter)
        assert list(draws(seed, counter, count)) == [next_u64(rng) for _ in range(count)]
        items = [rand.randrange(9) for _ in range(count)]
        expected, one_at_a_time = list(items), Rng(seed=seed, counter=counter)
        for i in range(len(expected) - 1, 0, -1):  # Fisher-Yates, a draw at a time
            j = randbelow(one_at_a_time, i + 1)
            expected[i], expected[j] = expected[j], expected[i]
        together = Rng(seed=seed, counter=counter)
        shuffle(together, items)
        assert items == expected and together.counter == one_at_a_time.counter


# ----- MTGJSON parsing and the registry ---------------------------------------------------------------------------


@needs_data
def test_parse_mtgjson_reads_cards_sheets_and_layouts(mtgjson_text: str, retro_text: str) -> None:
    bro = parse_mtgjson(mtgjson_text, retro_text)
    assert (bro.code, bro.name) == ("BRO", "The Brothers' War")
    assert len(bro.cards) == 388 - 3 + 63  # the three meld back halves are not cards; 63 retro artifacts
    names = {card.name for card in bro.cards}
    assert "Urza, Lord Protector" in names and "Urza, Planeswalker" not in names
    cavalry = next(card for card in bro.cards if card.name == "Aeronaut Cavalry")
    assert cavalry.text.startswith("Flying") and cavalry.mana_value == 5 and list(cavalry.colors) == ["W"]
    assert [layout.weight for layout in bro.layouts] == [5, 4, 3]
    assert all(layout.size == 15 for layout in bro.layouts)
    assert len(bro.sheet("brrRetroArtifact").cards) == 63
    assert bro.sheet("common").balance_colors and bro.sheet("foil").foil
    booster = draft_booster(bro, new_rng(1))
    assert len(booster) == 15 and sum(card.set_code == "BRR" and not card.foil for card in booster) == 1


@needs_data
def test_parse_mtgjson_without_retro_list_drops_the_retro_slot(mtgjson_text: str) -> None:
    bro = parse_mtgjson(mtgjson_text)
    assert all(layout.size == 14 for layout in bro.layouts)
    assert all(card.set_code == "BRO" for card in draft_booster(bro, new_rng(2)))


def _tiny_set(code: str) -> dict[str, Any]:
    cards = [
        {"uuid": f"u{i}", "name": f"Card {i}", "number": str(i), "rarity": "common", "colors": ["R"], "manaValue": 1.0,
         "manaCost": "{R}", "type": "Instant", "types": ["Instant"], "text": "Deal damage."}
        for i in range(3)
    ]  # fmt: skip
    sheet = {"cards": {"u0": 1, "u1": 1, "u2": 2}, "foil": False}
    booster = {"boosters": [{"contents": {"common": 2}, "weight": 1}], "sheets": {"common": sheet}}
    return {"data": {"code": code, "name": "Tiny", "cards": cards, "booster": {"draft": booster}}}


def test_registered_sets_are_found_by_code_and_unknown_codes_are_refused() -> None:
    tiny = parse_mtgjson(json.dumps(_tiny_set("TNY")))
    register_set(tiny)
    assert find_set("tny") is tiny and "TNY" in set_codes() and set_codes()[0] == "builtin"
    assert find_set("builtin") is builtin_set() and CARD_SET_OPTION.default == "builtin"
    assert [card.text for card in draft_booster(tiny, new_rng(1))] == ["Deal damage."] * 2
    with pytest.raises(InvalidConfigError) as refused:
        find_set("XYZ")
    assert refused.value.rule == "card set"
    with pytest.raises(InvalidConfigError):
        register_set(CardSet("builtin", "impostor", ()))


def test_a_broken_set_file_is_refused_naming_the_rule() -> None:
    with pytest.raises(InvalidConfigError) as refused:
        parse_mtgjson('{"data": {"name": "no code"}}')
    assert refused.value.rule == "card set file"


@needs_data
def test_load_card_sets_registers_the_files_of_a_directory() -> None:
    from services.cardsets import load_card_sets

    assert load_card_sets(DATA) == ["BRO"]
    assert len(find_set("BRO").sheet("brrRetroArtifact").cards) == 63
