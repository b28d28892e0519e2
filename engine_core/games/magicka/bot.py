"""Bot hooks: worlds consistent with a wizard's view (for ISMCTS) and a fast hand-written heuristic."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from manaforge.v1.common_pb2 import Rng
from manaforge.v1.games.magicka_pb2 import MagickaAction, MagickaState, MagickaTarget

from engine_core import rng
from engine_core.games.magicka import spells
from engine_core.games.magicka.cards import (
    ANSWER,
    ATTACK,
    CAST_SNAP,
    CAST_SPELL,
    CATALOGUE,
    COLD,
    DISCARD,
    DRAW_REPLACEMENTS,
    END_TURN,
    LIFE,
    LIGHTNING,
    PASS,
    REPAIR,
    SHIELD,
    SPELL_BY_KIND,
    WATER,
    SpellType,
)

if TYPE_CHECKING:
    from engine_core.game import Game


def sample_world(game: Game[Any, Any], view: MagickaState, seat: int, source: Rng) -> MagickaState:
    """Deal every card `seat` cannot see again at random: other hands (by their public counts), then the decks."""
    world: MagickaState = game.copy(view)
    me = world.wizards[seat]
    seen = {*me.elements, *me.spells, *world.element_discard, *world.spell_discard, *world.mayhem_discard}
    seen |= {c.card for c in world.creatures}
    if world.HasField("cast"):
        seen.add(world.cast.card)
    pools = [[c for c in ids if c not in seen] for ids in (CATALOGUE.element_ids, CATALOGUE.spell_ids)]
    mayhem = [c for c in CATALOGUE.mayhem_ids if c not in seen]
    for pool in (*pools, mayhem):
        rng.shuffle(source, pool)
    elements, spell_cards = pools
    for other, wizard in enumerate(world.wizards):
        if other == seat:
            continue
        wizard.elements[:] = [elements.pop() for _ in range(wizard.element_count)]
        wizard.spells[:] = [spell_cards.pop() for _ in range(wizard.spell_count)]
    world.element_deck[:] = elements
    world.spell_deck[:] = spell_cards
    world.mayhem_deck[:] = mayhem
    world.header.rng.CopyFrom(rng.new_rng(rng.next_u64(source)))
    return world


def heuristic_action(view: MagickaState, seat: int, legal: list[MagickaAction], source: Rng) -> MagickaAction:
    """The best-scoring legal action (ties broken at random): hurt the weakest foe, protect and heal yourself."""
    scored = [(_score(view, seat, action), i) for i, action in enumerate(legal)]
    best = max(score for score, _ in scored)
    return legal[rng.choice(source, [i for score, i in scored if score == best])]


def _is_foe(view: MagickaState, seat: int, target: MagickaTarget) -> bool:
    return spells.controller(view, target) != seat


def _weakness(view: MagickaState, target: MagickaTarget) -> float:
    """Prefer finishing low targets, and wizards over creatures."""
    victim = spells.body(view, target)
    if victim is None:
        return 0.0
    return (25 - victim.health) / 5 + (0 if target.creature else 1) - victim.barrier / 2


def _score(view: MagickaState, seat: int, action: MagickaAction) -> float:
    cost = len(action.payment) * 0.3
    me = view.wizards[seat]
    t = action.type
    if t == ANSWER:
        return 20 + sum(1 for p in action.payment if p.element == SHIELD) * 5 - cost
    if t == ATTACK:
        return 15 + _weakness(view, action.target) if _is_foe(view, seat, action.target) else -50
    if t == CAST_SPELL:
        return _spell_score(view, seat, action) - cost
    if t == CAST_SNAP:
        return _snap_score(view, seat, action) - cost
    if t == REPAIR:
        return 2 if not _is_foe(view, seat, action.target) else -50
    if t == DISCARD:
        return -sum(1 for c in [*me.elements, *me.spells] if CATALOGUE.kind_of[c] == action.kinds[0]) * -1.0
    if t == DRAW_REPLACEMENTS:
        return 1
    if t in (END_TURN, PASS):
        return 0
    return -1  # exchanges: rarely worth it for this bot


def _spell_score(view: MagickaState, seat: int, action: MagickaAction) -> float:
    spell = SPELL_BY_KIND[action.spell]
    foe = _is_foe(view, seat, action.target)
    victim = spells.body(view, action.target)
    if spell.type in (SpellType.DAMAGE, SpellType.BEAM):
        return 10 + spell.amount * spell.turns + _weakness(view, action.target) if foe else -50
    if spell.type is SpellType.SUMMON:
        return 9 + action.extra
    if spell.type is SpellType.HEAL:
        hurt = spells.STARTING_HEALTH - victim.health if victim and not action.target.creature else 0
        return (4 + min(hurt, spell.amount + action.extra)) if not foe and hurt >= 4 else -5
    return 8 + action.extra if not foe and victim is not None and not victim.barrier else -5


def _snap_score(view: MagickaState, seat: int, action: MagickaAction) -> float:
    foe = _is_foe(view, seat, action.target)
    victim = spells.body(view, action.target)
    if victim is None:
        return -50
    element = action.element
    if element == SHIELD:
        return 4 + action.extra if not foe and not victim.barrier else -5
    if element == LIFE:
        return 3 if not foe and victim.health <= spells.STARTING_HEALTH - 2 - action.extra else -5
    if not foe:
        return -50
    if element in (COLD, LIGHTNING) and victim.wet:
        return 7 + _weakness(view, action.target)
    if element == WATER:
        return 1.5
    return 3 + _weakness(view, action.target) / 4
