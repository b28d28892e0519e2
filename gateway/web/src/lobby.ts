// The lobby (#/): who you are (a guest name, checked as it is chosen, or a registered player with their ratings), a
// new game (create a table, queue for a match, challenge a player), your games (whose turn it is at each), the tables
// waiting and being played, the game's leaderboard, and a finished game to replay.
import { html, nothing, type TemplateResult } from "lit-html";
import { forget, gateway, holdSeat, identity, saveIdentity } from "./api";
import { human } from "./board";
import type { Challenges } from "./challenges";
import { howToPlayLink } from "./howto";
import { notice, problem, title, type Go, type Page, type Show } from "./page";
import { turns } from "./notice";
import type { Queue } from "./queue";
import { isYourTurn, yourGames, yourGamesList, type YourGame } from "./yourgames";
import type { GameInfo } from "./gen/manaforge/v1/rules_pb";
import { SeatKind, type LeaderboardEntry, type Player, type Table } from "./gen/manaforge/v1/gateway_pb";

export class Lobby implements Page {
  games: GameInfo[] = [];
  open: Table[] = [];
  playing: Table[] = [];
  mine: YourGame[] = []; // the player's tables, under way first
  private owed?: Set<string>; // the tables waiting for the player's decision at the last look (none before the first)
  leaders: LeaderboardEntry[] = [];
  bots: LeaderboardEntry[] = []; // the bot accounts' leaderboard of the game: players to challenge
  player?: Player;
  error = "";
  game = "";
  nameError = "";
  maintenance = ""; // the operator's notice (ListGames)
  closed = false;
  timer = window.setInterval(() => void this.refresh(), 5000);

  constructor(
    private readonly show: Show,
    private readonly go: Go,
    private readonly queue: Queue,
    private readonly challenges: Challenges,
  ) {
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
      this.challenges.know(this.games, title);
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
      await this.refreshGames(false);
      const seats = Math.max(this.info()?.minSeats ?? 2, 2);
      if (this.game) this.leaders = (await gateway.getLeaderboard({ game: this.game, seats, limit: 10 })).entries;
      if (this.game && identity().playerId) this.bots = (await gateway.getLeaderboard({ game: this.game, seats, limit: 10, bots: true })).entries;
    } catch (e) {
      this.error = problem(e);
    }
    if (!this.closed) this.show();
  }

  /** The player's games again (a turn came: their Events stream, or the lobby's own look every few seconds); a
   * decision that became theirs since the last look is announced (notice.ts) when they look elsewhere. */
  async refreshGames(show = true): Promise<void> {
    try {
      this.mine = await yourGames();
    } catch (e) {
      this.error = problem(e);
    }
    const owed = new Set(this.mine.filter(isYourTurn).map((g) => g.table.tableId));
    for (const g of this.mine) {
      if (this.owed && owed.has(g.table.tableId) && !this.owed.has(g.table.tableId)) {
        turns.turn({ tableId: g.table.tableId, version: g.table.version, game: title(g.table.config?.game ?? "") });
      }
    }
    this.owed = owed;
    if (show && !this.closed) this.show();
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
    if (!this.closed) this.show();
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
    this.show();
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
      this.go(`#/table/${created.table!.tableId}`);
    });
  }

  join(table: Table): Promise<void> {
    return this.act(async () => {
      const joined = await gateway.joinTable({ tableId: table.tableId, playerName: identity().name });
      holdSeat(table.tableId, joined.seat, joined.seatToken);
      this.go(`#/table/${table.tableId}`);
    });
  }

  enqueue(form: HTMLFormElement): Promise<void> {
    const seats = Number(new FormData(form).get("seats"));
    return this.act(() => this.queue.join(this.game, seats));
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
      ${notice(this.error || this.queue.said)}
      <section class="panel" aria-labelledby="you">
        <h2 id="you">You</h2>
        ${who.playerId
          ? html`<p>Registered as <strong>${who.name}</strong>.
                <button type="button" class="link" @click=${() => { forget(); this.player = undefined; this.show(); }}>Sign out</button></p>
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
      ${yourGamesList(this.mine)}
      <section class="panel" aria-labelledby="new">
        <h2 id="new">A new game</h2>
        <label>Game
          <select name="game" @change=${(e: Event & { target: HTMLSelectElement }) => { this.game = e.target.value; this.show(); void this.refresh(); }}>
            ${this.games.map((g) => html`<option value=${g.name} ?selected=${g.name === this.game}>${g.title}</option>`)}
          </select>
        </label>
        ${info ? html`<p class="about">${info.description} ${howToPlayLink(info.name, `How to play ${info.title}`)}</p>${this.createForm(info, submit)}${this.queueForm(info, submit)}${this.challenges.form(info, this.leaders, this.bots)}` : nothing}
      </section>
      ${this.tableList("Tables waiting for players", "waiting", this.open, (t) => html`<button @click=${() => this.join(t)}>Join</button>`)}
      ${this.tableList("Games being played", "playing", this.playing, (t) => html`<a class="button" href=${`#/table/${t.tableId}`}>Watch</a>`)}
      ${info ? this.leaderboard(info) : nothing}
      <section class="panel" aria-labelledby="replay">
        <h2 id="replay">Replay a finished game</h2>
        <form class="row" @submit=${submit((f) => this.go(`#/replay/${(new FormData(f).get("table") as string).trim()}`))}>
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
    if (this.queue.held) return this.queue.status();
    return html`<form class="stack" aria-label="Queue for a game" @submit=${submit((f) => this.enqueue(f))}>
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
