"""ManaSurge's cards: the five spells and their numbers, the twelve Magic cards and the six wizard roles.

Card ids: 0-59 are spell cards (12 per spell, spell = id // 12 + 1), 60-71 the Magic cards (one of each kind,
kind = id - 59). The numbers a spell card carries depend on the `numbers` option (see RULES.md, "Card numbers").
The Magic cards other than Shadow Mirror and all the roles are a reconstruction (RULES.md, "Designed content").
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum
from typing import Final

from manaforge.v1.common_pb2 import CardFacts

SPELL_CARDS: Final = 60
MAGIC_CARDS: Final = 12
DECK_SIZE: Final = SPELL_CARDS + MAGIC_CARDS
PER_SPELL: Final = 12


class Spell(IntEnum):
    """The five spells, in the rulebook's order (section "Lá Phép")."""

    FLYING_DAGGER = 1
    FIREBALL = 2
    FREEZE = 3
    THUNDER = 4
    EARTHQUAKE = 5


SPELL_NAMES: Final = {
    Spell.FLYING_DAGGER: "Flying Dagger",
    Spell.FIREBALL: "Fireball",
    Spell.FREEZE: "Freeze",
    Spell.THUNDER: "Thunder",
    Spell.EARTHQUAKE: "Earthquake",
}

# The penalty bonus of a round's spell rule: "Lá phạt = số đá tím + 1" (Flying Dagger), "+2" (Fireball).
PENALTY_BONUS: Final = {Spell.FLYING_DAGGER: 1, Spell.FIREBALL: 2}

# Numbers on the 12 cards of each spell. "1-8": the retail game's 1 to 8 with the middle numbers doubled, symmetric
# so that descending Flying Dagger runs are as long as rising ones; "1-12": one card of each number.
NUMBERS: Final[dict[str, tuple[int, ...]]] = {
    "1-8": (1, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 8),
    "1-12": tuple(range(1, 13)),
}


class Magic(IntEnum):
    """The twelve Magic cards. Only Shadow Mirror is named by the rulebook; the rest are a reconstruction."""

    SHADOW_MIRROR = 1  # copy the card just used
    SPELL_SHIFT = 2  # the Caster Token moves to the top spell card: it sets the round's spell rule
    BACKLASH = 3  # reverse the direction of play (one of the round's 2 reversals)
    TIME_STOP = 4  # the next player is skipped
    MANA_CRYSTAL = 5  # put 1 purple stone on this card
    SIPHON = 6  # move 1 stone from another player's card on the table onto this card
    MIND_SWAP = 7  # exchange hands with another player
    HEX = 8  # the next player takes 2 penalty cards
    PURGE = 9  # you may discard 1 card from your hand
    WARD = 10  # if you take the penalty this round, draw 3 fewer penalty cards
    RESONANCE = 11  # put 1 purple stone on each of your spell cards on the table
    WILD_SURGE = 12  # you may at once play any spell card from your hand as valid


MAGIC_NAMES: Final = {
    Magic.SHADOW_MIRROR: "Shadow Mirror",
    Magic.SPELL_SHIFT: "Spell Shift",
    Magic.BACKLASH: "Backlash",
    Magic.TIME_STOP: "Time Stop",
    Magic.MANA_CRYSTAL: "Mana Crystal",
    Magic.SIPHON: "Siphon",
    Magic.MIND_SWAP: "Mind Swap",
    Magic.HEX: "Hex",
    Magic.PURGE: "Purge",
    Magic.WARD: "Ward",
    Magic.RESONANCE: "Resonance",
    Magic.WILD_SURGE: "Wild Surge",
}

MAGIC_TEXT: Final = {
    Magic.SHADOW_MIRROR: "copy the card just used",
    Magic.SPELL_SHIFT: "move the Caster Token to the top spell card: its spell and number set the round's rule",
    Magic.BACKLASH: "reverse the direction of play (counts toward the 2 reversals)",
    Magic.TIME_STOP: "the next player is skipped",
    Magic.MANA_CRYSTAL: "put 1 purple stone on this card",
    Magic.SIPHON: "move 1 stone from another player's card on the table onto this card",
    Magic.MIND_SWAP: "exchange hands with another player",
    Magic.HEX: "the next player takes 2 penalty cards, face down",
    Magic.PURGE: "you may discard 1 card from your hand",
    Magic.WARD: "if you take the penalty this round, draw 3 fewer penalty cards",
    Magic.RESONANCE: "put 1 purple stone on each of your spell cards on the table",
    Magic.WILD_SURGE: "you may at once play any spell card from your hand as valid",
}

WARD_REDUCTION: Final = 3
CRYSTAL_STONES: Final = 1
HEX_PENALTY: Final = 2


class Role(IntEnum):
    """The six wizard roles (variant `roles=on`), a reconstruction: each bends one rule for its holder."""

    SURGEMASTER = 1  # a ManaSurge gives 4 stones, not 2
    STONEWARDEN = 2  # when they take the penalty, they still score 1 of the stones on their cards
    EMBER_SAGE = 3  # the Flying Dagger and Fireball penalty bonus does not apply to them
    CHRONOMANCER = 4  # their same-number plays and Backlash reverse even after the 2 reversals
    CRYSTAL_KEEPER = 5  # keeps their stone when 5 or more penalty cards come to hand
    ARCHCASTER = 6  # their opening card as Caster carries 2 stones, not 1


ROLE_NAMES: Final = {
    Role.SURGEMASTER: "Surgemaster",
    Role.STONEWARDEN: "Stonewarden",
    Role.EMBER_SAGE: "Ember Sage",
    Role.CHRONOMANCER: "Chronomancer",
    Role.CRYSTAL_KEEPER: "Crystal Keeper",
    Role.ARCHCASTER: "Archcaster",
}

