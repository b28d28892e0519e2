// The operator's console (#/console): the Admin service (docs/operations.md), through the web edge when it is started
// with --console, for a browser on the edge's own machine. The operator key is asked on the page and kept for this
// tab only (sessionStorage); every call carries it and the gateway checks it. Shown: the live tables by game and one
// by one, players online, queues and their waits, the outbox, gateways, workers, error counters, the audit log; the
// actions: end a table (after a confirmation), mute / ban / clear a player, drain the gateway, post or clear the
// maintenance notice.
import { html, nothing, type TemplateResult } from "lit-html";
import { Code, ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { gateway } from "./api";
import { Admin, Standing, type AuditEntry, type Overview } from "./gen/manaforge/v1/admin_pb";
import { SeatKind, type Table } from "./gen/manaforge/v1/gateway_pb";

const KEY = "manaforge.operator"; // {key, name}, for this tab only
const REFRESH_MS = 3000;

interface Operator {
  key: string;
  name: string;
}

function operator(): Operator | undefined {
  const saved = sessionStorage.getItem(KEY);
  return saved ? (JSON.parse(saved) as Operator) : undefined;
}

const withKey: Interceptor = (next) => async (request) => {
  const who = operator() ?? pending;
  if (who) {
    request.header.set("x-operator-key", who.key);
    request.header.set("x-operator-name", who.name || "console");
  }
  return next(request);
};
let pending: Operator | undefined; // the key being tried, before it is known to be right

const admin = createClient(Admin, createGrpcWebTransport({ baseUrl: location.origin, interceptors: [withKey] }));

/** What a refusal means to the operator. */
function refusal(error: unknown): string {
  if (!(error instanceof ConnectError)) return String(error);
  const said = error.rawMessage || error.message;
  if (error.code === Code.PermissionDenied && said.includes("wrong key")) {
    return "Wrong operator key: the gateway refused it. Check MANAFORGE_OPERATOR_KEY and try again.";
  }
  if (error.code === Code.PermissionDenied && said.includes("none configured")) {
    return "This gateway has no operator key configured (MANAFORGE_OPERATOR_KEY): the console is off.";
  }
  return said;
}

function ago(seconds: number): string {
  return seconds < 90 ? `${seconds.toFixed(0)} s` : `${(seconds / 60).toFixed(0)} min`;
}

export class ConsolePage {
  overview?: Overview;
  live: Table[] = [];
  audit: AuditEntry[] = [];
  error = "";
  said = ""; // what the last action did (AdminResult.done)
  confirming = ""; // "end:<table id>" or "drain": the action waiting for its confirmation
  closed = false;
  timer = 0;

  constructor(private readonly show: () => void) {
    if (operator()) this.start();
  }

  close(): void {
    this.closed = true;
    window.clearInterval(this.timer);
  }

  private start(): void {
    void this.refresh();
    window.clearInterval(this.timer);
    this.timer = window.setInterval(() => void this.refresh(), REFRESH_MS);
  }

  async refresh(): Promise<void> {
    try {
      this.overview = await admin.getOverview({});
      this.live = (await gateway.listTables({ inProgress: true, pageSize: 50 })).tables;
      this.audit = (await admin.getAuditLog({ limit: 10 })).entries;
      this.error = "";
    } catch (e) {
      this.error = refusal(e);
      if (e instanceof ConnectError && [Code.PermissionDenied, Code.Unauthenticated].includes(e.code)) this.signOut(false);
    }
    if (!this.closed) this.show();
  }

  async signIn(form: HTMLFormElement): Promise<void> {
    const data = new FormData(form);
    pending = { key: data.get("key") as string, name: ((data.get("name") as string) ?? "").trim() };
    this.error = "";
    try {
      this.overview = await admin.getOverview({});
      sessionStorage.setItem(KEY, JSON.stringify(pending));
      this.start();
    } catch (e) {
      this.error = refusal(e);
    }
    pending = undefined;
    this.show();
  }

  signOut(show = true): void {
    sessionStorage.removeItem(KEY);
    window.clearInterval(this.timer);
    this.overview = undefined;
    if (show) this.show();
  }

  private async act(work: () => Promise<{ done: string }>): Promise<void> {
    this.error = this.said = "";
    this.confirming = "";
    try {
      this.said = `Done: ${(await work()).done}.`;
    } catch (e) {
      this.error = refusal(e);
    }
    await this.refresh();
  }

  private ask(what: string): void {
    this.confirming = what;
    this.show();
  }

  view(): TemplateResult {
    const submit = (handler: (form: HTMLFormElement) => unknown) => (e: SubmitEvent) => {
      e.preventDefault();
      void handler(e.currentTarget as HTMLFormElement);
    };
    const error = this.error ? html`<p class="error" role="alert">${this.error}</p>` : nothing;
    if (!operator() || !this.overview) {
      return html`<h1>Operator console</h1>${error}
        <section class="panel" aria-labelledby="sign-in">
          <h2 id="sign-in">Sign in as the operator</h2>
          <p class="about">The console calls the gateway's Admin service; every action is written to its audit log.</p>
          <form class="stack" aria-label="Open the console" @submit=${submit((f) => this.signIn(f))}>
            <label>Operator key <input name="key" type="password" required autocomplete="current-password" /></label>
            <label>Your name, for the audit log <input name="name" maxlength="64" autocomplete="username" /></label>
            <button>Open the console</button>
          </form>
        </section>`;
    }
    const o = this.overview;
    return html`<h1>Operator console</h1>
      ${error}
      ${this.said ? html`<p class="said" role="status">${this.said}</p>` : nothing}
      <p><button type="button" class="link" @click=${() => this.signOut()}>Close the console (forget the key)</button></p>
      ${this.health(o)}
      ${this.tables(o)}
      ${this.players(o)}
      ${this.notice(o, submit)}
      ${this.system(o)}
      ${this.auditLog()}`;
  }

  private health(o: Overview): TemplateResult {
    const errors = Object.entries(o.errors).sort();
    return html`<section class="panel" aria-labelledby="health">
      <h2 id="health">At a glance</h2>
      <dl class="overview">
        <dt>Players online</dt><dd>${o.streamsOnline} stream${o.streamsOnline === 1n ? "" : "s"} open (players and spectators)</dd>
        <dt>Outbox</dt><dd>${o.outboxItems} item${o.outboxItems === 1n ? "" : "s"} waiting${o.outboxLagSeconds > 0 ? html`, <strong>most overdue ${ago(o.outboxLagSeconds)}</strong>` : ", none overdue"}</dd>
        <dt>Workers alive</dt><dd>${o.workers.length ? o.workers.length : html`<strong class="warning">none seen in the last 30 s</strong>`}</dd>
        <dt>Queues</dt><dd>${o.queues.length ? o.queues.map((q) => html`${q.queue}: ${q.waiting} waiting, oldest ${ago(q.oldestWaitSeconds)}<br />`) : "nobody waiting"}</dd>
        <dt>Errors (this gateway)</dt><dd>${errors.length ? errors.map(([name, count]) => html`${name}: ${count}<br />`) : "none"}</dd>
      </dl>
    </section>`;
  }

  private tables(o: Overview): TemplateResult {
    const games = o.tables.filter((t) => t.playing || t.open);
    return html`<section class="panel" aria-labelledby="live">
      <h2 id="live">Tables</h2>
      ${games.length
        ? html`<table class="list"><caption>By game</caption><thead><tr><th>game</th><th>playing</th><th>waiting</th></tr></thead>
            <tbody>${games.map((t) => html`<tr><td>${t.game}</td><td>${t.playing}</td><td>${t.open}</td></tr>`)}</tbody></table>`
        : html`<p class="empty">No tables.</p>`}
      <h3>Being played</h3>
      ${this.live.length
        ? html`<ul class="tables" aria-label="Live tables">${this.live.map((t) => this.liveTable(t))}</ul>`
        : html`<p class="empty">No game under way.</p>`}
    </section>`;
  }

  private liveTable(t: Table): TemplateResult {
    const seats = t.seats.map((s) => (s.kind === SeatKind.BOT ? `${s.name}` : s.name || `seat ${s.seat} open`)).join(", ");
    const confirming = this.confirming === `end:${t.tableId}`;
    return html`<li data-table=${t.tableId}>
      <span><strong>${t.config?.game}</strong> ${t.tableId} · move ${t.version} · ${seats}${t.spectators ? ` · ${t.spectators} watching` : ""}</span>
      ${confirming
        ? html`<span role="group" aria-label=${`End table ${t.tableId}?`}>End it? The game stops as “aborted by the operator”, no rating changes.
            <button @click=${() => void this.act(() => admin.endTable({ tableId: t.tableId }))}>End the table</button>
            <button type="button" class="link" @click=${() => this.ask("")}>Keep it</button></span>`
        : html`<button @click=${() => this.ask(`end:${t.tableId}`)} aria-label=${`End table ${t.tableId}`}>End…</button>`}
    </li>`;
  }

  private players(o: Overview): TemplateResult {
    const registered = new Map<string, string>();
    for (const t of this.live) for (const s of t.seats) if (s.playerId) registered.set(s.playerId, s.name);
    const standing = (playerId: string, value: Standing, reason: string, durationSeconds = 0n) =>
      this.act(() => admin.setPlayerStanding({ playerId, standing: value, reason, durationSeconds }));
    const submit = (e: SubmitEvent) => {
      e.preventDefault();
      const form = e.currentTarget as HTMLFormElement;
      const data = new FormData(form);
      const value = Number((e.submitter as HTMLButtonElement | null)?.value ?? Standing.MUTED) as Standing;
      const lasting = value === Standing.UNSPECIFIED ? 0n : BigInt(Number(data.get("duration") ?? 0));
      void standing((data.get("player") as string).trim(), value, (data.get("reason") as string).trim(), lasting);
    };
    const until = (id: string) => {
      const end = o.standingUntil[id];
      return end ? ` (until ${new Date(end * 1000).toLocaleString()})` : " (until cleared)";
    };
    const listed = (label: string, ids: string[]) =>
      ids.length
        ? html`<p>${label}: ${ids.map((id) => html`${registered.get(id) ?? id}${until(id)}
            <button type="button" class="link" @click=${() => void standing(id, Standing.UNSPECIFIED, "")}>clear</button> `)}</p>`
        : nothing;
    return html`<section class="panel" aria-labelledby="players">
      <h2 id="players">Players</h2>
      ${listed("Muted (may finish their games; may not start or join one, queue or challenge)", o.muted)}${listed("Banned (every call refused)", o.banned)}
      <form class="stack" aria-label="A player's standing" @submit=${submit}>
        <label>Player id <input name="player" required maxlength="64" list="seated-players" /></label>
        <datalist id="seated-players">${[...registered].map(([id, name]) => html`<option value=${id}>${name}</option>`)}</datalist>
        <label>Reason (for the audit log, and told to the player) <input name="reason" maxlength="500" /></label>
        <label>For <select name="duration">
          <option value="3600">an hour</option>
          <option value="86400">a day</option>
          <option value="604800">a week</option>
          <option value="0" selected>until cleared</option>
        </select></label>
        <div class="row">
          <button value=${Standing.MUTED}>Mute</button>
          <button value=${Standing.BANNED}>Ban</button>
          <button value=${Standing.UNSPECIFIED}>Clear</button>
        </div>
      </form>
    </section>`;
  }

  private notice(o: Overview, submit: (h: (f: HTMLFormElement) => unknown) => (e: SubmitEvent) => void): TemplateResult {
    return html`<section class="panel" aria-labelledby="notice">
      <h2 id="notice">Maintenance notice</h2>
      <p>${o.notice ? html`Posted: <span class="maintenance">${o.notice}</span>` : "None posted."}</p>
      <form class="row" aria-label="Post a notice" @submit=${submit((f) => this.act(() => admin.setNotice({ text: (new FormData(f).get("text") as string).trim() })))}>
        <label>Notice shown to players <input name="text" maxlength="500" /></label>
        <button>Post</button>
        ${o.notice ? html`<button type="button" @click=${() => void this.act(() => admin.setNotice({ text: "" }))}>Clear the notice</button>` : nothing}
      </form>
    </section>`;
  }

  private system(o: Overview): TemplateResult {
    return html`<section class="panel" aria-labelledby="system">
      <h2 id="system">Gateways and workers</h2>
      <ul class="tables">${o.gateways.map((g) => html`<li><span>Gateway ${g.address}: ${g.streams} stream${g.streams === 1n ? "" : "s"}${g.draining ? " (draining)" : ""}, seen ${ago(g.seenSecondsAgo)} ago</span></li>`)}</ul>
      <ul class="tables">${o.workers.map((w) => html`<li><span>Worker ${w.name}: seen ${ago(w.seenSecondsAgo)} ago</span></li>`)}</ul>
      ${this.confirming === "drain"
        ? html`<p role="group" aria-label="Drain the gateway?">Drain the gateway this page talks to? Its streams end and players reconnect elsewhere; it stops.
            <button @click=${() => void this.act(() => admin.drainGateway({}))}>Drain it</button>
            <button type="button" class="link" @click=${() => this.ask("")}>Keep it</button></p>`
        : html`<button @click=${() => this.ask("drain")}>Drain this gateway…</button>`}
    </section>`;
  }

  private auditLog(): TemplateResult {
    return html`<section class="panel" aria-labelledby="audit">
      <h2 id="audit">Audit log (latest)</h2>
      ${this.audit.length
        ? html`<ul class="tables">${this.audit.map((a) => html`<li><span>${new Date(a.at * 1000).toISOString().slice(0, 19).replace("T", " ")} UTC · ${a.who} · ${a.action}: ${a.what}</span></li>`)}</ul>`
        : html`<p class="empty">Nothing yet.</p>`}
    </section>`;
  }
}
