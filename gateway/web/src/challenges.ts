// Challenges in the browser (registered players): the challenges to this player, live from their Events stream, on
// every page, each with Accept and Decline (a reason, their words); the challenges they made, waiting; a form to
// challenge a player (or a bot account) by name. An accepted challenge takes both players to the table.
import { html, nothing, type TemplateResult } from "lit-html";
import { Code, ConnectError } from "@connectrpc/connect";
import { gateway, holdSeat, identity } from "./api";
import { human } from "./board";
import { ChallengeStatus, DeclineReason, type Challenge, type LeaderboardEntry, type PlayerEvent } from "./gen/manaforge/v1/gateway_pb";
import type { GameInfo } from "./gen/manaforge/v1/rules_pb";

const RETRY_MS = [500, 1000, 2000, 5000, 10_000]; // the pauses before the stream is opened again, the last repeated

/** What the challenger reads of a decline's reason. */
export const REASON_WORDS: Record<number, string> = {
  [DeclineReason.UNSPECIFIED]: "no reason given",
  [DeclineReason.GENERIC]: "no reason given",
  [DeclineReason.BUSY]: "busy: at its limit of games under way",
  [DeclineReason.LATER]: "not now",
  [DeclineReason.GAME]: "not this game",
  [DeclineReason.TIME_CONTROL]: "not this clock",
  [DeclineReason.NO_BOTS]: "does not play bot accounts",
};

/** The reasons a person may give, as the Decline form offers them. */
const REASONS: [DeclineReason, string][] = [
  [DeclineReason.GENERIC, "No reason"],
  [DeclineReason.LATER, "Not now"],
  [DeclineReason.GAME, "Not this game"],
  [DeclineReason.TIME_CONTROL, "Not this clock"],
  [DeclineReason.NO_BOTS, "No bot accounts"],
];

function problem(error: unknown): string {
  return error instanceof ConnectError ? error.rawMessage || error.message : String(error);
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => window.setTimeout(resolve, ms));
}

/** "Manufactory, 3 seats, turn limit 15, 60 s a decision, 1 bot" */
export function configWords(c: Challenge, title: (game: string) => string, defaults: Map<string, string>): string {
  const config = c.config!;
  const words = [title(config.game), `${config.seats} seats`];
  for (const [name, value] of Object.entries(config.options).sort()) {
    if (defaults.get(`${config.game}.${name}`) !== value) words.push(`${human(name)} ${value}`);
  }
  const clock = c.timeControl;
  if (clock?.bankSeconds) words.push(`a ${clock.bankSeconds} s bank`);
  else if (clock?.decisionSeconds) words.push(`${clock.decisionSeconds} s a decision`);
  const levels = c.others.filter((s) => s.bot).map((s) => s.botLevel || "random");
  if (levels.length) words.push(`${levels.length} bot${levels.length > 1 ? "s" : ""} (${[...new Set(levels)].sort().join(", ")})`);
  const open = c.others.length - levels.length;
  if (open) words.push(`${open} open seat${open > 1 ? "s" : ""}`);
  return words.join(", ");
}

export class Challenges {
  received = new Map<string, Challenge>(); // waiting for this player's answer, by id
  sent = new Map<string, Challenge>(); // waiting for the challenged player's answer
  said = ""; // a decline of this player's challenge, or what became of an answer
  error = "";
  declining = ""; // the challenge whose Decline form is open
  private following = ""; // the player whose stream is followed
  private abort = new AbortController();
  private defaults = new Map<string, string>(); // "game.option" -> default value
  private titles: (game: string) => string = human;
  /** Told of the player's games on the stream (a game started, a decision theirs, a game ended). */
  games: (kind: PlayerEvent["kind"]) => void = () => undefined;

  constructor(
    private readonly show: () => void,
    private readonly go: (hash: string) => void,
  ) {}

  /** The games, for their titles and options' defaults (options are said only when they differ). */
  know(games: GameInfo[], title: (game: string) => string): void {
    this.titles = title;
    for (const g of games) for (const o of g.options) this.defaults.set(`${g.name}.${o.name}`, o.defaultValue);
  }

  /** Follow the signed-in player's stream (called on every render; a new player, a new stream; signed out, none). */
  sync(): void {
    const who = identity().playerId ?? "";
    if (who === this.following) return;
    this.abort.abort();
    this.abort = new AbortController();
    this.following = who;
    this.received.clear();
    this.sent.clear();
    this.said = this.error = "";
    if (who) void this.follow(who, this.abort.signal);
  }

  private async follow(who: string, signal: AbortSignal): Promise<void> {
    let after = "";
    let tries = 0;
    try {
      const listed = await gateway.listChallenges({}, { signal });
      for (const c of listed.sent) this.sent.set(c.challengeId, c);
    } catch {
      // the stream below says what is wrong, if anything is
    }
    while (!signal.aborted && this.following === who) {
      try {
        for await (const event of gateway.events({ after }, { signal })) {
          tries = 0;
          if (event.cursor) after = event.cursor;
          this.take(event.kind);
          if (event.kind.case === "yourTurn" || event.kind.case === "gameStarted" || event.kind.case === "gameEnded") this.games(event.kind);
        }
      } catch (e) {
        if (signal.aborted) return;
        if (e instanceof ConnectError && (e.code === Code.Unauthenticated || e.code === Code.PermissionDenied)) {
          this.error = problem(e);
          this.show();
          return;
        }
      }
      await pause(RETRY_MS[Math.min(tries++, RETRY_MS.length - 1)]);
    }
  }

