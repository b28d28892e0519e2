// The Manaforge browser client: the lobby (#/), a table to play or watch (#/table/ID) and a finished game's replay
// (#/replay/ID); the operator's console (#/console). Every call is the platform's own API (Gateway, Admin), over gRPC-Web.
import { html, nothing, render, type TemplateResult } from "lit-html";
import { Code, ConnectError } from "@connectrpc/connect";
import { anyUnpack, type Any } from "@bufbuild/protobuf/wkt";
import type { DescMessage, Message } from "@bufbuild/protobuf";
import {
  dropSeat,
  forget,
  gateway,
  games,
  heldSeat,
  heldTicket,
  holdSeat,
  holdTicket,
  identity,
  rules,
  saveIdentity,
  type SeatHeld,
  type TicketHeld,
} from "./api";
import { facesOf, human } from "./board";
import { Challenges } from "./challenges";
import { ConsolePage } from "./console";
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
  type WatchUpdate,
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
  challenges.sync();
  render(html`${challenges.panel()}${page instanceof Lobby ? nothing : queue.banner()}${page ? page.view() : nothing}`, app);
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
  const first = !page;
  page?.close();
  const [, kind, id] = location.hash.split("/");
  page =
    kind === "table" && id ? new TablePage(decoded(id))
    : kind === "replay" && id ? new ReplayPage(decoded(id))
    : kind === "rules" && id ? new HowToPlayPage(decoded(id), show)
    : kind === "console" ? new ConsolePage(show)
    : new Lobby();
  show();
  if (first) return; // a page just loaded starts at its top, with the focus where the browser puts it
  window.scrollTo(0, 0);
  app.focus({ preventScroll: true }); // a screen reader starts reading the new page
}

/** An id from the address as typed (a stray "%" kept as it is). */
function decoded(id: string): string {
  try {
    return decodeURIComponent(id);
  } catch {
    return id;
  }
}

function codeOf(error: unknown): Code | undefined {
  return error instanceof ConnectError ? error.code : undefined;
}

// ---------------------------------------------------------------------------------------------------- the queue

/** This browser's place in a queue, on every page: waited on until it is matched, then the player is taken to the
 * table. A reload or a closed tab keeps it (the ticket is kept in localStorage); only "Leave the queue" leaves. */
class Queue {
  held?: TicketHeld = heldTicket();
  waiting = 0;
  said = ""; // what became of it (a lapsed ticket), or a refusal
  private abort = new AbortController();
  private running = false;

  /** Wait on the held ticket, if there is one and nobody waits on it yet. */
  start(): void {
    if (this.held && !this.running) void this.run();
  }

  async join(game: string, seats: number): Promise<void> {
    const ticket = await gateway.joinQueue({ game, seats, playerName: identity().name });
    this.held = { ticketId: ticket.ticketId, game, seats };
    holdTicket(this.held);
    this.said = "";
    if (this.answered(ticket)) this.start();
  }

  /** Start the table now, bots in the seats still empty: at any moment, matched or not (then it is the match). */
  async fill(): Promise<void> {
    if (this.held) this.answered(await gateway.fillWithBots({ ticketId: this.held.ticketId }));
  }

  async leave(): Promise<void> {
    const held = this.held;
    if (!held) return;
    try {
      await gateway.leaveQueue({ ticketId: held.ticketId });
    } catch (e) {
      if (codeOf(e) === Code.FailedPrecondition) { // matched meanwhile: the seat is this player's all the same
        this.answered(await gateway.waitForMatch({ ticketId: held.ticketId, timeoutSeconds: 0 }));
        return;
      }
      if (codeOf(e) !== Code.NotFound) throw e;
    }
    this.forget();
  }

  /** A ticket's answer; false once it is matched (the player is taken to the table) or the queue was left. */
  answered(ticket: QueueTicket): boolean {
    if (!this.held || ticket.ticketId !== this.held.ticketId) return false;
    if (ticket.matched) {
      holdSeat(ticket.tableId, ticket.seat, ticket.seatToken);
      this.forget();
      go(`#/table/${ticket.tableId}`);
      return false;
    }
    this.waiting = ticket.waiting;
    show();
    return true;
  }

