// The Manaforge browser client: the lobby (#/), a table to play or watch (#/table/ID) and a finished game's replay
// (#/replay/ID). Every call is the Gateway's own API, over gRPC-Web.
import { html, nothing, render, type TemplateResult } from "lit-html";
import { Code, ConnectError } from "@connectrpc/connect";
import { anyUnpack, type Any } from "@bufbuild/protobuf/wkt";
import type { DescMessage, Message } from "@bufbuild/protobuf";
import { forget, gateway, games, heldSeat, holdSeat, identity, rules, saveIdentity, type SeatHeld } from "./api";
import { facesOf, human } from "./board";
import { Cards, factsText } from "./cards";
import { drawTable, presentation, resultText } from "./games";
import { HowToPlayPage, howToPlayLink } from "./howto";
import { named, sentence, type Seating } from "./names";
import { choices, grouped, textFields, withTexts, type Choice, type Group } from "./actions";
import type { GameInfo } from "./gen/manaforge/v1/rules_pb";
import { DecisionKind, type Catalogue, type Event, type GameConfig, type Outcome } from "./gen/manaforge/v1/common_pb";
import {
  SeatKind,
  type GameLog,
  type LeaderboardEntry,
  type Player,
  type QueueTicket,
  type SeatView,
  type Table,
} from "./gen/manaforge/v1/gateway_pb";
import "./style.css";

const app = document.getElementById("app")!;
let page: Page | undefined;

interface Page {
  view(): TemplateResult;
  close(): void;
}

/** The games' titles, by registry name. */
const titles = new Map<string, string>();

function title(game: string): string {
  return titles.get(game) ?? human(game);
}

function show(): void {
  render(page ? page.view() : nothing, app);
  const who = identity();
  render(html`${who.playerId ? html`Signed in as <strong>${who.name}</strong>` : html`Guest <strong>${who.name}</strong>`}`, document.getElementById("who")!);
}

function problem(error: unknown): string {
  return error instanceof ConnectError ? error.rawMessage || error.message : String(error);
}

type Part = TemplateResult | typeof nothing;

function notice(text: string): Part {
  return text ? html`<p class="error" role="alert">${text}</p>` : nothing;
}

function go(hash: string): void {
  if (location.hash === hash) route();
  else location.hash = hash;
}

function route(): void {
  page?.close();
  const [, kind, id] = location.hash.split("/");
  page =
    kind === "table" && id ? new TablePage(id)
    : kind === "replay" && id ? new ReplayPage(id)
    : kind === "rules" && id ? new HowToPlayPage(decodeURIComponent(id), show)
    : new Lobby();
  show();
  app.focus();
}

// ---------------------------------------------------------------------------------------------------- the lobby

class Lobby implements Page {
  games: GameInfo[] = [];
  open: Table[] = [];
  playing: Table[] = [];
  mine: Table[] = [];
  leaders: LeaderboardEntry[] = [];
  player?: Player;
  error = "";
  game = "";
  ticket?: QueueTicket;
  closed = false;
  timer = window.setInterval(() => void this.refresh(), 5000);

  constructor() {
    void this.load();
  }

  close(): void {
    this.closed = true;
    window.clearInterval(this.timer);
    if (this.ticket && !this.ticket.matched) void gateway.leaveQueue({ ticketId: this.ticket.ticketId }).catch(() => {});
  }

  async load(): Promise<void> {
    try {
      this.games = (await gateway.listGames({})).games;
      this.game ||= this.games.find((g) => g.name !== "cardbench")?.name ?? this.games[0]?.name ?? "";
      if (identity().playerId) this.player = await gateway.getPlayer({});
    } catch (e) {
      this.error = problem(e);
    }
    await this.refresh();
  }

  async refresh(): Promise<void> {
    try {
      this.open = (await gateway.listTables({ pageSize: 20 })).tables;
      this.playing = (await gateway.listTables({ inProgress: true, pageSize: 20 })).tables;
      if (identity().playerId) this.mine = (await gateway.listTables({ mine: true, pageSize: 10 })).tables;
      const seats = Math.max(this.info()?.minSeats ?? 2, 2);
      if (this.game) this.leaders = (await gateway.getLeaderboard({ game: this.game, seats, limit: 10 })).entries;
    } catch (e) {
      this.error = problem(e);
    }
    if (!this.closed) show();
  }

