// A finished game's replay (#/replay/ID): its log (GetLog) re-applied from the seed by the rules service, a step at a
// time, the board as the public saw it at each step, the moves to jump to, and the server's replay check.
import { html, nothing, type TemplateResult } from "lit-html";
import { Code } from "@connectrpc/connect";
import type { Any } from "@bufbuild/protobuf/wkt";
import { gateway, rules } from "./api";
import { howToPlayLink } from "./howto";
import { named, sentence } from "./names";
import { codeOf, notice, problem, title, type Page, type Show } from "./page";
import { catalogueOf, result, seatNames, tableBoard } from "./scene";
import type { Catalogue } from "./gen/manaforge/v1/common_pb";
import type { GameLog, SeatView } from "./gen/manaforge/v1/gateway_pb";

/** The stepper's marks, drawn (a font may lack the media-control characters: they showed as empty boxes). */
const ICONS = {
  first: "M3 2h2v12H3zM13 2v12L6 8z",
  previous: "M11 2v12L4 8z",
  next: "M5 2v12l7-6z",
  last: "M11 2h2v12h-2zM3 2v12l7-6z",
};

function icon(path: string): TemplateResult {
  return html`<svg class="icon" viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false"><path d=${path} fill="currentColor" /></svg>`;
}

export class ReplayPage implements Page {
  log?: GameLog;
  step = 0;
  error = "";
  states: Any[] = []; // the game's state before each move, then at the end: re-applied from its seed by the rules
  views = new Map<number, Any>();
  unfinished = false; // the game is still being played: no log yet
  catalogue?: Catalogue;
  closed = false;

  constructor(
    readonly tableId: string,
    private readonly show: Show,
  ) {
    void this.load();
  }

  close(): void {
    this.closed = true;
  }

  async load(): Promise<void> {
    try {
      this.log = await gateway.getLog({ tableId: this.tableId });
      if (this.log.table?.config) this.catalogue = await catalogueOf(this.log.table.config);
      this.show();
      let state = (await rules.newGame({ config: this.log.table?.config, seed: this.log.seed })).state!;
      this.states.push(state);
      for (const action of this.log.actions) {
        if (this.closed) return;
        // seat -1: the operator ended the game there (docs/operations.md); the board stays as the last move left it
        if (action.seat >= 0) state = (await rules.apply({ state, seat: action.seat, action: action.action })).state!;
        this.states.push(state);
        if (this.states.length - 1 === this.step + 1) this.show();
      }
      await this.showStep();
      // the server re-runs every finished game from its seed and log: its verdict comes a moment after the end
      for (let tries = 0; tries < 60 && !this.log.table?.replayVerdict && !this.closed; tries++) {
        await new Promise((r) => setTimeout(r, 1000));
        this.log.table = await gateway.getTable({ tableId: this.tableId });
        this.show();
      }
    } catch (e) {
      const code = codeOf(e);
      if (code === Code.NotFound) this.error = `No table ${this.tableId} here: it may have finished and been removed.`;
      else if (code === Code.FailedPrecondition && !this.log) this.unfinished = true;
      else this.error = problem(e);
    }
    this.show();
  }

  /** The public view of the board at this step (asked of the rules once, then kept). */
  async showStep(): Promise<void> {
    const state = this.states[this.step];
    if (state && !this.views.has(this.step)) this.views.set(this.step, (await rules.view({ state })).view!);
    this.show();
  }

  goTo(step: number): void {
    this.step = Math.max(0, Math.min(step, this.log?.actions.length ?? 0));
    void this.showStep();
  }

  board(names: string[]): TemplateResult {
    const view = this.views.get(this.step);
    const config = this.log?.table?.config;
    if (!view || !config) return html`<p class="muted">${this.states.length <= this.step ? "Re-playing the moves…" : "Loading the board…"}</p>`;
    return tableBoard({ view, version: BigInt(this.step), cardNotes: [] as SeatView["cardNotes"] } as SeatView, config, this.catalogue, { names, mine: -1 });
  }

  view(): TemplateResult {
    const log = this.log;
    if (!log && this.unfinished) {
      return html`<h1>Replay</h1><p class="error" role="alert">This game is not over yet: its replay comes once it is.
        <a href=${`#/table/${this.tableId}`}>Watch it</a></p>`;
    }
    if (!log && this.error) return html`<h1>Replay</h1><p class="error" role="alert">${this.error} <a href="#/">Back to the lobby</a></p>`;
    if (!log) return html`<h1>Replay</h1><p class="muted">Loading…</p>`;
    const names = seatNames(log.table);
    const total = log.actions.length;
    const version = this.step === 0 ? 0n : log.actions[this.step - 1].version;
    const events = log.events.filter((e) => e.version <= version && e.version > (this.step > 1 ? log.actions[this.step - 2].version : -1n));
    const outcome = log.table?.outcome;
    return html`
      <h1>Replay: ${title(log.table?.config?.game ?? "")} <small class="muted">table ${this.tableId}</small></h1>
      ${notice(this.error)}
      <p>${names.map((n, i) => `seat ${i}: ${n}`).join(" · ")}</p>
      <nav class="row stepper" aria-label="Steps">
        <button @click=${() => this.goTo(0)} aria-label="First move">${icon(ICONS.first)}</button>
        <button @click=${() => this.goTo(this.step - 1)} aria-label="Previous move">${icon(ICONS.previous)}</button>
        <label>Move <input type="range" min="0" max=${total} .value=${String(this.step)} @input=${(e: InputEvent) => this.goTo(Number((e.target as HTMLInputElement).value))} /></label>
        <output aria-live="polite">${this.step} of ${total}</output>
        <button @click=${() => this.goTo(this.step + 1)} aria-label="Next move">${icon(ICONS.next)}</button>
        <button @click=${() => this.goTo(total)} aria-label="Last move">${icon(ICONS.last)}</button>
      </nav>
      ${this.step > 0
        ? html`<p class="current" role="status">Move ${this.step}: <strong>${names[log.actions[this.step - 1].seat] ?? "The operator"}</strong> — ${named(log.actions[this.step - 1].text, { names, mine: -1 })}</p>`
        : html`<p class="current" role="status">The start of the game.</p>`}
      ${this.step > 0 && events.length ? html`<ul class="step-events">${events.map((e) => html`<li>${sentence(named(e.text, { names, mine: -1 }), { names, mine: -1 })}</li>`)}</ul>` : nothing}
      ${this.step === total && outcome?.finished ? html`<section class="result"><h2>${result(outcome, names, -1, log.table?.config?.game)}</h2><p>Replay check: ${log.table?.replayVerdict || "pending"}</p></section>` : nothing}
      ${log.table?.config ? html`<p class="howto-line">${howToPlayLink(log.table.config.game)}</p>` : nothing}
      ${this.board(names)}
      <section class="panel" aria-label="Moves">
        <h2>Moves</h2>
        <ol class="moves">${log.actions.map(
          (a, i) => html`<li class=${i + 1 === this.step ? "now" : i + 1 > this.step ? "later" : ""}>
            <button class="link" @click=${() => this.goTo(i + 1)}>${names[a.seat] ?? "The operator"}: ${named(a.text, { names, mine: -1 })}</button></li>`,
        )}</ol>
      </section>`;
  }
}