  forget(): void {
    this.held = undefined;
    holdTicket(undefined);
    this.abort.abort();
    this.abort = new AbortController();
    show();
  }

  private async run(): Promise<void> {
    this.running = true;
    let tries = 0;
    while (this.held) {
      const held = this.held;
      const signal = this.abort.signal;
      try {
        const ticket = await gateway.waitForMatch({ ticketId: held.ticketId, timeoutSeconds: 5 }, { signal });
        tries = 0;
        if (!this.answered(ticket)) break;
      } catch (e) {
        if (signal.aborted) continue; // left, or matched by another call: the loop sees it
        if (codeOf(e) === Code.NotFound && this.held === held) { // unknown: it lapsed (nobody waited on it for a minute)
          this.forget();
          this.said = `Your place in the queue for ${title(held.game)} lapsed: queue again.`;
          show();
          break;
        }
        this.said = isAway(e) ? "" : problem(e);
        show();
        await pause(BACKOFF_MS[Math.min(++tries, BACKOFF_MS.length - 1)]);
      }
    }
    this.running = false;
  }

  /** The place in the queue, with its two buttons. */
  status(): TemplateResult {
    const held = this.held!;
    return html`<div class="queue stack" role="status" aria-label="In the queue">
      <h3>In the queue</h3>
      <p>${this.waiting ? String(this.waiting) : "Still"} waiting for ${title(held.game)}, ${held.seats} seats${identity().playerId ? ", matched by rating" : ""}…</p>
      <div class="row"><button @click=${() => void act(() => this.fill())}>Fill with bots now</button>
        <button @click=${() => void act(() => this.leave())}>Leave the queue</button></div>
    </div>`;
  }

  /** On any page but the lobby: the place in the queue, at the top. */
  banner(): Part {
    return this.held ? html`<section class="panel" aria-label="Your place in a queue">${notice(this.said)}${this.status()}</section>` : nothing;
  }
}

/** A click's work; a refusal is said at the top of the page. */
async function act(work: () => Promise<void>): Promise<void> {
  queue.said = "";
  try {
    await work();
  } catch (e) {
    queue.said = problem(e);
  }
  show();
}

const queue = new Queue();
const challenges = new Challenges(show, go); // the signed-in player's challenges, on every page

// ---------------------------------------------------------------------------------------------------- the lobby

class Lobby implements Page {
  games: GameInfo[] = [];
  open: Table[] = [];
  playing: Table[] = [];
  mine: Table[] = [];
  leaders: LeaderboardEntry[] = [];
  bots: LeaderboardEntry[] = []; // the bot accounts' leaderboard of the game: players to challenge
  player?: Player;
  error = "";
  game = "";
  nameError = "";
  maintenance = ""; // the operator's notice (ListGames)
  closed = false;
  timer = window.setInterval(() => void this.refresh(), 5000);

  constructor() {
    void this.load();
  }

  close(): void {
    this.closed = true;
    window.clearInterval(this.timer);
  }

