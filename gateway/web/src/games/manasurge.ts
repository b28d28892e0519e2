// ManaSurge as its players see it: every player's stones against the goal, the round (who holds the Caster Token,
// the spell that rules the round, the direction, the card to follow), the cards on the table with their stones,
// each player's role and what it does, your hand, and the piles.
import { html, nothing, type TemplateResult } from "lit-html";
import type { ManasurgePlayed, ManasurgePlayer, ManasurgeState } from "../gen/manaforge/v1/games/manasurge_pb";
import { card, cardRow, pile } from "../cards";
import { heading, who, whose, Who, Whose } from "../names";
import type { Presentation, Scene } from "./index";
import { seatClass } from "./parts";

const ROLE_BASE = 71; // a role's card facts: catalogue id 71 + role (manasurge.proto)

function stones(n: number): string {
  return `${n} stone${n === 1 ? "" : "s"}`;
}

function goal(scene: Scene<ManasurgeState>): TemplateResult {
  const { view, seats } = scene;
  const target = view.goal;
  return html`<section class="panel ms-goal" aria-labelledby="ms-goal">
    <h2 id="ms-goal">${target ? `First to ${target} stones wins` : "Stones"}</h2>
    <ul class="stone-race">${view.players.map((p, seat) => html`<li class=${seatClass(seat, seats)}>
      <span class="who">${Who(seat, seats)}</span>
      ${target
        ? html`<meter min="0" max=${target} .value=${Math.min(p.stones, target)} aria-label=${`${Whose(seat, seats)} stones`}></meter>`
        : nothing}
      <span><strong>${p.stones}</strong>${target ? ` of ${target}` : ""}</span></li>`)}</ul>
  </section>`;
}

/** A Magic card that counts as another card (Shadow Mirror): ids 60-71 are the Magic cards, kind = id - 59. */
function copying(p: ManasurgePlayed): boolean {
  return p.id >= 60 && (p.spell > 0 || (p.magic > 0 && p.magic !== p.id - 59));
}

/** The table card that carries the Caster Token: its spell and number set the round's rule. */
function ruleCard(view: ManasurgeState): ManasurgePlayed | undefined {
  return view.table.find((p) => (p.spell || 0) === view.casterSpell && p.number === view.casterNumber);
}

function round(scene: Scene<ManasurgeState>): TemplateResult {
  const { view, seats, cards } = scene;
  const rule = ruleCard(view);
  const top = [...view.table].reverse().find((p) => p.spell === view.topSpell && p.number === view.topNumber);
  const warded = view.warded.map((s) => Who(s, seats));
  return html`<section class="panel ms-round" aria-labelledby="ms-round">
    <h2 id="ms-round">Round ${view.round}</h2>
    <p>${Who(view.caster, seats)} ${view.caster === seats.mine ? "hold" : "holds"} the Caster Token.
      ${view.casterSpell
        ? html`The round's rule: <strong>${rule ? cards.name(rule.id) : "the Caster card"}</strong>; play goes ${view.clockwise ? "clockwise" : "counter-clockwise"}
          (${view.reversals} of 2 reversals used).${top ? html` To follow: <strong>${cards.name(top.id)}</strong> — the same number, a higher card of the same spell, or any Magic card.` : nothing}`
        : "No card played yet: the Caster opens the round."}
      ${warded.length ? html` Warded this round: ${warded.join(", ")}.` : nothing}</p>
    <h3>On the table (in play order)</h3>
    ${view.table.length
      ? html`<ol class="cards table-cards">${view.table.map((p) =>
          card(cards, p.id, {
            note: "",
            label: `${p === rule ? "the Caster card, " : ""}played by ${who(p.seat, seats)}:`,
            cls: p === rule ? "rule" : "",
            extra: html`${p === rule ? html`<span class="badge rule-badge">Caster card</span>` : nothing}
              <span class="card-extra">played by ${who(p.seat, seats)}${copying(p) ? " · copying the card before it" : ""}</span>
              ${p.stones ? html`<span class="stones" aria-label=${stones(p.stones)}>${"●".repeat(Math.min(p.stones, 12))} ${stones(p.stones)}</span>` : nothing}`,
          }))}</ol>`
      : html`<p class="empty">no card yet</p>`}
  </section>`;
}

function player(scene: Scene<ManasurgeState>, p: ManasurgePlayer, seat: number): TemplateResult {
  const { seats, cards } = scene;
  const mine = seat === seats.mine;
  return html`<section class="seat ${seatClass(seat, seats)}" aria-label=${Who(seat, seats)}>
    <h3>${heading(seat, seats)}${seat === scene.view.caster ? html` <span class="badge">Caster</span>` : nothing}</h3>
    <p><strong>${stones(p.stones)}</strong> · ${p.penaltySize} penalty card${p.penaltySize === 1 ? "" : "s"} face down</p>
    ${p.role ? html`<h4>Role</h4><ul class="cards">${card(cards, ROLE_BASE + p.role, { note: "", cls: "role" })}</ul>` : nothing}
    <h4>Hand</h4>
    ${mine ? cardRow(cards, [...p.hand].sort((a, b) => a - b), "no cards") : p.handSize ? pile(p.handSize, `${whose(seat, seats)} hand`) : html`<p class="empty">no cards</p>`}
  </section>`;
}

export const manasurge: Presentation<ManasurgeState> = {
  board(scene) {
    const { view, cards } = scene;
    return html`${goal(scene)}${round(scene)}
      <div class="seats">${view.players.map((p, seat) => player(scene, p, seat))}</div>
      <section class="panel piles-row" aria-label="The piles">
        <div><h4>Draw pile</h4>${pile(view.deckSize, "Draw pile")}</div>
        <div><h4>Discards (newest last)</h4>${cardRow(cards, view.discard.slice(-5), "empty")}</div>
      </section>`;
  },
};