ROLE_TEXT: Final = {
    Role.SURGEMASTER: "your ManaSurge gives 4 stones, not 2",
    Role.STONEWARDEN: "when you take the penalty, you still score 1 of the stones on your cards",
    Role.EMBER_SAGE: "the Flying Dagger and Fireball penalty bonus does not apply to you",
    Role.CHRONOMANCER: "your same-number plays and Backlash reverse the direction even after 2 reversals",
    Role.CRYSTAL_KEEPER: "you keep your stone when you take 5 or more penalty cards into hand",
    Role.ARCHCASTER: "your opening card as Caster carries 2 stones, not 1",
}


def is_magic(card: int) -> bool:
    return card >= SPELL_CARDS


def spell_of(card: int) -> int:
    """The spell of a spell card, 0 for a Magic card."""
    return 0 if is_magic(card) else card // PER_SPELL + 1


def number_of(card: int, numbers: str) -> int:
    """The number on a spell card under the `numbers` option, 0 for a Magic card."""
    return 0 if is_magic(card) else NUMBERS[numbers][card % PER_SPELL]


def magic_of(card: int) -> int:
    """The kind of a Magic card, 0 for a spell card."""
    return card - SPELL_CARDS + 1 if is_magic(card) else 0


def spell_name(spell: int, number: int) -> str:
    name = SPELL_NAMES.get(spell)  # type: ignore[call-overload]  # an int finds its Spell key (IntEnum hash)
    if name is None:
        name = SPELL_NAMES[Spell(spell)]  # the ValueError of a number that is no spell
    return f"{name} {number}"


def card_name(card: int, numbers: str) -> str:
    names = _CARD_NAMES.get(numbers)
    if names is not None and 0 <= card < DECK_SIZE:
        return names[card]
    return _card_name(card, numbers)


def card_names(cards: Sequence[int], numbers: str) -> str:
    """The names of `cards`, joined by commas (`card_name` of each)."""
    names = _CARD_NAMES.get(numbers)
    if names is not None and cards and min(cards) >= 0 and max(cards) < DECK_SIZE:
        return ", ".join([names[card] for card in cards])
    return ", ".join([card_name(card, numbers) for card in cards])


def _card_name(card: int, numbers: str) -> str:
    if is_magic(card):
        return MAGIC_NAMES[Magic(magic_of(card))]
    return spell_name(spell_of(card), number_of(card, numbers))


_CARD_NAMES: Final = {numbers: tuple(_card_name(c, numbers) for c in range(DECK_SIZE)) for numbers in NUMBERS}


def parse_card(text: str, numbers: str, among: list[int]) -> int:
    """The first card of `among` whose name is `text` (case-insensitive); ValueError when none is."""
    for card in among:
        if card_name(card, numbers).lower() == text.strip().lower():
            return card
    raise ValueError(f"no card named {text!r}")


def stones_text(stones: int) -> str:
    """A score as the stones on the table: gold stones are worth 5 purple."""
    gold, purple = divmod(stones, 5)
    return f"{stones} ({gold} gold, {purple} purple)" if gold else f"{stones}"


# ----- what the cards do (Game.catalogue) ---------------------------------------------------------------------------

ROLE_CARDS: Final = DECK_SIZE - 1  # a role's catalogue id is ROLE_CARDS + role (72-77): roles are dealt, not held

PLAYING: Final = (
    "A spell card is valid on the same number as the top card, or on a higher card of the same spell; playing the "
    "same number as the last spell card reverses the direction (at most twice a round)."
)
SPELL_TEXT: Final = {
    Spell.FLYING_DAGGER: "As the Caster card (the round's rule): numbers go down instead of up, and the player who "
    "cannot follow takes 1 more penalty card.",
    Spell.FIREBALL: "As the Caster card (the round's rule): the player who cannot follow takes 2 more penalty cards.",
    Spell.FREEZE: "Played above the Caster card in its spell: a stone on it, and you may give the next player any "
    "one card from your hand.",
    Spell.THUNDER: "Played above the Caster card in its spell: a stone on it, and you may play one more valid card.",
    Spell.EARTHQUAKE: "As the Caster card (the round's rule): if the Caster is not the one who fails to follow, "
    "every other player takes 1 penalty card.",
}


def card_facts(card: int, numbers: str) -> CardFacts:
    """What spell card, Magic card or role (id ROLE_CARDS + role) `card` does. Magic cards other than Shadow Mirror
    and every role are a reconstruction (RULES.md, "Designed content")."""
    if card > ROLE_CARDS:
        role = Role(card - ROLE_CARDS)
        text = ROLE_TEXT[role]
        return CardFacts(
            id=card,
            name=ROLE_NAMES[role],
            kind="Role",
            effect=text[0].upper() + text[1:] + ".",
            timing="all game (the roles variant)",
            tags=["role"],
        )
    if is_magic(card):
        magic = Magic(magic_of(card))
        text = MAGIC_TEXT[magic]
        return CardFacts(
            id=card,
            name=MAGIC_NAMES[magic],
            kind="Magic card",
            effect=text[0].upper() + text[1:] + ". Any Magic card is a valid play; it acts as soon as it is played.",
            timing="when it is your turn to play a card (never to open a round)",
            tags=["magic"],
        )
    spell = Spell(spell_of(card))
    return CardFacts(
        id=card,
        name=card_name(card, numbers),
        kind="Spell card",
        effect=f"{SPELL_TEXT[spell]} {PLAYING}",
        timing="when it is your turn to play a card, or to open a round as the Caster",
        tags=[SPELL_NAMES[spell], f"number {number_of(card, numbers)}"],
    )
