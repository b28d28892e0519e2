"""What spells, creatures, barriers and Mayhem do to wizards and creatures. Pure functions over MagickaState.

A *target* is a MagickaTarget: a wizard (creature == 0) or a creature by number. A *body* is the wizard or creature
message it points at (both have health, wet, frozen, barrier, barrier_max).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from manaforge.v1.common_pb2 import Event
from manaforge.v1.games.magicka_pb2 import (
    MagickaBeam,
    MagickaCast,
    MagickaCreature,
    MagickaState,
    MagickaTarget,
    MagickaWizard,
)

from engine_core import rng
from engine_core.game import event, options
from engine_core.games.magicka.cards import (
    ARCANE,
    COLD,
    EARTH,
    FIRE,
    LIFE,
    LIGHTNING,
    SHIELD,
    SPELL_BY_KIND,
    WATER,
    Death,
    Element,
    Mayhem,
    SpellCard,
    SpellType,
    element_name,
    mayhem_card,
)
from engine_core.games.magicka.sharing import own_pile, own_rng, own_wizard
from engine_core.live import clone

STARTING_HEALTH: Final = 20
Body = MagickaWizard | MagickaCreature
Recipe = dict[Element, int]

SNAP_NAMES: Final[dict[Element, str]] = {
    EARTH: "Baby Boulder",
    LIGHTNING: "Static Stunner",
    ARCANE: "Arcane Arc",
    FIRE: "Flickering Flame",
    COLD: "Cold Cube",
    WATER: "Wet Willy",
    SHIELD: "Shoddy Shield",
    LIFE: "Vitality Tonic",
}
SNAP_EXTRA: Final[tuple[Element, ...]] = (SHIELD, LIFE)  # snaps that take additional Elements
# What each snap spell does (the Snap Spell Quick Reference, R16-R22 of RULES.md), for action labels.
SNAP_TEXT: Final[dict[Element, str]] = {
    EARTH: "1 damage",
    LIGHTNING: "1 damage; 2 and dries a wet target",
    ARCANE: "1 damage",
    FIRE: "1 damage; dries a wet target instead",
    COLD: "freezes a wet target for 1 turn",
    WATER: "makes the target wet",
    SHIELD: "a Shield Barrier of strength 2, +1 for each extra Shield",
    LIFE: "heals 1, +1 for each extra Life",
}


# ----- targets ------------------------------------------------------------------------------------------------------


def wizard_target(seat: int) -> MagickaTarget:
    return MagickaTarget(seat=seat)


def creature_target(creature: MagickaCreature) -> MagickaTarget:
    return MagickaTarget(seat=creature.controller, creature=creature.number)


def find_creature(state: MagickaState, number: int) -> MagickaCreature | None:
    for creature in state.creatures:
        if creature.number == number:
            return creature
    return None


def body(state: MagickaState, target: MagickaTarget) -> Body | None:
    """The living wizard or creature `target` points at, or None; a wizard as the state's own, to be changed
    (sharing.own_wizard)."""
    if target.creature:
        return find_creature(state, target.creature)
    seat = target.seat
    if 0 <= seat < len(state.wizards) and not state.wizards[seat].dead:
        return own_wizard(state, seat)
    return None


def controller(state: MagickaState, target: MagickaTarget) -> int:
    creature = find_creature(state, target.creature) if target.creature else None
    return creature.controller if creature else target.seat


def targets(state: MagickaState) -> list[MagickaTarget]:
    """Every living wizard and creature, wizards first."""
    found = [wizard_target(s) for s, w in enumerate(state.wizards) if not w.dead]
    return found + [creature_target(c) for c in state.creatures]


def target_name(state: MagickaState, target: MagickaTarget) -> str:
    if target.creature:
        creature = find_creature(state, target.creature)
        if creature is None:
            return f"creature #{target.creature}"
        name = SPELL_BY_KIND[creature.kind].name.removeprefix("Summon ")
        return f"seat {creature.controller}'s {name} #{target.creature}"
    return f"seat {target.seat}"


def is_standing(state: MagickaState, seat: int) -> bool:
    """'Gameplay proceeds until one Wizard (or its Creature!) remains standing.'"""
    return not state.wizards[seat].dead or any(c.controller == seat for c in state.creatures[:])


def standing(state: MagickaState) -> list[int]:
    return [s for s in range(len(state.wizards)) if is_standing(state, s)]


# ----- damage, healing and statuses ---------------------------------------------------------------------------------


def deal_damage(state: MagickaState, target: MagickaTarget, amount: int, why: str, events: list[Event]) -> None:
    """Damage through the barrier: 'Any Spell Damage that exceeds the strength of the Shield Barrier is passed on.'"""
    hit = body(state, target)
    if hit is None or amount <= 0:
        return
    name = target_name(state, target)
    if hit.barrier:
        absorbed = min(hit.barrier, amount)
        hit.barrier -= absorbed
        amount -= absorbed
        text = f"{name}'s barrier absorbed {absorbed} damage from {why}"
        if hit.barrier == 0:
            hit.barrier_max = 0
            text += " and collapsed"
        events.append(event("DamageAbsorbed", text))
    if amount <= 0:
        return
    hit.health = max(0, hit.health - amount)
    events.append(event("DamageDealt", f"{name} took {amount} damage from {why} ({hit.health} health left)"))
    if hit.health == 0:
        _destroy(state, target, events)


def heal(state: MagickaState, target: MagickaTarget, amount: int, why: str, events: list[Event]) -> None:
    """'Healing increases Health' up to the starting Health; a barrier blocks it."""
    hit = body(state, target)
    if hit is None or amount <= 0:
        return
    name = target_name(state, target)
    if hit.barrier:
        events.append(event("HealBlocked", f"{name}'s barrier blocked the healing from {why}"))
        return
    cap = getattr(hit, "max_health", STARTING_HEALTH)  # a creature's starting health; a wizard has no max_health
    gained = min(amount, cap - hit.health)
    hit.health += gained
    events.append(event("Healed", f"{name} healed {gained} from {why} ({hit.health} health)"))


def make_wet(state: MagickaState, target: MagickaTarget, why: str, events: list[Event]) -> None:
    hit = body(state, target)
    if hit is None:
        return
    if hit.barrier:
        events.append(event("StatusBlocked", f"{target_name(state, target)}'s barrier kept it dry ({why})"))
        return
    hit.wet = True
    events.append(event("MadeWet", f"{target_name(state, target)} was made wet by {why}"))


def freeze(state: MagickaState, target: MagickaTarget, why: str, events: list[Event], *, forced: bool = False) -> None:
    """Frozen skips its next turn; freezing dries ('remains wet until it is dried, Frozen or Zapped')."""
    hit = body(state, target)
    if hit is None:
        return
    if hit.barrier and not forced:
        events.append(event("StatusBlocked", f"{target_name(state, target)}'s barrier stopped the freeze ({why})"))
        return
    hit.frozen = True
    hit.wet = False
    events.append(event("Frozen", f"{target_name(state, target)} was frozen by {why}"))


def set_barrier(state: MagickaState, target: MagickaTarget, strength: int, why: str, events: list[Event]) -> None:
    """A new barrier replaces any barrier the target has (RULES.md, decision D8)."""
    hit = body(state, target)
    if hit is None or strength <= 0:
        return
    hit.barrier = hit.barrier_max = strength
    events.append(event("BarrierRaised", f"{target_name(state, target)} gained a barrier of strength {strength}"))


def _destroy(state: MagickaState, target: MagickaTarget, events: list[Event]) -> None:
    if target.creature:
        _destroy_creature(state, target.creature, events)
        return
    wizard = own_wizard(state, target.seat)
    wizard.dead, wizard.wet, wizard.frozen, wizard.barrier, wizard.barrier_max = True, False, False, 0, 0
    own_pile(state, "element_discard").extend(wizard.elements)
    own_pile(state, "spell_discard").extend(wizard.spells)
    del wizard.elements[:]
    del wizard.spells[:]
    wizard.element_count = wizard.spell_count = 0
    _end_beams_at(state, target)
    events.append(event("WizardDied", f"seat {target.seat} died. Dead... is... DEAD!"))


def _destroy_creature(state: MagickaState, number: int, events: list[Event]) -> None:
    creature = find_creature(state, number)
    if creature is None:
        return
    spell = SPELL_BY_KIND[creature.kind]
    name = target_name(state, creature_target(creature))
    owner = creature.controller
    own_pile(state, "spell_discard").append(creature.card)
    state.creatures.remove(creature)
    _end_beams_at(state, MagickaTarget(seat=owner, creature=number))
    events.append(event("CreatureDestroyed", f"{name} expired"))
    opponents = [wizard_target(s) for s, w in enumerate(state.wizards) if s != owner and not w.dead]
    if spell.on_death is Death.FREEZE_OPPONENTS:
        for foe in opponents:
            freeze(state, foe, f"the dying {name}", events)
    elif spell.on_death is Death.BURN_OPPONENTS:
        for foe in opponents:
            deal_damage(state, foe, 2, f"the dying {name}", events)
    elif spell.on_death is Death.HEAL_CONTROLLER:
        heal(state, wizard_target(owner), 3, f"the dying {name}", events)


def _end_beams_at(state: MagickaState, target: MagickaTarget) -> None:
    """Beams at a fallen target stop; so do beams whose caster's side has fallen (it has no more turns)."""
    for beam in list(state.beams):
        if beam.target == target or not is_standing(state, beam.caster):
            state.beams.remove(beam)