  info(): GameInfo | undefined {
    return this.games.find((g) => g.name === this.game);
  }

  async act(work: () => Promise<void>): Promise<void> {
    this.error = "";
    try {
      await work();
    } catch (e) {
      this.error = problem(e);
    }
    if (!this.closed) show();
  }

  register(form: HTMLFormElement): Promise<void> {
    const name = (new FormData(form).get("name") as string).trim();
    return this.act(async () => {
      const player = await gateway.registerPlayer({ name });
      saveIdentity({ name: player.name, playerId: player.playerId, key: player.secretKey });
      this.player = await gateway.getPlayer({});
    });
  }

  rename(form: HTMLFormElement): void {
    saveIdentity({ name: (new FormData(form).get("guest") as string).trim() || identity().name });
    show();
  }

  create(form: HTMLFormElement): Promise<void> {
    const data = new FormData(form);
    const info = this.info()!;
    const seats = Number(data.get("seats"));
    const options: Record<string, string> = {};
    for (const option of info.options) {
      const value = data.get(`option-${option.name}`);
      if (typeof value === "string") options[option.name] = value;
    }
    const others = data.get("others") as string;
    const clock = Number(data.get("clock"));
    return this.act(async () => {
      const created = await gateway.createTable({
        config: { game: info.name, seats, options },
        seats: Array.from({ length: seats }, (_, i) => (i === 0 || others === "open" ? { bot: false } : { bot: true, botLevel: others })),
        playerName: identity().name,
        timeControl: clock ? { decisionSeconds: clock } : undefined,
      });
      holdSeat(created.table!.tableId, created.seat, created.seatToken);
      go(`#/table/${created.table!.tableId}`);
    });
  }

  join(table: Table): Promise<void> {
    return this.act(async () => {
      const joined = await gateway.joinTable({ tableId: table.tableId, playerName: identity().name });
      holdSeat(table.tableId, joined.seat, joined.seatToken);
      go(`#/table/${table.tableId}`);
    });
  }

  queue(form: HTMLFormElement): Promise<void> {
    const data = new FormData(form);
    return this.act(async () => {
      this.ticket = await gateway.joinQueue({ game: this.game, seats: Number(data.get("seats")), playerName: identity().name });
      show();
      while (!this.closed && this.ticket && !this.ticket.matched) {
        this.matched(await gateway.waitForMatch({ ticketId: this.ticket.ticketId, timeoutSeconds: 5 }));
      }
    });
  }

  /** A ticket's answer: the seat token comes once, in the first answer that finds the ticket matched. */
  matched(ticket: QueueTicket): void {
    if (this.closed || !this.ticket) return;
    if (ticket.matched && ticket.seatToken) {
      holdSeat(ticket.tableId, ticket.seat, ticket.seatToken);
      go(`#/table/${ticket.tableId}`);
    } else if (!this.ticket.matched) {
      this.ticket = ticket; // a tokenless match: the token is in the other answer on its way
      show();
    }
  }

  fill(): Promise<void> {
    return this.act(async () => {
      if (this.ticket) this.matched(await gateway.fillWithBots({ ticketId: this.ticket.ticketId }));
    });
  }

  leave(): Promise<void> {
    return this.act(async () => {
      if (this.ticket) await gateway.leaveQueue({ ticketId: this.ticket.ticketId });
      this.ticket = undefined;
    });
  }

