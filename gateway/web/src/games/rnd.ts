// Look at Us, We're R&D as the cooperative party game it is: the table's shared credits first, then whose job is
// what this round, the designed cards drawn large enough to read (the whole art box, the copied parts and where they
// came from), the booster card in hand, and the vote: your own ballot, then, after the reveal, who voted for what.
import { html, nothing, type TemplateResult } from "lit-html";
import { RndAward, RndCategory, RndPhase, type RndDesign, type RndState } from "../gen/manaforge/v1/games/rnd_pb";
import type { Outcome } from "../gen/manaforge/v1/common_pb";
import { cardRow, pile } from "../cards";
import { list, who, Who, type Seating } from "../names";
import type { Presentation, Scene } from "./index";

const AWARDS: [RndAward, string][] = [
  [RndAward.MOST_POWERFUL, "most powerful"],
  [RndAward.LEAST_FUNCTIONAL, "least functional"],
  [RndAward.MOST_FLAVORFUL, "most flavorful"],
];
const AWARD = new Map(AWARDS);

const PARTS = new Map<RndCategory, string>([
  [RndCategory.COST, "casting cost"],
  [RndCategory.TYPE, "card type"],
  [RndCategory.TEXT, "card text"],
  [RndCategory.POWER_TOUGHNESS, "power and toughness"],
]);

function title(design: RndDesign, index: number): string {
  return design.name ? `card ${index + 1}, “${design.name}”` : `card ${index + 1}`;
}

/** Each seat's credits: one per award won by a card it drew the art for or wrote (RULES.md). */
function credits(view: RndState): number[] {
  const out = view.ballots.map(() => 0);
  for (const result of view.results) {
    for (const d of result.designs) {
      const design = view.designs[d];
      if (!design) continue;
      out[design.artist] = (out[design.artist] ?? 0) + 1;
      if (design.writer !== design.artist) out[design.writer] = (out[design.writer] ?? 0) + 1;
    }
  }
  return out;
}

function together(scene: Scene<RndState>): TemplateResult {
  const { view, seats } = scene;
  const earned = credits(view);
  const total = earned.reduce((a, b) => a + b, 0);
  return html`<section class="panel rnd-team" aria-labelledby="rnd-team">
    <h2 id="rnd-team">A cooperative game: the table designs together</h2>
    <p>Nobody plays against anyone: the table makes ${view.designs.length} new Magic cards, one a round, then votes for the most powerful,
      the least functional and the most flavorful.</p>
    <p class="credits"><strong>Shared credits: ${total}</strong>${view.results.length
      ? html` — ${earned.map((c, seat) => `${who(seat, seats)} ${c}`).join(", ")}`
      : html` so far. A credit is earned at the vote, for each award a card wins: its artist and its writer share it.`}</p>
  </section>`;
}

function jobs(scene: Scene<RndState>): TemplateResult | typeof nothing {
  const { view, seats } = scene;
  const design = view.designs[view.round];
  if (view.phase === RndPhase.VOTING || view.phase === RndPhase.RESULTS || !design) return nothing;
  const designers = view.ballots.map((_, s) => s).filter((s) => s !== design.artist && s !== design.writer);
  const doing =
    view.phase === RndPhase.DESIGN
      ? `${Who(view.designer, seats)} ${view.designer === seats.mine ? "draw" : "draws"} from the pack and ${view.designer === seats.mine ? "copy" : "copies"} one part onto the card.`
      : view.phase === RndPhase.ART
        ? `${Who(design.artist, seats)} ${design.artist === seats.mine ? "draw" : "draws"} the art.`
        : `${Who(design.writer, seats)} ${design.writer === seats.mine ? "name" : "names"} the card and ${design.writer === seats.mine ? "write" : "writes"} its flavour.`;
  return html`<section class="panel rnd-jobs" aria-label="This round">
    <p><strong>Card ${view.round + 1} of ${view.designs.length}.</strong> Artist: ${who(design.artist, seats)} · writer: ${who(design.writer, seats)} ·
      ${designers.length > 1 ? "designers" : "designer"}: ${list(designers.map((s) => who(s, seats)))}.</p>
    <p>${doing}</p>
  </section>`;
}

function pips(cost: string): TemplateResult {
  const symbols = cost.match(/\{[^}]+\}/g) ?? [];
  return html`<span class="cost" aria-label=${`cost ${cost}`}>${symbols.map((s) => html`<span class="pip pip-${s.slice(1, -1).replace("/", "")}">${s.slice(1, -1)}</span>`)}</span>`;
}

