"""Magicka Mayhem: The Card Game — 2 to 6 wizards hurl spells built from Element cards until one is left standing.

Each wizard starts with 20 Health, 5 Element and 3 Spell cards. A turn: draw 2 Elements and 1 Spell, optionally
exchange cards (all discards first, then every replacement at once), then cast spell card spells and snap spells,
repair barriers and attack with creatures, then discard down to 10 cards. Spell card spells (but not summons) pass
a Mayhem Muster. In Spell vs. Spell mode the target may answer a spell with a snap spell: counter, disrupt or
reflect. Rules, card design (a reconstruction) and every decision: RULES.md beside this file.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from manaforge.v1.common_pb2 import CardFacts, Event, GameConfig, Rng
from manaforge.v1.games.magicka_pb2 import MagickaAction, MagickaState
from mypy_extensions import mypyc_attr

from engine_core.budget import Budget, by_seats
from engine_core.game import Game, GameInfo, Option
from engine_core.games.magicka import actions, bot, moves, rules, text, turns
from engine_core.games.magicka.cards import CATALOGUE, PASS, card_facts
from engine_core.games.magicka.moves import MAX_SEATS, RESPONDING
from engine_core.games.magicka.sharing import step_copy
from engine_core.games.magicka.turns import ACTIONS_PER_TURN, HAND_LIMIT, ROUND_LIMITS
from engine_core.spaces import Spaces

FLAT: Final = Budget(
    iterations=1000, actions=540, evaluate_after=10, search="flat", rollout="heuristic", max_rollout_actions=200
)
"""The flat search at two seats; the other table sizes change a few of its settings (`bot_budget`)."""


@mypyc_attr(native_class=False)  # compiled by `make engines`; its class attributes stay Python's
class Magicka(Game[MagickaState, MagickaAction]):
    info = GameInfo(
        name="magicka",
        title="Magicka Mayhem",
        min_seats=2,
        max_seats=MAX_SEATS,
        description="Wizards build spells from Element cards; Mayhem makes them go wrong. Last wizard standing wins.",
        options=(
            Option(
                "mode",
                "spellmageddon",
                ("spellmageddon", "spell_vs_spell"),
                "Spellmageddon (simple) or Spell vs. Spell (snap spells answer spells: counter, disrupt, reflect)",
            ),
            Option(
                "mayhem",
                "coin",
                ("coin", "minimum", "maximum", "none"),
                "Mayhem Muster: coin flip (heads: Mayhem), Minimum Mayhem (a d6 showing 1), Maximum Mayhem (every "
                "spell), or none",
            ),
            Option(
                "counter",
                "pair",
                ("pair", "any"),
                "Spell vs. Spell: a counter's Element must oppose an Element the spell holds two of (pair), or any "
                "Element of the spell (any)",
            ),
            Option(
                "round_limit",
                "100",
                ROUND_LIMITS,
                "platform bound: after this many rounds the standing wizard with the most Health wins",
            ),
        ),
        max_actions=int(ROUND_LIMITS[-1]) * MAX_SEATS * ACTIONS_PER_TURN,
        extra={
            "golden": "magicka_spell_vs_spell,2,mode=spell_vs_spell,mayhem=maximum;magicka_minimum,4,mayhem=minimum",
        },
    )
    # Flat search over the heuristic's own playouts, each cut after 10 actions and scored by the evaluation (rollout
    # policy improvement); fewer actions from four seats up, where a step costs more. docs/bots.md has the figures.
    bot_budget = by_seats(
        {
            2: FLAT,
            4: replace(FLAT, actions=400),
        }
    )
    state_type = MagickaState
    action_type = MagickaAction

    step_copy = staticmethod(step_copy)  # `apply`'s copy shares the wizards until the rules change one (sharing.py)

    def spaces(self, config: GameConfig) -> Spaces:
        return moves.spaces(config)

    # ----- setup and turns --------------------------------------------------------------------------------------

    def _setup(self, state: MagickaState) -> None:
        turns.setup(state)

    # ----- legal actions ----------------------------------------------------------------------------------------

    def _legal_actions(self, state: MagickaState, seat: int) -> list[MagickaAction]:
        return actions.legal_actions(state, seat)

    # ----- applying actions -------------------------------------------------------------------------------------

    def _apply(self, state: MagickaState, seat: int, action: MagickaAction) -> list[Event]:
        return rules.apply(state, seat, action)

    # ----- views ------------------------------------------------------------------------------------------------

    def _redact(self, view: MagickaState, seat: int | None) -> None:
        for deck in (view.element_deck, view.spell_deck, view.mayhem_deck):
            del deck[:]
        for other, wizard in enumerate(view.wizards):
            if other != seat:
                del wizard.elements[:]
                del wizard.spells[:]

    def cards(self, state: MagickaState) -> list[int]:
        found = [
            *state.element_deck,
            *state.spell_deck,
            *state.mayhem_deck,
            *state.element_discard,
            *state.spell_discard,
            *state.mayhem_discard,
            *(c.card for c in state.creatures),
        ]
        for wizard in state.wizards:
            found += [*wizard.elements, *wizard.spells]
        if state.HasField("cast"):
            found.append(state.cast.card)
        return found

    def hidden_cards(self, state: MagickaState, seat: int | None) -> set[int]:
        hidden = {*state.element_deck, *state.spell_deck, *state.mayhem_deck}
        for other, wizard in enumerate(state.wizards):
            if other != seat:
                hidden.update(wizard.elements)
                hidden.update(wizard.spells)
        return hidden

    def timeout_action(self, state: MagickaState, seat: int) -> MagickaAction | None:
        """An absent wizard lets the spell through when the response window's timer runs out."""
        if state.phase == RESPONDING and seat in state.header.pending.seats:
            return MagickaAction(type=PASS)
        return None

    def _catalogue(self, config: GameConfig) -> list[CardFacts]:
        return [card_facts(card) for card in sorted(CATALOGUE.kind_of)]

    def card_notes(self, state: MagickaState, seat: int, legal: list[MagickaAction] | None = None) -> dict[int, str]:
        wizard = state.wizards[seat]
        if state.header.outcome.finished or wizard.dead or not wizard.spells:
            return {}
        if legal is None:
            legal = self.legal_actions(state, seat) if seat in state.header.pending.seats else []
        return text.card_notes(state, seat, legal)

    def describe(self, state: MagickaState, action: MagickaAction) -> str:
        return text.describe_action(state, action)

    def render(self, view: MagickaState, seat: int | None) -> str:
        return text.render(view, seat, HAND_LIMIT)

    # ----- bots -------------------------------------------------------------------------------------------------

    def sample_world(self, view: MagickaState, seat: int, rng_: Rng) -> MagickaState:
        return bot.sample_world(self, view, seat, rng_)

    def heuristic_action(self, view: MagickaState, seat: int, legal: list[MagickaAction], rng_: Rng) -> MagickaAction:
        return bot.heuristic_action(view, seat, legal, rng_)

    def evaluate(self, state: MagickaState) -> list[float]:
        """Health plus half the attack and health of the creatures controlled; a dead wizard has no chance."""
        strengths = [float(wizard.health + wizard.barrier) for wizard in state.wizards]
        for creature in state.creatures:
            if creature.health > 0:
                strengths[creature.controller] += (creature.attack + creature.health) / 2
        chances = self.win_chances(strengths, 5.0)
        alive = [0.0 if wizard.dead else chance for wizard, chance in zip(state.wizards, chances, strict=True)]
        total = sum(alive)
        return [chance / total for chance in alive] if total else chances


GAME: Final = Magicka()