  view(): TemplateResult {
    const info = this.info();
    const who = identity();
    const submit = (handler: (form: HTMLFormElement) => unknown) => (e: SubmitEvent) => {
      e.preventDefault();
      void handler(e.currentTarget as HTMLFormElement);
    };
    return html`
      <h1>Play</h1>
      ${notice(this.error)}
      <section class="panel" aria-labelledby="you">
        <h2 id="you">You</h2>
        ${who.playerId
          ? html`<p>Registered as <strong>${who.name}</strong>.
                <button type="button" class="link" @click=${() => { forget(); this.player = undefined; show(); }}>Sign out</button></p>
              ${this.ratings()}`
          : html`<form class="row" @submit=${submit((f) => this.rename(f))}>
                <label>Play as a guest named <input name="guest" .value=${who.name} maxlength="24" autocomplete="nickname" /></label>
                <button>Use this name</button>
              </form>
              <form class="row" @submit=${submit((f) => this.register(f))}>
                <label>or register a name (for ratings) <input name="name" required minlength="3" maxlength="24" pattern="[A-Za-z][A-Za-z0-9_\\-]*" /></label>
                <button>Register</button>
              </form>`}
      </section>
      <section class="panel" aria-labelledby="new">
        <h2 id="new">A new game</h2>
        <label>Game
          <select name="game" @change=${(e: Event & { target: HTMLSelectElement }) => { this.game = e.target.value; show(); void this.refresh(); }}>
            ${this.games.map((g) => html`<option value=${g.name} ?selected=${g.name === this.game}>${g.title}</option>`)}
          </select>
        </label>
        ${info ? html`<p class="about">${info.description} ${howToPlayLink(info.name, `How to play ${info.title}`)}</p>${this.createForm(info, submit)}${this.queueForm(info, submit)}` : nothing}
      </section>
      ${this.tableList("Tables waiting for players", "waiting", this.open, (t) => html`<button @click=${() => this.join(t)}>Join</button>`)}
      ${this.tableList("Games being played", "playing", this.playing, (t) => html`<a class="button" href=${`#/table/${t.tableId}`}>Watch</a>`)}
      ${who.playerId
        ? this.tableList("Your tables", "mine", this.mine, (t) =>
            t.outcome?.finished
              ? html`<a class="button" href=${`#/replay/${t.tableId}`}>Replay</a>`
              : html`<a class="button" href=${`#/table/${t.tableId}`}>Open</a>`)
        : nothing}
      ${info ? this.leaderboard(info) : nothing}
      <section class="panel" aria-labelledby="replay">
        <h2 id="replay">Replay a finished game</h2>
        <form class="row" @submit=${submit((f) => go(`#/replay/${(new FormData(f).get("table") as string).trim()}`))}>
          <label>Table id <input name="table" required /></label><button>Replay</button>
        </form>
      </section>`;
  }

  ratings(): TemplateResult {
    const ratings = this.player?.ratings ?? [];
    if (!ratings.length) return html`<p>No rated games yet: a registered player's finished games count once validated.</p>`;
    return html`<table class="list"><caption>Your ratings</caption>
      <thead><tr><th>game</th><th>seats</th><th>rating</th><th>games</th><th>rank</th></tr></thead>
      <tbody>${ratings.map((r) => html`<tr><td>${r.game}</td><td>${r.seats}</td><td>${r.ordinal.toFixed(1)}</td><td>${r.games}</td><td>${r.rank}</td></tr>`)}</tbody>
    </table>`;
  }

  leaderboard(info: GameInfo): TemplateResult {
    const seats = Math.max(info.minSeats, 2);
    return html`<section class="panel" aria-labelledby="leaders">
      <h2 id="leaders">Leaderboard: ${info.title}, ${seats} seats</h2>
      ${this.leaders.length
        ? html`<table class="list"><thead><tr><th>rank</th><th>player</th><th>rating</th><th>games</th></tr></thead>
            <tbody>${this.leaders.map((e, i) => html`<tr><td>${e.rating?.rank || i + 1}</td><td>${e.name}</td><td>${e.rating?.ordinal.toFixed(1)}</td><td>${e.rating?.games}</td></tr>`)}</tbody></table>`
        : html`<p class="empty">No rated games yet.</p>`}
    </section>`;
  }