# ----- spell damage -------------------------------------------------------------------------------------------------


def recipe(spell: SpellCard) -> Recipe:
    return dict(spell.cost)


def snap_recipe(element: Element) -> Recipe:
    return {element: 2}


def elemental_damage(state: MagickaState, target: MagickaTarget, amount: int, elements: Recipe) -> int:
    """Creatures: IMMUNE / WEAK to spells 'containing two (2) or more' of the Element."""
    creature = find_creature(state, target.creature) if target.creature else None
    if creature is None:
        return amount
    spell = SPELL_BY_KIND[creature.kind]
    if any(elements.get(e, 0) >= 2 for e in spell.immune):
        return 0
    if any(elements.get(e, 0) >= 2 for e in spell.weak):
        return amount * 2
    return amount


# ----- casting a spell card spell -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scale:
    """How Mayhem (and an explosion) scale a spell: damage by a fraction, healing and barriers by an integer."""

    damage: Fraction = Fraction(1)
    effect: int = 1

    def of_damage(self, amount: int) -> int:
        damage = self.damage
        if damage.denominator == 1:  # a whole multiple: no Fraction arithmetic
            return amount * damage.numerator
        return int(amount * damage)  # halves round down (RULES.md, decision D11)


FULL: Final = Scale()  # a spell as cast
HALF: Final = Scale(damage=Fraction(1, 2))