  async load(): Promise<void> {
    try {
      const listed = await gateway.listGames({});
      [this.games, this.maintenance] = [listed.games, listed.notice];
      challenges.know(this.games, title);
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
      if (this.game && identity().playerId) this.bots = (await gateway.getLeaderboard({ game: this.game, seats, limit: 10, bots: true })).entries;
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

  /** A guest name, checked as it is chosen: not a registered player's, nor a bot's. */
  async rename(form: HTMLFormElement): Promise<void> {
    const name = (new FormData(form).get("guest") as string).trim();
    if (!name) return;
    this.nameError = "";
    try {
      const check = await gateway.checkName({ playerName: name });
      if (check.free) saveIdentity({ name });
      else this.nameError = `${check.reason}.`;
    } catch (e) {
      this.nameError = problem(e);
    }
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
    const seats = Number(new FormData(form).get("seats"));
    return this.act(() => queue.join(this.game, seats));
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
      ${this.maintenance ? html`<p class="maintenance" role="status">${this.maintenance}</p>` : nothing}
      ${notice(this.error || queue.said)}
      <section class="panel" aria-labelledby="you">
        <h2 id="you">You</h2>
        ${who.playerId
          ? html`<p>Registered as <strong>${who.name}</strong>.
                <button type="button" class="link" @click=${() => { forget(); this.player = undefined; show(); }}>Sign out</button></p>
              ${this.ratings()}`
          : html`<form class="row" @submit=${submit((f) => this.rename(f))}>
                <label>Play as a guest named <input name="guest" .value=${who.name} maxlength="24" autocomplete="nickname"
                  aria-invalid=${this.nameError ? "true" : "false"} aria-describedby=${this.nameError ? "name-error" : nothing} /></label>
                <button>Use this name</button>
              </form>
              ${this.nameError ? html`<p class="error" id="name-error" role="alert">${this.nameError}</p>` : nothing}
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
        ${info ? html`<p class="about">${info.description} ${howToPlayLink(info.name, `How to play ${info.title}`)}</p>${this.createForm(info, submit)}${this.queueForm(info, submit)}${challenges.form(info, this.leaders, this.bots)}` : nothing}
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
    if (queue.held) return queue.status();
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
  return (table?.seats ?? []).map((s) => (s.kind === SeatKind.OPEN ? `seat ${s.seat} (open)` : s.kind === SeatKind.BOT ? s.name || `bot (${s.botLevel || "random"})` : s.botAccount ? `${s.name} (bot account)` : s.name));
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
const RETRY_MS = [1000, 2000, 5000, 10_000, 30_000]; // ... and after another failure, the last one repeated
const CLOCK_SLACK_S = 2; // a move of this seat's this close to its deadline may be the clock's (clocks differ a little)
const TAKEOVER_AFTER = 3; // the gateway's default: decisions run out in a row before a seat is away
const SAID_MS = 10_000; // how long "reconnected" stays

function pause(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** A fresh client action id (crypto.randomUUID needs a secure context; an edge may be served over plain HTTP). */
function actionId(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** This seat's events that the page did not send (made by the clock's timeout or bot), kept to say them. */
interface Decided {
  gone: Event[]; // found on coming back to the table: since this browser last showed it
  late: Event[]; // live: the seat's time ran out
}

class TablePage implements Page {
  table?: Table;
  catalogue?: Catalogue;
  seatView?: SeatView;
  events: Event[] = [];
  error = "";
  gone = ""; // the link leads nowhere (no such table): said once, nothing retried
  said = ""; // what became of the link's seat (a refused token), said once
  held: SeatHeld | undefined;
  accepted = false; // the gateway took the held seat token: the page plays that seat
  rejoined = false; // a registered player's fresh token was asked for after a refusal
  group?: Group;
  writing?: Choice;
  sending = false;
  made = new Set<bigint>(); // the versions this page's own moves made
  unclaimed: Event[] = []; // this seat's events not (yet) known to be this page's moves
  decided?: Decided; // what the clock decided for this seat, until its next move
  welcome = ""; // the seat was away and is back
  awaySince?: number; // when the gateway went away, while it is away
  draining = false; // it said it was draining (a graceful restart)
  backAt = 0; // when it answered again
  abort = new AbortController();
  ticker = window.setInterval(() => this.tick(), 1000);

  constructor(readonly tableId: string) {
    this.held = heldSeat(tableId);
    void this.start();
  }

  close(): void {
    this.abort.abort();
    window.clearInterval(this.ticker);
  }

  /** Each second, while a clock counts down or a connection notice is shown: drawn again. */
  tick(): void {
    const counting = !this.seatView?.outcome?.finished && !!this.seatView?.deadlines.length;
    if (counting || this.awaySince !== undefined || Date.now() - this.backAt < SAID_MS + 1000) show();
  }

  /** The seat this page plays, once the gateway accepted its token (-1: watching). */
  get mine(): number {
    return this.accepted && this.held ? this.held.seat : -1;
  }

  async start(): Promise<void> {
    try {
      this.table = await gateway.getTable({ tableId: this.tableId });
      const who = identity();
      if (!this.held && who.playerId && this.table.seats.some((s) => s.playerId === who.playerId)) await this.rejoin();
      if (this.table.config) this.catalogue = await catalogueOf(this.table.config);
    } catch (e) {
      if (this.ended(e)) return;
      this.error = problem(e);
    }
    show();
    void this.poll();
    await this.follow();
  }

  /** A registered player's own seat, from any browser: a fresh token. */
  async rejoin(): Promise<void> {
    const back = await gateway.rejoinTable({ tableId: this.tableId });
    holdSeat(this.tableId, back.seat, back.seatToken, this.held?.seen ? BigInt(this.held.seen) : undefined);
    this.held = heldSeat(this.tableId);
  }

  /** The link leads to no table: said, and nothing more is tried. */
  ended(error: unknown): boolean {
    const code = codeOf(error);
    if (code === Code.NotFound) this.gone = `No table ${this.tableId} here: it may have finished and been removed.`;
    else if (code === Code.InvalidArgument) this.gone = `This link names no table (${problem(error)}).`;
    else return false;
    this.abort.abort();
    show();
    return true;
  }

  /** The table's seats (who is away, who is watching) every few seconds until the game is over. */
  async poll(): Promise<void> {
    while (!this.abort.signal.aborted && !this.table?.outcome?.finished) {
      await pause(this.table?.started ? 5000 : 2000);
      if (this.abort.signal.aborted) return;
      await this.refreshTable();
    }
  }

  async refreshTable(): Promise<void> {
    try {
      this.table = await gateway.getTable({ tableId: this.tableId });
      show();
    } catch (e) {
      if (!this.ended(e) && !isAway(e)) this.error = problem(e);
    }
  }

  /** The seat's (or the public) updates, live; resumed after the last one seen when the stream breaks (at once
   * when the gateway drains, for a restart). A refused seat token is forgotten and the table watched instead. */
  async follow(): Promise<void> {
    let after = 0n;
    let tries = 0;
    while (!this.abort.signal.aborted) {
      try {
        const token = this.held?.token ?? "";
        const updates = gateway.watch({ tableId: this.tableId, seatToken: token, afterSeq: after }, { signal: this.abort.signal });
        const awayAtOpen = !this.accepted && !!this.held && !!this.table?.seats[this.held.seat]?.away;
        for await (const update of updates) {
          const first = !this.accepted && !!token && update.view?.seat === this.held?.seat; // the token is taken
          if (first) this.accepted = true;
          after = update.seq;
          tries = 0;
          this.back();
          if (this.accepted) this.notice(update, first, awayAtOpen);
          this.events.push(...update.events);
          if (update.view) this.seatView = update.view;
          if (this.accepted && this.seatView) holdSeat(this.tableId, this.mine, token, this.seatView.version);
          if (this.seatView?.outcome?.finished || !this.table?.started || first) await this.refreshTable();
          this.error = "";
          show();
        }
        if (this.seatView?.outcome?.finished) return;
      } catch (e) {
        if (this.abort.signal.aborted || this.ended(e)) return;
        if (codeOf(e) === Code.Unauthenticated && this.held) {
          await this.refused();
          continue;
        }
        if (isAway(e)) this.away(e);
        else this.error = `${problem(e)} — trying again…`;
        show();
        tries++;
      }
      await pause(this.awaySince === undefined ? RETRY_MS[Math.min(tries, RETRY_MS.length - 1)] : BACKOFF_MS[Math.min(tries, BACKOFF_MS.length - 1)]);
    }
  }

  /** The gateway refused the held seat token (a forged link, another browser's seat): a registered player's own
   * seat is taken again with a fresh token; otherwise the token is forgotten and the table watched. */
  async refused(): Promise<void> {
    dropSeat(this.tableId);
    this.held = undefined;
    this.accepted = false;
    const who = identity();
    if (!this.rejoined && who.playerId && this.table?.seats.some((s) => s.playerId === who.playerId)) {
      this.rejoined = true; // once: a fresh token refused as well is not asked for again
      try {
        await this.rejoin();
        return;
      } catch {
        // not theirs after all: watch
      }
    }
    this.said = "This link's seat is not yours: watching instead.";
    show();
  }

  /** What the clock decided for this seat: its events that this page did not send, when they came after the
   * seat's deadline (or while it was away); on coming back to the table, those since the page last showed it. */
  notice(update: WatchUpdate, first: boolean, awayAtOpen: boolean): void {
    const mine = this.mine;
    const ours = update.events.filter((e) => e.actor === mine);
    if (first) {
      const seen = this.held?.seen !== undefined ? BigInt(this.held.seen) : undefined;
      const missed = seen === undefined ? [] : ours.filter((e) => e.version > seen);
      if (missed.length) this.decided = { gone: missed, late: [] };
      if (awayAtOpen) this.welcome = "You are back: your clock runs in full again.";
      return;
    }
    // the move that answered this seat's pending decision: the first of the update (one commit, when live)
    const pending = this.seatView?.pending?.seats.includes(mine);
    const due = this.seatView?.deadlines.find((d) => d.seat === mine)?.at;
    const late = !!this.table?.seats[mine]?.away || (due !== undefined && Date.now() / 1000 >= due - CLOCK_SLACK_S);
    const answer = update.events[0]?.version;
    if (pending && late) this.unclaimed.push(...ours.filter((e) => e.version === answer));
    this.settle();
  }

  /** Sort this seat's late events once no move of this page's is on its way: those it did not make were decided
   * for it. */
  settle(): void {
    if (this.sending || !this.unclaimed.length) return;
    const decided = this.unclaimed.filter((e) => !this.made.has(e.version));
    this.unclaimed = [];
    if (!decided.length) return;
    this.decided = { gone: this.decided?.gone ?? [], late: [...(this.decided?.late ?? []), ...decided] };
    this.welcome = "";
    void this.refreshTable(); // the seat may be away now
  }

  /** The player is back (a call with the seat's token): a bot no longer plays the seat at once, and the clock runs
   * in full again. */
  async comeBack(): Promise<void> {
    if (!this.held) return;
    try {
      const view = await gateway.getView({ tableId: this.tableId, seatToken: this.held.token });
      if (!this.seatView || view.version >= this.seatView.version) this.seatView = view; // its fresh deadline
      this.decided = undefined;
      this.welcome = "You are back: your clock runs in full again.";
      await this.refreshTable();
    } catch (e) {
      this.error = problem(e);
    }
    show();
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
    this.sending = true; // the choices wait, disabled, for the answer
    this.error = "";
    show();
    const version = this.seatView.version;
    const request = {
      tableId: this.tableId,
      seatToken: this.held.token,
      clientActionId: actionId(), // one id for every try: a move that landed is not made twice
      action: texts ? withTexts(choice, texts) : choice.any,
      // a turn is taken on the board as seen; a vote or a response may cross other seats' moves
      expectedVersion: this.seatView.pending?.kind === DecisionKind.TURN ? version : undefined,
    };
    const since = Date.now();
    for (let tries = 0; ; tries++) {
      try {
        const done = await gateway.submitAction(request); // the Watch, resumed, says when the gateway is back
        this.made.add(done.version);
        this.group = undefined;
        this.writing = undefined;
        this.decided = undefined;
        this.welcome = "";
        break;
      } catch (e) {
        if (!isAway(e) || this.abort.signal.aborted || Date.now() - since > PATIENCE_MS) {
          // the board moved on meanwhile (the clock decided first): what was decided is said, not the refusal
          const late = (codeOf(e) === Code.Aborted || codeOf(e) === Code.FailedPrecondition) && this.seatView.version !== version;
          if (!late) this.error = problem(e);
          break;
        }
        this.away(e);
        show();
        await pause(BACKOFF_MS[Math.min(tries, BACKOFF_MS.length - 1)]);
      }
    }
    this.sending = false;
    this.settle();
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
    const mine = this.mine;
    const game = this.table?.config?.game ?? "";
    const heading = html`<h1>${game ? title(game) : "Table"} <small class="muted">table ${this.tableId}</small></h1>`;
    if (this.gone) return html`${heading}<p class="error" role="alert">${this.gone} <a href="#/">Back to the lobby</a></p>`;
    const parsed = this.seatView && parse(this.seatView);
    const outcome = this.seatView?.outcome;
    const seats = { names, mine };
    return html`
      ${heading}
      ${game ? html`<p class="howto-line">${howToPlayLink(game)}</p>` : nothing}
      <p class="muted" data-seat=${mine}>${mine >= 0 ? `You play as ${names[mine]}.` : this.held ? "Taking your seat…" : "You are watching (the public view)."}
        ${this.table?.spectators ? `${this.table.spectators} watching.` : ""}</p>
      ${this.connection()}
      ${this.said ? html`<p class="error" role="alert">${this.said}</p>` : nothing}
      ${notice(this.error)}
      ${this.seatsBar(names, mine)}
      ${outcome?.finished
        ? html`<section class="result" role="status" aria-label="Result"><h2>${result(outcome, names, mine, game)}</h2>
            <a class="button" href=${`#/replay/${this.tableId}`}>Replay this game step by step</a> <a class="button" href="#/">Back to the lobby</a></section>`
        : this.table && !this.table.started
          ? html`<p role="status">Waiting for players: ${this.table.seats.filter((s) => s.kind === SeatKind.OPEN).length} open seat(s). Share this page's address.</p>`
          : nothing}
      ${!outcome?.finished && mine >= 0 ? html`${this.clockNotice()}${this.actions()}` : nothing}
      ${parsed && this.table?.config
        ? table(this.seatView!, this.table.config, this.catalogue, seats)
        : html`<p class="muted">Loading the table…</p>`}
      ${this.seatView?.text && !presentation(game) ? html`<details><summary>The table as text</summary><pre>${this.seatView.text}</pre></details>` : nothing}
      <section class="panel log" aria-label="What happened">
        <h2>What happened</h2>
        <ol aria-live="polite">${this.events.slice(-12).map((e) => html`<li>${sentence(named(e.text, seats), seats)}</li>`)}</ol>
      </section>`;
  }

  /** What the clock decided for this seat, whether a bot now plays it, and how to come back. */
  clockNotice(): Part {
    const after = this.table?.timeControl?.takeoverAfter || TAKEOVER_AFTER;
    const away = !!this.table?.seats[this.mine]?.away;
    const decided = this.decided;
    if (!away && !decided && !this.welcome) return nothing;
    const said = (when: string, events: Event[]) =>
      events.length ? html`<p>${when}: <strong>${events.slice(-3).map((e) => e.text).join("; ")}</strong>.</p>` : nothing;
    return html`<section class="clock-notice" role="status" aria-label="Your clock">
      ${said("While you were gone, the clock decided for you", decided?.gone ?? [])}
      ${said("Your time ran out: the clock decided for you", decided?.late ?? [])}
      ${away
        ? html`<p>You are away: after ${after} decisions in a row made by the clock, a bot plays your seat at once.
            <button @click=${() => void this.comeBack()}>I'm back</button> (or open this table's link again) to play again.</p>`
        : this.welcome
          ? html`<p>${this.welcome}</p>`
          : html`<p>After ${after} in a row, a bot plays your seat at once until you come back.</p>`}
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
        ${left !== undefined && pending.has(seat) ? html`<span class="clock" role="timer" aria-label=${`${seat === mine ? "you" : name}: ${left} ${left === 1 ? "second" : "seconds"} left`}>${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}</span>` : nothing}
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

class ReplayPage implements Page {
  log?: GameLog;
  step = 0;
  error = "";
  states: Any[] = []; // the game's state before each move, then at the end: re-applied from its seed by the rules
  views = new Map<number, Any>();
  unfinished = false; // the game is still being played: no log yet
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
        // seat -1: the operator ended the game there (docs/operations.md); the board stays as the last move left it
        if (action.seat >= 0) state = (await rules.apply({ state, seat: action.seat, action: action.action })).state!;
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
      const code = codeOf(e);
      if (code === Code.NotFound) this.error = `No table ${this.tableId} here: it may have finished and been removed.`;
      else if (code === Code.FailedPrecondition && !this.log) this.unfinished = true;
      else this.error = problem(e);
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

window.addEventListener("hashchange", route);
route();
queue.start();
void gateway.listGames({}).then((answer) => {
  for (const g of answer.games) titles.set(g.name, g.title);
  show();
});