  private take(kind: { case: string | undefined; value?: unknown }): void {
    if (kind.case === "challengeReceived") {
      const c = kind.value as Challenge;
      this.received.set(c.challengeId, c);
    } else if (kind.case === "challengeAccepted") {
      const c = kind.value as Challenge;
      if (this.sent.delete(c.challengeId)) void this.sit(c.tableId, `${c.challengedName} accepted your challenge.`);
    } else if (kind.case === "challengeDeclined") {
      const c = kind.value as Challenge;
      this.sent.delete(c.challengeId);
      const words = REASON_WORDS[c.reason] ?? "no reason given";
      this.said = `${c.challengedName} declined your challenge (${configWords(c, this.titles, this.defaults)}): ${words}${c.reasonText ? ` — “${c.reasonText}”` : ""}.`;
    } else {
      return;
    }
    this.show();
  }

  /** This player's seat at the table of an accepted challenge, then the table. */
  private async sit(tableId: string, said: string): Promise<void> {
    try {
      const joined = await gateway.rejoinTable({ tableId });
      holdSeat(tableId, joined.seat, joined.seatToken);
      this.said = said;
      this.go(`#/table/${tableId}`);
    } catch (e) {
      this.error = problem(e);
      this.show();
    }
  }

  async accept(c: Challenge): Promise<void> {
    await this.act(async () => {
      const accepted = await gateway.acceptChallenge({ challengeId: c.challengeId });
      this.received.delete(c.challengeId);
      await this.sit(accepted.tableId, `You accepted ${c.challengerName}'s challenge.`);
    }, c);
  }

  async decline(c: Challenge, form: HTMLFormElement): Promise<void> {
    const data = new FormData(form);
    await this.act(async () => {
      await gateway.declineChallenge({
        challengeId: c.challengeId,
        reason: Number(data.get("reason")) as DeclineReason,
        text: ((data.get("text") as string) ?? "").trim(),
      });
      this.received.delete(c.challengeId);
      this.declining = "";
      this.said = `You declined ${c.challengerName}'s challenge: they are told.`;
    }, c);
  }

  /** Challenge a player by name to `game`; the answer comes on the stream. */
  async challenge(name: string, game: string, seats: number, clock: number, others: string, options: Record<string, string>): Promise<void> {
    await this.act(async () => {
      const made = await gateway.createChallenge({
        playerName: name,
        config: { game, seats, options },
        others: Array.from({ length: Math.max(0, seats - 2) }, () => (others === "open" ? { bot: false } : { bot: true, botLevel: others })),
        timeControl: clock ? { decisionSeconds: clock } : undefined,
      });
      if (made.status === ChallengeStatus.DECLINED) { // declined at once: a bot account at its limit of games
        this.take({ case: "challengeDeclined", value: made });
        return;
      }
      this.sent.set(made.challengeId, made);
      this.said = `Challenge sent to ${made.challengedName}: waiting for the answer.`;
    });
  }

  private async act(work: () => Promise<void>, gone?: Challenge): Promise<void> {
    this.error = "";
    try {
      await work();
    } catch (e) {
      this.error = problem(e);
      if (gone && e instanceof ConnectError && e.code === Code.NotFound) {
        this.received.delete(gone.challengeId); // expired meanwhile
        this.error = `${gone.challengerName}'s challenge has expired.`;
      }
    }
    this.show();
  }

  private expiresIn(c: Challenge): string {
    const seconds = Math.max(0, Math.round(c.expiresAt - Date.now() / 1000));
    return seconds >= 60 ? `${Math.floor(seconds / 60)} min` : `${seconds} s`;
  }

  /** On every page, for a signed-in player: the challenges to them, with the answers; theirs, waiting. */
  panel(): TemplateResult | typeof nothing {
    const now = Date.now() / 1000;
    const received = [...this.received.values()].filter((c) => c.expiresAt > now);
    const sent = [...this.sent.values()].filter((c) => c.expiresAt > now);
    if (!this.following || (!received.length && !sent.length && !this.said && !this.error)) return nothing;
    return html`<section class="panel challenges" aria-labelledby="challenges">
      <h2 id="challenges">Challenges</h2>
      ${this.error ? html`<p class="error" role="alert">${this.error}</p>` : nothing}
      ${this.said ? html`<p role="status" class="said">${this.said}
        <button type="button" class="link" @click=${() => { this.said = ""; this.show(); }}>OK</button></p>` : nothing}
      ${received.length ? html`<ul class="challenge-list" aria-label="Challenges to you">${received.map((c) => this.incoming(c))}</ul>` : nothing}
      ${sent.length ? html`<ul class="challenge-list" aria-label="Your challenges">${sent.map((c) => html`<li>
          <span>You challenged <strong>${c.challengedName}</strong>: ${configWords(c, this.titles, this.defaults)}.
          Waiting for the answer (expires in ${this.expiresIn(c)}).</span></li>`)}</ul>` : nothing}
    </section>`;
  }

