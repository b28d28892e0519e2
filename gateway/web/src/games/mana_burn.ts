// MANA BURN as its players see it: the goal (one of each of the ten cards) and each player's progress, the board
// with the pawns on their squares (each square's effect on hover and tap: the squares come from GetCatalogue), the
// rolls and the cards being played, then each player's hand and creatures, and the piles.
import { html, nothing, type TemplateResult } from "lit-html";
import type { BoardSquare } from "../gen/manaforge/v1/common_pb";
import { ManaBurnRollPurpose, type ManaBurnPlayer, type ManaBurnState } from "../gen/manaforge/v1/games/mana_burn_pb";
import { card, cardRow, factsTip, pile, tipped, type Cards } from "../cards";
import { heading, list, who, whose, Who, Whose } from "../names";
import type { Presentation, Scene } from "./index";
import { pawnMark, seatClass } from "./parts";

/** The ten different cards, in the catalogue's order (its first card of each name). */
function tenCards(cards: Cards): { name: string; id: number }[] {
  const seen = new Map<string, number>();
  for (const [id, facts] of [...cards.facts.entries()].sort((a, b) => a[0] - b[0])) if (!seen.has(facts.name)) seen.set(facts.name, id);
  return [...seen.entries()].map(([name, id]) => ({ name, id }));
}

function goal(scene: Scene<ManaBurnState>): TemplateResult {
  const { view, cards, seats } = scene;
  const ten = tenCards(cards);
  const mine = seats.mine >= 0 ? view.players[seats.mine] : undefined;
  const held = new Set((mine?.hand ?? []).map((id) => cards.name(id)));
  return html`<section class="panel mb-goal" aria-labelledby="mb-goal">
    <h2 id="mb-goal">Goal: hold one of each of the ${ten.length} cards</h2>
    ${mine
      ? html`<p class="progress" role="status">You hold <strong>${held.size} of ${ten.length}</strong> different cards${held.size < ten.length ? html` (✓ below)` : nothing}.</p>`
      : nothing}
    <ul class="ten" aria-label="The ten cards">
      ${ten.map((t) =>
        tipped("li", `ten-card ${held.has(t.name) ? "have" : "missing"}`, `${t.name}${mine ? (held.has(t.name) ? ": you hold one" : ": missing") : ""}`,
          html`<span aria-hidden="true">${mine ? (held.has(t.name) ? "✓" : "·") : ""}</span> ${t.name}`, factsTip(cards.facts.get(t.id))),
      )}
    </ul>
    <p class="muted">${view.players.map((p, seat) => (seat === seats.mine ? "" : `${Who(seat, seats)}: ${p.handSize} card${p.handSize === 1 ? "" : "s"} in hand. `))}
      Hands are secret: a player wins the moment their hand holds all ${ten.length}.</p>
  </section>`;
}