def cast_damage(state: MagickaState, spell: SpellCard) -> int:
    """Fire Bolt: 'Causes 4 Damage if Cast in the same Turn as another Spell with 2 or more Fire Elements.'"""
    if spell.fire_combo and state.fire_spells > 0:
        return spell.fire_combo
    return spell.amount


def hit(state: MagickaState, cast: MagickaCast, target: MagickaTarget, scale: Scale, events: list[Event]) -> None:
    """The spell's effect on one target."""
    spell = SPELL_BY_KIND[cast.spell]
    victim = body(state, target)
    if victim is None:
        return
    why = spell.name
    shielded = victim.barrier > 0
    if spell.type is SpellType.DAMAGE:
        amount = cast.damage
        if (spell.double_vs_wet and victim.wet) or (spell.double_vs_frozen and victim.frozen):
            amount *= 2
        deal_damage(state, target, scale.of_damage(elemental_damage(state, target, amount, recipe(spell))), why, events)
        if spell.freezes and not shielded:
            freeze(state, target, why, events)
        if spell.wets and not shielded:
            make_wet(state, target, why, events)
    elif spell.type is SpellType.BEAM:
        state.beams.add(
            caster=cast.caster,
            spell=cast.spell,
            target=target,
            damage=scale.of_damage(cast.damage),
            turns_left=spell.turns,
        )
        tick_beam(state, state.beams[-1], events)
    elif spell.type is SpellType.HEAL:
        heal(state, target, (spell.amount + cast.extra) * scale.effect, why, events)
    elif spell.type is SpellType.BARRIER:
        set_barrier(state, target, (spell.amount + cast.extra) * scale.effect, why, events)


