// What every card does, and a card drawn so that it says so. The facts come from the server: GetCatalogue (asked
// once per table: the designed cards of MANA BURN, Magicka, ManaSurge, cardbench, and a board's squares) and, in the
// booster games, the view's own MagicCard messages. A card shows its name, kind, cost and effect; its full facts
// open on hover, on focus (keyboard) and on tap, in a tooltip the card names with aria-describedby. The seat's
// card notes say why a card it holds cannot be used now ("needs Fire and Fire").
import { html, nothing, type TemplateResult } from "lit-html";
import { create } from "@bufbuild/protobuf";
import { CardFactsSchema, type BoardSquare, type CardFacts, type CardNote, type Catalogue } from "./gen/manaforge/v1/common_pb";
import type { MagicCard } from "./gen/manaforge/v1/cards_pb";
import { named, type Seating } from "./names";

type Part = TemplateResult | typeof nothing;

const COLOUR_NAMES: Record<string, string> = { W: "white", U: "blue", B: "black", R: "red", G: "green" };

/** A Magic card's facts in the words the engines give them (engine_core/game.py `magic_card_facts`). */
export function magicFacts(card: MagicCard): CardFacts {
  const power = card.power || card.toughness ? ` (${card.power}/${card.toughness})` : "";
  const colours = card.colors.map((c) => COLOUR_NAMES[c] ?? c);
  return create(CardFactsSchema, {
    id: card.id,
    name: card.name,
    kind: "Magic card",
    cost: card.manaCost,
    effect: (card.typeLine + power + (card.text ? `: ${card.text}` : "")).trim(),
    tags: [...(colours.length ? colours : ["colorless"]), `mana value ${card.manaValue}`, card.rarity, card.foil ? "foil" : ""].filter(Boolean),
  });
}

/** The facts of every card a table can show, and the seat's notes on its own cards. */
export class Cards {
  readonly facts = new Map<number, CardFacts>();
  readonly magic = new Map<number, MagicCard>();
  readonly notes = new Map<number, string>();
  readonly squares: BoardSquare[];

  constructor(catalogue?: Catalogue, faces: Iterable<MagicCard> = [], notes: CardNote[] = [], seats?: Seating) {
    for (const facts of catalogue?.cards ?? []) this.facts.set(facts.id, facts);
    for (const face of faces) {
      this.magic.set(face.id, face);
      this.facts.set(face.id, magicFacts(face));
    }
    for (const note of notes) this.notes.set(note.card, seats ? named(note.note, seats) : note.note);
    this.squares = catalogue?.squares ?? [];
  }

  name(id: number): string {
    return this.facts.get(id)?.name ?? `card ${id}`;
  }

  /** The cards a text names (an action's label, say), longest names first, each once. */
  namedIn(text: string): CardFacts[] {
    const seen = new Map<string, CardFacts>();
    for (const facts of this.facts.values()) if (!seen.has(facts.name)) seen.set(facts.name, facts);
    const found: CardFacts[] = [];
    let rest = text;
    for (const facts of [...seen.values()].sort((a, b) => b.name.length - a.name.length)) {
      const at = rest.indexOf(facts.name);
      if (facts.name.length > 2 && at >= 0 && !/\w/.test(rest.charAt(at + facts.name.length))) {
        found.push(facts);
        rest = rest.slice(0, at) + " ".repeat(facts.name.length) + rest.slice(at + facts.name.length);
      }
    }
    return found;
  }
}

/** A card's facts in one line of plain text (a button's title). */
export function factsText(facts: CardFacts): string {
  return [`${facts.name} (${[facts.kind, facts.cost && `cost ${facts.cost}`].filter(Boolean).join(", ")})`, facts.effect, facts.timing && `When: ${facts.timing}.`]
    .filter(Boolean)
    .join(" — ");
}

// ------------------------------------------------------------------------------------------------- tooltips

let tips = 0;

/** A fresh id for a tooltip. */
function tipId(): string {
  return `tip-${++tips}`;
}

/** The full facts of a card, as its tooltip shows them. */
export function factsTip(facts: CardFacts | undefined, note?: string): TemplateResult {
  if (!facts) return html`<span class="tip-name">An unknown card</span>`;
  return html`<span class="tip-name">${facts.name}</span>
    <span class="tip-kind">${facts.kind}${facts.cost ? html` · costs <strong>${facts.cost}</strong>` : nothing}</span>
    ${facts.effect ? html`<span class="tip-effect">${facts.effect}</span>` : nothing}
    ${facts.timing ? html`<span class="tip-when">When: ${facts.timing}.</span>` : nothing}
    ${facts.tags.length ? html`<span class="tip-tags">${facts.tags.map((t) => html`<span class="tag">${t}</span>`)}</span>` : nothing}
    ${note ? html`<span class="tip-note">Not now: ${note}.</span>` : nothing}`;
}

/** An element that opens `tip` on hover, focus and tap (it takes focus: keyboard and touch alike). */
export function tipped(tag: "li" | "span" | "div", cls: string, label: string, body: Part, tip: TemplateResult, data = ""): TemplateResult {
  const id = tipId();
  const inner = html`${body}<span class="tip" role="tooltip" id=${id}>${tip}</span>`;
  // lit-html cannot choose a tag name at run time: one template per tag
  if (tag === "li") return html`<li class="tipped ${cls}" tabindex="0" aria-label=${label} aria-describedby=${id} data-id=${data}>${inner}</li>`;
  if (tag === "div") return html`<div class="tipped ${cls}" tabindex="0" aria-label=${label} aria-describedby=${id} data-id=${data}>${inner}</div>`;
  return html`<span class="tipped ${cls}" tabindex="0" aria-label=${label} aria-describedby=${id} data-id=${data}>${inner}</span>`;
}