  private incoming(c: Challenge): TemplateResult {
    const who = html`<strong>${c.challengerName}</strong>${c.challengerBot ? html` <span class="bot-badge">bot</span>` : nothing}`;
    const submit = (e: SubmitEvent) => {
      e.preventDefault();
      void this.decline(c, e.currentTarget as HTMLFormElement);
    };
    return html`<li class="incoming" data-challenge=${c.challengeId}>
      <span>${who} challenges you: ${configWords(c, this.titles, this.defaults)} (expires in ${this.expiresIn(c)}).</span>
      ${this.declining === c.challengeId
        ? html`<form class="row" aria-label=${`Decline ${c.challengerName}'s challenge`} @submit=${submit}>
            <label>Reason <select name="reason">${REASONS.map(([value, label]) => html`<option value=${value}>${label}</option>`)}</select></label>
            <label>Your words <input name="text" maxlength="200" placeholder="optional" /></label>
            <button>Decline</button>
            <button type="button" class="link" @click=${() => { this.declining = ""; this.show(); }}>Back</button>
          </form>`
        : html`<div class="row">
            <button @click=${() => void this.accept(c)}>Accept</button>
            <button type="button" @click=${() => { this.declining = c.challengeId; this.show(); }}>Decline…</button>
          </div>`}
    </li>`;
  }

  /** The lobby's form: challenge a player by name (people from the leaderboard, bot accounts marked as bots). */
  form(info: GameInfo, people: LeaderboardEntry[], bots: LeaderboardEntry[]): TemplateResult {
    if (!identity().playerId) {
      return html`<p class="about">Register a name (above) to challenge players and bot accounts, and to be challenged.</p>`;
    }
    const submit = (e: SubmitEvent) => {
      e.preventDefault();
      const data = new FormData(e.currentTarget as HTMLFormElement);
      const options: Record<string, string> = {};
      for (const option of info.options) {
        const value = data.get(`option-${option.name}`);
        if (typeof value === "string") options[option.name] = value;
      }
      void this.challenge((data.get("player") as string).trim(), info.name, Number(data.get("seats")), Number(data.get("clock")), data.get("others") as string, options);
    };
    const me = identity().name;
    const known = [...people.filter((e) => !e.playerId.startsWith("bot:") && e.name !== me), ...bots.filter((e) => !e.playerId.startsWith("bot:"))];
    const botIds = new Set(bots.map((e) => e.playerId));
    return html`<form class="stack" aria-label="Challenge a player" @submit=${submit}>
      <h3>Or challenge a player to ${info.title}</h3>
      <label>Player's name <input name="player" required maxlength="24" list="known-players" autocomplete="off" /></label>
      <datalist id="known-players">${known.map((e) => html`<option value=${e.name}>${botIds.has(e.playerId) ? "bot account" : "player"}</option>`)}</datalist>
      <label>Seats <input name="seats" type="number" min=${Math.max(info.minSeats, 2)} max=${info.maxSeats} .value=${String(Math.max(info.minSeats, 2))} required /></label>
      ${info.maxSeats > 2 ? html`<label>Seats past the two of you
        <select name="others">
          ${info.botLevels.map((level, i) => html`<option value=${level} ?selected=${i === 0}>bots: ${level}</option>`)}
          <option value="open">open, for people to join</option>
        </select></label>` : nothing}
      ${info.options.length
        ? html`<details><summary>Options (${info.options.map((o) => human(o.name)).join(", ")})</summary>
            ${info.options.map((o) => html`<label>${human(o.name)}
              ${o.choices.length
                ? html`<select name=${`option-${o.name}`}>${o.choices.map((c) => html`<option ?selected=${c === o.defaultValue}>${c}</option>`)}</select>`
                : html`<input name=${`option-${o.name}`} .value=${o.defaultValue} />`}
              <small>${o.description}</small></label>`)}
          </details>`
        : nothing}
      <label>Clock per decision
        <select name="clock"><option value="0">the platform's default</option><option value="30">30 s</option><option value="60">1 min</option><option value="300">5 min</option></select>
      </label>
      <button>Challenge</button>
      ${bots.some((e) => !e.playerId.startsWith("bot:"))
        ? html`<p class="about">Bot accounts playing ${info.title}: ${bots.filter((e) => !e.playerId.startsWith("bot:")).map(
            (e, i) => html`${i ? ", " : ""}<button type="button" class="link" @click=${(ev: Event) => {
              const input = (ev.currentTarget as HTMLElement).closest("form")!.querySelector<HTMLInputElement>("input[name=player]")!;
              input.value = e.name;
              input.focus();
            }}>${e.name}</button> <span class="bot-badge">bot</span>`)}</p>`
        : nothing}
    </form>`;
  }
}
