// A table's seat bar (each seat's player, whose turn it is, their clock) and the seat's move: the prompt, the legal
// actions as buttons (in two steps when there are many), and the form of an action with free text.
import { html, nothing, type TemplateResult } from "lit-html";
import { human } from "./board";
import { Cards, factsText } from "./cards";
import { choices, grouped, textFields, type Choice, type Group } from "./actions";
import { named, type Seating } from "./names";
import type { Part, Show } from "./page";
import type { Catalogue } from "./gen/manaforge/v1/common_pb";
import type { SeatView, Table } from "./gen/manaforge/v1/gateway_pb";

/** The seats, each with its player, "to play" and its clock counting down. */
export function seatsBar(names: string[], mine: number, view: SeatView | undefined, table: Table | undefined): TemplateResult {
  const pending = new Set(view?.pending?.seats ?? []);
  const deadlines = new Map((view?.deadlines ?? []).map((d) => [d.seat, d.at]));
  return html`<ul class="seatbar" aria-label="Seats">${names.map((name, seat) => {
    const at = deadlines.get(seat);
    const left = at ? Math.max(0, Math.round(at - Date.now() / 1000)) : undefined;
    const away = table?.seats[seat]?.away;
    return html`<li class="${pending.has(seat) ? "pending" : ""} ${seat === mine ? "mine" : ""}">
      <span>${name}${seat === mine ? " (you)" : ""}${away ? " — away" : ""}</span>
      ${pending.has(seat) && !view?.outcome?.finished ? html`<span class="turn">to play</span>` : nothing}
      ${left !== undefined && pending.has(seat) ? html`<span class="clock" role="timer" aria-label=${`${seat === mine ? "you" : name}: ${left} ${left === 1 ? "second" : "seconds"} left`}>${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}</span>` : nothing}
    </li>`;
  })}</ul>`;
}

/** The seat's move being chosen: the group of actions opened (its second step), or the action being written. */
export class Choosing {
  group?: Group;
  writing?: Choice;

  constructor(
    private readonly show: Show,
    private readonly send: (choice: Choice, texts?: string[]) => void,
  ) {}

  /** The move was made: the choices start again from the top. */
  done(): void {
    this.group = undefined;
    this.writing = undefined;
  }

  pick(choice: Choice): void {
    if (textFields(choice).length) {
      this.writing = choice;
      this.show();
    } else this.send(choice);
  }

  /** The seat's legal actions in `view`, or whom it waits for; disabled while a move is `sending`. */
  view(view: SeatView | undefined, seats: Seating, catalogue: Catalogue | undefined, sending: boolean): Part {
    if (!view) return nothing;
    const legal = choices(view.legalActions).map((c) => ({ ...c, text: named(c.text, seats) }));
    const prompt = view.pending?.prompt && named(view.pending.prompt, seats).replace(/^You: /, ""); // "seat 0: cast …"
    const cards = new Cards(catalogue);
    if (!legal.length) {
      const waiting = (view.pending?.seats ?? []).map((s) => seats.names[s]).join(", ");
      return html`<section class="actions" aria-label="Your actions"><p role="status">${waiting ? `Waiting for ${waiting}…` : "Waiting…"}</p></section>`;
    }
    if (this.writing) return this.writingForm(this.writing, sending, prompt);
    const groups = this.group ? this.group.choices.map((c) => ({ label: c.text, choices: [c] })) : grouped(legal);
    return html`<section class="actions" aria-label="Your actions">
      <h2>Your move${prompt ? html`: <span class="prompt">${prompt}</span>` : nothing}</h2>
      ${this.group ? html`<p>${this.group.label} — which one? <button class="link" @click=${() => { this.group = undefined; this.show(); }}>back</button></p>` : nothing}
      <ul class="choices">${groups.map(
        (g) => html`<li><button ?disabled=${sending} title=${cards.namedIn(g.label).map(factsText).join("\n") || nothing} @click=${() => (g.choices.length === 1 ? this.pick(g.choices[0]) : ((this.group = g), this.show()))}>
          ${g.label}${g.choices.length > 1 ? html` <span class="count">(${g.choices.length} ways) …</span>` : nothing}</button></li>`,
      )}</ul>
    </section>`;
  }

  writingForm(choice: Choice, sending: boolean, prompt?: string): TemplateResult {
    const fields = textFields(choice);
    const send = (e: SubmitEvent) => {
      e.preventDefault();
      const data = new FormData(e.currentTarget as HTMLFormElement);
      this.send(choice, fields.map((_, i) => data.get(`text-${i}`) as string));
    };
    return html`<section class="actions" aria-label="Your actions">
      <h2>${choice.text}${prompt ? html`: <span class="prompt">${prompt}</span>` : nothing}</h2>
      <form class="stack" @submit=${send}>
        ${fields.map((f, i) => html`<label>${human(f.label)} <textarea name=${`text-${i}`} data-field=${f.label} rows=${f.label === "art" ? 6 : 2} .value=${f.value}></textarea></label>`)}
        <div class="row"><button ?disabled=${sending}>Send</button>
          <button type="button" class="link" @click=${() => { this.writing = undefined; this.show(); }}>back</button></div>
      </form>
    </section>`;
  }
}