function status(scene: Scene<ManaBurnState>): TemplateResult {
  const { view, seats, cards } = scene;
  const limit = view.header?.config?.options.turn_limit;
  const rolls = view.rolls.map((r) => {
    const why = r.purpose === ManaBurnRollPurpose.MOVE ? "to move" : r.purpose === ManaBurnRollPurpose.ANTE ? "for Ante" : "for the square";
    return `${Who(r.seat, seats)} rolled ${r.value} ${why}`;
  });
  const stack = view.stack.map((item) => {
    const target = item.target >= 0 ? ` on ${cards.name(item.target)}` : item.roll >= 0 && view.rolls[item.roll] ? ` on ${whose(view.rolls[item.roll].seat, seats)} roll` : "";
    return html`<li>${Who(item.seat, seats)} played${target}: <ul class="cards">${card(cards, item.card, { note: item.countered ? "countered" : "" })}</ul></li>`;
  });
  return html`<section class="panel mb-status" aria-label="This turn">
    <p><strong>${view.header?.outcome?.finished ? "The game is over." : `${Whose(view.active, seats)} turn`}</strong>
      · turn ${view.turns}, round ${Math.max(1, Math.ceil(view.turns / Math.max(1, view.players.length)))}${limit ? ` of ${limit}` : ""}${view.direction < 0 ? " · turn order reversed (to the right)" : ""}
      ${view.steps > 0 ? html` · ${view.steps} square${view.steps === 1 ? "" : "s"} still to walk` : nothing}
      ${view.mainPlayed ? html` · the turn's Creature, Sorcery or Enchantment is played` : nothing}
      ${view.restarts ? html` · restarted ${view.restarts} time${view.restarts === 1 ? "" : "s"} after a shared win` : nothing}</p>
    ${rolls.length ? html`<p>${rolls.join("; ")}.</p>` : nothing}
    ${stack.length ? html`<div class="mb-stack"><h3>Being played (newest last)</h3><ul class="plays">${stack}</ul></div>` : nothing}
    ${view.auction.length
      ? html`<div class="mb-auction"><h3>Up for auction</h3>${cardRow(cards, view.auction)}
          <p>${view.lastBidder >= 0 ? `Highest bid: ${who(view.lastBidder, seats)}.` : "No bid yet."}
          ${view.players.some((p) => p.passed) ? `Passed: ${list(view.players.flatMap((p, s) => (p.passed ? [who(s, seats)] : [])))}.` : ""}</p></div>`
      : nothing}
  </section>`;
}

interface Column {
  title: string;
  out: number[];
  back: number[];
}

/** The board's layout from its squares: two hubs, and for each path the squares out from the first hub to the
 * second, then back. */
function layout(squares: BoardSquare[]): { start: number; middle: number; columns: Column[] } | undefined {
  const hubs = squares.filter((s) => !s.track);
  if (hubs.length !== 2) return undefined;
  const [start, middle] = hubs;
  const walk = (from: number): number[] => {
    const out: number[] = [];
    for (let at = from; squares[at]?.track && out.length < squares.length; at = squares[at].next[0]) out.push(at);
    return out;
  };
  const columns = start.next.map((first, i) => {
    const out = walk(first);
    const back = walk(middle.next[i] ?? -1);
    const [a, b] = [squares[out[0]]?.track ?? "", squares[back[0]]?.track ?? ""];
    let common = 0;
    while (common < a.length && a[common] === b[common]) common++;
    return { title: a.slice(0, common).replace(/[,\s]+$/, "") || a, out, back };
  });
  return { start: start.id, middle: middle.id, columns };
}

function boardMap(scene: Scene<ManaBurnState>): TemplateResult | typeof nothing {
  const { view, seats, cards } = scene;
  const shape = layout(cards.squares);
  if (!shape) return nothing;
  const pawns = new Map<number, number[]>();
  view.players.forEach((p, seat) => pawns.set(p.square, [...(pawns.get(p.square) ?? []), seat]));
  const square = (id: number, cls = ""): TemplateResult => {
    const sq = cards.squares[id];
    const here = pawns.get(id) ?? [];
    const label = `${sq.name}${here.length ? `, ${here.map((s) => `${whose(s, seats)} pawn`).join(", ")}` : ""}`;
    return tipped("li", `square ${cls} ${here.includes(seats.mine) ? "mine" : ""}`, label,
      html`<span class="square-name">${sq.name}</span>${here.length ? html`<span class="pawns">${here.map((s) => pawnMark(s, seats))}</span>` : nothing}`,
      html`<span class="tip-name">${sq.name}</span><span class="tip-effect">${sq.effect}</span>${sq.track ? html`<span class="tip-when">${sq.track}</span>` : nothing}`,
      String(id));
  };
  const n = shape.columns.length;
  return html`<section class="panel" aria-labelledby="mb-board">
    <h2 id="mb-board">The board</h2>
    <p class="muted">Pawns walk down the paths: out from the Library to the Graveyard, and back. Hover or tap a square for what it does.</p>
    <div class="mb-board" role="group" aria-label="The board" style=${`--paths: ${n}`}>
      <ul class="hub-row">${square(shape.start, "hub")}</ul>
      ${shape.columns.map((c, i) => html`<div class="track" style=${`grid-column: ${i + 1}; grid-row: 2`}>
        <h3>${c.title}</h3><ol class="squares" aria-label=${`${c.title}, out`}>${c.out.map((id) => square(id))}</ol></div>`)}
      <ul class="hub-row" style="grid-row: 3">${square(shape.middle, "hub")}</ul>
      ${shape.columns.map((c, i) => html`<div class="track" style=${`grid-column: ${i + 1}; grid-row: 4`}>
        <ol class="squares" aria-label=${`${c.title}, back`}>${c.back.map((id) => square(id))}</ol></div>`)}
      <p class="back-to" style="grid-row: 5" aria-hidden="true">↻ back to the ${cards.squares[shape.start].name}</p>
    </div>
    <ul class="legend" aria-label="Pawns">${view.players.map((p, seat) => html`<li>${pawnMark(seat, seats)} ${Who(seat, seats)}: ${cards.squares[p.square]?.name ?? "?"}
      ${cards.squares[p.square] && !cards.squares[p.square].track && shape.columns[p.path] ? html`(${shape.columns[p.path].title})` : nothing}</li>`)}</ul>
  </section>`;
}

function player(scene: Scene<ManaBurnState>, p: ManaBurnPlayer, seat: number): TemplateResult {
  const { seats, cards } = scene;
  const mine = seat === seats.mine;
  const notes: string[] = [];
  if (p.skipTurns) notes.push(`skips the next ${p.skipTurns === 1 ? "turn" : `${p.skipTurns} turns`}`);
  if (p.offerSize) notes.push(`${p.offerSize} card${p.offerSize === 1 ? "" : "s"} offered face down`);
  if (p.passed && scene.view.auction.length) notes.push("passed in this auction");
  return html`<section class="seat ${seatClass(seat, seats)}" aria-label=${Who(seat, seats)}>
    <h3>${pawnMark(seat, seats)} ${heading(seat, seats)}</h3>
    ${notes.length ? html`<p class="muted">${notes.join(" · ")}</p>` : nothing}
    <h4>Hand</h4>
    ${mine ? cardRow(cards, [...p.hand].sort((a, b) => a - b), "no cards") : p.handSize ? pile(p.handSize, `${whose(seat, seats)} hand`) : html`<p class="empty">no cards</p>`}
    ${mine && p.offer.length ? html`<h4>Your face-down offer</h4>${cardRow(cards, p.offer)}` : nothing}
    <h4>Creatures in play</h4>
    ${p.creatures.length
      ? html`<ul class="cards">${p.creatures.map((c) =>
          card(cards, c.card, {
            label: `${whose(seat, seats)}`,
            note: "",
            extra: html`${c.armor.length ? html`<span class="card-extra">Holy Armor ×${c.armor.length}</span>` : nothing}
              ${c.owner !== seat ? html`<span class="card-extra">${whose(c.owner, seats)} card</span>` : nothing}`,
          }))}</ul>`
      : html`<p class="empty">none</p>`}
  </section>`;
}

export const manaBurn: Presentation<ManaBurnState> = {
  board(scene) {
    const { view, cards } = scene;
    return html`${status(scene)}${boardMap(scene)}${goal(scene)}
      <div class="seats">${view.players.map((p, seat) => player(scene, p, seat))}</div>
      <section class="panel piles-row" aria-label="The piles">
        <div><h4>Library</h4>${pile(view.librarySize, "Library")}</div>
        <div><h4>Graveyard (top last)</h4>${cardRow(cards, view.graveyard.slice(-6), "empty")}${view.graveyard.length > 6 ? html`<p class="muted">and ${view.graveyard.length - 6} more below</p>` : nothing}</div>
        <div><h4>Mana Burn pile</h4>${view.manaBurnSize ? pile(view.manaBurnSize, "Mana Burn pile") : html`<p class="empty">empty</p>`}</div>
      </section>`;
  },
};
