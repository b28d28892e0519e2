// A game's board, drawn from its view message by the schema: no game is special-cased (the fallback for a game
// without a presentation of its own, games/). Fields marked with the `(manaforge.v1.card)` option hold cards, drawn
// with their facts (cards.ts); fields marked `(manaforge.v1.internal)` are never shown; a list of players is one
// panel per seat; the rest are the table's facts.
import { html, nothing, type TemplateResult } from "lit-html";
import { getOption, type DescEnum, type DescField, type DescMessage, type Message } from "@bufbuild/protobuf";
import { card as cardOption, internal as internalOption } from "./gen/manaforge/v1/common_pb";
import type { MagicCard } from "./gen/manaforge/v1/cards_pb";
import { card as drawCard, pile, type Cards } from "./cards";
import type { Seating } from "./names";

export type Seats = Seating;

export interface Board {
  game: string;
  options: Record<string, string>;
  seats: Seats;
  cards: Cards; // the facts of every card the table can show
}

const SEAT_LISTS = new Set(["players", "hands", "wizards", "ballots"]);

type Value = unknown;
type Fields = Record<string, Value>;

export function human(name: string): string {
  return name.replace(/_/g, " ").replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
}

/** An enum value in words, without the prefix its values share ("MAGICKA_ACTION_END_TURN": "end turn"). */
export function enumText(desc: DescEnum, value: number): string {
  const names = desc.values.map((v) => v.name);
  let prefix = names[0] ?? "";
  for (const name of names) while (!name.startsWith(prefix)) prefix = prefix.slice(0, -1);
  prefix = prefix.slice(0, prefix.lastIndexOf("_") + 1);
  const found = desc.values.find((v) => v.number === value);
  return found ? human(found.name.slice(prefix.length)) : String(value);
}

function isCards(field: DescField): boolean {
  return getOption(field, cardOption);
}

function isMagicCard(field: DescField): boolean {
  return field.fieldKind === "list" && field.listKind === "message" && field.message.typeName === "manaforge.v1.MagicCard";
}

/** The facts of every card the view shows, by id. */
export function facesOf(schema: DescMessage, view: Message): Map<number, MagicCard> {
  const faces = new Map<number, MagicCard>();
  for (const field of schema.fields) {
    if (isMagicCard(field)) {
      for (const face of (view as unknown as Fields)[field.localName] as MagicCard[]) faces.set(face.id, face);
    }
  }
  return faces;
}

export function cardName(board: Board, id: number): string {
  return board.cards.name(id);
}

/** One card by id, with its facts; `extra`: the rest of what the view says of it (a creature's numbers). */
export function card(board: Board, id: number, extra: string[] = []): TemplateResult {
  return drawCard(board.cards, id, { extra: extra.length ? html`<span class="card-extra">${extra.join(" · ")}</span>` : nothing });
}

function faceDown(count: number, what: string): TemplateResult {
  return pile(count, what);
}

function zone(board: Board, title: string, ids: number[], hidden: number | undefined): TemplateResult {
  const shown = ids.length ? html`<ul class="cards">${ids.map((id) => card(board, id))}</ul>` : nothing;
  const down = hidden && hidden > ids.length ? faceDown(hidden - ids.length, title) : nothing;
  const empty = !ids.length && !(hidden && hidden > 0) ? html`<p class="empty">empty</p>` : nothing;
  return html`<section class="zone" aria-label=${title}><h4>${title}</h4>${shown}${down}${empty}</section>`;
}

// Fields that name a seat: shown as the seat's player.
const SEAT_FIELDS = new Set([
  "seat", "controller", "caster", "owner", "active", "decider", "designer", "artist", "writer", "first_seat",
  "last_player", "last_bidder", "opponent",
]);