def tick_beam(state: MagickaState, beam: MagickaBeam, events: list[Event]) -> None:
    """One turn of a beam. 'A Beam Spell is disrupted (thereby stopping FUTURE Damage) by a Shield Barrier.
    However, the Barrier is destroyed in the process.'"""
    spell = SPELL_BY_KIND[beam.spell]
    victim = body(state, beam.target)
    beam.turns_left -= 1
    if victim is None:
        state.beams.remove(beam)
        return
    if victim.barrier:
        victim.barrier = victim.barrier_max = 0
        events.append(
            event("BeamBlocked", f"{target_name(state, beam.target)}'s barrier stopped the {spell.name} and collapsed")
        )
        state.beams.remove(beam)
        return
    target = clone(beam.target)
    if beam.turns_left <= 0:
        state.beams.remove(beam)
    amount = elemental_damage(state, target, beam.damage, recipe(spell))
    deal_damage(state, target, amount, spell.name, events)
    if spell.heals_caster and not state.wizards[beam.caster].dead:
        heal(state, wizard_target(beam.caster), spell.heals_caster, spell.name, events)


def summon(state: MagickaState, caster: int, card: int, spell: SpellCard, extra: int, events: list[Event]) -> None:
    state.next_creature += 1
    creature = state.creatures.add(
        number=state.next_creature,
        card=card,
        kind=spell.kind,
        controller=caster,
        attack=spell.attack + (extra if spell.upgrade_attack else 0),
        health=spell.health + (0 if spell.upgrade_attack else extra),
        ready=spell.haste,
    )
    creature.max_health = creature.health
    events.append(
        event(
            "CreatureSummoned",
            f"seat {caster} summoned {target_name(state, creature_target(creature))} "
            f"(attack {creature.attack}, health {creature.health})",
            actor=caster,
        )
    )


# ----- Mayhem -------------------------------------------------------------------------------------------------------


def passes_muster(state: MagickaState) -> bool:
    """True when the spell continues as cast; False when it is Mayhemified."""
    level = options(state)["mayhem"]
    if level == "maximum":
        return False
    if level == "none":
        return True
    if level == "minimum":
        return rng.roll(own_rng(state), 6) != 1
    return not rng.coin(own_rng(state))  # heads: Mayhem


def draw_mayhem(state: MagickaState, events: list[Event]) -> int:
    deck = own_pile(state, "mayhem_deck")
    if not deck:
        rng.shuffle_into(own_rng(state), deck, own_pile(state, "mayhem_discard"))
        events.append(event("DeckReshuffled", "the Mayhem discards were shuffled into a new Mayhem deck"))
    card = deck.pop()
    own_pile(state, "mayhem_discard").append(card)
    state.mayhem_deck_size = len(deck)
    return card