  createForm(info: GameInfo, submit: (h: (f: HTMLFormElement) => unknown) => (e: SubmitEvent) => void): TemplateResult {
    return html`<form class="stack" aria-label="Create a table" @submit=${submit((f) => this.create(f))}>
      <h3>Create a table</h3>
      <label>Seats <input name="seats" type="number" min=${info.minSeats} max=${info.maxSeats} .value=${String(Math.max(info.minSeats, 2))} required /></label>
      <label>The other seats
        <select name="others">
          ${info.botLevels.map((level, i) => html`<option value=${level} ?selected=${i === 0}>bots: ${level}</option>`)}
          <option value="open">open, for people to join</option>
        </select>
      </label>
      ${info.options.map(
        (o) => html`<label>${human(o.name)}
          ${o.choices.length
            ? html`<select name=${`option-${o.name}`}>${o.choices.map((c) => html`<option ?selected=${c === o.defaultValue}>${c}</option>`)}</select>`
            : html`<input name=${`option-${o.name}`} .value=${o.defaultValue} />`}
          <small>${o.description}</small></label>`,
      )}
      <label>Clock per decision
        <select name="clock"><option value="0">the platform's default</option><option value="30">30 s</option><option value="60">1 min</option><option value="300">5 min</option></select>
      </label>
      <button>Create and sit down</button>
    </form>`;
  }

  queueForm(info: GameInfo, submit: (h: (f: HTMLFormElement) => unknown) => (e: SubmitEvent) => void): TemplateResult {
    if (this.ticket) {
      return html`<div class="stack" role="status">
        <h3>In the queue</h3>
        <p>${this.ticket.waiting} waiting for ${info.title}${identity().playerId ? ", matched by rating" : ""}…</p>
        <div class="row"><button @click=${() => this.fill()}>Fill with bots now</button><button @click=${() => this.leave()}>Leave the queue</button></div>
      </div>`;
    }
    return html`<form class="stack" aria-label="Queue for a game" @submit=${submit((f) => this.queue(f))}>
      <h3>Or queue for a match</h3>
      <label>Seats <input name="seats" type="number" min=${info.minSeats} max=${info.maxSeats} .value=${String(Math.max(info.minSeats, 2))} required /></label>
      <button>Join the queue</button>
    </form>`;
  }

  tableList(title: string, id: string, tables: Table[], action: (t: Table) => TemplateResult): TemplateResult {
    return html`<section class="panel" aria-labelledby=${id}>
      <h2 id=${id}>${title}</h2>
      ${tables.length
        ? html`<ul class="tables">${tables.map(
            (t) => html`<li><span><strong>${this.games.find((g) => g.name === t.config?.game)?.title ?? t.config?.game}</strong>
              · ${t.seats.map((s) => seatLabel(s.kind, s.name, s.botLevel)).join(", ")}
              ${t.spectators ? html`· ${t.spectators} watching` : nothing}</span>${action(t)}</li>`,
          )}</ul>`
        : html`<p class="empty">None right now.</p>`}
    </section>`;
  }
}

function seatLabel(kind: SeatKind, name: string, level: string): string {
  if (kind === SeatKind.OPEN) return "open seat";
  if (kind === SeatKind.BOT) return `${name || "bot"} (bot, ${level || "random"})`;
  return name;
}

// ---------------------------------------------------------------------------------------------------- a table

function parse(view: SeatView): { schema: DescMessage; message: Message } | undefined {
  const any = view.view;
  if (!any?.typeUrl) return undefined;
  const schema = games.getMessage(any.typeUrl.slice(any.typeUrl.lastIndexOf("/") + 1));
  const message = schema && anyUnpack(any, schema);
  return schema && message ? { schema, message } : undefined;
}

function seatNames(table: Table | undefined): string[] {
  return (table?.seats ?? []).map((s) => (s.kind === SeatKind.OPEN ? `seat ${s.seat} (open)` : s.kind === SeatKind.BOT ? s.name || `bot (${s.botLevel || "random"})` : s.name));
}

function result(outcome: Outcome, names: string[], mine: number, game = ""): string {
  return resultText(game, outcome, { names, mine }); // in the game's words (games/)
}

/** The facts of every card a table can show (GetCatalogue: asked once per table and options). */
const catalogues = new Map<string, Promise<Catalogue>>();

function catalogueOf(config: GameConfig): Promise<Catalogue> {
  const key = JSON.stringify([config.game, Object.entries(config.options).sort()]);
  let found = catalogues.get(key);
  if (!found) {
    found = gateway.getCatalogue({ config: { game: config.game, options: config.options } });
    found.catch(() => catalogues.delete(key)); // asked again next time
    catalogues.set(key, found);
  }
  return found;
}