function scalarText(field: DescField, value: Value, board?: Board): string | undefined {
  if (value === undefined || value === -1) return undefined; // an unset optional field, or "none" in the games' messages
  if (board && SEAT_FIELDS.has(field.name) && typeof value === "number") return seatName(board, value);
  if (field.fieldKind === "enum") {
    return value === 0 ? undefined : enumText(field.enum, value as number);
  }
  if (field.fieldKind !== "scalar") return undefined;
  if (typeof value === "boolean") return value ? "yes" : undefined;
  if (typeof value === "string") return value || undefined;
  return String(value);
}

function seatName(board: Board, seat: number): string {
  const name = board.seats.names[seat] ?? `seat ${seat}`;
  return seat === board.seats.mine ? `${name} (you)` : name;
}

/** Card ids of another message field marked (card), with the rest of its facts (a creature, a played card). */
function cardThing(board: Board, schema: DescMessage, value: Fields): TemplateResult {
  const idField = schema.fields.find((f) => f.localName === "card" || f.localName === "id")!;
  const extra = schema.fields
    .filter((f) => f !== idField && f.fieldKind !== "list" && f.fieldKind !== "message" && !getOption(f, internalOption))
    .map((f) => {
      const text = value[f.localName] === 0 && !SEAT_FIELDS.has(f.name) ? undefined : scalarText(f, value[f.localName], board);
      return text === undefined ? undefined : `${human(f.name)} ${text}`;
    })
    .filter((t): t is string => t !== undefined);
  const nested = schema.fields.filter((f) => f.fieldKind === "list" && isCards(f) && (value[f.localName] as number[]).length);
  return html`${card(board, value[idField.localName] as number, extra)}${nested.map(
    (f) => html`<li class="attached">${human(f.name)}: ${(value[f.localName] as number[]).map((id) => cardName(board, id)).join(", ")}</li>`,
  )}`;
}

function pips(cost: string): TemplateResult {
  const symbols = cost.match(/\{[^}]+\}/g) ?? [];
  return html`<span class="cost" aria-label=${`cost ${cost}`}
    >${symbols.map((s) => html`<span class="pip pip-${s.slice(1, -1).replace("/", "")}">${s.slice(1, -1)}</span>`)}</span
  >`;
}

function isDesign(schema: DescMessage): boolean {
  return schema.fields.some((f) => f.localName === "typeLine") && schema.fields.some((f) => f.localName === "name");
}

/** A designed card (R&D): drawn as a card from its parts. */
function design(value: Fields, title: string): TemplateResult {
  const get = (k: string) => (value[k] as string) || "";
  const pt = get("power") || get("toughness") ? `${get("power")}/${get("toughness")}` : "";
  return html`<li class="card c-plain design" aria-label=${`${title}: ${get("name") || "unnamed"}`}>
    <span class="card-top"><span class="card-name">${get("name") || "(no name yet)"}</span>${get("manaCost") ? pips(get("manaCost")) : nothing}</span>
    ${get("art") ? html`<pre class="art">${get("art")}</pre>` : nothing}
    <span class="card-type">${get("typeLine") || "(no type yet)"}</span>
    ${get("text") ? html`<span class="card-text">${get("text")}</span>` : nothing}
    ${get("flavour") ? html`<em class="flavour">${get("flavour")}</em>` : nothing}
    <span class="card-foot">${pt ? html`<span class="pt">${pt}</span>` : nothing}</span>
  </li>`;
}

function cardLists(schema: DescMessage): DescField[] {
  return schema.fields.filter((f) => f.fieldKind === "list" && f.listKind === "scalar" && isCards(f));
}

/** Messages that are one pile of cards each (a colour group): a pile per item that has cards, named by its facts. */
function piles(board: Board, field: DescField & { fieldKind: "list"; listKind: "message" }, items: Fields[]): TemplateResult {
  const list = cardLists(field.message)[0];
  const named = items
    .filter((item) => (item[list.localName] as number[]).length)
    .map((item) => {
      const facts = field.message.fields.map((f) => (f === list ? undefined : scalarText(f, item[f.localName]))).filter(Boolean);
      return zone(board, facts.join(", ") || human(field.message.name), item[list.localName] as number[], undefined);
    });
  return html`<section class="zone" aria-label=${human(field.name)}><h4>${human(field.name)}</h4>
    ${named.length ? html`<div class="piles">${named}</div>` : html`<p class="empty">none yet</p>`}</section>`;
}