/** Keep an open tooltip inside the window: it opens below its card, or above when there is no room below, and
 * shifts left when it would leave the window's right edge. */
function place(anchor: Element): void {
  const tip = anchor.querySelector<HTMLElement>(":scope > .tip");
  if (!tip) return;
  tip.style.left = "";
  tip.classList.remove("above");
  const box = anchor.getBoundingClientRect();
  const width = Math.min(tip.offsetWidth || 288, window.innerWidth - 16);
  const overflow = box.left + width + 8 - window.innerWidth;
  if (overflow > 0) tip.style.left = `${-Math.min(overflow, box.left - 8)}px`;
  if (box.bottom + (tip.offsetHeight || 160) > window.innerHeight && box.top > window.innerHeight / 2) tip.classList.add("above");
}

function anchorOf(event: Event): Element | null {
  return event.target instanceof Element ? event.target.closest(".tipped") : null;
}

document.addEventListener("mouseover", (e) => {
  const anchor = anchorOf(e);
  if (anchor) place(anchor);
});
document.addEventListener("focusin", (e) => {
  const anchor = anchorOf(e);
  if (anchor) place(anchor);
});
document.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && document.activeElement?.classList.contains("tipped")) (document.activeElement as HTMLElement).blur();
});

// ------------------------------------------------------------------------------------------------- a card

const ELEMENT_OR_COLOUR = /^(white|blue|black|red|green|colorless|fire|cold|lightning|earth|water|life|arcane|shield|flying dagger|fireball|freeze|thunder|earthquake|magic|role|clubs|diamonds|hearts|spades)$/;

function looks(facts: CardFacts | undefined, face: MagicCard | undefined): string {
  if (face) return face.colors.length === 0 ? "c-colorless" : face.colors.length > 1 ? "c-multi" : `c-${COLOUR_NAMES[face.colors[0]]}`;
  const tag = facts?.tags.map((t) => t.toLowerCase()).find((t) => ELEMENT_OR_COLOUR.test(t));
  return tag ? `t-${tag.replace(/ /g, "-")}` : "c-plain";
}

function pips(cost: string): TemplateResult {
  const symbols = cost.match(/\{[^}]+\}/g) ?? [];
  return html`<span class="cost" aria-label=${`cost ${cost}`}
    >${symbols.map((s) => html`<span class="pip pip-${s.slice(1, -1).replace("/", "")}">${s.slice(1, -1)}</span>`)}</span
  >`;
}

export interface CardLook {
  note?: string; // why it cannot be used now (default: the seat's card note)
  extra?: Part; // the game's own lines (a creature's attack and health)
  label?: string; // words said before the card's name ("Ann's")
  title?: string; // the name drawn on the card, when it is not the card's (a summoned creature)
  kind?: string; // the kind drawn on the card, when it is not the card's
  size?: "small" | "large";
  cls?: string;
}

/** One card by id, saying what it does: name, kind, cost, effect; its full facts on hover, focus and tap. */
export function card(cards: Cards, id: number, look: CardLook = {}): TemplateResult {
  const facts = cards.facts.get(id);
  const face = cards.magic.get(id);
  const note = look.note ?? cards.notes.get(id);
  const name = look.title ?? facts?.name ?? `card ${id}`;
  const kind = look.kind ?? (face ? face.typeLine : facts?.kind ?? "");
  const pt = face && (face.power || face.toughness) ? `${face.power}/${face.toughness}` : "";
  const effect = face ? face.text || face.keywords.join(", ") : facts?.effect ?? "";
  const label = [look.label ? `${look.label} ${name}` : name, face?.foil && "foil", kind, facts?.cost && `cost ${facts.cost}`, pt && `power/toughness ${pt}`, note && `not now: ${note}`]
    .filter(Boolean)
    .join(", ");
  const body = html`<span class="card-top"><span class="card-name">${name}</span>${face?.manaCost ? pips(face.manaCost) : nothing}</span>
    ${!face && facts?.cost && !look.kind ? html`<span class="card-cost">${facts.cost}</span>` : nothing}
    ${kind ? html`<span class="card-type">${kind}</span>` : nothing}
    ${effect ? html`<span class="card-text">${effect}</span>` : nothing}
    ${look.extra ?? nothing}
    ${note ? html`<span class="card-note">${note}</span>` : nothing}
    ${face ? html`<span class="card-foot"><span class="rarity r-${face.rarity}">${face.rarity}</span><span class="mv" title="mana value">mv ${face.manaValue}</span>${face.foil ? html`<strong class="foil">✦ foil</strong>` : nothing}${pt ? html`<span class="pt">${pt}</span>` : nothing}</span>` : nothing}`;
  const cls = `card ${looks(facts, face)} ${note ? "unusable" : ""} ${look.size ?? ""} ${look.cls ?? ""}`;
  const tipFacts = facts && face?.keywords.length && !face.text ? { ...facts, effect: `${facts.effect}. Keywords: ${face.keywords.join(", ")}` } : facts;
  return tipped("li", cls, label, body, factsTip(tipFacts, note), String(id));
}

/** Cards in a row, or a word when there are none. */
export function cardRow(cards: Cards, ids: number[], empty = "none", look: (id: number) => CardLook = () => ({})): TemplateResult {
  return ids.length ? html`<ul class="cards">${ids.map((id) => card(cards, id, look(id)))}</ul>` : html`<p class="empty">${empty}</p>`;
}

/** A face-down pile: its count. */
export function pile(count: number, what: string): TemplateResult {
  return html`<div class="pile" aria-label=${`${what}: ${count} face down`}>
    <span class="card-back" aria-hidden="true"></span><span>${count} face down</span>
  </div>`;
}
