// Mishra's Manufactory as its players see it: the conveyor belt (the front free, the back for a discard), the
// deck, and each player's colour groups, largest first, with the points once the game is scored.
import { html, nothing, type TemplateResult } from "lit-html";
import { ManufactoryColor, type ManufactoryPlayer, type ManufactoryState } from "../gen/manaforge/v1/games/manufactory_pb";
import { cardRow, pile } from "../cards";
import { heading, whose, Who } from "../names";
import type { Presentation, Scene } from "./index";
import { seatClass } from "./parts";

const COLOURS = new Map<ManufactoryColor, string>([
  [ManufactoryColor.WHITE, "white"],
  [ManufactoryColor.BLUE, "blue"],
  [ManufactoryColor.BLACK, "black"],
  [ManufactoryColor.RED, "red"],
  [ManufactoryColor.GREEN, "green"],
  [ManufactoryColor.COLORLESS, "colorless"],
]);

function player(scene: Scene<ManufactoryState>, p: ManufactoryPlayer, seat: number): TemplateResult {
  const { seats } = scene;
  const groups = p.groups.filter((g) => g.cards.length);
  const total = p.groups.reduce((n, g) => n + g.cards.length, 0);
  return html`<section class="seat ${seatClass(seat, seats)}" aria-label=${Who(seat, seats)}>
    <h3>${heading(seat, seats)}</h3>
    <p>${total} card${total === 1 ? "" : "s"} in ${groups.length} group${groups.length === 1 ? "" : "s"}${scene.outcome?.finished ? html` · <strong>${p.points} points</strong>` : nothing}</p>
    ${groups.length
      ? html`<div class="groups">${groups.map((g) => html`<section class="group g-${COLOURS.get(g.color)}" aria-label=${`${whose(seat, seats)} ${COLOURS.get(g.color)} group`}>
          <h4>${COLOURS.get(g.color)}: ${g.cards.length}</h4>${cardRow(scene.cards, g.cards)}</section>`)}</div>`
      : html`<p class="empty">nothing collected yet</p>`}
  </section>`;
}

export const manufactory: Presentation<ManufactoryState> = {
  board(scene) {
    const { view, cards } = scene;
    return html`<section class="panel mf-belt" aria-labelledby="mf-belt">
        <h2 id="mf-belt">The conveyor belt</h2>
        <p class="muted">Draft one card: from the front for free, or from the back by discarding a card you have collected. Each colour's largest group scores 3, the second 2, plus a bonus for four or more groups.</p>
        <div class="belt">
          <div><h3>Front (free)</h3>${cardRow(cards, view.belt.slice(0, 2), "empty")}</div>
          <div><h3>Back (costs a discard)</h3>${cardRow(cards, view.belt.slice(2), "empty")}</div>
          <div><h3>Deck</h3>${pile(view.deckSize, "Deck")}</div>
        </div>
      </section>
      <div class="seats">${view.players.map((p, seat) => player(scene, p, seat))}</div>
      ${view.discards.length ? html`<section class="panel"><h2>Out of the game</h2>${cardRow(cards, view.discards)}</section>` : nothing}`;
  },
};
