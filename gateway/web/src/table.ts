// A table (#/table/ID): your seat when this browser holds its token (else the public view), live from the Watch
// stream, resumed after the last update seen when it breaks; the seats, the result, the clock's notices, your move,
// the board and what happened. A refused seat token is forgotten (a registered player gets their own seat back).
import { html, nothing, type TemplateResult } from "lit-html";
import { Code } from "@connectrpc/connect";
import { dropSeat, gateway, heldSeat, holdSeat, identity, type SeatHeld } from "./api";
import { withTexts, type Choice } from "./actions";
import { Choosing, seatsBar } from "./choosing";
import { Clock } from "./clock";
import { Connection, PATIENCE_MS, backoff, isAway, pause } from "./connection";
import { presentation } from "./games";
import { howToPlayLink } from "./howto";
import { named, sentence } from "./names";
import { turns } from "./notice";
import { codeOf, notice, problem, title, type Page, type Show } from "./page";
import { catalogueOf, parse, result, seatNames, tableBoard } from "./scene";
import { DecisionKind, type Catalogue, type Event } from "./gen/manaforge/v1/common_pb";
import { SeatKind, type SeatView, type Table, type WatchUpdate } from "./gen/manaforge/v1/gateway_pb";

/** A fresh client action id (crypto.randomUUID needs a secure context; an edge may be served over plain HTTP). */
function actionId(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

export class TablePage implements Page {
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
  sending = false;
  owed = false; // the decision the game waits for is this seat's (announced when it becomes so: notice.ts)
  clock = new Clock(); // what the clock decided for this seat
  link: Connection; // the gateway away, or back
  choosing: Choosing; // the seat's move
  abort = new AbortController();
  ticker = window.setInterval(() => this.tick(), 1000);

  constructor(
    readonly tableId: string,
    private readonly show: Show,
  ) {
    this.link = new Connection(show);
    this.choosing = new Choosing(show, (choice, texts) => void this.submit(choice, texts));
    this.held = heldSeat(tableId);
    void this.start();
  }

  close(): void {
    this.abort.abort();
    window.clearInterval(this.ticker);
  }

  /** The page's title: the game's. */
  name(): string {
    const game = this.table?.config?.game;
    return game ? `${title(game)} — Manaforge` : "Manaforge";
  }

  /** The decision became this seat's (after another seat's, or as the page opens): said to a player looking
   * elsewhere. */
  owing(): void {
    const view = this.seatView;
    const owed = this.mine >= 0 && !!view && !view.outcome?.finished && !!view.legalActions.length
      && (view.pending?.seats ?? []).includes(this.mine);
    const game = this.table?.config?.game;
    if (owed && !this.owed && view) turns.turn({ tableId: this.tableId, version: view.version, game: game ? title(game) : undefined });
    this.owed = owed;
  }

  /** Each second, while a clock counts down or a connection notice is shown: drawn again. */
  tick(): void {
    const counting = !this.seatView?.outcome?.finished && !!this.seatView?.deadlines.length;
    if (counting || this.link.isSaying()) this.show();
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
    this.show();
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
    this.show();
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
      this.show();
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
          this.link.back();
          if (this.accepted) this.notice(update, first, awayAtOpen);
          this.events.push(...update.events);
          if (update.view) this.seatView = update.view;
          if (this.accepted && this.seatView) holdSeat(this.tableId, this.mine, token, this.seatView.version);
          this.owing();
          if (this.seatView?.outcome?.finished || !this.table?.started || first) await this.refreshTable();
          this.error = "";
          this.show();
        }
        if (this.seatView?.outcome?.finished) return;
      } catch (e) {
        if (this.abort.signal.aborted || this.ended(e)) return;
        if (codeOf(e) === Code.Unauthenticated && this.held) {
          await this.refused();
          continue;
        }
        if (isAway(e)) this.link.away(e);
        else this.error = `${problem(e)} — trying again…`;
        this.show();
        tries++;
      }
      await pause(this.link.retryAfter(tries));
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
    this.show();
  }

  /** What the clock decided for this seat: its events that this page did not send, when they came after the
   * seat's deadline (or while it was away); on coming back to the table, those since the page last showed it. */
  notice(update: WatchUpdate, first: boolean, awayAtOpen: boolean): void {
    const mine = this.mine;
    if (first) {
      const seen = this.held?.seen !== undefined ? BigInt(this.held.seen) : undefined;
      this.clock.opened(update, mine, seen, awayAtOpen);
      return;
    }
    this.clock.heard(update, mine, this.seatView, !!this.table?.seats[mine]?.away);
    this.settle();
  }

  /** Sort this seat's late events once no move of this page's is on its way. */
  settle(): void {
    if (this.clock.settle(this.sending)) void this.refreshTable(); // the seat may be away now
  }

  /** The player is back (a call with the seat's token): a bot no longer plays the seat at once, and the clock runs
   * in full again. */
  async comeBack(): Promise<void> {
    if (!this.held) return;
    try {
      const view = await gateway.getView({ tableId: this.tableId, seatToken: this.held.token });
      if (!this.seatView || view.version >= this.seatView.version) this.seatView = view; // its fresh deadline
      this.clock.back();
      await this.refreshTable();
    } catch (e) {
      this.error = problem(e);
    }
    this.show();
  }

  async submit(choice: Choice, texts?: string[]): Promise<void> {
    if (!this.held || !this.seatView || this.sending) return;
    this.sending = true; // the choices wait, disabled, for the answer
    this.error = "";
    this.show();
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
        this.clock.moved(done.version);
        this.choosing.done();
        break;
      } catch (e) {
        if (!isAway(e) || this.abort.signal.aborted || Date.now() - since > PATIENCE_MS) {
          // the board moved on meanwhile (the clock decided first): what was decided is said, not the refusal
          const late = (codeOf(e) === Code.Aborted || codeOf(e) === Code.FailedPrecondition) && this.seatView.version !== version;
          if (!late) this.error = problem(e);
          break;
        }
        this.link.away(e);
        this.show();
        await pause(backoff(tries));
      }
    }
    this.sending = false;
    this.settle();
    this.show();
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
      ${this.link.view()}
      ${this.said ? html`<p class="error" role="alert">${this.said}</p>` : nothing}
      ${notice(this.error)}
      ${seatsBar(names, mine, this.seatView, this.table)}
      ${outcome?.finished
        ? html`<section class="result" role="status" aria-label="Result"><h2>${result(outcome, names, mine, game)}</h2>
            <a class="button" href=${`#/replay/${this.tableId}`}>Replay this game step by step</a> <a class="button" href="#/">Back to the lobby</a></section>`
        : this.table && !this.table.started
          ? html`<p role="status">Waiting for players: ${this.table.seats.filter((s) => s.kind === SeatKind.OPEN).length} open seat(s). Share this page's address.</p>`
          : nothing}
      ${!outcome?.finished && mine >= 0
        ? html`${this.clock.view(this.table, mine, () => void this.comeBack())}${this.choosing.view(this.seatView, { names, mine: this.held?.seat ?? -1 }, this.catalogue, this.sending)}`
        : nothing}
      ${parsed && this.table?.config
        ? tableBoard(this.seatView!, this.table.config, this.catalogue, seats)
        : html`<p class="muted">Loading the table…</p>`}
      ${this.seatView?.text && !presentation(game) ? html`<details><summary>The table as text</summary><pre>${this.seatView.text}</pre></details>` : nothing}
      <section class="panel log" aria-label="What happened">
        <h2>What happened</h2>
        <ol aria-live="polite">${this.events.slice(-12).map((e) => html`<li>${sentence(named(e.text, seats), seats)}</li>`)}</ol>
      </section>`;
  }
}