/** Every field of `value` as the board shows it. */
function fields(board: Board, schema: DescMessage, value: Fields): TemplateResult {
  const facts: TemplateResult[] = [];
  const parts: TemplateResult[] = [];
  const sizes = new Map(schema.fields.map((f) => [f.localName, f]));
  for (const field of schema.fields) {
    const v = value[field.localName];
    if (field.localName === "header" || isMagicCard(field) || getOption(field, internalOption)) continue;
    if (field.fieldKind === "list" && field.listKind === "scalar" && isCards(field)) {
      const size = sizes.get(`${field.localName}Size`) ?? sizes.get(`${field.localName.replace(/s$/, "")}Count`);
      parts.push(zone(board, human(field.name), v as number[], size ? (value[size.localName] as number) : undefined));
    } else if (field.fieldKind === "list" && field.listKind === "message") {
      const items = v as Fields[];
      if (!items.length) continue;
      if (isCards(field) || field.message.fields.some((f) => f.localName === "card" && isCards(f))) {
        parts.push(html`<section class="zone" aria-label=${human(field.name)}><h4>${human(field.name)}</h4>
          <ul class="cards">${items.map((item) => cardThing(board, field.message, item))}</ul></section>`);
      } else if (isDesign(field.message)) {
        parts.push(html`<section class="zone" aria-label=${human(field.name)}><h4>${human(field.name)}</h4>
          <ul class="cards">${items.map((item, i) => design(item, `${human(field.message.name)} ${i + 1}`))}</ul></section>`);
      } else if (SEAT_LISTS.has(field.name)) {
        parts.push(html`<section class="seats" aria-label=${human(field.name)}>${items.map(
          (item, seat) => html`<section class="seat ${seat === board.seats.mine ? "mine" : ""}" aria-label=${seatName(board, seat)}>
            <h3>${seatName(board, seat)}</h3>${fields(board, field.message, item)}</section>`,
        )}</section>`);
      } else if (cardLists(field.message).length === 1) {
        parts.push(piles(board, field, items));
      } else {
        parts.push(html`<section class="zone" aria-label=${human(field.name)}><h4>${human(field.name)}</h4>
          <ol class="things">${items.map((item) => html`<li>${fields(board, field.message, item)}</li>`)}</ol></section>`);
      }
    } else if (field.fieldKind === "message" && v) {
      parts.push(html`<section class="zone" aria-label=${human(field.name)}><h4>${human(field.name)}</h4>
        ${fields(board, field.message, v as Fields)}</section>`);
    } else if (field.fieldKind === "list") {
      const list = v as Value[];
      if (list.length) facts.push(html`<dt>${human(field.name)}</dt><dd>${list.join(", ")}</dd>`);
    } else if (!field.localName.endsWith("Size") && !field.localName.endsWith("Count")) {
      const text = scalarText(field, v, board);
      if (text !== undefined) facts.push(html`<dt>${human(field.name)}</dt><dd>${text}</dd>`);
    } else if (!sizes.has(field.localName.replace(/Size$/, "")) && !sizes.has(field.localName.replace(/Count$/, "s"))) {
      facts.push(html`<dt>${human(field.name)}</dt><dd>${String(v)}</dd>`);
    }
  }
  return html`${facts.length ? html`<dl class="facts">${facts}</dl>` : nothing}${parts}`;
}

/** The whole view, field by field (games/index.ts wraps it in the table's board). */
export function renderBoard(board: Board, schema: DescMessage, view: Message): TemplateResult {
  return fields(board, schema, view as unknown as Fields);
}
