// Magicka Mayhem as its players see it: whose turn it is and what the turn is waiting for in plain words (the
// exchange, the cards it owes), every wizard with health and barrier, their creatures as cards with attack and
// health, beams and the spell in flight, your hand with what each spell still needs, and the decks.
import { html, nothing, type TemplateResult } from "lit-html";
import { MagickaPhase, type MagickaCreature, type MagickaState, type MagickaTarget, type MagickaWizard } from "../gen/manaforge/v1/games/magicka_pb";
import { card, cardRow, pile, type Cards } from "../cards";
import { heading, who, whose, Who, Whose, type Seating } from "../names";
import type { Presentation, Scene } from "./index";
import { seatClass } from "./parts";

function creatureName(cards: Cards, creature: MagickaCreature): string {
  return cards.name(creature.card).replace(/^Summon /, "");
}

function targetText(view: MagickaState, target: MagickaTarget | undefined, cards: Cards, seats: Seating): string {
  if (!target) return "?";
  if (target.creature > 0) {
    const creature = view.creatures.find((c) => c.number === target.creature);
    return creature ? `${whose(creature.controller, seats)} ${creatureName(cards, creature)}` : "a creature";
  }
  return who(target.seat, seats);
}

function plural(n: number, one: string): string {
  return `${n} ${one}${n === 1 ? "" : "s"}`;
}

function turnText(scene: Scene<MagickaState>): TemplateResult {
  const { view, seats } = scene;
  const mode = view.header?.config?.options.mode === "spell_vs_spell" ? "Spell vs. Spell" : "Spellmageddon";
  const turnOf = view.turn;
  const mine = turnOf === seats.mine;
  const lines: (TemplateResult | string)[] = [];
  if (view.phase === MagickaPhase.RESPONSE && view.cast) {
    const cast = view.cast;
    lines.push(html`A spell is in flight: ${whose(cast.caster, seats)} <strong>${scene.cards.name(cast.card)}</strong> at
      ${targetText(view, cast.target, scene.cards, seats)}${cast.reflected ? " (reflected)" : ""}. Each other wizard may answer it with a snap spell, or let it through.`);
  } else if (view.phase === MagickaPhase.DISCARD) {
    lines.push(`${Who(turnOf, seats)} ${mine ? "are" : "is"} discarding down to the hand limit to end the turn.`);
  } else if (view.exchangeOpen) {
    lines.push(`${mine ? "You may" : `${Who(turnOf, seats)} may`} exchange cards first: a Spell for two Elements, two Elements for a Spell, or one card for another of its kind. Casting a spell ends the exchange.`);
  }
  const owed = [view.owedElements ? plural(view.owedElements, "Element card") : "", view.owedSpells ? plural(view.owedSpells, "Spell card") : ""].filter(Boolean);
  if (owed.length) {
    lines.push(html`<strong>${mine ? "Your" : `${Whose(turnOf, seats)}`} exchange owes ${mine ? "you" : "them"} ${owed.join(" and ")}</strong>:
      ${mine ? "draw the replacement cards before you cast." : "drawn when the exchange ends."}`);
  }
  return html`<section class="panel mg-turn" aria-label="This turn">
    <p><strong>${view.header?.outcome?.finished ? "The game is over." : `${Whose(turnOf, seats)} turn`}</strong> · turn ${view.turnsTaken} · ${mode}</p>
    <ul class="mg-strip" aria-label="The wizards">${view.wizards.map((w, seat) => html`<li class=${seat === turnOf ? "to-play" : ""}>
      ${Who(seat, seats)}: <span class="health">♥ ${w.dead ? "defeated" : w.health}</span>${w.barrier ? html` <span class="barrier">barrier ${w.barrier}</span>` : nothing}${(() => {
        const n = view.creatures.filter((c) => c.controller === seat).length;
        return n ? ` · ${plural(n, "creature")}` : "";
      })()}</li>`)}</ul>
    ${lines.map((l) => html`<p>${l}</p>`)}
  </section>`;
}

function creatureCard(scene: Scene<MagickaState>, creature: MagickaCreature): TemplateResult {
  const { cards, seats, view } = scene;
  const state = [creature.wet ? "wet" : "", creature.frozen ? "frozen: cannot attack next turn" : "", view.turn === creature.controller ? (creature.ready ? "ready to attack" : "cannot attack this turn") : ""].filter(Boolean);
  return card(cards, creature.card, {
    label: whose(creature.controller, seats),
    note: "",
    cls: "creature",
    title: creatureName(cards, creature),
    kind: "Creature",
    extra: html`<span class="stats"><span class="attack" aria-label=${`attack ${creature.attack}`}>⚔ ${creature.attack}</span>
        <span class="health" aria-label=${`health ${creature.health} of ${creature.maxHealth}`}>♥ ${creature.health}/${creature.maxHealth}</span>
        ${creature.barrier ? html`<span class="barrier" aria-label=${`barrier ${creature.barrier}`}>barrier ${creature.barrier}</span>` : nothing}</span>
      ${state.length ? html`<span class="card-extra">${state.join(" · ")}</span>` : nothing}
      <span class="card-extra">${Whose(creature.controller, seats)} creature</span>`,
  });
}