def mayhem_hit(
    state: MagickaState, cast: MagickaCast, target: MagickaTarget, drawer: int, scale: Scale, events: list[Event]
) -> None:
    """Draw a Mayhem card and let the spell hit `target` as the card says."""
    card = draw_mayhem(state, events)
    design = mayhem_card(card)
    events.append(event("MayhemDrawn", f'seat {drawer} drew Mayhem: {design.name} "{design.text}"', actor=drawer))
    caster = wizard_target(cast.caster)
    effect = design.effect
    hits: list[MagickaTarget] = [target]
    if effect is Mayhem.BIGGER_STAFF:
        if controller(state, target) != cast.caster:
            hits = [wizard_target(s) for s, w in enumerate(state.wizards) if s != cast.caster and not w.dead]
            scale = Scale(scale.damage * 2, scale.effect * 2)
    elif effect is Mayhem.BACKFIRE:
        hits = [caster]
    elif effect is Mayhem.FIZZLE:
        hits = []
    elif effect is Mayhem.OVERCOOKED:
        scale = Scale(scale.damage * 2, scale.effect * 2)
    elif effect is Mayhem.RICOCHET:
        others = [wizard_target(s) for s, w in enumerate(state.wizards) if s != cast.caster and not w.dead]
        hits = [rng.choice(own_rng(state), others)] if others else []
    elif effect is Mayhem.HALF_BAKED:
        scale = Scale(scale.damage / 2, scale.effect)
    for each in hits:
        hit(state, cast, each, scale, events)
    _after_mayhem(state, effect, cast.caster, events)


def _after_mayhem(state: MagickaState, effect: Mayhem, caster: int, events: list[Event]) -> None:
    me = wizard_target(caster)
    if effect is Mayhem.BIGGER_STAFF:
        freeze(state, me, "Mayhem", events, forced=True)  # the card's text beats the barrier rule
    elif effect is Mayhem.FLAMING_BUNNY:
        for seat, wizard in enumerate(state.wizards):
            if not wizard.dead:
                deal_damage(state, wizard_target(seat), 1, "a flaming bunny", events)
    elif effect is Mayhem.LUCKY_UNDERPANTS:
        heal(state, me, 2, "lucky underpants", events)
    elif effect is Mayhem.SOGGY_ROBES:
        make_wet(state, me, "soggy robes", events)


# ----- snap spells --------------------------------------------------------------------------------------------------


def snap(
    state: MagickaState, caster: int, element: Element, extra: int, target: MagickaTarget, events: list[Event]
) -> None:
    """The eight snap spells of the Snap Spell Quick Reference."""
    victim = body(state, target)
    if victim is None:
        return
    name = SNAP_NAMES[element]
    shielded = victim.barrier > 0
    elements = snap_recipe(element)
    if element == WATER:
        make_wet(state, target, name, events)
    elif element == COLD:
        if victim.wet and not shielded:
            freeze(state, target, name, events)
        else:
            events.append(event("SnapFizzled", f"{name} found nothing wet to freeze on {target_name(state, target)}"))
    elif element == FIRE and victim.wet and not shielded:
        victim.wet = False
        events.append(event("Dried", f"{target_name(state, target)} was dried by {name} (no damage)"))
    elif element == LIGHTNING and victim.wet and not shielded:
        victim.wet = False
        events.append(event("Zapped", f"{target_name(state, target)} was zapped by {name}"))
        deal_damage(state, target, elemental_damage(state, target, 2, elements), name, events)
    elif element == SHIELD:
        set_barrier(state, target, 2 + extra, name, events)
    elif element == LIFE:
        heal(state, target, 1 + extra, name, events)
    else:
        deal_damage(state, target, elemental_damage(state, target, 1, elements), name, events)


def repair(state: MagickaState, target: MagickaTarget, amount: int, events: list[Event]) -> None:
    """'1 Shield Element repairs 1 Damage point up to INITIAL CASTING maximum.'"""
    victim = body(state, target)
    if victim is None:
        return
    fixed = min(amount, victim.barrier_max - victim.barrier)
    victim.barrier += fixed
    events.append(event("BarrierRepaired", f"{target_name(state, target)}'s barrier was repaired by {fixed}"))


def describe_elements(elements: Recipe) -> str:
    return " + ".join(f"{n} {element_name(e)}" for e, n in elements.items())