/** The board of a view as its game draws it, with every card's facts and the seat's notes on its own cards. */
function table(view: SeatView, config: GameConfig, catalogue: Catalogue | undefined, seats: Seating): TemplateResult {
  const parsed = parse(view)!;
  const cards = new Cards(catalogue, facesOf(parsed.schema, parsed.message).values(), view.cardNotes, seats);
  const scene = { game: config.game, options: config.options, seats, view: parsed.message, cards, pending: view.pending, outcome: view.outcome };
  return drawTable(scene, parsed.schema, view.version);
}

/** The gateway is draining, restarting or out of reach (as is the edge): the call may be made again. */
function isAway(error: unknown): boolean {
  return error instanceof ConnectError && (error.code === Code.Unavailable || error.cause instanceof TypeError); // TypeError: fetch failed
}

function isDraining(error: unknown): boolean {
  return error instanceof ConnectError && error.code === Code.Unavailable && error.rawMessage.includes("gateway draining");
}

const PATIENCE_MS = 60_000; // a move waits this long for the gateway to come back
const BACKOFF_MS = [0, 250, 500, 1000, 2000]; // the pauses between tries while it is away, the last one repeated
const SAID_MS = 10_000; // how long "reconnected" stays

function pause(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** A fresh client action id (crypto.randomUUID needs a secure context; an edge may be served over plain HTTP). */
function actionId(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

class TablePage implements Page {
  table?: Table;
  catalogue?: Catalogue;
  seatView?: SeatView;
  events: Event[] = [];
  error = "";
  held: SeatHeld | undefined;
  group?: Group;
  writing?: Choice;
  sending = false;
  awaySince?: number; // when the gateway went away, while it is away
  draining = false; // it said it was draining (a graceful restart)
  backAt = 0; // when it answered again
  abort = new AbortController();
  ticker = window.setInterval(() => show(), 1000);

  constructor(readonly tableId: string) {
    this.held = heldSeat(tableId);
    void this.start();
  }

  close(): void {
    this.abort.abort();
    window.clearInterval(this.ticker);
  }

  async start(): Promise<void> {
    try {
      this.table = await gateway.getTable({ tableId: this.tableId });
      const who = identity();
      if (!this.held && who.playerId && this.table.seats.some((s) => s.playerId === who.playerId)) {
        const back = await gateway.rejoinTable({ tableId: this.tableId });
        holdSeat(this.tableId, back.seat, back.seatToken);
        this.held = heldSeat(this.tableId);
      }
      if (this.table.config) this.catalogue = await catalogueOf(this.table.config);
    } catch (e) {
      this.error = problem(e);
    }
    show();
    void this.waitForPlayers();
    await this.follow();
  }

  /** Until every seat is taken, the seats as they fill. */
  async waitForPlayers(): Promise<void> {
    while (this.table && !this.table.started && !this.abort.signal.aborted) {
      await new Promise((r) => setTimeout(r, 2000));
      try {
        this.table = await gateway.getTable({ tableId: this.tableId });
        show();
      } catch (e) {
        this.error = problem(e);
      }
    }
  }

  /** The seat's (or the public) updates, live; resumed after the last one seen when the stream breaks (at once
   * when the gateway drains, for a restart). */
  async follow(): Promise<void> {
    let after = 0n;
    let tries = 0;
    while (!this.abort.signal.aborted) {
      try {
        const updates = gateway.watch({ tableId: this.tableId, seatToken: this.held?.token ?? "", afterSeq: after }, { signal: this.abort.signal });
        for await (const update of updates) {
          after = update.seq;
          tries = 0;
          this.back();
          this.events.push(...update.events);
          if (update.view) this.seatView = update.view;
          if (this.seatView?.outcome?.finished || !this.table?.started) this.table = await gateway.getTable({ tableId: this.tableId });
          this.error = "";
          show();
        }
        if (this.seatView?.outcome?.finished) return;
      } catch (e) {
        if (this.abort.signal.aborted) return;
        if (isAway(e)) this.away(e);
        else this.error = `${problem(e)} — reconnecting…`;
        show();
      }
      await pause(this.awaySince === undefined ? 1000 : BACKOFF_MS[Math.min(tries++, BACKOFF_MS.length - 1)]);
    }
  }

  /** A call found the gateway away. */
  away(error: unknown): void {
    if (this.awaySince !== undefined) return;
    this.awaySince = Date.now();
    this.draining = isDraining(error);
  }

  /** A call was answered again. */
  back(): void {
    if (this.awaySince === undefined) return;
    this.awaySince = undefined;
    this.backAt = Date.now();
    show();
  }

  connection(): Part {
    if (this.awaySince !== undefined) {
      return html`<p class="connection" role="status">${this.draining ? "The gateway is restarting: reconnecting…" : "The gateway is unavailable: trying again…"}</p>`;
    }
    if (Date.now() - this.backAt < SAID_MS) {
      return html`<p class="connection" role="status">${this.draining ? "The gateway restarted: reconnected, nothing missed." : "The gateway is back: nothing missed."}</p>`;
    }
    return nothing;
  }

  async submit(choice: Choice, texts?: string[]): Promise<void> {
    if (!this.held || !this.seatView || this.sending) return;
    this.sending = true;
    this.error = "";
    const request = {
      tableId: this.tableId,
      seatToken: this.held.token,
      clientActionId: actionId(), // one id for every try: a move that landed is not made twice
      action: texts ? withTexts(choice, texts) : choice.any,
      // a turn is taken on the board as seen; a vote or a response may cross other seats' moves
      expectedVersion: this.seatView.pending?.kind === DecisionKind.TURN ? this.seatView.version : undefined,
    };
    const since = Date.now();
    for (let tries = 0; ; tries++) {
      try {
        await gateway.submitAction(request); // the Watch, resumed, says when the gateway is back
        this.group = undefined;
        this.writing = undefined;
        break;
      } catch (e) {
        if (!isAway(e) || this.abort.signal.aborted || Date.now() - since > PATIENCE_MS) {
          this.error = problem(e);
          break;
        }
        this.away(e);
        show();
        await pause(BACKOFF_MS[Math.min(tries, BACKOFF_MS.length - 1)]);
      }
    }
    this.sending = false;
    show();
  }

  pick(choice: Choice): void {
    if (textFields(choice).length) {
      this.writing = choice;
      show();
    } else void this.submit(choice);
  }

  view(): TemplateResult {
    const names = seatNames(this.table);
    const mine = this.held?.seat ?? -1;
    const game = this.table?.config?.game ?? "";
    const parsed = this.seatView && parse(this.seatView);
    const outcome = this.seatView?.outcome;
    const seats = { names, mine };
    return html`
      <h1>${game ? title(game) : "Table"} <small class="muted">table ${this.tableId}</small></h1>
      ${game ? html`<p class="howto-line">${howToPlayLink(game)}</p>` : nothing}
      <p class="muted">${mine >= 0 ? `You are at seat ${mine}.` : "You are watching (the public view)."}
        ${this.table?.spectators ? `${this.table.spectators} watching.` : ""}</p>
      ${this.connection()}
      ${notice(this.error)}
      ${this.seatsBar(names, mine)}
      ${outcome?.finished
        ? html`<section class="result" role="status" aria-label="Result"><h2>${result(outcome, names, mine, game)}</h2>
            <a class="button" href=${`#/replay/${this.tableId}`}>Replay this game step by step</a> <a class="button" href="#/">Back to the lobby</a></section>`
        : this.table && !this.table.started
          ? html`<p role="status">Waiting for players: ${this.table.seats.filter((s) => s.kind === SeatKind.OPEN).length} open seat(s). Share this page's address.</p>`
          : nothing}
      ${!outcome?.finished && mine >= 0 ? this.actions() : nothing}
      ${parsed && this.table?.config
        ? table(this.seatView!, this.table.config, this.catalogue, seats)
        : html`<p class="muted">Loading the table…</p>`}
      ${this.seatView?.text && !presentation(game) ? html`<details><summary>The table as text</summary><pre>${this.seatView.text}</pre></details>` : nothing}
      <section class="panel log" aria-label="What happened">
        <h2>What happened</h2>
        <ol aria-live="polite">${this.events.slice(-12).map((e) => html`<li>${sentence(named(e.text, seats), seats)}</li>`)}</ol>
      </section>`;
  }

  seatsBar(names: string[], mine: number): TemplateResult {
    const pending = new Set(this.seatView?.pending?.seats ?? []);
    const deadlines = new Map((this.seatView?.deadlines ?? []).map((d) => [d.seat, d.at]));
    return html`<ul class="seatbar" aria-label="Seats">${names.map((name, seat) => {
      const at = deadlines.get(seat);
      const left = at ? Math.max(0, Math.round(at - Date.now() / 1000)) : undefined;
      const away = this.table?.seats[seat]?.away;
      return html`<li class="${pending.has(seat) ? "pending" : ""} ${seat === mine ? "mine" : ""}">
        <span>${name}${seat === mine ? " (you)" : ""}${away ? " — away" : ""}</span>
        ${pending.has(seat) && !this.seatView?.outcome?.finished ? html`<span class="turn">to play</span>` : nothing}
        ${left !== undefined && pending.has(seat) ? html`<span class="clock" role="timer" aria-label=${`${name}: ${left} seconds left`}>${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}</span>` : nothing}
      </li>`;
    })}</ul>`;
  }

  actions(): Part {
    const view = this.seatView;
    if (!view) return nothing;
    const seats = { names: seatNames(this.table), mine: this.held?.seat ?? -1 };
    const legal = choices(view.legalActions).map((c) => ({ ...c, text: named(c.text, seats) }));
    const prompt = view.pending?.prompt && named(view.pending.prompt, seats).replace(/^You: /, ""); // "seat 0: cast …"
    const cards = new Cards(this.catalogue);
    if (!legal.length) {
      const waiting = (view.pending?.seats ?? []).map((s) => seatNames(this.table)[s]).join(", ");
      return html`<section class="actions" aria-label="Your actions"><p role="status">${waiting ? `Waiting for ${waiting}…` : "Waiting…"}</p></section>`;
    }
    if (this.writing) return this.writingForm(this.writing, prompt);
    const groups = this.group ? this.group.choices.map((c) => ({ label: c.text, choices: [c] })) : grouped(legal);
    return html`<section class="actions" aria-label="Your actions">
      <h2>Your move${prompt ? html`: <span class="prompt">${prompt}</span>` : nothing}</h2>
      ${this.group ? html`<p>${this.group.label} — which one? <button class="link" @click=${() => { this.group = undefined; show(); }}>back</button></p>` : nothing}
      <ul class="choices">${groups.map(
        (g) => html`<li><button ?disabled=${this.sending} title=${cards.namedIn(g.label).map(factsText).join("\n") || nothing} @click=${() => (g.choices.length === 1 ? this.pick(g.choices[0]) : ((this.group = g), show()))}>
          ${g.label}${g.choices.length > 1 ? html` <span class="count">(${g.choices.length} ways) …</span>` : nothing}</button></li>`,
      )}</ul>
    </section>`;
  }

  writingForm(choice: Choice, prompt?: string): TemplateResult {
    const fields = textFields(choice);
    const send = (e: SubmitEvent) => {
      e.preventDefault();
      const data = new FormData(e.currentTarget as HTMLFormElement);
      void this.submit(choice, fields.map((_, i) => data.get(`text-${i}`) as string));
    };
    return html`<section class="actions" aria-label="Your actions">
      <h2>${choice.text}${prompt ? html`: <span class="prompt">${prompt}</span>` : nothing}</h2>
      <form class="stack" @submit=${send}>
        ${fields.map((f, i) => html`<label>${human(f.label)} <textarea name=${`text-${i}`} data-field=${f.label} rows=${f.label === "art" ? 6 : 2} .value=${f.value}></textarea></label>`)}
        <div class="row"><button ?disabled=${this.sending}>Send</button>
          <button type="button" class="link" @click=${() => { this.writing = undefined; show(); }}>back</button></div>
      </form>
    </section>`;
  }
}

// ---------------------------------------------------------------------------------------------------- a replay

class ReplayPage implements Page {
  log?: GameLog;
  step = 0;
  error = "";
  states: Any[] = []; // the game's state before each move, then at the end: re-applied from its seed by the rules
  views = new Map<number, Any>();
  catalogue?: Catalogue;
  closed = false;

  constructor(readonly tableId: string) {
    void this.load();
  }

  close(): void {
    this.closed = true;
  }

  async load(): Promise<void> {
    try {
      this.log = await gateway.getLog({ tableId: this.tableId });
      if (this.log.table?.config) this.catalogue = await catalogueOf(this.log.table.config);
      show();
      let state = (await rules.newGame({ config: this.log.table?.config, seed: this.log.seed })).state!;
      this.states.push(state);
      for (const action of this.log.actions) {
        if (this.closed) return;
        state = (await rules.apply({ state, seat: action.seat, action: action.action })).state!;
        this.states.push(state);
        if (this.states.length - 1 === this.step + 1) show();
      }
      await this.showStep();
      // the server re-runs every finished game from its seed and log: its verdict comes a moment after the end
      for (let tries = 0; tries < 60 && !this.log.table?.replayVerdict && !this.closed; tries++) {
        await new Promise((r) => setTimeout(r, 1000));
        this.log.table = await gateway.getTable({ tableId: this.tableId });
        show();
      }
    } catch (e) {
      this.error = problem(e);
    }
    show();
  }

  /** The public view of the board at this step (asked of the rules once, then kept). */
  async showStep(): Promise<void> {
    const state = this.states[this.step];
    if (state && !this.views.has(this.step)) this.views.set(this.step, (await rules.view({ state })).view!);
    show();
  }

  goTo(step: number): void {
    this.step = Math.max(0, Math.min(step, this.log?.actions.length ?? 0));
    void this.showStep();
  }

  board(names: string[]): TemplateResult {
    const view = this.views.get(this.step);
    const config = this.log?.table?.config;
    if (!view || !config) return html`<p class="muted">${this.states.length <= this.step ? "Re-playing the moves…" : "Loading the board…"}</p>`;
    return table({ view, version: BigInt(this.step), cardNotes: [] as SeatView["cardNotes"] } as SeatView, config, this.catalogue, { names, mine: -1 });
  }

  view(): TemplateResult {
    const log = this.log;
    if (!log) return html`<h1>Replay</h1>${notice(this.error)}<p class="muted">Loading…</p>`;
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
        <button @click=${() => this.goTo(0)} aria-label="First move">⏮</button>
        <button @click=${() => this.goTo(this.step - 1)} aria-label="Previous move">◀</button>
        <label>Move <input type="range" min="0" max=${total} .value=${String(this.step)} @input=${(e: InputEvent) => this.goTo(Number((e.target as HTMLInputElement).value))} /></label>
        <output aria-live="polite">${this.step} of ${total}</output>
        <button @click=${() => this.goTo(this.step + 1)} aria-label="Next move">▶</button>
        <button @click=${() => this.goTo(total)} aria-label="Last move">⏭</button>
      </nav>
      ${this.step > 0
        ? html`<p class="current" role="status">Move ${this.step}: <strong>${names[log.actions[this.step - 1].seat]}</strong> — ${named(log.actions[this.step - 1].text, { names, mine: -1 })}</p>`
        : html`<p class="current" role="status">The start of the game.</p>`}
      ${this.step > 0 && events.length ? html`<ul class="step-events">${events.map((e) => html`<li>${sentence(named(e.text, { names, mine: -1 }), { names, mine: -1 })}</li>`)}</ul>` : nothing}
      ${this.step === total && outcome?.finished ? html`<section class="result"><h2>${result(outcome, names, -1, log.table?.config?.game)}</h2><p>Replay check: ${log.table?.replayVerdict || "pending"}</p></section>` : nothing}
      ${log.table?.config ? html`<p class="howto-line">${howToPlayLink(log.table.config.game)}</p>` : nothing}
      ${this.board(names)}
      <section class="panel" aria-label="Moves">
        <h2>Moves</h2>
        <ol class="moves">${log.actions.map(
          (a, i) => html`<li class=${i + 1 === this.step ? "now" : i + 1 > this.step ? "later" : ""}>
            <button class="link" @click=${() => this.goTo(i + 1)}>${names[a.seat]}: ${named(a.text, { names, mine: -1 })}</button></li>`,
        )}</ol>
      </section>`;
  }
}

window.addEventListener("hashchange", route);
route();
void gateway.listGames({}).then((answer) => {
  for (const g of answer.games) titles.set(g.name, g.title);
  show();
});