function wizard(scene: Scene<MagickaState>, w: MagickaWizard, seat: number): TemplateResult {
  const { cards, seats, view } = scene;
  const mine = seat === seats.mine;
  const creatures = view.creatures.filter((c) => c.controller === seat);
  const badges = [w.dead ? "defeated" : "", w.wet ? "wet" : "", w.frozen ? "frozen: skips the next turn" : ""].filter(Boolean);
  return html`<section class="seat wizard ${seatClass(seat, seats)} ${w.dead ? "dead" : ""} ${view.turn === seat ? "to-play" : ""}" aria-label=${`${Who(seat, seats)}, wizard`}>
    <h3>${heading(seat, seats)}</h3>
    <p class="vitals"><span class="health" aria-label=${`${w.health} health`}><span aria-hidden="true">♥</span> <strong>${w.health}</strong> health</span>
      ${w.barrier ? html`<span class="barrier" aria-label=${`Shield Barrier ${w.barrier} of ${w.barrierMax}`}>barrier <strong>${w.barrier}</strong>/${w.barrierMax}</span>` : html`<span class="muted">no barrier</span>`}
      ${badges.map((b) => html`<span class="badge">${b}</span>`)}</p>
    ${mine
      ? html`<h4>Your Spell cards</h4>${cardRow(cards, w.spells, "none")}
          <h4>Your Element cards</h4>${cardRow(cards, [...w.elements].sort((a, b) => a - b), "none")}`
      : html`<p class="muted">Hand: ${plural(w.elementCount, "Element card")} and ${plural(w.spellCount, "Spell card")}, hidden.</p>`}
    <h4>Creatures</h4>
    ${creatures.length ? html`<ul class="cards">${creatures.map((c) => creatureCard(scene, c))}</ul>` : html`<p class="empty">none</p>`}
  </section>`;
}

function spellsInPlay(scene: Scene<MagickaState>): TemplateResult | typeof nothing {
  const { view, seats, cards } = scene;
  if (!view.beams.length && !view.cast) return nothing;
  return html`<section class="panel" aria-labelledby="mg-spells"><h2 id="mg-spells">Spells in play</h2>
    ${view.cast ? html`<p>In flight: ${whose(view.cast.caster, seats)}</p><ul class="cards">${card(cards, view.cast.card, { note: "" })}</ul>
      <p>at ${targetText(view, view.cast.target, cards, seats)}${view.cast.damage ? `, ${view.cast.damage} damage as cast` : ""}${view.cast.reflected ? ", reflected" : ""}.</p>` : nothing}
    ${view.beams.length
      ? html`<ul>${view.beams.map((b) => html`<li>A beam from ${who(b.caster, seats)} at ${targetText(view, b.target, cards, seats)}: ${b.damage} damage a turn, ${plural(b.turnsLeft, "more turn")}.</li>`)}</ul>`
      : nothing}
  </section>`;
}

function decks(scene: Scene<MagickaState>): TemplateResult {
  const { view, cards } = scene;
  const mayhem = view.header?.config?.options.mayhem !== "none";
  const recent = (ids: number[]) => cardRow(cards, ids.slice(-4), "empty");
  return html`<section class="panel piles-row" aria-label="The decks">
    <div><h4>Element deck</h4>${pile(view.elementDeckSize, "Element deck")}<h4>Element discards (newest last)</h4>${recent(view.elementDiscard)}</div>
    <div><h4>Spell deck</h4>${pile(view.spellDeckSize, "Spell deck")}<h4>Spell discards (newest last)</h4>${recent(view.spellDiscard)}</div>
    ${mayhem ? html`<div><h4>Mayhem deck</h4>${pile(view.mayhemDeckSize, "Mayhem deck")}<h4>Mayhem discards</h4>${recent(view.mayhemDiscard)}</div>` : nothing}
  </section>`;
}

export const magicka: Presentation<MagickaState> = {
  board(scene) {
    const { view, seats } = scene;
    // your own wizard first, then the others in seat order
    const order = view.wizards.map((_, seat) => seat).sort((a, b) => Number(b === seats.mine) - Number(a === seats.mine));
    return html`${turnText(scene)}${spellsInPlay(scene)}
      <div class="seats wizards">${order.map((seat) => wizard(scene, view.wizards[seat], seat))}</div>
      ${decks(scene)}`;
  },
};
