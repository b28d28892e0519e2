"""The three decks of Magicka Mayhem, with counts. A **reconstruction**: no public card list exists (see RULES.md).

Every physical card has a unique id: Element cards first, then Spell cards, then Mayhem cards. A card's *kind* is
its design (name, elements, effect); actions name kinds, and the engine picks which copy leaves the hand.
Element kinds are numbered 0.., Spell kinds 100.., Mayhem kinds 200.. so a kind number says its deck.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Final, TypeAlias

from manaforge.v1.common_pb2 import CardFacts
from manaforge.v1.games.magicka_pb2 import MagickaActionType, MagickaElement

Element: TypeAlias = MagickaElement.ValueType

# The action types as plain ints, for the rules (__init__.py) and the heuristic (bot.py): an enum wrapper's attribute
# lookup is slow at every step, and compiled code reads a `Final` name as a C variable.
_A: Final = MagickaActionType
TRADE_SPELL_FOR_ELEMENTS: Final = _A.MAGICKA_ACTION_TRADE_SPELL_FOR_ELEMENTS
TRADE_ELEMENTS_FOR_SPELL: Final = _A.MAGICKA_ACTION_TRADE_ELEMENTS_FOR_SPELL
TRADE_ELEMENT: Final = _A.MAGICKA_ACTION_TRADE_ELEMENT
TRADE_SPELL: Final = _A.MAGICKA_ACTION_TRADE_SPELL
DRAW_REPLACEMENTS: Final = _A.MAGICKA_ACTION_DRAW_REPLACEMENTS
CAST_SPELL: Final = _A.MAGICKA_ACTION_CAST_SPELL
CAST_SNAP: Final = _A.MAGICKA_ACTION_CAST_SNAP
REPAIR: Final = _A.MAGICKA_ACTION_REPAIR
ATTACK: Final = _A.MAGICKA_ACTION_ATTACK
END_TURN: Final = _A.MAGICKA_ACTION_END_TURN
DISCARD: Final = _A.MAGICKA_ACTION_DISCARD
ANSWER: Final = _A.MAGICKA_ACTION_ANSWER
PASS: Final = _A.MAGICKA_ACTION_PASS

FIRE: Final = MagickaElement.MAGICKA_ELEMENT_FIRE
COLD: Final = MagickaElement.MAGICKA_ELEMENT_COLD
LIGHTNING: Final = MagickaElement.MAGICKA_ELEMENT_LIGHTNING
EARTH: Final = MagickaElement.MAGICKA_ELEMENT_EARTH
WATER: Final = MagickaElement.MAGICKA_ELEMENT_WATER
LIFE: Final = MagickaElement.MAGICKA_ELEMENT_LIFE
ARCANE: Final = MagickaElement.MAGICKA_ELEMENT_ARCANE
SHIELD: Final = MagickaElement.MAGICKA_ELEMENT_SHIELD
ELEMENTS: Final[tuple[Element, ...]] = (FIRE, COLD, LIGHTNING, EARTH, WATER, LIFE, ARCANE, SHIELD)
ELEMENT_NAMES: Final[dict[Element, str]] = {
    FIRE: "Fire",
    COLD: "Cold",
    LIGHTNING: "Lightning",
    EARTH: "Earth",
    WATER: "Water",
    LIFE: "Life",
    ARCANE: "Arcane",
    SHIELD: "Shield",
}
# "Lightning OPPOSES Earth. Fire OPPOSES Cold. Life OPPOSES Arcane." (Spell vs. Spell Gameplay)
OPPOSES: Final[dict[Element, Element]] = {
    LIGHTNING: EARTH,
    EARTH: LIGHTNING,
    FIRE: COLD,
    COLD: FIRE,
    LIFE: ARCANE,
    ARCANE: LIFE,
}
# The six Elements printed on the Blended Element card (the rulebook does not name them: RULES.md, ambiguity A2).
BLENDED: Final[tuple[Element, ...]] = (FIRE, COLD, LIGHTNING, EARTH, WATER, LIFE)

Cost = tuple[tuple[Element, int], ...]


def element_name(element: Element) -> str:
    return ELEMENT_NAMES.get(element, "?")


def parse_element(name: str) -> Element:
    for element, text in ELEMENT_NAMES.items():
        if text.lower() == name.lower():
            return element
    raise ValueError(f"no Element named {name!r}")


# ----- Element cards ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ElementCard:
    kind: int
    name: str
    elements: tuple[Element, ...]  # one: a single card; two: a combo; six: Blended Element
    value: int  # worth this many of the chosen Element
    count: int

    def is_wild(self) -> bool:
        return len(self.elements) > 2


# ----- Spell cards --------------------------------------------------------------------------------------------------


class SpellType(Enum):
    DAMAGE = "damage"
    BEAM = "beam"
    HEAL = "heal"
    BARRIER = "barrier"
    SUMMON = "summon"


class Death(Enum):
    """What a creature does when destroyed."""

    NOTHING = "nothing"
    FREEZE_OPPONENTS = "freezes ALL opponents for 1 turn"
    BURN_OPPONENTS = "deals 2 damage to ALL opponents"
    HEAL_CONTROLLER = "heals its controller 3"


@dataclass(frozen=True)
class SpellCard:
    kind: int
    name: str
    cost: Cost
    type: SpellType
    count: int
    amount: int = 0  # damage (per turn for beams), healing, or barrier strength
    text: str = ""
    turns: int = 1  # beams: turns of damage, the casting turn included
    fire_combo: int = 0  # Fire Bolt: damage when another 2+ Fire spell was cast this turn
    double_vs_wet: bool = False
    double_vs_frozen: bool = False
    freezes: bool = False
    wets: bool = False
    heals_caster: int = 0  # beams that drain: the caster heals this much per turn
    upgrade: Element = (
        MagickaElement.MAGICKA_ELEMENT_UNSPECIFIED
    )  # the Element whose additional copies upgrade the spell
    upgrade_attack: bool = False  # summons: each upgrade Element adds +1 Attack (else +1 Health)
    attack: int = 0
    health: int = 0
    weak: tuple[Element, ...] = ()
    immune: tuple[Element, ...] = ()
    on_death: Death = Death.NOTHING
    haste: bool = False  # "can attack the turn it is summoned"

    def is_answerable(self) -> bool:
        """'They must also contain two (2) or more of the same Element.' Summons are never answered (RULES.md)."""
        return self.type is not SpellType.SUMMON and any(n >= 2 for _, n in self.cost)

    def count_of(self, element: Element) -> int:
        return sum(n for e, n in self.cost if e == element)


# ----- Mayhem cards -------------------------------------------------------------------------------------------------


class Mayhem(Enum):
    BIGGER_STAFF = "bigger staff"
    BACKFIRE = "backfire"
    FIZZLE = "fizzle"
    OVERCOOKED = "overcooked"
    RICOCHET = "ricochet"
    FLAMING_BUNNY = "flaming bunny"
    LUCKY_UNDERPANTS = "lucky underpants"
    SOGGY_ROBES = "soggy robes"
    HALF_BAKED = "half baked"


@dataclass(frozen=True)
class MayhemCard:
    kind: int
    name: str
    effect: Mayhem
    text: str
    count: int


# ----- the designed decks -------------------------------------------------------------------------------------------


def _single(kind: int, name: str, element: Element, value: int, count: int) -> ElementCard:
    return ElementCard(kind, name, (element,), value, count)


ELEMENT_CARDS: Final[tuple[ElementCard, ...]] = (
    *(_single(i, ELEMENT_NAMES[e], e, 1, 6) for i, e in enumerate(ELEMENTS)),
    _single(8, "Raging Fire", FIRE, 2, 2),
    _single(9, "Bitter Frost", COLD, 2, 2),
    _single(10, "Crackling Lightning", LIGHTNING, 2, 2),
    _single(11, "Mighty Earth", EARTH, 2, 2),
    _single(12, "Torrential Water", WATER, 2, 2),
    _single(13, "Blooming Life", LIFE, 2, 2),
    _single(14, "Arcane Torrent", ARCANE, 2, 2),
    _single(15, "Stalwart Shield", SHIELD, 2, 2),
    ElementCard(16, "Fire / Cold", (FIRE, COLD), 1, 3),
    ElementCard(17, "Lightning / Earth", (LIGHTNING, EARTH), 1, 3),
    ElementCard(18, "Life / Arcane", (LIFE, ARCANE), 1, 3),
    ElementCard(19, "Water / Shield", (WATER, SHIELD), 1, 3),
    ElementCard(20, "Water / Cold", (WATER, COLD), 1, 3),
    ElementCard(21, "Fire / Earth", (FIRE, EARTH), 1, 3),
    ElementCard(22, "Limitless Lightning / Epic Earth", (LIGHTNING, EARTH), 2, 1),
    ElementCard(23, "Blazing Fire / Glacial Cold", (FIRE, COLD), 2, 1),
    ElementCard(24, "Lavish Life / Abyssal Arcane", (LIFE, ARCANE), 2, 1),
    ElementCard(25, "Tidal Water / Towering Shield", (WATER, SHIELD), 2, 1),
    ElementCard(26, "Blended Element", BLENDED, 1, 4),
)

SPELL_CARDS: Final[tuple[SpellCard, ...]] = (
    SpellCard(
        100,
        "Fire Bolt",
        ((FIRE, 2), (LIGHTNING, 1)),
        SpellType.DAMAGE,
        3,
        amount=3,
        fire_combo=4,
        double_vs_wet=True,
        double_vs_frozen=True,
        text="3 damage; 4 if cast in the same turn as another spell with 2 or more Fire; double damage to wet or "
        "frozen targets",
    ),
    SpellCard(101, "Fireball", ((FIRE, 2), (EARTH, 1)), SpellType.DAMAGE, 2, amount=4, text="4 damage"),
    SpellCard(
        102,
        "Ice Shard",
        ((COLD, 2), (WATER, 1)),
        SpellType.DAMAGE,
        2,
        amount=2,
        freezes=True,
        text="2 damage; freezes the target for 1 turn",
    ),
    SpellCard(
        103,
        "Lightning Bolt",
        ((LIGHTNING, 2), (ARCANE, 1)),
        SpellType.DAMAGE,
        2,
        amount=3,
        double_vs_wet=True,
        text="3 damage; double damage to wet targets",
    ),
    SpellCard(104, "Boulder Barrage", ((EARTH, 3),), SpellType.DAMAGE, 2, amount=4, text="4 damage"),
    SpellCard(105, "Arcane Blast", ((ARCANE, 2), (FIRE, 1)), SpellType.DAMAGE, 2, amount=4, text="4 damage"),
    SpellCard(
        106,
        "Fury of the Wizard",
        ((FIRE, 1), (COLD, 1), (LIGHTNING, 1), (EARTH, 1), (ARCANE, 1)),
        SpellType.DAMAGE,
        1,
        amount=6,
        text="6 damage; holds no two of one Element, so it cannot be answered",
    ),
    SpellCard(
        107,
        "Scalding Steam",
        ((WATER, 1), (FIRE, 1)),
        SpellType.DAMAGE,
        2,
        amount=2,
        wets=True,
        text="2 damage; the target is made wet",
    ),
    SpellCard(
        108,
        "Fire Beam",
        ((FIRE, 2), (ARCANE, 1)),
        SpellType.BEAM,
        2,
        amount=2,
        turns=3,
        text="beam: 2 damage in each of 3 turns, this one included",
    ),
    SpellCard(
        109,
        "Overpower Beam of Entropy",
        ((ARCANE, 3), (LIGHTNING, 1)),
        SpellType.BEAM,
        1,
        amount=3,
        turns=3,
        text="beam: 3 damage in each of 3 turns, this one included",
    ),
    SpellCard(
        110,
        "Life Siphon Beam",
        ((ARCANE, 2), (WATER, 1)),
        SpellType.BEAM,
        1,
        amount=1,
        turns=3,
        heals_caster=1,
        text="beam: 1 damage in each of 3 turns, this one included; the caster heals 1 each time",
    ),
    SpellCard(
        111,
        "Healing Light",
        ((LIFE, 2),),
        SpellType.HEAL,
        3,
        amount=3,
        upgrade=LIFE,
        text="heals 3; +1 for each additional Life Element used in the cast",
    ),
    SpellCard(
        112,
        "Rejuvenate",
        ((LIFE, 1), (WATER, 1)),
        SpellType.HEAL,
        2,
        amount=3,
        text="heals 3; holds no two of one Element, so it cannot be answered",
    ),
    SpellCard(
        113,
        "Elemental Shield",
        ((SHIELD, 2), (EARTH, 1)),
        SpellType.BARRIER,
        2,
        amount=4,
        upgrade=SHIELD,
        text="a Shield Barrier of strength 4; +1 for each additional Shield Element used in the cast",
    ),
    SpellCard(
        114,
        "Summon Frigid Elemental",
        ((COLD, 2), (WATER, 1)),
        SpellType.SUMMON,
        2,
        attack=2,
        health=4,
        upgrade=FIRE,
        weak=(FIRE, LIGHTNING),
        immune=(COLD,),
        on_death=Death.FREEZE_OPPONENTS,
        text="gains +1 Health for each additional Fire Element used in the cast; WEAK to Fire and Lightning; "
        "IMMUNE to Cold; FREEZES ALL opponents for 1 turn when destroyed",
    ),
    SpellCard(
        115,
        "Summon Magma Elemental",
        ((FIRE, 2), (EARTH, 2)),
        SpellType.SUMMON,
        1,
        attack=3,
        health=5,
        upgrade=FIRE,
        upgrade_attack=True,
        weak=(COLD, WATER),
        immune=(FIRE,),
        on_death=Death.BURN_OPPONENTS,
        text="gains +1 Attack for each additional Fire Element used in the cast; WEAK to Cold and Water; IMMUNE to "
        "Fire; deals 2 damage to ALL opponents when destroyed",
    ),
    SpellCard(
        116,
        "Summon Storm Elemental",
        ((LIGHTNING, 2), (WATER, 1)),
        SpellType.SUMMON,
        1,
        attack=2,
        health=3,
        upgrade=LIGHTNING,
        weak=(EARTH,),
        immune=(LIGHTNING,),
        haste=True,
        text="can attack the turn it is summoned; gains +1 Health for each additional Lightning Element used in the "
        "cast; WEAK to Earth; IMMUNE to Lightning",
    ),
    SpellCard(
        117,
        "Summon Stone Golem",
        ((EARTH, 3),),
        SpellType.SUMMON,
        1,
        attack=1,
        health=7,
        upgrade=EARTH,
        weak=(WATER,),
        immune=(EARTH,),
        text="gains +1 Health for each additional Earth Element used in the cast; WEAK to Water; IMMUNE to Earth",
    ),
    SpellCard(
        118,
        "Summon Spirit Familiar",
        ((LIFE, 1), (ARCANE, 1)),
        SpellType.SUMMON,
        2,
        attack=1,
        health=3,
        upgrade=ARCANE,
        upgrade_attack=True,
        on_death=Death.HEAL_CONTROLLER,
        text="gains +1 Attack for each additional Arcane Element used in the cast; heals its controller 3 when "
        "destroyed",
    ),
)

MAYHEM_CARDS: Final[tuple[MayhemCard, ...]] = (
    MayhemCard(
        200,
        "Gonna Need a Bigger... STAFF!",
        Mayhem.BIGGER_STAFF,
        "If Spell is Cast at opponent(s) then it causes Double Effect to ALL opponents. Caster is Frozen for 1 Turn "
        "while Wizard changes into clean underpants.",
        1,
    ),
    MayhemCard(201, "Wrong End of the Wand", Mayhem.BACKFIRE, "The Spell hits the Caster instead.", 2),
    MayhemCard(202, "Phhhbbbt.", Mayhem.FIZZLE, "The Spell fizzles with NO effect. Everyone points and laughs.", 2),
    MayhemCard(203, "Extra Crispy", Mayhem.OVERCOOKED, "The Spell causes Double Effect.", 2),
    MayhemCard(
        204, "Boing!", Mayhem.RICOCHET, "The Spell bounces off a hat and hits a random Wizard other than the Caster.", 1
    ),
    MayhemCard(
        205,
        "Bunny on Fire!",
        Mayhem.FLAMING_BUNNY,
        "A passing bunny catches fire and hops past EVERY Wizard: each takes 1 Damage. The Spell continues as Cast.",
        1,
    ),
    MayhemCard(
        206,
        "Lucky Underpants",
        Mayhem.LUCKY_UNDERPANTS,
        "Your lucky underpants save your bum: the Caster heals 2. The Spell continues as Cast.",
        1,
    ),
    MayhemCard(207, "Soggy Robes", Mayhem.SOGGY_ROBES, "The Caster is made wet. The Spell continues as Cast.", 1),
    MayhemCard(208, "Half-Baked", Mayhem.HALF_BAKED, "The Spell causes Half Damage (rounded down).", 1),
)


@dataclass(frozen=True)
class Catalogue:
    """Card ids and their kinds, computed once at import."""

    kind_of: dict[int, int] = field(default_factory=dict)
    element_ids: list[int] = field(default_factory=list)
    spell_ids: list[int] = field(default_factory=list)
    mayhem_ids: list[int] = field(default_factory=list)


def _catalogue() -> Catalogue:
    cat = Catalogue()
    groups: list[tuple[list[int], tuple[ElementCard | SpellCard | MayhemCard, ...]]] = [
        (cat.element_ids, ELEMENT_CARDS),
        (cat.spell_ids, SPELL_CARDS),
        (cat.mayhem_ids, MAYHEM_CARDS),
    ]
    next_id = 0
    for ids, designs in groups:
        for design in designs:
            for _ in range(design.count):
                cat.kind_of[next_id] = design.kind
                ids.append(next_id)
                next_id += 1
    return cat


CATALOGUE: Final = _catalogue()
ELEMENT_BY_KIND: Final[dict[int, ElementCard]] = {c.kind: c for c in ELEMENT_CARDS}
SPELL_BY_KIND: Final[dict[int, SpellCard]] = {c.kind: c for c in SPELL_CARDS}
MAYHEM_BY_KIND: Final[dict[int, MayhemCard]] = {c.kind: c for c in MAYHEM_CARDS}


def kind_of(card: int) -> int:
    return CATALOGUE.kind_of[card]


def element_card(card: int) -> ElementCard:
    return ELEMENT_BY_KIND[kind_of(card)]


def spell_card(card: int) -> SpellCard:
    return SPELL_BY_KIND[kind_of(card)]


def mayhem_card(card: int) -> MayhemCard:
    return MAYHEM_BY_KIND[kind_of(card)]


def kind_name(kind: int) -> str:
    design = ELEMENT_BY_KIND.get(kind) or SPELL_BY_KIND.get(kind) or MAYHEM_BY_KIND.get(kind)
    return design.name if design else f"kind {kind}"


def card_name(card: int) -> str:
    return kind_name(kind_of(card))


# ----- what the cards do (Game.catalogue, card notes) ---------------------------------------------------------------


def elements_text(elements: list[Element]) -> str:
    """Elements in words: "Fire", "Fire and Fire", "Fire, Fire and Earth"."""
    names = [element_name(e) for e in elements]
    return " and ".join(names) if len(names) < 3 else ", ".join(names[:-1]) + " and " + names[-1]


def cost_elements(cost: Cost) -> list[Element]:
    return [element for element, n in cost for _ in range(n)]


def missing_elements(cost: Cost, cards: list[ElementCard]) -> list[Element]:
    """The Elements of `cost` that `cards` cannot pay, in cost order (greedy: single-Element cards first, then each
    combo and Blended card for the Element still needed most among its own)."""
    need = {element: n for element, n in cost}
    order = sorted(cards, key=lambda card: len(card.elements))
    for card in order:
        wanted = [e for e in card.elements if need.get(e, 0) > 0]
        if wanted:
            best = max(wanted, key=lambda e: need[e])
            need[best] = max(0, need[best] - card.value)
    return [element for element, _ in cost for _ in range(need[element])]


_CAST_TIMING: Final = "on your turn (casting a spell ends your exchange for the turn)"


def card_facts(card: int) -> CardFacts:
    """What card `card` does: an Element pays for spells, a Spell card is cast for its effect, a Mayhem card changes
    a spell that is Mayhemified. The designs are a reconstruction (RULES.md, "Designed content")."""
    kind = kind_of(card)
    element = ELEMENT_BY_KIND.get(kind)
    if element is not None:
        if element.is_wild():
            pays = f"1 Element of your choice among {elements_text(list(element.elements)).replace(' and ', ' or ')}"
        elif len(element.elements) == 2:
            pays = f"{element.value} {element_name(element.elements[0])} or {element.value} " + element_name(
                element.elements[1]
            )
        else:
            pays = f"{element.value} {element_name(element.elements[0])}"
        return CardFacts(
            id=card,
            name=element.name,
            kind="Element",
            effect=f"Pays {pays} toward a spell's cost" + (" (you choose when you pay)." if "or" in pays else "."),
            timing="when you cast a spell; or trade it away in the exchange at the start of your turn",
            tags=[element_name(e) for e in element.elements],
        )
    spell = SPELL_BY_KIND.get(kind)
    if spell is not None:
        text = f"deals {spell.text}" if spell.text[0].isdigit() else spell.text
        effect = text[0].upper() + text[1:] + "."
        if spell.type is SpellType.SUMMON:
            effect = f"Summons a creature with {spell.attack} attack and {spell.health} health; it {spell.text}."
        answerable = (
            " Spell vs. Spell: another wizard may answer it with a snap spell." if spell.is_answerable() else ""
        )
        return CardFacts(
            id=card,
            name=spell.name,
            kind="Summon spell" if spell.type is SpellType.SUMMON else "Spell",
            cost=elements_text(cost_elements(spell.cost)),
            effect=effect + answerable,
            timing=_CAST_TIMING,
            tags=[spell.type.value, *dict.fromkeys(element_name(e) for e, _ in spell.cost)],
        )
    mayhem = mayhem_card(card)
    return CardFacts(
        id=card,
        name=mayhem.name,
        kind="Mayhem",
        effect=mayhem.text,
        timing="drawn when a spell card spell is Mayhemified (the mayhem option); never held",
        tags=["mayhem"],
    )
