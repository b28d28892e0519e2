// Urza's Blueprints as its players see it: the three locations to build and who has built which, the top of the
// discard pile (what you may take), your hand, what everyone saw the others take, and the deck.
import { html, nothing, type TemplateResult } from "lit-html";
import { BlueprintsLocation, BlueprintsPhase, type BlueprintsPlayer, type BlueprintsState } from "../gen/manaforge/v1/games/blueprints_pb";
import { cardRow, pile } from "../cards";
import { heading, whose, Who, Whose } from "../names";
import type { Presentation, Scene } from "./index";
import { seatClass } from "./parts";

const LOCATIONS: [BlueprintsLocation, string, string][] = [
  [BlueprintsLocation.MINE, "Mine", "five different card types"],
  [BlueprintsLocation.POWER_PLANT, "Power Plant", "one card of each colour"],
  [BlueprintsLocation.TOWER, "Tower", "five different mana values"],
];

function player(scene: Scene<BlueprintsState>, p: BlueprintsPlayer, seat: number): TemplateResult {
  const { seats, cards } = scene;
  const mine = seat === seats.mine;
  const built = new Map(p.constructions.map((c) => [c.location, c]));
  return html`<section class="seat ${seatClass(seat, seats)}" aria-label=${Who(seat, seats)}>
    <h3>${heading(seat, seats)}</h3>
    <ul class="locations">${LOCATIONS.map(([location, name]) => {
      const c = built.get(location);
      return html`<li class=${c ? "built" : ""}>${c ? "✓" : "○"} ${name}${c ? html`<small> — built on turn ${c.turn}: ${c.cardNames.join(", ")}</small>` : nothing}</li>`;
    })}</ul>
    <h4>Hand</h4>
    ${mine ? cardRow(cards, p.hand, "no cards") : html`${pile(p.handSize, `${whose(seat, seats)} hand`)}
      ${p.known.length ? html`<h4>Seen taken from the discard pile</h4>${cardRow(cards, p.known)}` : nothing}`}
  </section>`;
}

export const blueprints: Presentation<BlueprintsState> = {
  board(scene) {
    const { view, cards, seats } = scene;
    const acting = scene.pending?.seats[0];
    const doing =
      view.phase === BlueprintsPhase.DRAW
        ? "draw from the deck or the discard pile"
        : view.phase === BlueprintsPhase.DISCARD
          ? "discard a card face up"
          : "reveal a hand that builds a location, or keep playing";
    return html`<section class="panel bp-goal" aria-labelledby="bp-goal">
        <h2 id="bp-goal">Goal: build all three locations</h2>
        <ul class="locations">${LOCATIONS.map(([, name, what]) => html`<li><strong>${name}</strong>: ${what}</li>`)}</ul>
        <p class="muted">A foil card counts as anything. Turn ${view.turn}${acting !== undefined && !scene.outcome?.finished ? html` · ${Whose(acting, seats)} turn: ${doing}` : nothing}.
          ${view.reshuffles ? ` The discard pile has become the deck ${view.reshuffles} time${view.reshuffles === 1 ? "" : "s"}.` : ""}</p>
      </section>
      <section class="panel piles-row" aria-label="The piles">
        <div><h4>Deck</h4>${pile(view.deckSize, "Deck")}</div>
        <div><h4>Discard pile (top last)</h4>${cardRow(cards, view.discardPile.slice(-5), "empty")}</div>
      </section>
      <div class="seats">${view.players.map((p, seat) => player(scene, p, seat))}</div>`;
  },
};