function designCard(scene: Scene<RndState>, design: RndDesign, index: number): TemplateResult {
  const { view, seats } = scene;
  const now = index === view.round && view.phase !== RndPhase.VOTING && view.phase !== RndPhase.RESULTS;
  const pt = design.power || design.toughness ? `${design.power}/${design.toughness}` : "";
  const won = view.results.filter((r) => r.designs.includes(index)).map((r) => AWARD.get(r.award) ?? "");
  return html`<li class="card design design-card ${now ? "now" : ""}" aria-label=${title(design, index)}>
    <div class="frame">
      <div class="design-top"><span class="card-name">${design.name || "(no name yet)"}</span>${design.manaCost ? pips(design.manaCost) : nothing}</div>
      <pre class="design-art" aria-label="art">${design.art || "(no art yet)"}</pre>
      <div class="card-type">${design.typeLine || "(no type yet)"}</div>
      <div class="design-text">${design.text ? design.text : html`<span class="muted">(no text)</span>`}
        ${design.flavour ? html`<em class="flavour">${design.flavour}</em>` : nothing}</div>
      ${pt ? html`<div class="design-foot"><span class="pt">${pt}</span></div>` : nothing}
    </div>
    <p class="design-credit">Card ${index + 1}${now ? " (being made)" : ""} · art by ${who(design.artist, seats)} · words by ${who(design.writer, seats)}</p>
    ${design.copies.length
      ? html`<ul class="copies">${design.copies.map((c) => html`<li>${PARTS.get(c.category)}: ${c.source ? `from ${c.source}` : "left blank"}${c.designer >= 0 ? `, copied by ${who(c.designer, seats)}` : ""}</li>`)}</ul>`
      : nothing}
    ${won.length ? html`<p class="awards">Won: ${list(won)}</p>` : nothing}
  </li>`;
}

function vote(scene: Scene<RndState>): TemplateResult | typeof nothing {
  const { view, seats } = scene;
  if (view.phase !== RndPhase.VOTING && view.phase !== RndPhase.RESULTS) return nothing;
  const revealed = view.phase === RndPhase.RESULTS;
  const designTitle = (d: number) => (view.designs[d] ? title(view.designs[d], d) : `card ${d + 1}`);
  const cast = view.ballots.reduce((n, b) => n + (b.votesCast >= AWARDS.length ? 1 : 0), 0);
  return html`<section class="panel rnd-vote" aria-labelledby="rnd-vote">
    <h2 id="rnd-vote">${revealed ? "The vote, revealed" : "The vote (secret until every ballot is in)"}</h2>
    ${revealed
      ? html`<ul class="results">${view.results.map((r) => html`<li><strong>${AWARD.get(r.award)}</strong>: ${list(r.designs.map(designTitle))}
          (${r.votes} vote${r.votes === 1 ? "" : "s"})</li>`)}</ul>`
      : html`<p>${cast} of ${view.ballots.length} ballots complete.</p>`}
    <table class="list ballots">
      <caption>${revealed ? "Who voted for what" : "The ballots"}</caption>
      <thead><tr><th scope="col">player</th>${AWARDS.map(([, name]) => html`<th scope="col">${name}</th>`)}</tr></thead>
      <tbody>${view.ballots.map((b, seat) => html`<tr><th scope="row">${Who(seat, seats)}</th>${AWARDS.map(([award]) => {
        const v = b.votes.find((x) => x.award === award);
        return html`<td>${v ? designTitle(v.design) : b.votesCast ? "secret" : "—"}</td>`;
      })}</tr>`)}</tbody>
    </table>
  </section>`;
}

export const rnd: Presentation<RndState> = {
  board(scene) {
    const { view, cards } = scene;
    return html`${together(scene)}${jobs(scene)}${vote(scene)}
      <section class="panel" aria-labelledby="rnd-designs"><h2 id="rnd-designs">The table's cards</h2>
        <ul class="designs">${view.designs.map((d, i) => designCard(scene, d, i))}</ul>
      </section>
      ${view.phase === RndPhase.DESIGN
        ? html`<section class="panel" aria-labelledby="rnd-pack"><h2 id="rnd-pack">The booster</h2>
            <h4>Drawn: the designer's card</h4>${cardRow(cards, view.drawn, "none")}
            <h4>Pack</h4>${pile(view.packSize, "Pack")}
            <h4>Put aside (newest last)</h4>${cardRow(cards, view.discard.slice(-8), "none")}
          </section>`
        : nothing}`;
  },
  result(outcome: Outcome, seats: Seating) {
    const shared = outcome.scores.reduce((a, b) => a + b, 0);
    const each = outcome.scores.map((s, seat) => `${who(seat, seats)} ${s}`).join(", ");
    return `A cooperative game: every player is a winner. Shared credits: ${shared} (${each}).`;
  },
};
